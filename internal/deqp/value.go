package deqp

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is the scalar kind of a value type.
type Kind int

// Scalar kinds. Sampler values are texture unit numbers.
const (
	Float Kind = iota
	Int
	Bool
	Sampler
)

func (k Kind) String() string {
	return [...]string{"float", "int", "bool", "sampler"}[k]
}

// Type is the shape of a values-block type: a scalar (1×1), a vector
// (Rows×1) or a square matrix (Rows×Cols, column-major).
type Type struct {
	Name       string
	Kind       Kind
	Rows, Cols int
}

// Size is the number of scalar components.
func (t Type) Size() int { return t.Rows * t.Cols }

// IsMatrix reports whether t is a matN.
func (t Type) IsMatrix() bool { return t.Cols > 1 }

// ParseType returns the Type of a GLSL ES 1.00 type name as used in value
// blocks: float, vecN, int, ivecN, bool, bvecN, matN, sampler2D and
// samplerCube. A leading precision qualifier is ignored.
func ParseType(name string) (Type, error) {
	f := strings.Fields(name)
	if len(f) == 2 && (f[0] == "lowp" || f[0] == "mediump" || f[0] == "highp") {
		name = f[1]
	} else if len(f) != 1 {
		return Type{}, fmt.Errorf("unknown value type %q", name)
	}
	t := Type{Name: name, Rows: 1, Cols: 1}
	switch name {
	case "float":
		t.Kind = Float
	case "int":
		t.Kind = Int
	case "bool":
		t.Kind = Bool
	case "sampler2D", "samplerCube":
		t.Kind = Sampler
	case "vec2", "vec3", "vec4":
		t.Kind, t.Rows = Float, int(name[3]-'0')
	case "ivec2", "ivec3", "ivec4":
		t.Kind, t.Rows = Int, int(name[4]-'0')
	case "bvec2", "bvec3", "bvec4":
		t.Kind, t.Rows = Bool, int(name[4]-'0')
	case "mat2", "mat3", "mat4":
		n := int(name[3] - '0')
		t.Kind, t.Rows, t.Cols = Float, n, n
	default:
		return Type{}, fmt.Errorf("unknown value type %q", name)
	}
	return t, nil
}

// ParseElement evaluates the source text of one value element for type t:
// a literal ("1.5", "-3", "true") or a constructor ("vec3(1.0, 2.0, 3.0)",
// "mat2(2.0)", "vec4(vec2(1.0), 0.0, 1.0)") with GLSL constructor
// semantics: one scalar argument fills a vector and the diagonal of a
// matrix, a matrix argument to a matrix constructor copies the overlapping
// part, otherwise the arguments' components are consumed in order. It
// returns the components (column-major for matrices); integers and
// booleans are exact in float64. Errors name what was wrong.
func ParseElement(t Type, src string) ([]float64, error) {
	p := &elemParser{src: src}
	v, err := p.expr()
	if err != nil {
		return nil, fmt.Errorf("%s %q: %v", t.Name, src, err)
	}
	p.skipSpace()
	if p.pos != len(p.src) {
		return nil, fmt.Errorf("%s %q: unexpected %q after the value", t.Name, src, p.src[p.pos:])
	}
	if v.typ.Kind == Int && v.literal && t.Kind == Float && t.Size() == 1 {
		// An integer literal is accepted for a float value ("1" means 1.0).
		return v.comps, nil
	}
	vk := v.typ.Kind
	tk := t.Kind
	if tk == Sampler {
		tk = Int
	}
	if vk != tk || v.typ.Rows != t.Rows || v.typ.Cols != t.Cols {
		return nil, fmt.Errorf("%s %q: value has type %s", t.Name, src, v.typ.Name)
	}
	return v.comps, nil
}

// elemValue is an evaluated (sub)expression.
type elemValue struct {
	typ     Type
	comps   []float64
	literal bool // a bare literal, not a constructor
}

type elemParser struct {
	src string
	pos int
}

func (p *elemParser) skipSpace() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n' || p.src[p.pos] == '\r') {
		p.pos++
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// maxDepth bounds constructor nesting so hostile input cannot exhaust the stack.
const maxDepth = 16

func (p *elemParser) expr() (elemValue, error) { return p.exprDepth(0) }

