package glsl

import (
	"sort"
	"strconv"
	"strings"
)

// Parse preprocesses, parses and checks one shader. On success the error
// list is nil and the TranslationUnit is complete; on failure the unit may
// be partial and must not be lowered.
func Parse(stage Stage, source string) (*TranslationUnit, ErrorList) {
	var errs ErrorList
	toks, version, exts, invAll := preprocess(stage, source, &errs)
	unit := &TranslationUnit{Stage: stage, Extensions: exts, InvariantAll: invAll, Version: version, InvariantBuiltins: map[string]bool{}}
	p := &parser{toks: toks, errs: &errs, unit: unit, stage: stage}
	p.run()
	if len(errs) > 0 {
		// The preprocessor, the token checks and the parser each report
		// in source order; merged by line, the log reads top to bottom as
		// glslangValidator's does (a #line directive can make lines
		// non-monotonic; the sort is stable).
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
		return unit, errs
	}
	return unit, nil
}

// bailout unwinds the parser after a syntax error, to the statement or
// declaration being parsed (see recoverable), or out of the parse when
// fatal.
type bailout struct{ fatal bool }

// maxSyntaxErrors stops the parse after this many syntax errors, so that
// garbage input does not produce an error per token.
const maxSyntaxErrors = 1000

// symbol kinds in a scope: *Variable, *Type (a struct name) or *funcSet.
type funcSet struct{ overloads []*Function }

type scope struct {
	names     map[string]any
	precision map[Kind]Precision
	// unknown: names reported as undeclared (or not variables) in this
	// scope; later uses in it or in scopes it encloses are not reported
	// again (glslang declares such a name after its first error).
	unknown map[string]bool
}

type parser struct {
	toks  []token
	pos   int
	errs  *ErrorList
	unit  *TranslationUnit
	stage Stage

	scopes       []*scope
	fn           *Function // function being defined
	loops        int
	builtinScope *scope
	writesColor  int // line of the first write of gl_FragColor, or 0
	writesData   int // line of the first write of gl_FragData, or 0
	builtinFuncs map[string][]builtinSig
	calledFuncs  map[*Function]bool
	depth        int
	// privateComponents counts the components of the private variables
	// declared so far (see checkDeclSize).
	privateComponents int
	// operands counts the operands parsed so far (see MaxOperands).
	operands     int
	syntaxErrors int
	skippedNames map[string]bool // names declared by declarations skipped after syntax errors
	loopIndices  []*loopIndex    // of the enclosing for loops of Appendix A §4's form, innermost last
	switches     int             // enclosing switch statements (310 only): break is allowed in them
}

// errType marks an expression whose checking failed; operators on it
// produce no further diagnostics.
var errType = &Type{Kind: Void}

func (p *parser) errorf(line int, tok, msg string) {
	*p.errs = append(*p.errs, Error{Line: line, Token: tok, Msg: msg})
}

// syntax reports a syntax error and abandons the statement or declaration
// being parsed; parsing resumes after it (recoverable). An error at the
// end of input or after maxSyntaxErrors ends the parse.
func (p *parser) syntax(t token, msg string) {
	text := t.text
	if t.kind == tEOF {
		text = "end of file"
	}
	p.errorf(t.line, text, msg)
	p.syntaxErrors++
	panic(bailout{fatal: t.kind == tEOF || p.syntaxErrors >= maxSyntaxErrors})
}

// fatal reports an error after which the parse cannot continue.
func (p *parser) fatal(t token, msg string) {
	p.errorf(t.line, t.text, msg)
	p.syntaxErrors++
	panic(bailout{fatal: true})
}

// recoverable runs parse, one statement (global false) or one external
// declaration (global true). When parse stops at a syntax error, it
// restores the parser state saved before it, skips to the end of the
// broken statement or declaration (resync) and returns false, so that the
// caller goes on with the next one and later errors are reported too.
// Fatal errors propagate.
func (p *parser) recoverable(global bool, parse func()) (ok bool) {
	start := p.pos
	scopes, loops, loopIndices, depth, fn := len(p.scopes), p.loops, len(p.loopIndices), p.depth, p.fn
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if b, isBailout := r.(bailout); !isBailout || b.fatal {
			panic(r)
		}
		p.scopes = p.scopes[:min(scopes, len(p.scopes))]
		p.loops, p.loopIndices, p.depth, p.fn = loops, p.loopIndices[:min(loopIndices, len(p.loopIndices))], depth, fn
		p.resync(start, global)
		p.noteSkippedNames(start)
		ok = false
	}()
	parse()
	return true
}

