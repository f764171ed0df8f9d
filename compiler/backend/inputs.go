package backend

import (
	"sort"

	"github.com/tilegpu/tilegpu/compiler/ir"
	"github.com/tilegpu/tilegpu/hw/isa"
)

// Inputs — uniforms, varyings and vertex attributes — are read where they
// are needed, not all at entry, so that each lives from its first use to
// its last rather than from the program start (shorter live ranges, less
// register pressure, fewer spills).
//
// All three are streams (hardware.md §7.1, §7.4): UNIFORM returns the next
// word of the uniform stream, VARYING the next varying of the lane, VPM the
// next input word (from the word VPM_READ_SETUP last named). A read must
// therefore execute exactly once per run, which only top-level code does
// (code inside an If may be skipped by a branch, code in a Loop repeats).
// So:
//
//   - A read at top level happens at the first instruction that uses the
//     value (readInput, called by val).
//   - An input used inside an If or Loop is read just before that
//     top-level If or Loop (readInputsOf).
//   - Varyings are read in index order and VPM words in ascending order:
//     reading varying k first reads every lower index not read yet (an
//     unused one into nop). So varying k is read at the first use of any
//     varying ≥ k — never later than its own first use, never earlier
//     than needed to keep the order. VPM reads follow the same rule, so
//     they need the VPM_READ_SETUP writes the all-at-entry order needed
//     (one per gap in the words read).
//   - The uniform stream is built from the final code order (Encode), so
//     uniform reads need no order among themselves, only to run once.
//     When the stream is rewound (a texture fetch in a loop, see the
//     package doc) every uniform is read at the start, as before: a read
//     after a rewind would take the wrong word.
//   - A read whose value has one use, by one plain ALU op or output write
//     at top level whose other operands read no word of the same stream, is folded
//     into that instruction as its UNIFORM, VARYING or VPM operand (no
//     move, no register), as vc4 does for uniforms.

// inputPlan says how each input load is read.
type inputPlan struct {
	// folded: loads read as the operand of their only user.
	folded map[*ir.Instr]bool
	// Varyings: the loads of each index and the next index VARYING
	// returns.
	varyingLoads map[int][]*ir.Instr
	varyingNext  int
	// Attributes: the VPM words loads read, ascending, how many of them
	// have been read, the loads of each word, and the word VPM returns
	// next.
	words     []int
	wordsPos  int
	wordLoads map[int][]*ir.Instr
	vpmRead   int
}

func isInputLoad(op ir.Op) bool {
	return op == ir.OpLoadUniform || op == ir.OpLoadVarying || op == ir.OpLoadAttribute
}

func attrWord(in *ir.Instr) int { return 4*in.Index + in.Comp }

// planInputs finds the loads that are folded into their user and, when
// the uniform stream is rewound, reads every uniform at the start.
func (s *selector) planInputs() {
	pl := &s.in
	pl.folded = map[*ir.Instr]bool{}
	pl.varyingLoads, pl.wordLoads = map[int][]*ir.Instr{}, map[int][]*ir.Instr{}
	pl.vpmRead = -1
	top := map[*ir.Instr]bool{}
	for _, n := range s.f.Body {
		if b, ok := n.(*ir.Block); ok {
			for _, in := range b.Instrs {
				top[in] = true
			}
		}
	}
	user := map[*ir.Instr]*ir.Instr{}
	var unifs []*ir.Instr
	s.f.Walk(func(in *ir.Instr) {
		for _, a := range in.Args {
			user[a] = in
		}
		switch in.Op {
		case ir.OpLoadUniform:
			unifs = append(unifs, in)
		case ir.OpLoadVarying:
			pl.varyingLoads[in.Index] = append(pl.varyingLoads[in.Index], in)
		case ir.OpLoadAttribute:
			w := attrWord(in)
			if len(pl.wordLoads[w]) == 0 {
				pl.words = append(pl.words, w)
			}
			pl.wordLoads[w] = append(pl.wordLoads[w], in)
		}
	})
	sort.Ints(pl.words)
	if s.p.ResetUniforms {
		for _, in := range unifs {
			s.readUniform(in, false)
		}
		s.streamBase = s.p.NewTemp()
		s.mov(s.streamBase, Spec(SpecUniform)).Uniform = len(s.p.UniformTable)
		s.p.UniformTable = append(s.p.UniformTable, ir.UniformEntry{Kind: ir.UniformStreamAddress})
	}
	for in, u := range user {
		if !isInputLoad(in.Op) || s.uses[in] != 1 || !top[in] || !top[u] || in.Type.Base == ir.BaseBool {
			continue
		}
		if in.Op == ir.OpLoadUniform && s.p.ResetUniforms {
			continue
		}
		if (in.Op == ir.OpLoadVarying && len(pl.varyingLoads[in.Index]) != 1) ||
			(in.Op == ir.OpLoadAttribute && len(pl.wordLoads[attrWord(in)]) != 1) {
			continue // another load reads the same word
		}
		_, bin := binary[u.Op]
		_, un := unary[u.Op]
		if !(bin || un || u.Op == ir.OpStoreOutput) {
			continue
		}
		// The user's other operands must not read the same stream: their
		// reads would be emitted before the user and take its word (or,
		// for a uniform, its stream entry).
		same := 0
		for _, a := range u.Args {
			if a.Op == in.Op {
				same++
			}
		}
		if same == 1 {
			pl.folded[in] = true
		}
	}
}

