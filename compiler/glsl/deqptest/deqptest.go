// Package deqptest reads the Khronos dEQP shader-library .test format
// (data/gles2/shaders/*.test) and specializes its cases into complete
// vertex/fragment shader pairs the way dEQP's ShaderLibrary does. The
// compiler's conformance test and the `tilegpu deqp` runner use it; it
// carries the conformance-testing side of the compiler/glsl front end.
package deqptest

import (
	"fmt"
	"os"
	"strings"
)

// Expect is the outcome a case requires.
type Expect int

// Expected outcomes. BuildSuccessful only requires compiling and linking.
const (
	Pass Expect = iota
	CompileFail
	LinkFail
	BuildSuccessful
)

func (e Expect) String() string {
	return [...]string{"pass", "compile_fail", "link_fail", "build_successful"}[e]
}

// Storage is the kind of a value-block entry.
type Storage int

// Value storages.
const (
	Input Storage = iota
	Output
	Uniform
)

// Value is one entry of a case's values block, e.g.
// "input float in0 = [ 1.0 | 2.0 ];". Elements holds the source text of
// each element (one per sub-case execution).
type Value struct {
	Storage  Storage
	Type     string
	Name     string
	Elements []string
}

// Case is one shader case.
type Case struct {
	Group        string // dotted path of the enclosing groups
	Name         string
	Desc         string
	Expect       Expect
	Version      string // "100" unless the case says otherwise
	Requirements []string
	Values       []Value
	// Both is set for cases run once as a vertex and once as a fragment
	// shader; otherwise Vertex and Fragment hold the two sources.
	Both             string
	Vertex, Fragment string
	Line             int
}

// FullName is Group.Name.
func (c *Case) FullName() string {
	if c.Group == "" {
		return c.Name
	}
	return c.Group + "." + c.Name
}

// Program is one specialized shader pair ready to compile.
type Program struct {
	Name             string // the case name, with _vertex / _fragment for Both cases
	Vertex, Fragment string
}

// ParseFile reads and parses one .test file.
func ParseFile(path string) ([]Case, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(string(b))
}

type reader struct {
	s    string
	pos  int
	line int
}

func (r *reader) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: %s", r.line, fmt.Sprintf(format, args...))
}

func (r *reader) skipSpace() {
	for r.pos < len(r.s) {
		c := r.s[r.pos]
		switch {
		case c == '\n':
			r.line++
			r.pos++
		case c == ' ' || c == '\t' || c == '\r':
			r.pos++
		case c == '#':
			for r.pos < len(r.s) && r.s[r.pos] != '\n' {
				r.pos++
			}
		default:
			return
		}
	}
}

// word reads the next bare word, or "" at the end.
func (r *reader) word() string {
	r.skipSpace()
	start := r.pos
	for r.pos < len(r.s) {
		c := r.s[r.pos]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '{' || c == '}' || c == '"' || c == ';' {
			break
		}
		r.pos++
	}
	return r.s[start:r.pos]
}

// restOfLine returns the remainder of the current line.
func (r *reader) restOfLine() string {
	start := r.pos
	for r.pos < len(r.s) && r.s[r.pos] != '\n' {
		r.pos++
	}
	return strings.TrimSpace(r.s[start:r.pos])
}

// str reads "text" or a ""multi-line"" block.
func (r *reader) str() (string, error) {
	r.skipSpace()
	if strings.HasPrefix(r.s[r.pos:], `""`) {
		r.pos += 2
		end := strings.Index(r.s[r.pos:], `""`)
		if end < 0 {
			return "", r.errorf("unterminated multi-line string")
		}
		body := r.s[r.pos : r.pos+end]
		r.line += strings.Count(body, "\n")
		r.pos += end + 2
		return unindent(body), nil
	}
	if r.pos >= len(r.s) || r.s[r.pos] != '"' {
		return "", r.errorf("expected a string")
	}
	r.pos++
	var b strings.Builder
	for r.pos < len(r.s) && r.s[r.pos] != '"' {
		if r.s[r.pos] == '\\' && r.pos+1 < len(r.s) {
			r.pos++
			switch r.s[r.pos] {
			case 'n':
				b.WriteByte('\n')
			default:
				b.WriteByte(r.s[r.pos])
			}
			r.pos++
			continue
		}
		if r.s[r.pos] == '\n' {
			return "", r.errorf("newline in string")
		}
		b.WriteByte(r.s[r.pos])
		r.pos++
	}
	if r.pos >= len(r.s) {
		return "", r.errorf("unterminated string")
	}
	r.pos++
	return b.String(), nil
}

