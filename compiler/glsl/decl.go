package glsl

import "fmt"

// quals are the qualifiers in front of a declaration.
type quals struct {
	invariant bool
	storage   Storage
	prec      Precision
	line      int
	tok       string
	any       bool
}

var qualRank = map[string]int{
	"invariant": 0, "const": 1, "attribute": 1, "uniform": 1, "varying": 1,
	"in": 2, "out": 2, "inout": 2, "lowp": 3, "mediump": 3, "highp": 3,
}

// invariantBuiltins are the built-in variables that may be redeclared
// invariant (GLSL ES 1.00 section 4.6.1: the vertex shader's outputs, the
// fragment shader's inputs and outputs; section 4.6.4 excludes
// gl_FrontFacing, which the invariant statement rejects by name).
var invariantBuiltins = map[string]bool{
	"gl_Position": true, "gl_PointSize": true, "gl_FragCoord": true, "gl_FrontFacing": true, "gl_PointCoord": true,
	"gl_FragColor": true, "gl_FragData": true,
}

func isQualifier(s string) bool { _, ok := qualRank[s]; return ok }

// qualifiers parses qualifiers in the order GLSL ES 1.00 requires:
// invariant, storage, parameter, precision.
func (p *parser) qualifiers() quals {
	q := quals{line: p.peek().line}
	last := -1
	for p.peek().kind == tIdent && isQualifier(p.peek().text) {
		t := p.next()
		r := qualRank[t.text]
		if r < last || r == last && !(t.text == "in" && q.storage == StorageConst) {
			p.errorf(t.line, t.text, "invalid qualifier order or repeated qualifier")
		}
		if r == 2 && last == 1 && q.storage != StorageConst {
			p.errorf(t.line, t.text, "invalid combination of qualifiers")
		}
		last = r
		if !q.any {
			q.tok = t.text
		}
		q.any = true
		switch t.text {
		case "invariant":
			q.invariant = true
		case "const":
			q.storage = StorageConst
		case "attribute":
			q.storage = StorageAttribute
		case "uniform":
			q.storage = StorageUniform
		case "varying":
			q.storage = StorageVarying
		case "in":
			if q.storage == StorageConst {
				q.storage = StorageConstIn
			} else {
				q.storage = StorageIn
			}
		case "out":
			q.storage = StorageOut
		case "inout":
			q.storage = StorageInOut
		case "lowp":
			q.prec = Lowp
		case "mediump":
			q.prec = Mediump
		case "highp":
			q.prec = Highp
		}
	}
	return q
}

// isTypeStart reports whether the current token starts a type specifier.
func (p *parser) isTypeStart() bool {
	t := p.peek()
	if t.kind != tIdent {
		return false
	}
	if typeKeywords[t.text] != nil || t.text == "struct" {
		return true
	}
	_, ok := p.lookup(t.text).(*Type)
	return ok
}

// typeSpecifier parses a basic type, a struct name or a struct definition.
// It returns the struct declared, if any.
func (p *parser) typeSpecifier() (*Type, *StructType) {
	t := p.peek()
	if ty := typeKeywords[t.text]; ty != nil && t.kind == tIdent {
		p.next()
		return ty, nil
	}
	if t.text == "struct" {
		return p.structSpecifier()
	}
	if ty, ok := p.lookup(t.text).(*Type); ok && t.kind == tIdent {
		p.next()
		return ty, nil
	}
	p.syntax(t, "syntax error, expected a type")
	return nil, nil
}

// typeSpecifierNoPrec parses a type specifier with its optional array
// size: GLSL ES 1.00 section 9's type_specifier_no_prec, which allows
// "float[2] x" in declarations, parameters and structure members as well
// as "float x[2]".
func (p *parser) typeSpecifierNoPrec() (*Type, *StructType) {
	ty, st := p.typeSpecifier()
	if p.is("[") {
		line := p.peek().line
		p.next()
		n := p.arraySize()
		p.expect("]")
		if ty.Kind == Void {
			p.errorf(line, "void", "cannot declare an array of void")
		}
		ty = ArrayOf(ty, n)
	}
	return ty, st
}

