// Package gl is the Go face of tilegpu's OpenGL ES 2.0 API: the Context
// interface and the object-handle types, with the same names and signatures as
// golang.org/x/mobile/gl, so Go code written for x/mobile/gl runs on tilegpu by
// changing its import path and how the context is created.
//
// It is a separate package, rather than an import of x/mobile/gl, because
// importing that package links libGLESv2 through cgo whenever cgo is enabled;
// tilegpu is pure Go and must build from a fresh clone with only Go installed.
// The enum values are Khronos' (GLES2/gl2.h).
package gl

import "fmt"

// Enum is a GLenum.
type Enum uint32

// Attrib is the location of a vertex attribute.
type Attrib struct{ Value uint }

// Program names a program object. Init is set by CreateProgram, as in
// x/mobile/gl, so that the zero Program is distinguishable from program 0.
type Program struct {
	Init  bool
	Value uint32
}

// Shader names a shader object.
type Shader struct{ Value uint32 }

// Buffer names a buffer object.
type Buffer struct{ Value uint32 }

// Framebuffer names a framebuffer object; the zero value is the default framebuffer.
type Framebuffer struct{ Value uint32 }

// Renderbuffer names a renderbuffer object.
type Renderbuffer struct{ Value uint32 }

// Texture names a texture object.
type Texture struct{ Value uint32 }

// Uniform is a uniform location. Value is -1 for "not found".
type Uniform struct{ Value int32 }

// VertexArray names a vertex array object (OES_vertex_array_object).
type VertexArray struct{ Value uint32 }

func (v Attrib) String() string       { return fmt.Sprintf("Attrib(%d)", v.Value) }
func (v Program) String() string      { return fmt.Sprintf("Program(%d)", v.Value) }
func (v Shader) String() string       { return fmt.Sprintf("Shader(%d)", v.Value) }
func (v Buffer) String() string       { return fmt.Sprintf("Buffer(%d)", v.Value) }
func (v Framebuffer) String() string  { return fmt.Sprintf("Framebuffer(%d)", v.Value) }
func (v Renderbuffer) String() string { return fmt.Sprintf("Renderbuffer(%d)", v.Value) }
func (v Texture) String() string      { return fmt.Sprintf("Texture(%d)", v.Value) }
func (v Uniform) String() string      { return fmt.Sprintf("Uniform(%d)", v.Value) }
func (v VertexArray) String() string  { return fmt.Sprintf("VertexArray(%d)", v.Value) }

