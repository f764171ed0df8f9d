package glsl

import "fmt"

// Expression parsing and checking (GLSL ES 1.00 chapter 5).

func (p *parser) bad(line int) Expr {
	return &ConstExpr{ExprInfo: ExprInfo{Line: line, Ty: errType}}
}

func isErr(es ...Expr) bool {
	for _, e := range es {
		if e.Type() == errType {
			return true
		}
	}
	return false
}

func maxPrec(a, b Precision) Precision {
	if a > b {
		return a
	}
	return b
}

// expression parses a comma expression.
func (p *parser) expression() Expr {
	x := p.assignment()
	for p.is(",") {
		t := p.next()
		y := p.assignment()
		s := &Sequence{ExprInfo: ExprInfo{Line: t.line, Ty: y.Type(), Prec: y.Precision()}, X: x, Y: y}
		if y.Type().Kind == Array || y.Type().ContainsSampler() {
			s.Ty = y.Type()
		}
		x = s
	}
	return x
}

// assignOps: the ES 3.10 ones (%= <<= ...) reach the parser only in 310
// shaders; in ES 1.00 checkTokens reports and repairs them first.
var assignOps = map[string]Op{"=": OpAssign, "+=": OpAddAssign, "-=": OpSubAssign, "*=": OpMulAssign, "/=": OpDivAssign,
	"%=": OpModAssign, "&=": OpAndAssign, "|=": OpOrAssign, "^=": OpXorAssign, "<<=": OpShlAssign, ">>=": OpShrAssign}

// nest counts one level of expression nesting (a prefix operator, an
// assignment's or a conditional's right-hand side), which the recursive
// descent turns into Go stack: deeper than maxNesting is an error, so no
// input can exhaust the stack. Use as defer p.nest(t)().
func (p *parser) nest(t token) func() {
	p.depth++
	if p.depth > maxNesting {
		p.fatal(t, "expression nested too deeply")
	}
	return func() { p.depth-- }
}

func (p *parser) assignment() Expr {
	defer p.nest(p.peek())()
	x := p.conditional()
	t := p.peek()
	op, ok := assignOps[t.text]
	if !ok || t.kind != tPunct {
		return x
	}
	p.next()
	y := p.assignment()
	a := &Assign{ExprInfo: ExprInfo{Line: t.line, Ty: x.Type(), Prec: x.Precision()}, Op: op, LHS: x, RHS: y}
	if isErr(x, y) {
		a.Ty = errType
		return a
	}
	p.checkLValue(x, t.text)
	if op == OpAssign {
		if !x.Type().Equal(y.Type()) {
			p.errorf(t.line, "=", "cannot convert from '"+y.Type().String()+"' to '"+x.Type().String()+"'")
			a.Ty = errType
		} else if x.Type().Kind == Array && (p.unit.Version != 310 || x.Type().IsRuntimeArray()) || x.Type().ContainsSampler() {
			p.errorf(t.line, "=", "cannot assign arrays or samplers")
		}
		return a
	}
	rt := p.operatorType(binOpOf(op), x.Type(), y.Type())
	if rt == nil || !rt.Equal(x.Type()) {
		if !t.repaired {
			p.errorf(t.line, t.text, "wrong operand types: no operation '"+t.text+"' exists that takes a left-hand operand of type '"+
				x.Type().String()+"' and a right operand of type '"+y.Type().String()+"'")
		}
		a.Ty = errType
	}
	return a
}

func binOpOf(op Op) Op {
	switch op {
	case OpAddAssign:
		return OpAdd
	case OpSubAssign:
		return OpSub
	case OpMulAssign:
		return OpMul
	case OpDivAssign:
		return OpDiv
	case OpModAssign:
		return OpMod
	case OpAndAssign:
		return OpBitAnd
	case OpOrAssign:
		return OpBitOr
	case OpXorAssign:
		return OpBitXor
	case OpShlAssign:
		return OpShl
	case OpShrAssign:
		return OpShr
	}
	return op
}

