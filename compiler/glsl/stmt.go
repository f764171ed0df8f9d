package glsl

// statement parses one statement inside a function body.
func (p *parser) statement() Stmt {
	t := p.peek()
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxNesting {
		p.fatal(t, "statements nested too deeply")
	}
	line := t.line
	if t.kind == tPunct {
		switch t.text {
		case "{":
			p.push()
			b := p.block()
			p.pop()
			return b
		case ";":
			p.next()
			return &BlockStmt{StmtInfo: StmtInfo{line}}
		}
	}
	if t.kind == tIdent {
		switch t.text {
		case "if":
			p.next()
			p.expect("(")
			c := p.expression()
			p.expect(")")
			p.checkCondition(c)
			s := &IfStmt{StmtInfo: StmtInfo{line}, Cond: c}
			s.Then = p.scopedStatement()
			if p.accept("else") {
				s.Else = p.scopedStatement()
			}
			return s
		case "for":
			return p.forStmt()
		case "switch":
			if p.unit.Version == 310 {
				return p.switchStmt()
			}
		case "while":
			p.next()
			p.expect("(")
			p.push()
			s := &WhileStmt{StmtInfo: StmtInfo{line}}
			s.CondDecl, s.Cond = p.condition()
			p.expect(")")
			p.loops++
			s.Body = p.statementNoScope()
			p.loops--
			p.pop()
			return s
		case "do":
			p.next()
			s := &DoStmt{StmtInfo: StmtInfo{line}}
			p.loops++
			s.Body = p.scopedStatement()
			p.loops--
			p.expect("while")
			p.expect("(")
			s.Cond = p.expression()
			p.checkCondition(s.Cond)
			p.expect(")")
			p.expect(";")
			return s
		case "break", "continue":
			p.next()
			p.expect(";")
			if p.loops == 0 && !(t.text == "break" && p.switches > 0) {
				p.errorf(line, t.text, t.text+" statement only allowed in loops")
			}
			return &BranchStmt{StmtInfo: StmtInfo{line}, Continue: t.text == "continue"}
		case "return":
			p.next()
			s := &ReturnStmt{StmtInfo: StmtInfo{line}}
			if !p.is(";") {
				s.X = p.expression()
			}
			p.expect(";")
			p.checkReturn(s)
			return s
		case "discard":
			p.next()
			p.expect(";")
			if p.stage != Fragment {
				p.errorf(line, "discard", "discard is allowed only in fragment shaders")
			}
			return &DiscardStmt{StmtInfo: StmtInfo{line}}
		case "precision", "invariant", "const", "attribute", "uniform", "varying", "struct", "lowp", "mediump", "highp", "in", "out", "inout":
			return p.declaration(false)
		}
		if p.isTypeStart() && p.peekAt(1).kind == tIdent {
			return p.declaration(false)
		}
		if p.isTypeStart() && p.peekAt(1).text == ";" {
			return p.declaration(false)
		}
		if p.isTypeStart() && p.peekAt(1).text == "[" && p.arrayTypeDeclares() {
			return p.declaration(false)
		}
	}
	e := p.expression()
	p.expect(";")
	return &ExprStmt{StmtInfo: StmtInfo{line}, X: e}
}

// arrayTypeDeclares reports whether the type name at the current token and
// the brackets after it are followed by an identifier: "float[2] x" is a
// declaration, "float[2](...)" an (invalid) array constructor.
func (p *parser) arrayTypeDeclares() bool {
	depth := 0
	for i := 1; ; i++ {
		t := p.peekAt(i)
		switch {
		case t.kind == tEOF:
			return false
		case t.text == "[" && t.kind == tPunct:
			depth++
		case t.text == "]" && t.kind == tPunct:
			depth--
			if depth == 0 {
				n := p.peekAt(i + 1)
				return n.kind == tIdent && !keywords[n.text]
			}
		}
	}
}

// block parses { statements } in the current scope.
func (p *parser) block() *BlockStmt {
	b := &BlockStmt{StmtInfo: StmtInfo{p.peek().line}}
	p.expect("{")
	for !p.is("}") {
		if p.peek().kind == tEOF {
			p.syntax(p.peek(), "syntax error, missing '}'")
		}
		var st Stmt
		if p.recoverable(false, func() { st = p.statement() }) {
			b.Stmts = append(b.Stmts, st)
		}
	}
	p.expect("}")
	return b
}

// scopedStatement parses a sub-statement that opens its own scope (the
// branches of if, the body of do-while).
func (p *parser) scopedStatement() Stmt {
	p.push()
	defer p.pop()
	return p.statementNoScope()
}

// statementNoScope parses a statement; a compound statement does not open
// a further scope.
func (p *parser) statementNoScope() Stmt {
	if p.is("{") {
		return p.block()
	}
	return p.statement()
}

func (p *parser) checkCondition(c Expr) {
	if c.Type() != errType && !c.Type().Equal(TypeBool) {
		p.errorf(c.Pos(), "condition", "boolean expression expected")
	}
}

