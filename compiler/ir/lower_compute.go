package ir

import (
	mathbits "math/bits"

	"github.com/tilegpu/tilegpu/compiler/glsl"
)

// Lowering of the GLSL ES 3.10 compute subset: uint arithmetic, the bit
// and shift operators, buffer and shared variables as memory operations,
// the compute built-in variables and functions.
//
// uint values are i32 bits in the IR. Their add, sub, mul, bit operations,
// shifts left and equality are the int ops; what differs is lowered here
// to existing ops, so the backend needs nothing new for them:
// comparisons flip the sign bit and compare signed; >> is ushr; / and %
// go through the exact signed division of int (idiv) on halved operands;
// conversions to and from float split off the top bit.
//
// Buffer and shared variables are not SSA values: every read is a load and
// every write a store at the byte offset of the block's layout (std430 or
// std140; shared variables std430) the front end computed,
// in program order (loads are not pure, so no pass moves them across a
// store or a barrier).

func isMemory(v *glsl.Variable) bool {
	return v != nil && (v.Storage == glsl.StorageShared || v.Storage == glsl.StorageBuffer)
}

// computeInfo is Func.Compute of a compute translation unit.
func computeInfo(tu *glsl.TranslationUnit) *ComputeInfo {
	c := &ComputeInfo{LocalSize: tu.LocalSize, SharedSize: (tu.SharedSize + 3) &^ 3}
	for i := range c.LocalSize {
		c.LocalSize[i] = max(c.LocalSize[i], 1)
	}
	for _, b := range tu.Buffers {
		c.Buffers = append(c.Buffers, BufferBinding{Binding: b.Binding, Name: b.Name, FixedSize: b.FixedSize, Stride: b.Stride})
	}
	return c
}

// ---- memory ----------------------------------------------------------------

// memRef addresses a value of type t in a buffer or in shared memory: the
// byte offset is dyn (if not nil) + off.
type memRef struct {
	shared  bool
	binding int
	layout  glsl.BlockLayout // the block's rules (shared memory: std430)
	dyn     *Instr
	off     int
	t       *glsl.Type
}

func (l *lowerer) memRoot(v *glsl.Variable) memRef {
	if v.Storage == glsl.StorageShared {
		return memRef{shared: true, off: v.Offset, t: v.Type}
	}
	r := memRef{binding: v.Block.Binding, layout: v.Block.Layout, t: v.Type}
	if v.Member >= 0 {
		r.off = v.Offset
	}
	return r
}

// memSteps follows field and index steps as address arithmetic and
// returns the steps it leaves (from the first swizzle on) to apply to the
// loaded value.
func (l *lowerer) memSteps(r memRef, steps []step) (memRef, []step) {
	for i, s := range steps {
		t := r.t
		if s.kind == stepSwizzle {
			return r, steps[i:]
		}
		if s.kind == stepField {
			r.off += r.layout.Offsets(t.Struct)[s.field]
			r.t = s.typ
			continue
		}
		stride := 4 // a vector's component
		switch {
		case t.Kind == glsl.Array:
			stride = r.layout.Stride(t.Elem)
		case t.IsMatrix():
			stride = r.layout.MatrixStride(t)
		}
		if s.dyn != nil {
			o := l.emit(OpIMul, Int, s.dyn, l.b.ConstI(int32(stride)))
			if r.dyn == nil {
				r.dyn = o
			} else {
				r.dyn = l.emit(OpIAdd, Int, r.dyn, o)
			}
		} else {
			r.off += s.index * stride
		}
		r.t = s.typ
	}
	return r, nil
}

func (l *lowerer) memAddr(r memRef, extra int) *Instr {
	c := l.b.ConstI(int32(r.off + extra))
	if r.dyn == nil {
		return c
	}
	return l.emit(OpIAdd, Int, r.dyn, c)
}

// memLeaf is one leaf of a value in memory: an IR leaf type at a byte
// offset; its components are 4 bytes apart.
type memLeaf struct {
	off int
	t   Type
}

// memLeaves lists t's leaves in flattening order (as leafTypes) with their
// offsets from off by layout l. A runtime-sized array has none.
func memLeaves(l glsl.BlockLayout, t *glsl.Type, off int, out []memLeaf) []memLeaf {
	switch {
	case t.Kind == glsl.Array:
		stride := l.Stride(t.Elem)
		for i := 0; i < t.Len; i++ {
			out = memLeaves(l, t.Elem, off+i*stride, out)
		}
	case t.Kind == glsl.Struct:
		offs := l.Offsets(t.Struct)
		for i, f := range t.Struct.Fields {
			out = memLeaves(l, f.Type, off+offs[i], out)
		}
	case t.IsMatrix():
		for c := 0; c < t.Size(); c++ {
			out = append(out, memLeaf{off + c*l.MatrixStride(t), Vec(BaseFloat, t.Size())})
		}
	case t.IsScalar() || t.IsVector():
		out = append(out, memLeaf{off, irType(t)})
	}
	return out
}

