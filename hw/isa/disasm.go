package isa

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

var addOpNames = [NumAddOps]string{
	"nop", "fadd", "fsub", "fmin", "fmax", "fminabs", "fmaxabs", "ftoi", "itof",
	"add", "sub", "shr", "asr", "ror", "shl", "min", "max", "and", "or", "xor",
	"not", "clz", "ffloor", "fceil", "ftrunc", "ffract", "fdx", "fdy", "fsign",
	"fabs", "fneg",
}

var mulOpNames = [NumMulOps]string{"nop", "fmul", "mul24", "mov", "fmulabs"}

var condSuffixes = [8]string{".never", "", ".ifzs", ".ifzc", ".ifns", ".ifnc", ".ifcs", ".ifcc"}

var branchSuffixes = [16]string{
	".allzs", ".allzc", ".anyzs", ".anyzc", ".allns", ".allnc", ".anyns", ".anync",
	".allcs", ".allcc", ".anycs", ".anycc", "", "", "", "",
}

var sigNames = [16]string{"", "thrsw", "end", "ldtmu", "", "lthrsw", "barrier", "", "", "", "", "", "", "", "li", "b"}

var waddrNames = [64]string{
	32: "r0", 33: "r1", 34: "r2", 35: "r3", 36: "nop", 37: "r5", 38: "shared_ld", 39: "shared_st",
	40: "unif_addr", 41: "tlb_kill", 42: "tlb_z", 43: "tlb_r", 44: "tlb_g", 45: "tlb_b", 46: "tlb_a",
	47: "tmu_atomic", 48: "vpm", 49: "vpm_rd_setup", 50: "vpm_wr_setup", 51: "shared_atomic",
	52: "sfu_recip", 53: "sfu_recipsqrt", 54: "sfu_exp2", 55: "sfu_log2",
	56: "tmu_s", 57: "tmu_t", 58: "tmu_r", 59: "tmu_b", 60: "tmu_lod", 61: "tmu_addr",
	62: "tmu_stdata", 63: "tmu_staddr",
}

var raddrNamesA = withRegs("ra", [64]string{
	32: "a.unif", 35: "a.vary", 38: "elem_num", 39: "a.nop", 41: "frag_x", 42: "frag_z",
	43: "front_facing", 44: "point_s", 45: "local_id_x", 46: "local_id_z", 47: "wg_id_x", 48: "a.vpm",
	49: "wg_id_z", 50: "num_wg_y",
})

var raddrNamesB = withRegs("rb", [64]string{
	32: "b.unif", 35: "b.vary", 38: "qpu_num", 39: "b.nop", 41: "frag_y", 42: "frag_w",
	44: "point_t", 45: "local_id_y", 46: "local_index", 47: "wg_id_y", 48: "b.vpm",
	49: "num_wg_x", 50: "num_wg_z",
})

// withRegs fills entries 0–31 of a read-address name table (it runs during
// variable initialisation, before the assembler's init builds its maps).
func withRegs(prefix string, t [64]string) [64]string {
	for r := 0; r < 32; r++ {
		t[r] = prefix + strconv.Itoa(r)
	}
	return t
}

// String returns the assembler name of the op.
func (op AddOp) String() string {
	if op < NumAddOps {
		return addOpNames[op]
	}
	return fmt.Sprintf("addop%d", uint8(op))
}

// String returns the assembler name of the op.
func (op MulOp) String() string {
	if op < NumMulOps {
		return mulOpNames[op]
	}
	return fmt.Sprintf("mulop%d", uint8(op))
}

// String returns the assembler name of the signal ("" for none).
func (s Sig) String() string {
	if s == SigSmallImm {
		return "smallimm"
	}
	if s < 16 && (s <= SigLastTHRSW || s >= SigLoadImm) {
		return sigNames[s]
	}
	return fmt.Sprintf("sig%d", uint8(s))
}

// String returns the condition's assembler suffix without the dot ("always"
// for ALWAYS).
func (c Cond) String() string {
	if c == CondAlways {
		return "always"
	}
	if c < 8 {
		return condSuffixes[c][1:]
	}
	return fmt.Sprintf("cond%d", uint8(c))
}

// String returns the branch condition's assembler suffix without the dot.
func (c BranchCond) String() string {
	if c == BranchAlways {
		return "always"
	}
	if c < 16 && branchSuffixes[c] != "" {
		return branchSuffixes[c][1:]
	}
	return fmt.Sprintf("brcond%d", uint8(c))
}

// waddrName names a write address; fileB says which file 0–31 denote.
func waddrName(w Waddr, fileB bool) string {
	if w < 32 {
		if fileB {
			return "rb" + strconv.Itoa(int(w))
		}
		return "ra" + strconv.Itoa(int(w))
	}
	if w < 64 && waddrNames[w] != "" {
		return waddrNames[w]
	}
	return fmt.Sprintf("waddr%d", uint8(w))
}

// String names the write address as the add unit sees it without ws
// (0–31 as raN).
func (w Waddr) String() string { return waddrName(w, false) }

func raddrName(r Raddr, fileB bool) string {
	if r < 64 {
		n := raddrNamesA[r]
		if fileB {
			n = raddrNamesB[r]
		}
		if n != "" {
			return n
		}
	}
	return fmt.Sprintf("raddr%d", uint8(r))
}

