package ir

import (
	"github.com/tilegpu/tilegpu/compiler/glsl"
)

// ---- small emit helpers ---------------------------------------------------

func (l *lowerer) emit(op Op, t Type, args ...*Instr) *Instr { return l.b.Emit(op, t, args...) }

func (l *lowerer) extract(x *Instr, k int) *Instr {
	if x.Type.Width == 1 {
		return x
	}
	return l.b.EmitIndex(OpExtract, x.Type.Scalar(), k, x)
}

// vec composes scalars into a vector (a single scalar is returned as is).
func (l *lowerer) vec(comps []*Instr) *Instr {
	if len(comps) == 1 {
		return comps[0]
	}
	return l.emit(OpVec, Vec(comps[0].Type.Base, len(comps)), comps...)
}

// splat widens a scalar to width n (no-op for n == 1 or a vector).
func (l *lowerer) splat(x *Instr, n int) *Instr {
	if x.Type.Width != 1 || n == 1 {
		return x
	}
	comps := make([]*Instr, n)
	for i := range comps {
		comps[i] = x
	}
	return l.vec(comps)
}

// match splats the narrower of two operands to the other's width.
func (l *lowerer) match(a, b *Instr) (*Instr, *Instr) {
	if a.Type.Width < b.Type.Width {
		a = l.splat(a, int(b.Type.Width))
	} else if b.Type.Width < a.Type.Width {
		b = l.splat(b, int(a.Type.Width))
	}
	return a, b
}

func (l *lowerer) fconst(x float32, n int) *Instr {
	return l.b.Const(Vec(BaseFloat, n), FloatBits(x))
}

func (l *lowerer) comps(x *Instr) []*Instr {
	out := make([]*Instr, x.Type.Width)
	for i := range out {
		out[i] = l.extract(x, i)
	}
	return out
}

// ---- expressions ----------------------------------------------------------

func single(x *Instr) value { return value{{x: x}} }

func (l *lowerer) expr1(e glsl.Expr) *Instr {
	v := l.expr(e)
	if len(v) != 1 || v[0].x == nil {
		l.fail("line %d: expected a scalar or vector", e.Pos())
	}
	return v[0].x
}

func (l *lowerer) expr(e glsl.Expr) value {
	if cv := e.Value(); cv != nil {
		if _, isAssign := e.(*glsl.Assign); !isAssign {
			return l.constValue(e.Type(), cv)
		}
	}
	switch e := e.(type) {
	case *glsl.ConstExpr:
		return l.constValue(e.Type(), e.Value())
	case *glsl.Ident:
		return l.ident(e.Var)
	case *glsl.Index, *glsl.FieldSelect, *glsl.Swizzle:
		return l.access(e)
	case *glsl.Unary:
		return l.unary(e)
	case *glsl.Binary:
		return l.binary(e)
	case *glsl.Assign:
		return l.assign(e)
	case *glsl.Cond:
		return l.cond(e)
	case *glsl.Sequence:
		l.expr(e.X)
		return l.expr(e.Y)
	case *glsl.Construct:
		return l.construct(e)
	case *glsl.Call:
		if e.Func != nil {
			return l.call(e)
		}
		return l.builtin(e)
	}
	l.fail("line %d: unsupported expression %T", e.Pos(), e)
	return nil
}

func (l *lowerer) ident(v *glsl.Variable) value {
	if isMemory(v) {
		return l.memLoad(l.memRoot(v))
	}
	if v.Builtin && computeBuiltin(v.Name) {
		return l.computeIdent(v)
	}
	if v.Builtin {
		switch v.Name {
		case "gl_FragCoord":
			var cs []*Instr
			for i := 0; i < 4; i++ {
				cs = append(cs, l.b.EmitIndex(OpFragCoord, Float, i))
			}
			return single(l.vec(cs))
		case "gl_FrontFacing":
			return single(l.emit(OpFrontFacing, Bool))
		case "gl_PointCoord":
			return single(l.vec([]*Instr{l.b.EmitIndex(OpPointCoord, Float, 0), l.b.EmitIndex(OpPointCoord, Float, 1)}))
		}
		if v.Value != nil {
			return l.constValue(v.Type, v.Value)
		}
	}
	if l.isInput(v) {
		return l.loadInput(v, v.Type, 0, nil)
	}
	if val, ok := l.env[v]; ok {
		return val
	}
	if v.Value != nil {
		return l.constValue(v.Type, v.Value)
	}
	// A global without initialiser read before any write, or an output.
	val := l.zero(v.Type)
	l.set(v, val)
	return val
}