func (l *lowerer) memLoadWord(r memRef, extra int, b Base) *Instr {
	t := Int
	if b == BaseFloat {
		t = Float
	}
	var in *Instr
	if r.shared {
		in = l.emit(OpLoadShared, t, l.memAddr(r, extra))
	} else {
		in = l.b.EmitIndex(OpLoadBuffer, t, r.binding, l.memAddr(r, extra))
	}
	if b == BaseBool { // a bool in memory is a 32-bit word, true when non-zero
		in = l.emit(OpINe, Bool, in, l.b.ConstI(0))
	}
	return in
}

func (l *lowerer) memStoreWord(r memRef, extra int, x *Instr) {
	if x.Type.Base == BaseBool {
		x = l.emit(OpSelect, Int, x, l.b.ConstI(1), l.b.ConstI(0))
	}
	if r.shared {
		l.emit(OpStoreShared, Void, l.memAddr(r, extra), x)
	} else {
		l.b.EmitIndex(OpStoreBuffer, Void, r.binding, l.memAddr(r, extra), x)
	}
}

// memLoad loads the whole value r addresses.
func (l *lowerer) memLoad(r memRef) value {
	var out value
	for _, lf := range memLeaves(r.layout, r.t, 0, nil) {
		cs := make([]*Instr, lf.t.Width)
		for k := range cs {
			cs[k] = l.memLoadWord(r, lf.off+4*k, lf.t.Base)
		}
		out = append(out, leaf{x: l.vec(cs)})
	}
	return out
}

// memStore stores v, a value of r's type.
func (l *lowerer) memStore(r memRef, v value) {
	for i, lf := range memLeaves(r.layout, r.t, 0, nil) {
		for k, c := range l.comps(v[i].x) {
			l.memStoreWord(r, lf.off+4*k, c)
		}
	}
}

// memStoreLV stores nv into the memory l-value lv. A swizzle writes only
// its components, so that invocations writing different components of
// one vector do not overwrite each other's.
func (l *lowerer) memStoreLV(lv lvalue, nv value) {
	r, rest := l.memSteps(l.memRoot(lv.root), lv.steps)
	switch {
	case len(rest) == 0:
		l.memStore(r, nv)
	case len(rest) == 1 && rest[0].kind == stepSwizzle:
		x := nv[0].x
		for i, c := range rest[0].comps {
			l.memStoreWord(r, 4*c, l.extract(x, i))
		}
	default: // a component of a swizzle: read, modify, write the vector
		l.memStore(r, l.updateSteps(l.memLoad(r), r.t, rest, nv))
	}
}

// ---- built-in variables ----------------------------------------------------

func computeBuiltin(name string) bool {
	switch name {
	case "gl_NumWorkGroups", "gl_WorkGroupID", "gl_LocalInvocationID", "gl_GlobalInvocationID",
		"gl_LocalInvocationIndex", "gl_WorkGroupSize":
		return true
	}
	return false
}

func (l *lowerer) computeIdent(v *glsl.Variable) value {
	size := l.main.Compute.LocalSize
	xyz := func(op Op) [3]*Instr {
		var c [3]*Instr
		for i := range c {
			c[i] = l.b.EmitIndex(op, Int, i)
		}
		return c
	}
	vec3 := func(c [3]*Instr) value { return single(l.vec(c[:])) }
	switch v.Name {
	case "gl_NumWorkGroups":
		return vec3(xyz(OpNumWorkGroups))
	case "gl_WorkGroupID":
		return vec3(xyz(OpWorkGroupID))
	case "gl_LocalInvocationID":
		return vec3(xyz(OpLocalInvocationID))
	case "gl_GlobalInvocationID":
		wg, lid := xyz(OpWorkGroupID), xyz(OpLocalInvocationID)
		var c [3]*Instr
		for i := range c {
			c[i] = l.emit(OpIAdd, Int, l.emit(OpIMul, Int, wg[i], l.b.ConstI(int32(size[i]))), lid[i])
		}
		return vec3(c)
	case "gl_LocalInvocationIndex":
		lid := xyz(OpLocalInvocationID)
		idx := l.emit(OpIMul, Int, lid[2], l.b.ConstI(int32(size[0]*size[1])))
		idx = l.emit(OpIAdd, Int, idx, l.emit(OpIMul, Int, lid[1], l.b.ConstI(int32(size[0]))))
		return single(l.emit(OpIAdd, Int, idx, lid[0]))
	}
	// gl_WorkGroupSize
	return single(l.b.Const(Vec(BaseInt, 3), uint32(size[0]), uint32(size[1]), uint32(size[2])))
}

