package backend

import (
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/ir"
	"github.com/tilegpu/tilegpu/hw/isa"
)

// prog builds a one-block program from instructions over temps.
func prog(numTemps int, insts ...*Inst) *Program {
	return &Program{Blocks: []*Block{{Insts: insts}}, NumTemps: numTemps}
}

func TestIntervalsLoopCarried(t *testing.T) {
	// B0: t0 = 1; t1 = 0
	// B1 (loop): t2 = t1 + t0; t1 = t2 (cond); branch anyzs B1
	// B2: out = t1
	b0 := &Block{ID: 0, Insts: []*Inst{
		newInst(OpMov, Temp(0), imm(1), Reg{}),
		newInst(OpMov, Temp(1), imm(0), Reg{}),
	}}
	b1 := &Block{ID: 1, LoopDepth: 1}
	cm := newInst(OpMov, Temp(1), Temp(2), Reg{})
	cm.Cond = isa.CondZS
	br := newInst(OpBranch, Reg{}, Reg{}, Reg{})
	br.BrCond, br.Target = isa.BranchAnyZS, b1
	b1.Insts = []*Inst{newInst(AddOp(isa.OpADD), Temp(2), Temp(1), Temp(0)), cm, br}
	b2 := &Block{ID: 2, Insts: []*Inst{newInst(OpMov, Magic(isa.WaddrTLBColorR), Temp(1), Reg{})}}
	p := &Program{Blocks: []*Block{b0, b1, b2}, NumTemps: 3}
	iv := computeIntervals(p)
	tests := []struct{ temp, start, end int }{
		{0, 0, 5}, // read in the loop: live until the back edge (ip 5 = end of B1)
		{1, 1, 5},
		{2, 2, 3},
	}
	for _, tc := range tests {
		if iv.Start[tc.temp] != tc.start || iv.End[tc.temp] != tc.end {
			t.Errorf("t%d: interval [%d,%d], want [%d,%d]", tc.temp, iv.Start[tc.temp], iv.End[tc.temp], tc.start, tc.end)
		}
	}
	if !iv.overlap(0, 2) || iv.overlap(2, 2) && false {
		t.Error("t0 and t2 must interfere")
	}
}

func TestClassesR4AndThrsw(t *testing.T) {
	sfu := func(w isa.Waddr, src Reg) *Inst { return newInst(OpMov, Magic(w), src, Reg{}) }
	// t1 = rcp(t0) read right away: may live in r4.
	// t2 = rcp(t0), then another SFU write before t2's use: not r4.
	// t3 live across a THRSW: no accumulator.
	p := prog(5,
		newInst(OpMov, Temp(0), Spec(SpecVarying), Reg{}),
		sfu(isa.WaddrSFURecip, Temp(0)),
		newInst(OpMov, Temp(1), R4, Reg{}),
		newInst(OpMov, Magic(isa.WaddrTLBColorR), Temp(1), Reg{}),
		sfu(isa.WaddrSFURecip, Temp(0)),
		newInst(OpMov, Temp(2), R4, Reg{}),
		sfu(isa.WaddrSFULog2, Temp(0)),
		newInst(OpMov, Temp(3), Spec(SpecVarying), Reg{}),
		newInst(OpMov, Temp(4), R4, Reg{}),
		newInst(OpThrsw, Reg{}, Reg{}, Reg{}),
		newInst(AddOp(isa.OpFADD), Magic(isa.WaddrTLBColorG), Temp(2), Temp(3)),
		newInst(OpMov, Magic(isa.WaddrTLBColorB), Temp(4), Reg{}),
	)
	iv := computeIntervals(p)
	class := tempClasses(p, iv)
	if class[1]&classR4 == 0 {
		t.Error("t1 (read before any other r4 write) should allow r4")
	}
	if class[2]&classR4 != 0 {
		t.Error("t2 is live across an SFU write: r4 not allowed")
	}
	if class[3]&classAcc != 0 || class[4]&classAcc != 0 || class[4]&classR4 != 0 {
		t.Errorf("t3/t4 live across THRSW got accumulator classes %b %b", class[3], class[4])
	}
}

