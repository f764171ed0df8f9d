package gles

import (
	"math"
	"strconv"
	"strings"

	"github.com/tilegpu/tilegpu/gl"

	"github.com/tilegpu/tilegpu/pipe"
)

// shader is a GL shader object.
type shader struct {
	name          uint32
	typ           gl.Enum
	source        string
	compiled      pipe.CompiledShader
	deletePending bool
	attached      int
}

// program is a GL program object.
type program struct {
	name          uint32
	vs, fs        *shader
	bindings      map[string]int
	linked        pipe.LinkedProgram // last successful link
	linkOK        bool
	linkTried     bool
	log           string
	validated     bool
	handle        pipe.ProgramHandle
	deletePending bool

	uniforms []pipe.ActiveVariable
	attribs  []pipe.ActiveVariable
	locs     map[int32]uniformLoc
	storage  []uint32
	samplers []samplerUniform
	// depthRange are the storage slots of gl_DepthRange.near, .far and
	// .diff (-1: the program does not use it); filled at each draw.
	depthRange [3]int
}

// uniformLoc is what one GL uniform location names.
type uniformLoc struct {
	u       int // index in uniforms
	element int // array element
}

type samplerUniform struct {
	slot int // storage slot holding the unit
	cube bool
}

func (p *program) release(c *Context) {
	if p.handle != nil {
		c.pipe.DeleteProgramState(p.handle)
		p.handle = nil
	}
}

// CreateShader creates a shader of type VERTEX_SHADER or FRAGMENT_SHADER.
func (c *Context) CreateShader(ty gl.Enum) gl.Shader {
	if ty != gl.VERTEX_SHADER && ty != gl.FRAGMENT_SHADER {
		c.recordError(gl.INVALID_ENUM)
		return gl.Shader{}
	}
	n := c.genName()
	c.shaders[n] = &shader{name: n, typ: ty}
	return gl.Shader{Value: n}
}

// lookupShader resolves a shader name: INVALID_VALUE for an unknown name,
// INVALID_OPERATION for a program name.
func (c *Context) lookupShader(n uint32) *shader {
	if s := c.shaders[n]; s != nil {
		return s
	}
	if c.programs[n] != nil {
		c.recordError(gl.INVALID_OPERATION)
	} else {
		c.recordError(gl.INVALID_VALUE)
	}
	return nil
}

// lookupProgram resolves a program name the same way.
func (c *Context) lookupProgram(p gl.Program) *program {
	if x := c.programs[p.Value]; x != nil {
		return x
	}
	if c.shaders[p.Value] != nil {
		c.recordError(gl.INVALID_OPERATION)
	} else {
		c.recordError(gl.INVALID_VALUE)
	}
	return nil
}

// IsShader reports whether s names a shader.
func (c *Context) IsShader(s gl.Shader) bool { return c.shaders[s.Value] != nil }

// ShaderSource replaces a shader's source.
func (c *Context) ShaderSource(s gl.Shader, src string) {
	if x := c.lookupShader(s.Value); x != nil {
		x.source = src
	}
}

// GetShaderSource returns a shader's source.
func (c *Context) GetShaderSource(s gl.Shader) string {
	if x := c.lookupShader(s.Value); x != nil {
		return x.source
	}
	return ""
}

// CompileShader compiles a shader's source with the driver's compiler.
func (c *Context) CompileShader(s gl.Shader) {
	x := c.lookupShader(s.Value)
	if x == nil {
		return
	}
	stage := pipe.StageVertex
	if x.typ == gl.FRAGMENT_SHADER {
		stage = pipe.StageFragment
	}
	x.compiled = c.screen.CompileShader(stage, x.source)
}

// ReleaseShaderCompiler is a hint; nothing is held.
func (c *Context) ReleaseShaderCompiler() {}

// GetShaderi reads a shader parameter.
func (c *Context) GetShaderi(s gl.Shader, pname gl.Enum) int {
	x := c.lookupShader(s.Value)
	if x == nil {
		return 0
	}
	switch pname {
	case gl.SHADER_TYPE:
		return int(x.typ)
	case gl.DELETE_STATUS:
		return glBool(x.deletePending)
	case gl.COMPILE_STATUS:
		return glBool(x.compiled != nil && x.compiled.OK())
	case gl.INFO_LOG_LENGTH:
		if l := c.shaderLog(x); l != "" {
			return len(l) + 1
		}
		return 0
	case gl.SHADER_SOURCE_LENGTH:
		if x.source != "" {
			return len(x.source) + 1
		}
		return 0
	}
	c.recordError(gl.INVALID_ENUM)
	return 0
}

