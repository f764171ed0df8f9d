package isa

import (
	"fmt"
)

// Bit positions of the fields (docs/hardware.md §7.2).
const (
	posSig      = 60
	posCondAdd  = 57
	posCondMul  = 54
	posSF       = 53
	posWS       = 52
	posWaddrAdd = 46
	posWaddrMul = 40
	posOpMul    = 35
	posOpAdd    = 29
	posRaddrA   = 23
	posRaddrB   = 17
	posAddA     = 14
	posAddB     = 11
	posMulA     = 8
	posMulB     = 5

	posBrCond     = 56
	posBrRel      = 55
	posBrReg      = 54
	posBrRaddrA   = 48
	posBrWS       = 47
	posBrWaddrAdd = 41
	posBrWaddrMul = 35
)

const (
	reservedALU     = uint64(0x1f)       // [4:0]
	reservedLoadImm = uint64(0xff) << 32 // [39:32]
	reservedBranch  = uint64(0x7) << 32  // [34:32]
)

func field(w uint64, pos, bits uint) uint8 { return uint8(w>>pos) & uint8(1<<bits-1) }

func bit(w uint64, pos uint) bool { return w>>pos&1 != 0 }

func put(v uint8, pos, bits uint) uint64 { return uint64(v&uint8(1<<bits-1)) << pos }

func putBool(b bool, pos uint) uint64 {
	if b {
		return 1 << pos
	}
	return 0
}

// Canonical returns i with every field it does not use cleared (see the
// package doc). Encode applies it; Decode rejects words that are not canonical.
func Canonical(i Instr) Instr {
	switch i.Sig {
	case SigBranch:
		c := Instr{Sig: SigBranch, CondBr: i.CondBr, Rel: i.Rel, Reg: i.Reg,
			WaddrAdd: i.WaddrAdd, WaddrMul: i.WaddrMul, BranchImm: i.BranchImm}
		if i.Reg {
			c.RaddrA = i.RaddrA
		}
		c.WS = i.WS && (i.WaddrAdd.IsRegFile() || i.WaddrMul.IsRegFile())
		return c
	case SigLoadImm:
		c := Instr{Sig: SigLoadImm, CondAdd: i.CondAdd, CondMul: i.CondMul, SF: i.SF, Imm: i.Imm}
		if i.CondAdd != CondNever {
			c.WaddrAdd = i.WaddrAdd
		}
		if i.CondMul != CondNever {
			c.WaddrMul = i.WaddrMul
		}
		c.WS = i.WS && ((c.CondAdd != CondNever && c.WaddrAdd.IsRegFile()) ||
			(c.CondMul != CondNever && c.WaddrMul.IsRegFile()))
		return c
	}
	c := Instr{Sig: i.Sig, SF: i.SF}
	if i.OpAdd != OpNOP {
		c.OpAdd, c.CondAdd, c.WaddrAdd, c.AddA = i.OpAdd, i.CondAdd, i.WaddrAdd, i.AddA
		if !i.OpAdd.IsUnary() {
			c.AddB = i.AddB
		}
	}
	if i.OpMul != OpMulNOP {
		c.OpMul, c.CondMul, c.WaddrMul, c.MulA = i.OpMul, i.CondMul, i.WaddrMul, i.MulA
		if !i.OpMul.IsUnary() {
			c.MulB = i.MulB
		}
	}
	if c.OpAdd == OpNOP && c.OpMul == OpMulNOP {
		c.SF = false
	}
	if c.ReadsMux(MuxA) {
		c.RaddrA = i.RaddrA
	}
	if c.ReadsMux(MuxB) {
		c.RaddrB = i.RaddrB
	} else if c.Sig == SigSmallImm {
		c.Sig = SigNone
	}
	c.WS = i.WS && ((c.OpAdd != OpNOP && c.WaddrAdd.IsRegFile()) ||
		(c.OpMul != OpMulNOP && c.WaddrMul.IsRegFile()))
	return c
}