func (p *elemParser) exprDepth(depth int) (elemValue, error) {
	if depth > maxDepth {
		return elemValue{}, fmt.Errorf("constructors nested deeper than %d", maxDepth)
	}
	p.skipSpace()
	if p.pos >= len(p.src) {
		return elemValue{}, fmt.Errorf("missing value")
	}
	c := p.src[p.pos]
	if c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9' {
		return p.number()
	}
	start := p.pos
	for p.pos < len(p.src) && isIdentByte(p.src[p.pos]) {
		p.pos++
	}
	name := p.src[start:p.pos]
	switch name {
	case "":
		return elemValue{}, fmt.Errorf("unexpected %q", string(c))
	case "true":
		return elemValue{typ: Type{Name: "bool", Kind: Bool, Rows: 1, Cols: 1}, comps: []float64{1}, literal: true}, nil
	case "false":
		return elemValue{typ: Type{Name: "bool", Kind: Bool, Rows: 1, Cols: 1}, comps: []float64{0}, literal: true}, nil
	}
	t, err := ParseType(name)
	if err != nil || t.Kind == Sampler {
		return elemValue{}, fmt.Errorf("unknown constructor %q", name)
	}
	p.skipSpace()
	if p.pos >= len(p.src) || p.src[p.pos] != '(' {
		return elemValue{}, fmt.Errorf("expected '(' after %s", name)
	}
	p.pos++
	var args []elemValue
	for {
		a, err := p.exprDepth(depth + 1)
		if err != nil {
			return elemValue{}, err
		}
		args = append(args, a)
		p.skipSpace()
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.src) && p.src[p.pos] == ')' {
			p.pos++
			break
		}
		return elemValue{}, fmt.Errorf("expected ',' or ')' in %s constructor", name)
	}
	comps, err := construct(t, args)
	if err != nil {
		return elemValue{}, err
	}
	return elemValue{typ: t, comps: comps}, nil
}

// number parses a signed decimal, hexadecimal or floating-point literal.
func (p *elemParser) number() (elemValue, error) {
	start := p.pos
	if p.src[p.pos] == '-' || p.src[p.pos] == '+' {
		p.pos++
		p.skipSpace()
	}
	sign := strings.ReplaceAll(p.src[start:p.pos], " ", "")
	digits := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if isIdentByte(c) || c == '.' {
			p.pos++
			continue
		}
		// An exponent sign: 1.0e-3.
		if (c == '-' || c == '+') && p.pos > digits && (p.src[p.pos-1] == 'e' || p.src[p.pos-1] == 'E') &&
			!strings.HasPrefix(strings.ToLower(p.src[digits:p.pos]), "0x") {
			p.pos++
			continue
		}
		break
	}
	text := p.src[digits:p.pos]
	if text == "" {
		return elemValue{}, fmt.Errorf("%q is not a number", sign)
	}
	lower := strings.ToLower(text)
	isHex := strings.HasPrefix(lower, "0x")
	if !isHex && strings.ContainsAny(lower, ".e") {
		f, err := strconv.ParseFloat(strings.TrimSuffix(lower, "f"), 32)
		if err != nil {
			return elemValue{}, fmt.Errorf("bad float literal %q", text)
		}
		if sign == "-" {
			f = -f
		}
		// Values are float32 on the GPU; round here so that references
		// and inputs carry the same bits the shader sees.
		return elemValue{typ: Type{Name: "float", Kind: Float, Rows: 1, Cols: 1}, comps: []float64{float64(float32(f))}, literal: true}, nil
	}
	n, err := strconv.ParseInt(sign+text, 0, 64)
	if err != nil || n < -1<<31 || n > 1<<32-1 {
		return elemValue{}, fmt.Errorf("bad integer literal %q", sign+text)
	}
	if n > 1<<31-1 {
		n -= 1 << 32 // 0xffffffff is -1 as a 32-bit int
	}
	return elemValue{typ: Type{Name: "int", Kind: Int, Rows: 1, Cols: 1}, comps: []float64{float64(n)}, literal: true}, nil
}

// convert converts one component to kind k as GLSL constructors do.
func convert(x float64, k Kind) float64 {
	switch k {
	case Int:
		return float64(int32(x)) // truncation toward zero
	case Bool:
		if x != 0 {
			return 1
		}
		return 0
	}
	return float64(float32(x))
}

// construct applies GLSL ES 1.00 constructor rules (section 5.4).
func construct(t Type, args []elemValue) ([]float64, error) {
	n := t.Size()
	out := make([]float64, n)
	if len(args) == 1 && args[0].typ.Size() == 1 {
		x := convert(args[0].comps[0], t.Kind)
		if t.IsMatrix() {
			for i := 0; i < t.Cols; i++ {
				out[i*t.Rows+i] = x
			}
		} else {
			for i := range out {
				out[i] = x
			}
		}
		return out, nil
	}
	if len(args) == 1 && t.IsMatrix() && args[0].typ.IsMatrix() {
		a := args[0]
		for c := 0; c < t.Cols; c++ {
			for r := 0; r < t.Rows; r++ {
				switch {
				case c < a.typ.Cols && r < a.typ.Rows:
					out[c*t.Rows+r] = a.comps[c*a.typ.Rows+r]
				case c == r:
					out[c*t.Rows+r] = 1
				}
			}
		}
		return out, nil
	}
	if t.IsMatrix() {
		for _, a := range args {
			if a.typ.IsMatrix() {
				return nil, fmt.Errorf("%s constructor: a matrix argument must be the only argument", t.Name)
			}
		}
	}
	k := 0
	for i, a := range args {
		if k >= n {
			return nil, fmt.Errorf("%s constructor: too many arguments (argument %d is unused)", t.Name, i+1)
		}
		for _, x := range a.comps {
			if k == n {
				break
			}
			out[k] = convert(x, t.Kind)
			k++
		}
	}
	if k < n {
		return nil, fmt.Errorf("%s constructor: %d components given, %d needed", t.Name, k, n)
	}
	return out, nil
}