// ---- operators ---------------------------------------------------------------

var signBit = uint32(0x80000000)

// ult and uge compare uint bits: flipping the sign bit maps unsigned order
// onto signed order.
func (l *lowerer) ult(a, b *Instr) *Instr {
	f := l.b.Const(a.Type, signBit)
	return l.emit(OpILt, Vec(BaseBool, int(a.Type.Width)), l.emit(OpIXor, a.Type, a, f), l.emit(OpIXor, a.Type, b, f))
}

func (l *lowerer) uge(a, b *Instr) *Instr {
	f := l.b.Const(a.Type, signBit)
	return l.emit(OpIGe, Vec(BaseBool, int(a.Type.Width)), l.emit(OpIXor, a.Type, a, f), l.emit(OpIXor, a.Type, b, f))
}

// udivmod divides uint bits exactly: q = x / y, r = x % y (y == 0 gives
// an unspecified value, as GLSL leaves it). For y ≥ 2^31 the quotient is
// 0 or 1. Otherwise x>>1 and y are both below 2^31, where idiv is exact:
// q1 = (x>>1)/y, and the remainder 2·((x>>1) − q1·y) + (x&1) < 2y adds
// one more unit when it is ≥ y.
func (l *lowerer) udivmod(x, y *Instr) (q, r *Instr) {
	t := x.Type
	c := func(v uint32) *Instr { return l.b.Const(t, v) }
	one, zero := c(1), c(0)
	// y ≥ 2^31
	bigGe := l.uge(x, y)
	qBig := l.emit(OpSelect, t, bigGe, one, zero)
	rBig := l.emit(OpISub, t, x, l.emit(OpSelect, t, bigGe, y, zero))
	// y < 2^31
	xh := l.emit(OpUShr, t, x, one)
	q1 := l.idiv(xh, y)
	r1 := l.emit(OpISub, t, xh, l.emit(OpIMul, t, q1, y))
	r2 := l.emit(OpIOr, t, l.emit(OpIShl, t, r1, one), l.emit(OpIAnd, t, x, one))
	ge := l.uge(r2, y)
	qSmall := l.emit(OpIAdd, t, l.emit(OpIShl, t, q1, one), l.emit(OpSelect, t, ge, one, zero))
	rSmall := l.emit(OpISub, t, r2, l.emit(OpSelect, t, ge, y, zero))
	big := l.emit(OpILt, Vec(BaseBool, int(t.Width)), y, zero)
	return l.emit(OpSelect, t, big, qBig, qSmall), l.emit(OpSelect, t, big, rBig, rSmall)
}

// imod is x − (x/y)·y with idiv's truncating quotient (GLSL ES 3.10 leaves
// % of negative operands undefined).
func (l *lowerer) imod(x, y *Instr) *Instr {
	return l.emit(OpISub, x.Type, x, l.emit(OpIMul, x.Type, l.idiv(x, y), y))
}

// utof converts uint bits to float with one rounding: values from 2^31 up
// are halved first, keeping the lost bit as a sticky bit.
func (l *lowerer) utof(x *Instr) *Instr {
	t := x.Type
	ft := Vec(BaseFloat, int(t.Width))
	one := l.b.Const(t, 1)
	half := l.emit(OpIOr, t, l.emit(OpUShr, t, x, one), l.emit(OpIAnd, t, x, one))
	big := l.emit(OpIToF, ft, half)
	big = l.emit(OpFAdd, ft, big, big)
	top := l.emit(OpILt, Vec(BaseBool, int(t.Width)), x, l.b.Const(t, 0))
	return l.emit(OpSelect, ft, top, big, l.emit(OpIToF, ft, x))
}

// ftou converts float to uint bits: from 2^31 up through ftoi(x − 2^31)
// with the top bit set again (glsl's constant folding does the same).
func (l *lowerer) ftou(x *Instr) *Instr {
	ft := x.Type
	t := Vec(BaseInt, int(ft.Width))
	two31 := l.b.Const(ft, FloatBits(2147483648))
	big := l.emit(OpFGe, Vec(BaseBool, int(ft.Width)), x, two31)
	hi := l.emit(OpIXor, t, l.emit(OpFToI, t, l.emit(OpFSub, ft, x, two31)), l.b.Const(t, signBit))
	return l.emit(OpSelect, t, big, hi, l.emit(OpFToI, t, x))
}