// noteSkippedNames records the names that the tokens from start to the
// current one would have declared (an identifier after a type name), so
// that their later uses are not reported as undeclared as well.
func (p *parser) noteSkippedNames(start int) {
	for i := start + 1; i < p.pos; i++ {
		t, prev := p.toks[i], p.toks[i-1]
		if t.kind != tIdent || keywords[t.text] || prev.kind != tIdent {
			continue
		}
		if _, isStruct := p.lookup(prev.text).(*Type); typeKeywords[prev.text] != nil || isStruct || p.skippedNames[prev.text] {
			if p.skippedNames == nil {
				p.skippedNames = map[string]bool{}
			}
			p.skippedNames[t.text] = true
		}
	}
}

// resync skips the rest of a statement or declaration that started at
// token start and failed at the current token: up to and including the
// next ';' outside brackets, or the '}' closing a brace opened within it
// (then, at global scope, also the declarators and ';' of a structure
// declaration). Braces the failed parse already consumed count as open;
// an unmatched '}' at statement level closes the enclosing block and is
// left to it. Parentheses matter only in a for header, whose ';' are not
// boundaries.
func (p *parser) resync(start int, global bool) {
	braces, parens := 0, 0
	inFor := p.toks[start].kind == tIdent && p.toks[start].text == "for"
	for _, t := range p.toks[start:p.pos] {
		if t.kind != tPunct {
			continue
		}
		switch t.text {
		case "{":
			braces++
			parens = 0
		case "}":
			braces = max(braces-1, 0)
			parens = 0
		case "(":
			parens++
		case ")":
			parens = max(parens-1, 0)
		}
	}
	for {
		t := p.peek()
		if t.kind == tEOF {
			return
		}
		if t.kind == tPunct {
			switch t.text {
			case ";":
				if braces == 0 && (parens == 0 || !inFor) {
					p.next()
					return
				}
			case "(":
				parens++
			case ")":
				parens = max(parens-1, 0)
			case "{":
				braces++
				parens = 0
			case "}":
				if braces == 0 && !global {
					if p.pos == start {
						p.next() // a stray '}' that is the whole failed statement
					}
					return
				}
				p.next()
				braces = max(braces-1, 0)
				parens = 0
				if braces > 0 {
					continue
				}
				if !global {
					return
				}
				// "struct S { ... } s[2], t;": skip the declarators too.
				if p.peek().kind == tIdent && !keywords[p.peek().text] {
					switch p.peekAt(1).text {
					case ";", ",", "[", "=":
						continue
					}
				}
				p.accept(";")
				return
			}
		}
		p.next()
	}
}

func (p *parser) run() {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				panic(r)
			}
		}
	}()
	p.builtinScope = p.builtins()
	p.scopes = []*scope{p.builtinScope, {names: map[string]any{}, precision: map[Kind]Precision{}}}
	g := p.scopes[1]
	if p.stage == Vertex || p.stage == Compute { // ES 3.10 §4.7.4: compute defaults as vertex
		g.precision[Float] = Highp
		g.precision[Int] = Highp
	} else {
		g.precision[Int] = Mediump
	}
	g.precision[Sampler2D] = Lowp
	g.precision[SamplerCube] = Lowp
	p.checkTokens()
	for p.peek().kind != tEOF {
		p.recoverable(true, p.external)
	}
	if p.syntaxErrors == 0 {
		p.finish()
	}
}

// checkTokens reports the tokens that may appear only in preprocessor
// directives or not at all: invalid characters, reserved operators,
// malformed numbers and reserved keywords, each at its own line. It then
// repairs the stream so that parsing goes on and later errors are
// reported too: an invalid character or stray '#' is dropped, a reserved
// operator becomes the valid one of the same form (% and the bit
// operators become *, ~ becomes -), a malformed number becomes 0 or 0.0,
// and a reserved keyword is parsed as an identifier.
func (p *parser) checkTokens() {
	out := p.toks[:0]
	for _, t := range p.toks {
		switch t.kind {
		case tInvalid:
			p.errorf(t.line, t.text, "invalid character")
			continue
		case tPunct:
			if repl, ok := reservedOps[t.text]; ok && p.unit.Version != 310 {
				p.errorf(t.line, t.text, "reserved operator")
				t.text, t.repaired = repl, true
			} else if t.text == "#" || t.text == "##" {
				p.errorf(t.line, t.text, "unexpected preprocessor token")
				continue
			}
		case tNumber:
			if _, _, ok := numberValue(t.text); !ok && !(p.unit.Version == 310 && isUintLiteral(t.text)) {
				p.errorf(t.line, t.text, "invalid number")
				if strings.ContainsAny(t.text, ".eE") && !strings.HasPrefix(strings.ToLower(t.text), "0x") {
					t.text = "0.0"
				} else {
					t.text = "0"
				}
			}
		case tIdent:
			if reservedWords[t.text] && !(p.unit.Version == 310 && (t.text == "switch" || t.text == "default")) {
				p.errorf(t.line, t.text, "reserved keyword")
			}
		}
		out = append(out, t)
	}
	p.toks = out
}