func TestPQValues(t *testing.T) {
	rc := newRegClasses(16)
	if got := rc.p[classAcc|classA|classB]; got != 3+32 {
		t.Errorf("p(acc|A|B) = %d, want 35", got)
	}
	if rc.q[classAcc][classA] != 0 || rc.q[classAcc|classA][classA] != 1 {
		t.Error("q must be 1 exactly when classes share a register")
	}
}

func TestEncodesAlone(t *testing.T) {
	si, _ := SmallImm(1)
	si2, _ := SmallImm(2)
	tests := []struct {
		ops  []Reg
		want bool
	}{
		{[]Reg{RegA(1), RegB(1)}, true},
		{[]Reg{RegA(1), RegA(1)}, true},
		{[]Reg{RegA(1), RegA(2)}, false},
		{[]Reg{RegB(1), si}, false},
		{[]Reg{RegA(1), si}, true},
		{[]Reg{si, si2}, false},
		{[]Reg{Spec(SpecUniform), RegA(3)}, true},
		{[]Reg{Spec(SpecFragX), RegA(3)}, false},
		{[]Reg{Spec(SpecFragY), RegA(3)}, true},
		{[]Reg{Acc(0), Acc(4)}, true},
		{[]Reg{Spec(SpecUniform), Spec(SpecUniform)}, false}, // one word, read twice
		{[]Reg{Spec(SpecUniform), Spec(SpecVarying)}, true},
		{[]Reg{Spec(SpecElementNumber), Spec(SpecFragX)}, false},
		{[]Reg{Spec(SpecQPUNumber), si}, false},
	}
	for _, tc := range tests {
		in := newInst(AddOp(isa.OpFADD), Acc(0), tc.ops[0], tc.ops[1])
		if got := encodesAlone(in); got != tc.want {
			t.Errorf("encodesAlone(%v) = %v, want %v", in, got, tc.want)
		}
	}
}

func TestRegAllocFixesRaddrConflicts(t *testing.T) {
	// Enough long-lived values that file registers are used; every pair is
	// added, so some pairs land in one file and need the r3 fixup.
	var insts []*Inst
	n := 12
	for i := 0; i < n; i++ {
		insts = append(insts, newInst(OpMov, Temp(i), Spec(SpecVarying), Reg{}))
	}
	tmp := n
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			insts = append(insts, newInst(AddOp(isa.OpFADD), Temp(tmp), Temp(i), Temp(j)))
			insts = append(insts, newInst(OpMov, Magic(isa.WaddrTLBColorR), Temp(tmp), Reg{}))
			tmp++
		}
	}
	p := prog(tmp, insts...)
	if err := RegAlloc(p, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, in := range p.Blocks[0].Insts {
		if !encodesAlone(in) {
			t.Fatalf("instruction still reads two registers of one file: %v", in)
		}
		for _, r := range append(in.Reads(), in.Dst) {
			if r.IsTemp() {
				t.Fatalf("temp left after allocation: %v", in)
			}
		}
	}
}