// convertKind converts a scalar or vector from glsl kind from to kind to.
func (l *lowerer) convertKind(x *Instr, from, to glsl.Kind) *Instr {
	switch {
	case from == to, from == glsl.Int && to == glsl.Uint, from == glsl.Uint && to == glsl.Int:
		return x // the bits stay (ES 3.10 §5.4.1)
	case from == glsl.Uint && to == glsl.Float:
		return l.utof(x)
	case from == glsl.Float && to == glsl.Uint:
		return l.ftou(x)
	}
	return l.convert(x, baseOf(to))
}

func compoundOp(op glsl.Op) glsl.Op {
	switch op {
	case glsl.OpAddAssign:
		return glsl.OpAdd
	case glsl.OpSubAssign:
		return glsl.OpSub
	case glsl.OpMulAssign:
		return glsl.OpMul
	case glsl.OpDivAssign:
		return glsl.OpDiv
	case glsl.OpModAssign:
		return glsl.OpMod
	case glsl.OpAndAssign:
		return glsl.OpBitAnd
	case glsl.OpOrAssign:
		return glsl.OpBitOr
	case glsl.OpXorAssign:
		return glsl.OpBitXor
	case glsl.OpShlAssign:
		return glsl.OpShl
	case glsl.OpShrAssign:
		return glsl.OpShr
	}
	return glsl.OpNone
}

// computeBinary lowers the operators whose meaning differs for uint or
// that exist only in ES 3.10.
func (l *lowerer) computeBinary(e *glsl.Binary) (value, bool) {
	xt := e.X.Type()
	switch e.Op {
	case glsl.OpMod, glsl.OpBitAnd, glsl.OpBitOr, glsl.OpBitXor, glsl.OpShl, glsl.OpShr:
	case glsl.OpAdd, glsl.OpSub, glsl.OpMul, glsl.OpDiv:
		if xt.Scalar() != glsl.Uint {
			return nil, false
		}
	case glsl.OpLess, glsl.OpGreater, glsl.OpLessEq, glsl.OpGreaterEq:
		if xt.Scalar() != glsl.Uint {
			return nil, false
		}
		a, b := l.expr1(e.X), l.expr1(e.Y)
		switch e.Op {
		case glsl.OpLess:
			return single(l.ult(a, b)), true
		case glsl.OpGreater:
			return single(l.ult(b, a)), true
		case glsl.OpLessEq:
			return single(l.uge(b, a)), true
		}
		return single(l.uge(a, b)), true
	default:
		return nil, false
	}
	return l.integerArith(e.Op, l.expr(e.X), xt, l.expr(e.Y), e.Y.Type()), true
}

// integerArith lowers an arithmetic, bit or shift operator on int or uint
// scalars and vectors (a scalar operand applies to every component).
func (l *lowerer) integerArith(op glsl.Op, a value, at *glsl.Type, b value, bt *glsl.Type) value {
	if at.Scalar() == glsl.Float || at.IsMatrix() {
		return l.arith(op, a, at, b, bt)
	}
	x, y := l.match(a[0].x, b[0].x)
	t := x.Type
	unsigned := at.Scalar() == glsl.Uint
	switch op {
	case glsl.OpAdd:
		return single(l.emit(OpIAdd, t, x, y))
	case glsl.OpSub:
		return single(l.emit(OpISub, t, x, y))
	case glsl.OpMul:
		return single(l.emit(OpIMul, t, x, y))
	case glsl.OpDiv:
		if k, ok := powerOfTwo(y); ok && unsigned {
			return single(l.emit(OpUShr, t, x, l.b.Const(t, uint32(k))))
		}
		if unsigned {
			q, _ := l.udivmod(x, y)
			return single(q)
		}
		return single(l.idiv(x, y))
	case glsl.OpMod:
		if k, ok := powerOfTwo(y); ok && unsigned {
			return single(l.emit(OpIAnd, t, x, l.b.Const(t, uint32(1)<<k-1)))
		}
		if unsigned {
			_, r := l.udivmod(x, y)
			return single(r)
		}
		return single(l.imod(x, y))
	case glsl.OpBitAnd:
		return single(l.emit(OpIAnd, t, x, y))
	case glsl.OpBitOr:
		return single(l.emit(OpIOr, t, x, y))
	case glsl.OpBitXor:
		return single(l.emit(OpIXor, t, x, y))
	case glsl.OpShl:
		return single(l.emit(OpIShl, t, x, y))
	case glsl.OpShr:
		if unsigned {
			return single(l.emit(OpUShr, t, x, y))
		}
		return single(l.emit(OpIShr, t, x, y))
	}
	l.fail("integer operator %s", op)
	return nil
}

