package computeconf

import (
	"math"
	"math/bits"
	"math/rand"
)

// integerFunctions: GLSL ES 3.10 §8.8's bit-field functions on int and
// uint, scalar and vector, at run time over random and edge operands
// (offsets and sizes within the value, as the spec requires), and folded
// in constant expressions.
func integerFunctions(t *T) {
	const n = 96
	src := `#version 310 es
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer In { uvec4 a[]; } sb; // value, insert, offset, bits
layout(std430, binding = 1) buffer Out { uint r[]; };
void main() {
	uint i = gl_GlobalInvocationID.x;
	uvec4 p = sb.a[i];
	int off = int(p.z), bits = int(p.w);
	uint o = i * 12u;
	r[o + 0u] = bitfieldExtract(p.x, off, bits);
	r[o + 1u] = uint(bitfieldExtract(int(p.x), off, bits));
	r[o + 2u] = bitfieldInsert(p.x, p.y, off, bits);
	r[o + 3u] = uint(bitfieldInsert(int(p.x), int(p.y), off, bits));
	r[o + 4u] = bitfieldReverse(p.x);
	r[o + 5u] = uint(bitCount(p.x));
	r[o + 6u] = uint(bitCount(int(p.y)));
	r[o + 7u] = uint(findLSB(p.x));
	r[o + 8u] = uint(findMSB(p.x));
	r[o + 9u] = uint(findMSB(int(p.y)));
	ivec2 m = findMSB(uvec2(p.x, p.y)) + bitCount(ivec2(p.yx)) + findLSB(ivec2(p.xy));
	r[o + 10u] = uint(m.x) ^ uint(m.y) << 8;
	r[o + 11u] = bitfieldExtract(uvec2(p.x, ~p.x), 4, 8).y;
}`
	edge := []uint32{0, 1, 0x80000000, 0xFFFFFFFF, 0x7FFFFFFF, 0x00010000, 0xF0F0F0F0, 6}
	runComputeCase(t, computeCase{name: "run_time", src: src, groups: [3]int{n / 32, 1, 1},
		buffers: func() map[int][]uint32 {
			rng := rand.New(rand.NewSource(8))
			a := make([]uint32, 4*n)
			for i := range n {
				x, y := rng.Uint32(), rng.Uint32()>>uint(rng.Intn(32))
				if i < len(edge) {
					x, y = edge[i], edge[len(edge)-1-i]
				}
				off := uint32(rng.Intn(33))
				w := uint32(rng.Intn(int(33 - off)))
				switch i % 16 {
				case 1:
					off, w = 0, 32
				case 2:
					w = 0
				case 3:
					off, w = 32, 0
				}
				copy(a[4*i:], []uint32{x, y, off, w})
			}
			return map[int][]uint32{0: a, 1: make([]uint32, 12*n)}
		},
		check: func(t *Checker, in, out map[int][]uint32) {
			want := make([]uint32, 12*n)
			for i := range n {
				x, y, off, w := in[0][4*i], in[0][4*i+1], in[0][4*i+2], in[0][4*i+3]
				r := want[12*i:]
				r[0], r[1] = extractRef(x, off, w, false), extractRef(x, off, w, true)
				r[2] = insertRef(x, y, off, w)
				r[3] = r[2]
				r[4] = bits.Reverse32(x)
				r[5], r[6] = uint32(bits.OnesCount32(x)), uint32(bits.OnesCount32(y))
				r[7] = lsbRef(x)
				r[8], r[9] = msbRef(x, false), msbRef(y, true)
				mx := int32(msbRef(x, false)) + int32(bits.OnesCount32(y)) + int32(lsbRef(x))
				my := int32(msbRef(y, false)) + int32(bits.OnesCount32(x)) + int32(lsbRef(y))
				r[10] = uint32(mx) ^ uint32(my)<<8
				r[11] = extractRef(^x, 4, 8, false)
			}
			wordsEqual(t, "results", out[1], want)
		}})
	runComputeCase(t, computeCase{name: "constant", src: `#version 310 es
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Out { int r[8]; };
const int a = bitCount(0xF0F0u) + findMSB(-5) * 100;
const uint b = bitfieldInsert(0xFFFF0000u, 0xABCDu, 8, 12);
const int c = bitfieldExtract(int(0x8F000000u), 24, 8);
const ivec2 d = findLSB(ivec2(0, 96));
void main() {
	r[0] = a; r[1] = int(b); r[2] = c; r[3] = d.x; r[4] = d.y;
	r[5] = findMSB(0); r[6] = int(bitfieldReverse(1u)); r[7] = findMSB(int(0x80000000u));
}`, groups: [3]int{1, 1, 1},
		buffers: func() map[int][]uint32 { return map[int][]uint32{0: make([]uint32, 8)} },
		check: func(t *Checker, in, out map[int][]uint32) {
			m := func(v int32) uint32 { return uint32(v) }
			wordsEqual(t, "r", out[0], []uint32{m(8 + 2*100), insertRef(0xFFFF0000, 0xABCD, 8, 12), m(-113), m(-1), 5, m(-1), 0x80000000, 30})
		}})
}

