package backend

import (
	"fmt"
	"slices"

	"github.com/tilegpu/tilegpu/compiler/ir"
	"github.com/tilegpu/tilegpu/hw/isa"
)

// selector lowers one ir.Func to QIR.
type selector struct {
	f     *ir.Func
	p     *Program
	cur   *Block
	depth int

	vals map[*ir.Instr]Reg
	tex  map[*ir.Instr]*[4]Reg // texture results by component
	// block and pos: the IR block being selected and the index of the
	// instruction in it (texture batching looks ahead).
	block []*ir.Instr
	pos   int
	// early: instructions of the current block selected ahead of their
	// place, to compute the coordinates of a batched texture fetch.
	early  map[*ir.Instr]bool
	exec   Reg  // execution mask temp (0 = active)
	masked bool // some lanes may be inactive here

	uses map[*ir.Instr]int // uses of each value (If/Loop conditions count twice)
	pre  map[*ir.Instr]Reg // values to compute straight into a phi's temp
	// fused: comparisons whose only use is the condition of a select;
	// they are emitted at the select as flags, not as a 0/1 value.
	fused map[*ir.Instr]bool
	// loopFused: comparisons used only as a Loop condition; evaluated as
	// flags at the end of the iteration.
	loopFused map[*ir.Instr]bool
	// ifFused: comparisons used only as the condition of the If that
	// follows them; evaluated as flags at the If, which set the
	// execution mask directly.
	ifFused map[*ir.Instr]bool

	// Inputs (uniforms, varyings, attributes) read where they are needed
	// (see inputs.go).
	in         inputPlan
	nest       int // If/Loop nodes entered: 0 = top level, runs exactly once
	pendingU   int // entry of a folded uniform read not yet attached
	streamBase Reg // UniformStreamAddress value when ResetUniforms
	vpmNext    int // next VPM output word the write pointer points at
	// batchOperands bounds the distinct operands of one texture batch:
	// they are all live (or filled, when spilled) at the batch's start.
	batchOperands int
	// lastThrsw is the thread switch emitted last if every run executes
	// it exactly once and no other after it, else nil.
	lastThrsw *Inst
	// bufAddr and bufSize hold a compute shader's storage buffer
	// addresses and sizes by binding, read once at the start (compute.go).
	bufAddr, bufSize map[int]Reg
	err              error
}

// Select lowers f (in ir.FormScalar) to QIR for the given options.
func Select(f *ir.Func, opts Options) (p *Program, err error) {
	s := &selector{
		f:        f,
		p:        &Program{Stage: f.Stage, Threaded: opts.Threaded && f.Stage == ir.Fragment},
		vals:     map[*ir.Instr]Reg{},
		tex:      map[*ir.Instr]*[4]Reg{},
		vpmNext:  -1,
		pendingU: -1,
	}
	s.cur = s.newBlock()
	s.p.ResetUniforms = texInLoop(f.Body, false)
	// Registers RegAlloc may use: r0–r2 and both files (halves when
	// threaded, RegisterLimit when set), less the scratch base and the
	// stream base a batch may also need.
	fileRegs := 32
	if s.p.Threaded {
		fileRegs = 16
	}
	if opts.RegisterLimit > 0 && opts.RegisterLimit < fileRegs {
		fileRegs = opts.RegisterLimit
	}
	s.batchOperands = 2*fileRegs + 3 - 2
	s.uses, s.pre = countUses(f), map[*ir.Instr]Reg{}
	s.fused = fusableCompares(f, s.uses)
	s.loopFused = loopCondCompares(f.Body, s.uses, map[*ir.Instr]bool{})
	s.ifFused = ifCondCompares(f.Body, s.uses, map[*ir.Instr]bool{})
	s.planInputs()
	s.hoistBuffers()
	s.maskInvalidLanes()
	s.nodes(f.Body)
	if s.lastThrsw != nil {
		s.lastThrsw.lastThrsw = true
	}
	if s.err != nil {
		return nil, s.err
	}
	for i, b := range s.p.Blocks {
		b.ID = i
	}
	deadCode(s.p)
	sinkSingleUse(s.p)
	sinkInputReads(s.p)
	return s.p, nil
}

// deadCode removes instructions whose only effect is a temp nobody reads.
func deadCode(p *Program) {
	for {
		reads := make([]int, p.NumTemps)
		for _, b := range p.Blocks {
			for _, in := range b.Insts {
				for _, r := range in.Reads() {
					if r.IsTemp() {
						reads[r.Index]++
					}
				}
			}
		}
		removed := false
		for _, b := range p.Blocks {
			out := b.Insts[:0]
			for _, in := range b.Insts {
				if in.Dst.IsTemp() && reads[in.Dst.Index] == 0 && !in.SF && in.Uniform < 0 &&
					(in.Op.IsALU() || in.Op == OpLoadImm) && !readsStream(in) {
					removed = true
					continue
				}
				out = append(out, in)
			}
			b.Insts = out
		}
		if !removed {
			return
		}
	}
}

func readsStream(in *Inst) bool {
	for _, r := range in.Reads() {
		if r.File == FileSpecial && specialInfo[r.Index].stream {
			return true
		}
	}
	return false
}

func (s *selector) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf("backend: "+format, args...)
	}
}

// countUses counts the uses of every value; If and Loop conditions count
// twice so that they never look single-use.
func countUses(f *ir.Func) map[*ir.Instr]int {
	uses := map[*ir.Instr]int{}
	f.Walk(func(in *ir.Instr) {
		for _, a := range in.Args {
			uses[a]++
		}
	})
	var conds func(ns []ir.Node)
	conds = func(ns []ir.Node) {
		for _, n := range ns {
			switch n := n.(type) {
			case *ir.If:
				uses[n.Cond] += 2
				conds(n.Then)
				conds(n.Else)
			case *ir.Loop:
				uses[n.Cond] += 2
				conds(n.Body)
			}
		}
	}
	conds(f.Body)
	return uses
}

