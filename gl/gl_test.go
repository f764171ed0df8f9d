package gl

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestContextMatchesXMobile checks that Context has exactly the methods,
// with the same signatures, as golang.org/x/mobile/gl's Context. The golden
// list testdata/xmobile-gl-context.txt was printed by reflecting over
// x/mobile/gl v0.0.0-20261011034528-197770444867 (built with CGO_ENABLED=0,
// outside this module: importing it here would link libGLESv2).
func TestContextMatchesXMobile(t *testing.T) {
	b, err := os.ReadFile("testdata/xmobile-gl-context.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSpace(string(b)), "\n")
	ty := reflect.TypeOf((*Context)(nil)).Elem()
	var got []string
	for i := 0; i < ty.NumMethod(); i++ {
		m := ty.Method(i)
		got = append(got, m.Name+strings.TrimPrefix(m.Type.String(), "func"))
	}
	if len(got) != len(want) {
		t.Errorf("Context has %d methods, x/mobile/gl's has %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("method %d: %s, x/mobile/gl has %s", i, got[i], want[i])
		}
	}
}
