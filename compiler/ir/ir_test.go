package ir

import (
	"math"
	"strings"
	"testing"
)

// buildLoopSum builds, for a vertex shader:
//
//	float s = 0; int i = 0;
//	do { if (i < 2) s += a.x; else s += a.y*2.0; i++; } while (i < n);
//	gl_Position = vec4(s, a.x, float(i), 1)
func buildLoopSum(n int32) *Func {
	f := NewFunc("loopsum", Vertex)
	a := &Var{Name: "a", Kind: VarAttribute, Components: 2, Bases: []Base{BaseFloat, BaseFloat}}
	pos := &Var{Name: "gl_Position", Kind: VarOutput, Components: 4, Bases: []Base{0, 0, 0, 0}}
	f.Vars = []*Var{a, pos}
	b := NewBuilder(f)
	av := b.Emit(OpLoadVar, Vec(BaseFloat, 2))
	av.Var = a
	zero := b.ConstF(0)
	izero := b.ConstI(0)
	loop := b.Loop()
	s := b.Phi(Float, zero, nil)
	i := b.Phi(Int, izero, nil)
	loop.Phis = []*Instr{s, i}
	outer := b.SetList(&loop.Body)
	two := b.ConstI(2)
	lt := b.Emit(OpILt, Bool, i, two)
	n1 := b.If(lt)
	b.SetList(&n1.Then)
	ax := b.EmitIndex(OpExtract, Float, 0, av)
	s1 := b.Emit(OpFAdd, Float, s, ax)
	b.SetList(&n1.Else)
	ay := b.EmitIndex(OpExtract, Float, 1, av)
	ay2 := b.Emit(OpFMul, Float, ay, b.ConstF(2))
	s2 := b.Emit(OpFAdd, Float, s, ay2)
	b.SetList(&loop.Body)
	sm := b.Phi(Float, s1, s2)
	n1.Phis = []*Instr{sm}
	inext := b.Emit(OpIAdd, Int, i, b.ConstI(1))
	loop.Cond = b.Emit(OpILt, Bool, inext, b.ConstI(n))
	s.Args[1], i.Args[1] = sm, inext
	b.SetList(outer)
	ax0 := b.EmitIndex(OpExtract, Float, 0, av)
	fi := b.Emit(OpIToF, Float, i)
	v := b.Emit(OpVec, Vec4, s, ax0, fi, b.ConstF(1))
	st := b.Emit(OpStoreVar, Void, v)
	st.Var = pos
	return f
}

func TestPipelineKeepsSemantics(t *testing.T) {
	for _, n := range []int32{1, 3, 5} {
		ref := buildLoopSum(n)
		if err := Verify(ref, FormAny); err != nil {
			t.Fatal(err)
		}
		env := &Env{Lanes: 4, Vars: map[string][][]uint32{}}
		env.Attributes = make([][]float32, 4)
		for l := 0; l < 4; l++ {
			x, y := float32(l)+0.5, float32(l)*3-1
			env.Vars["a"] = append(env.Vars["a"], []uint32{FloatBits(x), FloatBits(y)})
			env.Attributes[l] = []float32{0, 0, 0, 0, x, y, 0, 1}
		}
		want, err := Interpret(ref, env)
		if err != nil {
			t.Fatal(err)
		}
		f := buildLoopSum(n)
		var trace []string
		err = Run(f, Options{Verify: true, Layout: &IOLayout{Attributes: map[string]int{"a": 1}},
			After: func(p string, f *Func) { trace = append(trace, p) }})
		if err != nil {
			t.Fatalf("n=%d: %v\n%s", n, err, Dump(f))
		}
		if len(trace) != len(Passes) {
			t.Errorf("ran %d passes, want %d", len(trace), len(Passes))
		}
		got, err := Interpret(f, env)
		if err != nil {
			t.Fatalf("%v\n%s", err, Dump(f))
		}
		for l := 0; l < 4; l++ {
			for c := 0; c < 4; c++ {
				w := want.VarF("gl_Position", l, c)
				g := got.OutputF(l, c)
				if w != g {
					t.Errorf("n=%d lane %d comp %d: got %v want %v", n, l, c, g, w)
				}
			}
		}
		// Constant trip count: the loop must be gone.
		if strings.Contains(Dump(f), "loop {") {
			t.Errorf("n=%d: loop not unrolled:\n%s", n, Dump(f))
		}
	}
}

