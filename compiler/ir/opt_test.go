package ir

import (
	"strings"
	"testing"
)

// passCase builds a function, runs one pass and checks the dump.
type passCase struct {
	name   string
	build  func(f *Func, b *Builder)
	pass   func(f *Func)
	has    []string // substrings the dump must contain
	hasNot []string // substrings it must not contain
	count  map[string]int
}

func TestPasses(t *testing.T) {
	attr := func(b *Builder, comp int) *Instr {
		in := b.Emit(OpLoadAttribute, Float)
		in.Comp = comp
		return in
	}
	tests := []passCase{
		{name: "cse merges in scope, not across branches", pass: CSE,
			build: func(f *Func, b *Builder) {
				x := attr(b, 0)
				s1 := b.Emit(OpFMul, Float, x, x)
				s2 := b.Emit(OpFMul, Float, x, x)
				c := b.Emit(OpFLt, Bool, s1, s2)
				n := b.If(c)
				b.SetList(&n.Then)
				t1 := b.Emit(OpFAdd, Float, x, x)
				b.SetList(&n.Else)
				t2 := b.Emit(OpFAdd, Float, x, x)
				b.SetList(&f.Body)
				p := b.Phi(Float, t1, t2)
				n.Phis = append(n.Phis, p)
				b.EmitIndex(OpStoreOutput, Void, 0, p)
				b.EmitIndex(OpStoreOutput, Void, 1, s2)
			},
			count: map[string]int{"fmul": 1, "fadd": 2}},
		{name: "dce removes dead code and empty ifs", pass: DCE,
			build: func(f *Func, b *Builder) {
				x := attr(b, 0)
				b.Emit(OpFMul, Float, x, x)
				c := b.Emit(OpFLt, Bool, x, x)
				n := b.If(c)
				b.SetList(&n.Then)
				b.Emit(OpFAdd, Float, x, x)
				b.SetList(&f.Body)
				b.EmitIndex(OpStoreOutput, Void, 0, x)
			},
			hasNot: []string{"fmul", "if", "fadd", "flt"}, has: []string{"store_output 0"}},
		{name: "dce keeps control the stores depend on", pass: DCE,
			build: func(f *Func, b *Builder) {
				x := attr(b, 0)
				c := b.Emit(OpFLt, Bool, x, b.ConstF(1))
				n := b.If(c)
				b.SetList(&n.Then)
				y := b.Emit(OpFAdd, Float, x, x)
				b.SetList(&f.Body)
				p := b.Phi(Float, y, x)
				n.Phis = append(n.Phis, p)
				b.EmitIndex(OpStoreOutput, Void, 0, p)
			},
			has: []string{"flt", "if %", "fadd", "phi"}},
		{name: "copyprop removes trivial phis", pass: CopyProp,
			build: func(f *Func, b *Builder) {
				x := attr(b, 0)
				c := b.Emit(OpFLt, Bool, x, x)
				n := b.If(c)
				b.SetList(&f.Body)
				p := b.Phi(Float, x, x)
				n.Phis = append(n.Phis, p)
				b.EmitIndex(OpStoreOutput, Void, 0, p)
			},
			hasNot: []string{"phi"}, has: []string{"store_output 0, %1"}},
		{name: "constfold flattens small ifs into selects", pass: ConstFold,
			build: func(f *Func, b *Builder) {
				x := attr(b, 0)
				c := b.Emit(OpFLt, Bool, x, b.ConstF(0))
				n := b.If(c)
				b.SetList(&n.Then)
				y := b.Emit(OpFNeg, Float, x)
				b.SetList(&f.Body)
				p := b.Phi(Float, y, x)
				n.Phis = append(n.Phis, p)
				b.EmitIndex(OpStoreOutput, Void, 0, p)
			},
			hasNot: []string{"if", "phi"}, has: []string{"select", "fneg"}},
		{name: "constfold keeps ifs holding loads", pass: ConstFold,
			build: func(f *Func, b *Builder) {
				x := attr(b, 0)
				c := b.Emit(OpFLt, Bool, x, b.ConstF(0))
				n := b.If(c)
				b.SetList(&n.Then)
				y := b.Emit(OpLoadStorage, Float, b.ConstI(0))
				b.SetList(&f.Body)
				p := b.Phi(Float, y, x)
				n.Phis = append(n.Phis, p)
				b.EmitIndex(OpStoreOutput, Void, 0, p)
			},
			has: []string{"if %", "phi", "load_storage"}},
		{name: "constfold takes the branch of a constant condition", pass: ConstFold,
			build: func(f *Func, b *Builder) {
				x := attr(b, 0)
				c := b.ConstB(false)
				n := b.If(c)
				b.SetList(&n.Then)
				y := b.Emit(OpLoadStorage, Float, b.ConstI(0))
				b.SetList(&n.Else)
				z := b.Emit(OpLoadStorage, Float, b.ConstI(4))
				b.SetList(&f.Body)
				p := b.Phi(Float, y, z)
				n.Phis = append(n.Phis, p)
				b.EmitIndex(OpStoreOutput, Void, 0, b.Emit(OpFAdd, Float, p, x))
			},
			hasNot: []string{"if", "phi", "const 0\n"}, has: []string{"const 4"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFunc("t", Vertex)
			b := NewBuilder(f)
			tc.build(f, b)
			if err := Verify(f, FormScalar); err != nil {
				t.Fatalf("input: %v\n%s", err, Dump(f))
			}
			tc.pass(f)
			DCE(f)
			if err := Verify(f, FormScalar); err != nil {
				t.Fatalf("after pass: %v\n%s", err, Dump(f))
			}
			d := Dump(f)
			for _, s := range tc.has {
				if !strings.Contains(d, s) {
					t.Errorf("missing %q:\n%s", s, d)
				}
			}
			for _, s := range tc.hasNot {
				if strings.Contains(d, s) {
					t.Errorf("unexpected %q:\n%s", s, d)
				}
			}
			for s, n := range tc.count {
				if got := strings.Count(d, "= "+s+" "); got != n {
					t.Errorf("%d × %s, want %d:\n%s", got, s, n, d)
				}
			}
		})
	}
}

// TestCSEKeyArguments checks CSE's key on instructions with more arguments
// than its struct key holds inline (OpVec before scalarisation, OpTexture):
// equal argument lists merge, lists differing only past the fourth do not.
func TestCSEKeyArguments(t *testing.T) {
	f := NewFunc("t", Vertex)
	b := NewBuilder(f)
	var a [6]*Instr
	for i := range a {
		a[i] = b.Emit(OpLoadAttribute, Float)
		a[i].Comp = i
	}
	vt := Type{BaseFloat, 4}
	v1 := b.Emit(OpVec, vt, a[0], a[1], a[2], a[3], a[4], a[5])
	v2 := b.Emit(OpVec, vt, a[0], a[1], a[2], a[3], a[4], a[5])
	v3 := b.Emit(OpVec, vt, a[0], a[1], a[2], a[3], a[4], a[4])
	v4 := b.Emit(OpVec, vt, a[0], a[1], a[2], a[3], a[4])
	for i, v := range []*Instr{v1, v2, v3, v4} {
		b.EmitIndex(OpStoreOutput, Void, i, v)
	}
	CSE(f)
	d := Dump(f)
	if got := strings.Count(d, "= vec "); got != 3 {
		t.Errorf("%d vec instructions after CSE, want 3 (v1 = v2):\n%s", got, d)
	}
}
