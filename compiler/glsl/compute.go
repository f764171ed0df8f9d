package glsl

import (
	"math"
	"math/bits"
	"strconv"
)

// The GLSL ES 3.10 compute subset.
//
// A shader compiled for the Compute stage must start with "#version 310 es"
// (preprocess.go); that version is refused for vertex and fragment shaders,
// which stay GLSL ES 1.00 and unchanged. In a compute shader the parser
// accepts the input layout declaration
//
//	layout(local_size_x = X, local_size_y = Y, local_size_z = Z) in;
//
// (each part optional, default 1; values are decimal, octal or hex integer
// literals, checked against the limits below before anything is built),
// which sets TranslationUnit.LocalSize. LinkStage reports a compute shader
// without one (GLSL ES 3.10 §4.4.1.1 makes that a link error). Default
// precisions are the vertex shader's (§4.7.4); attributes, varyings and
// the fragment built-ins do not exist.
//
// In 310 shaders only (ES 1.00 keeps the operators reserved, u literals
// invalid and the type names ordinary identifiers):
//   - uint, uvec2..4 (Kinds appended after Array), u/U literals, the
//     operators % & | ^ ~ << >> and their compound assignments with ES
//     3.10 §5.9's typing (no implicit conversions; shifts may mix
//     signedness), uint indices and array sizes, int(uint)/uint(int) keep
//     the bits; constant folding of all of them (fold.go);
//   - shader storage blocks, laid out by std430 or std140 (storage.go;
//     the default, shared and packed get std430's offsets), with an
//     optional runtime-sized last member and .length() on arrays;
//     readonly/writeonly/coherent/volatile/restrict (readonly is checked);
//   - shared variables (storage.go), laid out one after another by std430;
//   - gl_NumWorkGroups, gl_WorkGroupID, gl_LocalInvocationID,
//     gl_GlobalInvocationID, gl_LocalInvocationIndex, gl_WorkGroupSize
//     (a constant once the local size is declared),
//     gl_MaxComputeWorkGroupCount/Size;
//   - barrier(), memoryBarrier(), memoryBarrierShared(),
//     memoryBarrierBuffer(), groupMemoryBarrier(), the atomic* functions on
//     int/uint buffer or shared variables, the int/uint forms of abs,
//     sign, min, max, clamp and the vector comparisons, and §8.8's
//     bitfieldExtract, bitfieldInsert, bitfieldReverse, bitCount, findLSB
//     and findMSB (folded in constant expressions), uaddCarry,
//     usubBorrow, umulExtended and imulExtended, and the bit casts
//     floatBitsToInt/Uint and int/uintBitsToFloat.
//   - array constructors (T[N](...), T[](...)), const arrays, array
//     initialisers and whole-array assignment (not of runtime arrays).
//   - switch statements (§6.2) on int or uint.
//
// Not in the subset (each is a compile error, never accepted silently):
// row_major and the other matrix layouts, uniform blocks, arrays of buffer blocks,
// images, the ES 3.00 built-ins beyond those above
// (packing, the remaining common and geometric int forms, ...). barrier() in non-uniform
// control flow is not a compile error (ES 3.10 allows uniform control
// flow); the reference dispatch (compiler/ir.Dispatch) reports it.

// Compute limits: the values of GL_MAX_COMPUTE_WORK_GROUP_SIZE (per
// dimension) and GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS this implementation
// reports. They are OpenGL ES 3.1's minimum maxima (Table 20.45).
const (
	MaxComputeWorkGroupSizeX       = 128
	MaxComputeWorkGroupSizeY       = 128
	MaxComputeWorkGroupSizeZ       = 64
	MaxComputeWorkGroupInvocations = 128
)

// computeExternal parses a global declaration that exists only in GLSL ES
// 3.10 and reports whether it consumed one: a shared variable, a buffer
// block or an input layout. In a GLSL ES 1.00 shader it only recognises
// such declarations, to say which version they need instead of reporting
// a syntax error.
func (p *parser) computeExternal() bool {
	t := p.peek()
	if t.kind != tIdent {
		return false
	}
	if t.text == "shared" && p.unit.Version == 310 {
		// A keyword in ES 3.10, so never a user's name here.
		p.sharedDeclaration()
		return true
	}
	isLayout := t.text == "layout" && p.peekAt(1).text == "("
	isBuffer := p.startsBufferBlock()
	if !isLayout && !isBuffer {
		return false
	}
	if _, declared := p.lookup(t.text).(*Type); declared {
		return false // a struct named layout/buffer in ES 1.00
	}
	if p.unit.Version != 310 {
		msg := "layout qualifiers require #version 310 es (compute shaders)"
		if isBuffer {
			msg = "shader storage blocks require #version 310 es (compute shaders)"
		}
		p.skipStatement(t, msg)
		return true
	}
	var lq layoutQuals
	if isLayout {
		lq = p.layoutQualifiers()
	}
	if p.is("in") {
		p.inputLayout(lq)
		return true
	}
	if p.startsBufferBlock() {
		p.bufferBlock(lq)
		return true
	}
	t = p.peek()
	p.skipStatement(t, "layout qualifiers are supported only on 'in' (local size) and on buffer blocks")
	return true
}

