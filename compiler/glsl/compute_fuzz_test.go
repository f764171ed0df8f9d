package glsl

import (
	"strings"
	"testing"
	"time"
)

// FuzzParseCompute checks the compute front end: no panic or hang, every
// diagnostic in glslangValidator's form, and an accepted shader's local
// size within the limits.
func FuzzParseCompute(f *testing.F) {
	for _, s := range []string{
		"#version 310 es\nlayout(local_size_x = 64) in;\nvoid main() {}\n",
		"#version 310 es\nlayout(local_size_x = 4, local_size_y = 8, local_size_z = 2) in;\nvoid main() { float f = 1.0; }\n",
		"#version 310 es\nlayout(local_size_x = 4) in;\nlayout(local_size_x = 5) in;\n",
		"#version 310 es\nlayout(local_size_x = 99999999999999999999) in;\n",
		"#version 310 es\nlayout(std430, binding = 0) buffer B { float d[]; };\n",
		"#version 310 es\nlayout(local_size_x = 2) out;\nbuffer B { float d[]; } b;\nvoid main() {}\n",
		"#version 310 es\nlayout(\n",
		"#version 310 es\nlayout(local_size_x",
		"#version 310 es\nbuffer B {",
		"layout(local_size_x = 1) in; void main() {}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			unit, errs := Parse(Compute, src)
			if errs == nil {
				if unit == nil {
					t.Errorf("nil unit without errors")
					return
				}
				ls := unit.LocalSize
				if ls != [3]int{} && (ls[0] < 1 || ls[1] < 1 || ls[2] < 1 || ls[0] > MaxComputeWorkGroupSizeX ||
					ls[1] > MaxComputeWorkGroupSizeY || ls[2] > MaxComputeWorkGroupSizeZ ||
					ls[0]*ls[1]*ls[2] > MaxComputeWorkGroupInvocations) {
					t.Errorf("accepted local size %v beyond the limits", ls)
				}
			}
			for _, e := range errs {
				if !strings.HasPrefix(e.Error(), "ERROR: 0:") {
					t.Errorf("bad error format %q", e.Error())
				}
			}
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("Parse hangs on %q", src)
		}
	})
}