func (p *parser) structSpecifier() (*Type, *StructType) {
	start := p.expect("struct")
	st := &StructType{Line: start.line}
	var nameTok token
	if p.peek().kind == tIdent && !p.is("{") {
		nameTok = p.ident()
		st.Name = nameTok.text
		p.checkNewName(nameTok)
	}
	ty := &Type{Kind: Struct, Struct: st}
	p.expect("{")
	if !p.global() || true {
		// Struct members live in their own name space.
	}
	seen := map[string]bool{}
	for !p.is("}") {
		mq := p.qualifiers()
		if mq.storage != StorageLocal || mq.invariant {
			p.errorf(mq.line, mq.tok, "qualifiers are not allowed on structure members")
		}
		mt, _ := p.typeSpecifierNoPrec()
		if mt.Kind == Void {
			p.errorf(mq.line, "void", "structure member cannot be void")
		}
		for {
			nt := p.ident()
			ft := mt
			if p.is("[") {
				if mt.Kind == Array {
					p.errorf(nt.line, nt.text, "arrays of arrays are not allowed")
				}
				p.next()
				ft = ArrayOf(mt, p.arraySize())
				p.expect("]")
			}
			if seen[nt.text] {
				p.errorf(nt.line, nt.text, "duplicate field name in structure")
			}
			seen[nt.text] = true
			p.checkNewName(nt)
			prec := p.resolvePrecision(nt.line, nt.text, ft, mq.prec)
			st.Fields = append(st.Fields, Field{Name: nt.text, Type: ft, Precision: prec})
			if !p.accept(",") {
				break
			}
		}
		p.expect(";")
	}
	p.expect("}")
	if len(st.Fields) == 0 {
		p.errorf(start.line, "struct", "structure has no members")
	}
	if st.Name != "" {
		p.declare(nameTok, ty)
	}
	return ty, st
}

// arraySize parses and checks a constant array size expression.
func (p *parser) arraySize() int {
	e := p.conditional()
	v := e.Value()
	if v == nil || !e.Type().Equal(TypeInt) && !e.Type().Equal(TypeUint) {
		if e.Type() != errType {
			p.errorf(e.Pos(), "[", "array size must be a constant integer expression")
		}
		return 1
	}
	if v[0].I <= 0 { // a uint from 2^31 up is too large anyway
		p.errorf(e.Pos(), "[", "array size must be greater than zero")
		return 1
	}
	return int(v[0].I)
}

// external parses one global declaration or function definition.
func (p *parser) external() {
	if p.accept(";") {
		return
	}
	if p.computeExternal() {
		return
	}
	s := p.declaration(true)
	if s != nil {
		p.unit.Decls = append(p.unit.Decls, s)
	}
}

// declaration parses a declaration statement (global or local) or, at
// global scope, a function prototype or definition.
func (p *parser) declaration(global bool) Stmt {
	start := p.peek()
	if start.text == "precision" && start.kind == tIdent {
		p.next()
		q := p.qualifiers()
		if q.prec == PrecisionNone || q.storage != StorageLocal || q.invariant {
			p.syntax(p.peek(), "syntax error, expected a precision qualifier")
		}
		ty, _ := p.typeSpecifier()
		if ty.Kind != Float && ty.Kind != Int && !ty.IsSampler() {
			p.errorf(start.line, ty.String(), "precision statements apply only to float, int and sampler types")
		}
		p.expect(";")
		p.top().precision[ty.Kind] = q.prec
		return &PrecisionStmt{StmtInfo: StmtInfo{start.line}, Precision: q.prec, Type: ty}
	}
	if start.text == "invariant" && start.kind == tIdent && p.peekAt(1).kind == tIdent && !isQualifier(p.peekAt(1).text) {
		p.next()
		st := &InvariantStmt{StmtInfo: StmtInfo{start.line}}
		if !global {
			p.errorf(start.line, "invariant", "invariant declarations are allowed only at global scope")
		}
		for {
			nt := p.ident()
			v, _ := p.lookup(nt.text).(*Variable)
			switch {
			case v == nil:
				p.errorf(nt.line, nt.text, "undeclared identifier")
			case !(v.Storage == StorageVarying && v.Global || v.Builtin && invariantBuiltins[v.Name]):
				p.errorf(nt.line, nt.text, "only varyings and built-in shader inputs/outputs can be declared invariant")
			case v.Used:
				p.errorf(nt.line, nt.text, "invariant declaration must precede any use of the variable")
			case v.Name == "gl_FrontFacing" && v.Builtin:
				// Section 4.6.4: gl_FrontFacing cannot be invariant.
				p.errorf(nt.line, nt.text, "gl_FrontFacing cannot be declared invariant")
			default:
				v.Invariant = true
				if v.Builtin {
					p.unit.InvariantBuiltins[v.Name] = true
				}
				st.Vars = append(st.Vars, v)
			}
			if !p.accept(",") {
				break
			}
		}
		p.expect(";")
		return st
	}
	q := p.qualifiers()
	ty, st := p.typeSpecifierNoPrec()
	ds := &DeclStmt{StmtInfo: StmtInfo{start.line}, Struct: st}
	if p.accept(";") {
		if q.any && st == nil {
			// e.g. "uniform float;" declares nothing.
			if q.invariant {
				p.errorf(q.line, "invariant", "invariant needs a variable")
			}
		}
		return ds
	}
	nameTok := p.ident()
	if p.is("(") {
		if !global {
			p.syntax(nameTok, "function declarations are allowed only at global scope")
		}
		return p.function(q, ty, nameTok)
	}
	p.checkStorage(q, ty, global)
	for {
		p.declarator(ds, q, ty, nameTok)
		if !p.accept(",") {
			break
		}
		nameTok = p.ident()
	}
	p.expect(";")
	return ds
}