// memoryQualifiers are GLSL ES 3.10 §4.9's; readonly and writeonly are
// checked, the others change nothing in a lockstep model whose every store
// is visible to the next access.
var memoryQualifiers = map[string]bool{"coherent": true, "volatile": true, "restrict": true, "readonly": true, "writeonly": true}

// startsBufferBlock reports "{memory qualifier} buffer NAME {" at the
// current token.
func (p *parser) startsBufferBlock() bool {
	i := 0
	for memoryQualifiers[p.peekAt(i).text] && p.peekAt(i).kind == tIdent {
		i++
	}
	return p.peekAt(i).text == "buffer" && p.peekAt(i).kind == tIdent && p.peekAt(i+1).kind == tIdent && p.peekAt(i+2).text == "{"
}

// layoutQuals is what one layout(...) qualifier says.
type layoutQuals struct {
	tok        token // "layout"
	size       [3]int
	seen       [3]bool
	binding    int
	hasBinding bool
	layout     BlockLayout
	ids        []token // every qualifier named, for errors where it does not apply
}

// layoutQualifiers parses "layout ( id [= N] , ... )".
func (p *parser) layoutQualifiers() layoutQuals {
	lq := layoutQuals{tok: p.next()}
	p.expect("(")
	for {
		id := p.ident()
		lq.ids = append(lq.ids, id)
		dim := -1
		switch id.text {
		case "local_size_x":
			dim = 0
		case "local_size_y":
			dim = 1
		case "local_size_z":
			dim = 2
		case "std430", "shared", "packed": // shared, packed: the implementation picks std430 (storage.go)
			lq.layout = Std430
		case "std140":
			lq.layout = Std140
		case "binding":
		default:
			p.errorf(id.line, id.text, "unknown layout qualifier")
		}
		if p.accept("=") {
			v := p.next()
			n, ok := layoutValue(v)
			limit := [3]int{MaxComputeWorkGroupSizeX, MaxComputeWorkGroupSizeY, MaxComputeWorkGroupSizeZ}
			names := [3]string{"X", "Y", "Z"}
			switch {
			case !ok:
				p.errorf(v.line, v.text, "layout qualifier value must be an integer literal")
			case id.text == "binding":
				if n >= MaxShaderStorageBufferBindings {
					p.errorf(v.line, v.text, "binding exceeds GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS = "+strconv.Itoa(MaxShaderStorageBufferBindings))
				} else {
					lq.binding, lq.hasBinding = int(n), true
				}
			case dim < 0:
				p.errorf(v.line, v.text, "layout qualifier "+id.text+" takes no value")
			case n <= 0:
				p.errorf(v.line, v.text, "local size must be at least 1")
			case n > uint64(limit[dim]):
				p.errorf(v.line, v.text, "local size exceeds GL_MAX_COMPUTE_WORK_GROUP_SIZE "+names[dim]+" = "+strconv.Itoa(limit[dim]))
			default:
				if lq.seen[dim] {
					p.errorf(id.line, id.text, "layout qualifier given twice")
				}
				lq.size[dim], lq.seen[dim] = int(n), true
			}
		} else if dim >= 0 || id.text == "binding" {
			p.errorf(id.line, id.text, id.text+" needs a value")
		}
		if !p.accept(",") {
			break
		}
	}
	p.expect(")")
	return lq
}

