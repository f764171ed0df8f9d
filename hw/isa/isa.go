package isa

import "math"

// Sig is the 4-bit signal field, bits [63:60].
type Sig uint8

// Signals (docs/hardware.md §7.2). Values 7–13 are reserved.
const (
	SigNone      Sig = 0
	SigTHRSW     Sig = 1 // thread switch; accumulators are lost
	SigEND       Sig = 2 // program ends after this instruction
	SigLDTMU     Sig = 3 // pop the TMU FIFO into r4
	SigSmallImm  Sig = 4 // raddr_b is a small immediate
	SigLastTHRSW Sig = 5 // last thread switch
	// SigBarrier (compute batches, docs/hardware.md §9): after this
	// instruction the batch waits until every running batch of its
	// workgroup has reached a barrier; memory and shared-memory accesses
	// before it are visible to every batch of the workgroup after it.
	SigBarrier Sig = 6
	SigLoadImm Sig = 14 // load-immediate form
	SigBranch  Sig = 15 // branch form
)

// Cond is a per-lane write condition (cond_add, cond_mul).
type Cond uint8

// Write conditions.
const (
	CondNever  Cond = 0
	CondAlways Cond = 1
	CondZS     Cond = 2
	CondZC     Cond = 3
	CondNS     Cond = 4
	CondNC     Cond = 5
	CondCS     Cond = 6
	CondCC     Cond = 7
)

// BranchCond is the 4-bit branch condition, evaluated over all 16 lanes.
type BranchCond uint8

// Branch conditions. Values 12–14 are reserved.
const (
	BranchAllZS  BranchCond = 0
	BranchAllZC  BranchCond = 1
	BranchAnyZS  BranchCond = 2
	BranchAnyZC  BranchCond = 3
	BranchAllNS  BranchCond = 4
	BranchAllNC  BranchCond = 5
	BranchAnyNS  BranchCond = 6
	BranchAnyNC  BranchCond = 7
	BranchAllCS  BranchCond = 8
	BranchAllCC  BranchCond = 9
	BranchAnyCS  BranchCond = 10
	BranchAnyCC  BranchCond = 11
	BranchAlways BranchCond = 15
)

// AddOp is an add-unit opcode (6 bits).
type AddOp uint8

// Add-unit ops.
const (
	OpNOP     AddOp = 0
	OpFADD    AddOp = 1
	OpFSUB    AddOp = 2
	OpFMIN    AddOp = 3
	OpFMAX    AddOp = 4
	OpFMINABS AddOp = 5
	OpFMAXABS AddOp = 6
	OpFTOI    AddOp = 7
	OpITOF    AddOp = 8
	OpADD     AddOp = 9
	OpSUB     AddOp = 10
	OpSHR     AddOp = 11
	OpASR     AddOp = 12
	OpROR     AddOp = 13
	OpSHL     AddOp = 14
	OpMIN     AddOp = 15
	OpMAX     AddOp = 16
	OpAND     AddOp = 17
	OpOR      AddOp = 18
	OpXOR     AddOp = 19
	OpNOT     AddOp = 20
	OpCLZ     AddOp = 21
	OpFFLOOR  AddOp = 22
	OpFCEIL   AddOp = 23
	OpFTRUNC  AddOp = 24
	OpFFRACT  AddOp = 25
	OpFDX     AddOp = 26
	OpFDY     AddOp = 27
	OpFSIGN   AddOp = 28
	OpFABS    AddOp = 29
	OpFNEG    AddOp = 30

	NumAddOps = 31 // ops 31–63 are reserved
)

// MulOp is a mul-unit opcode (5 bits).
type MulOp uint8

// Mul-unit ops.
const (
	OpMulNOP  MulOp = 0
	OpFMUL    MulOp = 1
	OpMUL24   MulOp = 2
	OpMOV     MulOp = 3
	OpFMULABS MulOp = 4 // reserved for future use; hardware.md: behaves as FMUL

	NumMulOps = 5 // ops 5–31 are reserved
)

// Mux selects an ALU operand (3 bits).
type Mux uint8

// Operand muxes.
const (
	MuxR0 Mux = 0
	MuxR1 Mux = 1
	MuxR2 Mux = 2
	MuxR3 Mux = 3
	MuxR4 Mux = 4
	MuxR5 Mux = 5
	MuxA  Mux = 6 // register file A / raddr_a
	MuxB  Mux = 7 // register file B / raddr_b, or the small immediate
)