// powerOfTwo reports a constant divisor 2^k (the same in every component),
// which unsigned / and % turn into a shift and a mask.
func powerOfTwo(y *Instr) (int, bool) {
	if !y.IsConst() {
		return 0, false
	}
	c := y.Const[0]
	for i := 1; i < int(y.Type.Width); i++ {
		if y.Const[i] != c {
			return 0, false
		}
	}
	if c == 0 || c&(c-1) != 0 {
		return 0, false
	}
	return mathbits.TrailingZeros32(c), true
}

// constructUint lowers constructors that take or make uint values, whose
// conversions differ from int's.
func (l *lowerer) constructUint(e *glsl.Construct) (value, bool) {
	t := e.Type()
	uses := t.Scalar() == glsl.Uint
	for _, a := range e.Args {
		uses = uses || a.Type().Scalar() == glsl.Uint
	}
	if !uses || t.Kind == glsl.Struct || t.Kind == glsl.Array {
		return nil, false
	}
	if t.IsMatrix() {
		l.fail("line %d: matrix constructors from uint values are not supported", e.Pos())
	}
	var scalars []*Instr
	for _, a := range e.Args {
		from := a.Type().Scalar()
		for _, lf := range l.expr(a) {
			for _, c := range l.comps(lf.x) {
				scalars = append(scalars, l.convertKind(c, from, t.Scalar()))
			}
		}
	}
	if t.IsScalar() {
		return single(scalars[0]), true
	}
	if len(scalars) == 1 {
		return single(l.splat(scalars[0], t.Size())), true
	}
	return single(l.vec(scalars[:t.Size()])), true
}

// ---- built-in functions ------------------------------------------------------

// builtinHasEffects reports the built-in functions that write memory or
// synchronise, which must run exactly where the source calls them.
func builtinHasEffects(name string) bool {
	switch name {
	case "barrier", "memoryBarrier", "memoryBarrierShared", "memoryBarrierBuffer", "groupMemoryBarrier",
		"uaddCarry", "usubBorrow", "umulExtended", "imulExtended", "atomicAdd", "atomicMin", "atomicMax", "atomicAnd", "atomicOr", "atomicXor", "atomicExchange", "atomicCompSwap":
		return true
	}
	return false
}

// computeCall lowers the compute built-ins and the integer forms of the
// common built-ins.
func (l *lowerer) computeCall(call *glsl.Call) (value, bool) {
	switch call.Builtin {
	case "barrier":
		l.emit(OpBarrier, Void)
		return nil, true
	case "memoryBarrier", "groupMemoryBarrier":
		l.b.EmitIndex(OpMemoryBarrier, Void, int(BarrierAll))
		return nil, true
	case "memoryBarrierShared":
		l.b.EmitIndex(OpMemoryBarrier, Void, int(BarrierShared))
		return nil, true
	case "memoryBarrierBuffer":
		l.b.EmitIndex(OpMemoryBarrier, Void, int(BarrierBuffer))
		return nil, true
	case glsl.LengthMethod:
		return single(l.runtimeLength(call.Args[0])), true
	case "uaddCarry", "usubBorrow", "umulExtended", "imulExtended":
		return l.extendedArith(call), true
	case "floatBitsToInt", "floatBitsToUint", "intBitsToFloat", "uintBitsToFloat":
		x := l.expr1(call.Args[0])
		to := BaseInt
		if x.Type.Base == BaseInt {
			to = BaseFloat
		}
		return single(l.emit(OpBitcast, Vec(to, int(x.Type.Width)), x)), true
	}
	if builtinHasEffects(call.Builtin) {
		return single(l.atomic(call)), true
	}
	if len(call.Args) == 0 || !call.Args[0].Type().IsInteger() {
		return nil, false
	}
	unsigned := call.Args[0].Type().Scalar() == glsl.Uint
	var args []*Instr
	for _, a := range call.Args {
		args = append(args, l.expr1(a))
	}
	w := int(args[0].Type.Width)
	for i := range args {
		args[i] = l.splat(args[i], w)
	}
	less := func(a, b *Instr) *Instr {
		if unsigned {
			return l.ult(a, b)
		}
		return l.emit(OpILt, Vec(BaseBool, w), a, b)
	}
	minOf := func(a, b *Instr) *Instr { return l.emit(OpSelect, a.Type, less(b, a), b, a) }
	maxOf := func(a, b *Instr) *Instr { return l.emit(OpSelect, a.Type, less(a, b), b, a) }
	x := args[0]
	t := x.Type
	bt := Vec(BaseBool, w)
	switch call.Builtin {
	case "abs":
		return single(l.emit(OpSelect, t, l.emit(OpILt, bt, x, l.b.Const(t, 0)), l.emit(OpISub, t, l.b.Const(t, 0), x), x)), true
	case "sign":
		neg := l.emit(OpILt, bt, x, l.b.Const(t, 0))
		pos := l.emit(OpILt, bt, l.b.Const(t, 0), x)
		return single(l.emit(OpSelect, t, neg, l.b.Const(t, ^uint32(0)), l.emit(OpSelect, t, pos, l.b.Const(t, 1), l.b.Const(t, 0)))), true
	case "min":
		return single(minOf(x, args[1])), true
	case "max":
		return single(maxOf(x, args[1])), true
	case "clamp":
		return single(minOf(maxOf(x, args[1]), args[2])), true
	case "bitfieldExtract", "bitfieldInsert", "bitfieldReverse", "bitCount", "findLSB", "findMSB":
		return single(l.bitfield(call.Builtin, !unsigned, args)), true
	case "lessThan", "lessThanEqual", "greaterThan", "greaterThanEqual":
		if !unsigned {
			return nil, false
		}
		a, b := x, args[1]
		switch call.Builtin {
		case "lessThan":
			return single(l.ult(a, b)), true
		case "greaterThan":
			return single(l.ult(b, a)), true
		case "lessThanEqual":
			return single(l.uge(b, a)), true
		}
		return single(l.uge(a, b)), true
	}
	return nil, false
}