func extractRef(x, off, n uint32, signed bool) uint32 {
	if n == 0 {
		return 0
	}
	v := x >> off & (uint32(1)<<n - 1)
	if n == 32 {
		v = x
	}
	if signed && n < 32 && v>>(n-1)&1 == 1 {
		v |= ^uint32(0) << n
	}
	return v
}

func insertRef(base, ins, off, n uint32) uint32 {
	for k := off; k < off+n; k++ {
		base = base&^(1<<k) | ins>>(k-off)&1<<k
	}
	return base
}

func lsbRef(x uint32) uint32 {
	for k := uint32(0); k < 32; k++ {
		if x>>k&1 == 1 {
			return k
		}
	}
	return ^uint32(0)
}

func msbRef(x uint32, signed bool) uint32 {
	if signed && int32(x) < 0 {
		x = ^x
	}
	for k := int32(31); k >= 0; k-- {
		if x>>k&1 == 1 {
			return uint32(k)
		}
	}
	return ^uint32(0)
}

// extendedArith: uaddCarry, usubBorrow, umulExtended and imulExtended
// (their out parameters written to locals, buffer members and, from a
// function, a global) against 64-bit Go arithmetic.
func extendedArith(t *T) {
	const n = 64
	src := `#version 310 es
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer In { uvec2 xy[]; } sb;
layout(std430, binding = 1) buffer Out { uint r[]; };
uint carryOut;
uint addThroughGlobal(uint a, uint b) { return uaddCarry(a, b, carryOut); }
void main() {
	uint i = gl_GlobalInvocationID.x;
	uint x = sb.xy[i].x, y = sb.xy[i].y;
	uint o = i * 10u;
	uint c, b;
	r[o + 0u] = uaddCarry(x, y, c);
	r[o + 1u] = c;
	r[o + 2u] = usubBorrow(x, y, b);
	r[o + 3u] = b;
	umulExtended(x, y, r[o + 4u], r[o + 5u]);
	ivec2 hi, lo;
	imulExtended(ivec2(int(x), int(y)), ivec2(int(y), -7), hi, lo);
	r[o + 6u] = uint(hi.x);
	r[o + 7u] = uint(lo.x);
	r[o + 8u] = uint(hi.y) ^ uint(lo.y);
	r[o + 9u] = addThroughGlobal(y, x) + carryOut * 1000u;
}`
	runComputeCase(t, computeCase{src: src, groups: [3]int{n / 16, 1, 1},
		buffers: func() map[int][]uint32 {
			rng := rand.New(rand.NewSource(21))
			edge := []uint32{0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0xFFFF, 0x10000, 3}
			xy := make([]uint32, 2*n)
			for i := range n {
				x, y := rng.Uint32(), rng.Uint32()>>uint(rng.Intn(32))
				if i < len(edge)*2 {
					x, y = edge[i%len(edge)], edge[(i/2+3)%len(edge)]
				}
				xy[2*i], xy[2*i+1] = x, y
			}
			return map[int][]uint32{0: xy, 1: make([]uint32, 10*n)}
		},
		check: func(t *Checker, in, out map[int][]uint32) {
			want := make([]uint32, 10*n)
			b2u := func(b bool) uint32 {
				if b {
					return 1
				}
				return 0
			}
			for i := range n {
				x, y := in[0][2*i], in[0][2*i+1]
				w := want[10*i:]
				w[0], w[1] = x+y, b2u(uint64(x)+uint64(y) > 0xFFFFFFFF)
				w[2], w[3] = x-y, b2u(x < y)
				p := uint64(x) * uint64(y)
				w[4], w[5] = uint32(p>>32), uint32(p)
				q := int64(int32(x)) * int64(int32(y))
				w[6], w[7] = uint32(uint64(q)>>32), uint32(q)
				r := int64(int32(y)) * -7
				w[8] = uint32(uint64(r)>>32) ^ uint32(r)
				w[9] = x + y + 1000*w[1]
			}
			wordsEqual(t, "results", out[1], want)
		}})
}