// checkStorage applies the rules about where each storage qualifier may
// be used and with which types (GLSL ES 1.00 section 4.3).
func (p *parser) checkStorage(q quals, ty *Type, global bool) {
	line := q.line
	switch q.storage {
	case StorageIn, StorageOut, StorageInOut, StorageConstIn:
		p.errorf(line, q.tok, "parameter qualifiers are allowed only on function parameters")
	case StorageAttribute:
		if p.stage != Vertex {
			p.errorf(line, "attribute", "attributes are allowed only in vertex shaders")
		}
		if !global {
			p.errorf(line, "attribute", "attributes must be declared at global scope")
		}
		if ty.Scalar() != Float || ty.Kind == Array {
			p.errorf(line, "attribute", "attributes must be float, vector or matrix")
		}
	case StorageVarying:
		if p.stage == Compute {
			p.errorf(line, "varying", "varyings are not allowed in compute shaders")
		}
		if !global {
			p.errorf(line, "varying", "varyings must be declared at global scope")
		}
		if ty.Kind == Struct || ty.Scalar() != Float {
			p.errorf(line, "varying", "varyings must be float, vector, matrix or arrays of them")
		}
	case StorageUniform:
		if !global {
			p.errorf(line, "uniform", "uniforms must be declared at global scope")
		}
	}
	if q.invariant && q.storage != StorageVarying {
		p.errorf(line, "invariant", "only varyings can be invariant")
	}
	if q.invariant && !global {
		p.errorf(line, "invariant", "invariant is allowed only at global scope")
	}
	if ty.Kind == Void {
		p.errorf(line, "void", "variables cannot be void")
	}
	if ty.ContainsSampler() && q.storage != StorageUniform {
		p.errorf(line, ty.String(), "samplers must be uniforms")
	}
}