// loadInput loads the value of type t at slot (+ dyn, a dynamic slot
// offset) of an interface variable.
func (l *lowerer) loadInput(v *glsl.Variable, t *glsl.Type, slot int, dyn *Instr) value {
	iv := l.varFor(v)
	var out value
	for _, lt := range leafTypes(t, nil) {
		if lt.Width == 0 {
			if dyn != nil {
				l.fail("sampler %s indexed dynamically", v.Name)
			}
			out = append(out, leaf{smp: iv, slot: slot})
			slot++
			continue
		}
		var in *Instr
		if dyn != nil {
			in = l.b.EmitIndex(OpLoadVar, lt, slot, dyn)
		} else {
			in = l.b.EmitIndex(OpLoadVar, lt, slot)
		}
		in.Var = iv
		out = append(out, leaf{x: in})
		slot += int(lt.Width)
	}
	return out
}

// step is one access of an l-value or r-value path.
type step struct {
	kind  int // stepField, stepIndex, stepSwizzle
	field int
	index int    // constant index, if dyn == nil
	dyn   *Instr // dynamic index (int), evaluated once
	comps []int
	typ   *glsl.Type // type after the step
}

const (
	stepField = iota
	stepIndex
	stepSwizzle
)

// path resolves an access chain to its root expression and steps, with
// dynamic indices evaluated in order.
func (l *lowerer) path(e glsl.Expr) (glsl.Expr, []step) {
	switch x := e.(type) {
	case *glsl.FieldSelect:
		root, steps := l.path(x.X)
		return root, append(steps, step{kind: stepField, field: x.Field, typ: x.Type()})
	case *glsl.Swizzle:
		root, steps := l.path(x.X)
		return root, append(steps, step{kind: stepSwizzle, comps: x.Components, typ: x.Type()})
	case *glsl.Index:
		root, steps := l.path(x.X)
		s := step{kind: stepIndex, typ: x.Type()}
		if cv := x.Index.Value(); cv != nil {
			s.index = int(cv[0].I)
		} else {
			s.dyn = l.expr1(x.Index)
		}
		return root, append(steps, s)
	}
	return e, nil
}

// access lowers an r-value access chain. Chains rooted at an interface
// input are turned into slot offsets so that only the accessed slots are
// loaded (dynamic uniform indexing becomes a storage load).
func (l *lowerer) access(e glsl.Expr) value {
	root, steps := l.path(e)
	if id, ok := root.(*glsl.Ident); ok && isMemory(id.Var) {
		r, rest := l.memSteps(l.memRoot(id.Var), steps)
		return l.applySteps(l.memLoad(r), r.t, rest)
	}
	if id, ok := root.(*glsl.Ident); ok && l.isInput(id.Var) {
		t := id.Var.Type
		slot := 0
		var dyn *Instr
		i := 0
		for ; i < len(steps); i++ {
			s := steps[i]
			if s.kind == stepSwizzle {
				break
			}
			if s.dyn != nil && (id.Var.Storage != glsl.StorageUniform || s.typ.ContainsSampler()) {
				// Varyings, attributes and samplers cannot be addressed:
				// load the whole thing and select.
				break
			}
			switch s.kind {
			case stepField:
				for k := 0; k < s.field; k++ {
					slot += SlotCount(t.Struct.Fields[k].Type)
				}
			case stepIndex:
				stride := SlotCount(s.typ)
				if s.dyn != nil {
					off := l.emit(OpIMul, Int, s.dyn, l.b.ConstI(int32(stride)))
					if dyn == nil {
						dyn = off
					} else {
						dyn = l.emit(OpIAdd, Int, dyn, off)
					}
				} else {
					slot += stride * s.index
				}
			}
			t = s.typ
		}
		v := l.loadInput(id.Var, t, slot, dyn)
		return l.applySteps(v, t, steps[i:])
	}
	v := l.expr(root)
	return l.applySteps(v, root.Type(), steps)
}

