package glsl

// Constant folding of operators and constructors (GLSL ES 1.00 5.10).

func foldUnary(op Op, v Value) Value {
	out := make(Value, len(v))
	for i, s := range v {
		switch op {
		case OpNeg:
			s.F, s.I = -s.F, -s.I
		case OpNot:
			s.B = !s.B
		case OpBitNot:
			s.I = ^s.I
		}
		out[i] = s
	}
	return out
}

// component returns component c of a value of type t used as an operand
// whose other operand may be wider (a scalar broadcasts).
func component(v Value, c int) Scalar {
	if len(v) == 1 {
		return v[0]
	}
	return v[c]
}

func foldBinary(op Op, a, b, res *Type, x, y Value) Value {
	switch op {
	case OpEq, OpNotEq:
		eq := len(x) == len(y)
		for i := 0; eq && i < len(x); i++ {
			eq = x[i] == y[i]
		}
		return Value{{Kind: Bool, B: eq == (op == OpEq)}}
	case OpAnd:
		return Value{{Kind: Bool, B: x[0].B && y[0].B}}
	case OpOr:
		return Value{{Kind: Bool, B: x[0].B || y[0].B}}
	case OpXor:
		return Value{{Kind: Bool, B: x[0].B != y[0].B}}
	case OpLess, OpGreater, OpLessEq, OpGreaterEq:
		var l, r float64
		if x[0].Kind == Int {
			l, r = float64(x[0].I), float64(y[0].I)
		} else if x[0].Kind == Uint {
			l, r = float64(uint32(x[0].I)), float64(uint32(y[0].I))
		} else {
			l, r = float64(x[0].F), float64(y[0].F)
		}
		var v bool
		switch op {
		case OpLess:
			v = l < r
		case OpGreater:
			v = l > r
		case OpLessEq:
			v = l <= r
		default:
			v = l >= r
		}
		return Value{{Kind: Bool, B: v}}
	}
	if op == OpMul && (a.IsMatrix() && (b.IsMatrix() || b.IsVector()) || a.IsVector() && b.IsMatrix()) {
		return foldLinear(a, b, res, x, y)
	}
	n := res.Components()
	out := make(Value, n)
	for c := 0; c < n; c++ {
		l, r := component(x, c), component(y, c)
		s := Scalar{Kind: l.Kind}
		if l.Kind == Int || l.Kind == Uint {
			v, ok := foldInteger(op, l, r)
			if !ok {
				return nil // undefined (division by zero); left to run time
			}
			s.I = v
			out[c] = s
			continue
		}
		switch l.Kind {
		case Float:
			switch op {
			case OpAdd:
				s.F = l.F + r.F
			case OpSub:
				s.F = l.F - r.F
			case OpMul:
				s.F = l.F * r.F
			case OpDiv:
				// As the hardware divides (ir lowers x / y to x·(1/y), the
				// SFU's correctly rounded reciprocal), so that a folded
				// quotient equals the one computed at run time.
				s.F = l.F * float32(1/float64(r.F))
			}
		case Int:
			switch op {
			case OpAdd:
				s.I = l.I + r.I
			case OpSub:
				s.I = l.I - r.I
			case OpMul:
				s.I = l.I * r.I
			case OpDiv:
				if r.I == 0 {
					return nil // undefined; leave to run time
				}
				s.I = l.I / r.I
			}
		}
		out[c] = s
	}
	return out
}

// foldInteger folds one component of an int or uint operator (the
// right operand of a shift may have the other signedness). Shifts use the
// low 5 bits of the count, as the hardware does (GLSL leaves counts
// outside 0..31 undefined); / and % by zero are not folded.
func foldInteger(op Op, l, r Scalar) (int32, bool) {
	unsigned := l.Kind == Uint
	a, b := l.I, r.I
	switch op {
	case OpAdd:
		return a + b, true
	case OpSub:
		return a - b, true
	case OpMul:
		return a * b, true
	case OpDiv, OpMod:
		if b == 0 {
			return 0, false
		}
		if unsigned {
			if op == OpDiv {
				return int32(uint32(a) / uint32(b)), true
			}
			return int32(uint32(a) % uint32(b)), true
		}
		if b == -1 { // MinInt32 / −1 wraps, as at run time
			if op == OpDiv {
				return -a, true
			}
			return 0, true
		}
		if op == OpDiv {
			return a / b, true
		}
		return a % b, true
	case OpBitAnd:
		return a & b, true
	case OpBitOr:
		return a | b, true
	case OpBitXor:
		return a ^ b, true
	case OpShl:
		return a << (uint32(b) & 31), true
	case OpShr:
		if unsigned {
			return int32(uint32(a) >> (uint32(b) & 31)), true
		}
		return a >> (uint32(b) & 31), true
	}
	return 0, false
}

