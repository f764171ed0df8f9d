package glsl

import (
	"strings"
	"testing"
	"time"
)

// FuzzParseCompute checks the compute front end: no panic or hang, every
// diagnostic in glslangValidator's form, and an accepted shader's local
// size, shared memory and buffer bindings within the limits. Lowering,
// the passes and the reference dispatch are fuzzed by
// compiler/ir.FuzzLowerCompute (this package cannot import ir).
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
		"#version 310 es\nlayout(local_size_x = 8) in;\nlayout(std430, binding = 1) readonly buffer In { uvec2 ab[]; } sb;\n" +
			"shared uint s[8];\nvoid main() { uint i = gl_GlobalInvocationID.x; s[i % 8u] = sb.ab[i].x << 3 | ~sb.ab[i].y % 7u; barrier();" +
			" atomicAdd(s[0], uint(sb.ab.length())); }\n",
		"#version 310 es\nlayout(local_size_x = 2) in;\nshared vec4 big[2000];\nbuffer B { float t[]; float u; };\nvoid main() { int a = 07 % 3 ^ 0xffu; }\n",
		"#version 310 es\nlayout(local_size_x = 2) in;\nconst uint k = 0xFFFFFFFFu >> 3u;\nshared int a[k % 5u + 1u];\nvoid main() { a[0] <<= 1; }\n",
		"#version 310 es\nlayout(local_size_x = 2) in;\nconst int t[3] = int[](1, 2, 3);\nvoid main() { int x = t[1]; switch (x) { case 1: x++; case 2: { break; } default: x = bitCount(uint(x)); } " +
			"uint c; x += int(uaddCarry(1u, 2u, c)) + floatBitsToInt(1.0); }\n",
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
				if unit.SharedSize < 0 || unit.SharedSize > MaxComputeSharedMemorySize {
					t.Errorf("accepted %d bytes of shared memory", unit.SharedSize)
				}
				seen := map[int]bool{}
				for _, b := range unit.Buffers {
					if seen[b.Binding] || b.Binding < 0 || b.Binding >= MaxShaderStorageBufferBindings || b.FixedSize > MaxBufferBlockSize {
						t.Errorf("accepted buffer block %s at binding %d (%d bytes)", b.Name, b.Binding, b.FixedSize)
					}
					seen[b.Binding] = true
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