// checkLValue reports an expression that cannot be assigned, and marks
// the variable written.
func (p *parser) checkLValue(e Expr, op string) bool {
	switch x := e.(type) {
	case *Ident:
		v := x.Var
		x.Var.Written = true
		for _, li := range p.loopIndices {
			if li.v == v {
				li.written = true
			}
		}
		bad := ""
		switch {
		case v.Storage == StorageConst || v.Storage == StorageConstIn:
			bad = "cannot modify a const variable"
		case v.Storage == StorageUniform:
			bad = "cannot modify a uniform"
		case v.Storage == StorageAttribute:
			bad = "cannot modify an attribute"
		case v.Storage == StorageVarying && p.stage == Fragment:
			bad = "cannot modify a varying in a fragment shader"
		case v.Builtin && (v.Value != nil || v.Name == "gl_FragCoord" || v.Name == "gl_FrontFacing" || v.Name == "gl_PointCoord" ||
			computeInputs[v.Name]):
			bad = "cannot modify a read-only built-in variable"
		case v.Storage == StorageBuffer && (v.Block.Readonly || v.Member >= 0 && v.Block.MemberReadonly[v.Member]):
			bad = "cannot modify a readonly buffer block"
		}
		if bad != "" {
			p.errorf(x.Line, v.Name, "l-value required ("+bad+")")
			return false
		}
		if v.Builtin {
			p.noteBuiltinWrite(v, x.Line)
		}
		return true
	case *Index:
		return p.checkLValue(x.X, op)
	case *FieldSelect:
		if id, ok := x.X.(*Ident); ok && id.Var.Storage == StorageBuffer && id.Var.Block != nil &&
			x.Field < len(id.Var.Block.MemberReadonly) && id.Var.Block.MemberReadonly[x.Field] {
			p.errorf(x.Line, x.Name, "l-value required (cannot modify a readonly buffer member)")
			return false
		}
		return p.checkLValue(x.X, op)
	case *Swizzle:
		seen := 0
		for _, c := range x.Components {
			if seen&(1<<c) != 0 {
				p.errorf(x.Line, op, "l-value of swizzle cannot have duplicate components")
				return false
			}
			seen |= 1 << c
		}
		return p.checkLValue(x.X, op)
	}
	p.errorf(e.Pos(), op, "l-value required")
	return false
}

func (p *parser) conditional() Expr {
	c := p.binary(0)
	if !p.is("?") {
		return c
	}
	t := p.next()
	a := p.expression()
	p.expect(":")
	b := p.assignment()
	e := &Cond{ExprInfo: ExprInfo{Line: t.line, Ty: a.Type(), Prec: maxPrec(a.Precision(), b.Precision())}, Cond: c, Then: a, Else: b}
	if isErr(c, a, b) {
		e.Ty = errType
		return e
	}
	if !c.Type().Equal(TypeBool) {
		p.errorf(t.line, "?", "boolean expression expected")
		e.Ty = errType
		return e
	}
	if !a.Type().Equal(b.Type()) {
		p.errorf(t.line, ":", "wrong operand types: true and false expressions of ?: must have the same type")
		e.Ty = errType
		return e
	}
	if a.Type().Kind == Array {
		p.errorf(t.line, "?", "?: cannot operate on arrays")
	}
	if cv := c.Value(); cv != nil && a.Value() != nil && b.Value() != nil {
		if cv[0].B {
			e.Val = a.Value()
		} else {
			e.Val = b.Value()
		}
	}
	return e
}

// binPrec is GLSL ES 3.10 §5.1's precedence table; the bit, shift and %
// operators reach the parser only in 310 shaders (ES 1.00 reserves them:
// checkTokens reports and repairs them first).
var binPrec = map[string]int{"||": 1, "^^": 2, "&&": 3, "|": 4, "^": 5, "&": 6, "==": 7, "!=": 7,
	"<": 8, ">": 8, "<=": 8, ">=": 8, "<<": 9, ">>": 9, "+": 10, "-": 10, "*": 11, "/": 11, "%": 11}
var binOps = map[string]Op{"||": OpOr, "^^": OpXor, "&&": OpAnd, "==": OpEq, "!=": OpNotEq, "<": OpLess, ">": OpGreater,
	"<=": OpLessEq, ">=": OpGreaterEq, "+": OpAdd, "-": OpSub, "*": OpMul, "/": OpDiv,
	"%": OpMod, "&": OpBitAnd, "|": OpBitOr, "^": OpBitXor, "<<": OpShl, ">>": OpShr}

