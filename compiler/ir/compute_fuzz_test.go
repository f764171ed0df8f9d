package ir

import (
	"errors"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/internal/computeconf"
)

// FuzzLowerCompute extends the compute front end's fuzzing
// (glsl.FuzzParseCompute) through lowering, the passes and the reference
// dispatch, differentially: for any compute shader that parses and links,
// lowering yields valid IR, the passes keep it valid, and the IR before
// and after the passes leaves bit-identical buffers after a small
// dispatch (2 work groups, every declared binding holding its block's
// fixed part and fuzzRuntimeElems runtime elements). Runs that end with an error are
// not compared (an out-of-bounds load that DCE removes errs only before
// the passes), but every error must be a Dispatch error, never a panic.
func FuzzLowerCompute(f *testing.F) {
	for _, s := range computeFuzzSeeds {
		f.Add(s)
	}
	// The conformance suite's shaders (the small ones) as seeds too.
	for _, c := range computeconf.Cases() {
		if body, ok := strings.CutPrefix(c.Source, "#version 310 es\n"); ok && len(body) < 2000 {
			f.Add(body)
		}
	}
	f.Fuzz(fuzzLowerCompute)
}

// computeFuzzSeeds are bodies after "#version 310 es"; each is a valid
// shader (TestComputeFuzzSeedsRun).
var computeFuzzSeeds = []string{
	"layout(local_size_x = 4) in;\nlayout(std430, binding = 0) buffer B { uint n; uint v[]; };\n" +
		"void main() { uint i = gl_GlobalInvocationID.x; v[i] = i * 3u + n; atomicAdd(n, 1u); }\n",
	"layout(local_size_x = 8) in;\nlayout(binding = 1) buffer O { int o[]; } sb;\nshared int s[8];\n" +
		"void main() { int l = int(gl_LocalInvocationIndex); s[l] = l * l; barrier(); sb.o[gl_GlobalInvocationID.x] = s[7 - l] % 5; }\n",
	"layout(local_size_x = 16) in;\nlayout(binding = 0) buffer B { uint v[]; };\nshared uint p[16];\n" +
		"void main() { uint l = gl_LocalInvocationID.x; p[l] = l; barrier();\n" +
		"for (uint o = 1u; o < 16u; o <<= 1) { uint a = l >= o ? p[l - o] : 0u; barrier(); p[l] += a; barrier(); }\n" +
		"v[gl_GlobalInvocationID.x] = p[l] / (l + 1u) ^ ~l >> 2; }\n",
	"layout(local_size_x = 2, local_size_y = 2) in;\nstruct S { vec3 a; float b; };\nlayout(binding = 2) buffer B { S s[4]; mat2 m; float t[]; } b;\n" +
		"void main() { uint i = gl_LocalInvocationIndex; b.s[i].a.zx = vec2(float(i), float(i) * 0.5); b.t[i] = b.m[i % 2u].y + float(b.t.length()); }\n",
	"layout(local_size_x = 4) in;\nlayout(binding = 0) buffer B { int v[]; };\n" +
		"int f(inout int x) { x = x << 1; return atomicMax(v[0], x); }\nvoid main() { int y = int(gl_LocalInvocationID.x); if (f(y) > 2) v[1] = y; }\n",
}

func fuzzLowerCompute(t *testing.T, body string) {
	{
		tu, errs := glsl.Parse(glsl.Compute, "#version 310 es\n"+body)
		if errs != nil || glsl.LinkStage(tu) != nil {
			return
		}
		pre, err := FromAST(tu)
		if err != nil {
			return // an unsupported construct, reported as an error
		}
		if err := Verify(pre, FormAny); err != nil {
			t.Fatalf("lowering produced invalid IR: %v\n%s", err, Dump(pre))
		}
		post, _ := FromAST(tu)
		if err := Run(post, Options{Verify: true, Layout: SequentialLayout(post)}); err != nil {
			t.Fatalf("%v\n%s", err, Dump(post))
		}
		if len(pre.Vars) > 0 {
			return // uniforms: the two forms read them differently
		}
		buffers := func() map[int][]uint32 {
			m := map[int][]uint32{}
			for _, b := range pre.Compute.Buffers {
				words := (b.FixedSize + fuzzRuntimeElems*b.Stride + 3) / 4
				buf := make([]uint32, words)
				for i := range buf {
					buf[i] = uint32(i*2654435761) >> (i % 5)
				}
				m[b.Binding] = buf
			}
			return m
		}
		run := func(fn *Func) (map[int][]uint32, error) {
			bufs := buffers()
			err := Dispatch(fn, &DispatchEnv{NumWorkGroups: [3]int{2, 1, 1}, Buffers: bufs, MaxSteps: 20000, MaxIterations: 1000})
			if err != nil && !errors.Is(err, ErrDispatch) && !errors.Is(err, errBadProgram) {
				t.Fatalf("dispatch error of an unexpected kind: %v", err)
			}
			return bufs, err
		}
		a, errA := run(pre)
		b, errB := run(post)
		if errA != nil || errB != nil {
			return
		}
		for binding, words := range a {
			for i := range words {
				if words[i] != b[binding][i] {
					t.Fatalf("binding %d word %d: %#x before the passes, %#x after\n%s", binding, i, words[i], b[binding][i], Dump(post))
				}
			}
		}
	}
}

// TestComputeFuzzSeedsRun: every fuzz seed is a valid shader that runs
// (so the seeds reach the comparison, not an early return).
func TestComputeFuzzSeedsRun(t *testing.T) {
	for i, s := range computeFuzzSeeds {
		f := computeFromSource(t, "#version 310 es\n"+s)
		bufs := map[int][]uint32{}
		for _, b := range f.Compute.Buffers {
			bufs[b.Binding] = make([]uint32, (b.FixedSize+fuzzRuntimeElems*b.Stride+3)/4)
		}
		if err := Dispatch(f, &DispatchEnv{NumWorkGroups: [3]int{2, 1, 1}, Buffers: bufs}); err != nil {
			t.Errorf("seed %d: %v", i, err)
		}
		fuzzLowerCompute(t, s)
	}
}

// fuzzRuntimeElems is how many elements of a runtime-sized array the fuzz
// dispatch's buffers hold.
const fuzzRuntimeElems = 64
