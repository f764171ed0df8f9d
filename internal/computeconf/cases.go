package computeconf

import (
	"fmt"
	"math"
	"math/rand"
	"strings"

	"github.com/tilegpu/tilegpu/compiler/glsl"
)

func wordsEqual(t *Checker, what string, got, want []uint32) {
	if len(got) != len(want) {
		t.Fatalf("%s: %d words, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range got {
		if got[i] != want[i] {
			if bad < 5 {
				t.Errorf("%s[%d] = %#x, want %#x", what, i, got[i], want[i])
			}
			bad++
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d words differ", what, bad)
	}
}

func seq(n int, f func(i int) uint32) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// basic: SSBO reads and writes, runtime-sized arrays and
// length(), the built-in IDs over 1-D and 3-D dispatches.
func basic(t *T) {
	cases := []computeCase{
		{
			name: "ssbo_rw_single_invocation",
			src: `#version 310 es
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Out { uint value; } sb_out;
void main() { sb_out.value = 1234u; }`,
			groups:  [3]int{1, 1, 1},
			buffers: func() map[int][]uint32 { return map[int][]uint32{0: {0}} },
			check:   func(t *Checker, in, out map[int][]uint32) { wordsEqual(t, "value", out[0], []uint32{1234}) },
		},
		{
			name: "ssbo_rw_multiple_groups",
			src: `#version 310 es
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer In { uint values[]; } sb_in;
layout(std430, binding = 1) buffer Out { uint values[]; } sb_out;
void main() {
	uint i = gl_GlobalInvocationID.x;
	sb_out.values[i] = sb_in.values[i] * 3u + i;
}`,
			groups: [3]int{5, 1, 1},
			buffers: func() map[int][]uint32 {
				return map[int][]uint32{0: seq(20, func(i int) uint32 { return uint32(i*i + 7) }), 1: make([]uint32, 20)}
			},
			check: func(t *Checker, in, out map[int][]uint32) {
				wordsEqual(t, "out", out[1], seq(20, func(i int) uint32 { return in[0][i]*3 + uint32(i) }))
				wordsEqual(t, "in (unchanged)", out[0], in[0])
			},
		},
		{
			name: "ssbo_unsized_arr_length",
			src: `#version 310 es
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer A { vec4 head; float tail[]; } a;
layout(std430, binding = 1) buffer B { int lengths[2]; };
layout(std430, binding = 2) buffer C { uvec3 stuff[]; } c;
void main() {
	lengths[0] = a.tail.length();
	lengths[1] = c.stuff.length();
}`,
			groups: [3]int{1, 1, 1},
			buffers: func() map[int][]uint32 {
				return map[int][]uint32{0: make([]uint32, 4+37), 1: make([]uint32, 2), 2: make([]uint32, 4*5+3)}
			},
			check: func(t *Checker, in, out map[int][]uint32) {
				// uvec3 has std430 stride 16: 23 words = 92 bytes hold 5.
				wordsEqual(t, "lengths", out[1], []uint32{37, 5})
			},
		},
		{
			name: "global_ids_3d",
			src: `#version 310 es
layout(local_size_x = 2, local_size_y = 3, local_size_z = 4) in;
layout(std430, binding = 0) buffer Out { uvec4 ids[]; };
void main() {
	uvec3 size = gl_NumWorkGroups * gl_WorkGroupSize;
	uint i = gl_GlobalInvocationID.z * size.x * size.y + gl_GlobalInvocationID.y * size.x + gl_GlobalInvocationID.x;
	ids[i] = uvec4(gl_GlobalInvocationID, gl_LocalInvocationIndex);
}`,
			groups: [3]int{3, 2, 2},
			buffers: func() map[int][]uint32 {
				return map[int][]uint32{0: make([]uint32, 4*6*6*8)}
			},
			check: func(t *Checker, in, out map[int][]uint32) {
				want := make([]uint32, 4*6*6*8)
				for z := range 8 {
					for y := range 6 {
						for x := range 6 {
							i := (z*6+y)*6 + x
							lx, ly, lz := x%2, y%3, z%4
							copy(want[4*i:], []uint32{uint32(x), uint32(y), uint32(z), uint32(lz*6 + ly*2 + lx)})
						}
					}
				}
				wordsEqual(t, "ids", out[0], want)
			},
		},
		{
			name: "user_function_writes_buffer",
			src: `#version 310 es
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer Out { int v[]; };
void put(uint i, int x) { v[i] = x; }
int twice(int x) { return 2 * x; }
void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i % 3u == 0u) put(i, twice(int(i)));
	else put(i, -1);
}`,
			groups:  [3]int{2, 1, 1},
			buffers: func() map[int][]uint32 { return map[int][]uint32{0: make([]uint32, 16)} },
			check: func(t *Checker, in, out map[int][]uint32) {
				wordsEqual(t, "v", out[0], seq(16, func(i int) uint32 {
					if i%3 == 0 {
						return uint32(2 * i)
					}
					return ^uint32(0)
				}))
			},
		},
		{
			name: "guarded_access_past_the_end",
			src: `#version 310 es
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer Data { uint n; uint v[]; };
void main() {
	uint i = gl_GlobalInvocationID.x;
	// The load must not run for i >= n: the buffer ends there.
	uint x = i < n ? v[i] : 0u;
	if (i < n) v[i] = x + 100u;
}`,
			groups: [3]int{1, 1, 1},
			buffers: func() map[int][]uint32 {
				return map[int][]uint32{0: {5, 1, 2, 3, 4, 5}}
			},
			check: func(t *Checker, in, out map[int][]uint32) {
				wordsEqual(t, "v", out[0], []uint32{5, 101, 102, 103, 104, 105})
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *T) { runComputeCase(t, c) })
	}
}

// workGroupSizes: every invocation of work groups from 1 to the
// GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS limit, in each dimension's shape,
// writes its flattened global index where it belongs.
func workGroupSizes(t *T) {
	sizes := [][3]int{{1, 1, 1}, {2, 1, 1}, {1, 3, 1}, {1, 1, 5}, {16, 1, 1}, {17, 1, 1}, {4, 4, 4}, {8, 8, 2},
		{glsl.MaxComputeWorkGroupInvocations, 1, 1}, {1, glsl.MaxComputeWorkGroupSizeY, 1}, {2, 1, glsl.MaxComputeWorkGroupSizeZ}}
	for _, s := range sizes {
		groups := [3]int{2, 1, 2}
		n := s[0] * s[1] * s[2] * groups[0] * groups[1] * groups[2]
		src := fmt.Sprintf(`#version 310 es
layout(local_size_x = %d, local_size_y = %d, local_size_z = %d) in;
layout(std430, binding = 0) buffer Out { uint v[]; };
void main() {
	uint groupIndex = (gl_WorkGroupID.z * gl_NumWorkGroups.y + gl_WorkGroupID.y) * gl_NumWorkGroups.x + gl_WorkGroupID.x;
	uint i = groupIndex * gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z + gl_LocalInvocationIndex;
	v[i] = v[i] + i + 1u;
}`, s[0], s[1], s[2])
		t.Run(fmt.Sprintf("%dx%dx%d", s[0], s[1], s[2]), func(t *T) {
			runComputeCase(t, computeCase{src: src, groups: groups,
				buffers: func() map[int][]uint32 { return map[int][]uint32{0: make([]uint32, n)} },
				check: func(t *Checker, in, out map[int][]uint32) {
					// Each word written exactly once: i + 1.
					wordsEqual(t, "v", out[0], seq(n, func(i int) uint32 { return uint32(i + 1) }))
				}})
		})
	}
}

// sharedVar: shared memory with barriers (dEQP
// compute.shared_var and the basic shared cases): exchange through
// shared memory, a tree reduction and a Hillis–Steele prefix sum with
// barriers inside loops, shared arrays of vectors and structs.
func sharedVar(t *T) {
	const n = 64
	input := func() map[int][]uint32 {
		rng := rand.New(rand.NewSource(13))
		return map[int][]uint32{0: seq(3*n, func(int) uint32 { return rng.Uint32() % 1000 }), 1: make([]uint32, 3*n)}
	}
	cases := []computeCase{
		{
			name: "reverse_through_shared",
			src: `#version 310 es
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer In { uint v[]; } sb_in;
layout(std430, binding = 1) buffer Out { uint v[]; } sb_out;
shared uint s[64];
void main() {
	uint l = gl_LocalInvocationID.x;
	s[l] = sb_in.v[gl_GlobalInvocationID.x];
	barrier();
	sb_out.v[gl_GlobalInvocationID.x] = s[63u - l];
}`,
			groups:  [3]int{3, 1, 1},
			buffers: input,
			check: func(t *Checker, in, out map[int][]uint32) {
				wordsEqual(t, "out", out[1], seq(3*n, func(i int) uint32 { return in[0][i/n*n+n-1-i%n] }))
			},
		},
		{
			name: "tree_reduction",
			src: `#version 310 es
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer In { uint v[]; } sb_in;
layout(std430, binding = 1) buffer Out { uint v[]; } sb_out;
shared uint partial[64];
void main() {
	uint l = gl_LocalInvocationID.x;
	partial[l] = sb_in.v[gl_GlobalInvocationID.x];
	barrier();
	for (uint stride = gl_WorkGroupSize.x / 2u; stride > 0u; stride >>= 1u) {
		if (l < stride)
			partial[l] += partial[l + stride];
		barrier();
	}
	if (l == 0u)
		sb_out.v[gl_WorkGroupID.x] = partial[0];
}`,
			groups:  [3]int{3, 1, 1},
			buffers: input,
			check: func(t *Checker, in, out map[int][]uint32) {
				want := make([]uint32, 3*n)
				for i, x := range in[0] {
					want[i/n] += x
				}
				wordsEqual(t, "sums", out[1], want)
			},
		},
		{
			name: "prefix_sum",
			src: `#version 310 es
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer In { uint v[]; } sb_in;
layout(std430, binding = 1) buffer Out { uint v[]; } sb_out;
shared uint sums[64];
void main() {
	uint l = gl_LocalInvocationIndex;
	sums[l] = sb_in.v[gl_GlobalInvocationID.x];
	barrier();
	for (uint offset = 1u; offset < 64u; offset <<= 1) {
		uint add = l >= offset ? sums[l - offset] : 0u;
		barrier();
		sums[l] += add;
		barrier();
	}
	sb_out.v[gl_GlobalInvocationID.x] = sums[l];
}`,
			groups:  [3]int{3, 1, 1},
			buffers: input,
			check: func(t *Checker, in, out map[int][]uint32) {
				want := make([]uint32, 3*n)
				for i, x := range in[0] {
					want[i] = x
					if i%n > 0 {
						want[i] += want[i-1]
					}
				}
				wordsEqual(t, "inclusive scan", out[1], want)
			},
		},
		{
			name: "barrier_in_a_function",
			src: `#version 310 es
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer In { uint v[]; } sb_in;
layout(std430, binding = 1) buffer Out { uint v[]; } sb_out;
shared uint s[32];
void sync() { memoryBarrierShared(); barrier(); }
uint rotate(uint l, uint by) { sync(); return s[(l + by) % 32u]; }
void main() {
	uint l = gl_LocalInvocationID.x;
	s[l] = sb_in.v[gl_GlobalInvocationID.x];
	uint a = rotate(l, 1u);
	sync();
	s[l] = a * 2u;
	sb_out.v[gl_GlobalInvocationID.x] = rotate(l, 5u);
}`,
			groups:  [3]int{2, 1, 1},
			buffers: input,
			check: func(t *Checker, in, out map[int][]uint32) {
				want := make([]uint32, 3*n)
				for i := range 64 {
					g, l := i/32, i%32
					want[i] = 2 * in[0][g*32+(l+6)%32]
				}
				wordsEqual(t, "out", out[1], want)
			},
		},
		{
			name: "shared_vectors_and_structs",
			src: `#version 310 es
layout(local_size_x = 8, local_size_y = 2) in;
layout(std430, binding = 1) buffer Out { ivec4 v[]; } sb_out;
struct Pair { int a; ivec3 b; };
shared Pair pairs[16];
shared ivec2 swz[16];
void main() {
	int l = int(gl_LocalInvocationIndex);
	pairs[l].a = l * 10;
	pairs[l].b = ivec3(l, -l, l * l);
	swz[l].yx = ivec2(l, 100 + l);
	memoryBarrierShared();
	barrier();
	int o = 15 - l;
	sb_out.v[l] = ivec4(pairs[o].a + swz[o].x, pairs[o].b);
}`,
			groups:  [3]int{1, 1, 1},
			buffers: func() map[int][]uint32 { return map[int][]uint32{1: make([]uint32, 64)} },
			check: func(t *Checker, in, out map[int][]uint32) {
				want := make([]uint32, 64)
				for l := range 16 {
					o := int32(15 - l)
					copy(want[4*l:], []uint32{uint32(o*10 + 100 + o), uint32(o), uint32(-o), uint32(o * o)})
				}
				wordsEqual(t, "v", out[1], want)
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *T) { runComputeCase(t, c) })
	}
}

// atomics: atomic functions on buffer and shared ints and uints
// (dEQP compute.basic atomic_counter-like cases): the final values and,
// where the order is free, that every invocation got a distinct old value.
func atomics(t *T) {
	cases := []computeCase{
		{
			name: "buffer_atomics",
			src: `#version 310 es
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer Counters { uint sum; int minv; int maxv; uint umax; uint orv; uint andv; uint xorv; uint slot; } c;
layout(std430, binding = 1) buffer Tickets { uint t[]; };
void main() {
	uint i = gl_GlobalInvocationID.x;
	atomicAdd(c.sum, i);
	atomicMin(c.minv, int(i) - 40);
	atomicMax(c.maxv, int(i) - 40);
	atomicMax(c.umax, i * 0x01000001u);
	atomicOr(c.orv, 1u << (i % 32u));
	atomicAnd(c.andv, ~(1u << (i % 16u)));
	atomicXor(c.xorv, i);
	t[atomicAdd(c.slot, 1u)] = i;
}`,
			groups: [3]int{3, 1, 1},
			buffers: func() map[int][]uint32 {
				return map[int][]uint32{0: {0, 0, 0, 0, 0, 0xffffffff, 0, 0}, 1: make([]uint32, 96)}
			},
			check: func(t *Checker, in, out map[int][]uint32) {
				var xor uint32
				for i := range uint32(96) {
					xor ^= i
				}
				wordsEqual(t, "counters", out[0], []uint32{95 * 96 / 2, uint32(0xffffffd8) /* -40 */, 55, 95 * 0x01000001, 0xffffffff, 0xffff0000, xor, 96})
				seen := map[uint32]bool{}
				for _, v := range out[1] {
					seen[v] = true
				}
				if len(seen) != 96 {
					t.Errorf("tickets name %d distinct invocations, want 96", len(seen))
				}
			},
		},
		{
			name: "shared_atomics_histogram",
			src: `#version 310 es
layout(local_size_x = 128) in;
layout(std430, binding = 0) buffer In { uint v[]; };
layout(std430, binding = 1) buffer Out { uint hist[8]; int winner[2]; };
shared uint bins[8];
shared int first;
void main() {
	uint l = gl_LocalInvocationIndex;
	if (l < 8u) bins[l] = 0u;
	if (l == 0u) first = -1;
	barrier();
	atomicAdd(bins[v[gl_GlobalInvocationID.x] % 8u], 1u);
	atomicCompSwap(first, -1, int(l));
	int old = atomicExchange(first, first);
	barrier();
	if (l < 8u) atomicAdd(hist[l], bins[l]);
	if (l == 0u) winner[gl_WorkGroupID.x] = first;
}`,
			groups: [3]int{2, 1, 1},
			buffers: func() map[int][]uint32 {
				rng := rand.New(rand.NewSource(5))
				return map[int][]uint32{0: seq(256, func(int) uint32 { return rng.Uint32() }), 1: make([]uint32, 10)}
			},
			check: func(t *Checker, in, out map[int][]uint32) {
				want := make([]uint32, 8)
				for _, x := range in[0] {
					want[x%8]++
				}
				wordsEqual(t, "hist", out[1][:8], want)
				for g, w := range out[1][8:] {
					if int32(w) < 0 || w >= 128 {
						t.Errorf("group %d: comp_swap winner %d is not an invocation", g, int32(w))
					}
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *T) { runComputeCase(t, c) })
	}
}

// integerOps: uint and int arithmetic, bit and shift operators
// and conversions on random operands (including the top bit, where
// unsigned and signed differ), against Go's.
func integerOps(t *T) {
	const n = 256
	src := `#version 310 es
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer In { uvec2 ab[]; };
layout(std430, binding = 1) buffer Out { uint r[]; };
void main() {
	uint i = gl_GlobalInvocationID.x;
	uint a = ab[i].x, b = ab[i].y;
	int ia = int(a), ib = int(b);
	uint o = i * 16u;
	r[o + 0u] = a / b;
	r[o + 1u] = a % b;
	r[o + 2u] = a >> (b & 31u);
	r[o + 3u] = uint(ia >> int(b & 31u));
	r[o + 4u] = a << (b % 32u);
	r[o + 5u] = (a & b) | (a ^ ~b);
	r[o + 6u] = uint(a < b) | uint(a >= b) << 1 | uint(ia < ib) << 2 | uint(lessThan(uvec2(a), uvec2(b)).x) << 3;
	r[o + 7u] = min(a, b) ^ max(a, b) << 1;
	r[o + 8u] = uint(min(ia, ib)) ^ uint(clamp(ia, -1000, 1000));
	r[o + 9u] = floatBitsToUint(float(a));
	r[o + 10u] = uint(float(a & 0xffffffu) * 0.5);
	r[o + 11u] = uint(ib / (ia | 1));
	r[o + 12u] = uint(abs(ib)) + uint(sign(ia));
	uint c = a; c %= (b | 1u); c <<= 1; c |= 1u; c ^= b; c >>= 3; c &= 0xfff0fu; c /= 3u;
	r[o + 13u] = c;
	r[o + 14u] = uint(a + b * 3u - 7u);
	r[o + 15u] = 0xFFFFFFFFu / (a | 1u) + 07u % 5u;
}`
	src = strings.Replace(src, "floatBitsToUint(float(a))", "uint(float(a))", 1)
	runComputeCase(t, computeCase{src: src, groups: [3]int{n / 64, 1, 1},
		buffers: func() map[int][]uint32 {
			rng := rand.New(rand.NewSource(99))
			edge := []uint32{0, 1, 2, 3, 0x7fffffff, 0x80000000, 0x80000001, 0xffffffff, 0xfffffffe, 1 << 24, 1<<24 + 1, 12345}
			// Every pair of edge values, then random pairs (some small).
			var ab []uint32
			for _, x := range edge {
				for _, y := range edge {
					ab = append(ab, x, y)
				}
			}
			for len(ab) < 2*n {
				ab = append(ab, rng.Uint32(), rng.Uint32()>>uint(rng.Intn(32)))
			}
			return map[int][]uint32{0: ab, 1: make([]uint32, 16*n)}
		},
		check: func(t *Checker, in, out map[int][]uint32) {
			want := make([]uint32, 16*n)
			b2u := func(b bool) uint32 {
				if b {
					return 1
				}
				return 0
			}
			for i := range n {
				a, b := in[0][2*i], in[0][2*i+1]
				ia, ib := int32(a), int32(b)
				w := want[16*i:]
				if b != 0 {
					w[0], w[1] = a/b, a%b
				} else {
					w[0], w[1] = out[1][16*i], out[1][16*i+1] // undefined
				}
				w[2] = a >> (b & 31)
				w[3] = uint32(ia >> (b & 31))
				w[4] = a << (b % 32)
				w[5] = (a & b) | (a ^ ^b)
				w[6] = b2u(a < b) | b2u(a >= b)<<1 | b2u(ia < ib)<<2 | b2u(a < b)<<3
				w[7] = min(a, b) ^ max(a, b)<<1
				w[8] = uint32(min(ia, ib)) ^ uint32(max(min(ia, 1000), -1000))
				w[9] = ftouRef(utofRef(a))
				w[10] = ftouRef(float32(a&0xffffff) * 0.5)
				q := ia | 1
				if q == -1 && ib == math.MinInt32 {
					w[11] = uint32(ib)
				} else {
					w[11] = uint32(ib / q)
				}
				absb := ib
				if absb < 0 {
					absb = -absb
				}
				sgn := int32(0)
				if ia > 0 {
					sgn = 1
				} else if ia < 0 {
					sgn = -1
				}
				w[12] = uint32(absb) + uint32(sgn)
				c := a
				c %= b | 1
				c <<= 1
				c |= 1
				c ^= b
				c >>= 3
				c &= 0xfff0f
				c /= 3
				w[13] = c
				w[14] = a + b*3 - 7
				w[15] = 0xFFFFFFFF/(a|1) + 7%5
			}
			wordsEqual(t, "results", out[1], want)
		}})
}

// utofRef is uint → float correctly rounded (Go's conversion).
func utofRef(a uint32) float32 { return float32(a) }

// ftouRef is float → uint as the hardware computes it for in-range values.
func ftouRef(f float32) uint32 {
	if f >= 2147483648 {
		return uint32(ftoi(f-2147483648)) ^ 0x80000000
	}
	return uint32(ftoi(f))
}

// std430Layout: a block of mixed members lands at std430's
// offsets (OpenGL ES 3.1 §7.6.2.2): vec3 aligned to 16 with a float packed
// after it, arrays of vec2 with stride 8, mat3 columns 16 apart, structs
// aligned to their largest member, bools as words.
func std430Layout(t *T) {
	src := `#version 310 es
layout(local_size_x = 1) in;
struct S { float f; vec2 v; };
layout(std430, binding = 0) buffer B {
	float a;       // 0
	vec3 b;        // 16
	float c;       // 28
	vec2 d[3];     // 32, stride 8
	mat3 m;        // 64: columns at 64, 80, 96
	S s[2];        // 112: S is 16 bytes, align 8: 112, 128
	bool flag;     // 144
	uint tail[];   // 148
} blk;
void main() {
	blk.a = 1.0;
	blk.b = vec3(2.0, 3.0, 4.0);
	blk.c = 5.0;
	for (int i = 0; i < 3; i++) blk.d[i] = vec2(float(6 + 2 * i), float(7 + 2 * i));
	blk.m = mat3(12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0);
	blk.m[1].y = -16.0;
	blk.s[1].v.y = 21.0;
	blk.s[0] = S(22.0, vec2(23.0, 24.0));
	blk.flag = blk.c > 4.0;
	blk.tail[blk.tail.length() - 1] = uint(blk.tail.length());
}`
	f := func(x float32) uint32 { return math.Float32bits(x) }
	runComputeCase(t, computeCase{src: src, groups: [3]int{1, 1, 1},
		buffers: func() map[int][]uint32 { return map[int][]uint32{0: make([]uint32, 37+3)} },
		check: func(t *Checker, in, out map[int][]uint32) {
			want := make([]uint32, 40)
			put := func(off int, ws ...uint32) { copy(want[off/4:], ws) }
			put(0, f(1))
			put(16, f(2), f(3), f(4), f(5))
			put(32, f(6), f(7), f(8), f(9), f(10), f(11))
			put(64, f(12), f(13), f(14))
			put(80, f(15), f(-16), f(17))
			put(96, f(18), f(19), f(20))
			put(112, f(22), 0, f(23), f(24))
			put(128+12, f(21))
			put(144, 1)
			put(156, 3) // 148 + 4·2: the third of three tail words
			wordsEqual(t, "block", out[0], want)
		}})
}

// std140Layout: the same for a std140 block: arrays of scalars and
// structures take 16-byte strides and alignment, mat2 columns 16 apart,
// and length() of a runtime array counts 16-byte elements.
func std140Layout(t *T) {
	src := `#version 310 es
layout(local_size_x = 1) in;
struct S { float f; vec2 g; };
layout(std140, binding = 0) buffer B {
	float a;       // 0
	vec2 b;        // 8
	float c[2];    // 16, stride 16
	vec3 d;        // 48
	mat2 m;        // 64: columns at 64, 80
	S s;           // 96: f 96, g 104
	uint tail[];   // 112, stride 16
} blk;
void main() {
	blk.a = 1.0;
	blk.b = vec2(2.0, 3.0);
	blk.c[0] = 4.0;
	blk.c[1] = 5.0;
	blk.d = vec3(6.0, 7.0, 8.0);
	blk.m = mat2(9.0, 10.0, 11.0, 12.0);
	blk.s = S(13.0, vec2(14.0, 15.0));
	blk.tail[1] = uint(blk.tail.length());
}`
	f := func(x float32) uint32 { return math.Float32bits(x) }
	runComputeCase(t, computeCase{name: "std140", src: src, groups: [3]int{1, 1, 1},
		buffers: func() map[int][]uint32 { return map[int][]uint32{0: make([]uint32, 28+8+1)} },
		check: func(t *Checker, in, out map[int][]uint32) {
			want := make([]uint32, 37)
			put := func(off int, ws ...uint32) { copy(want[off/4:], ws) }
			put(0, f(1))
			put(8, f(2), f(3))
			put(16, f(4))
			put(32, f(5))
			put(48, f(6), f(7), f(8))
			put(64, f(9), f(10))
			put(80, f(11), f(12))
			put(96, f(13), 0, f(14), f(15))
			put(128, 2) // 148 bytes hold 2 whole 16-byte elements after 112
			wordsEqual(t, "block", out[0], want)
		}})
}

// constantDivisors: uint / and % by constants, powers of two
// (a shift and a mask) and others, scalar and vector, over values with
// and without the top bit.
func constantDivisors(t *T) {
	divisors := []uint32{1, 2, 8, 1 << 31, 3, 10, 0xFFFFFFFF}
	var body strings.Builder
	for k, d := range divisors {
		fmt.Fprintf(&body, "\tr[o + %du] = x / %du;\n\tr[o + %du] = x %% %du;\n", 2*k, d, 2*k+1, d)
	}
	n := 2 * len(divisors)
	src := fmt.Sprintf(`#version 310 es
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer In { uint x[]; } sb;
layout(std430, binding = 1) buffer Out { uint r[]; };
void main() {
	uint i = gl_GlobalInvocationID.x, o = i * %du + 2u * %du;
	uint x = sb.x[i];
%s	uvec2 v = uvec2(x, x + 1u) / uvec2(4u) + uvec2(x) %% uvec2(16u, 16u);
	r[o - 2u] = v.x; r[o - 1u] = v.y;
}`, n+2, 1, body.String())
	const count = 64
	runComputeCase(t, computeCase{src: src, groups: [3]int{count / 16, 1, 1},
		buffers: func() map[int][]uint32 {
			rng := rand.New(rand.NewSource(3))
			x := seq(count, func(i int) uint32 { return rng.Uint32() >> uint(i%3*8) })
			x[0], x[1], x[2] = 0, 0xFFFFFFFF, 0x80000000
			return map[int][]uint32{0: x, 1: make([]uint32, count*(n+2)+2)}
		},
		check: func(t *Checker, in, out map[int][]uint32) {
			want := make([]uint32, count*(n+2)+2)
			for i, x := range in[0] {
				w := want[i*(n+2):]
				w[0], w[1] = x/4+x%16, (x+1)/4+x%16
				for k, d := range divisors {
					w[2+2*k], w[3+2*k] = x/d, x%d
				}
			}
			wordsEqual(t, "quotients and remainders", out[1], want)
		}})
}

// Generated case groups after dEQP-GLES31.functional.compute.shared_var
// (basic_type.*, atomic.*) and compute.basic (ssbo_local_barrier,
// write_multiple_arr): one shader per type, operation and work group
// size, each checked against values computed here. The expected buffer
// layouts are written out by hand from std430's rules (OpenGL ES 3.1
// §7.6.2.2) rather than taken from the front end's layout code.

// sharedVarType is one GLSL type of the basic_type group with its std430
// shape, spelled out: comps components per column, cols columns (1 for
// scalars and vectors), colStride bytes between columns, stride bytes
// between array elements.
type sharedVarType struct {
	name              string
	kind              byte // 'f', 'i', 'u', 'b'
	comps, cols       int
	colStride, stride int
}

var sharedVarTypes = []sharedVarType{
	{"float", 'f', 1, 1, 4, 4}, {"vec2", 'f', 2, 1, 8, 8}, {"vec3", 'f', 3, 1, 16, 16}, {"vec4", 'f', 4, 1, 16, 16},
	{"int", 'i', 1, 1, 4, 4}, {"ivec2", 'i', 2, 1, 8, 8}, {"ivec3", 'i', 3, 1, 16, 16}, {"ivec4", 'i', 4, 1, 16, 16},
	{"uint", 'u', 1, 1, 4, 4}, {"uvec2", 'u', 2, 1, 8, 8}, {"uvec3", 'u', 3, 1, 16, 16}, {"uvec4", 'u', 4, 1, 16, 16},
	{"bool", 'b', 1, 1, 4, 4}, {"bvec2", 'b', 2, 1, 8, 8}, {"bvec3", 'b', 3, 1, 16, 16}, {"bvec4", 'b', 4, 1, 16, 16},
	{"mat2", 'f', 2, 2, 8, 16}, {"mat3", 'f', 3, 3, 16, 48}, {"mat4", 'f', 4, 4, 16, 64},
}

// component k of the value invocation i stores, as GLSL source and as the
// word it leaves in memory.
func (st sharedVarType) component(i, k int) (string, uint32) {
	v := i*7 + k*3
	switch st.kind {
	case 'f':
		x := float32(v)*0.25 - 3
		return glslFloat(x), math.Float32bits(x)
	case 'i':
		return fmt.Sprint(v - 100), uint32(int32(v - 100))
	case 'u':
		u := uint32(v) * 0x01010101
		return fmt.Sprintf("%du", u), u
	}
	b := (v/2)%3 == 0
	if b {
		return "true", 1
	}
	return "false", 0
}

// sharedVarBasicType: every invocation stores a value of the
// type into a shared array, and after a barrier copies another
// invocation's value to the output buffer (dEQP shared_var.basic_type).
func sharedVarBasicType(t *T) {
	sizes := [][3]int{{1, 1, 1}, {64, 1, 1}, {1, 1, 64}, {8, 4, 2}}
	for _, st := range sharedVarTypes {
		for _, size := range sizes {
			n := size[0] * size[1] * size[2]
			// A switch over the invocation index written as ifs: each
			// invocation's value is a constructor of constants.
			var stores strings.Builder
			for i := 0; i < n; i++ {
				var cs []string
				for k := 0; k < st.comps*st.cols; k++ {
					c, _ := st.component(i, k)
					cs = append(cs, c)
				}
				fmt.Fprintf(&stores, "\tif (l == %du) s[l] = %s(%s);\n", i, st.name, strings.Join(cs, ", "))
			}
			src := fmt.Sprintf(`#version 310 es
layout(local_size_x = %d, local_size_y = %d, local_size_z = %d) in;
layout(std430, binding = 0) buffer Out { %s v[]; } sb;
shared %s s[%d];
void main() {
	uint l = gl_LocalInvocationIndex;
%s	barrier();
	sb.v[l] = s[(l * 5u + 3u) %% %du];
}`, size[0], size[1], size[2], st.name, st.name, n, stores.String(), n)
			t.Run(fmt.Sprintf("%s_%dx%dx%d", st.name, size[0], size[1], size[2]), func(t *T) {
				words := n * st.stride / 4
				runComputeCase(t, computeCase{src: src, groups: [3]int{1, 1, 1},
					buffers: func() map[int][]uint32 {
						// Padding words keep a marker, to see stores
						// that spill into them.
						return map[int][]uint32{0: seq(words, func(int) uint32 { return 0xDEADBEEF })}
					},
					check: func(t *Checker, in, out map[int][]uint32) {
						want := seq(words, func(int) uint32 { return 0xDEADBEEF })
						for l := 0; l < n; l++ {
							from := (l*5 + 3) % n
							for c := 0; c < st.cols; c++ {
								for r := 0; r < st.comps; r++ {
									_, w := st.component(from, c*st.comps+r)
									want[(l*st.stride+c*st.colStride)/4+r] = w
								}
							}
						}
						wordsEqual(t, "v", out[0], want)
					}})
			})
		}
	}
}

// sharedVarAtomic: every invocation applies one atomic
// operation to a shared int or uint and returns the old value; after a
// barrier invocation 0 writes the final value (dEQP shared_var.atomic.*).
func sharedVarAtomic(t *T) {
	type op struct {
		name string
		arg  func(i uint32) uint32
		fold func(acc, x uint32, signed bool) uint32
	}
	ops := []op{
		{"atomicAdd", func(i uint32) uint32 { return i*3 + 1 }, func(a, x uint32, _ bool) uint32 { return a + x }},
		{"atomicMin", func(i uint32) uint32 { return (i*2654435761)>>3 ^ i<<31 }, func(a, x uint32, s bool) uint32 {
			if s {
				return uint32(min(int32(a), int32(x)))
			}
			return min(a, x)
		}},
		{"atomicMax", func(i uint32) uint32 { return (i*2654435761)>>3 ^ i<<31 }, func(a, x uint32, s bool) uint32 {
			if s {
				return uint32(max(int32(a), int32(x)))
			}
			return max(a, x)
		}},
		{"atomicAnd", func(i uint32) uint32 { return ^(uint32(1) << (i % 32)) }, func(a, x uint32, _ bool) uint32 { return a & x }},
		{"atomicOr", func(i uint32) uint32 { return 1 << (i % 32) }, func(a, x uint32, _ bool) uint32 { return a | x }},
		{"atomicXor", func(i uint32) uint32 { return i * 0x9E3779B9 }, func(a, x uint32, _ bool) uint32 { return a ^ x }},
	}
	initial := uint32(0x12345678)
	for _, o := range ops {
		for _, typ := range []string{"int", "uint"} {
			for _, n := range []int{1, 16, 35, 128} {
				signed := typ == "int"
				lit := func(x uint32) string {
					if signed {
						return fmt.Sprintf("int(%du)", x)
					}
					return fmt.Sprintf("%du", x)
				}
				var args strings.Builder
				for i := 0; i < n; i++ {
					fmt.Fprintf(&args, "\tif (l == %du) a = %s;\n", i, lit(o.arg(uint32(i))))
				}
				src := fmt.Sprintf(`#version 310 es
layout(local_size_x = %d) in;
layout(std430, binding = 0) buffer Out { %s final; %s old[]; } sb;
shared %s x;
void main() {
	uint l = gl_LocalInvocationIndex;
	if (l == 0u) x = %s;
	barrier();
	%s a;
%s	sb.old[l] = %s(x, a);
	barrier();
	if (l == 0u) sb.final = x;
}`, n, typ, typ, typ, lit(initial), typ, args.String(), o.name)
				t.Run(fmt.Sprintf("%s_%s_%d", o.name, typ, n), func(t *T) {
					runComputeCase(t, computeCase{src: src, groups: [3]int{1, 1, 1},
						buffers: func() map[int][]uint32 { return map[int][]uint32{0: make([]uint32, 1+n)} },
						check: func(t *Checker, in, out map[int][]uint32) {
							acc := initial
							for i := 0; i < n; i++ {
								acc = o.fold(acc, o.arg(uint32(i)), signed)
							}
							if out[0][0] != acc {
								t.Errorf("final %#x, want %#x", out[0][0], acc)
							}
							// The old values are states of one order of
							// the operations: the first saw the initial
							// value, and for add (whose states all
							// differ) each invocation saw its own.
							seen := map[uint32]bool{}
							for _, v := range out[0][1:] {
								seen[v] = true
							}
							if o.name == "atomicAdd" {
								if len(seen) != n {
									t.Errorf("%d distinct old values, want %d", len(seen), n)
								}
							}
							if !seen[initial] {
								t.Errorf("no invocation saw the initial value %#x", initial)
							}
						}})
				})
			}
		}
	}
}

// ssboLocalBarrier: each invocation writes its buffer word,
// then (memoryBarrierBuffer + barrier) reads its neighbours' (dEQP
// compute.basic.ssbo_local_barrier_*), over several work groups.
func ssboLocalBarrier(t *T) {
	for _, size := range [][3]int{{1, 1, 1}, {3, 2, 1}, {16, 8, 1}} {
		n := size[0] * size[1] * size[2]
		src := fmt.Sprintf(`#version 310 es
layout(local_size_x = %d, local_size_y = %d, local_size_z = %d) in;
layout(std430, binding = 0) buffer Out { uint values[]; } sb;
void main() {
	uint base = %du * (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);
	uint l = gl_LocalInvocationIndex;
	sb.values[base + l] = gl_WorkGroupID.x * 1000u + l * 3u;
	memoryBarrierBuffer();
	barrier();
	uint a = sb.values[base + (l + 1u) %% %du];
	uint b = sb.values[base + (l + 2u) %% %du];
	barrier();
	sb.values[base + l] += a + b;
}`, size[0], size[1], size[2], n, n, n)
		groups := [3]int{3, 2, 1}
		t.Run(fmt.Sprintf("%dx%dx%d", size[0], size[1], size[2]), func(t *T) {
			runComputeCase(t, computeCase{src: src, groups: groups,
				buffers: func() map[int][]uint32 { return map[int][]uint32{0: make([]uint32, 6*n)} },
				check: func(t *Checker, in, out map[int][]uint32) {
					want := make([]uint32, 6*n)
					for g := range 6 {
						first := func(l int) uint32 { return uint32(g%3)*1000 + uint32(l)*3 }
						for l := 0; l < n; l++ {
							want[g*n+l] = first(l) + first((l+1)%n) + first((l+2)%n)
						}
					}
					wordsEqual(t, "values", out[0], want)
				}})
		})
	}
}

// writeMultipleArr: one block of several fixed-size arrays of
// different types, each invocation writing its element of every array
// (dEQP compute.basic.write_multiple_arr).
func writeMultipleArr(t *T) {
	src := `#version 310 es
layout(local_size_x = 4, local_size_y = 2) in;
layout(std430, binding = 0) buffer Out { uint a[16]; ivec2 b[16]; vec3 c[16]; bool d[16]; } sb;
void main() {
	uint i = gl_GlobalInvocationID.y * 8u + gl_GlobalInvocationID.x;
	sb.a[i] = i * i;
	sb.b[i] = ivec2(i, -int(i));
	sb.c[i] = vec3(float(i), 0.5, -float(i));
	sb.d[i] = (i & 1u) == 1u;
}`
	runComputeCase(t, computeCase{src: src, groups: [3]int{2, 1, 1},
		buffers: func() map[int][]uint32 { return map[int][]uint32{0: make([]uint32, 16+32+64+16)} },
		check: func(t *Checker, in, out map[int][]uint32) {
			want := make([]uint32, 16+32+64+16)
			for i := range 16 {
				want[i] = uint32(i * i)
				want[16+2*i], want[16+2*i+1] = uint32(i), uint32(-int32(i))
				want[48+4*i], want[48+4*i+1], want[48+4*i+2] = math.Float32bits(float32(i)), math.Float32bits(0.5), math.Float32bits(-float32(i))
				want[112+i] = uint32(i & 1)
			}
			wordsEqual(t, "block", out[0], want)
		}})
}