func (p *parser) binary(minPrec int) Expr {
	x := p.unary()
	for {
		t := p.peek()
		prec, ok := binPrec[t.text]
		if t.kind != tPunct || !ok || prec <= minPrec {
			return x
		}
		p.next()
		y := p.binary(prec)
		x = p.makeBinary(t, binOps[t.text], x, y)
	}
}

// arithType returns the result type of an arithmetic operator on operand
// types a and b, or nil when the operation does not exist (no implicit
// conversions, GLSL ES 1.00 section 5.9).
func (p *parser) arithType(op Op, a, b *Type) *Type {
	if !a.IsNumeric() || !b.IsNumeric() || a.Scalar() != b.Scalar() {
		return nil
	}
	switch {
	case a.Equal(b):
		return a
	case a.IsScalar():
		return b
	case b.IsScalar():
		return a
	case op == OpMul && a.IsMatrix() && b.IsVector() && a.Size() == b.Size():
		return b
	case op == OpMul && a.IsVector() && b.IsMatrix() && a.Size() == b.Size():
		return a
	}
	return nil
}

// operatorType returns the result type of a binary arithmetic, integer or
// bit operator, or nil when it does not exist.
func (p *parser) operatorType(op Op, a, b *Type) *Type {
	switch op {
	case OpMod, OpBitAnd, OpBitOr, OpBitXor:
		// GLSL ES 3.10 §5.9: both int or both uint; a scalar may pair
		// with a vector.
		if !a.IsInteger() || !b.IsInteger() || a.Scalar() != b.Scalar() {
			return nil
		}
		switch {
		case a.Equal(b), b.IsScalar():
			return a
		case a.IsScalar():
			return b
		}
		return nil
	case OpShl, OpShr:
		// Signedness may differ; a scalar shifts only by a scalar, a
		// vector by a scalar or a vector of its size. The result has
		// the left operand's type.
		if !a.IsInteger() || !b.IsInteger() || !(b.IsScalar() || a.IsVector() && a.Size() == b.Size()) {
			return nil
		}
		return a
	}
	return p.arithType(op, a, b)
}

func (p *parser) makeBinary(t token, op Op, x, y Expr) Expr {
	e := &Binary{ExprInfo: ExprInfo{Line: t.line, Prec: maxPrec(x.Precision(), y.Precision())}, Op: op, X: x, Y: y}
	if isErr(x, y) {
		e.Ty = errType
		return e
	}
	a, b := x.Type(), y.Type()
	switch op {
	case OpAdd, OpSub, OpMul, OpDiv, OpMod, OpBitAnd, OpBitOr, OpBitXor, OpShl, OpShr:
		e.Ty = p.operatorType(op, a, b)
	case OpLess, OpGreater, OpLessEq, OpGreaterEq:
		if a.Equal(b) && (a.Kind == Float || a.Kind == Int || a.Kind == Uint) {
			e.Ty = TypeBool
		}
	case OpEq, OpNotEq:
		if a.Equal(b) && a.Kind != Array && !a.ContainsArray() && !a.ContainsSampler() && a.Kind != Void {
			e.Ty = TypeBool
		}
	case OpAnd, OpOr, OpXor:
		if a.Equal(TypeBool) && b.Equal(TypeBool) {
			e.Ty = TypeBool
		}
	}
	if e.Ty == nil {
		if !t.repaired {
			p.errorf(t.line, t.text, "wrong operand types: no operation '"+t.text+"' exists that takes a left-hand operand of type '"+
				a.String()+"' and a right operand of type '"+b.String()+"'")
		}
		e.Ty = errType
		return e
	}
	if e.Ty.Kind == Bool && op != OpAdd {
		e.Prec = PrecisionNone
	}
	if xv, yv := x.Value(), y.Value(); xv != nil && yv != nil {
		e.Val = foldBinary(op, a, b, e.Ty, xv, yv)
	}
	return e
}

