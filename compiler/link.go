package compiler

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
)

// GLType is a GL type enum as glGetActiveAttrib/glGetActiveUniform report it.
type GLType uint32

// GL type enums (GLES 2.0 §2.10.4).
const (
	GLFloat       GLType = 0x1406
	GLFloatVec2   GLType = 0x8B50
	GLFloatVec3   GLType = 0x8B51
	GLFloatVec4   GLType = 0x8B52
	GLInt         GLType = 0x1404
	GLIntVec2     GLType = 0x8B53
	GLIntVec3     GLType = 0x8B54
	GLIntVec4     GLType = 0x8B55
	GLBool        GLType = 0x8B56
	GLBoolVec2    GLType = 0x8B57
	GLBoolVec3    GLType = 0x8B58
	GLBoolVec4    GLType = 0x8B59
	GLFloatMat2   GLType = 0x8B5A
	GLFloatMat3   GLType = 0x8B5B
	GLFloatMat4   GLType = 0x8B5C
	GLSampler2D   GLType = 0x8B5E
	GLSamplerCube GLType = 0x8B60
)

var glTypes = map[glsl.Kind]GLType{
	glsl.Float: GLFloat, glsl.Vec2: GLFloatVec2, glsl.Vec3: GLFloatVec3, glsl.Vec4: GLFloatVec4,
	glsl.Int: GLInt, glsl.IVec2: GLIntVec2, glsl.IVec3: GLIntVec3, glsl.IVec4: GLIntVec4,
	glsl.Bool: GLBool, glsl.BVec2: GLBoolVec2, glsl.BVec3: GLBoolVec3, glsl.BVec4: GLBoolVec4,
	glsl.Mat2: GLFloatMat2, glsl.Mat3: GLFloatMat3, glsl.Mat4: GLFloatMat4,
	glsl.Sampler2D: GLSampler2D, glsl.SamplerCube: GLSamplerCube,
}

// Resources are a linked program's resource counts (see Program.Resources).
type Resources = glsl.Resources

// Attribute is an active vertex attribute.
type Attribute struct {
	Name     string
	Type     GLType
	Size     int // always 1 in GLSL ES 1.00 (no attribute arrays)
	Location int // first location; a matN takes N consecutive locations
}

// Uniform is an active uniform as GL enumerates it: one entry per basic-type
// member ("s.f", "a[0]" for arrays, "s[1].f" for arrays of structures).
type Uniform struct {
	Name     string
	Type     GLType
	Size     int // array length, 1 for non-arrays
	Location int // GL location of element 0; element i is Location+i
	Storage  int // uniform-storage slot of element 0's first component
	Stride   int // slots between consecutive array elements
}

// Sampler is one sampler uniform element: its storage slot holds the
// texture unit (glUniform1i), 0 until set.
type Sampler struct {
	Name    string // GL name of the element, e.g. "u_tex" or "s[1]"
	Storage int
	Cube    bool
}

// Program is a linked program (glLinkProgram's result). Its fields are
// immutable after Link; Variant and Cache are safe for concurrent use.
type Program struct {
	OK  bool   // GL_LINK_STATUS
	Log string // GL_INFO_LOG

	Attributes  []Attribute
	Uniforms    []Uniform
	Samplers    []Sampler // Key.TexSwizzle is indexed like this
	StorageSize int       // u32 slots of uniform storage

	NumVaryings     int  // scalar varyings the fragment shader reads
	WritesPointSize bool // the vertex shader writes gl_PointSize

	// Resources are the program's counts against the implementation
	// limits (glsl.Max*, which the GL driver reports for the GL_MAX_*
	// queries): attribute locations, and varyings and each stage's
	// uniforms packed into vec4 rows by GLSL ES 1.00 Appendix A §7. Only
	// active variables count (those still used after the IR's dead-code
	// removal); arrays count whole. Link fails when one exceeds its limit.
	Resources Resources

	vs, fs        *Shader
	vsLayout      *ir.IOLayout
	fsLayout      *ir.IOLayout
	attributeSlot []int // VPM slot k reads attribute location attributeSlot[k]

	mu       sync.Mutex
	variants map[Key]*Variant
	stats    CacheStats
}

// varUse records which slots of each interface variable a function uses.
type varUse map[string][]bool

func usesOf(f *ir.Func) varUse {
	u := varUse{}
	mark := func(v *ir.Var, from, n int, all bool) {
		s := u[v.Name]
		if s == nil {
			s = make([]bool, v.Components)
			u[v.Name] = s
		}
		if all {
			from, n = 0, v.Components
		}
		for i := from; i < from+n && i < len(s); i++ {
			if i >= 0 {
				s[i] = true
			}
		}
	}
	f.Walk(func(in *ir.Instr) {
		switch in.Op {
		case ir.OpLoadVar:
			mark(in.Var, in.Index, int(in.Type.Width), len(in.Args) > 0)
		case ir.OpStoreVar:
			mark(in.Var, in.Index, int(in.Args[0].Type.Width), false)
		case ir.OpTexture:
			if in.Var != nil {
				mark(in.Var, in.Index, 1, false)
			}
		}
	})
	return u
}