// loopCondCompares finds Loop conditions that are comparisons with no
// other use and whose failure is one condition code (all but fge).
func loopCondCompares(ns []ir.Node, uses map[*ir.Instr]int, out map[*ir.Instr]bool) map[*ir.Instr]bool {
	for _, n := range ns {
		switch n := n.(type) {
		case *ir.If:
			loopCondCompares(n.Then, uses, out)
			loopCondCompares(n.Else, uses, out)
		case *ir.Loop:
			// Evaluated after the back-edge copies, so not on this
			// loop's phis (they already hold the next iteration's values).
			if c := n.Cond; isCompare(c.Op) && c.Op != ir.OpFGe && uses[c] == 2 && !readsPhi(c, n.Phis) {
				out[c] = true
			}
			loopCondCompares(n.Body, uses, out)
		}
	}
	return out
}

// ifCondCompares finds If conditions that are comparisons with no other
// use, computed in the block right before the If (so evaluating them at
// the If costs nothing more, even inside a loop).
func ifCondCompares(ns []ir.Node, uses map[*ir.Instr]int, out map[*ir.Instr]bool) map[*ir.Instr]bool {
	for i, n := range ns {
		switch n := n.(type) {
		case *ir.If:
			if c := n.Cond; isCompare(c.Op) && uses[c] == 2 && i > 0 {
				if b, ok := ns[i-1].(*ir.Block); ok && slices.Contains(b.Instrs, c) {
					out[c] = true
				}
			}
			ifCondCompares(n.Then, uses, out)
			ifCondCompares(n.Else, uses, out)
		case *ir.Loop:
			ifCondCompares(n.Body, uses, out)
		}
	}
	return out
}

func readsPhi(in *ir.Instr, phis []*ir.Instr) bool {
	for _, a := range in.Args {
		for _, p := range phis {
			if a == p {
				return true
			}
		}
	}
	return false
}

// complement returns the condition that holds exactly when c does not.
func complement(c isa.Cond) isa.Cond {
	switch c {
	case isa.CondZS:
		return isa.CondZC
	case isa.CondZC:
		return isa.CondZS
	case isa.CondNS:
		return isa.CondNC
	case isa.CondNC:
		return isa.CondNS
	case isa.CondCS:
		return isa.CondCC
	case isa.CondCC:
		return isa.CondCS
	}
	panic("BUG: no complement for " + c.String())
}

func isCompare(op ir.Op) bool {
	switch op {
	case ir.OpFLt, ir.OpFGe, ir.OpFEq, ir.OpFNe, ir.OpILt, ir.OpIGe, ir.OpIEq, ir.OpINe:
		return true
	}
	return false
}

// fusableCompares finds comparisons used exactly once, as the condition
// of a select.
func fusableCompares(f *ir.Func, uses map[*ir.Instr]int) map[*ir.Instr]bool {
	selectCond := map[*ir.Instr]bool{}
	f.Walk(func(in *ir.Instr) {
		if in.Op == ir.OpSelect {
			if a := in.Args[0]; a != in.Args[1] && a != in.Args[2] {
				selectCond[a] = true
			}
		}
	})
	out := map[*ir.Instr]bool{}
	for in := range selectCond {
		if isCompare(in.Op) && uses[in] == 1 {
			out[in] = true
		}
	}
	return out
}

func texInLoop(ns []ir.Node, inLoop bool) bool {
	for _, n := range ns {
		switch n := n.(type) {
		case *ir.Block:
			if inLoop {
				for _, in := range n.Instrs {
					if in.Op == ir.OpTexture {
						return true
					}
				}
			}
		case *ir.If:
			if texInLoop(n.Then, inLoop) || texInLoop(n.Else, inLoop) {
				return true
			}
		case *ir.Loop:
			if texInLoop(n.Body, true) {
				return true
			}
		}
	}
	return false
}

func hasTexture(ns []ir.Node) bool {
	for _, n := range ns {
		switch n := n.(type) {
		case *ir.Block:
			for _, in := range n.Instrs {
				if in.Op == ir.OpTexture {
					return true
				}
			}
		case *ir.If:
			if hasTexture(n.Then) || hasTexture(n.Else) {
				return true
			}
		case *ir.Loop:
			if hasTexture(n.Body) {
				return true
			}
		}
	}
	return false
}

func (s *selector) newBlock() *Block {
	b := &Block{LoopDepth: s.depth}
	s.place(b)
	return b
}

// place appends b (created earlier as a branch target) to the program.
func (s *selector) place(b *Block) {
	b.ID = len(s.p.Blocks)
	b.LoopDepth = s.depth
	s.p.Blocks = append(s.p.Blocks, b)
	s.cur = b
}

func (s *selector) add(in *Inst) *Inst {
	if s.pendingU >= 0 {
		for _, r := range in.Reads() {
			if r == Spec(SpecUniform) {
				in.Uniform, s.pendingU = s.pendingU, -1
				break
			}
		}
	}
	s.cur.Insts = append(s.cur.Insts, in)
	return in
}

func (s *selector) emit(op Op, dst, a, b Reg) *Inst { return s.add(newInst(op, dst, a, b)) }

func (s *selector) mov(dst, src Reg) *Inst { return s.emit(OpMov, dst, src, Reg{}) }

func (s *selector) li(dst Reg, v uint32) *Inst {
	in := newInst(OpLoadImm, dst, Reg{}, Reg{})
	in.Imm = v
	return s.add(in)
}

// constant returns an operand holding v: a small immediate when one
// exists, else a fresh temp loaded here.
func (s *selector) constant(v uint32) Reg {
	if r, ok := SmallImm(v); ok {
		return r
	}
	t := s.p.NewTemp()
	s.li(t, v)
	return t
}

func imm(v int32) Reg {
	r, ok := SmallImm(uint32(v))
	if !ok {
		panic(fmt.Sprintf("BUG: %d is not a small immediate", v))
	}
	return r
}

var nop = Magic(isa.WaddrNOP)