func (p *parser) unary() Expr {
	t := p.peek()
	defer p.nest(t)()
	// Every operand passes here: bound the size of the expression trees
	// (and what lowering them costs) before they are built.
	p.operands++
	if p.operands > MaxOperands {
		p.fatal(t, fmt.Sprintf("shader too large: more than %d operands in expressions", MaxOperands))
	}
	if t.kind == tPunct {
		var op Op
		switch t.text {
		case "-":
			op = OpNeg
		case "+":
			op = OpPlus
		case "!":
			op = OpNot
		case "++":
			op = OpPreInc
		case "--":
			op = OpPreDec
		case "~": // reaches the parser only in 310 shaders (checkTokens)
			op = OpBitNot
		}
		if op != OpNone {
			p.next()
			x := p.unary()
			return p.makeUnary(t, op, x)
		}
	}
	return p.postfix()
}

func (p *parser) makeUnary(t token, op Op, x Expr) Expr {
	e := &Unary{ExprInfo: ExprInfo{Line: t.line, Ty: x.Type(), Prec: x.Precision()}, Op: op, X: x}
	if isErr(x) {
		return e
	}
	ty := x.Type()
	ok := false
	switch op {
	case OpNeg, OpPlus:
		ok = ty.IsNumeric()
	case OpNot:
		ok = ty.Equal(TypeBool)
	case OpBitNot:
		ok = ty.IsInteger()
	case OpPreInc, OpPreDec, OpPostInc, OpPostDec:
		ok = ty.IsNumeric()
		if ok {
			p.checkLValue(x, t.text)
		}
	}
	if !ok {
		if !t.repaired {
			p.errorf(t.line, t.text, "wrong operand type: no operation '"+t.text+"' exists that takes an operand of type '"+ty.String()+"'")
		}
		e.Ty = errType
		return e
	}
	if v := x.Value(); v != nil && (op == OpNeg || op == OpPlus || op == OpNot || op == OpBitNot) {
		e.Val = foldUnary(op, v)
	}
	return e
}

func (p *parser) postfix() Expr {
	x := p.primary()
	for {
		t := p.peek()
		if t.kind != tPunct {
			return x
		}
		switch t.text {
		case "[":
			p.next()
			i := p.expression()
			p.expect("]")
			x = p.makeIndex(t, x, i)
		case ".":
			p.next()
			nt := p.peek()
			if nt.kind != tIdent {
				p.syntax(nt, "syntax error, expected a field name")
			}
			p.next()
			if nt.text == "length" && p.unit.Version == 310 && p.is("(") {
				x = p.lengthMethod(nt, x)
				continue
			}
			x = p.makeField(nt, x)
		case "++", "--":
			p.next()
			op := OpPostInc
			if t.text == "--" {
				op = OpPostDec
			}
			x = p.makeUnary(t, op, x)
		default:
			return x
		}
	}
}

func (p *parser) makeIndex(t token, x, i Expr) Expr {
	e := &Index{ExprInfo: ExprInfo{Line: t.line, Prec: x.Precision()}, X: x, Index: i}
	if isErr(x, i) {
		e.Ty = errType
		return e
	}
	xt := x.Type()
	size := 0
	switch {
	case xt.Kind == Array:
		e.Ty, size = xt.Elem, xt.Len
	case xt.IsVector():
		e.Ty, size = VectorType(xt.Scalar(), 1), xt.Size()
	case xt.IsMatrix():
		e.Ty, size = xt.Column(), xt.Size()
	default:
		p.errorf(t.line, "[", "left of '[' is not of type array, matrix, or vector")
		e.Ty = errType
		return e
	}
	if !i.Type().Equal(TypeInt) && !i.Type().Equal(TypeUint) {
		p.errorf(t.line, "[", "integer expression required for an index")
		e.Ty = errType
		return e
	}
	if iv := i.Value(); iv != nil {
		if iv[0].Kind == Uint && uint32(iv[0].I) > 1<<30 || iv[0].I < 0 || int(iv[0].I) >= size && !xt.IsRuntimeArray() {
			p.errorf(t.line, "[", "index out of range")
			e.Ty = errType
			return e
		}
		if xv := x.Value(); xv != nil {
			n := e.Ty.Components()
			e.Val = xv[int(iv[0].I)*n : int(iv[0].I+1)*n]
		}
	} else if xt.Kind == Array && xt.Elem.IsSampler() {
		var refs []*loopIndex
		if !p.constantIndexExpr(i, &refs) {
			p.errorf(t.line, "[", "samplers may be indexed only with constant-index expressions "+
				"(constant expressions and loop indices, GLSL ES 1.00 Appendix A §5)")
		}
		for _, li := range refs {
			li.samplerUses = append(li.samplerUses, t.line)
		}
	}
	return e
}