func (u varUse) any(name string) bool {
	for _, b := range u[name] {
		if b {
			return true
		}
	}
	return false
}

// optimisedPreIO lowers unit and runs the passes that come before I/O
// lowering, so that only statically live interface variables remain.
func optimisedPreIO(unit *glsl.TranslationUnit) (*ir.Func, error) {
	f, err := ir.FromAST(unit)
	if err != nil {
		return nil, err
	}
	return f, ir.Run(f, ir.Options{Stop: "constfold2"})
}

// Link links a vertex and a fragment shader. bindings are the locations
// given with glBindAttribLocation; other active attributes get the lowest
// free locations. Failures are reported in Log with OK false.
func Link(vs, fs *Shader, bindings map[string]int) (p *Program) {
	p = &Program{vs: vs, fs: fs, variants: map[Key]*Variant{}}
	var err error
	defer func() {
		if err != nil {
			p.OK = false
			p.Log += "ERROR: 0:0: '' : " + err.Error() + "\n"
		}
	}()
	defer internalError(&err)
	fail := func(format string, args ...any) *Program {
		p.OK = false
		p.Log += "ERROR: 0:0: '' : " + fmt.Sprintf(format, args...) + "\n"
		return p
	}
	switch {
	case vs == nil || fs == nil:
		return fail("a vertex and a fragment shader must be attached")
	case vs.Stage != Vertex || fs.Stage != Fragment:
		return fail("shader stages are wrong (want one vertex and one fragment shader)")
	case !vs.OK || !fs.OK:
		return fail("a shader did not compile")
	}
	if errs := glsl.Link(vs.unit, fs.unit); errs != nil {
		p.Log = errs.InfoLog()
		return p
	}
	vf, err := optimisedPreIO(vs.unit)
	if err != nil {
		return fail("%v", err)
	}
	ff, err := optimisedPreIO(fs.unit)
	if err != nil {
		return fail("%v", err)
	}
	vu, fu := usesOf(vf), usesOf(ff)
	aliased := aliasedAttribute(vs.unit, vu, bindings)
	res, errs := glsl.CountResources(vs.unit, fs.unit, func(st glsl.Stage, v *glsl.Variable) bool {
		if st == glsl.Vertex {
			return vu.any(v.Name) && !aliased(v)
		}
		return fu.any(v.Name)
	})
	p.Resources = res
	if errs != nil {
		p.Log = errs.InfoLog()
		return p
	}
	p.vsLayout = &ir.IOLayout{Attributes: map[string]int{}, Varyings: map[string][]int{}, Uniforms: map[string]int{}}
	p.fsLayout = &ir.IOLayout{Varyings: map[string][]int{}, Uniforms: map[string]int{}}

	if msg := p.linkAttributes(vs.unit, vu, bindings); msg != "" {
		return fail("%s", msg)
	}
	p.linkUniforms(vs.unit, fs.unit, vu, fu)
	if msg := p.linkVaryings(vs.unit, fs.unit, fu); msg != "" {
		return fail("%s", msg)
	}
	p.WritesPointSize = vf.VarByName("gl_PointSize") != nil
	p.vsLayout.PointSize = p.WritesPointSize
	p.fsLayout.PointSize = p.WritesPointSize
	p.OK = true
	return p
}