// reservedOps are the operators GLSL ES 1.00 reserves (section 5.1), with
// the valid operator of the same form that parsing continues with.
var reservedOps = map[string]string{
	"%": "*", "~": "-", "<<": "*", ">>": "*", "&": "*", "|": "*", "^": "*",
	"%=": "*=", "<<=": "*=", ">>=": "*=", "&=": "*=", "|=": "*=", "^=": "*=",
}

// numberValue classifies a number token: isFloat, its value, validity.
func numberValue(s string) (isFloat bool, v float64, ok bool) {
	if i, ok := parseIntLiteral(s); ok {
		return false, float64(i), true
	}
	// float: digits . digits [e[+-]digits], or digits e[+-]digits
	j := 0
	digits := 0
	for j < len(s) && isDigit(s[j]) {
		j++
		digits++
	}
	dot := false
	if j < len(s) && s[j] == '.' {
		dot = true
		j++
		for j < len(s) && isDigit(s[j]) {
			j++
			digits++
		}
	}
	if digits == 0 {
		return false, 0, false
	}
	exp := false
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		exp = true
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if k == j {
			return false, 0, false
		}
	}
	if j != len(s) || !dot && !exp {
		return false, 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !strings.Contains(err.Error(), "range") {
		return false, 0, false
	}
	return true, f, true
}

var reservedWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`asm class union enum typedef template this packed goto switch default
		inline noinline volatile public static extern external interface flat long short double half fixed
		unsigned superp input output hvec2 hvec3 hvec4 dvec2 dvec3 dvec4 fvec2 fvec3 fvec4 sampler1D sampler3D
		sampler1DShadow sampler2DShadow sampler2DRect sampler3DRect sampler2DRectShadow sizeof cast namespace using`) {
		reservedWords[w] = true
	}
}

var typeKeywords = map[string]*Type{
	"void": TypeVoid, "float": TypeFloat, "int": TypeInt, "bool": TypeBool,
	"vec2": TypeVec2, "vec3": TypeVec3, "vec4": TypeVec4, "ivec2": TypeIVec2, "ivec3": TypeIVec3, "ivec4": TypeIVec4,
	"bvec2": TypeBVec2, "bvec3": TypeBVec3, "bvec4": TypeBVec4, "mat2": TypeMat2, "mat3": TypeMat3, "mat4": TypeMat4,
	"sampler2D": TypeSampler2D, "samplerCube": TypeSamplerCube,
}

var keywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`attribute const uniform varying break continue do for while if else in out inout
		true false lowp mediump highp precision invariant discard return struct`) {
		keywords[w] = true
	}
	for w := range typeKeywords {
		keywords[w] = true
	}
}

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) peekAt(n int) token {
	if p.pos+n < len(p.toks) {
		return p.toks[p.pos+n]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}
func (p *parser) is(text string) bool {
	t := p.toks[p.pos]
	return (t.kind == tPunct || t.kind == tIdent) && t.text == text
}
func (p *parser) accept(text string) bool {
	if p.is(text) {
		p.pos++
		return true
	}
	return false
}
func (p *parser) expect(text string) token {
	if !p.is(text) {
		p.syntax(p.peek(), "syntax error, expected '"+text+"'")
	}
	return p.next()
}

// ident consumes a user identifier.
func (p *parser) ident() token {
	t := p.peek()
	if t.kind != tIdent || keywords[t.text] {
		p.syntax(t, "syntax error, expected an identifier")
	}
	return p.next()
}

// Scopes.

func (p *parser) push() {
	p.scopes = append(p.scopes, &scope{names: map[string]any{}, precision: map[Kind]Precision{}})
}
func (p *parser) pop() { p.scopes = p.scopes[:len(p.scopes)-1] }
func (p *parser) top() *scope {
	return p.scopes[len(p.scopes)-1]
}
func (p *parser) global() bool { return len(p.scopes) == 2 }

func (p *parser) lookup(name string) any {
	for i := len(p.scopes) - 1; i >= 0; i-- {
		if s, ok := p.scopes[i].names[name]; ok {
			return s
		}
	}
	return nil
}

// reportUnknown reports whether a use of name that is not a variable
// should be reported: only the first in a scope and the scopes it encloses.
func (p *parser) reportUnknown(name string) bool {
	for i := len(p.scopes) - 1; i >= 0; i-- {
		if p.scopes[i].unknown[name] {
			return false
		}
	}
	s := p.top()
	if s.unknown == nil {
		s.unknown = map[string]bool{}
	}
	s.unknown[name] = true
	return true
}

// checkNewName reports names that cannot be declared (reserved prefixes).
func (p *parser) checkNewName(t token) {
	if strings.HasPrefix(t.text, "gl_") {
		p.errorf(t.line, t.text, "identifiers starting with 'gl_' are reserved")
	} else if p.unit.Version == 310 && es310Keywords[t.text] {
		p.errorf(t.line, t.text, "reserved keyword in GLSL ES 3.10")
	} else if strings.Contains(t.text, "__") {
		p.errorf(t.line, t.text, "identifiers containing '__' are reserved")
	}
}

// declare adds a symbol to the current scope, reporting redeclarations.
func (p *parser) declare(t token, sym any) {
	s := p.top()
	if _, ok := s.names[t.text]; ok {
		p.errorf(t.line, t.text, "redefinition")
		return
	}
	if p.global() {
		if _, ok := p.builtinScope.names[t.text]; ok {
			p.errorf(t.line, t.text, "redefinition of a built-in name")
			return
		}
	}
	s.names[t.text] = sym
}

func (p *parser) defaultPrecision(k Kind) Precision {
	for i := len(p.scopes) - 1; i >= 0; i-- {
		if pr, ok := p.scopes[i].precision[k]; ok {
			return pr
		}
	}
	return PrecisionNone
}

// precisionKind returns the kind whose default precision applies to t.
func precisionKind(t *Type) Kind {
	if t.Kind == Array {
		t = t.Elem
	}
	switch {
	case t.IsSampler():
		return t.Kind
	case t.Scalar() == Float:
		return Float
	case t.Scalar() == Int || t.Scalar() == Uint: // uint takes int's default (ES 3.10 §4.7.4)
		return Int
	}
	return Void
}

// resolvePrecision applies the default precision to a declaration of type
// t with explicit precision prec, reporting a missing default.
func (p *parser) resolvePrecision(line int, name string, t *Type, prec Precision) Precision {
	k := precisionKind(t)
	if k == Void {
		// GLSL ES 1.00 section 4.5.2: precision qualifiers apply to
		// float, int and sampler types (and vectors, matrices and arrays
		// of them) only.
		if prec != PrecisionNone {
			p.errorf(line, name, "precision qualifiers apply only to float, int and sampler types, not to "+t.String())
		}
		return PrecisionNone
	}
	if prec != PrecisionNone {
		return prec
	}
	d := p.defaultPrecision(k)
	if d == PrecisionNone {
		p.errorf(line, name, "no precision specified for "+k.String())
	}
	return d
}

// finish runs the checks that need the whole unit.
func (p *parser) finish() {
	for _, f := range p.unit.Functions {
		if f.Body == nil && p.calledFuncs[f] {
			p.errorf(f.Line, f.Name, "function declared and called but never defined")
		}
	}
	p.checkRecursion()
	if p.writesColor > 0 && p.writesData > 0 {
		line := max(p.writesColor, p.writesData)
		p.errorf(line, "gl_FragData", "shader writes both gl_FragColor and gl_FragData")
	}
}

// checkRecursion reports static recursion, direct or through other
// functions (GLSL ES 1.00 section 6.1).
func (p *parser) checkRecursion() {
	state := map[*Function]int{} // 1 visiting, 2 done
	var visit func(f *Function) bool
	visit = func(f *Function) bool {
		switch state[f] {
		case 1:
			return true
		case 2:
			return false
		}
		state[f] = 1
		for _, g := range f.Calls {
			if visit(g) {
				state[f] = 2
				if f == g || true {
					return true
				}
			}
		}
		state[f] = 2
		return false
	}
	for _, f := range p.unit.Functions {
		if state[f] == 0 && visit(f) {
			p.errorf(f.Line, f.Name, "recursion is not allowed")
			return
		}
	}
}
