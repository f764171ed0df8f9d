package backend

import (
	"fmt"
	"strings"

	"github.com/tilegpu/tilegpu/compiler/ir"
	"github.com/tilegpu/tilegpu/hw/isa"
)

// packer accumulates the shared fields of one ALU instruction.
type packer struct {
	ins          isa.Instr
	haveA, haveB bool
	streamA      bool // raddr_a is a stream read (must not be shared)
	streamB      bool
	small        bool
	wsSet        bool
}

func (pk *packer) claimA(r isa.Raddr, stream bool) bool {
	if pk.haveA {
		return pk.ins.RaddrA == r && !stream && !pk.streamA
	}
	pk.haveA, pk.ins.RaddrA, pk.streamA = true, r, stream
	return true
}

func (pk *packer) claimB(r isa.Raddr, stream, small bool) bool {
	if pk.haveB {
		return pk.ins.RaddrB == r && pk.small == small && !stream && !pk.streamB
	}
	pk.haveB, pk.ins.RaddrB, pk.streamB, pk.small = true, r, stream, small
	return true
}

// preclaim reserves raddr_a/raddr_b for every operand read: register-file
// entries, small immediates and single-file specials first, then specials
// readable from either file. A stream read (UNIFORM, VARYING, VPM) is
// never shared between two operands.
func (pk *packer) preclaim(ops []Reg) bool {
	var either []Reg
	var streams uint32
	for _, r := range ops {
		if r.File == FileSpecial && specialInfo[r.Index].stream {
			// Two reads of one stream in an instruction would take two
			// consecutive words (A first); the uniform stream order is
			// built per instruction, so allow one per stream.
			if streams&(1<<r.Index) != 0 {
				return false
			}
			streams |= 1 << r.Index
		}
		switch r.File {
		case FileA:
			if !pk.claimA(isa.Raddr(r.Index), false) {
				return false
			}
		case FileB:
			if !pk.claimB(isa.Raddr(r.Index), false, false) {
				return false
			}
		case FileSmallImm:
			if !pk.claimB(isa.Raddr(r.Index), false, true) {
				return false
			}
		case FileSpecial:
			si := specialInfo[r.Index]
			switch {
			case si.a && si.b:
				either = append(either, r)
			case si.a:
				if !pk.claimA(si.raddr, si.stream) {
					return false
				}
			default:
				if !pk.claimB(si.raddr, si.stream, false) {
					return false
				}
			}
		}
	}
	for _, r := range either {
		si := specialInfo[r.Index]
		if !pk.claimA(si.raddr, si.stream) && !pk.claimB(si.raddr, si.stream, false) {
			return false
		}
	}
	return true
}

// mux returns the operand mux for r, whose raddr preclaim reserved.
func (pk *packer) mux(r Reg) (isa.Mux, bool) {
	switch r.File {
	case FileAcc:
		return isa.Mux(r.Index), r.Index <= 5
	case FileA:
		return isa.MuxA, pk.haveA && pk.ins.RaddrA == isa.Raddr(r.Index) && !pk.streamA
	case FileB:
		return isa.MuxB, pk.haveB && pk.ins.RaddrB == isa.Raddr(r.Index) && !pk.small && !pk.streamB
	case FileSmallImm:
		return isa.MuxB, pk.haveB && pk.ins.RaddrB == isa.Raddr(r.Index) && pk.small
	case FileSpecial:
		si := specialInfo[r.Index]
		if si.a && pk.haveA && pk.ins.RaddrA == si.raddr && pk.streamA == si.stream {
			return isa.MuxA, true
		}
		if si.b && pk.haveB && pk.ins.RaddrB == si.raddr && pk.streamB == si.stream && !pk.small {
			return isa.MuxB, true
		}
	}
	return 0, false
}