// setFlags emits mov.setf nop, r (Z set in lanes where r == 0).
func (s *selector) setFlags(r Reg) {
	in := s.mov(nop, r)
	in.SF = true
}

// normBool turns any non-zero value into 1.
func (s *selector) normBool(v Reg) Reg {
	t := s.p.NewTemp()
	s.setFlags(v)
	s.mov(t, imm(0))
	s.emit(OpMov, t, imm(1), Reg{}).Cond = isa.CondZC
	return t
}

// val returns the operand holding v's value.
func (s *selector) val(v *ir.Instr) Reg {
	if r, ok := s.vals[v]; ok {
		return r
	}
	switch v.Op {
	case ir.OpConst:
		return s.constant(v.Const[0])
	case ir.OpLoadUniform, ir.OpLoadVarying, ir.OpLoadAttribute:
		return s.readInput(v)
	}
	s.fail("%%%d (%v) used before it is defined", v.ID, v.Op)
	return imm(0)
}

func (s *selector) nodes(ns []ir.Node) {
	for _, n := range ns {
		if s.err != nil {
			return
		}
		switch n := n.(type) {
		case *ir.Block:
			for i, in := range n.Instrs {
				if s.early[in] {
					continue
				}
				s.block, s.pos = n.Instrs, i
				s.instr(in)
			}
			s.block = nil
		case *ir.If:
			s.readInputsOf(n)
			s.nest++
			s.ifNode(n)
			s.nest--
		case *ir.Loop:
			s.readInputsOf(n)
			s.nest++
			s.loop(n)
			s.nest--
		default:
			s.fail("unknown control-flow node %T", n)
		}
	}
}

// canSkip reports whether a region may be jumped over when no lane runs
// it: not if that would skip a texture fetch's uniform.
func (s *selector) canSkip(ns []ir.Node) bool {
	return len(ns) > 0 && (s.p.ResetUniforms || !hasTexture(ns))
}

// skipIfNoneActive branches to target when exec is non-zero in all lanes.
func (s *selector) skipIfNoneActive(target *Block) {
	s.setFlags(s.exec)
	br := s.emit(OpBranch, Reg{}, Reg{}, Reg{})
	br.BrCond = isa.BranchAllZC
	br.Target = target
	s.newBlock()
}

func (s *selector) ensureExec() {
	if s.exec.IsNone() {
		s.exec = s.p.NewTemp()
	}
}

// allFail returns the branch condition "the comparison fails in every
// lane" for the flags compareFlags set, if one condition expresses it.
func allFail(conds []isa.Cond, negate bool) (isa.BranchCond, bool) {
	if len(conds) != 1 {
		return 0, false
	}
	c := conds[0]
	if !negate {
		c = complement(c)
	}
	all := map[isa.Cond]isa.BranchCond{
		isa.CondZS: isa.BranchAllZS, isa.CondZC: isa.BranchAllZC,
		isa.CondNS: isa.BranchAllNS, isa.CondNC: isa.BranchAllNC,
		isa.CondCS: isa.BranchAllCS, isa.CondCC: isa.BranchAllCC,
	}
	b, ok := all[c]
	return b, ok
}

// setByFlags emits dst = ifTrue where the comparison whose flags
// compareFlags set holds, ifFalse elsewhere.
func (s *selector) setByFlags(dst, ifTrue, ifFalse Reg, conds []isa.Cond, negate bool) {
	if negate {
		ifTrue, ifFalse = ifFalse, ifTrue
	}
	s.mov(dst, ifFalse)
	for _, c := range conds {
		s.mov(dst, ifTrue).Cond = c
	}
}

func (s *selector) ifNode(n *ir.If) {
	s.ensureExec()
	fused := s.ifFused[n.Cond]
	var c Reg
	if !fused {
		c = s.val(n.Cond)
	}
	outer := s.masked
	var saved Reg
	if outer {
		saved = s.p.NewTemp()
		s.mov(saved, s.exec)
	}
	phis := make([]Reg, len(n.Phis))
	coalesced := make([]bool, len(n.Phis))
	thenDefs := map[*ir.Instr]bool{}
	for _, nd := range n.Then {
		if b, ok := nd.(*ir.Block); ok {
			for _, in := range b.Instrs {
				thenDefs[in] = true
			}
		}
	}
	for i, ph := range n.Phis {
		phis[i] = s.p.NewTemp()
		s.cur.defAtEntry = append(s.cur.defAtEntry, phis[i].Index)
		// A value computed (unconditionally) in Then only for this phi
		// is computed straight into the phi's temp: no copy.
		a := ph.Args[0]
		_, bin := binary[a.Op]
		_, un := unary[a.Op]
		if thenDefs[a] && s.uses[a] == 1 && (bin || un) {
			s.pre[a] = phis[i]
			coalesced[i] = true
		}
	}
	// Then: exec = saved | (c ^ 1).
	var fusedConds []isa.Cond
	var fusedNegate bool
	switch {
	case fused:
		// The comparison's flags set the mask: saved (0 in the lanes
		// active around the If) where it holds, 1 elsewhere.
		fusedConds, fusedNegate = s.compareFlags(n.Cond)
		active := imm(0)
		if outer {
			active = saved
		}
		s.setByFlags(s.exec, active, imm(1), fusedConds, fusedNegate)
	case outer:
		t := s.p.NewTemp()
		s.emit(AddOp(isa.OpXOR), t, c, imm(1))
		s.emit(AddOp(isa.OpOR), s.exec, saved, t)
	default:
		s.emit(AddOp(isa.OpXOR), s.exec, c, imm(1))
	}
	s.masked = true
	elseLabel := &Block{}
	if s.canSkip(n.Then) {
		if skip, ok := allFail(fusedConds, fusedNegate); ok && !outer {
			// Every lane is active around the If, so the comparison's
			// flags alone say whether any lane runs Then.
			br := s.emit(OpBranch, Reg{}, Reg{}, Reg{})
			br.BrCond, br.Target = skip, elseLabel
			s.newBlock()
		} else {
			s.skipIfNoneActive(elseLabel)
		}
	}
	s.nodes(n.Then)
	for i, ph := range n.Phis {
		if !coalesced[i] {
			s.mov(phis[i], s.val(ph.Args[0]))
		}
	}
	s.place(elseLabel)
	if len(n.Else) == 0 && len(n.Phis) == 0 {
		// Nothing runs under the Else mask: after the If, exec is
		// restored (nested) or unused until set again.
		s.masked = outer
		if outer {
			s.mov(s.exec, saved)
		}
		return
	}
	// Else: exec = saved | c. A fused condition has no 0/1 value, but
	// here exec holds Then's mask again (constructs nested in Then
	// restore it), which is saved | (c ^ 1) with c ^ 1 ∈ {0, 1} in the
	// lanes where saved is 0.
	switch {
	case fused && outer:
		t := s.p.NewTemp()
		s.emit(AddOp(isa.OpXOR), t, s.exec, imm(1))
		s.emit(AddOp(isa.OpOR), s.exec, saved, t)
	case fused:
		s.emit(AddOp(isa.OpXOR), s.exec, s.exec, imm(1))
	case outer:
		s.emit(AddOp(isa.OpOR), s.exec, saved, c)
	default:
		s.mov(s.exec, c)
	}
	end := &Block{}
	if s.canSkip(n.Else) {
		s.skipIfNoneActive(end)
	}
	s.nodes(n.Else)
	if len(n.Phis) > 0 {
		s.setFlags(s.exec)
		for i, ph := range n.Phis {
			m := s.mov(phis[i], s.val(ph.Args[1]))
			m.Cond, m.mergeKill = isa.CondZS, true
		}
	}
	s.place(end)
	for i, ph := range n.Phis {
		s.vals[ph] = phis[i]
	}
	s.masked = outer
	if outer {
		s.mov(s.exec, saved)
	}
}