// Raddr is a 6-bit read address (raddr_a, raddr_b). 0–31 name A0–A31 or
// B0–B31; the meaning of the specials depends on the file.
type Raddr uint8

// Read addresses. Where A and B differ, the constant names which file.
const (
	RaddrUniform       Raddr = 32 // A or B
	RaddrVarying       Raddr = 35 // A or B
	RaddrElementNumber Raddr = 38 // A
	RaddrQPUNumber     Raddr = 38 // B
	RaddrNOP           Raddr = 39 // A or B: reads 0
	RaddrFragX         Raddr = 41 // A
	RaddrFragY         Raddr = 41 // B
	RaddrFragZ         Raddr = 42 // A
	RaddrFragW         Raddr = 42 // B
	RaddrFrontFacing   Raddr = 43 // A only
	RaddrPointS        Raddr = 44 // A
	RaddrPointT        Raddr = 44 // B
	RaddrVPM           Raddr = 48 // A or B

	// Compute batches (docs/hardware.md §9): each lane's invocation
	// within its workgroup and the workgroup's coordinates. Other stages
	// read 0.
	RaddrLocalIDX   Raddr = 45 // A: gl_LocalInvocationID.x of this lane
	RaddrLocalIDY   Raddr = 45 // B
	RaddrLocalIDZ   Raddr = 46 // A
	RaddrLocalIndex Raddr = 46 // B: gl_LocalInvocationIndex
	RaddrWorkgroupX Raddr = 47 // A: gl_WorkGroupID.x (same in every lane)
	RaddrWorkgroupY Raddr = 47 // B
	RaddrWorkgroupZ Raddr = 49 // A
	RaddrNumGroupsX Raddr = 49 // B: gl_NumWorkGroups.x
	RaddrNumGroupsY Raddr = 50 // A
	RaddrNumGroupsZ Raddr = 50 // B
)

// Waddr is a 6-bit write address (waddr_add, waddr_mul).
type Waddr uint8

// Write addresses. 0–31 are register-file entries (A for the add unit, B for
// the mul unit, swapped by ws). 38, 39, 47 and 51 are the compute
// batches' shared-memory and atomic ports (docs/hardware.md §9).
const (
	WaddrR0           Waddr = 32
	WaddrR1           Waddr = 33
	WaddrR2           Waddr = 34
	WaddrR3           Waddr = 35
	WaddrNOP          Waddr = 36
	WaddrACC5         Waddr = 37
	WaddrUniformsAdr  Waddr = 40
	WaddrSharedLoad   Waddr = 38 // starts a 32-bit load from workgroup shared memory (lane value: byte offset)
	WaddrSharedStore  Waddr = 39 // stores TMU_STORE_DATA to shared memory at this lane's byte offset
	WaddrTLBKill      Waddr = 41
	WaddrTLBZ         Waddr = 42
	WaddrTLBColorR    Waddr = 43
	WaddrTLBColorG    Waddr = 44
	WaddrTLBColorB    Waddr = 45
	WaddrTLBColorA    Waddr = 46
	WaddrTMUAtomic    Waddr = 47 // atomic read-modify-write (op: TMU_R lane 0) of the word at this lane's VA; the old value is queued
	WaddrVPM          Waddr = 48
	WaddrVPMRSetup    Waddr = 49
	WaddrVPMWSetup    Waddr = 50
	WaddrSharedAtomic Waddr = 51 // atomic read-modify-write (op: TMU_R lane 0) in shared memory; the old value is queued
	WaddrSFURecip     Waddr = 52
	WaddrSFURecipSqrt Waddr = 53
	WaddrSFUExp2      Waddr = 54
	WaddrSFULog2      Waddr = 55
	WaddrTMUS         Waddr = 56
	WaddrTMUT         Waddr = 57
	WaddrTMUR         Waddr = 58
	WaddrTMUB         Waddr = 59
	WaddrTMULOD       Waddr = 60
	WaddrTMUAddr      Waddr = 61
	WaddrTMUStoreData Waddr = 62
	WaddrTMUStoreAddr Waddr = 63
)

