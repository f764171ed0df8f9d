package shadertest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseFiles(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.shader_test")
	if len(files) < 4 {
		t.Fatalf("found %d test files", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		st, err := Parse(f, strings.NewReader(string(b)))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if st.FragmentSrc == "" || st.VertexSrc == "" || len(st.Commands) == 0 {
			t.Errorf("%s: incomplete parse: %+v", f, st)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, src, wantErr string
		check              func(*Test) bool
	}{
		{"passthrough", "[vertex shader passthrough]\n[fragment shader]\nvoid main(){}\n[test]\ndraw rect -1 -1 2 2\n", "",
			func(s *Test) bool {
				return s.Passthrough && s.VertexSrc == Passthrough && len(s.Commands) == 1 && s.Commands[0].Line == 5
			}},
		{"vertex data", "[vertex data]\npiglit_vertex/float/2 c/float/3\n0 0 1 2 3\n1 1 1 2 3\n", "",
			func(s *Test) bool { return len(s.VertexData.Rows) == 2 && s.VertexData.Attribs[1].Count == 3 }},
		{"short row", "[vertex data]\nv/float/2\n0\n", ":3: vertex data row has 1 values, header needs 2", nil},
		{"bad section", "[compute shader]\n", ":1: unsupported section [compute shader]", nil},
		{"int data", "[vertex data]\nv/int/2\n", "vertex data type \"int\" not supported", nil},
		{"text first", "hello\n", ":1: text before the first section", nil},
	}
	for _, tc := range tests {
		st, err := Parse("t", strings.NewReader(tc.src))
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !tc.check(st) {
			t.Errorf("%s: %v %+v", tc.name, err, st)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("[vertex data]\nv/float/2\n0 0\n[test]\nprobe all rgba 1 1 1 1\n")
	f.Fuzz(func(t *testing.T, src string) {
		_, _ = Parse("fuzz", strings.NewReader(src))
	})
}
