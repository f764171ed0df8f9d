package difftest

import (
	"fmt"
	"strings"
)

// choices turns a byte string into a stream of bounded choices. When the
// bytes run out every choice is 0, and choice 0 is always the one that
// ends recursion (a leaf, no further statement), so any input yields a
// finite, valid program: the fuzzer can cut or mutate the string freely.
type choices struct {
	data []byte
	pos  int
}

// intn returns a choice in [0, n).
func (c *choices) intn(n int) int {
	if n <= 1 || c.pos >= len(c.data) {
		if c.pos < len(c.data) {
			c.pos++
		}
		return 0
	}
	v := int(c.data[c.pos])
	c.pos++
	if n > 256 && c.pos < len(c.data) {
		v = v<<8 | int(c.data[c.pos])
		c.pos++
	}
	return v % n
}

// chance reports true with probability about k/n.
func (c *choices) chance(k, n int) bool { return c.intn(n) >= n-k }

// base is the component kind of a generated GLSL type.
type base byte

const (
	tFloat base = 'f'
	tInt   base = 'i'
	tBool  base = 'b'
)

// gtype is a GLSL scalar or vector type.
type gtype struct {
	b base
	n int // 1..4
}

func (t gtype) String() string {
	var prefix, scalar string
	switch t.b {
	case tFloat:
		prefix, scalar = "vec", "float"
	case tInt:
		prefix, scalar = "ivec", "int"
	default:
		prefix, scalar = "bvec", "bool"
	}
	if t.n == 1 {
		return scalar
	}
	return fmt.Sprintf("%s%d", prefix, t.n)
}

// local is a variable in scope.
type local struct {
	name     string
	t        gtype
	readOnly bool // loop counters and trip limits
}

// generator writes one shader. Its budgets bound the size of the program:
// expression depth, statements and loop nesting.
type generator struct {
	c       *choices
	sb      strings.Builder
	indent  int
	scopes  [][]local
	names   int
	stmts   int // statements left
	loops   int // loop nesting
	accLane int
	nan     bool // Options.NaN

	funcs  []function // user functions defined so far (callable)
	inFunc *gtype     // return type while writing a function body
}

// function is a generated user function; calls are inlined by the IR
// lowering, and its returns become flags guarding the rest of the body.
type function struct {
	name   string
	ret    gtype
	params []gtype
}

// Limits of generated programs: they keep compilation fast (≈200 programs
// in about five seconds of CPU, most of it in register allocation) while
// still nesting control flow three deep.
const (
	maxStatements = 24
	maxExprDepth  = 3
	maxNesting    = 3
	maxLoopNest   = 2
	maxLoopTrips  = 5
)

// Options select what Generate may produce.
type Options struct {
	// NaN lets expressions divide by values that may be 0 and normalize
	// vectors that may be 0, so NaN and infinities flow into min, max,
	// clamp and comparisons. GLSL leaves those results undefined, but the
	// IR defines them (as the hardware computes them), so both sides must
	// still agree.
	NaN bool
	// Statements bounds the statements of the program (0: 24). Smaller
	// programs compile faster, which suits fuzzing with coverage
	// instrumentation, where register allocation dominates.
	Statements int
}

// Generate is GenerateWith(data, Options{}): programs whose values stay
// finite except by overflow.
func Generate(data []byte) string { return GenerateWith(data, Options{}) }

// GenerateWith returns a well-typed GLSL ES 1.00 fragment shader chosen by
// data. It reads the varyings va, vb (vec4), the uniforms u (vec4), ua (float[4],
// indexed dynamically) and ui (int), gl_FragCoord and gl_FrontFacing, and
// writes gl_FragColor. Every input gives a valid program; the same input
// gives the same program.
func GenerateWith(data []byte, opts Options) string {
	g := &generator{c: &choices{data: data}, stmts: maxStatements, nan: opts.NaN}
	if opts.Statements > 0 {
		g.stmts = opts.Statements
	}
	g.line("precision highp float;")
	g.line("varying vec4 va;")
	g.line("varying vec4 vb;")
	g.line("uniform vec4 u;")
	g.line("uniform float ua[4];")
	g.line("uniform int ui;")
	for n := g.c.intn(3); n > 0; n-- {
		g.function()
	}
	g.line("void main() {")
	g.indent++
	g.push()
	g.line("vec4 acc = vec4(0.0);")
	for g.stmts > 0 && g.c.pos < len(g.c.data) {
		g.stmt(0)
	}
	// Every top-level local flows into the colour, so a wrong value
	// anywhere is visible.
	for _, l := range g.scopes[0] {
		g.accumulate(l)
	}
	g.pop()
	g.line("gl_FragColor = acc;")
	g.indent--
	g.line("}")
	return g.sb.String()
}

