package backend

import (
	"fmt"
	"strings"

	"github.com/tilegpu/tilegpu/compiler/ir"
	"github.com/tilegpu/tilegpu/hw/isa"
)

// File says where an operand lives.
type File uint8

// Operand files.
const (
	FileNone     File = iota
	FileTemp          // virtual register (before allocation)
	FileAcc           // accumulator r0–r5
	FileA             // register file A
	FileB             // register file B
	FileSmallImm      // small immediate; Index is the raddr_b code
	FileSpecial       // read-only special; Index is a Special
	FileMagic         // write-only magic register; Index is an isa.Waddr
)

// Special names a read-only special register.
type Special uint8

// Specials (docs/hardware.md §7.1).
const (
	SpecUniform Special = iota
	SpecVarying
	SpecVPM
	SpecElementNumber
	SpecQPUNumber
	SpecFragX
	SpecFragY
	SpecFragZ
	SpecFragW
	SpecFrontFacing
	SpecPointS
	SpecPointT
	// compute inputs (docs/hardware.md §9)
	SpecLocalIDX
	SpecLocalIDY
	SpecLocalIDZ
	SpecLocalIndex
	SpecWorkgroupX
	SpecWorkgroupY
	SpecWorkgroupZ
	SpecNumGroupsX
	SpecNumGroupsY
	SpecNumGroupsZ
	numSpecials
)

// specialInfo: the read address and which files may read it.
var specialInfo = [numSpecials]struct {
	raddr  isa.Raddr
	a, b   bool
	stream bool // consumes a stream word
	name   string
}{
	SpecUniform:       {isa.RaddrUniform, true, true, true, "unif"},
	SpecVarying:       {isa.RaddrVarying, true, true, true, "vary"},
	SpecVPM:           {isa.RaddrVPM, true, true, true, "vpm"},
	SpecElementNumber: {isa.RaddrElementNumber, true, false, false, "elem_num"},
	SpecQPUNumber:     {isa.RaddrQPUNumber, false, true, false, "qpu_num"},
	SpecFragX:         {isa.RaddrFragX, true, false, false, "frag_x"},
	SpecFragY:         {isa.RaddrFragY, false, true, false, "frag_y"},
	SpecFragZ:         {isa.RaddrFragZ, true, false, false, "frag_z"},
	SpecFragW:         {isa.RaddrFragW, false, true, false, "frag_w"},
	SpecFrontFacing:   {isa.RaddrFrontFacing, true, false, false, "front_facing"},
	SpecPointS:        {isa.RaddrPointS, true, false, false, "point_s"},
	SpecPointT:        {isa.RaddrPointT, false, true, false, "point_t"},
	SpecLocalIDX:      {isa.RaddrLocalIDX, true, false, false, "local_id_x"},
	SpecLocalIDY:      {isa.RaddrLocalIDY, false, true, false, "local_id_y"},
	SpecLocalIDZ:      {isa.RaddrLocalIDZ, true, false, false, "local_id_z"},
	SpecLocalIndex:    {isa.RaddrLocalIndex, false, true, false, "local_index"},
	SpecWorkgroupX:    {isa.RaddrWorkgroupX, true, false, false, "wg_id_x"},
	SpecWorkgroupY:    {isa.RaddrWorkgroupY, false, true, false, "wg_id_y"},
	SpecWorkgroupZ:    {isa.RaddrWorkgroupZ, true, false, false, "wg_id_z"},
	SpecNumGroupsX:    {isa.RaddrNumGroupsX, false, true, false, "num_wg_x"},
	SpecNumGroupsY:    {isa.RaddrNumGroupsY, true, false, false, "num_wg_y"},
	SpecNumGroupsZ:    {isa.RaddrNumGroupsZ, false, true, false, "num_wg_z"},
}

// Reg is an operand or destination.
type Reg struct {
	File  File
	Index int
}