func TestRegAllocThreadedHalves(t *testing.T) {
	var insts []*Inst
	n := 40
	for i := 0; i < n; i++ {
		insts = append(insts, newInst(OpMov, Temp(i), Spec(SpecVarying), Reg{}))
	}
	for i := 0; i < n; i++ {
		insts = append(insts, newInst(OpMov, Magic(isa.WaddrTLBColorR), Temp(i), Reg{}))
	}
	p := prog(n, insts...)
	p.Threaded = true
	if err := RegAlloc(p, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, in := range p.Blocks[0].Insts {
		for _, r := range append(in.Reads(), in.Dst) {
			if (r.File == FileA || r.File == FileB) && r.Index >= 16 {
				t.Fatalf("threaded shader uses %v", r)
			}
		}
	}
	if p.Spills == 0 {
		t.Fatal("40 values in 3+16+16 registers must spill")
	}
}

func TestRegAllocSpillsUnderLimit(t *testing.T) {
	var insts []*Inst
	n := 20
	for i := 0; i < n; i++ {
		insts = append(insts, newInst(OpMov, Temp(i), Spec(SpecVarying), Reg{}))
	}
	acc := n
	insts = append(insts, newInst(OpMov, Temp(acc), Temp(0), Reg{}))
	for i := 1; i < n; i++ {
		insts = append(insts, newInst(AddOp(isa.OpFADD), Temp(acc+i), Temp(acc+i-1), Temp(i)))
	}
	insts = append(insts, newInst(OpMov, Magic(isa.WaddrTLBColorR), Temp(acc+n-1), Reg{}))
	p := prog(acc+n, insts...)
	if err := RegAlloc(p, Options{RegisterLimit: 4}); err != nil {
		t.Fatal(err)
	}
	if p.Spills == 0 || p.Fills == 0 || p.SpillSlots == 0 {
		t.Fatalf("no spills with 4+4 registers: spills %d fills %d", p.Spills, p.Fills)
	}
	text := p.String()
	for _, w := range []string{"tmu_stdata", "tmu_staddr", "tmu_addr", "ldtmu", "qpu_num", "elem_num", "unif"} {
		if !strings.Contains(text, w) {
			t.Errorf("spill code lacks %s:\n%s", w, text)
		}
	}
	for _, in := range p.Blocks[0].Insts {
		for _, r := range append(in.Reads(), in.Dst) {
			if (r.File == FileA || r.File == FileB) && r.Index >= 4 {
				t.Fatalf("RegisterLimit 4 but %v used", r)
			}
		}
	}
	found := false
	for _, e := range p.UniformTable {
		if e.Kind == ir.UniformScratchAddress {
			found = true
		}
	}
	if !found {
		t.Fatal("no scratch address uniform")
	}
	_ = ir.Fragment
}

// TestIfPhiInLoopNotLiveAroundLoop: the phi of an If inside a loop is
// written in Then (unconditionally) and in Else (conditionally, on the
// Else lanes). The Else write must count as a definition for liveness:
// otherwise, on the path where Then is skipped, the phi looks read (the
// lanes the Else write leaves alone) before any definition, hence live
// into the loop header and around the whole loop, and every such phi of
// an unrolled loop holds a register for the whole outer loop.
func TestIfPhiInLoopNotLiveAroundLoop(t *testing.T) {
	x := newFB(ir.Fragment)
	v0, v1 := x.varying(0), x.varying(1)
	zero := x.b.ConstI(0)
	l := x.b.Loop()
	pi := x.b.Phi(ir.Int, zero, nil)
	pa := x.b.Phi(ir.Float, v0, nil)
	l.Phis = []*ir.Instr{pi, pa}
	old := x.b.SetList(&l.Body)
	c := x.op(ir.OpFLt, ir.Bool, pa, v1)
	m := x.ifElse(c, func() *ir.Instr {
		return x.op(ir.OpFMul, ir.Float, x.op(ir.OpFAdd, ir.Float, pa, v1), pa)
	}, func() *ir.Instr { return x.op(ir.OpFSub, ir.Float, pa, x.b.ConstF(1)) })
	na := x.op(ir.OpFAdd, ir.Float, m, x.b.ConstF(0.5))
	ni := x.op(ir.OpIAdd, ir.Int, pi, x.b.ConstI(1))
	l.Cond = x.op(ir.OpILt, ir.Bool, ni, x.b.ConstI(5))
	pi.Args[1], pa.Args[1] = ni, na
	x.b.SetList(old)
	x.out(0, pa)
	mustVerify(t, x.f)
	p, err := Select(x.f, Options{Stage: ir.Fragment})
	if err != nil {
		t.Fatal(err)
	}
	iv := computeIntervals(p)
	// The phi is the destination of the Else side's conditional move; it
	// must be dead by the loop's back edge (the last instruction of the
	// last block of depth 1).
	phi, backEdge, ip := -1, -1, 0
	for _, b := range p.Blocks {
		for _, in := range b.Insts {
			if in.Op == OpMov && in.Cond == isa.CondZS && in.Dst.IsTemp() && b.LoopDepth == 1 && phi < 0 {
				phi = in.Dst.Index
			}
			if b.LoopDepth == 1 {
				backEdge = ip
			}
			ip++
		}
	}
	if phi < 0 {
		t.Fatalf("no Else-side phi write:\n%s", p)
	}
	if iv.End[phi] >= backEdge {
		t.Errorf("If phi t%d live over [%d, %d), past the back edge at %d:\n%s", phi, iv.Start[phi], iv.End[phi], backEdge, p)
	}
	check(t, x.f, Options{Stage: ir.Fragment}, laneEnv(2))
}
