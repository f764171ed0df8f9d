package ir

import (
	"math"
	"testing"
)

// TestFMinFMaxMinNumMaxNum pins FMIN/FMAX to IEEE 754-2008 minNum/maxNum,
// the hardware's rule (hardware.md §7.2): a single NaN operand yields the
// other operand and −0 orders below +0, in the interpreter and in constant
// folding alike (both go through evalScalar).
func TestFMinFMaxMinNumMaxNum(t *testing.T) {
	nan := float32(math.NaN())
	negZero := float32(math.Copysign(0, -1))
	inf := float32(math.Inf(1))
	tests := []struct {
		a, b     float32
		min, max float32
	}{
		{1, 2, 1, 2},
		{2, 1, 1, 2},
		{-3, 3, -3, 3},
		{nan, 2, 2, 2},
		{2, nan, 2, 2},
		{nan, -inf, -inf, -inf},
		{inf, nan, inf, inf},
		{nan, nan, nan, nan},
		{0, negZero, negZero, 0},
		{negZero, 0, negZero, 0},
		{negZero, negZero, negZero, negZero},
		{0, 0, 0, 0},
		{-inf, inf, -inf, inf},
		{nan, negZero, negZero, negZero},
	}
	same := func(x, y float32) bool {
		if x != x {
			return y != y
		}
		return math.Float32bits(x) == math.Float32bits(y)
	}
	for _, tc := range tests {
		for _, c := range []struct {
			op   Op
			want float32
		}{{OpFMin, tc.min}, {OpFMax, tc.max}} {
			got, ok := evalScalar(c.op, math.Float32bits(tc.a), math.Float32bits(tc.b), 0)
			if !ok || !same(math.Float32frombits(got), c.want) {
				t.Errorf("%v(%v, %v) = %v (bits %#x), want %v", c.op, tc.a, tc.b,
					math.Float32frombits(got), got, c.want)
			}
		}
	}
}

// TestFoldFMinFMax checks that constant folding (ConstFold) gives the
// minNum/maxNum results: fmin(+0, −0) folds to −0, fmax(−0, +0) to +0 and
// fmax(NaN, 1) to 1.
func TestFoldFMinFMax(t *testing.T) {
	negZero := math.Float32bits(float32(math.Copysign(0, -1)))
	nan := uint32(0x7fc00000)
	tests := []struct {
		op   Op
		a, b uint32
		want uint32
	}{
		{OpFMin, 0, negZero, negZero},
		{OpFMin, negZero, 0, negZero},
		{OpFMax, negZero, 0, 0},
		{OpFMax, 0, negZero, 0},
		{OpFMax, nan, math.Float32bits(1), math.Float32bits(1)},
		{OpFMin, math.Float32bits(-2), nan, math.Float32bits(-2)},
	}
	for _, tc := range tests {
		f := NewFunc("main", Fragment)
		b := NewBuilder(f)
		r := b.Emit(tc.op, Float, b.Const(Float, tc.a), b.Const(Float, tc.b))
		b.EmitIndex(OpStoreOutput, Void, 0, r)
		ConstFold(f)
		var got *Instr
		for _, n := range f.Body {
			if blk, ok := n.(*Block); ok {
				for _, in := range blk.Instrs {
					if in.Op == OpStoreOutput {
						got = in.Args[0]
					}
				}
			}
		}
		if got == nil || !got.IsConst() || got.Const[0] != tc.want {
			t.Errorf("%v(%#x, %#x) folds to %v, want const %#x", tc.op, tc.a, tc.b, got, tc.want)
		}
	}
}