// Operand constructors.
func Temp(i int) Reg             { return Reg{FileTemp, i} }
func Acc(i int) Reg              { return Reg{FileAcc, i} }
func RegA(i int) Reg             { return Reg{FileA, i} }
func RegB(i int) Reg             { return Reg{FileB, i} }
func Spec(s Special) Reg         { return Reg{FileSpecial, int(s)} }
func Magic(w isa.Waddr) Reg      { return Reg{FileMagic, int(w)} }
func smallImmReg(code uint8) Reg { return Reg{FileSmallImm, int(code)} }

// R4 is the accumulator that receives SFU and TMU results.
var R4 = Acc(4)

// SmallImm returns the small-immediate operand for the 32-bit pattern v.
func SmallImm(v uint32) (Reg, bool) {
	c, ok := isa.SmallImmediate(v)
	return smallImmReg(c), ok
}

// IsNone reports whether r is the empty operand.
func (r Reg) IsNone() bool { return r.File == FileNone }

// IsTemp reports whether r is a virtual register.
func (r Reg) IsTemp() bool { return r.File == FileTemp }

func (r Reg) String() string {
	switch r.File {
	case FileNone:
		return "-"
	case FileTemp:
		return fmt.Sprintf("t%d", r.Index)
	case FileAcc:
		return fmt.Sprintf("r%d", r.Index)
	case FileA:
		return fmt.Sprintf("ra%d", r.Index)
	case FileB:
		return fmt.Sprintf("rb%d", r.Index)
	case FileSmallImm:
		return isa.SmallImmediateText(uint8(r.Index))
	case FileSpecial:
		return specialInfo[r.Index].name
	case FileMagic:
		return isa.Waddr(r.Index).String()
	}
	return "?"
}

// Op is a QIR operation: an add-unit op, a mul-unit op, MOV (either unit),
// or one of the non-ALU forms.
type Op uint8

// QIR ops. Values 1–30 are the add-unit ops with the same numbers as
// isa.AddOp; mulBase+n is isa.MulOp n.
const (
	OpNop Op = 0
	// add unit: Op(isa.AddOp)
	mulBase   Op = 64
	OpFMul       = mulBase + Op(isa.OpFMUL)
	OpMul24      = mulBase + Op(isa.OpMUL24)
	OpMov     Op = 100 // either unit (add: or a, a; mul: mov a)
	OpLoadImm Op = 101 // Dst = Imm
	OpBranch  Op = 102 // to Target when BrCond holds
	OpLdTMU   Op = 103 // pop the TMU FIFO into r4 (signal)
	OpThrsw   Op = 104 // thread switch (signal)
	OpBarrier Op = 105 // workgroup barrier (signal; compute shaders)
)

// AddOp returns the QIR op for an add-unit op.
func AddOp(o isa.AddOp) Op { return Op(o) }

func (o Op) isAdd() bool { return o >= 1 && o < isa.NumAddOps }
func (o Op) isMul() bool { return o > mulBase && o < mulBase+isa.NumMulOps }

// IsALU reports whether o runs on an ALU (add, mul or either).
func (o Op) IsALU() bool { return o.isAdd() || o.isMul() || o == OpMov }

func (o Op) unary() bool {
	switch {
	case o == OpMov:
		return true
	case o.isAdd():
		return isa.AddOp(o).IsUnary()
	case o.isMul():
		return isa.MulOp(o - mulBase).IsUnary()
	}
	return true
}

func (o Op) String() string {
	switch {
	case o == OpNop:
		return "nop"
	case o.isAdd():
		return isa.AddOp(o).String()
	case o.isMul():
		return isa.MulOp(o - mulBase).String()
	case o == OpMov:
		return "mov"
	case o == OpLoadImm:
		return "li"
	case o == OpBranch:
		return "b"
	case o == OpLdTMU:
		return "ldtmu"
	case o == OpThrsw:
		return "thrsw"
	case o == OpBarrier:
		return "barrier"
	}
	return fmt.Sprintf("op%d", o)
}