// foldLinear folds matrix*matrix, matrix*vector and vector*matrix; matrices
// are column-major: element (col c, row r) is at c*N+r.
func foldLinear(a, b, res *Type, x, y Value) Value {
	n := a.Size()
	if !a.IsMatrix() {
		n = b.Size()
	}
	at := func(m Value, c, r int) float32 { return m[c*n+r].F }
	out := make(Value, res.Components())
	switch {
	case a.IsMatrix() && b.IsMatrix():
		for c := 0; c < n; c++ {
			for r := 0; r < n; r++ {
				var s float32
				for k := 0; k < n; k++ {
					s += at(x, k, r) * at(y, c, k)
				}
				out[c*n+r] = Scalar{Kind: Float, F: s}
			}
		}
	case a.IsMatrix():
		for r := 0; r < n; r++ {
			var s float32
			for k := 0; k < n; k++ {
				s += at(x, k, r) * y[k].F
			}
			out[r] = Scalar{Kind: Float, F: s}
		}
	default:
		for c := 0; c < n; c++ {
			var s float32
			for k := 0; k < n; k++ {
				s += x[k].F * at(y, c, k)
			}
			out[c] = Scalar{Kind: Float, F: s}
		}
	}
	return out
}

// floatToInt converts as the hardware (and ir.FToI) does: truncation,
// saturating at the int32 range, NaN → 0. Go's int32(f) is
// implementation-defined for NaN and out-of-range values (MinInt32 on
// amd64), so a folded int(0.0/0.0) indexed out of range where the same
// expression computed at run time reads element 0.
func floatToInt(f float32) int32 {
	switch {
	case f != f:
		return 0
	case f >= 2147483647:
		return 1<<31 - 1
	case f <= -2147483648:
		return -1 << 31
	}
	return int32(f)
}

// convertScalar converts a constant component to kind k as constructors do.
func convertScalar(s Scalar, k Kind) Scalar {
	var f float32
	switch s.Kind {
	case Float:
		f = s.F
	case Int:
		f = float32(s.I)
	case Uint:
		f = float32(uint32(s.I))
	case Bool:
		if s.B {
			f = 1
		}
	}
	switch k {
	case Float:
		return Scalar{Kind: Float, F: f}
	case Int, Uint:
		// int(uint) and uint(int) keep the bits (ES 3.10 §5.4.1).
		if s.Kind == Int || s.Kind == Uint {
			return Scalar{Kind: k, I: s.I}
		}
		if s.Kind == Float && k == Uint {
			return Scalar{Kind: Uint, I: int32(ftou(f))}
		}
		return Scalar{Kind: k, I: floatToInt(f)}
	}
	if s.Kind == Int || s.Kind == Uint {
		return Scalar{Kind: Bool, B: s.I != 0}
	}
	if s.Kind == Bool {
		return s
	}
	return Scalar{Kind: Bool, B: f != 0}
}

func foldConstruct(ty *Type, args []Expr) Value {
	if ty.Kind == Struct || ty.Kind == Array {
		var out Value
		for _, a := range args {
			out = append(out, a.Value()...)
		}
		return out
	}
	k := ty.Scalar()
	n := ty.Components()
	out := make(Value, 0, n)
	if len(args) == 1 {
		a := args[0]
		v := a.Value()
		switch {
		case a.Type().IsScalar() && ty.IsMatrix():
			size := ty.Size()
			for c := 0; c < size; c++ {
				for r := 0; r < size; r++ {
					if c == r {
						out = append(out, convertScalar(v[0], k))
					} else {
						out = append(out, Scalar{Kind: Float})
					}
				}
			}
			return out
		case a.Type().IsScalar():
			for i := 0; i < n; i++ {
				out = append(out, convertScalar(v[0], k))
			}
			return out
		case a.Type().IsMatrix() && ty.IsMatrix():
			size, src := ty.Size(), a.Type().Size()
			for c := 0; c < size; c++ {
				for r := 0; r < size; r++ {
					switch {
					case c < src && r < src:
						out = append(out, v[c*src+r])
					case c == r:
						out = append(out, Scalar{Kind: Float, F: 1})
					default:
						out = append(out, Scalar{Kind: Float})
					}
				}
			}
			return out
		}
	}
	for _, a := range args {
		for _, s := range a.Value() {
			if len(out) == n {
				break
			}
			out = append(out, convertScalar(s, k))
		}
	}
	return out
}

// ftoi is the hardware's float → int (ir.FToI: truncation, saturating,
// NaN → 0); ftou is float → uint as ir lowers it: values from 2^31 up go
// through ftoi(f − 2^31) with the top bit set again. Folded conversions
// thus equal run-time ones; GLSL leaves out-of-range ones undefined.
func ftoi(f float32) int32 {
	switch {
	case f != f:
		return 0
	case f >= 2147483647:
		return 2147483647
	case f <= -2147483648:
		return -2147483648
	}
	return int32(f)
}

func ftou(f float32) uint32 {
	if f >= 2147483648 {
		return uint32(ftoi(f-2147483648)) ^ 0x80000000
	}
	return uint32(ftoi(f))
}