// applySteps applies access steps to a value of type t.
func (l *lowerer) applySteps(v value, t *glsl.Type, steps []step) value {
	for _, s := range steps {
		v = l.applyStep(v, t, s)
		t = s.typ
	}
	return v
}

func (l *lowerer) applyStep(v value, t *glsl.Type, s step) value {
	switch s.kind {
	case stepField:
		off := 0
		for k := 0; k < s.field; k++ {
			off += leafCount(t.Struct.Fields[k].Type)
		}
		return v[off : off+leafCount(s.typ)]
	case stepSwizzle:
		x := v[0].x
		cs := make([]*Instr, len(s.comps))
		for i, c := range s.comps {
			cs[i] = l.extract(x, c)
		}
		return single(l.vec(cs))
	}
	// Index.
	switch {
	case t.Kind == glsl.Array || t.IsMatrix():
		n := leafCount(s.typ)
		count := len(v) / n
		if s.dyn == nil {
			if s.index < 0 || s.index >= count {
				l.fail("index %d out of range", s.index)
			}
			return v[s.index*n : (s.index+1)*n]
		}
		// Select chain: element count-1 by default, then i == k picks k.
		out := append(value(nil), v[(count-1)*n:]...)
		for k := count - 2; k >= 0; k-- {
			eq := l.emit(OpIEq, Bool, s.dyn, l.b.ConstI(int32(k)))
			for j := 0; j < n; j++ {
				if out[j].isSampler() {
					a, b := v[k*n+j], out[j]
					out[j] = leaf{selCond: eq, selA: &a, selB: &b}
					continue
				}
				out[j] = leaf{x: l.emit(OpSelect, out[j].x.Type, eq, v[k*n+j].x, out[j].x)}
			}
		}
		return out
	default: // vector component
		x := v[0].x
		if s.dyn == nil {
			return single(l.extract(x, s.index))
		}
		w := int(x.Type.Width)
		acc := l.extract(x, w-1)
		for k := w - 2; k >= 0; k-- {
			eq := l.emit(OpIEq, Bool, s.dyn, l.b.ConstI(int32(k)))
			acc = l.emit(OpSelect, acc.Type, eq, l.extract(x, k), acc)
		}
		return single(acc)
	}
}

// updateSteps returns v (of type t) with the part addressed by steps
// replaced by nv.
func (l *lowerer) updateSteps(v value, t *glsl.Type, steps []step, nv value) value {
	if len(steps) == 0 {
		return nv
	}
	s := steps[0]
	out := append(value(nil), v...)
	switch s.kind {
	case stepField:
		off := 0
		for k := 0; k < s.field; k++ {
			off += leafCount(t.Struct.Fields[k].Type)
		}
		n := leafCount(s.typ)
		sub := l.updateSteps(v[off:off+n], s.typ, steps[1:], nv)
		copy(out[off:], sub)
		return out
	case stepSwizzle:
		// The swizzled vector (a new value) updated by the rest, then
		// scattered back.
		sw := l.applyStep(v, t, s)
		sw = l.updateSteps(sw, s.typ, steps[1:], nv)
		x := v[0].x
		cs := l.comps(x)
		nx := sw[0].x
		for i, c := range s.comps {
			cs[c] = l.extract(nx, i)
		}
		out[0] = leaf{x: l.vec(cs)}
		return out
	}
	switch {
	case t.Kind == glsl.Array || t.IsMatrix():
		n := leafCount(s.typ)
		count := len(v) / n
		if s.dyn == nil {
			sub := l.updateSteps(v[s.index*n:(s.index+1)*n], s.typ, steps[1:], nv)
			copy(out[s.index*n:], sub)
			return out
		}
		for k := 0; k < count; k++ {
			sub := l.updateSteps(v[k*n:(k+1)*n], s.typ, steps[1:], nv)
			eq := l.emit(OpIEq, Bool, s.dyn, l.b.ConstI(int32(k)))
			for j := 0; j < n; j++ {
				out[k*n+j] = leaf{x: l.emit(OpSelect, sub[j].x.Type, eq, sub[j].x, v[k*n+j].x)}
			}
		}
		return out
	default: // vector component
		x := v[0].x
		cs := l.comps(x)
		if s.dyn == nil {
			sub := l.updateSteps(single(cs[s.index]), s.typ, steps[1:], nv)
			cs[s.index] = sub[0].x
		} else {
			for k := range cs {
				sub := l.updateSteps(single(cs[k]), s.typ, steps[1:], nv)
				eq := l.emit(OpIEq, Bool, s.dyn, l.b.ConstI(int32(k)))
				cs[k] = l.emit(OpSelect, cs[k].Type, eq, sub[0].x, cs[k])
			}
		}
		out[0] = leaf{x: l.vec(cs)}
		return out
	}
}