// Context is an OpenGL ES 2.0 context. Its methods are the GL ES 2.0 entry
// points, named as in golang.org/x/mobile/gl; the GL specification defines
// their behaviour, including the GL errors that GetError reports.
type Context interface {
	ActiveTexture(texture Enum)
	AttachShader(p Program, s Shader)
	BindAttribLocation(p Program, a Attrib, name string)
	BindBuffer(target Enum, b Buffer)
	BindFramebuffer(target Enum, fb Framebuffer)
	BindRenderbuffer(target Enum, rb Renderbuffer)
	BindTexture(target Enum, t Texture)
	BindVertexArray(rb VertexArray)
	BlendColor(red, green, blue, alpha float32)
	BlendEquation(mode Enum)
	BlendEquationSeparate(modeRGB, modeAlpha Enum)
	BlendFunc(sfactor, dfactor Enum)
	BlendFuncSeparate(sfactorRGB, dfactorRGB, sfactorAlpha, dfactorAlpha Enum)
	BufferData(target Enum, src []byte, usage Enum)
	BufferInit(target Enum, size int, usage Enum)
	BufferSubData(target Enum, offset int, data []byte)
	CheckFramebufferStatus(target Enum) Enum
	Clear(mask Enum)
	ClearColor(red, green, blue, alpha float32)
	ClearDepthf(d float32)
	ClearStencil(s int)
	ColorMask(red, green, blue, alpha bool)
	CompileShader(s Shader)
	CompressedTexImage2D(target Enum, level int, internalformat Enum, width, height, border int, data []byte)
	CompressedTexSubImage2D(target Enum, level, xoffset, yoffset, width, height int, format Enum, data []byte)
	CopyTexImage2D(target Enum, level int, internalformat Enum, x, y, width, height, border int)
	CopyTexSubImage2D(target Enum, level, xoffset, yoffset, x, y, width, height int)
	CreateBuffer() Buffer
	CreateFramebuffer() Framebuffer
	CreateProgram() Program
	CreateRenderbuffer() Renderbuffer
	CreateShader(ty Enum) Shader
	CreateTexture() Texture
	CreateVertexArray() VertexArray
	CullFace(mode Enum)
	DeleteBuffer(v Buffer)
	DeleteFramebuffer(v Framebuffer)
	DeleteProgram(p Program)
	DeleteRenderbuffer(v Renderbuffer)
	DeleteShader(s Shader)
	DeleteTexture(v Texture)
	DeleteVertexArray(v VertexArray)
	DepthFunc(fn Enum)
	DepthMask(flag bool)
	DepthRangef(n, f float32)
	DetachShader(p Program, s Shader)
	Disable(cap Enum)
	DisableVertexAttribArray(a Attrib)
	DrawArrays(mode Enum, first, count int)
	DrawElements(mode Enum, count int, ty Enum, offset int)
	Enable(cap Enum)
	EnableVertexAttribArray(a Attrib)
	Finish()
	Flush()
	FramebufferRenderbuffer(target, attachment, rbTarget Enum, rb Renderbuffer)
	FramebufferTexture2D(target, attachment, texTarget Enum, t Texture, level int)
	FrontFace(mode Enum)
	GenerateMipmap(target Enum)
	GetActiveAttrib(p Program, index uint32) (name string, size int, ty Enum)
	GetActiveUniform(p Program, index uint32) (name string, size int, ty Enum)
	GetAttachedShaders(p Program) []Shader
	GetAttribLocation(p Program, name string) Attrib
	GetBooleanv(dst []bool, pname Enum)
	GetFloatv(dst []float32, pname Enum)
	GetIntegerv(dst []int32, pname Enum)
	GetInteger(pname Enum) int
	GetBufferParameteri(target, value Enum) int
	GetError() Enum
	GetFramebufferAttachmentParameteri(target, attachment, pname Enum) int
	GetProgrami(p Program, pname Enum) int
	GetProgramInfoLog(p Program) string
	GetRenderbufferParameteri(target, pname Enum) int
	GetShaderi(s Shader, pname Enum) int
	GetShaderInfoLog(s Shader) string
	GetShaderPrecisionFormat(shadertype, precisiontype Enum) (rangeLow, rangeHigh, precision int)
	GetShaderSource(s Shader) string
	GetString(pname Enum) string
	GetTexParameterfv(dst []float32, target, pname Enum)
	GetTexParameteriv(dst []int32, target, pname Enum)
	GetUniformfv(dst []float32, src Uniform, p Program)
	GetUniformiv(dst []int32, src Uniform, p Program)
	GetUniformLocation(p Program, name string) Uniform
	GetVertexAttribf(src Attrib, pname Enum) float32
	GetVertexAttribfv(dst []float32, src Attrib, pname Enum)
	GetVertexAttribi(src Attrib, pname Enum) int32
	GetVertexAttribiv(dst []int32, src Attrib, pname Enum)
	Hint(target, mode Enum)
	IsBuffer(b Buffer) bool
	IsEnabled(cap Enum) bool
	IsFramebuffer(fb Framebuffer) bool
	IsProgram(p Program) bool
	IsRenderbuffer(rb Renderbuffer) bool
	IsShader(s Shader) bool
	IsTexture(t Texture) bool
	LineWidth(width float32)
	LinkProgram(p Program)
	PixelStorei(pname Enum, param int32)
	PolygonOffset(factor, units float32)
	ReadPixels(dst []byte, x, y, width, height int, format, ty Enum)
	ReleaseShaderCompiler()
	RenderbufferStorage(target, internalFormat Enum, width, height int)
	SampleCoverage(value float32, invert bool)
	Scissor(x, y, width, height int32)
	ShaderSource(s Shader, src string)
	StencilFunc(fn Enum, ref int, mask uint32)
	StencilFuncSeparate(face, fn Enum, ref int, mask uint32)
	StencilMask(mask uint32)
	StencilMaskSeparate(face Enum, mask uint32)
	StencilOp(fail, zfail, zpass Enum)
	StencilOpSeparate(face, sfail, dpfail, dppass Enum)
	TexImage2D(target Enum, level int, internalFormat int, width, height int, format Enum, ty Enum, data []byte)
	TexSubImage2D(target Enum, level int, x, y, width, height int, format, ty Enum, data []byte)
	TexParameterf(target, pname Enum, param float32)
	TexParameterfv(target, pname Enum, params []float32)
	TexParameteri(target, pname Enum, param int)
	TexParameteriv(target, pname Enum, params []int32)
	Uniform1f(dst Uniform, v float32)
	Uniform1fv(dst Uniform, src []float32)
	Uniform1i(dst Uniform, v int)
	Uniform1iv(dst Uniform, src []int32)
	Uniform2f(dst Uniform, v0, v1 float32)
	Uniform2fv(dst Uniform, src []float32)
	Uniform2i(dst Uniform, v0, v1 int)
	Uniform2iv(dst Uniform, src []int32)
	Uniform3f(dst Uniform, v0, v1, v2 float32)
	Uniform3fv(dst Uniform, src []float32)
	Uniform3i(dst Uniform, v0, v1, v2 int32)
	Uniform3iv(dst Uniform, src []int32)
	Uniform4f(dst Uniform, v0, v1, v2, v3 float32)
	Uniform4fv(dst Uniform, src []float32)
	Uniform4i(dst Uniform, v0, v1, v2, v3 int32)
	Uniform4iv(dst Uniform, src []int32)
	UniformMatrix2fv(dst Uniform, src []float32)
	UniformMatrix3fv(dst Uniform, src []float32)
	UniformMatrix4fv(dst Uniform, src []float32)
	UseProgram(p Program)
	ValidateProgram(p Program)
	VertexAttrib1f(dst Attrib, x float32)
	VertexAttrib1fv(dst Attrib, src []float32)
	VertexAttrib2f(dst Attrib, x, y float32)
	VertexAttrib2fv(dst Attrib, src []float32)
	VertexAttrib3f(dst Attrib, x, y, z float32)
	VertexAttrib3fv(dst Attrib, src []float32)
	VertexAttrib4f(dst Attrib, x, y, z, w float32)
	VertexAttrib4fv(dst Attrib, src []float32)
	VertexAttribPointer(dst Attrib, size int, ty Enum, normalized bool, stride, offset int)
	Viewport(x, y, width, height int)
}