// Instr is one decoded instruction. Which fields are meaningful depends on
// Sig: ALU form (Sig ≤ SigLastTHRSW), load immediate (SigLoadImm: CondAdd,
// CondMul, SF, WS, WaddrAdd, WaddrMul, Imm) or branch (SigBranch: CondBr,
// Rel, Reg, RaddrA, WS, WaddrAdd, WaddrMul, BranchImm).
type Instr struct {
	Sig              Sig
	CondAdd, CondMul Cond
	SF               bool // set flags
	WS               bool // swap the register files written by the two units
	WaddrAdd         Waddr
	WaddrMul         Waddr
	OpAdd            AddOp
	OpMul            MulOp
	RaddrA, RaddrB   Raddr
	AddA, AddB       Mux
	MulA, MulB       Mux

	Imm uint32 // load immediate

	CondBr    BranchCond
	Rel       bool  // target is relative to the next instruction
	Reg       bool  // add lane 0 of raddr_a to the target
	BranchImm int32 // target or offset in bytes
}

// InstrBytes is the size of one instruction in memory.
const InstrBytes = 8

// IsALU reports whether i uses the ALU form (not load immediate or branch).
func (i Instr) IsALU() bool { return i.Sig != SigLoadImm && i.Sig != SigBranch }

// IsUnary reports whether the op reads only its first operand.
func (op AddOp) IsUnary() bool {
	switch op {
	case OpFTOI, OpITOF, OpNOT, OpCLZ, OpFFLOOR, OpFCEIL, OpFTRUNC, OpFFRACT,
		OpFDX, OpFDY, OpFSIGN, OpFABS, OpFNEG:
		return true
	}
	return false
}

// FloatOperands reports whether the op interprets its operands as float32.
func (op AddOp) FloatOperands() bool {
	switch op {
	case OpFADD, OpFSUB, OpFMIN, OpFMAX, OpFMINABS, OpFMAXABS, OpFTOI,
		OpFFLOOR, OpFCEIL, OpFTRUNC, OpFFRACT, OpFDX, OpFDY, OpFSIGN, OpFABS, OpFNEG:
		return true
	}
	return false
}

// FloatResult reports whether the op's result is a float32 (this decides how
// flags are computed).
func (op AddOp) FloatResult() bool {
	if op == OpFTOI {
		return false
	}
	return op == OpITOF || op.FloatOperands()
}

// IsUnary reports whether the op reads only its first operand.
func (op MulOp) IsUnary() bool { return op == OpMOV }

// FloatOperands reports whether the op interprets its operands as float32.
func (op MulOp) FloatOperands() bool { return op == OpFMUL || op == OpFMULABS }

// FloatResult reports whether the op's result is a float32. MOV is integer.
func (op MulOp) FloatResult() bool { return op.FloatOperands() }

// IsRegFile reports whether w names a register-file entry (0–31).
func (w Waddr) IsRegFile() bool { return w < 32 }

// IsSFU reports whether w is one of the SFU_* registers (result to r4).
func (w Waddr) IsSFU() bool { return w >= WaddrSFURecip && w <= WaddrSFULog2 }

// IsTMU reports whether w is one of the TMU_* registers.
func (w Waddr) IsTMU() bool { return w >= WaddrTMUS }

// IsTLB reports whether w is TLB_KILL, TLB_Z or a TLB colour register.
func (w Waddr) IsTLB() bool { return w >= WaddrTLBKill && w <= WaddrTLBColorA }

// IsAccumulator reports whether w is r0–r3 or ACC5.
func (w Waddr) IsAccumulator() bool { return w >= WaddrR0 && w <= WaddrACC5 && w != WaddrNOP }

// Valid reports whether w is a defined write address.
func (w Waddr) Valid() bool { return w < 64 }

// IsMemoryPort reports whether w starts a load, store or atomic of a
// compute batch (shared memory, TMU_ATOMIC_ADD) beyond the TMU registers.
func (w Waddr) IsMemoryPort() bool {
	return w == WaddrSharedLoad || w == WaddrSharedStore || w == WaddrTMUAtomic || w == WaddrSharedAtomic
}