// lvalue is a resolved assignment target.
type lvalue struct {
	root  *glsl.Variable
	steps []step
}

func (l *lowerer) lvalue(e glsl.Expr) lvalue {
	root, steps := l.path(e)
	id, ok := root.(*glsl.Ident)
	if !ok {
		l.fail("line %d: assignment to a non-variable", e.Pos())
	}
	if l.isInput(id.Var) {
		l.fail("line %d: assignment to input %s", e.Pos(), id.Var.Name)
	}
	return lvalue{root: id.Var, steps: steps}
}

func (l *lowerer) load(lv lvalue) value {
	if isMemory(lv.root) {
		r, rest := l.memSteps(l.memRoot(lv.root), lv.steps)
		return l.applySteps(l.memLoad(r), r.t, rest)
	}
	return l.applySteps(l.ident(lv.root), lv.root.Type, lv.steps)
}

func (l *lowerer) storeLV(lv lvalue, nv value) {
	if isMemory(lv.root) {
		l.memStoreLV(lv, nv)
		return
	}
	cur := l.ident(lv.root)
	l.set(lv.root, l.updateSteps(cur, lv.root.Type, lv.steps, nv))
}

func (l *lowerer) assign(e *glsl.Assign) value {
	lv := l.lvalue(e.LHS)
	var nv value
	if e.Op == glsl.OpAssign {
		nv = l.expr(e.RHS)
	} else {
		cur := l.load(lv)
		rhs := l.expr(e.RHS)
		op := map[glsl.Op]glsl.Op{glsl.OpAddAssign: glsl.OpAdd, glsl.OpSubAssign: glsl.OpSub,
			glsl.OpMulAssign: glsl.OpMul, glsl.OpDivAssign: glsl.OpDiv}[e.Op]
		if op == glsl.OpNone || e.LHS.Type().Scalar() == glsl.Uint {
			nv = l.integerArith(compoundOp(e.Op), cur, e.LHS.Type(), rhs, e.RHS.Type())
		} else {
			nv = l.arith(op, cur, e.LHS.Type(), rhs, e.RHS.Type())
		}
	}
	l.storeLV(lv, nv)
	return nv
}

func (l *lowerer) unary(e *glsl.Unary) value {
	switch e.Op {
	case glsl.OpPlus:
		return l.expr(e.X)
	case glsl.OpNeg:
		v := l.expr(e.X)
		out := make(value, len(v))
		for i, lf := range v {
			out[i] = leaf{x: l.neg(lf.x)}
		}
		return out
	case glsl.OpNot:
		return single(l.emit(OpBNot, Bool, l.expr1(e.X)))
	case glsl.OpBitNot:
		x := l.expr1(e.X)
		return single(l.emit(OpINot, x.Type, x))
	case glsl.OpPreInc, glsl.OpPreDec, glsl.OpPostInc, glsl.OpPostDec:
		lv := l.lvalue(e.X)
		cur := l.load(lv)
		t := e.X.Type()
		one := l.constOne(t)
		op := glsl.OpAdd
		if e.Op == glsl.OpPreDec || e.Op == glsl.OpPostDec {
			op = glsl.OpSub
		}
		nv := l.arith(op, cur, t, one, t)
		l.storeLV(lv, nv)
		if e.Op == glsl.OpPostInc || e.Op == glsl.OpPostDec {
			return cur
		}
		return nv
	}
	l.fail("unary %s", e.Op)
	return nil
}

