package ir

import (
	"math"
	"math/rand"
	"testing"
)

// TestIntegerDivisionExact checks the lowering of int / int against Go's
// truncating division over the whole int32 range (GLSL ES 1.00 section
// 5.9: integer division truncates; GL reports highp int as 32-bit, so the
// hardware's whole range must divide exactly — issue 10): operands near
// 2^24 (where the old float quotient was off by more than one), near
// 2^31, MinInt32, and random ones, all through Interpret, which runs the
// same ops as the hardware. The passes (constant folding) must give the
// same quotients.
func TestIntegerDivisionExact(t *testing.T) {
	special := []int32{0, 1, -1, 2, -2, 3, 7, -7, 255, 65535, 65536, -65536, 1 << 23, 1<<24 - 1, 1 << 24, 1<<24 + 1,
		-(1 << 24) - 1, 1<<24 + 3, 1<<30 - 1, 1 << 30, 1<<30 + 1, -(1 << 30), math.MaxInt32, math.MaxInt32 - 1,
		math.MinInt32, math.MinInt32 + 1, 123456789, -987654321, 46341, 46340}
	type pair struct{ x, y int32 }
	var pairs []pair
	for _, x := range special {
		for _, y := range special {
			if y != 0 {
				pairs = append(pairs, pair{x, y})
			}
		}
	}
	rng := rand.New(rand.NewSource(10))
	for range 20000 {
		x, y := int32(rng.Uint32()), int32(rng.Uint32())>>uint(rng.Intn(32))
		if y != 0 {
			pairs = append(pairs, pair{x, y})
		}
	}
	// One function divides uniform slot 0 by slot 1 (uniforms are the
	// same in every lane: one pair per Interpret call).
	f := NewFunc("main", Vertex)
	l := &lowerer{f: f, b: NewBuilder(f)}
	load := func(i int) *Instr {
		u := f.NewInstr(OpLoadUniform, Int)
		u.Uniform = UniformEntry{Kind: UniformStorage, Index: uint32(i)}
		return l.b.Add(u)
	}
	q := l.idiv(load(0), load(1))
	l.b.EmitIndex(OpStoreOutput, Void, 0, q)
	env := &Env{Lanes: 1, Storage: make([]uint32, 2)}
	for _, p := range pairs {
		env.Storage[0], env.Storage[1] = uint32(p.x), uint32(p.y)
		r, err := Interpret(f, env)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := int32(r.Outputs[0][0]), p.x/p.y; got != want {
			t.Fatalf("%d / %d = %d, want %d", p.x, p.y, got, want)
		}
	}
	// Constant folding of the same ops.
	for _, p := range pairs[:len(special)*4] {
		g := NewFunc("main", Vertex)
		gl := &lowerer{f: g, b: NewBuilder(g)}
		gl.b.EmitIndex(OpStoreOutput, Void, 0, gl.idiv(gl.b.Const(Int, uint32(p.x)), gl.b.Const(Int, uint32(p.y))))
		if err := Run(g, Options{Layout: SequentialLayout(g)}); err != nil {
			t.Fatal(err)
		}
		r, err := Interpret(g, &Env{Lanes: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := int32(r.Outputs[0][0]), p.x/p.y; got != want {
			t.Fatalf("folded %d / %d = %d, want %d", p.x, p.y, got, want)
		}
	}
}
