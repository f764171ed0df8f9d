package qpu

import (
	"fmt"
	"sort"
	"sync/atomic"

	"github.com/tilegpu/tilegpu/hw/isa"
)

// Lanes is the SIMD width of a core.
const Lanes = 16

// MaxProgramInstructions bounds how many instructions Load decodes and how
// far apart (in instructions) the lowest and highest decoded addresses may
// be. 64 Ki instructions is 512 KiB of code, far beyond any GLSL ES shader.
const MaxProgramInstructions = 1 << 16

// instruction kinds
const (
	kindUndecoded uint8 = iota // a hole between decoded instructions
	kindALU
	kindLoadImm
	kindBranch
)

// read kinds for raddr_a / raddr_b
const (
	rdNone uint8 = iota
	rdReg
	rdUniform
	rdVarying
	rdVPM
	rdElement
	rdQPU
	rdZero
	rdFragX
	rdFragY
	rdFragZ
	rdFragW
	rdFrontFacing
	rdPointS
	rdPointT
	rdSmallImm
	// compute inputs (docs/hardware.md §9)
	rdLocalX
	rdLocalY
	rdLocalZ
	rdLocalIndex
	rdWorkgroupX
	rdWorkgroupY
	rdWorkgroupZ
	rdNumGroupsX
	rdNumGroupsY
	rdNumGroupsZ
)

// write destinations beyond the register files (0–63: A0–A31, B0–B31)
const (
	dstR0 uint8 = 64 + iota
	dstR1
	dstR2
	dstR3
	dstNop
	dstACC5
	dstUniformsAddress
	dstTLBKill
	dstTLBZ
	dstTLBColorR
	dstTLBColorG
	dstTLBColorB
	dstTLBColorA
	dstVPM
	dstVPMReadSetup
	dstVPMWriteSetup
	dstSFURecip
	dstSFURecipSqrt
	dstSFUExp2
	dstSFULog2
	dstTMUS
	dstTMUT
	dstTMUR
	dstTMUB
	dstTMULOD
	dstTMUAddr
	dstTMUStoreData
	dstTMUStoreAddr
	// compute memory ports (docs/hardware.md §9)
	dstSharedLoad
	dstSharedStore
	dstSharedAtomic
	dstTMUAtomic
)

// flag sources
const (
	sfNone uint8 = iota
	sfAddFloat
	sfAddInt
	sfMulFloat
	sfMulInt
	sfImm
)

// inst is one predecoded instruction.
type inst struct {
	kind             uint8
	sig              isa.Sig
	opAdd            isa.AddOp
	opMul            isa.MulOp
	addA, addB       uint8 // operand muxes
	mulA, mulB       uint8
	readA, readB     uint8 // rd* kinds
	regA, regB       uint8 // register index (0–63) for rdReg, small-immediate code for rdSmallImm
	condAdd, condMul isa.Cond
	dstAdd, dstMul   uint8
	sf               uint8
	addDirect        bool // the add result goes straight to its register (see directOK)
	mulDirect        bool
	addTLB, mulTLB   bool // the result goes straight to Batch.Color
	brCond           isa.BranchCond
	brReg            bool
	brRel            bool
	target           int32  // static branch target (instruction index), -1 if dynamic
	imm              uint32 // load immediate; branch: immediate
	addr             uint32 // address of this instruction
}

// dualIssue says whether the ALU instruction in runs an operation on both
// units (counted as dual-issued, see StageCounts).
func (in *inst) dualIssue() bool {
	return in.kind == kindALU && in.opAdd != isa.OpNOP && in.opMul != isa.OpMulNOP
}

// Program is a predecoded shader. It is immutable after Load and safe to
// share between goroutines and cores.
type Program struct {
	base      uint32
	entry     int32
	code      []inst
	words     []uint64 // the decoded words, for Disasm
	regsUsed  uint64   // bit r: register r (0–63) is named
	upperRegs bool     // names a register ≥ 16 in either file
	reads     uint32   // bit k: some instruction reads raddr kind rd* k
	accsUsed  uint8    // bit k: accumulator r_k is read or written
	barrier   bool     // some instruction signals BARRIER
	count     int

	xlat atomic.Pointer[translation] // set once by Translate (translate.go)
}

// Entry returns the address the program starts at.
func (p *Program) Entry() uint32 { return p.base + uint32(p.entry)*isa.InstrBytes }

// Len returns the number of decoded instructions.
func (p *Program) Len() int { return p.count }

// Code returns the decoded words in address order starting at Base; holes
// between reachable pieces are 0 (nop ; nop) and never executed.
func (p *Program) Code() []uint64 { return p.words }