// constantIndexExpr reports whether e is a constant-index expression
// (GLSL ES 1.00 Appendix A §5): constant expressions, indices of the
// enclosing loops of Appendix A §4's form, and expressions composed of
// them with operators, constructors, built-in functions, selection and
// indexing, without side effects. It appends the loop indices e uses to
// refs.
func (p *parser) constantIndexExpr(e Expr, refs *[]*loopIndex) bool {
	if e.Value() != nil {
		return true
	}
	switch x := e.(type) {
	case *Ident:
		for k := len(p.loopIndices) - 1; k >= 0; k-- {
			if li := p.loopIndices[k]; li.v == x.Var {
				*refs = append(*refs, li)
				return true
			}
		}
	case *Unary:
		switch x.Op {
		case OpPreInc, OpPreDec, OpPostInc, OpPostDec:
			return false
		}
		return p.constantIndexExpr(x.X, refs)
	case *Binary:
		return p.constantIndexExpr(x.X, refs) && p.constantIndexExpr(x.Y, refs)
	case *Cond:
		return p.constantIndexExpr(x.Cond, refs) && p.constantIndexExpr(x.Then, refs) && p.constantIndexExpr(x.Else, refs)
	case *Construct:
		return p.allConstantIndex(x.Args, refs)
	case *Call:
		return x.Func == nil && p.allConstantIndex(x.Args, refs)
	case *Swizzle:
		return p.constantIndexExpr(x.X, refs)
	case *FieldSelect:
		return p.constantIndexExpr(x.X, refs)
	case *Index:
		return p.constantIndexExpr(x.X, refs) && p.constantIndexExpr(x.Index, refs)
	}
	return false
}

func (p *parser) allConstantIndex(args []Expr, refs *[]*loopIndex) bool {
	for _, a := range args {
		if !p.constantIndexExpr(a, refs) {
			return false
		}
	}
	return true
}

var swizzleSets = [3]string{"xyzw", "rgba", "stpq"}

func (p *parser) makeField(nt token, x Expr) Expr {
	if isErr(x) {
		return p.bad(nt.line)
	}
	xt := x.Type()
	if xt.Kind == Struct {
		for i, f := range xt.Struct.Fields {
			if f.Name == nt.text {
				e := &FieldSelect{ExprInfo: ExprInfo{Line: nt.line, Ty: f.Type, Prec: f.Precision}, X: x, Name: nt.text, Field: i}
				if xv := x.Value(); xv != nil {
					off := 0
					for _, g := range xt.Struct.Fields[:i] {
						off += g.Type.Components()
					}
					e.Val = xv[off : off+f.Type.Components()]
				}
				return e
			}
		}
		p.errorf(nt.line, nt.text, "no such field in structure")
		return p.bad(nt.line)
	}
	if !xt.IsVector() {
		p.errorf(nt.line, nt.text, "field selection requires a structure or vector on the left")
		return p.bad(nt.line)
	}
	name := nt.text
	if len(name) > 4 {
		p.errorf(nt.line, name, "illegal vector field selection")
		return p.bad(nt.line)
	}
	var comps []int
	set := -1
	for i := 0; i < len(name); i++ {
		found := false
		for s, letters := range swizzleSets {
			for k := 0; k < 4; k++ {
				if letters[k] == name[i] {
					if set >= 0 && set != s {
						p.errorf(nt.line, name, "illegal vector field selection: mixed component sets")
						return p.bad(nt.line)
					}
					set = s
					found = true
					comps = append(comps, k)
				}
			}
		}
		if !found {
			p.errorf(nt.line, name, "illegal vector field selection")
			return p.bad(nt.line)
		}
		if comps[len(comps)-1] >= xt.Size() {
			p.errorf(nt.line, name, "vector field selection out of range")
			return p.bad(nt.line)
		}
	}
	e := &Swizzle{ExprInfo: ExprInfo{Line: nt.line, Ty: VectorType(xt.Scalar(), len(comps)), Prec: x.Precision()}, X: x, Components: comps}
	if xv := x.Value(); xv != nil {
		for _, c := range comps {
			e.Val = append(e.Val, xv[c])
		}
	}
	return e
}

