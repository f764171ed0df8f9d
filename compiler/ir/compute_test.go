package ir

import (
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/internal/computeconf"
)

// TestComputeConformance runs the compute conformance suite
// (internal/computeconf, after dEQP-GLES31's compute groups) on the
// reference, each case three ways — straight from FromAST (calls,
// vectors, loops), and after the whole pass pipeline (Run: inlined,
// unrolled, scalar) with 16-lane and 1-lane waves — with race detection
// on (a conformance case must not depend on timing), so the lowering, the
// passes and the barrier scheduling are all checked against the same CPU
// reference.
func TestComputeConformance(t *testing.T) {
	cases := computeconf.Cases()
	if len(cases) < 100 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			f := computeFromSource(t, c.Source)
			g := computeFromSource(t, c.Source)
			if err := Run(g, Options{Verify: true}); err != nil {
				t.Fatalf("passes: %v", err)
			}
			for _, run := range []struct {
				what  string
				f     *Func
				lanes int
			}{{"from_ast", f, 16}, {"scalar", g, 16}, {"scalar_1_lane", g, 1}} {
				in, out := c.Buffers(), c.Buffers()
				env := &DispatchEnv{NumWorkGroups: c.NumWorkGroups, Buffers: out, WaveLanes: run.lanes, DetectRaces: true}
				if err := Dispatch(run.f, env); err != nil {
					t.Fatalf("%s: %v", run.what, err)
				}
				if err := c.Check(in, out); err != nil {
					t.Errorf("%s:\n%v", run.what, err)
				}
			}
		})
	}
}

// TestComputeOutsideTheSubset: an ES 3.00 built-in the subset lacks is
// reported, not accepted.
func TestComputeOutsideTheSubset(t *testing.T) {
	src := "#version 310 es\nlayout(local_size_x = 1) in;\nlayout(binding = 0) buffer B { uint r; };\nvoid main() { r = packUnorm2x16(vec2(1.0)); }\n"
	if _, errs := glsl.Parse(glsl.Compute, src); errs == nil || !strings.Contains(errs.InfoLog(), "ERROR: 0:4: 'packUnorm2x16' : no matching overloaded function found\n") {
		t.Fatalf("packUnorm2x16: %v", errs)
	}
}

func wordsEqual(t *testing.T, what string, got, want []uint32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d words, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s[%d] = %#x, want %#x", what, i, got[i], want[i])
		}
	}
}

func seq(n int, f func(i int) uint32) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// TestComputeUniforms: a compute shader's uniforms, as Vars before I/O
// lowering and as uniform storage after it (ir.SequentialLayout, as
// `tilegpu glsl -dump` and a standalone compile place them).
func TestComputeUniforms(t *testing.T) {
	src := `#version 310 es
layout(local_size_x = 4) in;
uniform uint scale;
uniform ivec2 offsets[3];
layout(std430, binding = 0) buffer Out { int v[]; };
void main() {
	uint i = gl_GlobalInvocationID.x;
	v[i] = int(i * scale) + offsets[i % 3u].y;
}`
	want := seq(8, func(i int) uint32 { return uint32(i*5 + []int{-1, 20, 300}[i%3]) })
	f := computeFromSource(t, src)
	buf := make([]uint32, 8)
	vars := map[string][][]uint32{"scale": {{5}}, "offsets": {{0, ^uint32(0), 0, 20, 0, 300}}}
	if err := Dispatch(f, &DispatchEnv{NumWorkGroups: [3]int{2, 1, 1}, Buffers: map[int][]uint32{0: buf}, Vars: vars}); err != nil {
		t.Fatal(err)
	}
	wordsEqual(t, "before I/O lowering", buf, want)
	layout := SequentialLayout(f)
	if err := Run(f, Options{Layout: layout, Verify: true}); err != nil {
		t.Fatal(err)
	}
	storage := make([]uint32, 7)
	storage[layout.Uniforms["scale"]] = 5
	copy(storage[layout.Uniforms["offsets"]:], vars["offsets"][0])
	buf = make([]uint32, 8)
	if err := Dispatch(f, &DispatchEnv{NumWorkGroups: [3]int{2, 1, 1}, Buffers: map[int][]uint32{0: buf}, Storage: storage}); err != nil {
		t.Fatal(err)
	}
	wordsEqual(t, "after the passes", buf, want)
}