// readUniform reads a uniform here; folded, it returns the UNIFORM operand
// for the instruction about to be emitted.
func (s *selector) readUniform(in *ir.Instr, fold bool) Reg {
	entry := len(s.p.UniformTable)
	s.p.UniformTable = append(s.p.UniformTable, in.Uniform)
	if fold {
		if s.pendingU >= 0 {
			s.fail("BUG: two folded uniforms in one instruction")
		}
		s.pendingU = entry
		return Spec(SpecUniform)
	}
	t := s.p.NewTemp()
	s.mov(t, Spec(SpecUniform)).Uniform = entry
	if in.Type.Base == ir.BaseBool {
		t = s.normBool(t)
	}
	s.vals[in] = t
	return t
}

// readInput reads load v where the code is now (its first use) and returns
// the operand holding it.
func (s *selector) readInput(v *ir.Instr) Reg {
	if s.nest > 0 {
		// readInputsOf read everything the If/Loop uses before it.
		s.fail("BUG: %%%d (%v) read inside an If or Loop", v.ID, v.Op)
		return imm(0)
	}
	pl := &s.in
	fold := pl.folded[v]
	switch v.Op {
	case ir.OpLoadUniform:
		return s.readUniform(v, fold)
	case ir.OpLoadVarying:
		if v.Index < pl.varyingNext {
			break // read already, before an If/Loop that needed a later one
		}
		s.readVaryings(v.Index - 1)
		if fold {
			pl.varyingNext++
			return Spec(SpecVarying)
		}
		s.readVaryings(v.Index)
	case ir.OpLoadAttribute:
		w := attrWord(v)
		if pl.wordsPos < len(pl.words) && pl.words[pl.wordsPos] <= w {
			s.readWords(w - 1)
			if fold {
				s.vpmSetup(w)
				pl.wordsPos++
				return Spec(SpecVPM)
			}
			s.readWords(w)
		}
	}
	if r, ok := s.vals[v]; ok {
		return r
	}
	s.fail("%%%d (%v) used before it is read", v.ID, v.Op)
	return imm(0)
}

// readVaryings reads every varying up to index k not read yet, in order.
func (s *selector) readVaryings(k int) {
	pl := &s.in
	for ; pl.varyingNext <= k; pl.varyingNext++ {
		loads := pl.varyingLoads[pl.varyingNext]
		if len(loads) == 0 {
			s.mov(nop, Spec(SpecVarying))
			continue
		}
		t := s.p.NewTemp()
		s.mov(t, Spec(SpecVarying))
		for _, in := range loads {
			s.vals[in] = t
		}
	}
}

// readWords reads every attribute word up to w not read yet, in order.
func (s *selector) readWords(w int) {
	pl := &s.in
	for ; pl.wordsPos < len(pl.words) && pl.words[pl.wordsPos] <= w; pl.wordsPos++ {
		x := pl.words[pl.wordsPos]
		s.vpmSetup(x)
		t := s.p.NewTemp()
		s.mov(t, Spec(SpecVPM))
		for _, in := range pl.wordLoads[x] {
			s.vals[in] = t
		}
	}
}

// vpmSetup points the VPM read pointer at word w (if it is not there) for
// the read that follows.
func (s *selector) vpmSetup(w int) {
	if w != s.in.vpmRead {
		s.li(Magic(isa.WaddrVPMRSetup), uint32(w))
	}
	s.in.vpmRead = w + 1
}

// readInputsOf reads, before the top-level If or Loop n, every input that
// n's code uses and that has not been read (nested code may run zero or
// many times).
func (s *selector) readInputsOf(n ir.Node) {
	if s.nest > 0 {
		return
	}
	var loads []*ir.Instr
	seen := map[*ir.Instr]bool{}
	note := func(v *ir.Instr) {
		if v != nil && isInputLoad(v.Op) && !seen[v] {
			if _, ok := s.vals[v]; !ok {
				seen[v] = true
				loads = append(loads, v)
			}
		}
	}
	visit := func(in *ir.Instr) {
		note(in)
		for _, a := range in.Args {
			note(a)
		}
	}
	// A condition fused into its If is evaluated inside the If (ifNode),
	// not where the IR computes it: its operands are needed there.
	walkNode(n, visit, visit)
	maxVarying, maxWord := -1, -1
	for _, v := range loads {
		switch v.Op {
		case ir.OpLoadUniform:
			s.readUniform(v, false)
		case ir.OpLoadVarying:
			maxVarying = max(maxVarying, v.Index)
		case ir.OpLoadAttribute:
			maxWord = max(maxWord, attrWord(v))
		}
	}
	s.readVaryings(maxVarying)
	s.readWords(maxWord)
}