func (l *lowerer) constOne(t *glsl.Type) value {
	var v value
	for _, lt := range leafTypes(t, nil) {
		bits := FloatBits(1)
		if lt.Base == BaseInt {
			bits = 1
		}
		v = append(v, leaf{x: l.b.Const(lt, bits)})
	}
	return v
}

func (l *lowerer) neg(x *Instr) *Instr {
	if x.Type.Base == BaseInt {
		return l.emit(OpISub, x.Type, l.b.Const(x.Type, 0), x)
	}
	return l.emit(OpFNeg, x.Type, x)
}

// sideEffectFree reports expressions whose evaluation changes nothing, so
// they may be evaluated unconditionally (&&, ||, ?: become band/bor/select).
func sideEffectFree(e glsl.Expr) bool {
	if e.Value() != nil {
		return true
	}
	switch e := e.(type) {
	case *glsl.ConstExpr:
		return true
	case *glsl.Ident:
		// A buffer or shared load must not run where the source does
		// not evaluate it ("i < n ? data[i] : 0u" guards the access).
		return !isMemory(e.Var)
	case *glsl.Unary:
		return e.Op != glsl.OpPreInc && e.Op != glsl.OpPreDec && e.Op != glsl.OpPostInc && e.Op != glsl.OpPostDec &&
			sideEffectFree(e.X)
	case *glsl.Binary:
		return sideEffectFree(e.X) && sideEffectFree(e.Y)
	case *glsl.Cond:
		return sideEffectFree(e.Cond) && sideEffectFree(e.Then) && sideEffectFree(e.Else)
	case *glsl.Sequence:
		return sideEffectFree(e.X) && sideEffectFree(e.Y)
	case *glsl.Index:
		return sideEffectFree(e.X) && sideEffectFree(e.Index)
	case *glsl.FieldSelect:
		return sideEffectFree(e.X)
	case *glsl.Swizzle:
		return sideEffectFree(e.X)
	case *glsl.Construct:
		for _, a := range e.Args {
			if !sideEffectFree(a) {
				return false
			}
		}
		return true
	case *glsl.Call:
		if e.Func != nil || builtinHasEffects(e.Builtin) {
			return false
		}
		for _, a := range e.Args {
			if !sideEffectFree(a) {
				return false
			}
		}
		return true
	}
	return false
}

// condValue lowers c ? then : else, with an If when an arm has effects.
func (l *lowerer) condValue(c *Instr, then, els glsl.Expr, t *glsl.Type) value {
	if sideEffectFree(then) && sideEffectFree(els) {
		a, b := l.expr(then), l.expr(els)
		out := make(value, len(a))
		for i := range a {
			if a[i].x == nil {
				l.fail("?: on samplers")
			}
			out[i] = leaf{x: l.emit(OpSelect, a[i].x.Type, c, a[i].x, b[i].x)}
		}
		return out
	}
	key := &flag{"?:"}
	l.set(key, l.zero(t))
	l.ifThen(c, func() jump { l.set(key, l.expr(then)); return jumpNone },
		func() jump { l.set(key, l.expr(els)); return jumpNone })
	v := l.env[key]
	delete(l.env, key)
	return v
}

func (l *lowerer) cond(e *glsl.Cond) value {
	return l.condValue(l.expr1(e.Cond), e.Then, e.Else, e.Type())
}

var (
	trueExpr  = &glsl.ConstExpr{ExprInfo: glsl.ExprInfo{Ty: glsl.TypeBool, Val: glsl.Value{{Kind: glsl.Bool, B: true}}}}
	falseExpr = &glsl.ConstExpr{ExprInfo: glsl.ExprInfo{Ty: glsl.TypeBool, Val: glsl.Value{{Kind: glsl.Bool, B: false}}}}
)

