package ir

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

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

// TestComputeSharedVarBasicType: every invocation stores a value of the
// type into a shared array, and after a barrier copies another
// invocation's value to the output buffer (dEQP shared_var.basic_type).
func TestComputeSharedVarBasicType(t *testing.T) {
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
			t.Run(fmt.Sprintf("%s_%dx%dx%d", st.name, size[0], size[1], size[2]), func(t *testing.T) {
				words := n * st.stride / 4
				runComputeCase(t, computeCase{src: src, groups: [3]int{1, 1, 1},
					buffers: func() map[int][]uint32 {
						// Padding words keep a marker, to see stores
						// that spill into them.
						return map[int][]uint32{0: seq(words, func(int) uint32 { return 0xDEADBEEF })}
					},
					check: func(t *testing.T, in, out map[int][]uint32) {
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

// TestComputeSharedVarAtomic: every invocation applies one atomic
// operation to a shared int or uint and returns the old value; after a
// barrier invocation 0 writes the final value (dEQP shared_var.atomic.*).
func TestComputeSharedVarAtomic(t *testing.T) {
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
				t.Run(fmt.Sprintf("%s_%s_%d", o.name, typ, n), func(t *testing.T) {
					runComputeCase(t, computeCase{src: src, groups: [3]int{1, 1, 1},
						buffers: func() map[int][]uint32 { return map[int][]uint32{0: make([]uint32, 1+n)} },
						check: func(t *testing.T, in, out map[int][]uint32) {
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

// TestComputeSSBOLocalBarrier: each invocation writes its buffer word,
// then (memoryBarrierBuffer + barrier) reads its neighbours' (dEQP
// compute.basic.ssbo_local_barrier_*), over several work groups.
func TestComputeSSBOLocalBarrier(t *testing.T) {
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
		t.Run(fmt.Sprintf("%dx%dx%d", size[0], size[1], size[2]), func(t *testing.T) {
			runComputeCase(t, computeCase{src: src, groups: groups,
				buffers: func() map[int][]uint32 { return map[int][]uint32{0: make([]uint32, 6*n)} },
				check: func(t *testing.T, in, out map[int][]uint32) {
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

// TestComputeWriteMultipleArr: one block of several fixed-size arrays of
// different types, each invocation writing its element of every array
// (dEQP compute.basic.write_multiple_arr).
func TestComputeWriteMultipleArr(t *testing.T) {
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
		check: func(t *testing.T, in, out map[int][]uint32) {
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