func (s *selector) loop(n *ir.Loop) {
	s.ensureExec()
	outer := s.masked
	var saved Reg
	after := &Block{}
	if outer {
		saved = s.p.NewTemp()
		s.mov(saved, s.exec)
		if s.canSkip(n.Body) {
			s.skipIfNoneActive(after)
		}
	} else {
		s.mov(s.exec, imm(0))
	}
	phis := make([]Reg, len(n.Phis))
	for i, ph := range n.Phis {
		phis[i] = s.p.NewTemp()
		s.mov(phis[i], s.val(ph.Args[0]))
		s.vals[ph] = phis[i]
	}
	s.depth++
	head := s.newBlock()
	s.masked = true
	s.nodes(n.Body)
	if s.err != nil {
		return
	}
	// Back edge: all phis take their new values at once (parallel copy),
	// only in lanes still running.
	isPhi := map[*ir.Instr]bool{}
	for _, ph := range n.Phis {
		isPhi[ph] = true
	}
	next := make([]Reg, len(n.Phis))
	for i, ph := range n.Phis {
		next[i] = s.val(ph.Args[1])
		if isPhi[ph.Args[1]] {
			t := s.p.NewTemp()
			s.mov(t, next[i])
			next[i] = t
		}
	}
	if len(n.Phis) > 0 {
		s.setFlags(s.exec)
		for i := range n.Phis {
			s.mov(phis[i], next[i]).Cond = isa.CondZS
		}
	}
	// exec |= !cond; loop while any lane is active.
	if cin := n.Cond; s.loopFused[cin] {
		// The comparison's flags deactivate the lanes where it fails.
		conds, negate := s.compareFlags(cin)
		fails := conds[0]
		if !negate {
			fails = complement(fails)
		}
		s.mov(s.exec, imm(1)).Cond = fails
		s.setFlags(s.exec)
	} else {
		c := s.val(cin)
		t := s.p.NewTemp()
		s.emit(AddOp(isa.OpXOR), t, c, imm(1))
		s.emit(AddOp(isa.OpOR), s.exec, s.exec, t).SF = true
	}
	br := s.emit(OpBranch, Reg{}, Reg{}, Reg{})
	br.BrCond = isa.BranchAnyZS
	br.Target = head
	s.depth--
	s.place(after)
	s.masked = outer
	if outer {
		s.mov(s.exec, saved)
	}
}

// binary maps IR ops that are one QIR op.
var binary = map[ir.Op]Op{
	ir.OpFAdd: AddOp(isa.OpFADD), ir.OpFSub: AddOp(isa.OpFSUB), ir.OpFMul: OpFMul,
	ir.OpFMin: AddOp(isa.OpFMIN), ir.OpFMax: AddOp(isa.OpFMAX),
	ir.OpIAdd: AddOp(isa.OpADD), ir.OpISub: AddOp(isa.OpSUB),
	ir.OpIShl: AddOp(isa.OpSHL), ir.OpIShr: AddOp(isa.OpASR), ir.OpUShr: AddOp(isa.OpSHR),
	ir.OpIAnd: AddOp(isa.OpAND), ir.OpIOr: AddOp(isa.OpOR), ir.OpIXor: AddOp(isa.OpXOR),
	ir.OpIMin: AddOp(isa.OpMIN), ir.OpIMax: AddOp(isa.OpMAX),
	ir.OpBAnd: AddOp(isa.OpAND), ir.OpBOr: AddOp(isa.OpOR), ir.OpBXor: AddOp(isa.OpXOR),
}

var unary = map[ir.Op]Op{
	ir.OpFAbs: AddOp(isa.OpFABS), ir.OpFNeg: AddOp(isa.OpFNEG), ir.OpFFloor: AddOp(isa.OpFFLOOR),
	ir.OpFCeil: AddOp(isa.OpFCEIL), ir.OpFTrunc: AddOp(isa.OpFTRUNC), ir.OpFFract: AddOp(isa.OpFFRACT),
	ir.OpFSign: AddOp(isa.OpFSIGN), ir.OpFToI: AddOp(isa.OpFTOI), ir.OpIToF: AddOp(isa.OpITOF),
	ir.OpFDdx: AddOp(isa.OpFDX), ir.OpFDdy: AddOp(isa.OpFDY), ir.OpINot: AddOp(isa.OpNOT),
}

