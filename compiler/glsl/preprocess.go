package glsl

import (
	"fmt"
	"strconv"
	"strings"
)

// macro is a #define. params is nil for object-like macros.
type macro struct {
	funcLike bool
	params   []string
	body     []token
}

// condFrame is one level of #if nesting.
type condFrame struct {
	parentActive bool // the enclosing group is being compiled
	active       bool // this branch is being compiled
	taken        bool // some branch of this #if was already taken
	seenElse     bool
	line         int
	stray        bool // opened by an #else/#elif without #if (recovery)
}

// preprocessor turns preprocessing tokens into the token stream the parser
// reads, executing directives and expanding macros (GLSL ES 1.00 chapter 3.4).
type preprocessor struct {
	errs         *ErrorList
	macros       map[string]*macro
	conds        []condFrame
	out          []token
	pending      []token // text tokens not yet macro-expanded
	sawCode      bool    // a non-directive token was seen (for #version and #extension)
	sawDirective bool
	version      int
	versionLine  int // line of a #version 310 es directive
	stage        Stage
	extensions   map[string]bool // enabled extensions
	invariantAll bool
	lineDelta    int // added to physical line numbers by #line
	fileNum      int
	budget       int // tokens produced by macro expansion so far
	overflowed   bool
}

// maxExpansion bounds the work of macro expansion: nested macros can grow
// exponentially, and no real shader comes near a million tokens.
const maxExpansion = 1 << 20

// knownExtensions are the extensions this implementation supports.
var knownExtensions = map[string]bool{
	"GL_OES_standard_derivatives": true,
}

func (p *preprocessor) errorf(line int, tok, msg string) {
	*p.errs = append(*p.errs, Error{Line: line, Token: tok, Msg: msg})
}

func (p *preprocessor) active() bool {
	return len(p.conds) == 0 || p.conds[len(p.conds)-1].active
}

// preprocess runs the preprocessor over src.
func preprocess(stage Stage, src string, errs *ErrorList) (out []token, version int, exts map[string]bool, invariantAll bool) {
	p := &preprocessor{errs: errs, macros: map[string]*macro{}, version: 100, extensions: map[string]bool{}, stage: stage}
	p.macros["GL_ES"] = &macro{body: []token{{kind: tNumber, text: "1"}}}
	if stage == Fragment {
		// highp is supported in fragment shaders (GLSL ES 1.00 4.5.4).
		p.macros["GL_FRAGMENT_PRECISION_HIGH"] = &macro{body: []token{{kind: tNumber, text: "1"}}}
	}
	p.macros["__VERSION__"] = &macro{body: []token{{kind: tNumber, text: "100"}}}
	for name := range knownExtensions {
		p.macros[name] = &macro{body: []token{{kind: tNumber, text: "1"}}}
	}
	toks := lex(src, errs)
	// Sized for the usual case (few macros) so that collecting lines and
	// the expanded output do not regrow slices token by token.
	p.pending = make([]token, 0, len(toks))
	p.out = make([]token, 0, len(toks)+1)
	for i := 0; i < len(toks); {
		// Collect one line.
		j := i
		for toks[j].kind != tNewline {
			j++
		}
		line := toks[i:j]
		i = j + 1
		for k := range line {
			line[k].line += p.lineDelta
		}
		if len(line) > 0 && line[0].kind == tPunct && line[0].text == "#" {
			p.flush()
			p.directive(line[0].line, line[1:])
			p.sawDirective = true
			continue
		}
		if p.active() && len(line) > 0 {
			p.pending = append(p.pending, line...)
			p.sawCode = true
		}
	}
	p.flush()
	eof := lastLine(toks) + p.lineDelta
	// An unterminated conditional is reported where the input ends (where
	// glslang reports it; the message names the directive left open).
	// Frames opened by a stray #else/#elif are recovery, not the user's.
	for k := len(p.conds) - 1; k >= 0; k-- {
		if f := p.conds[k]; !f.stray {
			p.errorf(eof, "#if", fmt.Sprintf("unterminated conditional directive: no #endif for the #if at line %d", f.line))
			break
		}
	}
	p.out = append(p.out, token{kind: tEOF, line: eof})
	if stage == Compute && p.version != 310 {
		p.errorf(1, "compute", "compute shaders require #version 310 es")
	}
	return p.out, p.version, p.extensions, p.invariantAll
}

func lastLine(toks []token) int {
	if len(toks) == 0 {
		return 1
	}
	return toks[len(toks)-1].line
}

func (p *preprocessor) flush() {
	if len(p.pending) == 0 {
		return
	}
	p.out = append(p.out, p.expand(p.pending, nil, 0)...)
	p.pending = p.pending[:0]
}

