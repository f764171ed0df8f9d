package pal

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
)

// Compute conformance on the virtual GPU, in the style of dEQP-GLES31's
// compute groups (basic SSBO access, IDs, workgroup sizes, shared memory
// with barriers, atomics, integer operations). Each case runs through the
// whole stack — compiler back end, pal, kernel SubmitCompute, the COMPUTE
// engine's dispatch unit — and its buffers must equal, word for word, what
// the IR reference (ir.Dispatch, compiler/ir/dispatch.go) leaves in the
// same buffers. Cases are race-free (or use only atomics whose final
// values do not depend on order), so the reference's order of workgroups
// and waves gives the only correct answer.
type conformanceCase struct {
	name    string
	src     string
	groups  [3]uint32
	buffers map[int][]uint32 // initial contents by binding
}

func seqWords(n int, f func(i int) uint32) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func conformanceCases() []conformanceCase {
	cases := []conformanceCase{
		{"ssbo_rw_multiple_groups", `#version 310 es
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer In { uint v[]; } src;
layout(std430, binding = 1) buffer Out { uint v[]; } dst;
void main() {
	uint g = gl_GlobalInvocationID.x;
	dst.v[g] = src.v[g] * 3u + g;
}`, [3]uint32{5, 1, 1}, map[int][]uint32{0: seqWords(80, func(i int) uint32 { return uint32(i*i + 7) }), 1: make([]uint32, 80)}},
		{"global_ids_3d", `#version 310 es
layout(local_size_x = 4, local_size_y = 2, local_size_z = 3) in;
layout(std430, binding = 0) buffer Out { uvec4 v[]; } o;
void main() {
	uvec3 size = gl_NumWorkGroups * gl_WorkGroupSize;
	uvec3 g = gl_GlobalInvocationID;
	uint i = (g.z * size.y + g.y) * size.x + g.x;
	o.v[i] = uvec4(gl_WorkGroupID, gl_LocalInvocationIndex) + uvec4(gl_LocalInvocationID * 100u, 0u);
}`, [3]uint32{2, 3, 2}, map[int][]uint32{0: make([]uint32, 4*8*6*6)}},
		{"unsized_array_length_and_guard", `#version 310 es
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer B { uint count; uint pad; uint v[]; } b;
void main() {
	uint g = gl_GlobalInvocationID.x;
	if (g == 0u) b.count = uint(b.v.length());
	if (g < uint(b.v.length())) b.v[g] = g ^ 0x5a5au;
}`, [3]uint32{4, 1, 1}, map[int][]uint32{0: make([]uint32, 2+100)}},
		{"shared_reverse", `#version 310 es
layout(local_size_x = 128) in;
layout(std430, binding = 0) buffer B { uint v[]; } b;
shared uint s[128];
void main() {
	uint i = gl_LocalInvocationIndex;
	uint base = gl_WorkGroupID.x * 128u;
	s[i] = b.v[base + i];
	barrier();
	b.v[base + i] = s[127u - i];
}`, [3]uint32{3, 1, 1}, map[int][]uint32{0: seqWords(384, func(i int) uint32 { return uint32(i * 31) })}},
		{"shared_tree_reduction", `#version 310 es
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer In { uint v[]; } src;
layout(std430, binding = 1) buffer Out { uint v[]; } dst;
shared uint s[64];
void main() {
	uint i = gl_LocalInvocationIndex;
	s[i] = src.v[gl_GlobalInvocationID.x];
	for (uint k = 32u; k > 0u; k >>= 1u) {
		barrier();
		if (i < k) s[i] += s[i + k];
	}
	barrier();
	if (i == 0u) dst.v[gl_WorkGroupID.x] = s[0];
}`, [3]uint32{6, 1, 1}, map[int][]uint32{0: seqWords(384, func(i int) uint32 { return uint32(i%17 + 1) }), 1: make([]uint32, 6)}},
		{"buffer_atomics", `#version 310 es
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer A { uint add; uint umin; uint umax; uint and; uint or; uint xor; int smin; int smax; uint cs[]; } a;
void main() {
	uint g = gl_GlobalInvocationID.x;
	uint x = g * 2654435761u;
	atomicAdd(a.add, x);
	atomicMin(a.umin, x);
	atomicMax(a.umax, x);
	atomicAnd(a.and, x | 0x10001u);
	atomicOr(a.or, 1u << (g & 31u));
	atomicXor(a.xor, x);
	atomicMin(a.smin, int(x));
	atomicMax(a.smax, int(x));
	atomicCompSwap(a.cs[g], g, g * 7u + 1u);
	atomicCompSwap(a.cs[g], 12345u, 0u);
}`, [3]uint32{3, 1, 1}, map[int][]uint32{0: append([]uint32{0, 0xffffffff, 0, 0xffffffff, 0, 0, 0x7fffffff, 0x80000000}, seqWords(192, func(i int) uint32 { return uint32(i) })...)}},
		{"shared_atomics_histogram", `#version 310 es
layout(local_size_x = 100) in;
layout(std430, binding = 0) buffer In { uint v[]; } src;
layout(std430, binding = 1) buffer Out { uint h[]; } dst;
shared uint bins[8];
void main() {
	uint i = gl_LocalInvocationIndex;
	if (i < 8u) bins[i] = 0u;
	barrier();
	atomicAdd(bins[src.v[gl_GlobalInvocationID.x] % 8u], 1u);
	barrier();
	if (i < 8u) dst.h[gl_WorkGroupID.x * 8u + i] = bins[i];
}`, [3]uint32{2, 1, 1}, map[int][]uint32{0: seqWords(200, func(i int) uint32 { return uint32(i*i*13 + i) }), 1: make([]uint32, 16)}},
		{"integer_ops", `#version 310 es
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer In { uint v[]; } src;
layout(std430, binding = 1) buffer Out { uint v[]; } dst;
void main() {
	uint g = gl_GlobalInvocationID.x;
	uint a = src.v[2u * g], b = src.v[2u * g + 1u];
	int sa = int(a), sb = int(b);
	uint o = 10u * g;
	dst.v[o] = b != 0u ? a / b : 0u;
	dst.v[o + 1u] = b != 0u ? a % b : 0u;
	dst.v[o + 2u] = (a << (b & 31u)) ^ (a >> (b & 7u));
	dst.v[o + 3u] = uint(sa >> (b & 31u));
	dst.v[o + 4u] = (a & b) | (~a & 0xf0f0u);
	dst.v[o + 5u] = uint(a < b) + 2u * uint(sa < sb) + 4u * uint(a >= b);
	dst.v[o + 6u] = uint(float(a & 0xffffu) * 0.5);
	dst.v[o + 7u] = uint(min(sa, sb)) + max(a, b);
	dst.v[o + 8u] = uint(abs(sa)) + uint(sign(sb) + 1);
	dst.v[o + 9u] = a * b + 3u;
}`, [3]uint32{2, 1, 1}, map[int][]uint32{0: seqWords(64, func(i int) uint32 { return uint32(i)*0x9e3779b9 ^ uint32(i>>1)*0x7f4a7c15 }), 1: make([]uint32, 320)}},
		{"barrier_in_uniform_loop", `#version 310 es
layout(local_size_x = 48) in;
layout(std430, binding = 0) buffer B { uint v[]; } b;
shared uint s[48];
void main() {
	uint i = gl_LocalInvocationIndex;
	s[i] = i + 1u;
	for (int round = 0; round < 5; round++) {
		barrier();
		uint left = s[(i + 47u) % 48u];
		barrier();
		s[i] = s[i] + left * uint(round + 1);
	}
	barrier();
	b.v[gl_GlobalInvocationID.x] = s[i];
}`, [3]uint32{2, 1, 1}, map[int][]uint32{0: make([]uint32, 96)}},
	}
	// Workgroup sizes from 1 to the limit, in several shapes.
	for _, ls := range [][3]int{{1, 1, 1}, {16, 1, 1}, {17, 1, 1}, {3, 5, 7}, {8, 8, 2}, {1, 1, 64}, {128, 1, 1}} {
		n := ls[0] * ls[1] * ls[2] * 3
		cases = append(cases, conformanceCase{fmt.Sprintf("workgroup_size_%dx%dx%d", ls[0], ls[1], ls[2]), fmt.Sprintf(`#version 310 es
layout(local_size_x = %d, local_size_y = %d, local_size_z = %d) in;
layout(std430, binding = 0) buffer B { uint v[]; } b;
void main() {
	uint i = gl_WorkGroupID.x * gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z + gl_LocalInvocationIndex;
	b.v[i] = gl_LocalInvocationIndex * 1000u + gl_LocalInvocationID.x * 100u + gl_LocalInvocationID.y * 10u + gl_LocalInvocationID.z + b.v[i];
}`, ls[0], ls[1], ls[2]), [3]uint32{3, 1, 1}, map[int][]uint32{0: seqWords(n, func(i int) uint32 { return uint32(i) << 20 })}})
	}
	return cases
}