// QueuesResult reports whether a write to w queues a result in the TMU
// FIFO (popped by LDTMU): a texture fetch (TMU_S, four pops), a direct
// load, a shared-memory load or an atomic (one pop each).
func (w Waddr) QueuesResult() bool {
	return w == WaddrTMUS || w == WaddrTMUAddr || w == WaddrSharedLoad || w == WaddrTMUAtomic || w == WaddrSharedAtomic
}

// ValidA reports whether r is a defined read address for file A.
func (r Raddr) ValidA() bool {
	switch {
	case r < 32:
		return true
	case r == RaddrUniform, r == RaddrVarying, r == RaddrElementNumber, r == RaddrNOP,
		r == RaddrFragX, r == RaddrFragZ, r == RaddrFrontFacing, r == RaddrPointS, r == RaddrVPM,
		r == RaddrLocalIDX, r == RaddrLocalIDZ, r == RaddrWorkgroupX, r == RaddrWorkgroupZ, r == RaddrNumGroupsY:
		return true
	}
	return false
}

// ValidB reports whether r is a defined read address for file B.
func (r Raddr) ValidB() bool { return r != RaddrFrontFacing && r.ValidA() }

// HasSideEffect reports whether reading r consumes a stream word
// (UNIFORM, VARYING, VPM).
func (r Raddr) HasSideEffect() bool {
	return r == RaddrUniform || r == RaddrVarying || r == RaddrVPM
}

// smallImms holds the 32-bit pattern of each small-immediate code 0–47.
var smallImms = func() (t [48]uint32) {
	for c := 0; c < 16; c++ {
		t[c] = uint32(c)
	}
	for c := 16; c < 32; c++ {
		t[c] = uint32(int32(c - 32))
	}
	for c := 32; c < 40; c++ {
		t[c] = math.Float32bits(float32(int(1) << (c - 32)))
	}
	for c := 40; c < 48; c++ {
		t[c] = math.Float32bits(1 / float32(int(1)<<(48-c)))
	}
	return t
}()

// NumSmallImms is the number of defined small-immediate codes (0–47).
const NumSmallImms = 48

// SmallImmediate returns the raddr_b code whose small immediate has the
// 32-bit pattern value (an integer −16..15 or one of the float powers of two
// 1/256..128), and whether one exists.
func SmallImmediate(value uint32) (code uint8, ok bool) {
	for c, v := range smallImms {
		if v == value {
			return uint8(c), true
		}
	}
	return 0, false
}

// SmallImmediateValue returns the 32-bit pattern of small-immediate code c.
func SmallImmediateValue(c uint8) (uint32, bool) {
	if int(c) >= len(smallImms) {
		return 0, false
	}
	return smallImms[c], true
}

// ReadsMux reports whether an ALU instruction reads operand mux m through a
// non-NOP op.
func (i Instr) ReadsMux(m Mux) bool {
	if !i.IsALU() {
		return false
	}
	if i.OpAdd != OpNOP && (i.AddA == m || (!i.OpAdd.IsUnary() && i.AddB == m)) {
		return true
	}
	if i.OpMul != OpMulNOP && (i.MulA == m || (!i.OpMul.IsUnary() && i.MulB == m)) {
		return true
	}
	return false
}

// ReadsR4 reports whether the instruction reads r4.
func (i Instr) ReadsR4() bool { return i.ReadsMux(MuxR4) }

// ReadsA reports whether the instruction reads raddr_a (an ALU operand
// through mux A, or the branch register).
func (i Instr) ReadsA() bool {
	if i.Sig == SigBranch {
		return i.Reg
	}
	return i.ReadsMux(MuxA)
}

// ReadsB reports whether the instruction reads raddr_b as a register or
// special (not as a small immediate).
func (i Instr) ReadsB() bool { return i.Sig != SigSmallImm && i.ReadsMux(MuxB) }

// WritesR4 reports whether the instruction puts a new value in r4 (an SFU
// write, whose result appears two instructions later, or LDTMU).
func (i Instr) WritesR4() bool {
	if i.Sig == SigLDTMU {
		return true
	}
	if !i.IsALU() {
		return false
	}
	return (i.OpAdd != OpNOP && i.WaddrAdd.IsSFU()) || (i.OpMul != OpMulNOP && i.WaddrMul.IsSFU())
}

// IsNOP reports whether i is the all-zero instruction "nop ; nop".
func (i Instr) IsNOP() bool { return i == Instr{} }