// condition parses a loop condition: an expression or a declaration with
// initializer ("bool b = expr").
func (p *parser) condition() (*VarDecl, Expr) {
	if p.isTypeStart() && p.peekAt(1).kind == tIdent {
		line := p.peek().line
		ty, _ := p.typeSpecifier()
		nt := p.ident()
		p.expect("=")
		init := p.assignment()
		p.checkNewName(nt)
		v := &Variable{Name: nt.text, Type: ty, Line: nt.line}
		v.Precision = p.resolvePrecision(nt.line, nt.text, ty, PrecisionNone)
		if init.Type() != errType && !init.Type().Equal(ty) {
			p.errorf(line, "=", "cannot convert from '"+init.Type().String()+"' to '"+ty.String()+"'")
		}
		p.declare(nt, v)
		v.Used, v.Written = true, true
		id := &Ident{ExprInfo: ExprInfo{Line: nt.line, Ty: ty, Prec: v.Precision}, Var: v}
		p.checkCondition(id)
		return &VarDecl{Var: v, Init: init}, id
	}
	c := p.expression()
	p.checkCondition(c)
	return nil, c
}

func (p *parser) forStmt() Stmt {
	line := p.next().line
	p.expect("(")
	p.push()
	defer p.pop()
	s := &ForStmt{StmtInfo: StmtInfo{line}}
	if !p.accept(";") {
		s.Init = p.statement()
		switch s.Init.(type) {
		case *DeclStmt, *ExprStmt:
		default:
			p.errorf(line, "for", "invalid for-init statement")
		}
	}
	if !p.is(";") {
		d, cond := p.condition()
		s.Cond = cond
		if d != nil {
			// The declaration is re-evaluated before each iteration: the
			// condition is "(v = init, v)".
			ty, prec := d.Var.Type, d.Var.Precision
			s.Cond = &Sequence{ExprInfo: ExprInfo{Line: line, Ty: ty, Prec: prec},
				X: &Assign{ExprInfo: ExprInfo{Line: line, Ty: ty, Prec: prec}, Op: OpAssign,
					LHS: &Ident{ExprInfo: ExprInfo{Line: line, Ty: ty, Prec: prec}, Var: d.Var}, RHS: d.Init},
				Y: cond}
		}
	}
	p.expect(";")
	if !p.is(")") {
		s.Post = p.expression()
	}
	p.expect(")")
	var li *loopIndex
	if v := appendixLoopIndex(s); v != nil {
		li = &loopIndex{v: v}
		p.loopIndices = append(p.loopIndices, li)
	}
	p.loops++
	s.Body = p.statementNoScope()
	p.loops--
	if li != nil {
		p.loopIndices = p.loopIndices[:len(p.loopIndices)-1]
		if li.written {
			for _, line := range li.samplerUses {
				p.errorf(line, "[", "samplers may be indexed only with constant-index expressions (the loop index '"+
					li.v.Name+"' is modified in the loop body, so it is not a loop index of GLSL ES 1.00 Appendix A §4)")
			}
		}
	}
	return s
}

// loopIndex is the index of an enclosing for loop whose header has the
// form of GLSL ES 1.00 Appendix A §4, while its body is parsed. It is a
// loop index (usable in constant-index expressions, Appendix A §5) only if
// the body does not assign it either; that is known at the end of the
// body, so sampler indexing that relies on it is recorded and reported
// then.
type loopIndex struct {
	v           *Variable
	written     bool  // the body assigns it or passes it as out/inout
	samplerUses []int // lines of sampler array indexing that use it
}

// appendixLoopIndex returns the loop index of a for loop whose header has
// the form Appendix A §4 requires, or nil:
//
//	for (T i = constant; i relop constant; i++ | i-- | ++i | --i | i += constant | i -= constant)
//
// with T int or float.
func appendixLoopIndex(s *ForStmt) *Variable {
	d, ok := s.Init.(*DeclStmt)
	if !ok || d.Struct != nil || len(d.Vars) != 1 {
		return nil
	}
	v := d.Vars[0].Var
	if v.Type.Kind != Int && v.Type.Kind != Float || d.Vars[0].Init == nil || d.Vars[0].Init.Value() == nil {
		return nil
	}
	isIndex := func(e Expr) bool {
		id, ok := e.(*Ident)
		return ok && id.Var == v
	}
	c, ok := s.Cond.(*Binary)
	if !ok || c.Op < OpLess || c.Op > OpNotEq || !isIndex(c.X) || c.Y.Value() == nil {
		return nil
	}
	switch x := s.Post.(type) {
	case *Unary:
		if (x.Op == OpPreInc || x.Op == OpPreDec || x.Op == OpPostInc || x.Op == OpPostDec) && isIndex(x.X) {
			return v
		}
	case *Assign:
		if (x.Op == OpAddAssign || x.Op == OpSubAssign) && isIndex(x.LHS) && x.RHS.Value() != nil {
			return v
		}
	}
	return nil
}

func (p *parser) checkReturn(s *ReturnStmt) {
	f := p.fn
	if f == nil {
		return
	}
	if s.X == nil {
		if f.Return.Kind != Void {
			p.errorf(s.Line, "return", "non-void function must return a value")
		}
		return
	}
	if f.Return.Kind == Void {
		p.errorf(s.Line, "return", "void function cannot return a value")
		return
	}
	if s.X.Type() != errType && !s.X.Type().Equal(f.Return) {
		p.errorf(s.Line, "return", "function return is not matching type")
	}
}