// memTarget resolves the memory l-value an atomic or length() names.
func (l *lowerer) memTarget(e glsl.Expr) memRef {
	root, steps := l.path(e)
	id, ok := root.(*glsl.Ident)
	if !ok || !isMemory(id.Var) {
		l.fail("line %d: not a buffer or shared variable", e.Pos())
	}
	r, rest := l.memSteps(l.memRoot(id.Var), steps)
	if len(rest) > 0 {
		l.fail("line %d: a swizzle cannot be an atomic's target", e.Pos())
	}
	return r
}

var atomicOps = map[string][2]AtomicOp{ // [int, uint]
	"atomicAdd": {AtomicAdd, AtomicAdd}, "atomicMin": {AtomicMin, AtomicUMin}, "atomicMax": {AtomicMax, AtomicUMax},
	"atomicAnd": {AtomicAnd, AtomicAnd}, "atomicOr": {AtomicOr, AtomicOr}, "atomicXor": {AtomicXor, AtomicXor},
	"atomicExchange": {AtomicExchange, AtomicExchange}, "atomicCompSwap": {AtomicCompSwap, AtomicCompSwap},
}

func (l *lowerer) atomic(call *glsl.Call) *Instr {
	r := l.memTarget(call.Args[0])
	ops := atomicOps[call.Builtin]
	op := ops[0]
	if call.Args[0].Type().Scalar() == glsl.Uint {
		op = ops[1]
	}
	args := []*Instr{l.memAddr(r, 0)}
	for _, a := range call.Args[1:] {
		args = append(args, l.expr1(a))
	}
	kind := OpAtomicBuffer
	if r.shared {
		kind = OpAtomicShared
	}
	in := l.f.NewInstr(kind, Int, args...)
	in.Atomic = op
	if !r.shared {
		in.Index = r.binding
	}
	return l.b.Add(in)
}

// runtimeLength is arr.length() of a buffer block's runtime-sized last
// member: (buffer size − its offset) / stride, 0 when the buffer ends
// before it.
func (l *lowerer) runtimeLength(e glsl.Expr) *Instr {
	r := l.memTarget(e)
	if r.shared || r.dyn != nil || !r.t.IsRuntimeArray() {
		l.fail("line %d: length() of a runtime-sized array outside a buffer block", e.Pos())
	}
	stride := r.layout.Stride(r.t.Elem)
	size := l.b.EmitIndex(OpBufferSize, Int, r.binding)
	n := l.emit(OpISub, Int, size, l.b.ConstI(int32(r.off)))
	n = l.emit(OpIMax, Int, n, l.b.ConstI(0))
	if stride&(stride-1) == 0 {
		return l.emit(OpUShr, Int, n, l.b.ConstI(int32(mathbits.TrailingZeros(uint(stride)))))
	}
	return l.idiv(n, l.b.ConstI(int32(stride)))
}

