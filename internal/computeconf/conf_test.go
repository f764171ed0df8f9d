package computeconf

import "testing"

// TestCasesAreMeaningful: names are unique, and no checker accepts the
// buffers the shader started from (every case must be seen to do its
// work, so a dispatch that does nothing fails every one).
func TestCasesAreMeaningful(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Cases() {
		if seen[c.Name] {
			t.Errorf("duplicate case %s", c.Name)
		}
		seen[c.Name] = true
		if c.Source == "" || c.Buffers == nil || c.Check == nil || c.NumWorkGroups[0]*c.NumWorkGroups[1]*c.NumWorkGroups[2] == 0 {
			t.Errorf("%s: incomplete", c.Name)
			continue
		}
		if err := c.Check(c.Buffers(), c.Buffers()); err == nil {
			t.Errorf("%s: the checker accepts the initial buffers", c.Name)
		}
	}
	if len(seen) < 100 {
		t.Errorf("%d cases", len(seen))
	}
}