// bitCasts: floatBitsToInt/Uint and int/uintBitsToFloat keep every bit
// (NaN payloads, −0, infinities, denormals) at run time and when folded.
func bitCasts(t *T) {
	src := `#version 310 es
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer In { uint bits[]; } sb;
layout(std430, binding = 1) buffer Out { uint r[]; };
const uint one = floatBitsToUint(1.0);
const float two = uintBitsToFloat(0x40000000u);
void main() {
	uint i = gl_GlobalInvocationID.x;
	uint o = i * 5u;
	float f = uintBitsToFloat(sb.bits[i]);
	r[o + 0u] = floatBitsToUint(f);
	r[o + 1u] = uint(floatBitsToInt(intBitsToFloat(int(sb.bits[i]))));
	uvec2 v = floatBitsToUint(vec2(f, -f));
	r[o + 2u] = v.x ^ v.y;
	r[o + 3u] = one + floatBitsToUint(two);
	r[o + 4u] = floatBitsToUint(uintBitsToFloat(sb.bits[i] & 0x7F7FFFFFu) * 0.5);
}`
	special := []uint32{0x3F800000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC01234, 0xFFBADBAD, 0x00000001, 0x00800000,
		0x12345678, 0xDEADBEEF, 0x7F7FFFFF, 0, 0xBF000000, 0x007FFFFF, 0x3EAAAAAB, 0xC2F6E979}
	runComputeCase(t, computeCase{src: src, groups: [3]int{2, 1, 1},
		buffers: func() map[int][]uint32 {
			return map[int][]uint32{0: append([]uint32(nil), special...), 1: make([]uint32, 5*len(special))}
		},
		check: func(t *Checker, in, out map[int][]uint32) {
			want := make([]uint32, 5*len(special))
			for i, b := range in[0] {
				w := want[5*i:]
				w[0], w[1] = b, b
				w[2] = 0x80000000 // f and −f differ in the sign bit only
				w[3] = 0x3F800000 + 0x40000000
				w[4] = math.Float32bits(math.Float32frombits(b&0x7F7FFFFF) * 0.5)
			}
			wordsEqual(t, "results", out[1], want)
		}})
}

// arrays: GLSL ES 3.00 array constructors, const arrays, array
// initialisers and whole-array assignment, into locals, a buffer member
// and shared memory.
func arrays(t *T) {
	src := `#version 310 es
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer Out { uint table[8]; ivec2 pairs[3]; uint r[]; } sb;
const uint squares[8] = uint[8](0u, 1u, 4u, 9u, 16u, 25u, 36u, 49u);
const int third = int[](10, 20, 30)[2];
shared float staged[4];
void main() {
	uint l = gl_LocalInvocationIndex;
	ivec2 local[3] = ivec2[3](ivec2(1, 2), ivec2(int(l), third), ivec2(-1));
	if (l == 0u) {
		sb.table = squares;
		sb.pairs = local;
		staged = float[4](0.5, 1.5, 2.5, 3.5);
	}
	barrier();
	float copy[4];
	copy = staged;
	local[1].x += 100;
	sb.r[l] = squares[7u - l] + uint(local[1].x) + uint(copy[l % 4u] * 2.0);
}`
	runComputeCase(t, computeCase{src: src, groups: [3]int{1, 1, 1},
		buffers: func() map[int][]uint32 { return map[int][]uint32{0: make([]uint32, 8+6+8)} },
		check: func(t *Checker, in, out map[int][]uint32) {
			want := []uint32{0, 1, 4, 9, 16, 25, 36, 49, 1, 2, 0, 30, ^uint32(0), ^uint32(0)}
			for l := range uint32(8) {
				want = append(want, (7-l)*(7-l)+l+100+uint32(l%4)*2+1)
			}
			wordsEqual(t, "block", out[0], want)
		}})
}

// switchStatement: GLSL ES 3.00 switch — fall-through, default in the
// middle, break, continue of an enclosing loop, return from inside, a
// nested switch and a uint selector.
func switchStatement(t *T) {
	src := `#version 310 es
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer Out { int r[]; };
int classify(int x) {
	switch (x % 4) {
	case 0:
		return 100;
	case 1:
	case -1:
		x += 10;
	default:
		x += 1;
		break;
	case 3:
		x = -x;
	}
	return x;
}
void main() {
	int i = int(gl_GlobalInvocationID.x);
	int acc = 0;
	for (int k = 0; k < 6; k++) {
		switch (uint(k + i) & 3u) {
		case 0u:
			acc += 1;
			continue;
		case 2u:
			switch (k) {
			case 5: acc += 1000; break;
			default: acc += 10;
			}
			break;
		default:
			acc += 100;
		}
		acc *= 2;
	}
	r[2 * i] = classify(i - 5);
	r[2 * i + 1] = acc;
}`
	classify := func(x int32) int32 {
		switch x % 4 {
		case 0:
			return 100
		case 1, -1:
			x += 10
			x++
		case 3:
			x = -x
		default:
			x++
		}
		return x
	}
	loop := func(i int32) int32 {
		acc := int32(0)
		for k := int32(0); k < 6; k++ {
			switch uint32(k+i) & 3 {
			case 0:
				acc++
				continue
			case 2:
				if k == 5 {
					acc += 1000
				} else {
					acc += 10
				}
			default:
				acc += 100
			}
			acc *= 2
		}
		return acc
	}
	runComputeCase(t, computeCase{src: src, groups: [3]int{1, 1, 1},
		buffers: func() map[int][]uint32 { return map[int][]uint32{0: make([]uint32, 32)} },
		check: func(t *Checker, in, out map[int][]uint32) {
			want := make([]uint32, 32)
			for i := range int32(16) {
				want[2*i], want[2*i+1] = uint32(classify(i-5)), uint32(loop(i))
			}
			wordsEqual(t, "r", out[0], want)
		}})
}