// Base returns the lowest decoded address.
func (p *Program) Base() uint32 { return p.base }

// HasBarrier reports whether some instruction of p signals BARRIER (a
// compute workgroup's batches must then run at once).
func (p *Program) HasBarrier() bool { return p.barrier }

// UsesUpperRegisters reports whether the program names A16–A31 or B16–B31,
// which a two-threaded fragment shader must not.
func (p *Program) UsesUpperRegisters() bool { return p.upperRegs }

// FragmentInputs says which per-lane fragment inputs of a Batch a program
// reads; the others are never observed, so the caller need not fill them.
type FragmentInputs struct {
	FragXY, FragZ, FragW, FrontFacing, PointCoord bool
}

// ReadsFragmentInputs reports which fragment inputs some instruction of p
// reads (whether or not that instruction is reached).
func (p *Program) ReadsFragmentInputs() FragmentInputs {
	has := func(k uint8) bool { return p.reads&(1<<k) != 0 }
	return FragmentInputs{
		FragXY:      has(rdFragX) || has(rdFragY),
		FragZ:       has(rdFragZ),
		FragW:       has(rdFragW),
		FrontFacing: has(rdFrontFacing),
		PointCoord:  has(rdPointS) || has(rdPointT),
	}
}

// Load decodes the program starting at pc. fetch returns the 64-bit word at
// a VA and false when it cannot be read (an unmapped page: Load then returns
// a *Fault). Decoding follows the straight line from pc until an END or an
// unconditional non-linking branch, and every static branch target. Every
// decoded word must be a valid instruction (isa.Decode).
func Load(fetch func(va uint32) (uint64, bool), pc uint32) (*Program, error) {
	if pc%isa.InstrBytes != 0 {
		return nil, fmt.Errorf("qpu: program address %#x is not 8-byte aligned", pc)
	}
	decoded := map[uint32]isa.Instr{}
	words := map[uint32]uint64{}
	work := []uint32{pc}
	for len(work) > 0 {
		addr := work[len(work)-1]
		work = work[:len(work)-1]
		for {
			if _, done := decoded[addr]; done {
				break
			}
			if len(decoded) >= MaxProgramInstructions {
				return nil, fmt.Errorf("qpu: program at %#x: no END within %d instructions", pc, MaxProgramInstructions)
			}
			w, ok := fetch(addr)
			if !ok {
				return nil, &Fault{VA: addr}
			}
			in, err := isa.Decode(w)
			if err != nil {
				return nil, fmt.Errorf("qpu: program at %#x: address %#x: %w", pc, addr, err)
			}
			decoded[addr], words[addr] = in, w
			if in.Sig == isa.SigEND {
				break
			}
			if in.Sig == isa.SigBranch {
				if !in.Reg {
					t := in.BranchTarget(addr)
					if t%isa.InstrBytes != 0 {
						return nil, fmt.Errorf("qpu: program at %#x: branch at %#x to unaligned %#x", pc, addr, t)
					}
					work = append(work, t)
				}
				if in.CondBr == isa.BranchAlways && in.WaddrAdd == isa.WaddrNOP && in.WaddrMul == isa.WaddrNOP {
					break // a plain jump: what follows is reached only as a target
				}
			}
			if addr+isa.InstrBytes < addr {
				return nil, fmt.Errorf("qpu: program at %#x runs past the end of the address space", pc)
			}
			addr += isa.InstrBytes
		}
	}
	addrs := make([]uint32, 0, len(decoded))
	for a := range decoded {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i] < addrs[j] })
	base, last := addrs[0], addrs[len(addrs)-1]
	span := (last-base)/isa.InstrBytes + 1
	if span > MaxProgramInstructions {
		return nil, fmt.Errorf("qpu: program at %#x spans %#x..%#x, more than %d instructions", pc, base, last, MaxProgramInstructions)
	}
	p := &Program{base: base, entry: int32((pc - base) / isa.InstrBytes), code: make([]inst, span),
		words: make([]uint64, span), count: len(addrs)}
	for _, a := range addrs {
		k := (a - base) / isa.InstrBytes
		p.words[k] = words[a]
		if err := p.predecode(&p.code[k], decoded[a], a); err != nil {
			return nil, fmt.Errorf("qpu: program at %#x: address %#x: %w", pc, a, err)
		}
	}
	return p, nil
}

func (p *Program) useReg(r uint8) {
	p.regsUsed |= 1 << r
	if r&31 >= 16 {
		p.upperRegs = true
	}
}