// unindent removes the first (empty) line and the common indentation, as
// the dEQP parser does for multi-line shader sources.
func unindent(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	if len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			lines[i] = l[indent:]
		} else {
			lines[i] = strings.TrimLeft(l, " \t")
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// Parse parses the text of a .test file.
func Parse(src string) ([]Case, error) {
	r := &reader{s: src, line: 1}
	var cases []Case
	var groups []string
	for {
		w := r.word()
		switch w {
		case "":
			if r.pos >= len(r.s) {
				if len(groups) > 0 {
					return nil, r.errorf("unterminated group %q", groups[len(groups)-1])
				}
				return cases, nil
			}
			return nil, r.errorf("unexpected %q", r.s[r.pos:r.pos+1])
		case "group":
			name := r.word()
			if name == "" {
				return nil, r.errorf("group without a name")
			}
			if _, err := r.str(); err != nil {
				return nil, err
			}
			groups = append(groups, name)
		case "end":
			if len(groups) == 0 {
				return nil, r.errorf("end without group")
			}
			groups = groups[:len(groups)-1]
		case "case":
			c, err := r.parseCase(strings.Join(groups, "."))
			if err != nil {
				return nil, err
			}
			cases = append(cases, c)
		default:
			return nil, r.errorf("unexpected %q", w)
		}
	}
}

func (r *reader) parseCase(group string) (Case, error) {
	c := Case{Group: group, Name: r.word(), Version: "100", Line: r.line}
	if c.Name == "" {
		return c, r.errorf("case without a name")
	}
	for {
		w := r.word()
		var err error
		switch w {
		case "end":
			if c.Both == "" && (c.Vertex == "" || c.Fragment == "") {
				return c, r.errorf("case %s has no complete shader sources", c.Name)
			}
			return c, nil
		case "desc":
			c.Desc, err = r.str()
		case "expect":
			switch e := r.word(); e {
			case "pass":
				c.Expect = Pass
			case "compile_fail":
				c.Expect = CompileFail
			case "link_fail":
				c.Expect = LinkFail
			case "build_successful":
				c.Expect = BuildSuccessful
			default:
				return c, r.errorf("unknown expectation %q", e)
			}
		case "version":
			c.Version = r.restOfLine()
		case "require":
			c.Requirements = append(c.Requirements, r.restOfLine())
		case "values":
			c.Values, err = r.values()
		case "both":
			c.Both, err = r.str()
		case "vertex":
			c.Vertex, err = r.str()
		case "fragment":
			c.Fragment, err = r.str()
		case "":
			return c, r.errorf("unterminated case %s", c.Name)
		default:
			return c, r.errorf("unexpected %q in case %s", w, c.Name)
		}
		if err != nil {
			return c, err
		}
	}
}

// values parses a { ... } block of value declarations.
func (r *reader) values() ([]Value, error) {
	r.skipSpace()
	if r.pos >= len(r.s) || r.s[r.pos] != '{' {
		return nil, r.errorf("expected '{' after values")
	}
	start := r.pos + 1
	depth := 0
	for ; r.pos < len(r.s); r.pos++ {
		switch r.s[r.pos] {
		case '{':
			depth++
		case '}':
			depth--
		case '\n':
			r.line++
		}
		if depth == 0 {
			break
		}
	}
	if depth != 0 {
		return nil, r.errorf("unterminated values block")
	}
	body := r.s[start:r.pos]
	r.pos++
	// Drop # comments.
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if k := strings.IndexByte(l, '#'); k >= 0 {
			lines[i] = l[:k]
		}
	}
	body = strings.Join(lines, "\n")
	var vals []Value
	for _, stmt := range strings.Split(body, ";") {
		stmt = strings.TrimSpace(stmt)
		if stmt == "" {
			continue
		}
		lhs, rhs, ok := strings.Cut(stmt, "=")
		f := strings.Fields(lhs)
		if !ok || len(f) != 3 {
			return nil, r.errorf("malformed value %q", stmt)
		}
		v := Value{Type: f[1], Name: f[2]}
		switch f[0] {
		case "input":
			v.Storage = Input
		case "output":
			v.Storage = Output
		case "uniform":
			v.Storage = Uniform
		default:
			return nil, r.errorf("unknown value storage %q", f[0])
		}
		rhs = strings.TrimSpace(rhs)
		if strings.HasPrefix(rhs, "[") && strings.HasSuffix(rhs, "]") {
			for _, e := range strings.Split(rhs[1:len(rhs)-1], "|") {
				v.Elements = append(v.Elements, strings.TrimSpace(e))
			}
		} else {
			v.Elements = []string{rhs}
		}
		vals = append(vals, v)
	}
	return vals, nil
}
