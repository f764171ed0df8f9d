package ir

import (
	"math"
	"testing"
)

// TestStrengthReduceExact multiplies a uniform int by constants of every
// shape StrengthReduce handles (0, powers of two including 2^16..2^31 whose
// shift counts wrap, their negations, two-bit sums, runs of ones) and some
// it leaves alone, and compares Interpret before/after the rewrite with
// Go's wrapping int32 product over extreme operands. It also checks which
// constants lost their multiplication.
func TestStrengthReduceExact(t *testing.T) {
	cases := []struct {
		k       int32
		reduced bool
	}{
		{0, true}, {1, true}, {2, true}, {4, true}, {16, true}, {1 << 16, true}, {1 << 24, true}, {math.MinInt32, true},
		{-1, true}, {-2, true}, {-(1 << 20), true}, {3, true}, {5, true}, {6, true}, {24, true}, {1<<31 - 1, true},
		{0x0ff0, true}, {7, true}, {15, true}, {(1 << 30) + 1, true}, {-3, false}, {11, false}, {1000, false}, {123456789, false},
	}
	xs := []int32{0, 1, -1, 2, 3, -7, 255, 1 << 23, 1<<24 + 1, 1 << 30, math.MaxInt32, math.MinInt32, math.MinInt32 + 1, 123456789, -987654321}
	for _, c := range cases {
		f := NewFunc("main", Vertex)
		b := NewBuilder(f)
		u := f.NewInstr(OpLoadUniform, Int)
		u.Uniform = UniformEntry{Kind: UniformStorage, Index: 0}
		b.Add(u)
		m := b.Add(f.NewInstr(OpIMul, Int, u, b.ConstI(c.k)))
		b.EmitIndex(OpStoreOutput, Void, 0, m)
		StrengthReduce(f)
		muls := 0
		f.Walk(func(in *Instr) {
			if in.Op == OpIMul {
				muls++
			}
		})
		if (muls == 0) != c.reduced {
			t.Errorf("k = %d: %d multiplications left, want reduced=%v:\n%s", c.k, muls, c.reduced, Dump(f))
		}
		if err := Verify(f, FormScalar); err != nil {
			t.Fatalf("k = %d: %v\n%s", c.k, err, Dump(f))
		}
		env := &Env{Lanes: 1, Storage: make([]uint32, 1)}
		for _, x := range xs {
			env.Storage[0] = uint32(x)
			r, err := Interpret(f, env)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := int32(r.Outputs[0][0]), x*c.k; got != want {
				t.Errorf("%d · %d = %d after strength reduction, want %d:\n%s", x, c.k, got, want, Dump(f))
			}
		}
	}
}