func (l *lowerer) binary(e *glsl.Binary) value {
	if v, ok := l.computeBinary(e); ok {
		return v
	}
	switch e.Op {
	case glsl.OpAnd:
		x := l.expr1(e.X)
		if sideEffectFree(e.Y) {
			return single(l.emit(OpBAnd, Bool, x, l.expr1(e.Y)))
		}
		return l.condValue(x, e.Y, falseExpr, glsl.TypeBool)
	case glsl.OpOr:
		x := l.expr1(e.X)
		if sideEffectFree(e.Y) {
			return single(l.emit(OpBOr, Bool, x, l.expr1(e.Y)))
		}
		return l.condValue(x, trueExpr, e.Y, glsl.TypeBool)
	case glsl.OpXor:
		return single(l.emit(OpBXor, Bool, l.expr1(e.X), l.expr1(e.Y)))
	case glsl.OpLess, glsl.OpGreater, glsl.OpLessEq, glsl.OpGreaterEq:
		a, b := l.expr1(e.X), l.expr1(e.Y)
		return single(l.compare(e.Op, a, b))
	case glsl.OpEq, glsl.OpNotEq:
		a, b := l.expr(e.X), l.expr(e.Y)
		var acc *Instr
		for i := range a {
			eq := l.equal(a[i].x, b[i].x)
			for _, c := range l.comps(eq) {
				if acc == nil {
					acc = c
				} else {
					acc = l.emit(OpBAnd, Bool, acc, c)
				}
			}
		}
		if e.Op == glsl.OpNotEq {
			acc = l.emit(OpBNot, Bool, acc)
		}
		return single(acc)
	}
	return l.arith(e.Op, l.expr(e.X), e.X.Type(), l.expr(e.Y), e.Y.Type())
}

// compare lowers <, >, <=, >= on scalars or (for the relational built-ins)
// vectors of equal width.
func (l *lowerer) compare(op glsl.Op, a, b *Instr) *Instr {
	lt, ge := OpFLt, OpFGe
	if a.Type.Base == BaseInt {
		lt, ge = OpILt, OpIGe
	}
	t := Vec(BaseBool, int(a.Type.Width))
	switch op {
	case glsl.OpLess:
		return l.emit(lt, t, a, b)
	case glsl.OpGreater:
		return l.emit(lt, t, b, a)
	case glsl.OpLessEq:
		return l.emit(ge, t, b, a)
	}
	return l.emit(ge, t, a, b)
}

// equal compares componentwise (any base) → bvec.
func (l *lowerer) equal(a, b *Instr) *Instr {
	t := Vec(BaseBool, int(a.Type.Width))
	switch a.Type.Base {
	case BaseFloat:
		return l.emit(OpFEq, t, a, b)
	case BaseInt:
		return l.emit(OpIEq, t, a, b)
	}
	return l.emit(OpBNot, t, l.emit(OpBXor, t, a, b))
}

// arith lowers + - * / on scalars, vectors and matrices, including the
// linear-algebra products.
func (l *lowerer) arith(op glsl.Op, a value, at *glsl.Type, b value, bt *glsl.Type) value {
	if op == glsl.OpMul && (at.IsMatrix() || bt.IsMatrix()) && !(at.IsScalar() || bt.IsScalar()) {
		switch {
		case at.IsMatrix() && bt.IsMatrix():
			out := make(value, len(b))
			for j := range b {
				out[j] = leaf{x: l.matVec(a, b[j].x)}
			}
			return out
		case at.IsMatrix():
			return single(l.matVec(a, b[0].x))
		default: // vector * matrix: component j is dot(v, column j)
			cs := make([]*Instr, len(b))
			for j := range b {
				cs[j] = l.dot(a[0].x, b[j].x)
			}
			return single(l.vec(cs))
		}
	}
	// Componentwise; a scalar operand applies to every leaf.
	n := max(len(a), len(b))
	out := make(value, n)
	for i := 0; i < n; i++ {
		x, y := a[min(i, len(a)-1)].x, b[min(i, len(b)-1)].x
		x, y = l.match(x, y)
		out[i] = leaf{x: l.arith1(op, x, y)}
	}
	return out
}