func (p *Program) linkAttributes(vs *glsl.TranslationUnit, vu varUse, bindings map[string]int) string {
	type attr struct {
		v    *glsl.Variable
		cols int
	}
	var active []attr
	for _, v := range vs.Globals {
		if v.Storage == glsl.StorageAttribute && vu.any(v.Name) {
			cols := 1
			if v.Type.IsMatrix() {
				cols = v.Type.Size()
			}
			active = append(active, attr{v, cols})
		}
	}
	used := make([]bool, glsl.MaxVertexAttribs)
	loc := map[string]int{}
	take := func(l, n int) bool {
		if l < 0 || l+n > len(used) {
			return false
		}
		for i := l; i < l+n; i++ {
			if used[i] {
				return false
			}
		}
		for i := l; i < l+n; i++ {
			used[i] = true
		}
		return true
	}
	for _, a := range active {
		if l, ok := bindings[a.v.Name]; ok {
			// Two bound attributes may share (alias) locations: ES 2.0
			// §2.10.4 allows it, the link error being optional even when
			// every path reads both. Each keeps its own VPM slot, and both
			// slots read the same attribute array.
			if l < 0 || l+a.cols > len(used) {
				return fmt.Sprintf("attribute %s: location %d is out of range", a.v.Name, l)
			}
			for i := l; i < l+a.cols; i++ {
				used[i] = true
			}
			loc[a.v.Name] = l
		}
	}
	for _, a := range active {
		if _, ok := loc[a.v.Name]; ok {
			continue
		}
		placed := false
		for l := 0; l < len(used) && !placed; l++ {
			if take(l, a.cols) {
				loc[a.v.Name] = l
				placed = true
			}
		}
		if !placed {
			return fmt.Sprintf("too many vertex attributes (at most %d locations)", glsl.MaxVertexAttribs)
		}
	}
	// VPM slots in location order. Aliased attributes of the same shape
	// (same location, same number of columns) share their slots: both
	// read the same array.
	sort.SliceStable(active, func(i, j int) bool { return loc[active[i].v.Name] < loc[active[j].v.Name] })
	type shape struct{ loc, cols int }
	shared := map[shape]int{}
	for _, a := range active {
		l := loc[a.v.Name]
		p.Attributes = append(p.Attributes, Attribute{Name: a.v.Name, Type: glTypes[a.v.Type.Kind], Size: 1, Location: l})
		if slot, ok := shared[shape{l, a.cols}]; ok {
			p.vsLayout.Attributes[a.v.Name] = slot
			continue
		}
		shared[shape{l, a.cols}] = len(p.attributeSlot)
		p.vsLayout.Attributes[a.v.Name] = len(p.attributeSlot)
		for c := 0; c < a.cols; c++ {
			p.attributeSlot = append(p.attributeSlot, l+c)
		}
	}
	return ""
}

// aliasedAttribute reports an attribute bound to the location of an
// earlier active attribute of the same shape: it shares that attribute's
// locations and VPM slots, so the attribute limit counts it once.
func aliasedAttribute(vs *glsl.TranslationUnit, vu varUse, bindings map[string]int) func(*glsl.Variable) bool {
	type shape struct{ loc, cols int }
	first := map[shape]string{}
	for _, v := range vs.Globals {
		l, bound := bindings[v.Name]
		if v.Storage != glsl.StorageAttribute || !bound || !vu.any(v.Name) {
			continue
		}
		s := shape{l, glsl.AttributeSlots(v.Type)}
		if _, ok := first[s]; !ok {
			first[s] = v.Name
		}
	}
	return func(v *glsl.Variable) bool {
		l, bound := bindings[v.Name]
		if v.Storage != glsl.StorageAttribute || !bound {
			return false
		}
		name, ok := first[shape{l, glsl.AttributeSlots(v.Type)}]
		return ok && name != v.Name
	}
}

// linkUniforms gives every uniform used by either shader a range of
// storage slots (shared by both shaders) and enumerates its GL entries.
func (p *Program) linkUniforms(vs, fs *glsl.TranslationUnit, vu, fu varUse) {
	seen := map[string]bool{}
	for _, unit := range []*glsl.TranslationUnit{vs, fs} {
		for _, v := range unit.Globals {
			if v.Storage != glsl.StorageUniform || seen[v.Name] || !(vu.any(v.Name) || fu.any(v.Name)) {
				continue
			}
			seen[v.Name] = true
			base := p.StorageSize
			p.vsLayout.Uniforms[v.Name] = base
			p.fsLayout.Uniforms[v.Name] = base
			p.enumerate(v.Name, v.Type, base)
			p.StorageSize += ir.SlotCount(v.Type)
		}
	}
	// gl_DepthRange, the one built-in uniform, gets storage like a user
	// uniform (entries gl_DepthRange.near/.far/.diff); the state tracker
	// fills it from glDepthRangef at each draw.
	if vu.any("gl_DepthRange") || fu.any("gl_DepthRange") {
		base := p.StorageSize
		p.vsLayout.Uniforms["gl_DepthRange"] = base
		p.fsLayout.Uniforms["gl_DepthRange"] = base
		p.enumerate("gl_DepthRange", glsl.DepthRangeType, base)
		p.StorageSize += ir.SlotCount(glsl.DepthRangeType)
	}
	loc := 0
	for i := range p.Uniforms {
		p.Uniforms[i].Location = loc
		loc += p.Uniforms[i].Size
	}
}