// declarator parses the rest of one variable declaration after its name.
func (p *parser) declarator(ds *DeclStmt, q quals, ty *Type, nameTok token) {
	vt := ty
	if p.accept("[") {
		if ty.Kind == Array {
			p.errorf(nameTok.line, nameTok.text, "arrays of arrays are not allowed")
		}
		n := p.arraySize()
		p.expect("]")
		vt = ArrayOf(ty, n)
		if q.storage == StorageAttribute {
			p.errorf(nameTok.line, nameTok.text, "attributes cannot be arrays")
		}
		if q.storage == StorageConst && p.unit.Version != 310 { // ES 3.00 §4.1.9 allows them
			p.errorf(nameTok.line, nameTok.text, "const arrays are not allowed")
		}
	}
	p.checkNewName(nameTok)
	// The parser builds nothing of a variable's size, so a too large
	// one keeps its type and its uses are checked as usual.
	p.checkDeclSize(nameTok.line, nameTok.text, vt, q.storage, "variable")
	v := &Variable{Name: nameTok.text, Type: vt, Storage: q.storage, Invariant: q.invariant, Global: p.global(), Line: nameTok.line}
	v.Precision = p.resolvePrecision(nameTok.line, nameTok.text, vt, q.prec)
	if q.storage == StorageVarying && p.stage == Vertex && p.unit.InvariantAll {
		v.Invariant = true
	}
	vd := &VarDecl{Var: v}
	if p.accept("=") {
		init := p.assignment()
		vd.Init = init
		switch {
		case vt.Kind == Array && p.unit.Version != 310:
			p.errorf(nameTok.line, nameTok.text, "arrays cannot be initialized")
		case q.storage == StorageUniform || q.storage == StorageAttribute || q.storage == StorageVarying:
			p.errorf(nameTok.line, nameTok.text, "cannot initialize a "+q.storage.String())
		case init.Type() == errType:
		case !init.Type().Equal(vt):
			p.errorf(nameTok.line, "=", "cannot convert from '"+init.Type().String()+"' to '"+vt.String()+"'")
		}
		if q.storage == StorageConst {
			if init.Value() == nil && init.Type() != errType {
				p.errorf(nameTok.line, nameTok.text, "const variable initializer must be a constant expression")
			} else if init.Type().Equal(vt) && len(init.Value()) == vt.Components() {
				v.Value = init.Value()
			}
		} else if p.global() && init.Value() == nil && init.Type() != errType {
			p.errorf(nameTok.line, nameTok.text, "global variable initializers must be constant expressions")
		}
	} else if q.storage == StorageConst {
		p.errorf(nameTok.line, nameTok.text, "const variables must be initialized")
	}
	// The name is visible after its declarator (including initializer).
	p.declare(nameTok, v)
	if p.global() {
		p.unit.Globals = append(p.unit.Globals, v)
	}
	ds.Vars = append(ds.Vars, vd)
}

// function parses a prototype or definition after "type name".
func (p *parser) function(q quals, ret *Type, nameTok token) Stmt {
	if q.storage != StorageLocal || q.invariant {
		p.errorf(q.line, q.tok, "qualifiers are not allowed on function return types")
	}
	if ret.ContainsArray() {
		p.errorf(nameTok.line, nameTok.text, "functions cannot return arrays")
	}
	p.expect("(")
	f := &Function{Name: nameTok.text, Return: ret, Line: nameTok.line}
	f.Precision = p.resolvePrecision(nameTok.line, nameTok.text, ret, q.prec)
	var paramToks []token
	if p.is("void") && p.peekAt(1).text == ")" {
		p.next()
	}
	for !p.is(")") {
		pq := p.qualifiers()
		if pq.invariant || pq.storage == StorageAttribute || pq.storage == StorageUniform || pq.storage == StorageVarying {
			p.errorf(pq.line, pq.tok, "invalid qualifier on a parameter")
		}
		pt, _ := p.typeSpecifierNoPrec()
		var pn token
		if p.peek().kind == tIdent && !keywords[p.peek().text] {
			pn = p.ident()
		}
		if p.is("[") {
			if pt.Kind == Array {
				p.errorf(p.peek().line, pn.text, "arrays of arrays are not allowed")
			}
			p.next()
			pt = ArrayOf(pt, p.arraySize())
			p.expect("]")
		}
		if pt.Kind == Void {
			p.errorf(pq.line, "void", "parameters cannot be void")
		}
		p.checkDeclSize(pq.line, pn.text, pt, StorageIn, "parameter")
		storage := pq.storage
		if storage == StorageLocal {
			storage = StorageIn
		}
		if storage == StorageConst {
			storage = StorageConstIn
		}
		if pt.ContainsSampler() && (storage == StorageOut || storage == StorageInOut) {
			p.errorf(pq.line, pt.String(), "samplers cannot be out parameters")
		}
		v := &Variable{Name: pn.text, Type: pt, Storage: storage, Line: pq.line}
		v.Precision = p.resolvePrecision(pq.line, pn.text, pt, pq.prec)
		f.Params = append(f.Params, v)
		paramToks = append(paramToks, pn)
		if !p.accept(",") {
			break
		}
		if p.is(")") {
			p.syntax(p.peek(), "syntax error, expected a parameter")
		}
	}
	p.expect(")")
	isProto := p.is(";")
	f = p.declareFunction(f, nameTok, isProto)
	if p.accept(";") {
		return &FuncDecl{StmtInfo: StmtInfo{nameTok.line}, Func: f}
	}
	if !p.is("{") {
		p.syntax(p.peek(), "syntax error, expected '{' or ';'")
	}
	if f.Body != nil {
		p.errorf(nameTok.line, nameTok.text, "function already has a body")
	}
	// The body is a scope nested in the parameters' scope.
	p.push()
	defer p.pop()
	params := f.Params
	for i, v := range params {
		if paramToks[i].text != "" {
			p.checkNewName(paramToks[i])
			p.declare(paramToks[i], v)
		}
		// The definition's parameter names win over the prototype's.
		_ = v
	}
	for i, pt := range paramToks {
		if pt.text == "" {
			continue
		}
		_ = i
	}
	p.fn = f
	p.push()
	body := p.block()
	p.pop()
	p.fn = nil
	f.Body = body
	if f.Name == "main" {
		p.unit.Main = f
	}
	return &FuncDecl{StmtInfo: StmtInfo{nameTok.line}, Func: f, Body: body}
}