func (l *lowerer) arith1(op glsl.Op, x, y *Instr) *Instr {
	t := x.Type
	if t.Base == BaseInt {
		switch op {
		case glsl.OpAdd:
			return l.emit(OpIAdd, t, x, y)
		case glsl.OpSub:
			return l.emit(OpISub, t, x, y)
		case glsl.OpMul:
			return l.emit(OpIMul, t, x, y)
		case glsl.OpDiv:
			return l.idiv(x, y)
		}
	}
	switch op {
	case glsl.OpAdd:
		return l.emit(OpFAdd, t, x, y)
	case glsl.OpSub:
		return l.emit(OpFSub, t, x, y)
	case glsl.OpMul:
		return l.emit(OpFMul, t, x, y)
	case glsl.OpDiv:
		return l.fdiv(x, y)
	}
	l.fail("arithmetic operator %s", op)
	return nil
}

// fdiv is x · (1/y): the hardware has only a reciprocal.
func (l *lowerer) fdiv(x, y *Instr) *Instr {
	return l.emit(OpFMul, x.Type, x, l.emit(OpRcp, y.Type, y))
}

// idiv divides integers, truncating toward zero, exactly over the whole
// int32 range the hardware computes in (GL reports highp int as 32-bit;
// MinInt32 / −1 wraps to MinInt32, as in Go). It works on the magnitudes
// X = |x|, Y = |y| (0..2^31, as uint32 bits) through float:
//
//   - q0 = FTOI(X·c/Y) with c = 1 − 2^−20: X, Y, 1/Y and the product are
//     each rounded once (relative error ≤ 2^−24 each), so the factor c
//     makes the estimate fall below the true X/Y and q0 ≤ ⌊X/Y⌋, missing
//     it by at most ⌊X/Y⌋·2^−19 + 1 ≤ 2^12 + 1;
//   - R0 = X − q0·Y is then exact in uint32 (0 ≤ R0 ≤ X ≤ 2^31), and the
//     same estimate of R0/Y gives d ≤ ⌊R0/Y⌋ missing it by at most 1;
//   - R1 = R0 − d·Y lies in [0, 2Y), so one more unit is added exactly
//     when R1 − Y ≥ 0 (as int32: both below 2^31 apart).
//
// The sign is applied last. Division by zero gives an unspecified value
// (GLSL leaves it undefined), the same on the hardware and in Interpret.
func (l *lowerer) idiv(x, y *Instr) *Instr {
	t := x.Type
	ft := Vec(BaseFloat, int(t.Width))
	c := func(v uint32) *Instr { return l.b.Const(t, v) }
	fc := func(v float32) *Instr { return l.b.Const(ft, FloatBits(v)) }
	sx := l.emit(OpIShr, t, x, c(31)) // 0 or −1
	sy := l.emit(OpIShr, t, y, c(31))
	X := l.emit(OpISub, t, l.emit(OpIXor, t, x, sx), sx)
	Y := l.emit(OpISub, t, l.emit(OpIXor, t, y, sy), sy)
	// |float(int32(v))| is v for v = 2^31 (bits of MinInt32) too.
	toF := func(v *Instr) *Instr { return l.emit(OpFAbs, ft, l.emit(OpIToF, ft, v)) }
	rcpY := l.emit(OpFMul, ft, l.emit(OpRcp, ft, toF(Y)), fc(1-1.0/(1<<20)))
	q0 := l.emit(OpFToI, t, l.emit(OpFMul, ft, toF(X), rcpY))
	r0 := l.emit(OpISub, t, X, l.emit(OpIMul, t, q0, Y))
	d := l.emit(OpFToI, t, l.emit(OpFMul, ft, toF(r0), rcpY))
	r1 := l.emit(OpISub, t, r0, l.emit(OpIMul, t, d, Y))
	// q0 + d + 1 + ((R1 − Y) >> 31): the last term is −1 when R1 < Y.
	lt := l.emit(OpIShr, t, l.emit(OpISub, t, r1, Y), c(31))
	q := l.emit(OpIAdd, t, l.emit(OpIAdd, t, q0, d), l.emit(OpIAdd, t, lt, c(1)))
	s := l.emit(OpIXor, t, sx, sy)
	return l.emit(OpISub, t, l.emit(OpIXor, t, q, s), s)
}