// expand fully macro-expands toks. hide holds the macros being expanded.
func (p *preprocessor) expand(toks []token, hide map[string]bool, depth int) []token {
	p.budget += len(toks)
	if depth > 64 || p.budget > maxExpansion {
		if !p.overflowed && len(toks) > 0 {
			msg := "macro expansion nested too deeply"
			if depth <= 64 {
				msg = fmt.Sprintf("shader too large: more than %d tokens after macro expansion", maxExpansion)
			}
			p.errorf(toks[0].line, toks[0].text, msg)
		}
		p.overflowed = true
		return nil
	}
	out := make([]token, 0, len(toks))
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tIdent || t.noExpand {
			out = append(out, t)
			continue
		}
		switch t.text {
		case "__LINE__":
			out = append(out, token{kind: tNumber, text: strconv.Itoa(t.line), line: t.line})
			continue
		case "__FILE__":
			out = append(out, token{kind: tNumber, text: strconv.Itoa(p.fileNum), line: t.line})
			continue
		}
		m := p.macros[t.text]
		if m == nil {
			out = append(out, t)
			continue
		}
		if hide[t.text] {
			t.noExpand = true
			out = append(out, t)
			continue
		}
		inner := map[string]bool{t.text: true}
		for k := range hide {
			inner[k] = true
		}
		if !m.funcLike {
			body := relocate(m.body, t.line)
			out = append(out, p.expand(body, inner, depth+1)...)
			continue
		}
		if i+1 >= len(toks) || toks[i+1].text != "(" || toks[i+1].kind != tPunct {
			out = append(out, t)
			continue
		}
		// Collect the arguments.
		var args [][]token
		var cur []token
		level := 0
		j := i + 2
		closed := false
		for ; j < len(toks); j++ {
			a := toks[j]
			if a.kind == tPunct {
				switch a.text {
				case "(":
					level++
				case ")":
					if level == 0 {
						closed = true
					}
					level--
				case ",":
					if level == 0 {
						args = append(args, cur)
						cur = nil
						continue
					}
				}
			}
			if closed {
				break
			}
			cur = append(cur, a)
		}
		if !closed {
			p.errorf(t.line, t.text, "unexpected end of input in macro invocation")
			return out
		}
		args = append(args, cur)
		if len(m.params) == 0 && len(args) == 1 && len(args[0]) == 0 {
			args = nil
		}
		if len(args) != len(m.params) {
			p.errorf(t.line, t.text, "wrong number of arguments to macro")
			i = j
			continue
		}
		expArgs := make([][]token, len(args))
		for k, a := range args {
			expArgs[k] = p.expand(a, hide, depth+1)
		}
		var body []token
		for _, b := range m.body {
			idx := -1
			if b.kind == tIdent {
				for k, name := range m.params {
					if name == b.text {
						idx = k
						break
					}
				}
			}
			if idx >= 0 {
				body = append(body, relocate(expArgs[idx], t.line)...)
			} else {
				// The replacement list is rescanned where the invocation
				// ends, so __LINE__ in it is the line of the closing ')'
				// (dEQP preprocessor.predefined_macros.line_2); arguments
				// were expanded earlier, at their own lines.
				b.line = toks[j].line
				body = append(body, b)
			}
		}
		out = append(out, p.expand(body, inner, depth+1)...)
		i = j
	}
	return out
}

func relocate(toks []token, line int) []token {
	r := make([]token, len(toks))
	copy(r, toks)
	for k := range r {
		r[k].line = line
	}
	return r
}

