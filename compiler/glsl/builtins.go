package glsl

import (
	"math"
	"slices"
	"sort"
)

// builtinMarker is the scope entry of a built-in function name, so that a
// user variable of the same name hides it.
type builtinMarker struct{}

// builtinSig is one overload of a built-in function.
type builtinSig struct {
	ret       *Type
	params    []*Type
	stage     int    // -1 both, else Stage
	extension string // required extension, or ""
}

var genTypes = []*Type{TypeFloat, TypeVec2, TypeVec3, TypeVec4}

// builtinTable lists the built-in functions of GLSL ES 1.00 chapter 8.
var builtinTable = func() map[string][]builtinSig {
	m := map[string][]builtinSig{}
	add := func(name string, stage int, ext string, ret *Type, params ...*Type) {
		m[name] = append(m[name], builtinSig{ret: ret, params: params, stage: stage, extension: ext})
	}
	for _, g := range genTypes {
		for _, n := range []string{"radians", "degrees", "sin", "cos", "tan", "asin", "acos", "atan", "exp", "log", "exp2",
			"log2", "sqrt", "inversesqrt", "abs", "sign", "floor", "ceil", "fract", "normalize"} {
			add(n, -1, "", g, g)
		}
		for _, n := range []string{"atan", "pow", "mod", "min", "max", "step", "reflect"} {
			add(n, -1, "", g, g, g)
		}
		for _, n := range []string{"dFdx", "dFdy", "fwidth"} {
			add(n, int(Fragment), "GL_OES_standard_derivatives", g, g)
		}
		if g != TypeFloat {
			for _, n := range []string{"mod", "min", "max"} {
				add(n, -1, "", g, g, TypeFloat)
			}
			add("clamp", -1, "", g, g, TypeFloat, TypeFloat)
			add("mix", -1, "", g, g, g, TypeFloat)
			add("step", -1, "", g, TypeFloat, g)
			add("smoothstep", -1, "", g, TypeFloat, TypeFloat, g)
		}
		add("clamp", -1, "", g, g, g, g)
		add("mix", -1, "", g, g, g, g)
		add("smoothstep", -1, "", g, g, g, g)
		add("length", -1, "", TypeFloat, g)
		add("distance", -1, "", TypeFloat, g, g)
		add("dot", -1, "", TypeFloat, g, g)
		add("faceforward", -1, "", g, g, g, g)
		add("refract", -1, "", g, g, g, TypeFloat)
	}
	add("cross", -1, "", TypeVec3, TypeVec3, TypeVec3)
	for _, mt := range []*Type{TypeMat2, TypeMat3, TypeMat4} {
		add("matrixCompMult", -1, "", mt, mt, mt)
	}
	for n := 2; n <= 4; n++ {
		bv := VectorType(Bool, n)
		for _, s := range []Kind{Float, Int} {
			v := VectorType(s, n)
			for _, f := range []string{"lessThan", "lessThanEqual", "greaterThan", "greaterThanEqual", "equal", "notEqual"} {
				add(f, -1, "", bv, v, v)
			}
		}
		add("equal", -1, "", bv, bv, bv)
		add("notEqual", -1, "", bv, bv, bv)
		add("any", -1, "", TypeBool, bv)
		add("all", -1, "", TypeBool, bv)
		add("not", -1, "", bv, bv)
	}
	add("texture2D", -1, "", TypeVec4, TypeSampler2D, TypeVec2)
	add("texture2D", int(Fragment), "", TypeVec4, TypeSampler2D, TypeVec2, TypeFloat)
	add("texture2DProj", -1, "", TypeVec4, TypeSampler2D, TypeVec3)
	add("texture2DProj", int(Fragment), "", TypeVec4, TypeSampler2D, TypeVec3, TypeFloat)
	add("texture2DProj", -1, "", TypeVec4, TypeSampler2D, TypeVec4)
	add("texture2DProj", int(Fragment), "", TypeVec4, TypeSampler2D, TypeVec4, TypeFloat)
	add("textureCube", -1, "", TypeVec4, TypeSamplerCube, TypeVec3)
	add("textureCube", int(Fragment), "", TypeVec4, TypeSamplerCube, TypeVec3, TypeFloat)
	add("texture2DLod", int(Vertex), "", TypeVec4, TypeSampler2D, TypeVec2, TypeFloat)
	add("texture2DProjLod", int(Vertex), "", TypeVec4, TypeSampler2D, TypeVec3, TypeFloat)
	add("texture2DProjLod", int(Vertex), "", TypeVec4, TypeSampler2D, TypeVec4, TypeFloat)
	add("textureCubeLod", int(Vertex), "", TypeVec4, TypeSamplerCube, TypeVec3, TypeFloat)
	return m
}()