func TestInterpretDivergentLoop(t *testing.T) {
	// Trip count from an attribute: the loop stays and lanes diverge.
	f := NewFunc("div", Vertex)
	b := NewBuilder(f)
	a := b.Emit(OpLoadAttribute, Float)
	n := b.Emit(OpFToI, Int, a)
	zero := b.ConstI(0)
	loop := b.Loop()
	i := b.Phi(Int, zero, nil)
	loop.Phis = []*Instr{i}
	outer := b.SetList(&loop.Body)
	inext := b.Emit(OpIAdd, Int, i, b.ConstI(1))
	loop.Cond = b.Emit(OpILt, Bool, inext, n)
	i.Args[1] = inext
	b.SetList(outer)
	b.EmitIndex(OpStoreOutput, Void, 0, b.Emit(OpIToF, Float, i))
	if err := Run(f, Options{Verify: true}); err != nil {
		t.Fatalf("%v\n%s", err, Dump(f))
	}
	env := &Env{Lanes: 3, Attributes: [][]float32{{1}, {4}, {7}}}
	r, err := Interpret(f, env)
	if err != nil {
		t.Fatal(err)
	}
	for l, want := range []float32{1, 4, 7} {
		if got := r.OutputF(l, 0); got != want {
			t.Errorf("lane %d: %v, want %v", l, got, want)
		}
	}
	env.MaxIterations = 5
	if _, err := Interpret(f, env); err == nil {
		t.Error("iteration limit not enforced")
	}
}

func TestVerifyRejects(t *testing.T) {
	tests := []struct {
		name  string
		build func() *Func
		want  string
	}{
		{"use before def", func() *Func {
			f := NewFunc("x", Vertex)
			b := NewBuilder(f)
			c := f.NewInstr(OpConst, Float)
			b.EmitIndex(OpStoreOutput, Void, 0, c)
			return f
		}, "not defined"},
		{"branch value leaks", func() *Func {
			f := NewFunc("x", Vertex)
			b := NewBuilder(f)
			n := b.If(b.ConstB(true))
			b.SetList(&n.Then)
			c := b.ConstF(1)
			b.SetList(&f.Body)
			b.EmitIndex(OpStoreOutput, Void, 0, c)
			return f
		}, "not defined"},
		{"type mismatch", func() *Func {
			f := NewFunc("x", Vertex)
			b := NewBuilder(f)
			b.EmitIndex(OpStoreOutput, Void, 0, b.Emit(OpFAdd, Float, b.ConstI(1), b.ConstF(1)))
			return f
		}, "want f32"},
		{"vector in scalar form", func() *Func {
			f := NewFunc("x", Vertex)
			b := NewBuilder(f)
			b.Const(Vec4, 0)
			return f
		}, "vector value"},
		{"store in control flow", func() *Func {
			f := NewFunc("x", Vertex)
			b := NewBuilder(f)
			n := b.If(b.ConstB(true))
			b.SetList(&n.Then)
			b.EmitIndex(OpStoreOutput, Void, 0, b.ConstF(1))
			return f
		}, "inside control flow"},
	}
	for _, tc := range tests {
		err := Verify(tc.build(), FormScalar)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want error containing %q", tc.name, err, tc.want)
		}
	}
}

func TestConstFoldArithmetic(t *testing.T) {
	tests := []struct {
		op   Op
		t    Type
		a, b uint32
		want uint32
	}{
		{OpFAdd, Float, FloatBits(1.5), FloatBits(2), FloatBits(3.5)},
		{OpFToI, Int, FloatBits(-2.7), 0, uint32(0xfffffffe)},
		{OpFToI, Int, FloatBits(float32(math.NaN())), 0, 0},
		{OpFToI, Int, FloatBits(3e9), 0, math.MaxInt32},
		{OpIShr, Int, 0x80000000, 33, 0xc0000000},
		{OpUShr, Int, 0x80000000, 1, 0x40000000},
		{OpRcp, Float, FloatBits(4), 0, FloatBits(0.25)},
		{OpExp2, Float, FloatBits(3), 0, FloatBits(8)},
		{OpFFract, Float, FloatBits(-0.25), 0, FloatBits(0.75)},
	}
	for _, tc := range tests {
		f := NewFunc("cf", Vertex)
		b := NewBuilder(f)
		x := b.Const(tc.t, tc.a)
		if tc.op == OpFToI || tc.op == OpRcp || tc.op == OpExp2 || tc.op == OpFFract {
			x = b.Const(Float, tc.a)
		}
		var v *Instr
		if tc.op.NumArgs() == 1 {
			v = b.Emit(tc.op, tc.t, x)
		} else {
			v = b.Emit(tc.op, tc.t, x, b.Const(tc.t, tc.b))
		}
		b.EmitIndex(OpStoreOutput, Void, 0, v)
		ConstFold(f)
		DCE(f)
		if err := Verify(f, FormScalar); err != nil {
			t.Fatal(err)
		}
		blk := f.Body[0].(*Block)
		st := blk.Instrs[len(blk.Instrs)-1]
		if !st.Args[0].IsConst() || st.Args[0].Const[0] != tc.want {
			t.Errorf("%s %#x %#x: folded to %s, want %#x", tc.op, tc.a, tc.b, st.Args[0], tc.want)
		}
	}
}