var sfu = map[ir.Op]isa.Waddr{
	ir.OpRcp: isa.WaddrSFURecip, ir.OpRsq: isa.WaddrSFURecipSqrt,
	ir.OpExp2: isa.WaddrSFUExp2, ir.OpLog2: isa.WaddrSFULog2,
}

func (s *selector) def(in *ir.Instr) Reg {
	if t, ok := s.pre[in]; ok {
		s.vals[in] = t
		return t
	}
	t := s.p.NewTemp()
	s.vals[in] = t
	return t
}

func (s *selector) instr(in *ir.Instr) {
	// Inputs this instruction reads for the first time are read now,
	// before its result's temp exists (folded ones as its operand).
	for _, a := range in.Args {
		if _, ok := s.vals[a]; !ok && isInputLoad(a.Op) && !s.in.folded[a] {
			s.val(a)
		}
	}
	if op, ok := binary[in.Op]; ok {
		s.emit(op, s.def(in), s.val(in.Args[0]), s.val(in.Args[1]))
		return
	}
	if op, ok := unary[in.Op]; ok {
		s.emit(op, s.def(in), s.val(in.Args[0]), Reg{})
		return
	}
	if w, ok := sfu[in.Op]; ok {
		g := s.p.newGroup()
		s.mov(Magic(w), s.val(in.Args[0])).Group = g
		s.mov(s.def(in), R4).Group = g
		return
	}
	switch in.Op {
	case ir.OpConst:
		if _, ok := SmallImm(in.Const[0]); !ok {
			t := s.def(in)
			s.li(t, in.Const[0])
		}
	case ir.OpLoadUniform, ir.OpLoadVarying, ir.OpLoadAttribute:
		// Read at the first use (readInput), or before the If/Loop that
		// uses it first.
	case ir.OpIMul:
		s.imul(s.def(in), s.val(in.Args[0]), s.val(in.Args[1]))
	case ir.OpBNot:
		s.emit(AddOp(isa.OpXOR), s.def(in), s.val(in.Args[0]), imm(1))
	case ir.OpFLt, ir.OpFGe, ir.OpFEq, ir.OpFNe, ir.OpILt, ir.OpIGe, ir.OpIEq, ir.OpINe:
		if !s.fused[in] && !s.loopFused[in] && !s.ifFused[in] {
			s.compare(in, s.def(in))
		}
	case ir.OpSelect:
		cin := in.Args[0]
		a, b := s.val(in.Args[1]), s.val(in.Args[2])
		if s.fused[cin] {
			// The comparison's flags choose directly.
			conds, negate := s.compareFlags(cin)
			if negate {
				a, b = b, a
			}
			t := s.def(in)
			s.mov(t, b)
			for _, c := range conds {
				s.mov(t, a).Cond = c
			}
			return
		}
		c := s.val(cin)
		t := s.def(in)
		s.setFlags(c)
		s.mov(t, b)
		s.mov(t, a).Cond = isa.CondZC
	case ir.OpStoreOutput:
		s.storeOutput(in)
	case ir.OpFragCoord:
		spec := [4]Special{SpecFragX, SpecFragY, SpecFragZ, SpecFragW}
		if in.Index < 0 || in.Index > 3 {
			s.fail("frag_coord component %d", in.Index)
			return
		}
		s.mov(s.def(in), Spec(spec[in.Index]))
	case ir.OpFrontFacing:
		s.mov(s.def(in), Spec(SpecFrontFacing))
	case ir.OpPointCoord:
		if in.Index < 0 || in.Index > 1 {
			s.fail("point_coord component %d", in.Index)
			return
		}
		s.mov(s.def(in), Spec([2]Special{SpecPointS, SpecPointT}[in.Index]))
	case ir.OpTexture:
		if s.tex[in] == nil { // else fetched early, with an earlier one
			s.texture(in)
		}
	case ir.OpExtract:
		comps, ok := s.tex[in.Args[0]]
		if !ok || in.Index < 0 || in.Index > 3 {
			s.fail("%%%d: extract of a non-texture value", in.ID)
			return
		}
		s.vals[in] = comps[in.Index]
	case ir.OpLoadStorage:
		addr := s.val(in.Args[0])
		if s.masked {
			s.setFlags(s.exec)
		}
		g := s.p.newGroup()
		w := s.mov(Magic(isa.WaddrTMUAddr), addr)
		w.Group = g
		if s.masked {
			w.Cond = isa.CondZS
		}
		ld := s.add(newInst(OpLdTMU, Reg{}, Reg{}, Reg{}))
		ld.Group = g
		t := s.def(in)
		s.mov(t, R4).Group = g
		if in.Type.Base == ir.BaseBool {
			s.vals[in] = s.normBool(t)
		}
	case ir.OpDiscardIf:
		if s.f.Stage != ir.Fragment {
			s.fail("discard_if in a %v shader", s.f.Stage)
			return
		}
		s.mov(Magic(isa.WaddrTLBKill), s.val(in.Args[0]))
	case ir.OpPhi:
		s.fail("%%%d: phi outside an If/Loop phi list", in.ID)
	default:
		if !s.computeInstr(in) {
			s.fail("%%%d: unsupported op %v", in.ID, in.Op)
		}
	}
}

// imul computes the low 32 bits of a·b from 24-bit multiplies:
// a·b = lo(a)·lo(b) + ((hi(a)·lo(b) + lo(a)·hi(b)) << 24)  (mod 2^32).
func (s *selector) imul(dst, a, b Reg) {
	p0 := s.p.NewTemp()
	s.emit(OpMul24, p0, a, b)
	ah, bh := s.p.NewTemp(), s.p.NewTemp()
	s.emit(AddOp(isa.OpSHR), ah, a, imm(-8)) // shift counts use b & 31: −8 ≡ 24
	s.emit(AddOp(isa.OpSHR), bh, b, imm(-8))
	p1, p2 := s.p.NewTemp(), s.p.NewTemp()
	s.emit(OpMul24, p1, ah, b)
	s.emit(OpMul24, p2, a, bh)
	sum := s.p.NewTemp()
	s.emit(AddOp(isa.OpADD), sum, p1, p2)
	sh := s.p.NewTemp()
	s.emit(AddOp(isa.OpSHL), sh, sum, imm(-8))
	s.emit(AddOp(isa.OpADD), dst, p0, sh)
}