// bitfield lowers the GLSL ES 3.10 §8.8 bit-field functions to shifts,
// masks and the SWAR population count (args are widened to one width;
// offsets and sizes outside the value are undefined in GLSL and give what
// glsl's constant folding gives).
func (l *lowerer) bitfield(name string, signed bool, args []*Instr) *Instr {
	x := args[0]
	t := x.Type
	bt := Vec(BaseBool, int(t.Width))
	c := func(v uint32) *Instr { return l.b.Const(t, v) }
	and := func(a *Instr, m uint32) *Instr { return l.emit(OpIAnd, t, a, c(m)) }
	shr := func(a *Instr, k uint32) *Instr { return l.emit(OpUShr, t, a, c(k)) }
	shl := func(a *Instr, k uint32) *Instr { return l.emit(OpIShl, t, a, c(k)) }
	or := func(a, b *Instr) *Instr { return l.emit(OpIOr, t, a, b) }
	add := func(a, b *Instr) *Instr { return l.emit(OpIAdd, t, a, b) }
	popcount := func(v *Instr) *Instr {
		v = l.emit(OpISub, t, v, and(shr(v, 1), 0x55555555))
		v = add(and(v, 0x33333333), and(shr(v, 2), 0x33333333))
		v = and(add(v, shr(v, 4)), 0x0F0F0F0F)
		return shr(l.emit(OpIMul, t, v, c(0x01010101)), 24)
	}
	switch name {
	case "bitfieldExtract":
		off, n := args[1], args[2]
		thirtyTwo := c(32)
		left := l.emit(OpIShl, t, x, l.emit(OpISub, t, l.emit(OpISub, t, thirtyTwo, off), n))
		right := l.emit(OpISub, t, thirtyTwo, n)
		v := l.emit(OpUShr, t, left, right)
		if signed {
			v = l.emit(OpIShr, t, left, right)
		}
		return l.emit(OpSelect, t, l.emit(OpIEq, bt, n, c(0)), c(0), v)
	case "bitfieldInsert":
		ins, off, n := args[1], args[2], args[3]
		mask := l.emit(OpIShl, t, l.emit(OpISub, t, l.emit(OpIShl, t, c(1), n), c(1)), off)
		mask = l.emit(OpSelect, t, l.emit(OpIEq, bt, n, c(32)), c(^uint32(0)), mask)
		keep := l.emit(OpIAnd, t, x, l.emit(OpINot, t, mask))
		return or(keep, l.emit(OpIAnd, t, l.emit(OpIShl, t, ins, off), mask))
	case "bitfieldReverse":
		v := or(and(shr(x, 1), 0x55555555), shl(and(x, 0x55555555), 1))
		v = or(and(shr(v, 2), 0x33333333), shl(and(v, 0x33333333), 2))
		v = or(and(shr(v, 4), 0x0F0F0F0F), shl(and(v, 0x0F0F0F0F), 4))
		v = or(and(shr(v, 8), 0x00FF00FF), shl(and(v, 0x00FF00FF), 8))
		return or(shr(v, 16), shl(v, 16))
	case "bitCount":
		return popcount(x)
	case "findLSB":
		// The bits below the lowest set one, counted; −1 for 0.
		low := l.emit(OpIAnd, t, x, l.emit(OpISub, t, c(0), x))
		n := popcount(l.emit(OpISub, t, low, c(1)))
		return l.emit(OpSelect, t, l.emit(OpIEq, bt, x, c(0)), c(^uint32(0)), n)
	}
	// findMSB: smear the highest set bit (of ~x for negative ints) down,
	// count, minus one: −1 for 0 (and −1).
	v := x
	if signed {
		v = l.emit(OpSelect, t, l.emit(OpILt, bt, x, c(0)), l.emit(OpINot, t, x), x)
	}
	for _, k := range []uint32{1, 2, 4, 8, 16} {
		v = or(v, shr(v, k))
	}
	return l.emit(OpISub, t, popcount(v), c(1))
}

// builtinOutArg reports the out parameters of the built-ins that have
// them (a callee passing a global there writes it).
func builtinOutArg(name string, i int) bool {
	switch name {
	case "uaddCarry", "usubBorrow":
		return i == 2
	case "umulExtended", "imulExtended":
		return i >= 2
	}
	return false
}