// dest returns the write address for r written by the add (mul=false) or
// mul unit, fixing ws when r is a register-file entry.
func (pk *packer) dest(r Reg, mul bool) (isa.Waddr, bool) {
	switch r.File {
	case FileAcc:
		switch {
		case r.Index <= 3:
			return isa.WaddrR0 + isa.Waddr(r.Index), true
		case r.Index == 5:
			return isa.WaddrACC5, true
		}
		return 0, false
	case FileMagic:
		return isa.Waddr(r.Index), true
	case FileA, FileB:
		// Add writes A and mul writes B unless ws swaps both.
		ws := (r.File == FileB) != mul
		if pk.wsSet && pk.ins.WS != ws {
			return 0, false
		}
		pk.wsSet, pk.ins.WS = true, ws
		return isa.Waddr(r.Index), true
	case FileNone:
		return isa.WaddrNOP, true
	}
	return 0, false
}

// tlbValue reports whether r is TLB_Z or a TLB colour register.
func tlbValue(r Reg) bool {
	return r.File == FileMagic && isa.Waddr(r.Index) >= isa.WaddrTLBZ && isa.Waddr(r.Index) <= isa.WaddrTLBColorA
}

func sideEffectWrite(r Reg) bool {
	return r.File == FileMagic && isa.Waddr(r.Index) != isa.WaddrNOP
}

// pack encodes a bundle, reporting false if its parts do not fit one
// instruction.
func pack(b *Bundle) (isa.Instr, bool) {
	if b.Other != nil {
		if b.Add != nil || b.Mul != nil || b.Sig != nil || b.End {
			return isa.Instr{}, false
		}
		return packOther(b.Other)
	}
	pk := &packer{}
	ins := &pk.ins
	ins.WaddrAdd, ins.WaddrMul = isa.WaddrNOP, isa.WaddrNOP
	// Claim the raddrs of operands tied to one file first, so that a
	// special readable from either file takes whichever is left.
	var opsBuf [4]Reg // two ALU ops, two reads each: no allocation per bundle tried
	ops := opsBuf[:0]
	for _, in := range [2]*Inst{b.Add, b.Mul} {
		if in != nil {
			ops = append(ops, in.Reads()...)
		}
	}
	if !pk.preclaim(ops) {
		return isa.Instr{}, false
	}
	if b.Add != nil && b.Mul != nil {
		if sideEffectWrite(b.Add.Dst) && sideEffectWrite(b.Mul.Dst) && !(tlbValue(b.Add.Dst) && tlbValue(b.Mul.Dst)) {
			// Stream, TMU and SFU writes are ordered; two different TLB
			// colour/depth registers may be written together.
			return isa.Instr{}, false
		}
		if b.Add.Dst == b.Mul.Dst && b.Add.Dst.File != FileMagic {
			return isa.Instr{}, false
		}
		if b.Mul.SF {
			return isa.Instr{}, false // flags would come from the add op
		}
	}
	if in := b.Add; in != nil {
		switch {
		case in.Op == OpMov:
			ins.OpAdd = isa.OpOR
		case in.Op.isAdd():
			ins.OpAdd = isa.AddOp(in.Op)
		default:
			return isa.Instr{}, false
		}
		var ok bool
		if ins.AddA, ok = pk.mux(in.Src[0]); !ok {
			return isa.Instr{}, false
		}
		if in.Op == OpMov {
			ins.AddB = ins.AddA
		} else if !in.Op.unary() {
			if ins.AddB, ok = pk.mux(in.Src[1]); !ok {
				return isa.Instr{}, false
			}
		}
		if ins.WaddrAdd, ok = pk.dest(in.Dst, false); !ok {
			return isa.Instr{}, false
		}
		ins.CondAdd = in.Cond
		ins.SF = ins.SF || in.SF
	}
	if in := b.Mul; in != nil {
		switch {
		case in.Op == OpMov:
			ins.OpMul = isa.OpMOV
		case in.Op.isMul():
			ins.OpMul = isa.MulOp(in.Op - mulBase)
		default:
			return isa.Instr{}, false
		}
		var ok bool
		if ins.MulA, ok = pk.mux(in.Src[0]); !ok {
			return isa.Instr{}, false
		}
		if !in.Op.unary() {
			if ins.MulB, ok = pk.mux(in.Src[1]); !ok {
				return isa.Instr{}, false
			}
		}
		if ins.WaddrMul, ok = pk.dest(in.Dst, true); !ok {
			return isa.Instr{}, false
		}
		ins.CondMul = in.Cond
		ins.SF = ins.SF || in.SF
	}
	sigs := 0
	if pk.small {
		ins.Sig = isa.SigSmallImm
		sigs++
	}
	if b.Sig != nil {
		switch {
		case b.Sig.Op == OpLdTMU:
			ins.Sig = isa.SigLDTMU
		case b.Sig.Op == OpBarrier:
			ins.Sig = isa.SigBarrier
		case b.Sig.lastThrsw:
			ins.Sig = isa.SigLastTHRSW
		default:
			ins.Sig = isa.SigTHRSW
		}
		sigs++
	}
	if b.End {
		ins.Sig = isa.SigEND
		sigs++
	}
	if sigs > 1 {
		return isa.Instr{}, false
	}
	return *ins, true
}