func (p *Program) enumerate(name string, t *glsl.Type, slot int) {
	switch t.Kind {
	case glsl.Struct:
		for _, f := range t.Struct.Fields {
			p.enumerate(name+"."+f.Name, f.Type, slot)
			slot += ir.SlotCount(f.Type)
		}
	case glsl.Array:
		stride := ir.SlotCount(t.Elem)
		if t.Elem.Kind == glsl.Struct {
			for i := 0; i < t.Len; i++ {
				p.enumerate(fmt.Sprintf("%s[%d]", name, i), t.Elem, slot+i*stride)
			}
			return
		}
		p.Uniforms = append(p.Uniforms, Uniform{Name: name + "[0]", Type: glTypes[t.Elem.Kind], Size: t.Len, Storage: slot, Stride: stride})
		if t.Elem.IsSampler() {
			for i := 0; i < t.Len; i++ {
				p.Samplers = append(p.Samplers, Sampler{Name: fmt.Sprintf("%s[%d]", name, i), Storage: slot + i*stride,
					Cube: t.Elem.Kind == glsl.SamplerCube})
			}
		}
	default:
		p.Uniforms = append(p.Uniforms, Uniform{Name: name, Type: glTypes[t.Kind], Size: 1, Storage: slot, Stride: ir.SlotCount(t)})
		if t.IsSampler() {
			p.Samplers = append(p.Samplers, Sampler{Name: name, Storage: slot, Cube: t.Kind == glsl.SamplerCube})
		}
	}
}

// linkVaryings packs the components of varyings the fragment shader reads
// into consecutive scalar indices, in the fragment shader's declaration
// order; the vertex shader writes exactly those.
func (p *Program) linkVaryings(vs, fs *glsl.TranslationUnit, fu varUse) string {
	n := 0
	for _, v := range fs.Globals {
		if v.Storage != glsl.StorageVarying {
			continue
		}
		used := fu[v.Name]
		idx := make([]int, ir.SlotCount(v.Type))
		any := false
		for i := range idx {
			idx[i] = -1
			if i < len(used) && used[i] {
				idx[i] = n
				n++
				any = true
			}
		}
		if any {
			p.fsLayout.Varyings[v.Name] = idx
			p.vsLayout.Varyings[v.Name] = idx
		}
	}
	if n > 4*glsl.MaxVaryingVectors {
		return fmt.Sprintf("too many varying components (%d, at most %d)", n, 4*glsl.MaxVaryingVectors)
	}
	p.NumVaryings = n
	return ""
}

// UniformByName returns the active uniform entry that name denotes (as
// glGetUniformLocation resolves it: "a", "a[0]" and "a[3]" name array
// elements) and the element index, or ok false.
func (p *Program) UniformByName(name string) (u Uniform, element int, ok bool) {
	base, elem := name, 0
	if strings.HasSuffix(name, "]") {
		if i := strings.LastIndexByte(name, '['); i > 0 {
			var e int
			if _, err := fmt.Sscanf(name[i:], "[%d]", &e); err == nil && e >= 0 {
				base, elem = name[:i], e
			}
		}
	}
	for _, x := range p.Uniforms {
		xb := strings.TrimSuffix(x.Name, "[0]")
		if x.Name == name && elem == 0 || xb == base && (x.Size > 1 || strings.HasSuffix(x.Name, "[0]")) && elem < x.Size {
			return x, elem, true
		}
	}
	return Uniform{}, 0, false
}

// LinkAlone links one shader on its own, as glslangValidator links a
// single file: the checks Link makes of each stage by itself (a main,
// GLSL ES 1.00 section 7) and the stage's resource limits on its active
// variables (attributes and vertex uniforms, or varyings and fragment
// uniforms, with samplers). The result has no variants; OK and Log
// report the outcome and Resources the counts.
func LinkAlone(s *Shader) (p *Program) {
	p = &Program{variants: map[Key]*Variant{}}
	var err error
	defer func() {
		if err != nil {
			p.OK = false
			p.Log += "ERROR: 0:0: '' : " + err.Error() + "\n"
		}
	}()
	defer internalError(&err)
	if s == nil || !s.OK {
		p.Log = "ERROR: 0:0: '' : the shader did not compile\n"
		return p
	}
	if errs := glsl.LinkStage(s.unit); errs != nil {
		p.Log = errs.InfoLog()
		return p
	}
	f, err := optimisedPreIO(s.unit)
	if err != nil {
		return p
	}
	uses := usesOf(f)
	empty := &glsl.TranslationUnit{Stage: glsl.Fragment}
	vs, fs := s.unit, empty
	if s.Stage == Fragment {
		empty.Stage = glsl.Vertex
		vs, fs = empty, s.unit
	}
	res, errs := glsl.CountResources(vs, fs, func(st glsl.Stage, v *glsl.Variable) bool { return uses.any(v.Name) })
	p.Resources = res
	if errs != nil {
		p.Log = errs.InfoLog()
		return p
	}
	p.OK = true
	return p
}