// inputLayout finishes "layout(local_size_...) in ;".
func (p *parser) inputLayout(lq layoutQuals) {
	p.expect("in")
	p.expect(";")
	for _, id := range lq.ids {
		if id.text == "std430" || id.text == "binding" {
			p.errorf(id.line, id.text, "layout qualifier "+id.text+" does not apply to 'in'")
		}
	}
	if !lq.seen[0] && !lq.seen[1] && !lq.seen[2] {
		return // every value was wrong: already reported
	}
	size := lq.size
	for i := range size {
		if size[i] == 0 {
			size[i] = 1
		}
	}
	if total := size[0] * size[1] * size[2]; total > MaxComputeWorkGroupInvocations {
		p.errorf(lq.tok.line, "local_size", "workgroup of "+strconv.Itoa(total)+" invocations exceeds GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS = "+strconv.Itoa(MaxComputeWorkGroupInvocations))
		return
	}
	if p.unit.LocalSize != [3]int{} && p.unit.LocalSize != size {
		p.errorf(lq.tok.line, "local_size", "local size redeclared with different values (GLSL ES 3.10 §4.4.1.1)")
		return
	}
	p.unit.LocalSize = size
	if v, ok := p.builtinScope.names["gl_WorkGroupSize"].(*Variable); ok {
		v.Value = Value{{Kind: Uint, I: int32(size[0])}, {Kind: Uint, I: int32(size[1])}, {Kind: Uint, I: int32(size[2])}}
	}
}

// skipStatement reports msg at t and skips the declaration it starts
// (through the matching '}' or the ';' ending it).
func (p *parser) skipStatement(t token, msg string) {
	p.errorf(t.line, t.text, msg)
	depth := 0
	for p.peek().kind != tEOF {
		tok := p.next()
		switch tok.text {
		case "(", "{":
			depth++
		case ")", "}":
			depth--
			if depth <= 0 && tok.text == "}" {
				p.accept(";")
				return
			}
		case ";":
			if depth <= 0 {
				return
			}
		}
	}
}

// layoutValue reads an integer literal token (decimal, octal or hex)
// without overflow. (ES 3.10's u suffix needs uint literals in the lexer,
// which do not exist yet.)
func layoutValue(t token) (uint64, bool) {
	if t.kind != tNumber {
		return 0, false
	}
	v, err := strconv.ParseUint(t.text, 0, 32)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 1 << 32, true // over every limit; reported as such
		}
		return 0, false
	}
	return v, true
}

// isUintLiteral reports an integer literal with the u/U suffix of GLSL ES
// 3.00 (decimal, octal or hex digits before it).
func isUintLiteral(s string) bool {
	if len(s) < 2 || s[len(s)-1] != 'u' && s[len(s)-1] != 'U' {
		return false
	}
	_, ok := parseIntLiteral(s[:len(s)-1])
	return ok
}

// computeInputs are the compute shader's built-in input variables (GLSL ES
// 3.10 §7.1.3), all read-only.
var computeInputs = map[string]bool{"gl_NumWorkGroups": true, "gl_WorkGroupID": true, "gl_LocalInvocationID": true,
	"gl_GlobalInvocationID": true, "gl_LocalInvocationIndex": true}

// es310TypeNames are the GLSL ES 3.10 type keywords this subset adds; in
// ES 1.00 they are ordinary identifiers.
var es310TypeNames = map[string]*Type{"uint": TypeUint, "uvec2": TypeUVec2, "uvec3": TypeUVec3, "uvec4": TypeUVec4}

// es310Keywords may not name anything in a 310 shader.
var es310Keywords = map[string]bool{"uint": true, "uvec2": true, "uvec3": true, "uvec4": true, "buffer": true, "shared": true,
	"coherent": true, "volatile": true, "restrict": true, "readonly": true, "writeonly": true, "layout": true,
	"switch": true, "case": true, "default": true}

// computeBuiltins adds the compute stage's built-in types, variables and
// constants to the outermost scope.
func (p *parser) computeBuiltins(s *scope) {
	if p.unit.Version == 310 {
		for name, t := range es310TypeNames {
			s.names[name] = t
		}
	}
	for name := range computeInputs {
		t := TypeUVec3
		if name == "gl_LocalInvocationIndex" {
			t = TypeUint
		}
		s.names[name] = &Variable{Name: name, Type: t, Storage: StorageLocal, Precision: Highp, Global: true, Builtin: true}
	}
	// The value is set by layout(local_size_...) in (inputLayout).
	s.names["gl_WorkGroupSize"] = &Variable{Name: "gl_WorkGroupSize", Type: TypeUVec3, Storage: StorageConst, Precision: Highp,
		Global: true, Builtin: true}
	ivec3 := func(name string, x, y, z int32) {
		s.names[name] = &Variable{Name: name, Type: TypeIVec3, Storage: StorageConst, Precision: Highp, Global: true, Builtin: true,
			Value: Value{{Kind: Int, I: x}, {Kind: Int, I: y}, {Kind: Int, I: z}}}
	}
	ivec3("gl_MaxComputeWorkGroupCount", 65535, 65535, 65535)
	ivec3("gl_MaxComputeWorkGroupSize", MaxComputeWorkGroupSizeX, MaxComputeWorkGroupSizeY, MaxComputeWorkGroupSizeZ)
}