// TestDispatchDetectsRaces: unordered accesses are reported with
// DetectRaces (and only with it); the same programs with the barrier they
// lack, or with atomics, run clean.
func TestDispatchDetectsRaces(t *testing.T) {
	head := "#version 310 es\nlayout(local_size_x = 32) in;\nlayout(std430, binding = 0) buffer B { uint v[]; };\nshared uint s[32];\n"
	tests := []struct {
		name, body, want string
	}{
		{"shared read of a neighbour's store", "void main() { uint l = gl_LocalInvocationID.x; s[l] = l; v[l] = s[(l + 1u) % 32u]; }",
			"data race: invocation 0 reads byte offset 4 of shared memory, which invocation 1 of work group 0 wrote with no barrier() between them"},
		{"shared store over a neighbour's read", "void main() { uint l = gl_LocalInvocationID.x; uint x = s[(l + 31u) % 32u]; s[l] = x + 1u; }",
			"data race: invocation 0 writes byte offset 0 of shared memory, which invocation 1 of work group 0 read with no barrier() between them"},
		{"two stores to one word", "void main() { s[0] = gl_LocalInvocationID.x; }",
			"data race: invocation 1 writes byte offset 0 of shared memory, which invocation 0 of work group 0 wrote"},
		{"buffer word written by two work groups", "void main() { if (gl_LocalInvocationID.x == 0u) v[0] = gl_WorkGroupID.x; }",
			"data race: invocation 0 writes byte offset 0 of the buffer at binding 0, which invocation 0 of work group 0 wrote"},
		{"buffer word read by one group, written by the next", "void main() { uint g = gl_WorkGroupID.x; uint l = gl_LocalInvocationID.x; if (g == 0u) v[l] = v[l + 32u]; else v[l + 32u] = 1u; }",
			"data race: invocation 0 writes byte offset 128 of the buffer at binding 0, which invocation 0 of work group 0 read"},
	}
	for _, tc := range tests {
		f := computeFromSource(t, head+tc.body)
		run := func(detect bool) error {
			return Dispatch(f, &DispatchEnv{NumWorkGroups: [3]int{2, 1, 1}, Buffers: map[int][]uint32{0: make([]uint32, 64)}, DetectRaces: detect})
		}
		if err := run(false); err != nil {
			t.Errorf("%s without detection: %v", tc.name, err)
		}
		if err := run(true); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	clean := []string{
		"void main() { uint l = gl_LocalInvocationID.x; s[l] = l; barrier(); v[l + 32u * gl_WorkGroupID.x] = s[(l + 1u) % 32u]; }",
		"void main() { uint l = gl_LocalInvocationID.x; uint x = s[(l + 31u) % 32u]; barrier(); s[l] = x + 1u; }",
		"void main() { atomicAdd(s[0], 1u); atomicMax(v[0], gl_LocalInvocationID.x); }",
		"void main() { uint i = gl_LocalInvocationID.x + 32u * gl_WorkGroupID.x; v[i] = v[i] + s[0]; }",
	}
	for _, body := range clean {
		f := computeFromSource(t, head+body)
		if err := Dispatch(f, &DispatchEnv{NumWorkGroups: [3]int{2, 1, 1}, Buffers: map[int][]uint32{0: make([]uint32, 64)}, DetectRaces: true}); err != nil {
			t.Errorf("%q: %v", body, err)
		}
	}
}

// computeFromSource parses, links and lowers a compute shader.
func computeFromSource(t testing.TB, src string) *Func {
	t.Helper()
	tu, errs := glsl.Parse(glsl.Compute, src)
	if errs != nil {
		t.Fatalf("Parse:\n%s", errs.InfoLog())
	}
	if errs := glsl.LinkStage(tu); errs != nil {
		t.Fatalf("LinkStage:\n%s", errs.InfoLog())
	}
	f, err := FromAST(tu)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// BenchmarkDispatchPrefixSum measures the reference on a work-group
// prefix sum (64 invocations, 6 barrier-separated steps) over 256 work
// groups, after the passes; it reports invocations per second.
func BenchmarkDispatchPrefixSum(b *testing.B) {
	f := computeFromSource(b, `#version 310 es
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Data { uint v[]; };
shared uint sums[64];
void main() {
	uint l = gl_LocalInvocationIndex;
	sums[l] = v[gl_GlobalInvocationID.x];
	barrier();
	for (uint offset = 1u; offset < 64u; offset <<= 1) {
		uint add = l >= offset ? sums[l - offset] : 0u;
		barrier();
		sums[l] += add;
		barrier();
	}
	v[gl_GlobalInvocationID.x] = sums[l];
}`)
	if err := Run(f, Options{}); err != nil {
		b.Fatal(err)
	}
	const groups = 256
	buf := make([]uint32, 64*groups)
	b.ResetTimer()
	for range b.N {
		if err := Dispatch(f, &DispatchEnv{NumWorkGroups: [3]int{groups, 1, 1}, Buffers: map[int][]uint32{0: buf}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(64*groups*b.N)/b.Elapsed().Seconds(), "invocations/s")
}
