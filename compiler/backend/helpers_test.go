package backend

import (
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/ir"
)

// fb is a small IR-building helper for tests.
type fb struct {
	f *ir.Func
	b *ir.Builder
}

func newFB(stage ir.Stage) *fb {
	f := ir.NewFunc("main", stage)
	return &fb{f: f, b: ir.NewBuilder(f)}
}

func (x *fb) uniform(slot int, t ir.Type) *ir.Instr {
	u := x.f.NewInstr(ir.OpLoadUniform, t)
	u.Uniform = ir.UniformEntry{Kind: ir.UniformStorage, Index: uint32(slot)}
	return x.b.Add(u)
}

func (x *fb) varying(i int) *ir.Instr { return x.b.EmitIndex(ir.OpLoadVarying, ir.Float, i) }

func (x *fb) op(op ir.Op, t ir.Type, args ...*ir.Instr) *ir.Instr { return x.b.Emit(op, t, args...) }

func (x *fb) out(i int, v *ir.Instr) { x.b.EmitIndex(ir.OpStoreOutput, ir.Void, i, v) }

// ifElse builds If(c) with then/else bodies producing one phi.
func (x *fb) ifElse(c *ir.Instr, then, els func() *ir.Instr) *ir.Instr {
	n := x.b.If(c)
	old := x.b.SetList(&n.Then)
	a := then()
	x.b.SetList(&n.Else)
	b := els()
	x.b.SetList(old)
	ph := x.b.Phi(a.Type, a, b)
	n.Phis = []*ir.Instr{ph}
	return ph
}

func mustVerify(t testing.TB, f *ir.Func) {
	t.Helper()
	if err := ir.Verify(f, ir.FormScalar); err != nil {
		t.Fatal(err)
	}
}

func countLines(s, sub string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			n++
		}
	}
	return n
}