// atomicFunctions are GLSL ES 3.10 §8.11's; the first argument must be a
// buffer or shared variable (or a member or element of one).
var atomicFunctions = map[string]bool{"atomicAdd": true, "atomicMin": true, "atomicMax": true, "atomicAnd": true,
	"atomicOr": true, "atomicXor": true, "atomicExchange": true, "atomicCompSwap": true}

func init() {
	add := func(name string, ret *Type, params ...*Type) {
		builtinTable[name] = append(builtinTable[name], builtinSig{ret: ret, params: params, stage: int(Compute)})
	}
	for _, n := range []string{"barrier", "memoryBarrier", "memoryBarrierShared", "memoryBarrierBuffer", "groupMemoryBarrier"} {
		add(n, TypeVoid)
	}
	for _, t := range []*Type{TypeInt, TypeUint} {
		for n := range atomicFunctions {
			if n == "atomicCompSwap" {
				add(n, t, t, t, t)
			} else {
				add(n, t, t, t)
			}
		}
	}
	// The integer forms of ES 3.00 §8.3 the compute subset needs.
	for n := 1; n <= 4; n++ {
		for _, k := range []Kind{Int, Uint} {
			t, s := VectorType(k, n), VectorType(k, 1)
			if k == Int {
				add("abs", t, t)
				add("sign", t, t)
			}
			add("min", t, t, t)
			add("max", t, t, t)
			add("clamp", t, t, t, t)
			// GLSL ES 3.10 §8.8 integer functions (the bit-field ones).
			iv := VectorType(Int, n)
			add("bitfieldExtract", t, t, TypeInt, TypeInt)
			add("bitfieldInsert", t, t, t, TypeInt, TypeInt)
			add("bitfieldReverse", t, t)
			add("bitCount", iv, t)
			add("findLSB", iv, t)
			add("findMSB", iv, t)
			if k == Uint {
				add("uintBitsToFloat", VectorType(Float, n), t)
				add("floatBitsToUint", t, VectorType(Float, n))
				add("uaddCarry", t, t, t, t)  // out carry
				add("usubBorrow", t, t, t, t) // out borrow
				add("umulExtended", TypeVoid, t, t, t, t)
			} else {
				add("intBitsToFloat", VectorType(Float, n), t)
				add("floatBitsToInt", t, VectorType(Float, n))
				add("imulExtended", TypeVoid, t, t, t, t)
			}
			if n > 1 {
				add("min", t, t, s)
				add("max", t, t, s)
				add("clamp", t, t, s, s)
			}
		}
		if n > 1 {
			u, bv := VectorType(Uint, n), VectorType(Bool, n)
			for _, f := range []string{"lessThan", "lessThanEqual", "greaterThan", "greaterThanEqual", "equal", "notEqual"} {
				add(f, bv, u, u)
			}
		}
	}
}