// Inst is one QIR instruction.
type Inst struct {
	Op   Op
	Dst  Reg
	Src  [2]Reg
	Cond isa.Cond // write condition (CondAlways unless masked)
	SF   bool     // set flags from this op's result

	Imm uint32 // OpLoadImm
	// ImmUniformPos, when ≥ 0, makes Imm 4·(final stream position of
	// uniform entry ImmUniformPos) at encoding (UNIFORMS_ADDRESS resets).
	ImmUniformPos int

	BrCond isa.BranchCond // OpBranch
	Target *Block         // OpBranch

	// Uniform is the index (into Program.UniformTable) of the stream entry
	// this instruction consumes (a UNIFORM read or a TMU_S write), or -1.
	Uniform int
	// Group is non-zero for the members of an atomic SFU or TMU sequence
	// (write … read r4): spill code is placed before or after it.
	Group int
	// partialDead: a conditional write whose failing lanes are never read
	// (a spilled def: its store has the same condition), so it kills the
	// destination for liveness.
	partialDead bool
	// mergeKill: the Else-side write of an If-merge phi (conditional on
	// the Else lanes). The lanes it leaves alone either ran Then, which
	// defines the phi unconditionally whenever it runs, or are inactive
	// (garbage nobody reads), so no value from before the If survives
	// it: liveness treats it as a full definition. (The Then value it
	// keeps is covered because intervals are hulls: Then's definition
	// comes before this write in the linear order.) The scheduler still
	// orders it after earlier writes of its destination.
	mergeKill bool
	// lastThrsw: an OpThrsw that is the last thread switch every run of
	// the program executes (encoded as LAST_THRSW).
	lastThrsw bool
	// noSpill: created by the spiller; its temps are never spilled again.
	noSpill bool
	// scratchBytes: a load immediate of ScratchBytesPerThread, patched
	// when the number of spill slots is final.
	scratchBytes bool
}

func newInst(op Op, dst Reg, a, b Reg) *Inst {
	return &Inst{Op: op, Dst: dst, Src: [2]Reg{a, b}, Cond: isa.CondAlways, Uniform: -1, ImmUniformPos: -1}
}

// Reads returns the operands the instruction reads. The slice shares
// in.Src (callers only read it; its capacity ends at its length, so an
// append copies): allocating one per call was a sixth of register
// allocation's time.
func (in *Inst) Reads() []Reg {
	switch {
	case !in.Op.IsALU():
		return nil
	case in.Op.unary():
		return in.Src[:1:1]
	}
	return in.Src[:2:2]
}

// writesAll reports whether the write replaces the destination in every
// lane that matters (so the old value is dead).
func (in *Inst) writesAll() bool { return in.Cond == isa.CondAlways || in.partialDead }

// readsFlags reports whether the instruction's effect depends on flags.
func (in *Inst) readsFlags() bool {
	if in.Op == OpBranch {
		return in.BrCond != isa.BranchAlways
	}
	return in.Cond != isa.CondAlways && in.Cond != isa.CondNever
}

// writesR4 reports whether the instruction puts a new value in r4.
func (in *Inst) writesR4() bool {
	return in.Op == OpLdTMU || (in.Dst.File == FileMagic && isa.Waddr(in.Dst.Index).IsSFU())
}