func TestComputeConformance(t *testing.T) {
	r := newComputeRig(t)
	for _, c := range conformanceCases() {
		t.Run(c.name, func(t *testing.T) {
			// The reference.
			tu, errs := glsl.Parse(glsl.Compute, c.src)
			if errs != nil {
				t.Fatal(errs.InfoLog())
			}
			if errs := glsl.LinkStage(tu); errs != nil {
				t.Fatal(errs.InfoLog())
			}
			f, err := ir.FromAST(tu)
			if err != nil {
				t.Fatal(err)
			}
			want := map[int][]uint32{}
			for b, words := range c.buffers {
				want[b] = append([]uint32(nil), words...)
			}
			groups := [3]int{int(c.groups[0]), int(c.groups[1]), int(c.groups[2])}
			if err := ir.Dispatch(f, &ir.DispatchEnv{NumWorkGroups: groups, Buffers: want}); err != nil {
				t.Fatal(err)
			}

			// The virtual GPU.
			p, err := r.dev.CreateComputePipeline(ComputePipelineCreateInfo{Shader: c.src})
			if err != nil {
				t.Fatal(err)
			}
			pmem, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: p.GpuMemoryRequirements().Size})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.BindGpuMemory(pmem, 0); err != nil {
				t.Fatal(err)
			}
			cb := r.cmdBuffer(t, EngineCompute)
			maps := map[int][]byte{}
			refs := []*GpuMemory{pmem}
			for b, words := range c.buffers {
				m, bytes := r.buffer(t, words)
				maps[b] = bytes
				refs = append(refs, m)
				// The view is exactly the buffer, as the reference sees it.
				if err := cb.CmdBindStorageBuffers(b, []BufferView{{Memory: m, Size: uint64(4 * len(words))}}); err != nil {
					t.Fatal(err)
				}
			}
			if err := r.dev.AddGpuMemoryReferences(pmem); err != nil {
				t.Fatal(err)
			}
			if err := cb.CmdBindComputePipeline(p); err != nil {
				t.Fatal(err)
			}
			if err := cb.CmdDispatch(c.groups[0], c.groups[1], c.groups[2]); err != nil {
				t.Fatal(err)
			}
			r.submit(t, EngineCompute, cb)
			for b, words := range want {
				bad := 0
				for i, w := range words {
					if got := binary.LittleEndian.Uint32(maps[b][4*i:]); got != w {
						if bad < 5 {
							t.Errorf("binding %d word %d = %#x, reference %#x", b, i, got, w)
						}
						bad++
					}
				}
				if bad > 0 {
					t.Errorf("binding %d: %d of %d words differ\n%s", b, bad, len(words), p.Listing())
				}
			}
		})
	}
}