// foldIntegerBuiltin folds the integer built-ins on constant arguments;
// integer reports whether name with these arguments is one (then nil
// means not folded).
func foldIntegerBuiltin(name string, ret *Type, args []Expr) (v Value, integer bool) {
	switch name {
	case "floatBitsToInt", "floatBitsToUint", "intBitsToFloat", "uintBitsToFloat":
		out := make(Value, len(args[0].Value()))
		for i, s := range args[0].Value() {
			if s.Kind == Float {
				out[i] = Scalar{Kind: ret.Scalar(), I: int32(math.Float32bits(s.F))}
			} else {
				out[i] = Scalar{Kind: Float, F: math.Float32frombits(uint32(s.I))}
			}
		}
		return out, true
	}
	if len(args) == 0 || !args[0].Type().IsInteger() || atomicFunctions[name] || outParamBuiltins[name] > 0 {
		return nil, len(args) > 0 && args[0].Type().IsInteger()
	}
	switch name {
	case "abs", "sign", "min", "max", "clamp", "bitfieldExtract", "bitfieldInsert", "bitfieldReverse", "bitCount", "findLSB", "findMSB":
	default:
		return nil, false // comparisons: foldBuiltin handles every kind
	}
	k := ret.Scalar()
	less := func(a, b int32) bool {
		if k == Uint {
			return uint32(a) < uint32(b)
		}
		return a < b
	}
	arg := func(i, c int) int32 {
		v := args[i].Value()
		if len(v) == 1 {
			return v[0].I
		}
		return v[c].I
	}
	out := make(Value, ret.Components())
	for c := range out {
		x := arg(0, c)
		var r int32
		switch name {
		case "abs":
			r = x
			if x < 0 {
				r = -x
			}
		case "sign":
			switch {
			case x > 0:
				r = 1
			case x < 0:
				r = -1
			}
		case "min":
			r = x
			if y := arg(1, c); less(y, x) {
				r = y
			}
		case "max":
			r = x
			if y := arg(1, c); less(x, y) {
				r = y
			}
		case "clamp":
			lo, hi := arg(1, c), arg(2, c)
			r = x
			if less(r, lo) {
				r = lo
			}
			if less(hi, r) {
				r = hi
			}
		default:
			r = foldBitfield(name, args[0].Type().Scalar() == Int, x, arg, c)
		}
		out[c] = Scalar{Kind: k, I: r}
	}
	return out, true
}

// checkComputeCall applies the rules of the compute built-ins a signature
// cannot say: an atomic's first argument is a buffer or shared variable
// it may write.
func (p *parser) checkComputeCall(t token, c *Call) {
	if first, ok := outParamBuiltins[c.Builtin]; ok {
		for _, a := range c.Args[first:] {
			p.checkLValue(a, t.text)
		}
		return
	}
	if !atomicFunctions[c.Builtin] {
		return
	}
	root := c.Args[0]
	for {
		switch x := root.(type) {
		case *Index:
			root = x.X
			continue
		case *FieldSelect:
			root = x.X
			continue
		}
		break
	}
	id, ok := root.(*Ident)
	if !ok || id.Var.Storage != StorageBuffer && id.Var.Storage != StorageShared {
		p.errorf(t.line, t.text, "the first argument of an atomic function must be a buffer or shared variable")
		return
	}
	p.checkLValue(c.Args[0], t.text)
}

// outParamBuiltins are the built-ins with out parameters: the index of
// the first one (the rest are out too).
var outParamBuiltins = map[string]int{"uaddCarry": 2, "usubBorrow": 2, "umulExtended": 2, "imulExtended": 2}

// lengthMethod parses "() " after "x.length" in a 310 shader: the constant
// length of a sized array, or a ".length" call of a runtime-sized one.
func (p *parser) lengthMethod(nt token, x Expr) Expr {
	p.expect("(")
	p.expect(")")
	if isErr(x) {
		return p.bad(nt.line)
	}
	t := x.Type()
	if t.Kind != Array {
		p.errorf(nt.line, "length", "length() applies only to arrays")
		return p.bad(nt.line)
	}
	if t.IsRuntimeArray() {
		return &Call{ExprInfo: ExprInfo{Line: nt.line, Ty: TypeInt, Prec: Highp}, Builtin: LengthMethod, Args: []Expr{x}}
	}
	return &ConstExpr{ExprInfo: ExprInfo{Line: nt.line, Ty: TypeInt, Val: Value{{Kind: Int, I: int32(t.Len)}}}}
}

// LengthMethod is Call.Builtin of arr.length() on a runtime-sized array
// (Args[0] is the array); a sized array's length() is a constant.
const LengthMethod = ".length"

// foldBitfield folds the §8.8 bit-field functions on one component x of
// the first argument (arg gives the others). Offsets and sizes outside
// the value are undefined in GLSL; they fold as compiler/ir computes them.
func foldBitfield(name string, signed bool, x int32, arg func(i, c int) int32, c int) int32 {
	u := uint32(x)
	switch name {
	case "bitfieldExtract":
		off, n := uint32(arg(1, 0)), uint32(arg(2, 0))
		if n == 0 {
			return 0
		}
		v := u << ((32 - off - n) & 31)
		if signed {
			return int32(v) >> ((32 - n) & 31)
		}
		return int32(v >> ((32 - n) & 31))
	case "bitfieldInsert":
		ins := uint32(arg(1, c))
		off, n := uint32(arg(2, 0)), uint32(arg(3, 0))
		mask := ^uint32(0)
		if n != 32 {
			mask = (uint32(1)<<(n&31) - 1) << (off & 31)
		}
		return int32(u&^mask | ins<<(off&31)&mask)
	case "bitfieldReverse":
		return int32(bits.Reverse32(u))
	case "bitCount":
		return int32(bits.OnesCount32(u))
	case "findLSB":
		if u == 0 {
			return -1
		}
		return int32(bits.TrailingZeros32(u))
	case "findMSB":
		if signed && x < 0 {
			u = ^u
		}
		return int32(bits.Len32(u)) - 1
	}
	return 0
}