// extendedArith lowers §8.8's carry, borrow and 64-bit product built-ins,
// whose last arguments are out parameters: the product from 16-bit
// halves (each partial product fits in 32 bits), corrected for signed
// operands by subtracting the other operand from the high word for each
// negative one.
func (l *lowerer) extendedArith(call *glsl.Call) value {
	x, y := l.match(l.expr1(call.Args[0]), l.expr1(call.Args[1]))
	t := x.Type
	bt := Vec(BaseBool, int(t.Width))
	c := func(v uint32) *Instr { return l.b.Const(t, v) }
	out := func(i int, v *Instr) { l.storeLV(l.lvalue(call.Args[i]), single(v)) }
	switch call.Builtin {
	case "uaddCarry":
		sum := l.emit(OpIAdd, t, x, y)
		out(2, l.emit(OpSelect, t, l.ult(sum, x), c(1), c(0)))
		return single(sum)
	case "usubBorrow":
		out(2, l.emit(OpSelect, t, l.ult(x, y), c(1), c(0)))
		return single(l.emit(OpISub, t, x, y))
	}
	lo16 := func(v *Instr) *Instr { return l.emit(OpIAnd, t, v, c(0xFFFF)) }
	hi16 := func(v *Instr) *Instr { return l.emit(OpUShr, t, v, c(16)) }
	mul := func(a, b *Instr) *Instr { return l.emit(OpIMul, t, a, b) }
	add := func(a, b *Instr) *Instr { return l.emit(OpIAdd, t, a, b) }
	xl, xh, yl, yh := lo16(x), hi16(x), lo16(y), hi16(y)
	ll, lh, hl, hh := mul(xl, yl), mul(xl, yh), mul(xh, yl), mul(xh, yh)
	mid := add(add(hi16(ll), lo16(lh)), lo16(hl))
	msb := add(add(hh, add(hi16(lh), hi16(hl))), hi16(mid))
	if call.Builtin == "imulExtended" {
		zero := c(0)
		msb = l.emit(OpISub, t, msb, l.emit(OpSelect, t, l.emit(OpILt, bt, x, zero), y, zero))
		msb = l.emit(OpISub, t, msb, l.emit(OpSelect, t, l.emit(OpILt, bt, y, zero), x, zero))
	}
	out(2, msb)
	out(3, mul(x, y))
	return nil
}

// switchStmt lowers a switch as guarded clauses in source order: a
// "matched" flag turns on at the first clause whose label equals the
// selector (the default clause's when no label does) and stays on, so
// control falls through; break is a flag of its own, pushed like a loop's
// so that break and the guards work as in loops, and continue inside
// reaches the enclosing loop's flag.
func (l *lowerer) switchStmt(s *glsl.SwitchStmt) jump {
	sel := l.expr1(s.Selector)
	is := func(c *glsl.CaseClause) *Instr {
		var m *Instr
		for _, lab := range c.Labels {
			eq := l.emit(OpIEq, Bool, sel, l.b.ConstI(lab.I))
			if m == nil {
				m = eq
			} else {
				m = l.emit(OpBOr, Bool, m, eq)
			}
		}
		return m
	}
	var anyLabel *Instr
	for _, c := range s.Clauses {
		if m := is(c); m != nil {
			if anyLabel == nil {
				anyLabel = m
			} else {
				anyLabel = l.emit(OpBOr, Bool, anyLabel, m)
			}
		}
	}
	cont := &flag{"continue"} // never set: continue outside a loop is a front-end error
	if n := len(l.fn.loops); n > 0 {
		cont = l.fn.loops[n-1].cont
	} else {
		l.set(cont, l.boolConst(false))
	}
	lc := &loopCtx{brk: &flag{"break"}, cont: cont}
	l.set(lc.brk, l.boolConst(false))
	l.fn.loops = append(l.fn.loops, lc)
	matched := &flag{"case"}
	l.set(matched, l.boolConst(false))
	result := jumpNone
	for _, c := range s.Clauses {
		m := is(c)
		if c.Default {
			d := l.b.ConstB(true)
			if anyLabel != nil {
				d = l.emit(OpBNot, Bool, anyLabel)
			}
			if m == nil {
				m = d
			} else {
				m = l.emit(OpBOr, Bool, m, d)
			}
		}
		on := l.emit(OpBOr, Bool, l.env[matched][0].x, m)
		l.set(matched, single(on))
		run := l.emit(OpBAnd, Bool, on, l.emit(OpBNot, Bool, l.anyFlag(l.guardFlags())))
		body := c.Body
		if l.ifThen(run, func() jump { return l.block(body) }, nil) != jumpNone {
			result = jumpMaybe
		}
	}
	l.fn.loops = l.fn.loops[:len(l.fn.loops)-1]
	delete(l.env, lc.brk)
	delete(l.env, matched)
	if len(l.fn.loops) == 0 {
		delete(l.env, cont)
	}
	return result
}