func (c *Context) shaderLog(x *shader) string {
	if x.compiled == nil {
		return ""
	}
	return x.compiled.Log()
}

// GetShaderInfoLog returns the compiler's log.
func (c *Context) GetShaderInfoLog(s gl.Shader) string {
	if x := c.lookupShader(s.Value); x != nil {
		return c.shaderLog(x)
	}
	return ""
}

// DeleteShader deletes a shader, or flags it for deletion while attached.
func (c *Context) DeleteShader(s gl.Shader) {
	if s.Value == 0 {
		return
	}
	x := c.lookupShader(s.Value)
	if x == nil {
		return
	}
	if x.attached > 0 {
		x.deletePending = true
		return
	}
	delete(c.shaders, s.Value)
}

// GetShaderPrecisionFormat reports float32 precision for float types and
// 32-bit integers for int types (the QPU computes in IEEE float32 and int32).
func (c *Context) GetShaderPrecisionFormat(shadertype, precisiontype gl.Enum) (rangeLow, rangeHigh, precision int) {
	if shadertype != gl.VERTEX_SHADER && shadertype != gl.FRAGMENT_SHADER {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	switch precisiontype {
	case gl.LOW_FLOAT, gl.MEDIUM_FLOAT, gl.HIGH_FLOAT:
		return 127, 127, 23
	case gl.LOW_INT, gl.MEDIUM_INT, gl.HIGH_INT:
		return 31, 30, 0
	}
	c.recordError(gl.INVALID_ENUM)
	return
}

// CreateProgram creates a program object.
func (c *Context) CreateProgram() gl.Program {
	n := c.genName()
	c.programs[n] = &program{name: n, bindings: map[string]int{}}
	return gl.Program{Init: true, Value: n}
}

// IsProgram reports whether p names a program.
func (c *Context) IsProgram(p gl.Program) bool { return c.programs[p.Value] != nil }

// AttachShader attaches a shader; one shader of each type at a time.
func (c *Context) AttachShader(p gl.Program, s gl.Shader) {
	x := c.lookupProgram(p)
	if x == nil {
		return
	}
	sh := c.lookupShader(s.Value)
	if sh == nil {
		return
	}
	slot := &x.vs
	if sh.typ == gl.FRAGMENT_SHADER {
		slot = &x.fs
	}
	if *slot != nil {
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	*slot = sh
	sh.attached++
}

// DetachShader detaches a shader (deleting it if it was flagged).
func (c *Context) DetachShader(p gl.Program, s gl.Shader) {
	x := c.lookupProgram(p)
	if x == nil {
		return
	}
	sh := c.lookupShader(s.Value)
	if sh == nil {
		return
	}
	switch sh {
	case x.vs:
		x.vs = nil
	case x.fs:
		x.fs = nil
	default:
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	sh.attached--
	if sh.deletePending && sh.attached == 0 {
		delete(c.shaders, sh.name)
	}
}

// GetAttachedShaders lists the attached shaders.
func (c *Context) GetAttachedShaders(p gl.Program) []gl.Shader {
	x := c.lookupProgram(p)
	if x == nil {
		return nil
	}
	var out []gl.Shader
	for _, s := range []*shader{x.vs, x.fs} {
		if s != nil {
			out = append(out, gl.Shader{Value: s.name})
		}
	}
	return out
}

// BindAttribLocation requests an attribute location for the next link.
func (c *Context) BindAttribLocation(p gl.Program, a gl.Attrib, name string) {
	if int(a.Value) >= maxVertexAttribs {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	x := c.lookupProgram(p)
	if x == nil {
		return
	}
	if strings.HasPrefix(name, "gl_") {
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	x.bindings[name] = int(a.Value)
}

// LinkProgram links the attached shaders.
func (c *Context) LinkProgram(p gl.Program) {
	x := c.lookupProgram(p)
	if x == nil {
		return
	}
	x.linkTried = true
	x.linkOK = false
	switch {
	case x.vs == nil || x.fs == nil:
		x.log = "link error: a vertex and a fragment shader must be attached"
		return
	case x.vs.compiled == nil || !x.vs.compiled.OK():
		x.log = "link error: the vertex shader is not compiled"
		return
	case x.fs.compiled == nil || !x.fs.compiled.OK():
		x.log = "link error: the fragment shader is not compiled"
		return
	}
	bindings := make(map[string]int, len(x.bindings))
	for k, v := range x.bindings {
		bindings[k] = v
	}
	lp := c.screen.LinkProgram(x.vs.compiled, x.fs.compiled, bindings)
	x.log = lp.Log()
	if !lp.OK() {
		return
	}
	h, err := c.pipe.CreateProgramState(lp)
	if err != nil {
		x.log += err.Error()
		return
	}
	x.release(c)
	x.linkOK = true
	x.linked, x.handle = lp, h
	x.uniforms, x.attribs = nil, lp.Attributes()
	x.depthRange = [3]int{-1, -1, -1}
	for _, u := range lp.Uniforms() {
		// Built-in uniform state is no active uniform of the application
		// (names starting with gl_ have no location, ES 2.0 §2.10.4).
		if f, ok := strings.CutPrefix(u.Name, "gl_DepthRange."); ok {
			x.depthRange[map[string]int{"near": 0, "far": 1, "diff": 2}[f]] = u.Storage
			continue
		}
		x.uniforms = append(x.uniforms, u)
	}
	x.storage = make([]uint32, lp.StorageSize())
	x.locs = map[int32]uniformLoc{}
	x.samplers = nil
	for i, u := range x.uniforms {
		for e := 0; e < max(u.Size, 1); e++ {
			x.locs[int32(u.Location+e)] = uniformLoc{u: i, element: e}
		}
		if isSampler(gl.Enum(u.Type)) {
			for e := 0; e < max(u.Size, 1); e++ {
				x.samplers = append(x.samplers, samplerUniform{slot: u.Storage + e*elementStride(u), cube: gl.Enum(u.Type) == gl.SAMPLER_CUBE})
			}
		}
	}
}

// GetProgrami reads a program parameter.
func (c *Context) GetProgrami(p gl.Program, pname gl.Enum) int {
	x := c.lookupProgram(p)
	if x == nil {
		return 0
	}
	switch pname {
	case gl.DELETE_STATUS:
		return glBool(x.deletePending)
	case gl.LINK_STATUS:
		return glBool(x.linkOK)
	case gl.VALIDATE_STATUS:
		return glBool(x.validated)
	case gl.INFO_LOG_LENGTH:
		if x.log != "" {
			return len(x.log) + 1
		}
		return 0
	case gl.ATTACHED_SHADERS:
		return len(c.GetAttachedShaders(p))
	case gl.ACTIVE_ATTRIBUTES:
		return len(x.attribs)
	case gl.ACTIVE_ATTRIBUTE_MAX_LENGTH:
		return maxNameLen(x.attribs)
	case gl.ACTIVE_UNIFORMS:
		return len(x.uniforms)
	case gl.ACTIVE_UNIFORM_MAX_LENGTH:
		return maxNameLen(x.uniforms)
	}
	c.recordError(gl.INVALID_ENUM)
	return 0
}

func maxNameLen(vs []pipe.ActiveVariable) int {
	n := 0
	for _, v := range vs {
		n = max(n, len(v.Name)+1)
	}
	return n
}

// GetProgramInfoLog returns the linker's log.
func (c *Context) GetProgramInfoLog(p gl.Program) string {
	if x := c.lookupProgram(p); x != nil {
		return x.log
	}
	return ""
}

// ValidateProgram checks the program could draw with the current state.
func (c *Context) ValidateProgram(p gl.Program) {
	x := c.lookupProgram(p)
	if x == nil {
		return
	}
	x.validated = x.linkOK && c.samplerConflict(x) == ""
	if !x.validated && x.linkOK {
		x.log = c.samplerConflict(x)
	}
}

// DeleteProgram deletes a program, or flags it while it is in use.
func (c *Context) DeleteProgram(p gl.Program) {
	if p.Value == 0 {
		return
	}
	x := c.lookupProgram(p)
	if x == nil {
		return
	}
	if c.current == x {
		x.deletePending = true
		return
	}
	c.destroyProgram(x)
}

func (c *Context) destroyProgram(x *program) {
	for _, s := range []*shader{x.vs, x.fs} {
		if s != nil {
			s.attached--
			if s.deletePending && s.attached == 0 {
				delete(c.shaders, s.name)
			}
		}
	}
	x.release(c)
	delete(c.programs, x.name)
}

// UseProgram makes a linked program current (0: none).
func (c *Context) UseProgram(p gl.Program) {
	var x *program
	if p.Value != 0 {
		if x = c.lookupProgram(p); x == nil {
			return
		}
		if !x.linkOK {
			c.recordError(gl.INVALID_OPERATION)
			return
		}
	}
	if old := c.current; old != nil && old != x && old.deletePending {
		c.current = nil
		c.destroyProgram(old)
	}
	c.current = x
}

// GetActiveAttrib describes active attribute index.
func (c *Context) GetActiveAttrib(p gl.Program, index uint32) (name string, size int, ty gl.Enum) {
	x := c.lookupProgram(p)
	if x == nil {
		return
	}
	if int(index) >= len(x.attribs) {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	a := x.attribs[index]
	return a.Name, a.Size, gl.Enum(a.Type)
}

// GetActiveUniform describes active uniform index.
func (c *Context) GetActiveUniform(p gl.Program, index uint32) (name string, size int, ty gl.Enum) {
	x := c.lookupProgram(p)
	if x == nil {
		return
	}
	if int(index) >= len(x.uniforms) {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	u := x.uniforms[index]
	return u.Name, u.Size, gl.Enum(u.Type)
}

// GetAttribLocation returns an active attribute's location, or -1.
func (c *Context) GetAttribLocation(p gl.Program, name string) gl.Attrib {
	x := c.lookupProgram(p)
	if x == nil {
		return gl.Attrib{Value: ^uint(0)}
	}
	if !x.linkOK {
		c.recordError(gl.INVALID_OPERATION)
		return gl.Attrib{Value: ^uint(0)}
	}
	for _, a := range x.attribs {
		if a.Name == name {
			return gl.Attrib{Value: uint(a.Location)}
		}
	}
	return gl.Attrib{Value: ^uint(0)}
}

// GetUniformLocation returns the location of a uniform ("u", "u[0]",
// "u[3]", "s.f"), or -1.
func (c *Context) GetUniformLocation(p gl.Program, name string) gl.Uniform {
	x := c.lookupProgram(p)
	if x == nil {
		return gl.Uniform{Value: -1}
	}
	if !x.linkOK {
		c.recordError(gl.INVALID_OPERATION)
		return gl.Uniform{Value: -1}
	}
	base, elem := name, 0
	if strings.HasSuffix(name, "]") {
		if i := strings.LastIndexByte(name, '['); i > 0 {
			n, err := strconv.Atoi(name[i+1 : len(name)-1])
			if err != nil || n < 0 {
				return gl.Uniform{Value: -1}
			}
			base, elem = name[:i], n
		}
	}
	for _, u := range x.uniforms {
		uname := strings.TrimSuffix(u.Name, "[0]")
		if uname != base {
			continue
		}
		if elem >= max(u.Size, 1) || (elem > 0 && !strings.HasSuffix(u.Name, "]") && u.Size <= 1) {
			return gl.Uniform{Value: -1}
		}
		return gl.Uniform{Value: int32(u.Location + elem)}
	}
	return gl.Uniform{Value: -1}
}

// uniform type table: components per element and the base kind.
type uniformKind int

const (
	kindFloat uniformKind = iota
	kindInt
	kindBool
	kindSampler
	kindMatrix
)

func uniformInfo(t gl.Enum) (comps int, kind uniformKind) {
	switch t {
	case gl.FLOAT:
		return 1, kindFloat
	case gl.FLOAT_VEC2:
		return 2, kindFloat
	case gl.FLOAT_VEC3:
		return 3, kindFloat
	case gl.FLOAT_VEC4:
		return 4, kindFloat
	case gl.INT:
		return 1, kindInt
	case gl.INT_VEC2:
		return 2, kindInt
	case gl.INT_VEC3:
		return 3, kindInt
	case gl.INT_VEC4:
		return 4, kindInt
	case gl.BOOL:
		return 1, kindBool
	case gl.BOOL_VEC2:
		return 2, kindBool
	case gl.BOOL_VEC3:
		return 3, kindBool
	case gl.BOOL_VEC4:
		return 4, kindBool
	case gl.FLOAT_MAT2:
		return 4, kindMatrix
	case gl.FLOAT_MAT3:
		return 9, kindMatrix
	case gl.FLOAT_MAT4:
		return 16, kindMatrix
	case gl.SAMPLER_2D, gl.SAMPLER_CUBE:
		return 1, kindSampler
	}
	return 0, kindFloat
}

// elementStride is the number of storage slots between array elements.
func elementStride(u pipe.ActiveVariable) int {
	if u.Stride > 0 {
		return u.Stride
	}
	n, _ := uniformInfo(gl.Enum(u.Type))
	return n
}

func isSampler(t gl.Enum) bool { return t == gl.SAMPLER_2D || t == gl.SAMPLER_CUBE }

// setUniform implements every glUniform* entry point (ES 2.0 §2.10.4):
// comps is the component count of the call, isInt whether it is an
// integer call, matrix whether it is UniformMatrix*, and vals holds count
// elements as float32 (float calls) or int32 (integer calls) bit patterns.
func (c *Context) setUniform(dst gl.Uniform, comps int, isInt, matrix bool, f []float32, iv []int32) {
	p := c.current
	if p == nil {
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	if dst.Value == -1 {
		return // silently ignored
	}
	loc, ok := p.locs[dst.Value]
	if !ok {
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	u := p.uniforms[loc.u]
	uc, kind := uniformInfo(gl.Enum(u.Type))
	n := len(f)
	if isInt {
		n = len(iv)
	}
	if comps == 0 || n%comps != 0 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	count := n / comps
	switch {
	case uc != comps:
		c.recordError(gl.INVALID_OPERATION)
		return
	case matrix != (kind == kindMatrix):
		c.recordError(gl.INVALID_OPERATION)
		return
	case isInt && (kind == kindFloat || kind == kindMatrix):
		c.recordError(gl.INVALID_OPERATION)
		return
	case !isInt && (kind == kindInt || kind == kindSampler):
		c.recordError(gl.INVALID_OPERATION)
		return
	case count > 1 && u.Size <= 1:
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	if kind == kindSampler {
		for _, v := range iv {
			if v < 0 || int(v) >= len(c.units) {
				c.recordError(gl.INVALID_VALUE)
				return
			}
		}
	}
	// Elements beyond the end of the array are ignored.
	count = min(count, max(u.Size, 1)-loc.element)
	for i := 0; i < count*comps; i++ {
		slot := u.Storage + (loc.element+i/comps)*elementStride(u) + i%comps
		var w uint32
		switch {
		case kind == kindBool && isInt:
			w = uint32(glBool(iv[i] != 0))
		case kind == kindBool:
			w = uint32(glBool(f[i] != 0))
		case isInt:
			w = uint32(iv[i])
		default:
			w = math.Float32bits(f[i])
		}
		if slot < len(p.storage) {
			p.storage[slot] = w
		}
	}
}

// Uniform1f and friends set uniforms of the current program.
func (c *Context) Uniform1f(dst gl.Uniform, v float32) {
	c.setUniform(dst, 1, false, false, []float32{v}, nil)
}

// Uniform2f sets a vec2 uniform.
func (c *Context) Uniform2f(dst gl.Uniform, v0, v1 float32) {
	c.setUniform(dst, 2, false, false, []float32{v0, v1}, nil)
}

// Uniform3f sets a vec3 uniform.
func (c *Context) Uniform3f(dst gl.Uniform, v0, v1, v2 float32) {
	c.setUniform(dst, 3, false, false, []float32{v0, v1, v2}, nil)
}

// Uniform4f sets a vec4 uniform.
func (c *Context) Uniform4f(dst gl.Uniform, v0, v1, v2, v3 float32) {
	c.setUniform(dst, 4, false, false, []float32{v0, v1, v2, v3}, nil)
}

// Uniform1fv sets float uniform elements.
func (c *Context) Uniform1fv(dst gl.Uniform, src []float32) {
	c.setUniform(dst, 1, false, false, src, nil)
}

// Uniform2fv sets vec2 uniform elements.
func (c *Context) Uniform2fv(dst gl.Uniform, src []float32) {
	c.setUniform(dst, 2, false, false, src, nil)
}

// Uniform3fv sets vec3 uniform elements.
func (c *Context) Uniform3fv(dst gl.Uniform, src []float32) {
	c.setUniform(dst, 3, false, false, src, nil)
}

// Uniform4fv sets vec4 uniform elements.
func (c *Context) Uniform4fv(dst gl.Uniform, src []float32) {
	c.setUniform(dst, 4, false, false, src, nil)
}

// Uniform1i sets an int, bool or sampler uniform.
func (c *Context) Uniform1i(dst gl.Uniform, v int) {
	c.setUniform(dst, 1, true, false, nil, []int32{int32(v)})
}

// Uniform2i sets an ivec2 uniform.
func (c *Context) Uniform2i(dst gl.Uniform, v0, v1 int) {
	c.setUniform(dst, 2, true, false, nil, []int32{int32(v0), int32(v1)})
}

// Uniform3i sets an ivec3 uniform.
func (c *Context) Uniform3i(dst gl.Uniform, v0, v1, v2 int32) {
	c.setUniform(dst, 3, true, false, nil, []int32{v0, v1, v2})
}

// Uniform4i sets an ivec4 uniform.
func (c *Context) Uniform4i(dst gl.Uniform, v0, v1, v2, v3 int32) {
	c.setUniform(dst, 4, true, false, nil, []int32{v0, v1, v2, v3})
}

// Uniform1iv sets int uniform elements.
func (c *Context) Uniform1iv(dst gl.Uniform, src []int32) {
	c.setUniform(dst, 1, true, false, nil, src)
}

// Uniform2iv sets ivec2 uniform elements.
func (c *Context) Uniform2iv(dst gl.Uniform, src []int32) {
	c.setUniform(dst, 2, true, false, nil, src)
}

// Uniform3iv sets ivec3 uniform elements.
func (c *Context) Uniform3iv(dst gl.Uniform, src []int32) {
	c.setUniform(dst, 3, true, false, nil, src)
}

// Uniform4iv sets ivec4 uniform elements.
func (c *Context) Uniform4iv(dst gl.Uniform, src []int32) {
	c.setUniform(dst, 4, true, false, nil, src)
}

// UniformMatrix2fv sets mat2 uniform elements (column-major, no transpose in ES 2.0).
func (c *Context) UniformMatrix2fv(dst gl.Uniform, src []float32) {
	c.setUniform(dst, 4, false, true, src, nil)
}

// UniformMatrix3fv sets mat3 uniform elements.
func (c *Context) UniformMatrix3fv(dst gl.Uniform, src []float32) {
	c.setUniform(dst, 9, false, true, src, nil)
}

// UniformMatrix4fv sets mat4 uniform elements.
func (c *Context) UniformMatrix4fv(dst gl.Uniform, src []float32) {
	c.setUniform(dst, 16, false, true, src, nil)
}

// getUniform reads a uniform's current value.
func (c *Context) getUniform(src gl.Uniform, p gl.Program) ([]uint32, uniformKind, bool) {
	x := c.lookupProgram(p)
	if x == nil {
		return nil, 0, false
	}
	if !x.linkOK {
		c.recordError(gl.INVALID_OPERATION)
		return nil, 0, false
	}
	loc, ok := x.locs[src.Value]
	if !ok {
		c.recordError(gl.INVALID_OPERATION)
		return nil, 0, false
	}
	u := x.uniforms[loc.u]
	uc, kind := uniformInfo(gl.Enum(u.Type))
	slot := u.Storage + loc.element*elementStride(u)
	if slot+uc > len(x.storage) {
		return nil, kind, false
	}
	return x.storage[slot : slot+uc], kind, true
}

// GetUniformfv reads a uniform as floats.
func (c *Context) GetUniformfv(dst []float32, src gl.Uniform, p gl.Program) {
	w, kind, ok := c.getUniform(src, p)
	if !ok {
		return
	}
	for i := 0; i < len(w) && i < len(dst); i++ {
		if kind == kindFloat || kind == kindMatrix {
			dst[i] = math.Float32frombits(w[i])
		} else {
			dst[i] = float32(int32(w[i]))
		}
	}
}

// GetUniformiv reads a uniform as integers.
func (c *Context) GetUniformiv(dst []int32, src gl.Uniform, p gl.Program) {
	w, kind, ok := c.getUniform(src, p)
	if !ok {
		return
	}
	for i := 0; i < len(w) && i < len(dst); i++ {
		if kind == kindFloat || kind == kindMatrix {
			dst[i] = int32(math.Float32frombits(w[i]))
		} else {
			dst[i] = int32(w[i])
		}
	}
}

func glBool(b bool) int {
	if b {
		return 1
	}
	return 0
}
