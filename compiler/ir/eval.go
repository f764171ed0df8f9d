package ir

import "math"

// evalScalar computes one component of a componentwise pure op from the bit
// patterns of its operands. It defines the arithmetic of the IR, which is the
// hardware's (hardware.md §7.2): FTOI saturates and maps NaN to 0, shifts
// use the low 5 bits, RCP/RSQ are correctly rounded, EXP2/LOG2 follow Go's
// math package on float32 inputs, FMIN/FMAX are IEEE 754-2008
// minNum/maxNum (FMin, FMax). ok is false for ops it does not handle.
func evalScalar(op Op, a, b, c uint32) (r uint32, ok bool) {
	fa, fb := math.Float32frombits(a), math.Float32frombits(b)
	f := func(x float32) (uint32, bool) { return math.Float32bits(x), true }
	i := func(x int32) (uint32, bool) { return uint32(x), true }
	bl := func(x bool) (uint32, bool) { return BoolBits(x), true }
	switch op {
	case OpFAdd:
		return f(fa + fb)
	case OpFSub:
		return f(fa - fb)
	case OpFMul:
		return f(fa * fb)
	case OpFMin:
		return f(FMin(fa, fb))
	case OpFMax:
		return f(FMax(fa, fb))
	case OpFAbs:
		return a &^ 0x80000000, true
	case OpFNeg:
		return a ^ 0x80000000, true
	case OpFFloor:
		return f(float32(math.Floor(float64(fa))))
	case OpFCeil:
		return f(float32(math.Ceil(float64(fa))))
	case OpFTrunc:
		return f(float32(math.Trunc(float64(fa))))
	case OpFFract:
		return f(fa - float32(math.Floor(float64(fa))))
	case OpFSign:
		switch {
		case fa > 0:
			return f(1)
		case fa < 0:
			return f(-1)
		}
		return f(0)
	case OpFToI:
		return i(FToI(fa))
	case OpIToF:
		return f(float32(int32(a)))
	case OpRcp:
		return f(float32(1 / float64(fa)))
	case OpRsq:
		return f(float32(1 / math.Sqrt(float64(fa))))
	case OpExp2:
		return f(float32(math.Exp2(float64(fa))))
	case OpLog2:
		return f(float32(math.Log2(float64(fa))))
	case OpIAdd:
		return a + b, true
	case OpISub:
		return a - b, true
	case OpIMul:
		return a * b, true
	case OpIShl:
		return a << (b & 31), true
	case OpIShr:
		return uint32(int32(a) >> (b & 31)), true
	case OpUShr:
		return a >> (b & 31), true
	case OpIAnd, OpBAnd:
		return a & b, true
	case OpIOr, OpBOr:
		return a | b, true
	case OpIXor, OpBXor:
		return a ^ b, true
	case OpINot:
		return ^a, true
	case OpBNot:
		return a ^ 1, true
	case OpIMin:
		return i(min(int32(a), int32(b)))
	case OpIMax:
		return i(max(int32(a), int32(b)))
	case OpFLt:
		return bl(fa < fb)
	case OpFGe:
		return bl(fa >= fb)
	case OpFEq:
		return bl(fa == fb)
	case OpFNe:
		return bl(fa != fb)
	case OpILt:
		return bl(int32(a) < int32(b))
	case OpIGe:
		return bl(int32(a) >= int32(b))
	case OpIEq:
		return bl(a == b)
	case OpINe:
		return bl(a != b)
	case OpBitcast: // the bits stay; only the type changes
		return a, true
	case OpSelect:
		if a != 0 {
			return b, true
		}
		return c, true
	}
	return 0, false
}

// FMin is the hardware's FMIN, IEEE 754-2008 minNum (hardware.md §7.2):
// when exactly one operand is NaN the result is the other operand, and −0
// orders below +0 (min(+0, −0) = min(−0, +0) = −0).
func FMin(a, b float32) float32 {
	switch {
	case a < b:
		return a
	case b < a:
		return b
	case a != a:
		return b
	case b != b:
		return a
	}
	// Equal: identical bits, or +0 and −0, where −0 (sign bit set) wins.
	return math.Float32frombits(math.Float32bits(a) | math.Float32bits(b))
}

// FMax is the hardware's FMAX, IEEE 754-2008 maxNum: a single NaN operand
// yields the other operand, and +0 orders above −0.
func FMax(a, b float32) float32 {
	switch {
	case a > b:
		return a
	case b > a:
		return b
	case a != a:
		return b
	case b != b:
		return a
	}
	return math.Float32frombits(math.Float32bits(a) & math.Float32bits(b))
}

// FToI is the hardware's float → int conversion: truncation, saturating at
// the int32 range, NaN → 0.
func FToI(x float32) int32 {
	switch {
	case x != x:
		return 0
	case x >= 2147483647:
		return math.MaxInt32
	case x <= -2147483648:
		return math.MinInt32
	}
	return int32(x)
}

// isComponentwise reports ops evalScalar computes per component.
func isComponentwise(op Op) bool {
	_, ok := evalScalar(op, 0, 0, 0)
	return ok
}