// arrayConstructor parses "[N](args)" or "[](args)" after the element
// type of a GLSL ES 3.00 array constructor (§5.4.4): one argument of the
// element type per element.
func (p *parser) arrayConstructor(line int, elem *Type) Expr {
	p.expect("[")
	n := -1
	if !p.is("]") {
		n = p.arraySize()
	}
	p.expect("]")
	args := p.arguments()
	if n < 0 {
		n = len(args)
	}
	t := ArrayOf(elem, max(n, 1))
	e := &Construct{ExprInfo: ExprInfo{Line: line, Ty: t}, Args: args}
	all := true
	for _, a := range args {
		if isErr(a) {
			e.Ty = errType
			return e
		}
		if !a.Type().Equal(elem) {
			p.errorf(line, t.String(), "array constructor argument type mismatch: '"+a.Type().String()+"', want '"+elem.String()+"'")
			e.Ty = errType
			return e
		}
		e.Prec = maxPrec(e.Prec, a.Precision())
		all = all && a.Value() != nil
	}
	switch {
	case elem.Kind == Array:
		p.errorf(line, t.String(), "arrays of arrays are not allowed")
		e.Ty = errType
	case len(args) != n || n == 0:
		p.errorf(line, t.String(), "array constructor needs "+strconv.Itoa(n)+" arguments, has "+strconv.Itoa(len(args)))
		e.Ty = errType
	case all:
		e.Val = foldConstruct(t, args)
	}
	return e
}

// switchStmt parses a GLSL ES 3.00 switch statement (§6.2) after checking
// that the shader is a 310 one.
func (p *parser) switchStmt() Stmt {
	t := p.next() // switch
	p.expect("(")
	sel := p.expression()
	p.expect(")")
	s := &SwitchStmt{StmtInfo: StmtInfo{t.line}, Selector: sel}
	st := sel.Type()
	if !isErr(sel) && !st.Equal(TypeInt) && !st.Equal(TypeUint) {
		p.errorf(t.line, "switch", "switch expression must be a scalar int or uint, not "+st.String())
	}
	p.expect("{")
	p.push()
	defer p.pop()
	p.switches++
	defer func() { p.switches-- }()
	seen := map[int32]bool{}
	hasDefault := false
	var cur *CaseClause
	for !p.is("}") {
		lt := p.peek()
		if lt.kind == tEOF {
			p.syntax(lt, "syntax error, missing '}'")
		}
		if lt.kind == tIdent && (lt.text == "case" || lt.text == "default") {
			p.next()
			if cur == nil || len(cur.Body) > 0 {
				cur = &CaseClause{Line: lt.line}
				s.Clauses = append(s.Clauses, cur)
			}
			if lt.text == "default" {
				if hasDefault {
					p.errorf(lt.line, "default", "duplicate default label in switch")
				}
				hasDefault, cur.Default = true, true
			} else {
				e := p.conditional()
				v := e.Value()
				switch {
				case isErr(e) || isErr(sel):
				case v == nil || !e.Type().Equal(st):
					p.errorf(lt.line, "case", "case label must be a constant expression of the switch expression's type ("+st.String()+")")
				case seen[v[0].I]:
					p.errorf(lt.line, "case", "duplicate case label "+v[0].String())
				default:
					seen[v[0].I] = true
					cur.Labels = append(cur.Labels, v[0])
				}
			}
			p.expect(":")
			continue
		}
		if cur == nil {
			p.errorf(lt.line, lt.text, "statement before the first case label of a switch")
			cur = &CaseClause{Line: lt.line}
			s.Clauses = append(s.Clauses, cur)
		}
		var stmt Stmt
		if p.recoverable(false, func() { stmt = p.statement() }) {
			cur.Body = append(cur.Body, stmt)
		}
	}
	end := p.expect("}")
	if cur != nil && len(cur.Body) == 0 {
		p.errorf(end.line, "}", "a case or default label must be followed by a statement (GLSL ES 3.00 §6.2)")
	}
	return s
}
