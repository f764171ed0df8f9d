package ir

import mbits "math/bits"

// StrengthReduce rewrites integer multiplications by a constant as shifts
// and adds where that is shorter on the QPU: its only multiplier is the
// 24-bit MUL24, so a full 32-bit product takes seven instructions
// (compiler/backend's imul), while x·2^k is one shift, x·(2^a ± 2^b) two
// shifts and an add or subtract, and x·(−2^k) a shift and a subtract. All
// are exact modulo 2^32 (OpIMul keeps the low 32 bits; two's complement
// shifts and adds wrap the same way). Shift counts of 16 and more are
// written as count−32 (shifts use the count's low five bits, hardware.md
// §7.2), which the backend encodes as a small immediate.
func StrengthReduce(f *Func) {
	strengthList(f, f.Body)
}

func strengthList(f *Func, nodes []Node) {
	for _, n := range nodes {
		switch n := n.(type) {
		case *Block:
			var out []*Instr
			for _, in := range n.Instrs {
				out = strengthInstr(f, in, out)
			}
			n.Instrs = out
		case *If:
			strengthList(f, n.Then)
			strengthList(f, n.Else)
		case *Loop:
			strengthList(f, n.Body)
		}
	}
}

// strengthInstr appends in to out, rewritten (with the instructions it
// needs placed before it) when it is a multiplication by a suitable
// constant.
func strengthInstr(f *Func, in *Instr, out []*Instr) []*Instr {
	if in.Op != OpIMul || in.Type != Int || len(in.Args) != 2 {
		return append(out, in)
	}
	x, c := in.Args[0], in.Args[1]
	if x.IsConst() {
		x, c = c, x
	}
	if !c.IsConst() || x.IsConst() {
		return append(out, in)
	}
	k := c.Const[0]
	emit := func(op Op, args ...*Instr) *Instr {
		i := f.NewInstr(op, Int, args...)
		out = append(out, i)
		return i
	}
	konst := func(v uint32) *Instr {
		i := emit(OpConst)
		i.Const[0] = v
		return i
	}
	shl := func(s int) *Instr {
		if s == 0 {
			return x
		}
		if s >= 16 {
			s -= 32
		}
		return emit(OpIShl, x, konst(uint32(int32(s))))
	}
	become := func(op Op, args ...*Instr) []*Instr {
		in.Op, in.Args = op, args
		return append(out, in)
	}
	switch {
	case k == 0:
		in.Op, in.Args, in.Const = OpConst, nil, [4]uint32{}
		return append(out, in)
	case mbits.OnesCount32(k) == 1:
		s := mbits.TrailingZeros32(k)
		if s == 0 {
			// x·1: an add of 0 keeps the instruction (CopyProp-free).
			return become(OpIAdd, x, konst(0))
		}
		if s >= 16 {
			s -= 32
		}
		return become(OpIShl, x, konst(uint32(int32(s))))
	case mbits.OnesCount32(-k) == 1:
		return become(OpISub, konst(0), shl(mbits.TrailingZeros32(-k)))
	case mbits.OnesCount32(k) == 2:
		lo := mbits.TrailingZeros32(k)
		hi := 31 - mbits.LeadingZeros32(k)
		return become(OpIAdd, shl(hi), shl(lo))
	}
	// k = 2^hi − 2^lo: the ones of k are one run from lo to hi−1.
	lo := mbits.TrailingZeros32(k)
	if run := k >> lo; run&(run+1) == 0 {
		hi := lo + mbits.OnesCount32(k)
		if hi < 32 {
			return become(OpISub, shl(hi), shl(lo))
		}
	}
	return append(out, in)
}