// compare sets dst to 1 where the comparison c holds, else 0.
func (s *selector) compare(c *ir.Instr, dst Reg) {
	conds, negate := s.compareFlags(c)
	init := int32(0)
	if negate {
		init = 1
	}
	s.mov(dst, imm(init))
	for _, cd := range conds {
		s.mov(dst, imm(1-init)).Cond = cd
	}
}

// compareFlags emits the flag-setting ops of the comparison c and returns
// the conditions under which it holds (any of them), or, with negate,
// under which it does not.
//
// Float comparisons are IEEE 754's: they read the flags of a − b (N: <,
// Z: ==, C: >; a NaN result clears all three, so every ordered comparison
// with NaN is false and != is true). With gradual underflow a − b is zero
// only when a == b and has the sign of a − b otherwise, so the flags are
// exact except for two equal infinities, whose difference is NaN: there
// ==, >= and != would be wrong. Unless an operand is a finite constant,
// those three get the correction of infinityEqual. Integer comparisons
// avoid the overflow of a − b: == from a ^ b, < from max(a,b) ^ a.
func (s *selector) compareFlags(c *ir.Instr) (conds []isa.Cond, negate bool) {
	a, b := s.val(c.Args[0]), s.val(c.Args[1])
	sf := func(o Op, x, y Reg) { s.emit(o, nop, x, y).SF = true }
	exactFloat := func(holds ...isa.Cond) []isa.Cond {
		sf(AddOp(isa.OpFSUB), a, b)
		if neverInfinite(c.Args[0], 4) || neverInfinite(c.Args[1], 4) {
			return holds
		}
		return []isa.Cond{s.infinityEqual(a, b, holds)}
	}
	switch c.Op {
	case ir.OpFLt:
		// Equal infinities give NaN and "not less": already right.
		sf(AddOp(isa.OpFSUB), a, b)
		return []isa.Cond{isa.CondNS}, false
	case ir.OpFGe:
		return exactFloat(isa.CondZS, isa.CondCS), false
	case ir.OpFEq:
		return exactFloat(isa.CondZS), false
	case ir.OpFNe:
		conds := exactFloat(isa.CondZS)
		if len(conds) == 1 && conds[0] == isa.CondZC {
			return []isa.Cond{isa.CondZS}, false
		}
		return conds, true
	case ir.OpIEq:
		sf(AddOp(isa.OpXOR), a, b)
		return []isa.Cond{isa.CondZS}, false
	case ir.OpINe:
		sf(AddOp(isa.OpXOR), a, b)
		return []isa.Cond{isa.CondZC}, false
	case ir.OpILt, ir.OpIGe:
		m := s.p.NewTemp()
		s.emit(AddOp(isa.OpMAX), m, a, b)
		sf(AddOp(isa.OpXOR), m, a)
		if c.Op == ir.OpILt {
			return []isa.Cond{isa.CondZC}, false
		}
		return []isa.Cond{isa.CondZS}, false
	}
	panic("BUG: not a comparison: " + c.Op.String())
}

// infinityEqual follows the flags of a − b, under which the comparison
// holds when one of holds is set, and adds the lanes where a and b are the
// same infinity: there the bits are equal and FTOI(a) ≠ 0 (FTOI saturates
// ±inf to ±2^31 and maps NaN, the only other value whose difference with
// itself is NaN, to 0; for finite a with equal bits the flags already
// hold). It leaves flags that are Z clear exactly where the comparison
// holds, and returns that condition.
func (s *selector) infinityEqual(a, b Reg, holds []isa.Cond) isa.Cond {
	t := s.p.NewTemp()
	s.mov(t, imm(0))
	for _, c := range holds {
		s.mov(t, imm(1)).Cond = c
	}
	u := s.p.NewTemp()
	s.emit(AddOp(isa.OpFTOI), u, a, Reg{})
	s.emit(AddOp(isa.OpXOR), nop, a, b).SF = true
	s.emit(AddOp(isa.OpOR), t, t, u).Cond = isa.CondZS
	s.setFlags(t)
	return isa.CondZC
}

// neverInfinite reports a value that is never ±inf (it may be NaN), so
// that a comparison with it needs no infinity correction: finite
// constants, integers converted to float, fract and sign, and selects
// and min/max of such values, looking depth ops deep.
func neverInfinite(in *ir.Instr, depth int) bool {
	switch in.Op {
	case ir.OpConst:
		for i := 0; i < max(int(in.Type.Width), 1); i++ {
			if in.Const[i]&0x7f800000 == 0x7f800000 {
				return false
			}
		}
		return true
	case ir.OpIToF, ir.OpFFract, ir.OpFSign:
		return true
	case ir.OpSelect, ir.OpFMin, ir.OpFMax:
		if depth == 0 {
			return false
		}
		args := in.Args
		if in.Op == ir.OpSelect {
			args = args[1:]
		}
		for _, a := range args {
			if !neverInfinite(a, depth-1) {
				return false
			}
		}
		return true
	}
	return false
}

func (s *selector) storeOutput(in *ir.Instr) {
	v := s.val(in.Args[0])
	switch s.f.Stage {
	case ir.Fragment:
		if in.Index < 0 || in.Index > 3 {
			s.fail("fragment output word %d", in.Index)
			return
		}
		s.mov(Magic(isa.WaddrTLBColorR+isa.Waddr(in.Index)), v)
	default:
		if in.Index < 0 || in.Index > 255 {
			s.fail("vertex output word %d", in.Index)
			return
		}
		if in.Index != s.vpmNext {
			s.li(Magic(isa.WaddrVPMWSetup), uint32(in.Index))
		}
		s.mov(Magic(isa.WaddrVPM), v)
		s.vpmNext = in.Index + 1
	}
}