func (p *Program) predecode(d *inst, in isa.Instr, addr uint32) error {
	err := p.predecodeInst(d, in, addr)
	p.barrier = p.barrier || in.Sig == isa.SigBarrier
	p.reads |= 1<<d.readA | 1<<d.readB
	if d.kind == kindALU {
		for _, mux := range [4]uint8{d.addA, d.addB, d.mulA, d.mulB} {
			if mux < 6 {
				p.accsUsed |= 1 << mux
			}
		}
	}
	for _, dst := range [2]uint8{d.dstAdd, d.dstMul} {
		switch {
		case dst >= dstR0 && dst <= dstR3:
			p.accsUsed |= 1 << (dst - dstR0)
		case dst == dstACC5:
			p.accsUsed |= 1 << 5
		}
	}
	return err
}

func (p *Program) predecodeInst(d *inst, in isa.Instr, addr uint32) error {
	*d = inst{sig: in.Sig, addr: addr, target: -1}
	switch in.Sig {
	case isa.SigBranch:
		d.kind = kindBranch
		d.brCond, d.brReg, d.brRel = in.CondBr, in.Reg, in.Rel
		d.imm = uint32(in.BranchImm)
		d.dstAdd = p.dest(in.WaddrAdd, in.WS)
		d.dstMul = p.dest(in.WaddrMul, !in.WS)
		if in.Reg {
			d.readA, d.regA = p.read(in.RaddrA, false)
		} else {
			t := in.BranchTarget(addr)
			d.target = int32((t - p.base) / isa.InstrBytes)
		}
		return nil
	case isa.SigLoadImm:
		d.kind = kindLoadImm
		d.imm = in.Imm
		d.condAdd, d.condMul = in.CondAdd, in.CondMul
		d.dstAdd, d.dstMul = dstNop, dstNop
		if in.CondAdd != isa.CondNever {
			d.dstAdd = p.dest(in.WaddrAdd, in.WS)
		}
		if in.CondMul != isa.CondNever {
			d.dstMul = p.dest(in.WaddrMul, !in.WS)
		}
		if in.SF {
			d.sf = sfImm
		}
		return nil
	}
	d.kind = kindALU
	d.opAdd, d.opMul = in.OpAdd, in.OpMul
	d.addA, d.addB, d.mulA, d.mulB = uint8(in.AddA), uint8(in.AddB), uint8(in.MulA), uint8(in.MulB)
	d.condAdd, d.condMul = in.CondAdd, in.CondMul
	d.dstAdd, d.dstMul = dstNop, dstNop
	if in.OpAdd != isa.OpNOP {
		d.dstAdd = p.dest(in.WaddrAdd, in.WS)
	}
	if in.OpMul != isa.OpMulNOP {
		d.dstMul = p.dest(in.WaddrMul, !in.WS)
	}
	if in.ReadsMux(isa.MuxA) {
		d.readA, d.regA = p.read(in.RaddrA, false)
	}
	if in.ReadsMux(isa.MuxB) {
		if in.Sig == isa.SigSmallImm {
			d.readB, d.regB = rdSmallImm, uint8(in.RaddrB)
		} else {
			d.readB, d.regB = p.read(in.RaddrB, true)
		}
	}
	d.addDirect = in.OpAdd != isa.OpNOP && in.OpAdd != isa.OpFDX && in.OpAdd != isa.OpFDY &&
		in.CondAdd == isa.CondAlways && directOK(d, d.dstAdd)
	d.mulDirect = in.OpMul != isa.OpMulNOP && in.CondMul == isa.CondAlways && d.dstMul < 64+4
	// Unconditional colour writes compute straight into Batch.Color (no
	// operand can read the TLB, so dual issue is unaffected): FS_FLAT is
	// four of them per batch.
	isColor := func(dst uint8) bool { return dst >= dstTLBColorR && dst <= dstTLBColorA }
	d.addTLB = in.OpAdd != isa.OpNOP && in.OpAdd != isa.OpFDX && in.OpAdd != isa.OpFDY &&
		in.CondAdd == isa.CondAlways && isColor(d.dstAdd)
	d.mulTLB = in.OpMul != isa.OpMulNOP && in.CondMul == isa.CondAlways && isColor(d.dstMul)
	if in.SF {
		switch {
		case in.OpAdd != isa.OpNOP && in.OpAdd.FloatResult():
			d.sf = sfAddFloat
		case in.OpAdd != isa.OpNOP:
			d.sf = sfAddInt
		case in.OpMul.FloatResult():
			d.sf = sfMulFloat
		default:
			d.sf = sfMulInt
		}
	}
	return nil
}