// matVec is Σ_c column_c · v[c].
func (l *lowerer) matVec(m value, v *Instr) *Instr {
	var acc *Instr
	for c := range m {
		col := m[c].x
		term := l.emit(OpFMul, col.Type, col, l.splat(l.extract(v, c), int(col.Type.Width)))
		if acc == nil {
			acc = term
		} else {
			acc = l.emit(OpFAdd, col.Type, acc, term)
		}
	}
	return acc
}

func (l *lowerer) dot(a, b *Instr) *Instr {
	p := l.emit(OpFMul, a.Type, a, b)
	acc := l.extract(p, 0)
	for i := 1; i < int(a.Type.Width); i++ {
		acc = l.emit(OpFAdd, Float, acc, l.extract(p, i))
	}
	return acc
}

// ---- constructors ----------------------------------------------------------

// convert changes a scalar to base b.
func (l *lowerer) convert(x *Instr, b Base) *Instr {
	if x.Type.Base == b {
		return x
	}
	switch {
	case x.Type.Base == BaseFloat && b == BaseInt:
		return l.emit(OpFToI, Int, x)
	case x.Type.Base == BaseInt && b == BaseFloat:
		return l.emit(OpIToF, Float, x)
	case x.Type.Base == BaseBool && b == BaseFloat:
		return l.emit(OpSelect, Float, x, l.b.ConstF(1), l.b.ConstF(0))
	case x.Type.Base == BaseBool && b == BaseInt:
		return l.emit(OpSelect, Int, x, l.b.ConstI(1), l.b.ConstI(0))
	case x.Type.Base == BaseFloat && b == BaseBool:
		return l.emit(OpFNe, Bool, x, l.b.ConstF(0))
	}
	return l.emit(OpINe, Bool, x, l.b.ConstI(0))
}

func (l *lowerer) construct(e *glsl.Construct) value {
	if v, ok := l.constructUint(e); ok {
		return v
	}
	t := e.Type()
	if t.Kind == glsl.Struct || t.Kind == glsl.Array {
		var out value
		for _, a := range e.Args {
			out = append(out, l.expr(a)...)
		}
		return out
	}
	// Single matrix argument to a matrix: resize.
	if t.IsMatrix() && len(e.Args) == 1 && e.Args[0].Type().IsMatrix() {
		src := l.expr(e.Args[0])
		n, m := t.Size(), e.Args[0].Type().Size()
		out := make(value, n)
		for c := 0; c < n; c++ {
			cs := make([]*Instr, n)
			for r := 0; r < n; r++ {
				switch {
				case c < m && r < m:
					cs[r] = l.extract(src[c].x, r)
				case c == r:
					cs[r] = l.b.ConstF(1)
				default:
					cs[r] = l.b.ConstF(0)
				}
			}
			out[c] = leaf{x: l.vec(cs)}
		}
		return out
	}
	var scalars []*Instr
	for _, a := range e.Args {
		for _, lf := range l.expr(a) {
			scalars = append(scalars, l.comps(lf.x)...)
		}
	}
	base := baseOf(t.Scalar())
	for i, s := range scalars {
		scalars[i] = l.convert(s, base)
	}
	switch {
	case t.IsScalar():
		return single(scalars[0])
	case t.IsVector():
		n := t.Size()
		if len(scalars) == 1 {
			return single(l.splat(scalars[0], n))
		}
		return single(l.vec(scalars[:n]))
	case t.IsMatrix():
		n := t.Size()
		out := make(value, n)
		for c := 0; c < n; c++ {
			cs := make([]*Instr, n)
			for r := 0; r < n; r++ {
				switch {
				case len(scalars) == 1 && r == c:
					cs[r] = scalars[0]
				case len(scalars) == 1:
					cs[r] = l.b.ConstF(0)
				default:
					cs[r] = scalars[c*n+r]
				}
			}
			out[c] = leaf{x: l.vec(cs)}
		}
		return out
	}
	l.fail("line %d: cannot construct %s", e.Pos(), t)
	return nil
}