// declareFunction matches f against earlier declarations of the same name
// and returns the shared Function.
func (p *parser) declareFunction(f *Function, nameTok token, isProto bool) *Function {
	// Built-ins may be overloaded with new signatures, not redeclared.
	for _, sig := range builtinTable[f.Name] {
		if len(sig.params) != len(f.Params) || sig.stage >= 0 && Stage(sig.stage) != p.stage {
			continue
		}
		same := true
		for i, pt := range sig.params {
			same = same && pt.Equal(f.Params[i].Type)
		}
		if same {
			p.errorf(nameTok.line, f.Name, "cannot redeclare or redefine a built-in function")
			break
		}
	}
	if f.Name == "main" {
		if len(f.Params) > 0 {
			p.errorf(nameTok.line, "main", "main cannot have parameters")
		}
		if f.Return.Kind != Void {
			p.errorf(nameTok.line, "main", "main must return void")
		}
	}
	g := p.scopes[1]
	sym, ok := g.names[f.Name]
	var set *funcSet
	if ok {
		set, ok = sym.(*funcSet)
		if !ok {
			p.errorf(nameTok.line, f.Name, "redefinition: name already used by a variable or type")
			return f
		}
	} else {
		set = &funcSet{}
		g.names[f.Name] = set
	}
	for _, old := range set.overloads {
		if !sameParamTypes(old.Params, f.Params) {
			continue
		}
		if !old.Return.Equal(f.Return) {
			p.errorf(nameTok.line, f.Name, "function overloaded only by return type")
			return old
		}
		for i := range old.Params {
			if old.Params[i].Storage != f.Params[i].Storage {
				p.errorf(nameTok.line, f.Name, "parameter qualifiers differ from an earlier declaration")
				return old
			}
		}
		// A prototype and the definition (or two prototypes) agree on the
		// precision of the result and of each parameter, after defaults
		// (GLSL ES 1.00 sections 4.5.3 and 6.1).
		if old.Precision != f.Precision {
			p.errorf(nameTok.line, f.Name, "return precision differs from an earlier declaration ("+old.Precision.String()+" vs "+f.Precision.String()+")")
		}
		for i := range old.Params {
			if old.Params[i].Precision != f.Params[i].Precision {
				p.errorf(nameTok.line, f.Name, fmt.Sprintf("precision of parameter %d differs from an earlier declaration (%s vs %s)",
					i+1, old.Params[i].Precision, f.Params[i].Precision))
			}
		}
		if isProto {
			p.errorf(nameTok.line, f.Name, "function already declared")
			return old
		}
		if old.Body == nil {
			old.Params = f.Params // the definition's names
		}
		return old
	}
	set.overloads = append(set.overloads, f)
	p.unit.Functions = append(p.unit.Functions, f)
	return f
}

func sameParamTypes(a, b []*Variable) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Type.Equal(b[i].Type) {
			return false
		}
	}
	return true
}