// BuiltinFunctions returns the sorted names of all built-in functions.
func BuiltinFunctions() []string {
	var names []string
	for n := range builtinTable {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DepthRangeType is the type of gl_DepthRange.
var DepthRangeType = &Type{Kind: Struct, Struct: &StructType{Name: "gl_DepthRangeParameters", Fields: []Field{
	{Name: "near", Type: TypeFloat, Precision: Highp},
	{Name: "far", Type: TypeFloat, Precision: Highp},
	{Name: "diff", Type: TypeFloat, Precision: Highp},
}}}

// Implementation limits, reported to shaders through the gl_Max* built-in
// constants (GLSL ES 1.00 §7.4) and meant to be what the GL driver returns
// from glGetIntegerv for the matching GL_MAX_* query, so the two can never
// disagree. Each value is what this implementation really supports, with
// the place that fixes it; all are at or above the ES 2.0 minimums
// (8, 128, 8, 0, 8, 8, 16, 1). Link enforces the attribute, varying and
// uniform limits on the active variables, counted by PackedVectors and
// AttributeSlots (Appendix A §7); see CountResources.
const (
	// MaxVertexAttribs: generic attribute locations (a matN takes N). The
	// simulated hardware loads at most 16 attribute records per
	// GL_SHADER_STATE (hw/records.go maxAttributes); the record format
	// itself would allow more (AttributeCount is a u8 in hw/spec/tg.xml,
	// and the u8 VPMOffset of docs/hardware.md §6.1 addresses 64 four-word
	// slots), but 16 is what the hardware model executes.
	MaxVertexAttribs = 16
	// MaxVertexUniformVectors and MaxFragmentUniformVectors: vec4 rows of
	// packed uniforms per stage. The uniform stream has no fixed size
	// (docs/hardware.md §7.4: each stage reads its own u32 array, and
	// dynamically indexed uniforms are loaded from the storage block by
	// TMU direct loads), so this is a software choice: 256 rows is 4 KiB of
	// storage per stage, twice the ES 2.0 vertex minimum, and is the value
	// driver/tg reports (maxUniformVecs).
	MaxVertexUniformVectors   = 256
	MaxFragmentUniformVectors = 256
	// MaxVaryingVectors: vec4 rows of packed varyings. The vertex shader
	// writes 4 position words, an optional point size and then the scalar
	// varyings to its VPM output, whose per-vertex size is the u8
	// VertexOutputWords of the shader record (docs/hardware.md §6.1, at
	// most 62 rows); the hardware model's clipper and rasteriser hold at
	// most 64 scalar varyings per vertex (hw/clip.go maxVaryings), which
	// is 16 rows. gl_FragCoord, gl_FrontFacing and gl_PointCoord are
	// hardware registers (FRAG_X.., POINT_COORD_S/T) and take no varyings.
	MaxVaryingVectors = 16
	// MaxVertexTextureImageUnits, MaxTextureImageUnits and
	// MaxCombinedTextureImageUnits: the texture units of GL's unit table.
	// A texture fetch reads its descriptor address from the uniform stream
	// (docs/hardware.md §7.1), in any stage, so the hardware has no unit
	// count; each stage may use 16, and GL's unit table (the combined
	// count, driver/tg's ParamMaxCombinedTextureUnits) has room for both
	// stages' 16 at once, as desktop-class drivers offer (dEQP uniform_api
	// cases need up to 28).
	MaxVertexTextureImageUnits   = 16
	MaxCombinedTextureImageUnits = 32
	MaxTextureImageUnits         = 16
	// MaxDrawBuffers: the tile buffer has one colour buffer (§5).
	MaxDrawBuffers = 1
)

// Limits on private variables (unqualified globals, locals, parameters and
// function results), which GLSL ES leaves to the implementation (section
// 4.1.9 sets no array size limit; Appendix A §2 allows any resource limit).
// The IR keeps every component of a private variable as an SSA value, and a
// dynamically indexed array becomes a select over its elements, so the
// compile time grows with these sizes: they are fixed so that the largest
// shader the front end accepts still compiles in bounded time and memory.
// Parse reports a declaration beyond them at its line, before anything of
// the declared size is allocated (issue 6 item 2).
const (
	// MaxPrivateComponents: scalar components of one private variable
	// (float a[1024], or mat4 m[64]).
	MaxPrivateComponents = 1024
	// MaxPrivateComponentsTotal: scalar components of all private
	// variables a translation unit declares (each declaration counts
	// once, wherever it is).
	MaxPrivateComponentsTotal = 16384
	// MaxOperands: operands in all expressions of a translation unit
	// (every operand, parenthesised or not, counts once per nesting).
	// Real shaders have a few thousand. It equals the IR's own bound
	// (ir.MaxLoweredInstrs, 2^18 instructions after inlining), which
	// nearly every source this large exceeds anyway — but only after
	// building its whole AST and IR (613 MB for 450,000 terms);
	// stopping at the parse bounds that.
	MaxOperands = 1 << 18
)

// builtins builds the outermost scope: built-in variables, constants and
// function names for the parser's stage.
func (p *parser) builtins() *scope {
	s := &scope{names: make(map[string]any, len(builtinTable)+16), precision: map[Kind]Precision{}}
	p.builtinFuncs = make(map[string][]builtinSig, len(builtinTable))
	available := func(sig builtinSig) bool {
		return (sig.stage < 0 || Stage(sig.stage) == p.stage) &&
			(sig.extension == "" || p.unit.Extensions[sig.extension])
	}
	for name, sigs := range builtinTable {
		// Most names have every signature in every stage: those share the
		// table's (read-only) list instead of a copy per parse, which was
		// most of the parser's allocation.
		ok := sigs[:len(sigs):len(sigs)]
		for i, sig := range sigs {
			if !available(sig) {
				ok = slices.Clone(sigs[:i])
				for _, sig := range sigs[i+1:] {
					if available(sig) {
						ok = append(ok, sig)
					}
				}
				break
			}
		}
		if len(ok) > 0 {
			p.builtinFuncs[name] = ok
			s.names[name] = builtinMarker{}
		}
	}
	v := func(name string, t *Type, st Storage, prec Precision) {
		s.names[name] = &Variable{Name: name, Type: t, Storage: st, Precision: prec, Global: true, Builtin: true}
	}
	c := func(name string, val int32) {
		s.names[name] = &Variable{Name: name, Type: TypeInt, Storage: StorageConst, Precision: Mediump, Global: true,
			Builtin: true, Value: Value{{Kind: Int, I: val}}}
	}
	c("gl_MaxVertexAttribs", MaxVertexAttribs)
	c("gl_MaxVertexUniformVectors", MaxVertexUniformVectors)
	c("gl_MaxVaryingVectors", MaxVaryingVectors)
	c("gl_MaxVertexTextureImageUnits", MaxVertexTextureImageUnits)
	c("gl_MaxCombinedTextureImageUnits", MaxCombinedTextureImageUnits)
	c("gl_MaxTextureImageUnits", MaxTextureImageUnits)
	c("gl_MaxFragmentUniformVectors", MaxFragmentUniformVectors)
	c("gl_MaxDrawBuffers", MaxDrawBuffers)
	v("gl_DepthRange", DepthRangeType, StorageUniform, PrecisionNone)
	s.names["gl_DepthRangeParameters"] = DepthRangeType
	if p.stage == Vertex {
		v("gl_Position", TypeVec4, StorageLocal, Highp)
		v("gl_PointSize", TypeFloat, StorageLocal, Mediump)
		if p.unit.InvariantAll {
			s.names["gl_Position"].(*Variable).Invariant = true
			s.names["gl_PointSize"].(*Variable).Invariant = true
			p.unit.InvariantBuiltins["gl_Position"] = true
			p.unit.InvariantBuiltins["gl_PointSize"] = true
		}
	} else if p.stage == Fragment {
		v("gl_FragCoord", TypeVec4, StorageLocal, Mediump)
		v("gl_FrontFacing", TypeBool, StorageLocal, PrecisionNone)
		v("gl_FragColor", TypeVec4, StorageLocal, Mediump)
		v("gl_FragData", ArrayOf(TypeVec4, MaxDrawBuffers), StorageLocal, Mediump)
		v("gl_PointCoord", TypeVec2, StorageLocal, Mediump)
	} else if p.stage == Compute {
		p.computeBuiltins(s)
	}
	return s
}

func (p *parser) noteBuiltinUse(t token, v *Variable) {
	for _, b := range p.unit.Builtins {
		if b == v {
			return
		}
	}
	p.unit.Builtins = append(p.unit.Builtins, v)
}

func (p *parser) noteBuiltinWrite(v *Variable, line int) {
	switch {
	case v.Name == "gl_FragColor" && p.writesColor == 0:
		p.writesColor = line
	case v.Name == "gl_FragData" && p.writesData == 0:
		p.writesData = line
	}
	p.noteBuiltinUse(token{}, v)
}

// builtinCall resolves a built-in function overload and folds calls with
// constant arguments.
func (p *parser) builtinCall(t token, sigs []builtinSig, args []Expr) Expr {
	for _, sig := range sigs {
		if len(sig.params) != len(args) {
			continue
		}
		match := true
		for i, pt := range sig.params {
			if !pt.Equal(args[i].Type()) {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		c := &Call{ExprInfo: ExprInfo{Line: t.line, Ty: sig.ret}, Builtin: t.text, Args: args}
		for _, a := range args {
			if a.Type().Scalar() != Bool && !a.Type().IsSampler() {
				c.Prec = maxPrec(c.Prec, a.Precision())
			}
		}
		if sig.ret.Scalar() == Bool {
			c.Prec = PrecisionNone
		}
		if len(args) > 0 && args[0].Type().IsSampler() {
			c.Prec = Lowp
		}
		all := true
		for _, a := range args {
			if a.Value() == nil {
				all = false
			}
		}
		if all {
			if v, integer := foldIntegerBuiltin(t.text, sig.ret, args); integer {
				c.Val = v
			} else {
				c.Val = foldBuiltin(t.text, sig.ret, args)
			}
		}
		if p.stage == Compute {
			p.checkComputeCall(t, c)
		}
		return c
	}
	p.errorf(t.line, t.text, "no matching overloaded function found")
	return p.bad(t.line)
}

// foldBuiltin evaluates a built-in function on constant arguments; nil
// means the function is not folded (texture lookups, derivatives).
func foldBuiltin(name string, ret *Type, args []Expr) Value {
	f := func(i, c int) float64 {
		v := args[i].Value()
		if len(v) == 1 {
			return float64(v[0].F)
		}
		return float64(v[c].F)
	}
	n := ret.Components()
	out := make(Value, 0, n)
	put := func(x float64) { out = append(out, Scalar{Kind: Float, F: float32(x)}) }
	unary := map[string]func(float64) float64{
		"radians": func(x float64) float64 { return x * math.Pi / 180 },
		"degrees": func(x float64) float64 { return x * 180 / math.Pi },
		"sin":     math.Sin, "cos": math.Cos, "tan": math.Tan, "asin": math.Asin, "acos": math.Acos,
		"exp": math.Exp, "log": math.Log, "exp2": math.Exp2, "log2": math.Log2, "sqrt": math.Sqrt,
		"inversesqrt": func(x float64) float64 { return 1 / math.Sqrt(x) },
		"abs":         math.Abs, "floor": math.Floor, "ceil": math.Ceil,
		"fract": func(x float64) float64 { return x - math.Floor(x) },
		"sign": func(x float64) float64 {
			switch {
			case x > 0:
				return 1
			case x < 0:
				return -1
			}
			return 0
		},
	}
	if len(args) == 1 && name == "atan" {
		name = "atan1"
		unary["atan1"] = math.Atan
	}
	if fn, ok := unary[name]; ok {
		for c := 0; c < n; c++ {
			put(fn(f(0, c)))
		}
		return out
	}
	sq := func(i int) float64 {
		s := 0.0
		for c := 0; c < args[i].Type().Components(); c++ {
			s += f(i, c) * f(i, c)
		}
		return s
	}
	switch name {
	case "atan":
		for c := 0; c < n; c++ {
			put(math.Atan2(f(0, c), f(1, c)))
		}
	case "pow":
		for c := 0; c < n; c++ {
			put(math.Pow(f(0, c), f(1, c)))
		}
	case "mod":
		for c := 0; c < n; c++ {
			x, y := f(0, c), f(1, c)
			put(x - y*math.Floor(x/y))
		}
	case "min":
		for c := 0; c < n; c++ {
			put(math.Min(f(0, c), f(1, c)))
		}
	case "max":
		for c := 0; c < n; c++ {
			put(math.Max(f(0, c), f(1, c)))
		}
	case "clamp":
		for c := 0; c < n; c++ {
			put(math.Min(math.Max(f(0, c), f(1, c)), f(2, c)))
		}
	case "mix":
		for c := 0; c < n; c++ {
			put(f(0, c)*(1-f(2, c)) + f(1, c)*f(2, c))
		}
	case "step":
		for c := 0; c < n; c++ {
			if f(1, c) < f(0, c) {
				put(0)
			} else {
				put(1)
			}
		}
	case "smoothstep":
		for c := 0; c < n; c++ {
			t := math.Min(math.Max((f(2, c)-f(0, c))/(f(1, c)-f(0, c)), 0), 1)
			put(t * t * (3 - 2*t))
		}
	case "length":
		put(math.Sqrt(sq(0)))
	case "dot":
		s := 0.0
		for c := 0; c < args[0].Type().Components(); c++ {
			s += f(0, c) * f(1, c)
		}
		put(s)
	case "distance":
		s := 0.0
		for c := 0; c < args[0].Type().Components(); c++ {
			d := f(0, c) - f(1, c)
			s += d * d
		}
		put(math.Sqrt(s))
	case "normalize":
		l := math.Sqrt(sq(0))
		for c := 0; c < n; c++ {
			put(f(0, c) / l)
		}
	case "cross":
		put(f(0, 1)*f(1, 2) - f(1, 1)*f(0, 2))
		put(f(0, 2)*f(1, 0) - f(1, 2)*f(0, 0))
		put(f(0, 0)*f(1, 1) - f(1, 0)*f(0, 1))
	case "faceforward": // N if dot(Nref, I) < 0, else -N
		s := 0.0
		for c := 0; c < n; c++ {
			s += f(2, c) * f(1, c)
		}
		for c := 0; c < n; c++ {
			if s < 0 {
				put(f(0, c))
			} else {
				put(-f(0, c))
			}
		}
	case "reflect": // I - 2·dot(N, I)·N
		s := 0.0
		for c := 0; c < n; c++ {
			s += f(1, c) * f(0, c)
		}
		for c := 0; c < n; c++ {
			put(f(0, c) - 2*s*f(1, c))
		}
	case "refract": // k = 1 - η²(1 - dot(N, I)²); 0 if k < 0, else η·I - (η·dot(N, I) + √k)·N
		s := 0.0
		for c := 0; c < n; c++ {
			s += f(1, c) * f(0, c)
		}
		eta := f(2, 0)
		k := 1 - eta*eta*(1-s*s)
		for c := 0; c < n; c++ {
			if k < 0 {
				put(0)
			} else {
				put(eta*f(0, c) - (eta*s+math.Sqrt(k))*f(1, c))
			}
		}
	case "matrixCompMult":
		for c := 0; c < n; c++ {
			put(f(0, c) * f(1, c))
		}
	case "lessThan", "lessThanEqual", "greaterThan", "greaterThanEqual", "equal", "notEqual":
		a, b := args[0].Value(), args[1].Value()
		out = out[:0]
		for c := 0; c < n; c++ {
			out = append(out, Scalar{Kind: Bool, B: compareScalar(name, a[c], b[c])})
		}
	case "any", "all", "not":
		a := args[0].Value()
		out = out[:0]
		r := name == "all"
		for c := range a {
			switch name {
			case "any":
				r = r || a[c].B
			case "all":
				r = r && a[c].B
			case "not":
				out = append(out, Scalar{Kind: Bool, B: !a[c].B})
			}
		}
		if name != "not" {
			out = append(out, Scalar{Kind: Bool, B: r})
		}
	default:
		return nil
	}
	return out
}

func compareScalar(name string, a, b Scalar) bool {
	var x, y float64
	switch a.Kind {
	case Float:
		x, y = float64(a.F), float64(b.F)
	case Int:
		x, y = float64(a.I), float64(b.I)
	case Uint:
		x, y = float64(uint32(a.I)), float64(uint32(b.I))
	case Bool:
		if name == "equal" {
			return a.B == b.B
		}
		return a.B != b.B
	}
	switch name {
	case "lessThan":
		return x < y
	case "lessThanEqual":
		return x <= y
	case "greaterThan":
		return x > y
	case "greaterThanEqual":
		return x >= y
	case "equal":
		return x == y
	}
	return x != y
}