// maxNesting bounds expression nesting so hostile input cannot exhaust the stack.
const maxNesting = 512

func (p *parser) primary() Expr {
	t := p.peek()
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		p.fatal(t, "expression nested too deeply")
	}
	switch t.kind {
	case tNumber:
		p.next()
		if p.unit.Version == 310 && isUintLiteral(t.text) {
			u, _ := parseIntLiteral(t.text[:len(t.text)-1])
			if u > 0xFFFFFFFF {
				p.errorf(t.line, t.text, "integer constant overflow")
			}
			return &ConstExpr{ExprInfo: ExprInfo{Line: t.line, Ty: TypeUint, Val: Value{{Kind: Uint, I: int32(uint32(u))}}}}
		}
		isFloat, v, _ := numberValue(t.text)
		if isFloat {
			return &ConstExpr{ExprInfo: ExprInfo{Line: t.line, Ty: TypeFloat, Val: Value{{Kind: Float, F: float32(v)}}}}
		}
		if v > 2147483647 {
			p.errorf(t.line, t.text, "integer constant overflow")
		}
		return &ConstExpr{ExprInfo: ExprInfo{Line: t.line, Ty: TypeInt, Val: Value{{Kind: Int, I: int32(int64(v))}}}}
	case tPunct:
		if t.text == "(" {
			p.next()
			e := p.expression()
			p.expect(")")
			return e
		}
	case tIdent:
		if t.text == "true" || t.text == "false" {
			p.next()
			return &ConstExpr{ExprInfo: ExprInfo{Line: t.line, Ty: TypeBool, Val: Value{{Kind: Bool, B: t.text == "true"}}}}
		}
		if p.isTypeStart() {
			line := t.line
			ty, st := p.typeSpecifier()
			if st != nil {
				p.errorf(line, "struct", "structure definitions are not allowed in constructors")
			}
			if p.is("[") && p.unit.Version == 310 {
				return p.arrayConstructor(line, ty)
			}
			if p.is("[") {
				// GLSL ES 1.00 has no array constructors (section 5.4.4):
				// one error, then the construct is skipped.
				p.errorf(line, ty.String(), "array constructors are not allowed")
				p.next()
				if !p.is("]") {
					p.arraySize()
				}
				p.expect("]")
				p.arguments()
				return p.bad(line)
			}
			args := p.arguments()
			return p.construct(line, ty, args)
		}
		if keywords[t.text] {
			p.syntax(t, "syntax error, unexpected keyword")
		}
		p.next()
		if p.is("(") {
			args := p.arguments()
			return p.call(t, args)
		}
		sym := p.lookup(t.text)
		v, ok := sym.(*Variable)
		if !ok {
			switch {
			case p.skippedNames[t.text] || !p.reportUnknown(t.text):
			case sym == nil:
				p.errorf(t.line, t.text, "undeclared identifier")
			default:
				p.errorf(t.line, t.text, "not a variable")
			}
			return p.bad(t.line)
		}
		v.Used = true
		if v.Builtin {
			p.noteBuiltinUse(t, v)
		}
		e := &Ident{ExprInfo: ExprInfo{Line: t.line, Ty: v.Type, Prec: v.Precision}, Var: v}
		if v.Storage == StorageConst && v.Value != nil {
			e.Val = v.Value
		}
		return e
	}
	p.syntax(t, "syntax error, unexpected token")
	return nil
}

// arguments parses "( args )"; "(void)" is an empty list.
func (p *parser) arguments() []Expr {
	p.expect("(")
	var args []Expr
	if p.is("void") && p.peekAt(1).text == ")" {
		p.next()
	}
	for !p.is(")") {
		args = append(args, p.assignment())
		if !p.accept(",") {
			break
		}
	}
	p.expect(")")
	return args
}