// SmallImmediateText is the assembler spelling of small-immediate code c:
// integers in decimal, floats with a decimal point.
func SmallImmediateText(c uint8) string {
	v, ok := SmallImmediateValue(c)
	if !ok {
		return fmt.Sprintf("smallimm%d", c)
	}
	if c < 32 {
		return strconv.Itoa(int(int32(v)))
	}
	s := strconv.FormatFloat(float64(math.Float32frombits(v)), 'f', -1, 32)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

func (i Instr) operand(m Mux) string {
	switch {
	case m <= MuxR5:
		return "r" + strconv.Itoa(int(m))
	case m == MuxA:
		return raddrName(i.RaddrA, false)
	case i.Sig == SigSmallImm:
		return SmallImmediateText(uint8(i.RaddrB))
	default:
		return raddrName(i.RaddrB, true)
	}
}

// Disasm returns the assembler text of w. A word that does not decode is
// shown as `.word 0x… // error`, which Assemble turns back into w.
func Disasm(w uint64) string {
	i, err := Decode(w)
	if err != nil {
		return fmt.Sprintf(".word %#016x // %v", w, strings.TrimPrefix(err.Error(), fmt.Sprintf("isa: instruction %#016x: ", w)))
	}
	return i.text()
}

// String returns the assembler text of the canonical form of i.
func (i Instr) String() string {
	if err := i.checkRanges(); err != nil {
		return fmt.Sprintf("<invalid: %v>", err)
	}
	return Canonical(i).text()
}

func (i Instr) text() string {
	var sb strings.Builder
	switch i.Sig {
	case SigBranch:
		sb.WriteString("b")
		if i.Rel {
			sb.WriteString("rr")
		}
		sb.WriteString(branchSuffixes[i.CondBr])
		sb.WriteByte(' ')
		if i.WaddrAdd != WaddrNOP || i.WaddrMul != WaddrNOP {
			sb.WriteString(waddrName(i.WaddrAdd, i.WS))
			sb.WriteString(", ")
			sb.WriteString(waddrName(i.WaddrMul, !i.WS))
			sb.WriteString(", ")
		}
		if i.Reg {
			sb.WriteString(raddrName(i.RaddrA, false))
		}
		switch {
		case i.Rel && i.Reg && i.BranchImm >= 0:
			sb.WriteString("+" + strconv.Itoa(int(i.BranchImm)))
		case i.Rel:
			sb.WriteString(strconv.Itoa(int(i.BranchImm)))
		default:
			if i.Reg {
				sb.WriteByte('+')
			}
			fmt.Fprintf(&sb, "%#x", uint32(i.BranchImm))
		}
		return sb.String()
	case SigLoadImm:
		addHalf := i.CondAdd != CondNever || i.CondMul == CondNever
		if addHalf {
			sb.WriteString("li")
			sb.WriteString(condSuffixes[i.CondAdd])
			if i.SF {
				sb.WriteString(".setf")
			}
			dst := waddrName(i.WaddrAdd, i.WS)
			if i.CondAdd == CondNever {
				dst = "nop"
			}
			fmt.Fprintf(&sb, " %s, %#x", dst, i.Imm)
		} else {
			sb.WriteString("nop")
		}
		if i.CondMul != CondNever {
			sb.WriteString(" ; li")
			sb.WriteString(condSuffixes[i.CondMul])
			if i.SF && !addHalf {
				sb.WriteString(".setf")
			}
			fmt.Fprintf(&sb, " %s, %#x", waddrName(i.WaddrMul, !i.WS), i.Imm)
		}
		return sb.String()
	}
	if i.OpAdd == OpNOP {
		sb.WriteString("nop")
	} else {
		sb.WriteString(addOpNames[i.OpAdd])
		sb.WriteString(condSuffixes[i.CondAdd])
		if i.SF {
			sb.WriteString(".setf")
		}
		sb.WriteByte(' ')
		sb.WriteString(waddrName(i.WaddrAdd, i.WS))
		sb.WriteString(", ")
		sb.WriteString(i.operand(i.AddA))
		if !i.OpAdd.IsUnary() {
			sb.WriteString(", ")
			sb.WriteString(i.operand(i.AddB))
		}
	}
	sb.WriteString(" ; ")
	if i.OpMul == OpMulNOP {
		sb.WriteString("nop")
	} else {
		sb.WriteString(mulOpNames[i.OpMul])
		sb.WriteString(condSuffixes[i.CondMul])
		if i.SF && i.OpAdd == OpNOP {
			sb.WriteString(".setf")
		}
		sb.WriteByte(' ')
		sb.WriteString(waddrName(i.WaddrMul, !i.WS))
		sb.WriteString(", ")
		sb.WriteString(i.operand(i.MulA))
		if !i.OpMul.IsUnary() {
			sb.WriteString(", ")
			sb.WriteString(i.operand(i.MulB))
		}
	}
	if i.Sig != SigNone && i.Sig != SigSmallImm {
		sb.WriteString(" ; ")
		sb.WriteString(sigNames[i.Sig])
	}
	return sb.String()
}

// BranchTarget returns the target of a branch at address pc when the
// register operand (if any) is zero.
func (i Instr) BranchTarget(pc uint32) uint32 {
	t := uint32(i.BranchImm)
	if i.Rel {
		t += pc + InstrBytes
	}
	return t
}

// DisasmProgram writes one line per instruction: address, word and text.
// Relative branches get their absolute target as a comment.
func DisasmProgram(w io.Writer, code []uint64, base uint32) error {
	for k, word := range code {
		pc := base + uint32(k)*InstrBytes
		text := Disasm(word)
		if i, err := Decode(word); err == nil && i.Sig == SigBranch && i.Rel {
			text += fmt.Sprintf(" // -> %#x", i.BranchTarget(pc))
			if i.Reg {
				text += " + " + raddrName(i.RaddrA, false)
			}
		}
		if _, err := fmt.Fprintf(w, "%08x: %016x  %s\n", pc, word, text); err != nil {
			return err
		}
	}
	return nil
}