func packOther(in *Inst) (isa.Instr, bool) {
	switch in.Op {
	case OpLoadImm:
		ins := isa.Instr{Sig: isa.SigLoadImm, Imm: in.Imm, SF: in.SF,
			WaddrAdd: isa.WaddrNOP, WaddrMul: isa.WaddrNOP}
		switch in.Dst.File {
		case FileB:
			ins.WaddrMul, ins.CondMul = isa.Waddr(in.Dst.Index), in.Cond
		default:
			pk := &packer{}
			w, ok := pk.dest(in.Dst, false)
			if !ok {
				return isa.Instr{}, false
			}
			ins.WaddrAdd, ins.CondAdd = w, in.Cond
		}
		return ins, true
	case OpBranch:
		return isa.Instr{Sig: isa.SigBranch, CondBr: in.BrCond, Rel: true,
			WaddrAdd: isa.WaddrNOP, WaddrMul: isa.WaddrNOP}, true
	}
	return isa.Instr{}, false
}

// Encode turns a scheduled program into machine words, resolving branch
// targets and building the uniform stream in final code order.
func Encode(p *Program, s *Scheduled) ([]uint64, []ir.UniformEntry, error) {
	start := make([]int, len(s.Blocks)+1)
	n := 0
	for i, bs := range s.Blocks {
		start[i] = n
		n += len(bs)
	}
	start[len(s.Blocks)] = n
	// Uniform stream order = order of the consuming instructions.
	pos := make([]int, len(p.UniformTable))
	for i := range pos {
		pos[i] = -1
	}
	var stream []ir.UniformEntry
	for _, bs := range s.Blocks {
		for _, b := range bs {
			for _, in := range b.insts() {
				if in.Uniform >= 0 {
					if pos[in.Uniform] >= 0 {
						return nil, nil, fmt.Errorf("backend: BUG: uniform entry %d consumed twice", in.Uniform)
					}
					pos[in.Uniform] = len(stream)
					stream = append(stream, p.UniformTable[in.Uniform])
				}
			}
		}
	}
	code := make([]uint64, 0, n)
	for bi, bs := range s.Blocks {
		for k, b := range bs {
			if b.Other != nil && b.Other.Op == OpLoadImm && b.Other.ImmUniformPos >= 0 {
				u := pos[b.Other.ImmUniformPos]
				if u < 0 {
					return nil, nil, fmt.Errorf("backend: BUG: uniform entry %d never read", b.Other.ImmUniformPos)
				}
				b.Other.Imm = uint32(4 * u)
			}
			ins, ok := pack(b)
			if !ok {
				return nil, nil, fmt.Errorf("backend: BUG: block %d instruction %d does not encode: %s", bi, k, b)
			}
			if ins.Sig == isa.SigBranch {
				pc := start[bi] + k
				target := start[b.Other.Target.ID]
				ins.BranchImm = int32((target - (pc + 1)) * isa.InstrBytes)
			}
			code = append(code, isa.Encode(ins))
		}
	}
	return code, stream, nil
}

func (b *Bundle) String() string {
	var parts []string
	for _, in := range b.insts() {
		parts = append(parts, in.String())
	}
	if b.End {
		parts = append(parts, "end")
	}
	if len(parts) == 0 {
		return "nop"
	}
	return strings.Join(parts, " ; ")
}