// directOK reports whether the add unit may compute its result straight
// into register dst (a register file entry or r0–r3) instead of a
// temporary: only if the mul unit, which executes after it, does not read
// dst (dual issue: both units read before either writes). Lane-wise ops may
// alias their own operands; FDX/FDY, which read other lanes, never go direct.
func directOK(d *inst, dst uint8) bool {
	if dst >= dstR0+4 {
		return false
	}
	if d.opMul == isa.OpMulNOP {
		return true
	}
	reads := func(mux uint8) bool {
		switch {
		case mux < 4:
			return dst == dstR0+mux
		case mux == 6:
			return d.readA == rdReg && d.regA == dst
		case mux == 7:
			return d.readB == rdReg && d.regB == dst
		}
		return false
	}
	return !reads(d.mulA) && (d.opMul.IsUnary() || !reads(d.mulB))
}

// dest resolves a write address; fileB says whether 0–31 name file B.
func (p *Program) dest(w isa.Waddr, fileB bool) uint8 {
	if w.IsRegFile() {
		r := uint8(w)
		if fileB {
			r += 32
		}
		p.useReg(r)
		return r
	}
	switch w {
	case isa.WaddrR0, isa.WaddrR1, isa.WaddrR2, isa.WaddrR3:
		return dstR0 + uint8(w-isa.WaddrR0)
	case isa.WaddrNOP:
		return dstNop
	case isa.WaddrACC5:
		return dstACC5
	case isa.WaddrUniformsAdr:
		return dstUniformsAddress
	case isa.WaddrVPM:
		return dstVPM
	case isa.WaddrVPMRSetup:
		return dstVPMReadSetup
	case isa.WaddrVPMWSetup:
		return dstVPMWriteSetup
	case isa.WaddrSharedLoad:
		return dstSharedLoad
	case isa.WaddrSharedStore:
		return dstSharedStore
	case isa.WaddrSharedAtomic:
		return dstSharedAtomic
	case isa.WaddrTMUAtomic:
		return dstTMUAtomic
	}
	switch {
	case w.IsTLB():
		return dstTLBKill + uint8(w-isa.WaddrTLBKill)
	case w.IsSFU():
		return dstSFURecip + uint8(w-isa.WaddrSFURecip)
	case w.IsTMU():
		return dstTMUS + uint8(w-isa.WaddrTMUS)
	}
	// isa.Decode has rejected every other address.
	panic(fmt.Sprintf("BUG: qpu: undecodable write address %d", w))
}

// read resolves a read address of file A (fileB false) or B.
func (p *Program) read(r isa.Raddr, fileB bool) (kind, reg uint8) {
	if r < 32 {
		reg := uint8(r)
		if fileB {
			reg += 32
		}
		p.useReg(reg)
		return rdReg, reg
	}
	switch r {
	case isa.RaddrUniform:
		return rdUniform, 0
	case isa.RaddrVarying:
		return rdVarying, 0
	case isa.RaddrVPM:
		return rdVPM, 0
	case isa.RaddrNOP:
		return rdZero, 0
	case isa.RaddrElementNumber: // = QPUNumber on B
		if fileB {
			return rdQPU, 0
		}
		return rdElement, 0
	case isa.RaddrFragX:
		if fileB {
			return rdFragY, 0
		}
		return rdFragX, 0
	case isa.RaddrFragZ:
		if fileB {
			return rdFragW, 0
		}
		return rdFragZ, 0
	case isa.RaddrFrontFacing:
		return rdFrontFacing, 0
	case isa.RaddrPointS:
		if fileB {
			return rdPointT, 0
		}
		return rdPointS, 0
	case isa.RaddrLocalIDX: // local_id_y on B
		if fileB {
			return rdLocalY, 0
		}
		return rdLocalX, 0
	case isa.RaddrLocalIDZ: // local_index on B
		if fileB {
			return rdLocalIndex, 0
		}
		return rdLocalZ, 0
	case isa.RaddrWorkgroupX: // wg_id_y on B
		if fileB {
			return rdWorkgroupY, 0
		}
		return rdWorkgroupX, 0
	case isa.RaddrWorkgroupZ: // num_wg_x on B
		if fileB {
			return rdNumGroupsX, 0
		}
		return rdWorkgroupZ, 0
	case isa.RaddrNumGroupsY: // num_wg_z on B
		if fileB {
			return rdNumGroupsZ, 0
		}
		return rdNumGroupsY, 0
	}
	panic(fmt.Sprintf("BUG: qpu: undecodable read address %d", r))
}

// String summarises the program (use isa.DisasmProgram on Code for a listing).
func (p *Program) String() string {
	return fmt.Sprintf("qpu.Program{entry %#x, %d instructions in %#x..%#x}",
		p.Entry(), p.count, p.base, p.base+uint32(len(p.code)-1)*isa.InstrBytes)
}