func (s *selector) texture(in *ir.Instr) {
	batch := s.textureBatch(in)
	if len(batch) == 1 {
		s.texture1(in)
		return
	}
	// Up to four fetches in flight (hardware.md §7.1: the TMU FIFO holds
	// four requests): every request is queued before the first result is
	// popped, so their latencies overlap and a threaded shader switches
	// once for all of them.
	args := make([][4]Reg, len(batch))
	for k, t := range batch {
		if !s.textureArgsOK(t) {
			return
		}
		for i, a := range t.Args {
			args[k][i] = s.val(a)
		}
	}
	g := s.p.newGroup()
	for k, t := range batch {
		entry := len(s.p.UniformTable)
		s.p.UniformTable = append(s.p.UniformTable, ir.UniformEntry{Kind: ir.UniformTexture, Index: uint32(t.Index)})
		if s.p.ResetUniforms {
			// Each request rewinds the stream to its own descriptor.
			// The offset goes through r3 (as spill addresses do), not a
			// temp: a temp defined and read inside the batch could not
			// be spilled (fills go before the whole batch).
			li := s.li(Acc(fixupAcc), 0)
			li.ImmUniformPos, li.Group = entry, g
			s.emit(AddOp(isa.OpADD), Magic(isa.WaddrUniformsAdr), s.streamBase, Acc(fixupAcc)).Group = g
		}
		s.textureRequest(t, args[k], entry, g)
	}
	s.textureResults(batch, g)
}

// textureBatch returns in and the texture fetches after it in the same IR
// block that can be queued together with it: at most four in all, each
// with every operand already selected or computable early from plain
// arithmetic (so none depends on an earlier fetch's result), looking past
// output writes and discards (they touch neither the TMU nor the uniform
// stream, and a fetch moved above them reads nothing they change) and
// stopping at any other effect or TMU use (load_storage). When the
// uniform stream is rewound each request of the batch rewinds it to its
// own descriptor.
func (s *selector) textureBatch(in *ir.Instr) []*ir.Instr {
	batch := []*ir.Instr{in}
	if s.block == nil || s.pos >= len(s.block) || s.block[s.pos] != in {
		return batch
	}
	operands := map[*ir.Instr]bool{}
	fits := func(t *ir.Instr) bool {
		n := len(operands)
		for _, a := range t.Args {
			if !operands[a] {
				n++
			}
		}
		return n <= s.batchOperands
	}
	for _, a := range in.Args {
		operands[a] = true
	}
	for _, next := range s.block[s.pos+1:] {
		if len(batch) == tmuFIFODepth {
			break
		}
		if next.Op == ir.OpStoreOutput || next.Op == ir.OpDiscardIf {
			continue
		}
		if !next.Op.IsPure() || next.Op == ir.OpLoadStorage {
			break
		}
		if next.Op != ir.OpTexture || s.tex[next] != nil {
			continue
		}
		if !fits(next) {
			break // at a low register limit: fewer fetches in flight
		}
		if deps, ok := s.coordinateDeps(next); ok {
			for _, d := range deps {
				if s.early == nil {
					s.early = map[*ir.Instr]bool{}
				}
				s.early[d] = true
				s.instr(d)
			}
			batch = append(batch, next)
			for _, a := range next.Args {
				operands[a] = true
			}
		}
	}
	return batch
}

// coordinateDeps returns the instructions of the current block, after the
// one being selected, that next's operands need and that have not been
// selected, in block order — or ok false when one of them is not plain
// arithmetic (a texture result, a phi, an effect, a memory load), so the
// fetch cannot move up. Selecting them early changes only the order of
// pure instructions.
func (s *selector) coordinateDeps(next *ir.Instr) (deps []*ir.Instr, ok bool) {
	inBlock := map[*ir.Instr]int{}
	for i, in := range s.block[s.pos+1:] {
		inBlock[in] = i
	}
	need := map[*ir.Instr]bool{}
	var visit func(v *ir.Instr) bool
	visit = func(v *ir.Instr) bool {
		if _, ok := s.vals[v]; ok || v.Op == ir.OpConst || need[v] {
			return true
		}
		if isInputLoad(v.Op) && s.nest == 0 {
			// Read when its user is selected (inputs.go): at top level
			// an earlier read is as good.
			return true
		}
		if _, ok := inBlock[v]; !ok || s.early[v] {
			// Defined elsewhere and not selected: not available.
			return false
		}
		switch v.Op {
		case ir.OpTexture, ir.OpExtract, ir.OpLoadStorage, ir.OpPhi, ir.OpFDdx, ir.OpFDdy:
			return false
		}
		if !v.Op.IsPure() {
			return false
		}
		for _, a := range v.Args {
			if !visit(a) {
				return false
			}
		}
		need[v] = true
		return true
	}
	for _, a := range next.Args {
		if !visit(a) {
			return nil, false
		}
	}
	for _, in := range s.block[s.pos+1:] {
		if need[in] {
			deps = append(deps, in)
		}
	}
	return deps, true
}

// tmuFIFODepth is how many TMU requests may be outstanding (hardware.md
// §7.1; compiler/backend.Validate checks it).
const tmuFIFODepth = 4

func (s *selector) textureArgsOK(in *ir.Instr) bool {
	want := 2
	if in.Tex == ir.TexCube {
		want = 3
	}
	if in.Lod != ir.LodAuto {
		want++
	}
	if len(in.Args) != want {
		s.fail("%%%d: texture with %d arguments, want %d", in.ID, len(in.Args), want)
		return false
	}
	return true
}