func (in *Inst) String() string {
	var sb strings.Builder
	sb.WriteString(in.Op.String())
	if in.Cond != isa.CondAlways {
		sb.WriteString(".")
		sb.WriteString(in.Cond.String())
	}
	if in.SF {
		sb.WriteString(".setf")
	}
	switch in.Op {
	case OpLoadImm:
		fmt.Fprintf(&sb, " %v, %#x", in.Dst, in.Imm)
		if in.ImmUniformPos >= 0 {
			fmt.Fprintf(&sb, " (4*pos(u%d))", in.ImmUniformPos)
		}
	case OpBranch:
		fmt.Fprintf(&sb, ".%v B%d", in.BrCond, in.Target.ID)
	case OpThrsw:
		if in.lastThrsw {
			sb.WriteString(" (last)")
		}
	case OpLdTMU, OpNop, OpBarrier:
	default:
		fmt.Fprintf(&sb, " %v, %v", in.Dst, in.Src[0])
		if !in.Op.unary() {
			fmt.Fprintf(&sb, ", %v", in.Src[1])
		}
	}
	if in.Uniform >= 0 {
		fmt.Fprintf(&sb, " [u%d]", in.Uniform)
	}
	return sb.String()
}

// Block is a basic block. Control falls through to the next block in
// Program.Blocks unless the last instruction is an unconditional branch.
type Block struct {
	ID        int
	Insts     []*Inst
	LoopDepth int
	// defAtEntry lists temps that liveness treats as defined (with a
	// garbage value) at the start of the block: the phis of an If that
	// starts here. Then and Else define such a phi, but either may be
	// skipped by a branch when no lane runs it; on the path that skips
	// both the phi looks read before any definition, and inside a loop
	// it would look live around the whole loop (from the back edge). No
	// lane reads that value (lanes that run neither side are inactive),
	// so the definition here is the truth. It is not a use or def for
	// the interval: the phi needs its register only where it is live.
	defAtEntry []int
}

// Program is a function in QIR, the data every phase works on. Phases
// modify it in place; it is not safe for concurrent use.
type Program struct {
	Stage    ir.Stage
	Threaded bool
	Blocks   []*Block
	NumTemps int
	// UniformTable lists the stream entries the code consumes; instructions
	// refer to them by index (Inst.Uniform). The stream order is the order
	// of the consuming instructions in the final code.
	UniformTable []ir.UniformEntry
	// ResetUniforms: every TMU_S write is preceded by a UNIFORMS_ADDRESS
	// reset (a texture fetch sits inside a loop).
	ResetUniforms bool

	// Set by RegAlloc.
	SpillSlots        int
	Spills, Fills     int
	AccumulatorValues int
	AllocRounds       int // colourings RegAlloc ran (1: no spilling needed)
	scratchBase       Reg // temp holding this lane's scratch address, once spilling started
	unspillable       map[int]bool
	colourFirst       map[int]bool // temps select must colour before others
	nextGroup         int
}

// NewTemp allocates a virtual register.
func (p *Program) NewTemp() Reg {
	p.NumTemps++
	return Temp(p.NumTemps - 1)
}

func (p *Program) newGroup() int {
	p.nextGroup++
	return p.nextGroup
}

// String prints the program, one instruction per line.
func (p *Program) String() string {
	var sb strings.Builder
	for _, b := range p.Blocks {
		fmt.Fprintf(&sb, "B%d (depth %d):\n", b.ID, b.LoopDepth)
		for _, in := range b.Insts {
			fmt.Fprintf(&sb, "\t%v\n", in)
		}
	}
	return sb.String()
}

// appendSuccessors appends the indices of the blocks control may reach
// after block bi (at most two) to out: callers pass an array of their own
// instead of a new slice per block.
func (p *Program) appendSuccessors(out []int, bi int) []int {
	b := p.Blocks[bi]
	fall := true
	if n := len(b.Insts); n > 0 {
		last := b.Insts[n-1]
		if last.Op == OpBranch {
			out = append(out, p.blockIndex(last.Target))
			if last.BrCond == isa.BranchAlways {
				fall = false
			}
		}
	}
	if fall && bi+1 < len(p.Blocks) {
		out = append(out, bi+1)
	}
	return out
}

// blockIndex relies on Block.ID being the index in Program.Blocks (Select
// numbers them so and later phases never reorder blocks).
func (p *Program) blockIndex(b *Block) int { return b.ID }
