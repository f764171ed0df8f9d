package glsl

// evalIf evaluates the controlling expression of #if or #elif.
func (p *preprocessor) evalIf(line int, args []token) bool {
	if len(args) == 0 {
		p.errorf(line, "#if", "missing expression")
		return false
	}
	// Replace "defined X" and "defined(X)" before macro expansion, and
	// again after it for "defined" produced by a macro.
	pre, ok := p.replaceDefined(line, args)
	if !ok {
		return false
	}
	toks, ok := p.replaceDefined(line, p.expand(pre, nil, 0))
	if !ok {
		return false
	}
	e := &ppExpr{p: p, toks: toks, line: line}
	v := e.binary(0, true)
	if e.failed {
		return false
	}
	if e.pos < len(toks) {
		p.errorf(line, toks[e.pos].text, "unexpected token in preprocessor expression")
		return false
	}
	return v != 0
}

// replaceDefined replaces the defined operator by 0 or 1.
func (p *preprocessor) replaceDefined(line int, args []token) ([]token, bool) {
	var pre []token
	for i := 0; i < len(args); i++ {
		t := args[i]
		if t.kind == tIdent && t.text == "defined" {
			var name token
			switch {
			case i+1 < len(args) && args[i+1].kind == tIdent:
				name = args[i+1]
				i++
			case i+3 < len(args) && args[i+1].text == "(" && args[i+2].kind == tIdent && args[i+3].text == ")":
				name = args[i+2]
				i += 3
			default:
				p.errorf(line, "defined", "expected an identifier after defined")
				return nil, false
			}
			v := "0"
			if _, ok := p.macros[name.text]; ok || name.text == "__LINE__" || name.text == "__FILE__" {
				v = "1"
			}
			pre = append(pre, token{kind: tNumber, text: v, line: line})
			continue
		}
		pre = append(pre, t)
	}
	return pre, true
}

// ppExpr is a precedence-climbing evaluator of #if expressions over int64.
type ppExpr struct {
	p      *preprocessor
	toks   []token
	pos    int
	line   int
	failed bool
	depth  int // nesting of unary operators and parentheses
}

func (e *ppExpr) fail(tok, msg string) int64 {
	if !e.failed {
		e.p.errorf(e.line, tok, msg)
	}
	e.failed = true
	return 0
}

var ppPrec = map[string]int{
	"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
	"<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}

// binary parses operators of precedence above minPrec. eval is false in
// the unevaluated operand of && and ||, where undefined names are allowed.
func (e *ppExpr) binary(minPrec int, eval bool) int64 {
	x := e.unary(eval)
	for !e.failed && e.pos < len(e.toks) {
		t := e.toks[e.pos]
		prec, ok := ppPrec[t.text]
		if t.kind != tPunct || !ok || prec <= minPrec {
			break
		}
		e.pos++
		evalY := eval
		if t.text == "&&" && x == 0 || t.text == "||" && x != 0 {
			evalY = false
		}
		y := e.binary(prec, evalY)
		if e.failed {
			return 0
		}
		switch t.text {
		case "||":
			x = b2i(x != 0 || y != 0)
		case "&&":
			x = b2i(x != 0 && y != 0)
		case "|":
			x |= y
		case "^":
			x ^= y
		case "&":
			x &= y
		case "==":
			x = b2i(x == y)
		case "!=":
			x = b2i(x != y)
		case "<":
			x = b2i(x < y)
		case ">":
			x = b2i(x > y)
		case "<=":
			x = b2i(x <= y)
		case ">=":
			x = b2i(x >= y)
		case "<<":
			x <<= uint64(y) & 63
		case ">>":
			x >>= uint64(y) & 63
		case "+":
			x += y
		case "-":
			x -= y
		case "*":
			x *= y
		case "/", "%":
			if y == 0 {
				if eval {
					return e.fail(t.text, "division by zero in preprocessor expression")
				}
				x = 0
			} else if t.text == "/" {
				x /= y
			} else {
				x %= y
			}
		}
		x = int64(int32(x))
	}
	return x
}

func (e *ppExpr) unary(eval bool) int64 {
	if e.pos >= len(e.toks) {
		return e.fail("#if", "unexpected end of preprocessor expression")
	}
	t := e.toks[e.pos]
	e.pos++
	// Prefix operators and parentheses recurse: bound them as the
	// parser bounds expressions, so no #if can exhaust the stack.
	e.depth++
	defer func() { e.depth-- }()
	if e.depth > maxNesting {
		return e.fail(t.text, "preprocessor expression nested too deeply")
	}
	switch {
	case t.kind == tPunct && (t.text == "+" || t.text == "-" || t.text == "~" || t.text == "!"):
		v := e.unary(eval)
		switch t.text {
		case "-":
			return -v
		case "~":
			return ^v
		case "!":
			return b2i(v == 0)
		}
		return v
	case t.kind == tPunct && t.text == "(":
		v := e.binary(0, eval)
		if e.failed {
			return 0
		}
		if e.pos >= len(e.toks) || e.toks[e.pos].text != ")" {
			return e.fail("(", "missing ')' in preprocessor expression")
		}
		e.pos++
		return v
	case t.kind == tNumber:
		v, ok := parseIntLiteral(t.text)
		if !ok {
			return e.fail(t.text, "preprocessor expression requires an integer constant")
		}
		return v
	case t.kind == tIdent:
		if eval {
			return e.fail(t.text, "undefined identifier in preprocessor expression")
		}
		return 0
	}
	return e.fail(t.text, "unexpected token in preprocessor expression")
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