// directive executes one directive line; toks follow the '#'.
func (p *preprocessor) directive(line int, toks []token) {
	if len(toks) == 0 {
		return // the null directive
	}
	name := toks[0].text
	args := toks[1:]
	switch name {
	case "if", "ifdef", "ifndef":
		parent := p.active()
		f := condFrame{parentActive: parent, line: line}
		if parent {
			var v bool
			if name == "if" {
				v = p.evalCond(line, args)
			} else {
				if len(args) != 1 || args[0].kind != tIdent {
					p.errorf(line, "#"+name, "expected exactly one identifier")
				} else {
					_, def := p.macros[args[0].text]
					if args[0].text == "__LINE__" || args[0].text == "__FILE__" {
						def = true
					}
					v = def == (name == "ifdef")
				}
			}
			f.active, f.taken = v, v
		}
		p.conds = append(p.conds, f)
		return
	case "elif", "else", "endif":
		if len(p.conds) == 0 {
			p.errorf(line, "#"+name, "directive without #if")
			if name != "endif" {
				// Recover as glslang does: a stray #else or #elif ends a
				// group taken by a missing #if, so what follows up to the
				// matching #endif is skipped (and that #endif is no
				// second error).
				p.conds = append(p.conds, condFrame{parentActive: p.active(), line: line, taken: true,
					seenElse: name == "else", stray: true})
			}
			return
		}
		f := &p.conds[len(p.conds)-1]
		switch name {
		case "elif":
			if f.seenElse {
				p.errorf(line, "#elif", "#elif after #else")
			}
			if f.parentActive && !f.taken {
				f.active = p.evalCond(line, args)
				f.taken = f.active
			} else {
				f.active = false
			}
		case "else":
			if f.seenElse {
				p.errorf(line, "#else", "#else after #else")
			}
			if len(args) > 0 && f.parentActive {
				p.errorf(line, "#else", "unexpected tokens after #else")
			}
			f.seenElse = true
			f.active = f.parentActive && !f.taken
			f.taken = true
		case "endif":
			if len(args) > 0 && f.parentActive {
				p.errorf(line, "#endif", "unexpected tokens after #endif")
			}
			p.conds = p.conds[:len(p.conds)-1]
		}
		return
	}
	if !p.active() {
		return
	}
	switch name {
	case "define":
		p.define(line, args)
	case "undef":
		if len(args) == 0 || args[0].kind != tIdent {
			p.errorf(line, "#undef", "expected a macro name")
			return
		}
		if len(args) > 1 {
			// Reported; the macro is still undefined (as glslang and C
			// preprocessors do), so its redefinition is no second error.
			p.errorf(line, "#undef", "unexpected tokens after macro name")
		}
		n := args[0].text
		if reservedMacroName(n) {
			p.errorf(line, n, "cannot undefine a predefined macro")
			return
		}
		delete(p.macros, n)
	case "error":
		var parts []string
		for _, a := range args {
			parts = append(parts, a.text)
		}
		p.errorf(line, "#error", strings.Join(parts, " "))
	case "pragma":
		if len(args) >= 4 && args[0].text == "STDGL" && args[1].text == "invariant" && args[2].text == "(" &&
			args[3].text == "all" {
			p.invariantAll = true
		}
	case "extension":
		p.extension(line, args)
	case "version":
		if p.sawCode || p.sawDirective {
			p.errorf(line, "#version", "#version must occur before anything else")
		}
		if len(args) == 0 {
			p.errorf(line, "#version", "missing version number")
			return
		}
		if args[0].kind == tNumber && args[0].text == "310" {
			// GLSL ES 3.10 is accepted for its compute subset only
			// (compute.go); the profile name is mandatory in ES.
			if len(args) < 2 || args[1].text != "es" {
				p.errorf(line, "310", "version 310 requires the 'es' profile")
				return
			}
			p.version, p.versionLine = 310, line
			p.macros["__VERSION__"] = &macro{body: []token{{kind: tNumber, text: "310"}}}
			if p.stage != Compute {
				p.errorf(line, "310", "version 310 es is supported for compute shaders only; vertex and fragment shaders are GLSL ES 1.00")
			}
			if len(args) > 2 {
				p.errorf(line, args[2].text, "unexpected tokens after version")
			}
			return
		}
		if args[0].kind != tNumber || args[0].text != "100" {
			p.errorf(line, args[0].text, "version not supported; only 100 and 310 es (compute shaders) are")
			return
		}
		if len(args) > 1 {
			p.errorf(line, args[1].text, "unexpected tokens after version")
		}
	case "line":
		exp := p.expand(args, nil, 0)
		if len(exp) == 0 || len(exp) > 2 {
			p.errorf(line, "#line", "expected line number and optional source string number")
			return
		}
		nums := make([]int, len(exp))
		for k, t := range exp {
			v, ok := parseIntLiteral(t.text)
			if t.kind != tNumber || !ok {
				p.errorf(line, t.text, "invalid #line argument")
				return
			}
			nums[k] = int(v)
		}
		// The line after the directive gets number nums[0].
		p.lineDelta += nums[0] - (line + 1)
		if len(nums) == 2 {
			p.fileNum = nums[1]
		}
	default:
		p.errorf(line, "#"+name, "invalid directive")
	}
}

// evalCond evaluates an #if or #elif expression. One with an error counts
// as true (as in glslang): the group is processed, so the code in it is
// still checked, and a later #elif is not evaluated (and not reported).
func (p *preprocessor) evalCond(line int, args []token) bool {
	n := len(*p.errs)
	v := p.evalIf(line, args)
	return v || len(*p.errs) > n
}

func reservedMacroName(n string) bool {
	return n == "__LINE__" || n == "__FILE__" || n == "__VERSION__" || n == "defined" || strings.HasPrefix(n, "GL_")
}