func (g *generator) line(format string, args ...any) {
	g.sb.WriteString(strings.Repeat("  ", g.indent))
	fmt.Fprintf(&g.sb, format, args...)
	g.sb.WriteByte('\n')
}

func (g *generator) push() { g.scopes = append(g.scopes, nil) }
func (g *generator) pop()  { g.scopes = g.scopes[:len(g.scopes)-1] }

func (g *generator) declare(t gtype, readOnly bool) string {
	g.names++
	name := fmt.Sprintf("%c%d", t.b, g.names)
	top := len(g.scopes) - 1
	g.scopes[top] = append(g.scopes[top], local{name, t, readOnly})
	return name
}

// visible lists the locals of type t in scope (writable ones only if
// writable).
func (g *generator) visible(t gtype, writable bool) []local {
	var out []local
	for _, s := range g.scopes {
		for _, l := range s {
			if l.t == t && !(writable && l.readOnly) && l.name != "acc" {
				out = append(out, l)
			}
		}
	}
	return out
}

// allWritable lists every writable local in scope.
func (g *generator) allWritable() []local {
	var out []local
	for _, s := range g.scopes {
		for _, l := range s {
			if !l.readOnly {
				out = append(out, l)
			}
		}
	}
	return out
}

func (g *generator) randType() gtype {
	switch k := g.c.intn(10); {
	case k < 5:
		return gtype{tFloat, 1 + g.c.intn(4)}
	case k < 8:
		return gtype{tInt, 1 + g.c.intn(3)}
	default:
		return gtype{tBool, 1 + g.c.intn(3)}
	}
}

// accumulate adds a float view of l to one component of acc.
func (g *generator) accumulate(l local) {
	comp := "xyzw"[g.accLane%4 : g.accLane%4+1]
	g.accLane++
	g.line("acc.%s += %s;", comp, floatView(l.name, l.t))
}

// floatView is a float scalar expression summarising the value of name.
func floatView(name string, t gtype) string {
	var parts []string
	for i := 0; i < t.n; i++ {
		e := name
		if t.n > 1 {
			e = name + "." + "xyzw"[i:i+1]
		}
		switch t.b {
		case tInt:
			e = "float(" + e + ")"
		case tBool:
			e = "(" + e + " ? 1.0 : 0.0)"
		}
		parts = append(parts, e)
	}
	return strings.Join(parts, " + ")
}

// function writes a user function returning a float vector: parameters
// of random types (assigned to in the body, as GLSL allows), a few
// statements that may return early, and a final return.
func (g *generator) function() {
	ret := gtype{tFloat, 1 + g.c.intn(4)}
	saved := g.scopes
	g.scopes = [][]local{nil}
	var params []gtype
	var decl []string
	for n := 1 + g.c.intn(3); n > 0; n-- {
		t := g.randType()
		params = append(params, t)
		decl = append(decl, fmt.Sprintf("%s %s", t, g.declare(t, false)))
	}
	name := fmt.Sprintf("fn%d", len(g.funcs)+1)
	g.line("%s %s(%s) {", ret, name, strings.Join(decl, ", "))
	g.indent++
	g.inFunc = &ret
	for n := 1 + g.c.intn(4); n > 0 && g.stmts > 0; n-- {
		g.stmt(1)
	}
	g.line("return %s;", g.expr(ret, maxExprDepth))
	g.inFunc = nil
	g.indent--
	g.line("}")
	g.scopes = saved
	g.funcs = append(g.funcs, function{name, ret, params})
}