// walkNode calls fn for every instruction of n (phis included) and cond
// for the condition of every If and Loop in it.
func walkNode(n ir.Node, fn, cond func(*ir.Instr)) {
	switch n := n.(type) {
	case *ir.Block:
		for _, in := range n.Instrs {
			fn(in)
		}
	case *ir.If:
		cond(n.Cond)
		for _, m := range n.Then {
			walkNode(m, fn, cond)
		}
		for _, m := range n.Else {
			walkNode(m, fn, cond)
		}
		for _, p := range n.Phis {
			fn(p)
		}
	case *ir.Loop:
		cond(n.Cond)
		for _, p := range n.Phis {
			fn(p)
		}
		for _, m := range n.Body {
			walkNode(m, fn, cond)
		}
	}
}

// sinkInputReads moves each read of a uniform or attribute into a temp
// (mov t, UNIFORM / VPM) down to just before the first instruction of its
// block that reads t. Selection reads an input at the first IR instruction that
// uses it, but sinkSingleUse then moves single-use arithmetic (a product
// of a uniform and an attribute in a matrix product, say) down to its
// reader, away from the read; this closes the gap again. A read does not
// move past another read of its stream or anything else that moves the
// stream's pointer (VPM_READ_SETUP for VPM; UNIFORMS_ADDRESS and TMU_S
// for the uniform stream, whose order Encode takes from the code, so a
// uniform read may pass other uniform reads but not a rewind), nor into
// an SFU/TMU sequence.
func sinkInputReads(p *Program) {
	for _, b := range p.Blocks {
		insts := b.Insts
		for i := len(insts) - 1; i >= 0; i-- {
			in := insts[i]
			if in.Op != OpMov || !in.Dst.IsTemp() || in.Cond != isa.CondAlways || in.SF || in.Group != 0 ||
				in.Src[0].File != FileSpecial || !specialInfo[in.Src[0].Index].stream {
				continue
			}
			stream := Special(in.Src[0].Index)
			if stream == SpecVarying {
				// Measured: sinking varying reads too costs a few
				// instructions over the dEQP corpus (later reads meet
				// register reuse the scheduler cannot move past) and
				// saves no spills.
				continue
			}
			j := i + 1
			for ; j < len(insts); j++ {
				x := insts[j]
				if readsReg(x, in.Dst) || x.Dst == in.Dst || movesStream(x, stream) || x.Op == OpBranch {
					break
				}
			}
			if j == len(insts) || !readsReg(insts[j], in.Dst) {
				continue // no reader in the block before a barrier
			}
			for g := insts[j].Group; g != 0 && j > i+1 && insts[j-1].Group == g; j-- {
			}
			if j-i-1 < sinkMinDistance {
				continue
			}
			copy(insts[i:j-1], insts[i+1:j])
			insts[j-1] = in
		}
	}
}

// sinkMinDistance is how many instructions a read must pass to be sunk.
// Passing fewer frees its register for too short a span to matter, while
// the later position can stop the scheduler (which runs after allocation)
// from moving the read up past a reused register. Measured over the dEQP
// corpus (TestCodeSize plain / TestRegisterPressure at limit 8) for
// 1, 2, 4, 8, 16: 75507/65168, 75488/65156, 75486/65142, 75510/65150,
// 75555/65177 instructions.
const sinkMinDistance = 4

func readsReg(in *Inst, r Reg) bool {
	for _, x := range in.Reads() {
		if x == r {
			return true
		}
	}
	return false
}

// movesStream reports whether in reads or repositions input stream sp
// (for the uniform stream, a read of it in the same position would be
// fine, as Encode orders entries by code, but a rewind or a TMU_S, which
// consumes the entry at the rewound position, is not).
func movesStream(in *Inst, sp Special) bool {
	if in.Dst.File == FileMagic {
		switch w := isa.Waddr(in.Dst.Index); {
		case sp == SpecVPM && w == isa.WaddrVPMRSetup:
			return true
		case sp == SpecUniform && (w == isa.WaddrUniformsAdr || w == isa.WaddrTMUS):
			return true
		}
	}
	if sp == SpecUniform {
		return false // reads of other uniforms: order is taken from the code
	}
	return readsReg(in, Spec(sp))
}