// textureRequest writes one fetch's coordinates (TMU_S last: it queues the
// request and consumes the descriptor's stream entry).
func (s *selector) textureRequest(in *ir.Instr, args [4]Reg, entry, g int) {
	s.mov(Magic(isa.WaddrTMUT), args[1]).Group = g
	n := 2
	if in.Tex == ir.TexCube {
		s.mov(Magic(isa.WaddrTMUR), args[2]).Group = g
		n = 3
	}
	switch in.Lod {
	case ir.LodBias:
		s.mov(Magic(isa.WaddrTMUB), args[n]).Group = g
	case ir.LodExplicit:
		s.mov(Magic(isa.WaddrTMULOD), args[n]).Group = g
	}
	ts := s.mov(Magic(isa.WaddrTMUS), args[0])
	ts.Group = g
	ts.Uniform = entry
}

// textureResults switches threads (when threaded) and pops the four
// components of each fetch of batch, in request order.
func (s *selector) textureResults(batch []*ir.Instr, g int) {
	if s.p.Threaded {
		th := s.add(newInst(OpThrsw, Reg{}, Reg{}, Reg{}))
		th.Group = g
		s.lastThrsw = nil
		if s.depth == 0 && !(s.masked && s.p.ResetUniforms) {
			s.lastThrsw = th
		}
	}
	for _, in := range batch {
		comps := &[4]Reg{}
		for i := range comps {
			s.add(newInst(OpLdTMU, Reg{}, Reg{}, Reg{})).Group = g
			comps[i] = s.p.NewTemp()
			s.mov(comps[i], R4).Group = g
		}
		s.tex[in] = comps
	}
}

// texture1 selects a single fetch.
func (s *selector) texture1(in *ir.Instr) {
	want := 2
	if in.Tex == ir.TexCube {
		want = 3
	}
	if in.Lod != ir.LodAuto {
		want++
	}
	if len(in.Args) != want {
		s.fail("%%%d: texture with %d arguments, want %d", in.ID, len(in.Args), want)
		return
	}
	var args [4]Reg
	for i, a := range in.Args {
		args[i] = s.val(a)
	}
	entry := len(s.p.UniformTable)
	s.p.UniformTable = append(s.p.UniformTable, ir.UniformEntry{Kind: ir.UniformTexture, Index: uint32(in.Index)})
	if s.p.ResetUniforms {
		off := s.p.NewTemp()
		li := s.li(off, 0)
		li.ImmUniformPos = entry
		s.emit(AddOp(isa.OpADD), Magic(isa.WaddrUniformsAdr), s.streamBase, off)
	}
	g := s.p.newGroup()
	s.mov(Magic(isa.WaddrTMUT), args[1]).Group = g
	n := 2
	if in.Tex == ir.TexCube {
		s.mov(Magic(isa.WaddrTMUR), args[2]).Group = g
		n = 3
	}
	switch in.Lod {
	case ir.LodBias:
		s.mov(Magic(isa.WaddrTMUB), args[n]).Group = g
	case ir.LodExplicit:
		s.mov(Magic(isa.WaddrTMULOD), args[n]).Group = g
	}
	ts := s.mov(Magic(isa.WaddrTMUS), args[0])
	ts.Group = g
	ts.Uniform = entry
	if s.p.Threaded {
		// Let the other thread run while the fetch is in flight (vc4 does
		// the same); accumulators do not survive it.
		th := s.add(newInst(OpThrsw, Reg{}, Reg{}, Reg{}))
		th.Group = g
		// Outside loops a fetch runs exactly once, unless it sits in a
		// region a branch may skip (only when the stream is rewound, see
		// the package doc).
		s.lastThrsw = nil
		if s.depth == 0 && !(s.masked && s.p.ResetUniforms) {
			s.lastThrsw = th
		}
	}
	comps := &[4]Reg{}
	for i := range comps {
		s.add(newInst(OpLdTMU, Reg{}, Reg{}, Reg{})).Group = g
		comps[i] = s.p.NewTemp()
		s.mov(comps[i], R4).Group = g
	}
	s.tex[in] = comps
}

// sinkSingleUse moves each pure ALU instruction whose result is read by
// exactly one later instruction of the same block down to just before that
// reader. The IR computes, say, all products of a dot product before the
// sums; sunk, each product lives one instruction and fits an accumulator,
// which also leaves the raddr ports free for pairing.
func sinkSingleUse(p *Program) {
	defs := make([]int, p.NumTemps)
	uses := make([]int, p.NumTemps)
	for _, b := range p.Blocks {
		for _, in := range b.Insts {
			if in.Dst.IsTemp() {
				defs[in.Dst.Index]++
			}
			for _, r := range in.Reads() {
				if r.IsTemp() {
					uses[r.Index]++
				}
			}
		}
	}
	movable := func(in *Inst) bool {
		if !in.Op.IsALU() || !in.Dst.IsTemp() || in.SF || in.Cond != isa.CondAlways || in.Group != 0 ||
			in.Uniform >= 0 || defs[in.Dst.Index] != 1 || uses[in.Dst.Index] != 1 {
			return false
		}
		for _, r := range in.Reads() {
			if r.File == FileSpecial || r.File == FileAcc {
				return false
			}
		}
		return true
	}
	for _, b := range p.Blocks {
		insts := b.Insts
		for i := len(insts) - 1; i >= 0; i-- {
			in := insts[i]
			if !movable(in) {
				continue
			}
			// Find the reader; stop at anything that writes a source.
			j := i + 1
			for ; j < len(insts); j++ {
				x := insts[j]
				reads := false
				for _, r := range x.Reads() {
					if r == in.Dst {
						reads = true
					}
				}
				if reads {
					break
				}
				clobbers := false
				for _, r := range in.Reads() {
					if r.IsTemp() && x.Dst == r {
						clobbers = true
					}
				}
				if clobbers {
					j = len(insts)
				}
			}
			if j >= len(insts) {
				continue
			}
			// Not into an SFU/TMU sequence: spill code goes around those.
			for g := insts[j].Group; g != 0 && j > i+1 && insts[j-1].Group == g; j-- {
			}
			if j == i+1 {
				continue
			}
			copy(insts[i:j-1], insts[i+1:j])
			insts[j-1] = in
		}
	}
}