// call returns a call of a user function returning t, or "" if none does.
func (g *generator) call(t gtype, d int) string {
	var fs []function
	for _, f := range g.funcs {
		if f.ret == t {
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 {
		return ""
	}
	f := fs[g.c.intn(len(fs))]
	args := make([]string, len(f.params))
	for i, p := range f.params {
		args[i] = g.expr(p, d)
	}
	return fmt.Sprintf("%s(%s)", f.name, strings.Join(args, ", "))
}

// stmt writes one statement at nesting depth.
func (g *generator) stmt(depth int) {
	g.stmts--
	c := g.c
	switch k := c.intn(20); {
	case k < 5:
		t := g.randType()
		e := g.expr(t, maxExprDepth)
		g.line("%s %s = %s;", t, g.declare(t, false), e)
	case k < 9:
		g.assign()
	case k < 11 && g.inFunc != nil:
		g.assign()
	case k < 11:
		t := gtype{tFloat, 1 + c.intn(4)}
		mask := "xyzw"[:t.n]
		if t.n == 1 {
			mask = "xyzw"[c.intn(4):][:1]
		}
		g.line("acc.%s += %s;", mask, g.expr(t, maxExprDepth))
	case k < 14 && depth < maxNesting:
		g.ifElse(depth)
	case k < 16 && depth < maxNesting && g.loops < maxLoopNest:
		g.forLoop(depth)
	case k < 18 && depth < maxNesting && g.loops < maxLoopNest:
		g.whileLoop(depth)
	case k == 18 && g.loops > 0:
		kw := "break"
		if c.intn(2) == 1 {
			kw = "continue"
		}
		g.line("if (%s) %s;", g.expr(gtype{tBool, 1}, 2), kw)
	case k == 19 && g.inFunc != nil && c.intn(2) == 0:
		g.line("if (%s) return %s;", g.expr(gtype{tBool, 1}, 2), g.expr(*g.inFunc, 2))
	case k == 19 && c.intn(3) == 0:
		g.line("if (%s) discard;", g.expr(gtype{tBool, 1}, 2))
	case g.inFunc != nil:
		g.assign()
	default:
		if ws := g.allWritable(); len(ws) > 0 {
			g.accumulate(ws[c.intn(len(ws))])
		}
	}
}

func (g *generator) assign() {
	ws := g.allWritable()
	if len(ws) == 0 {
		return
	}
	l := ws[g.c.intn(len(ws))]
	if l.name == "acc" {
		return
	}
	switch k := g.c.intn(4); {
	case k == 1 && l.t.b != tBool:
		ops := []string{"+=", "-=", "*="}
		g.line("%s %s %s;", l.name, ops[g.c.intn(3)], g.expr(l.t, maxExprDepth))
	case k == 2 && l.t.n > 1:
		i := g.c.intn(l.t.n)
		g.line("%s.%s = %s;", l.name, "xyzw"[i:i+1], g.expr(gtype{l.t.b, 1}, maxExprDepth))
	default:
		g.line("%s = %s;", l.name, g.expr(l.t, maxExprDepth))
	}
}

func (g *generator) block(depth int) {
	g.indent++
	g.push()
	n := 1 + g.c.intn(4)
	for i := 0; i < n && g.stmts > 0; i++ {
		g.stmt(depth)
	}
	g.pop()
	g.indent--
}

func (g *generator) ifElse(depth int) {
	g.line("if (%s) {", g.expr(gtype{tBool, 1}, 3))
	g.block(depth + 1)
	if g.c.intn(2) == 1 {
		g.line("} else {")
		g.block(depth + 1)
	}
	g.line("}")
}

// tripLimit declares a read-only int in [0, maxLoopTrips] that differs
// between lanes.
func (g *generator) tripLimit() string {
	e := g.expr(gtype{tFloat, 1}, 2)
	name := g.declare(gtype{tInt, 1}, true)
	g.line("int %s = int(clamp(%s, 0.0, %d.0));", name, e, maxLoopTrips)
	return name
}

// forLoop writes a constant-bound for loop (GLSL ES Appendix A) whose
// per-lane trip count comes from a break on a lane-varying limit.
func (g *generator) forLoop(depth int) {
	lim := g.tripLimit()
	g.push()
	i := g.declare(gtype{tInt, 1}, true)
	n := 1 + g.c.intn(maxLoopTrips+1)
	g.line("for (int %s = 0; %s < %d; %s++) {", i, i, n, i)
	g.indent++
	g.line("if (%s >= %s) break;", i, lim)
	g.indent--
	g.loops++
	g.block(depth + 1)
	g.loops--
	g.line("}")
	g.pop()
}

// whileLoop writes a while or do-while loop counting to a lane-varying
// limit; the counter is incremented first so every loop terminates.
func (g *generator) whileLoop(depth int) {
	lim := g.tripLimit()
	k := g.declare(gtype{tInt, 1}, true)
	g.line("int %s = 0;", k)
	do := g.c.intn(2) == 1
	if do {
		g.line("do {")
	} else {
		g.line("while (%s < %s) {", k, lim)
	}
	g.indent++
	g.line("%s++;", k)
	g.indent--
	g.loops++
	g.block(depth + 1)
	g.loops--
	if do {
		g.line("} while (%s < %s);", k, lim)
	} else {
		g.line("}")
	}
}

// Float literals: small values, exact binary fractions, a few that are
// not, and values near the integers floor/fract/step care about.
var floatLits = []string{"0.0", "1.0", "0.5", "2.0", "-1.0", "3.25", "-0.75", "0.1", "10.0", "-2.5", "0.333", "100.0", "1.5", "-4.0", "0.01", "7.0"}

// intLits include values beyond 2^24, where a float quotient is no longer
// exact, and the ends of the int32 range the hardware computes in.
var intLits = []string{"0", "1", "2", "-1", "3", "5", "-7", "16", "100", "16777217", "-16777219", "2147483647", "1073741825"}

func (g *generator) pick(s []string) string { return s[g.c.intn(len(s))] }

func swizzle(c *choices, from, n int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		sb.WriteByte("xyzw"[c.intn(from)])
	}
	return sb.String()
}

// expr returns an expression of type t; depth bounds its height.
func (g *generator) expr(t gtype, depth int) string {
	if depth <= 0 || g.c.intn(4) == 0 {
		return g.leaf(t)
	}
	switch t.b {
	case tFloat:
		return g.floatExpr(t, depth-1)
	case tInt:
		return g.intExpr(t, depth-1)
	}
	return g.boolExpr(t, depth-1)
}

// leaf returns a literal, an input or a local of type t.
func (g *generator) leaf(t gtype) string {
	c := g.c
	k := c.intn(4)
	if k == 1 {
		if vs := g.visible(t, false); len(vs) > 0 {
			return vs[c.intn(len(vs))].name
		}
	}
	switch t.b {
	case tFloat:
		if k >= 2 {
			inputs := []string{"va", "vb", "u", "gl_FragCoord", "va", "vb"}
			return inputs[c.intn(len(inputs))] + "." + swizzle(c, 4, t.n)
		}
		if t.n == 1 {
			return g.pick(floatLits)
		}
		return g.construct(t, func() string { return g.pick(floatLits) })
	case tInt:
		if k >= 2 {
			in := fmt.Sprintf("int(floor(%s.%s * 4.0))", []string{"va", "vb"}[c.intn(2)], swizzle(c, 4, 1))
			if k == 3 {
				in = "ui"
			}
			if t.n == 1 {
				return in
			}
			return fmt.Sprintf("%s(%s)", t, in)
		}
		if t.n == 1 {
			return g.pick(intLits)
		}
		return g.construct(t, func() string { return g.pick(intLits) })
	}
	if k >= 2 {
		s := fmt.Sprintf("(va.%s < vb.%s)", swizzle(c, 4, 1), swizzle(c, 4, 1))
		if k == 3 {
			s = "gl_FrontFacing"
		}
		if t.n == 1 {
			return s
		}
		return fmt.Sprintf("%s(%s)", t, s)
	}
	lit := func() string { return []string{"false", "true"}[c.intn(2)] }
	if t.n == 1 {
		return lit()
	}
	return g.construct(t, lit)
}

func (g *generator) construct(t gtype, comp func() string) string {
	parts := make([]string, t.n)
	for i := range parts {
		parts[i] = comp()
	}
	return fmt.Sprintf("%s(%s)", t, strings.Join(parts, ", "))
}

// vecOf is the vector (or scalar) type of n components of kind b.
func vecOf(b base, n int) gtype { return gtype{b, n} }

func (g *generator) floatExpr(t gtype, d int) string {
	c := g.c
	e := func(tt gtype) string { return g.expr(tt, d) }
	same := func() string { return e(t) }
	scalar := gtype{tFloat, 1}
	// Operands that may be scalar where t is a vector (GLSL's vec op float).
	mixed := func() string {
		if t.n > 1 && c.intn(3) == 0 {
			return e(scalar)
		}
		return same()
	}
	switch k := c.intn(30); k {
	case 0:
		return "(" + mixed() + " + " + same() + ")"
	case 1:
		return "(" + same() + " - " + mixed() + ")"
	case 2:
		return "(" + mixed() + " * " + same() + ")"
	case 3:
		// Division by a value bounded away from 0.
		return fmt.Sprintf("(%s / (abs(%s) + 0.5))", same(), mixed())
	case 4:
		return "(- " + same() + ")"
	case 5:
		return fmt.Sprintf("min(%s, %s)", same(), mixed())
	case 6:
		return fmt.Sprintf("max(%s, %s)", same(), mixed())
	case 7:
		lo := c.intn(4)
		return fmt.Sprintf("clamp(%s, %d.0, %d.5)", same(), -lo, lo)
	case 8:
		fns := []string{"abs", "floor", "fract", "ceil", "sign"}
		return fmt.Sprintf("%s(%s)", g.pick(fns), same())
	case 9:
		return fmt.Sprintf("mix(%s, %s, %s)", same(), same(), mixed())
	case 10:
		return fmt.Sprintf("step(%s, %s)", mixed(), same())
	case 11:
		return fmt.Sprintf("sqrt(abs(%s))", same())
	case 12:
		return fmt.Sprintf("exp2(clamp(%s, -8.0, 8.0))", same())
	case 13:
		return fmt.Sprintf("log2(abs(%s) + 0.25)", same())
	case 14:
		return fmt.Sprintf("pow(abs(%s) + 0.25, clamp(%s, -3.0, 3.0))", same(), same())
	case 15:
		return fmt.Sprintf("%s(%s)", []string{"sin", "cos"}[c.intn(2)], same())
	case 16:
		return fmt.Sprintf("(%s ? %s : %s)", e(gtype{tBool, 1}), same(), same())
	case 17:
		// Swizzle of a wider vector.
		from := 2 + c.intn(3)
		if from < t.n {
			from = t.n
		}
		return fmt.Sprintf("(%s).%s", e(vecOf(tFloat, from)), swizzle(c, from, t.n))
	case 18:
		if t.n == 1 {
			return fmt.Sprintf("float(%s)", e(gtype{tInt, 1}))
		}
		if t.n <= 3 {
			return fmt.Sprintf("%s(%s)", t, e(gtype{tInt, t.n}))
		}
		return fmt.Sprintf("%s(%s, %s)", t, e(vecOf(tFloat, 2)), e(vecOf(tFloat, 2)))
	case 19:
		if t.n == 1 {
			n := 2 + c.intn(3)
			fns := []string{"dot", "distance"}
			if c.intn(2) == 0 {
				return fmt.Sprintf("length(%s)", e(vecOf(tFloat, n)))
			}
			return fmt.Sprintf("%s(%s, %s)", g.pick(fns), e(vecOf(tFloat, n)), e(vecOf(tFloat, n)))
		}
		if t.n == 3 && c.intn(2) == 0 {
			return fmt.Sprintf("cross(%s, %s)", same(), same())
		}
		if !g.nan {
			return fmt.Sprintf("normalize(abs(%s) + 0.25)", same())
		}
		return fmt.Sprintf("normalize(%s)", same())
	case 20:
		if t.n == 1 {
			return fmt.Sprintf("ua[int(clamp(%s, 0.0, 3.0))]", e(scalar))
		}
		return fmt.Sprintf("%s(%s, %s)", t, e(scalar), e(vecOf(tFloat, t.n-1)))
	case 21:
		return fmt.Sprintf("smoothstep(%s, %s, %s)", "0.0", "1.0", same())
	case 22:
		if g.nan {
			return fmt.Sprintf("(%s / %s)", same(), mixed())
		}
		d := mixed()
		return fmt.Sprintf("(%s / (%s * %s + 1.0))", same(), d, d)
	case 23:
		return fmt.Sprintf("mod(%s, abs(%s) + 1.0)", same(), mixed())
	case 24:
		if t.n == 1 {
			return fmt.Sprintf("%s[%d]", e(vecOf(tFloat, 2+c.intn(3))), c.intn(2))
		}
	case 25, 26:
		if call := g.call(t, d); call != "" {
			return call
		}
	}
	return g.leaf(t)
}

func (g *generator) intExpr(t gtype, d int) string {
	c := g.c
	e := func(tt gtype) string { return g.expr(tt, d) }
	same := func() string { return e(t) }
	switch k := c.intn(13); k {
	case 0:
		return "(" + same() + " + " + same() + ")"
	case 1:
		return "(" + same() + " - " + same() + ")"
	case 2:
		return "(" + same() + " * " + same() + ")"
	case 3:
		divs := []string{"2", "3", "-4", "7"}
		return fmt.Sprintf("(%s / %s)", same(), g.pick(divs))
	case 4:
		return "(- " + same() + ")"
	case 5:
		ft := gtype{tFloat, t.n}
		if c.intn(2) == 0 {
			return fmt.Sprintf("%s(clamp(%s, -1000.0, 1000.0))", t, e(ft))
		}
		return fmt.Sprintf("%s(%s)", t, e(ft))
	case 6:
		return fmt.Sprintf("(%s ? %s : %s)", e(gtype{tBool, 1}), same(), same())
	case 7:
		from := 2 + c.intn(2)
		if from < t.n {
			from = t.n
		}
		return fmt.Sprintf("(%s).%s", e(vecOf(tInt, from)), swizzle(c, from, t.n))
	case 8:
		if t.n == 1 {
			// Division by a lane-varying value that is 0 only on overflow.
			d := same()
			return fmt.Sprintf("(%s / (%s * %s + 1))", same(), d, d)
		}
	case 9:
		// Division of and by values over the whole int32 range (ui and
		// the literals reach 2^31 − 1); a zero divisor is undefined in
		// GLSL but defined by the IR, so both sides still agree.
		if t.n == 1 {
			return fmt.Sprintf("(%s / %s)", same(), g.pick([]string{"ui", "(ui - 1)", same()}))
		}
	}
	return g.leaf(t)
}

func (g *generator) boolExpr(t gtype, d int) string {
	c := g.c
	e := func(tt gtype) string { return g.expr(tt, d) }
	cmp := []string{"<", "<=", ">", ">=", "==", "!="}
	if t.n > 1 {
		switch k := c.intn(5); k {
		case 0, 1:
			fns := []string{"lessThan", "lessThanEqual", "greaterThan", "greaterThanEqual", "equal", "notEqual"}
			b := tFloat
			if k == 1 {
				b = tInt
			}
			return fmt.Sprintf("%s(%s, %s)", g.pick(fns), e(gtype{b, t.n}), e(gtype{b, t.n}))
		case 2:
			return fmt.Sprintf("not(%s)", e(t))
		case 3:
			from := 2 + c.intn(2)
			if from < t.n {
				from = t.n
			}
			return fmt.Sprintf("(%s).%s", e(vecOf(tBool, from)), swizzle(c, from, t.n))
		}
		return g.leaf(t)
	}
	switch k := c.intn(9); k {
	case 0:
		return fmt.Sprintf("(%s %s %s)", e(gtype{tFloat, 1}), g.pick(cmp), e(gtype{tFloat, 1}))
	case 1:
		return fmt.Sprintf("(%s %s %s)", e(gtype{tInt, 1}), g.pick(cmp), e(gtype{tInt, 1}))
	case 2:
		return fmt.Sprintf("(%s && %s)", e(t), e(t))
	case 3:
		return fmt.Sprintf("(%s || %s)", e(t), e(t))
	case 4:
		return fmt.Sprintf("(%s ^^ %s)", e(t), e(t))
	case 5:
		return fmt.Sprintf("(!%s)", e(t))
	case 6:
		return fmt.Sprintf("%s(%s)", []string{"any", "all"}[c.intn(2)], e(gtype{tBool, 2 + c.intn(2)}))
	case 7:
		n := 2 + c.intn(3)
		op := []string{"==", "!="}[c.intn(2)]
		return fmt.Sprintf("(%s %s %s)", e(vecOf(tFloat, n)), op, e(vecOf(tFloat, n)))
	}
	return g.leaf(t)
}