// Encode packs i into its 64-bit word. Unused fields are cleared first
// (Canonical); values wider than their field are truncated, so callers that
// build instructions from untrusted data should call Validate.
func Encode(i Instr) uint64 {
	i = Canonical(i)
	switch i.Sig {
	case SigBranch:
		return put(uint8(SigBranch), posSig, 4) | put(uint8(i.CondBr), posBrCond, 4) |
			putBool(i.Rel, posBrRel) | putBool(i.Reg, posBrReg) |
			put(uint8(i.RaddrA), posBrRaddrA, 6) | putBool(i.WS, posBrWS) |
			put(uint8(i.WaddrAdd), posBrWaddrAdd, 6) | put(uint8(i.WaddrMul), posBrWaddrMul, 6) |
			uint64(uint32(i.BranchImm))
	}
	w := put(uint8(i.Sig), posSig, 4) | put(uint8(i.CondAdd), posCondAdd, 3) |
		put(uint8(i.CondMul), posCondMul, 3) | putBool(i.SF, posSF) | putBool(i.WS, posWS) |
		put(uint8(i.WaddrAdd), posWaddrAdd, 6) | put(uint8(i.WaddrMul), posWaddrMul, 6)
	if i.Sig == SigLoadImm {
		return w | uint64(i.Imm)
	}
	return w | put(uint8(i.OpMul), posOpMul, 5) | put(uint8(i.OpAdd), posOpAdd, 6) |
		put(uint8(i.RaddrA), posRaddrA, 6) | put(uint8(i.RaddrB), posRaddrB, 6) |
		put(uint8(i.AddA), posAddA, 3) | put(uint8(i.AddB), posAddB, 3) |
		put(uint8(i.MulA), posMulA, 3) | put(uint8(i.MulB), posMulB, 3)
}

// Decode unpacks and validates a 64-bit instruction word. It fails on a
// reserved signal, op, condition, read or write address, on non-zero
// reserved bits and on non-canonical words (see the package doc).
func Decode(w uint64) (Instr, error) {
	i, err := unpack(w)
	if err == nil {
		err = i.Validate()
	}
	if err != nil {
		return Instr{}, fmt.Errorf("isa: instruction %#016x: %w", w, err)
	}
	return i, nil
}

// unpack splits w into fields, checking only the reserved bits.
func unpack(w uint64) (Instr, error) {
	sig := Sig(field(w, posSig, 4))
	if sig == SigBranch {
		if w&reservedBranch != 0 {
			return Instr{}, fmt.Errorf("branch reserved bits [34:32] are %#x", w>>32&7)
		}
		return Instr{Sig: sig, CondBr: BranchCond(field(w, posBrCond, 4)),
			Rel: bit(w, posBrRel), Reg: bit(w, posBrReg), RaddrA: Raddr(field(w, posBrRaddrA, 6)),
			WS: bit(w, posBrWS), WaddrAdd: Waddr(field(w, posBrWaddrAdd, 6)),
			WaddrMul: Waddr(field(w, posBrWaddrMul, 6)), BranchImm: int32(uint32(w))}, nil
	}
	i := Instr{Sig: sig, CondAdd: Cond(field(w, posCondAdd, 3)), CondMul: Cond(field(w, posCondMul, 3)),
		SF: bit(w, posSF), WS: bit(w, posWS),
		WaddrAdd: Waddr(field(w, posWaddrAdd, 6)), WaddrMul: Waddr(field(w, posWaddrMul, 6))}
	if sig == SigLoadImm {
		if w&reservedLoadImm != 0 {
			return Instr{}, fmt.Errorf("load-immediate reserved bits [39:32] are %#x", w>>32&0xff)
		}
		i.Imm = uint32(w)
		return i, nil
	}
	if w&reservedALU != 0 {
		return Instr{}, fmt.Errorf("reserved bits [4:0] are %#x", w&0x1f)
	}
	i.OpMul = MulOp(field(w, posOpMul, 5))
	i.OpAdd = AddOp(field(w, posOpAdd, 6))
	i.RaddrA = Raddr(field(w, posRaddrA, 6))
	i.RaddrB = Raddr(field(w, posRaddrB, 6))
	i.AddA = Mux(field(w, posAddA, 3))
	i.AddB = Mux(field(w, posAddB, 3))
	i.MulA = Mux(field(w, posMulA, 3))
	i.MulB = Mux(field(w, posMulB, 3))
	return i, nil
}

// Validate reports whether i is a valid, canonical instruction: every field
// in range and defined, every unused field zero.
func (i Instr) Validate() error {
	if err := i.checkRanges(); err != nil {
		return err
	}
	c := Canonical(i)
	if c != i {
		return fmt.Errorf("unused field %s must be zero", firstDiff(i, c))
	}
	return nil
}