// construct checks a constructor call (GLSL ES 1.00 section 5.4).
func (p *parser) construct(line int, ty *Type, args []Expr) Expr {
	e := &Construct{ExprInfo: ExprInfo{Line: line, Ty: ty}, Args: args}
	for _, a := range args {
		if isErr(a) {
			e.Ty = errType
			return e
		}
		e.Prec = maxPrec(e.Prec, a.Precision())
	}
	fail := func(msg string) Expr {
		p.errorf(line, ty.String(), msg)
		e.Ty = errType
		return e
	}
	if len(args) == 0 {
		return fail("constructor needs arguments")
	}
	if ty.Kind == Struct {
		fs := ty.Struct.Fields
		if len(args) != len(fs) {
			return fail("wrong number of arguments to structure constructor")
		}
		for i, a := range args {
			if !a.Type().Equal(fs[i].Type) {
				return fail("structure constructor argument type mismatch")
			}
		}
	} else {
		if !ty.IsScalar() && !ty.IsVector() && !ty.IsMatrix() {
			return fail("cannot construct this type")
		}
		total := 0
		for i, a := range args {
			at := a.Type()
			if !at.IsScalar() && !at.IsVector() && !at.IsMatrix() {
				return fail("constructor argument must be a scalar, vector or matrix")
			}
			if ty.IsMatrix() && at.IsMatrix() && len(args) > 1 {
				return fail("matrix constructor from a matrix takes only one argument")
			}
			if total >= ty.Components() && !(ty.IsScalar() && i == 0) {
				return fail("too many arguments to constructor")
			}
			total += at.Components()
		}
		single := len(args) == 1 && (args[0].Type().IsScalar() || ty.IsScalar() || ty.IsMatrix() && args[0].Type().IsMatrix())
		if !single && total < ty.Components() {
			return fail("not enough data provided for construction")
		}
		if ty.IsScalar() && len(args) > 1 {
			return fail("too many arguments to constructor")
		}
	}
	if ty.Scalar() == Bool || ty.Kind == Struct {
		e.Prec = PrecisionNone
	}
	all := true
	for _, a := range args {
		if a.Value() == nil {
			all = false
		}
	}
	if all {
		e.Val = foldConstruct(ty, args)
	}
	return e
}

// call resolves a function call by exact parameter types.
func (p *parser) call(t token, args []Expr) Expr {
	for _, a := range args {
		if isErr(a) {
			return p.bad(t.line)
		}
	}
	sym := p.lookup(t.text)
	if set, ok := sym.(*funcSet); ok {
		for _, f := range set.overloads {
			if !sameArgTypes(f.Params, args) {
				continue
			}
			c := &Call{ExprInfo: ExprInfo{Line: t.line, Ty: f.Return, Prec: f.Precision}, Func: f, Args: args}
			for i, prm := range f.Params {
				if prm.Storage == StorageOut || prm.Storage == StorageInOut {
					p.checkLValue(args[i], t.text)
				}
			}
			if p.fn != nil {
				p.fn.Calls = append(p.fn.Calls, f)
			}
			if p.calledFuncs == nil {
				p.calledFuncs = map[*Function]bool{}
			}
			p.calledFuncs[f] = true
			return c
		}
		if sigs, ok := p.builtinFuncs[t.text]; ok {
			return p.builtinCall(t, sigs, args)
		}
		p.errorf(t.line, t.text, "no matching overloaded function found")
		return p.bad(t.line)
	}
	if sym != nil {
		if _, isBuiltinSet := sym.(builtinMarker); !isBuiltinSet {
			p.errorf(t.line, t.text, "not a function")
			return p.bad(t.line)
		}
	}
	if sigs, ok := p.builtinFuncs[t.text]; ok {
		return p.builtinCall(t, sigs, args)
	}
	p.errorf(t.line, t.text, "no matching overloaded function found")
	return p.bad(t.line)
}

func sameArgTypes(params []*Variable, args []Expr) bool {
	if len(params) != len(args) {
		return false
	}
	for i := range params {
		if !params[i].Type.Equal(args[i].Type()) {
			return false
		}
	}
	return true
}