func (p *preprocessor) define(line int, args []token) {
	if len(args) == 0 || args[0].kind != tIdent {
		tok := "#define"
		if len(args) > 0 {
			tok = args[0].text
		}
		p.errorf(line, tok, "expected a macro name")
		return
	}
	name := args[0].text
	reserved := reservedMacroName(name)
	if reserved {
		p.errorf(line, name, "macro names beginning with GL_ and predefined macros are reserved")
		if p.macros[name] != nil || name == "__LINE__" || name == "__FILE__" || name == "defined" {
			return // a predefined macro keeps its meaning
		}
		// A new GL_ name is still defined (as glslang does), so that its
		// uses are not reported again as undeclared identifiers.
	}
	m := &macro{}
	rest := args[1:]
	// A function-like macro has '(' immediately after the name.
	if len(rest) > 0 && rest[0].kind == tPunct && rest[0].text == "(" && !rest[0].spaceBefore {
		m.funcLike = true
		m.params = []string{}
		k := 1
		for {
			if k >= len(rest) {
				p.errorf(line, name, "unterminated macro parameter list")
				return
			}
			if rest[k].text == ")" && len(m.params) == 0 {
				k++
				break
			}
			if rest[k].kind != tIdent {
				p.errorf(line, rest[k].text, "expected a macro parameter name")
				return
			}
			for _, q := range m.params {
				if q == rest[k].text {
					p.errorf(line, q, "duplicate macro parameter")
					return
				}
			}
			m.params = append(m.params, rest[k].text)
			k++
			if k >= len(rest) {
				p.errorf(line, name, "unterminated macro parameter list")
				return
			}
			if rest[k].text == ")" {
				k++
				break
			}
			if rest[k].text != "," {
				p.errorf(line, rest[k].text, "expected ',' or ')' in macro parameter list")
				return
			}
			k++
		}
		rest = rest[k:]
	}
	m.body = append([]token(nil), rest...)
	for _, t := range m.body {
		if t.kind == tPunct && t.text == "##" {
			p.errorf(line, "##", "token pasting is not supported in GLSL ES")
			return
		}
	}
	if old := p.macros[name]; old != nil && !sameMacro(old, m) && !reserved {
		// Reported; the new definition replaces the old one (as glslang
		// does), so uses written for it are not errors too.
		p.errorf(line, name, "macro redefined differently")
	}
	p.macros[name] = m
}

func sameMacro(a, b *macro) bool {
	if a.funcLike != b.funcLike || len(a.params) != len(b.params) || len(a.body) != len(b.body) {
		return false
	}
	for i := range a.params {
		if a.params[i] != b.params[i] {
			return false
		}
	}
	for i := range a.body {
		if a.body[i].text != b.body[i].text || a.body[i].kind != b.body[i].kind ||
			i > 0 && a.body[i].spaceBefore != b.body[i].spaceBefore {
			return false
		}
	}
	return true
}

func (p *preprocessor) extension(line int, args []token) {
	if p.sawCode {
		p.errorf(line, "#extension", "#extension must come before any non-preprocessor token")
	}
	if len(args) == 0 || args[0].kind != tIdent {
		p.errorf(line, "#extension", "expected an extension name")
		return
	}
	if len(args) < 2 || args[1].text != ":" {
		p.errorf(line, "#extension", "expected ':' after the extension name")
		return
	}
	if len(args) < 3 || args[2].kind != tIdent {
		p.errorf(line, "#extension", "expected a behavior")
		return
	}
	if len(args) > 3 {
		p.errorf(line, args[3].text, "unexpected tokens after #extension behavior")
		return
	}
	name, behavior := args[0].text, args[2].text
	switch behavior {
	case "require", "enable", "warn", "disable":
	default:
		p.errorf(line, behavior, "invalid extension behavior")
		return
	}
	if name == "all" {
		if behavior == "require" || behavior == "enable" {
			p.errorf(line, behavior, "behavior not allowed for extension 'all'")
			return
		}
		if behavior == "disable" {
			p.extensions = map[string]bool{}
		}
		return
	}
	if !knownExtensions[name] {
		if behavior == "require" {
			p.errorf(line, name, "extension not supported")
		}
		return
	}
	p.extensions[name] = behavior != "disable"
}

// parseIntLiteral converts a decimal, octal or hexadecimal integer literal.
func parseIntLiteral(s string) (int64, bool) {
	base := 10
	digits := s
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		base, digits = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, digits = 8, s[1:]
	}
	if digits == "" {
		return 0, false
	}
	v, err := strconv.ParseUint(digits, base, 64)
	if err != nil {
		return 0, false
	}
	return int64(v), true
}