func (i Instr) checkRanges() error {
	switch {
	case i.Sig > SigBarrier && i.Sig != SigLoadImm && i.Sig != SigBranch:
		return fmt.Errorf("reserved signal %d", i.Sig)
	case i.Sig == SigBranch:
		if i.CondBr > BranchAnyCC && i.CondBr != BranchAlways {
			return fmt.Errorf("reserved branch condition %d", i.CondBr)
		}
		if err := checkWaddr("link add", i.WaddrAdd); err != nil {
			return err
		}
		if err := checkWaddr("link mul", i.WaddrMul); err != nil {
			return err
		}
		if i.Reg && !i.RaddrA.ValidA() {
			return fmt.Errorf("reserved branch register raddr_a %d", i.RaddrA)
		}
		return nil
	}
	if i.CondAdd > CondCC || i.CondMul > CondCC {
		return fmt.Errorf("condition out of range (add %d, mul %d)", i.CondAdd, i.CondMul)
	}
	if i.Sig == SigLoadImm {
		if i.CondAdd != CondNever {
			if err := checkWaddr("add", i.WaddrAdd); err != nil {
				return err
			}
		}
		if i.CondMul != CondNever {
			if err := checkWaddr("mul", i.WaddrMul); err != nil {
				return err
			}
		}
		return nil
	}
	if i.OpAdd >= NumAddOps {
		return fmt.Errorf("reserved add op %d", i.OpAdd)
	}
	if i.OpMul >= NumMulOps {
		return fmt.Errorf("reserved mul op %d", i.OpMul)
	}
	if i.AddA > MuxB || i.AddB > MuxB || i.MulA > MuxB || i.MulB > MuxB {
		return fmt.Errorf("mux out of range")
	}
	if i.OpAdd != OpNOP {
		if err := checkWaddr("add", i.WaddrAdd); err != nil {
			return err
		}
	}
	if i.OpMul != OpMulNOP {
		if err := checkWaddr("mul", i.WaddrMul); err != nil {
			return err
		}
	}
	if i.OpAdd != OpNOP && i.OpMul != OpMulNOP && i.WaddrAdd == i.WaddrMul &&
		!i.WaddrAdd.IsRegFile() && i.WaddrAdd != WaddrNOP {
		return fmt.Errorf("add and mul both write %s", waddrName(i.WaddrAdd, false))
	}
	if i.ReadsMux(MuxA) && !i.RaddrA.ValidA() {
		return fmt.Errorf("reserved raddr_a %d", i.RaddrA)
	}
	if i.ReadsMux(MuxB) {
		if i.Sig == SigSmallImm {
			if i.RaddrB >= NumSmallImms {
				return fmt.Errorf("reserved small immediate %d", i.RaddrB)
			}
		} else if !i.RaddrB.ValidB() {
			return fmt.Errorf("reserved raddr_b %d", i.RaddrB)
		}
	}
	return nil
}

func checkWaddr(unit string, w Waddr) error {
	if !w.Valid() {
		return fmt.Errorf("reserved %s write address %d", unit, w)
	}
	return nil
}

// firstDiff names the first field in which a and b differ.
func firstDiff(a, b Instr) string {
	switch {
	case a.Sig != b.Sig:
		return "sig (small immediate without a B operand)"
	case a.CondAdd != b.CondAdd:
		return "cond_add"
	case a.CondMul != b.CondMul:
		return "cond_mul"
	case a.SF != b.SF:
		return "sf"
	case a.WS != b.WS:
		return "ws"
	case a.WaddrAdd != b.WaddrAdd:
		return "waddr_add"
	case a.WaddrMul != b.WaddrMul:
		return "waddr_mul"
	case a.OpAdd != b.OpAdd:
		return "op_add"
	case a.OpMul != b.OpMul:
		return "op_mul"
	case a.RaddrA != b.RaddrA:
		return "raddr_a"
	case a.RaddrB != b.RaddrB:
		return "raddr_b"
	case a.AddA != b.AddA:
		return "add_a"
	case a.AddB != b.AddB:
		return "add_b"
	case a.MulA != b.MulA:
		return "mul_a"
	case a.MulB != b.MulB:
		return "mul_b"
	}
	return "?"
}
