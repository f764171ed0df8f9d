package backend

import (
	"testing"

	"github.com/tilegpu/tilegpu/compiler/ir"
	"github.com/tilegpu/tilegpu/hw/isa"
)

func TestEncodeBranchesAndStream(t *testing.T) {
	// B0: li r0, 4·pos(u1); read u0; branch to B2
	// B1: read u1 (never reached, but its entry still has a position)
	// B2: end
	b0, b1, b2 := &Block{ID: 0}, &Block{ID: 1}, &Block{ID: 2}
	li := newInst(OpLoadImm, Acc(0), Reg{}, Reg{})
	li.ImmUniformPos = 1
	r0 := newInst(OpMov, Acc(1), Spec(SpecUniform), Reg{})
	r0.Uniform = 0
	br := newInst(OpBranch, Reg{}, Reg{}, Reg{})
	br.BrCond, br.Target = isa.BranchAlways, b2
	b0.Insts = []*Inst{li, r0, br}
	r1 := newInst(OpMov, Acc(2), Spec(SpecUniform), Reg{})
	r1.Uniform = 1
	b1.Insts = []*Inst{r1}
	p := &Program{Blocks: []*Block{b0, b1, b2}, UniformTable: []ir.UniformEntry{
		{Kind: ir.UniformStorage, Index: 5}, {Kind: ir.UniformConstant, Value: 9}}}
	code, stream, err := Encode(p, Schedule(p))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"li r0, 0x4",
		"or r1, a.unif, a.unif ; nop",
		"brr 8",
		"or r2, a.unif, a.unif ; nop",
		"nop ; nop ; end",
	}
	if len(code) != len(want) {
		t.Fatalf("got %d words:\n%s", len(code), Disasm(code))
	}
	for i, w := range code {
		if got := isa.Disasm(w); got != want[i] {
			t.Errorf("word %d: %q, want %q", i, got, want[i])
		}
		if back, err := isa.Assemble(isa.Disasm(w)); err != nil || back != w {
			t.Errorf("word %d does not round-trip through the assembler: %v", i, err)
		}
	}
	if len(stream) != 2 || stream[0].Index != 5 || stream[1].Value != 9 {
		t.Fatalf("stream %v", stream)
	}
}

func TestPackRejects(t *testing.T) {
	tests := []struct {
		name string
		b    Bundle
	}{
		{"two stream reads", Bundle{
			Add: newInst(OpMov, Acc(0), Spec(SpecUniform), Reg{}),
			Mul: newInst(OpMov, Acc(1), Spec(SpecUniform), Reg{})}},
		{"two A registers", Bundle{
			Add: newInst(AddOp(isa.OpFADD), Acc(0), RegA(1), Acc(1)),
			Mul: newInst(OpFMul, Acc(1), RegA(2), Acc(1))}},
		{"small immediate and B register", Bundle{
			Add: newInst(AddOp(isa.OpADD), Acc(0), RegB(1), imm(3))}},
		{"both units write file A", Bundle{
			Add: newInst(AddOp(isa.OpFADD), RegA(0), Acc(0), Acc(1)),
			Mul: newInst(OpFMul, RegA(1), Acc(0), Acc(1))}},
		{"two TMU writes", Bundle{
			Add: newInst(OpMov, Magic(isa.WaddrTMUT), Acc(0), Reg{}),
			Mul: newInst(OpMov, Magic(isa.WaddrTMUS), Acc(0), Reg{})}},
		{"TLB and VPM writes", Bundle{
			Add: newInst(OpMov, Magic(isa.WaddrTLBColorR), Acc(0), Reg{}),
			Mul: newInst(OpMov, Magic(isa.WaddrVPM), Acc(0), Reg{})}},
		{"small immediate with ldtmu", Bundle{
			Add: newInst(AddOp(isa.OpADD), Acc(0), Acc(1), imm(3)),
			Sig: newInst(OpLdTMU, Reg{}, Reg{}, Reg{})}},
	}
	for _, tc := range tests {
		if _, ok := pack(&tc.b); ok {
			t.Errorf("%s: packed", tc.name)
		}
	}
	tlb := Bundle{Add: newInst(OpMov, Magic(isa.WaddrTLBColorR), Acc(0), Reg{}),
		Mul: newInst(OpMov, Magic(isa.WaddrTLBColorG), Acc(1), Reg{})}
	if _, ok := pack(&tlb); !ok {
		t.Error("two TLB colour writes must pair")
	}
	// And one that must pack: add writes B and mul writes A through ws.
	ok := Bundle{Add: newInst(AddOp(isa.OpFADD), RegB(0), Acc(0), Acc(1)), Mul: newInst(OpFMul, RegA(1), Acc(0), Acc(1))}
	ins, good := pack(&ok)
	if !good || !ins.WS {
		t.Fatalf("ws pairing failed: %v %v", good, ins)
	}
}
