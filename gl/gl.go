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

import (
	"encoding/binary"
	"fmt"
	"math"
)

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
	// ActiveTexture selects the texture unit (TEXTURE0+i) that BindTexture and
	// the texture parameter and image calls act on. INVALID_ENUM if texture is
	// not TEXTURE0..TEXTURE0+MAX_COMBINED_TEXTURE_IMAGE_UNITS-1.
	ActiveTexture(texture Enum)

	// AttachShader attaches shader s to program p; the program links the shaders
	// attached when LinkProgram runs. INVALID_VALUE if p or s is not an object;
	// INVALID_OPERATION if one is the wrong kind or a shader of s's type is
	// already attached.
	AttachShader(p Program, s Shader)

	// BindAttribLocation binds vertex attribute a to the attribute variable name
	// for p's next link. INVALID_VALUE if a >= MAX_VERTEX_ATTRIBS or p is not an
	// object; INVALID_OPERATION if p is a shader or name starts with "gl_".
	BindAttribLocation(p Program, a Attrib, name string)

	// BindBuffer binds buffer b (zero: none) to ARRAY_BUFFER or
	// ELEMENT_ARRAY_BUFFER, creating the buffer object on first bind.
	// INVALID_ENUM for another target.
	BindBuffer(target Enum, b Buffer)

	// BindFramebuffer binds framebuffer fb to FRAMEBUFFER; the zero Framebuffer
	// is the context's default framebuffer. INVALID_ENUM for another target.
	BindFramebuffer(target Enum, fb Framebuffer)

	// BindRenderbuffer binds renderbuffer rb (zero: none) to RENDERBUFFER.
	// INVALID_ENUM for another target.
	BindRenderbuffer(target Enum, rb Renderbuffer)

	// BindTexture binds texture t (zero: the default texture) to TEXTURE_2D or
	// TEXTURE_CUBE_MAP of the active unit; a texture's target is fixed by its
	// first bind. INVALID_ENUM for another target; INVALID_OPERATION if t was
	// created with the other target.
	BindTexture(target Enum, t Texture)

	// BindVertexArray binds vertex array object rb (OES_vertex_array_object;
	// zero: the default), which holds the vertex attribute arrays and the
	// ELEMENT_ARRAY_BUFFER binding. INVALID_OPERATION if rb is not a vertex
	// array name.
	BindVertexArray(rb VertexArray)

	// BlendColor sets the constant colour of the CONSTANT_COLOR and
	// CONSTANT_ALPHA blend factors (clamped to 0..1).
	BlendColor(red, green, blue, alpha float32)

	// BlendEquation sets the RGB and alpha blend equations: FUNC_ADD,
	// FUNC_SUBTRACT or FUNC_REVERSE_SUBTRACT. INVALID_ENUM otherwise.
	BlendEquation(mode Enum)

	// BlendEquationSeparate sets the RGB and alpha blend equations separately.
	// INVALID_ENUM for an unknown equation.
	BlendEquationSeparate(modeRGB, modeAlpha Enum)

	// BlendFunc sets the source and destination blend factors for RGB and alpha.
	// INVALID_ENUM for an unknown factor.
	BlendFunc(sfactor, dfactor Enum)

	// BlendFuncSeparate sets the source and destination blend factors for RGB
	// and for alpha separately. INVALID_ENUM for an unknown factor.
	BlendFuncSeparate(sfactorRGB, dfactorRGB, sfactorAlpha, dfactorAlpha Enum)

	// BufferData replaces the data store of the buffer bound to target with a
	// copy of src (usage: STREAM_DRAW, STATIC_DRAW or DYNAMIC_DRAW, a hint).
	// INVALID_ENUM for a bad target or usage; INVALID_OPERATION if no buffer is
	// bound; OUT_OF_MEMORY if GPU memory is exhausted.
	BufferData(target Enum, src []byte, usage Enum)

	// BufferInit replaces the data store of the buffer bound to target with size
	// zero bytes. INVALID_ENUM for a bad target or usage; INVALID_VALUE if size
	// < 0; INVALID_OPERATION if no buffer is bound; OUT_OF_MEMORY if GPU memory
	// is exhausted.
	BufferInit(target Enum, size int, usage Enum)

	// BufferSubData copies data into the bound buffer at offset. INVALID_ENUM
	// for a bad target; INVALID_VALUE if offset < 0 or offset+len(data) exceeds
	// the buffer; INVALID_OPERATION if no buffer is bound.
	BufferSubData(target Enum, offset int, data []byte)

	// CheckFramebufferStatus returns FRAMEBUFFER_COMPLETE or the reason the
	// bound framebuffer cannot be drawn to (FRAMEBUFFER_INCOMPLETE_ATTACHMENT,
	// _MISSING_ATTACHMENT, _DIMENSIONS, FRAMEBUFFER_UNSUPPORTED). INVALID_ENUM
	// (and returns 0) for a target other than FRAMEBUFFER.
	CheckFramebufferStatus(target Enum) Enum

	// Clear clears the buffers named by mask (COLOR_BUFFER_BIT,
	// DEPTH_BUFFER_BIT, STENCIL_BUFFER_BIT) inside the scissor box to the clear
	// values, honouring the colour, depth and stencil write masks. INVALID_VALUE
	// for other bits; INVALID_FRAMEBUFFER_OPERATION if the bound framebuffer is
	// incomplete.
	Clear(mask Enum)

	// ClearColor sets the colour Clear writes (clamped to 0..1).
	ClearColor(red, green, blue, alpha float32)

	// ClearDepthf sets the depth Clear writes (clamped to 0..1).
	ClearDepthf(d float32)

	// ClearStencil sets the stencil value Clear writes.
	ClearStencil(s int)

	// ColorMask enables or disables writing of each colour channel.
	ColorMask(red, green, blue, alpha bool)

	// CompileShader compiles s's source; GetShaderi(s, COMPILE_STATUS) and
	// GetShaderInfoLog report the outcome. INVALID_VALUE if s is not an object;
	// INVALID_OPERATION if it is a program.
	CompileShader(s Shader)

	// CompressedTexImage2D would specify a compressed texture image; no
	// compressed formats are supported (NUM_COMPRESSED_TEXTURE_FORMATS is 0),
	// so it records INVALID_ENUM.
	CompressedTexImage2D(target Enum, level int, internalformat Enum, width, height, border int, data []byte)

	// CompressedTexSubImage2D would update part of a compressed texture
	// image; with no compressed formats it records INVALID_ENUM.
	CompressedTexSubImage2D(target Enum, level, xoffset, yoffset, width, height int, format Enum, data []byte)

	// CopyTexImage2D specifies texture image level from a rectangle of the bound
	// framebuffer's colour buffer. INVALID_ENUM for a bad target or format;
	// INVALID_VALUE for bad sizes, level or border; INVALID_OPERATION if the
	// framebuffer's format cannot supply internalformat;
	// INVALID_FRAMEBUFFER_OPERATION if it is incomplete.
	CopyTexImage2D(target Enum, level int, internalformat Enum, x, y, width, height, border int)

	// CopyTexSubImage2D copies a rectangle of the bound framebuffer's colour
	// buffer into part of an existing texture image. INVALID_VALUE if the region
	// is outside the image; INVALID_OPERATION if the level is undefined;
	// INVALID_FRAMEBUFFER_OPERATION if the framebuffer is incomplete.
	CopyTexSubImage2D(target Enum, level, xoffset, yoffset, x, y, width, height int)

	// CreateBuffer returns a new buffer name (the object is made on first
	// BindBuffer).
	CreateBuffer() Buffer

	// CreateFramebuffer returns a new framebuffer name (the object is made on
	// first BindFramebuffer).
	CreateFramebuffer() Framebuffer

	// CreateProgram returns a new, empty program object.
	CreateProgram() Program

	// CreateRenderbuffer returns a new renderbuffer name (the object is made on
	// first BindRenderbuffer).
	CreateRenderbuffer() Renderbuffer

	// CreateShader returns a new shader object of type VERTEX_SHADER or
	// FRAGMENT_SHADER. INVALID_ENUM (and the zero Shader) for another type.
	CreateShader(ty Enum) Shader

	// CreateTexture returns a new texture name (the object is made on first
	// BindTexture).
	CreateTexture() Texture

	// CreateVertexArray returns a new vertex array object name
	// (OES_vertex_array_object).
	CreateVertexArray() VertexArray

	// CullFace selects which faces CULL_FACE discards: FRONT, BACK or
	// FRONT_AND_BACK. INVALID_ENUM otherwise.
	CullFace(mode Enum)

	// DeleteBuffer deletes buffer v, unbinding it where bound; its storage lives
	// on until queued draws are done with it. Unknown or zero names are ignored.
	DeleteBuffer(v Buffer)

	// DeleteFramebuffer deletes framebuffer v; if it is bound, the default
	// framebuffer is bound instead. Unknown or zero names are ignored.
	DeleteFramebuffer(v Framebuffer)

	// DeleteProgram flags program p for deletion: it is deleted once it is no
	// longer in use, detaching its shaders. INVALID_VALUE if p is not an object
	// (zero is ignored); INVALID_OPERATION if it is a shader.
	DeleteProgram(p Program)

	// DeleteRenderbuffer deletes renderbuffer v, detaching it from the bound
	// framebuffer and unbinding it. Unknown or zero names are ignored.
	DeleteRenderbuffer(v Renderbuffer)

	// DeleteShader flags shader s for deletion: it is deleted once no program
	// has it attached. INVALID_VALUE if s is not an object (zero is ignored);
	// INVALID_OPERATION if it is a program.
	DeleteShader(s Shader)

	// DeleteTexture deletes texture v, unbinding it from every unit and
	// detaching it from the bound framebuffer; its storage lives on until queued
	// draws are done with it. Unknown or zero names are ignored.
	DeleteTexture(v Texture)

	// DeleteVertexArray deletes vertex array object v; if it is bound, the
	// default vertex array is bound instead.
	DeleteVertexArray(v VertexArray)

	// DepthFunc sets the depth test's comparison (NEVER, LESS, EQUAL, LEQUAL,
	// GREATER, NOTEQUAL, GEQUAL, ALWAYS). INVALID_ENUM otherwise.
	DepthFunc(fn Enum)

	// DepthMask enables or disables writing to the depth buffer.
	DepthMask(flag bool)

	// DepthRangef sets the mapping of normalized device depth to window depth
	// (each clamped to 0..1).
	DepthRangef(n, f float32)

	// DetachShader detaches shader s from program p. INVALID_VALUE if either is
	// not an object; INVALID_OPERATION if one is the wrong kind or s is not
	// attached to p.
	DetachShader(p Program, s Shader)

	// Disable disables a capability (BLEND, CULL_FACE, DEPTH_TEST, DITHER,
	// POLYGON_OFFSET_FILL, SAMPLE_ALPHA_TO_COVERAGE, SAMPLE_COVERAGE,
	// SCISSOR_TEST, STENCIL_TEST). INVALID_ENUM otherwise.
	Disable(cap Enum)

	// DisableVertexAttribArray makes attribute a read its current generic value
	// (VertexAttrib*) instead of an array. INVALID_VALUE if a >=
	// MAX_VERTEX_ATTRIBS.
	DisableVertexAttribArray(a Attrib)

	// DrawArrays draws count vertices starting at first from the enabled arrays,
	// as POINTS, LINES, LINE_LOOP, LINE_STRIP, TRIANGLES, TRIANGLE_STRIP or
	// TRIANGLE_FAN, with the current program. INVALID_ENUM for another mode;
	// INVALID_VALUE if first or count < 0; INVALID_OPERATION if no valid program
	// is in use or an enabled array reads past its buffer;
	// INVALID_FRAMEBUFFER_OPERATION if the framebuffer is incomplete.
	DrawArrays(mode Enum, first, count int)

	// DrawElements draws count vertices whose indices (UNSIGNED_BYTE,
	// UNSIGNED_SHORT, or UNSIGNED_INT with OES_element_index_uint) are read from
	// the bound ELEMENT_ARRAY_BUFFER at byte offset. INVALID_ENUM for a bad mode
	// or type; INVALID_VALUE if count < 0; INVALID_OPERATION if no element
	// buffer is bound, offset is misaligned, an index reads past an enabled
	// array or no valid program is in use; INVALID_FRAMEBUFFER_OPERATION if the
	// framebuffer is incomplete.
	DrawElements(mode Enum, count int, ty Enum, offset int)

	// Enable enables a capability (see Disable). INVALID_ENUM for an unknown
	// one.
	Enable(cap Enum)

	// EnableVertexAttribArray makes attribute a read from its array
	// (VertexAttribPointer). INVALID_VALUE if a >= MAX_VERTEX_ATTRIBS.
	EnableVertexAttribArray(a Attrib)

	// Finish submits all queued work and waits until the GPU has finished it.
	Finish()

	// Flush submits all queued work to the GPU without waiting.
	Flush()

	// FramebufferRenderbuffer attaches renderbuffer rb (zero: detach) to
	// attachment (COLOR_ATTACHMENT0, DEPTH_ATTACHMENT, STENCIL_ATTACHMENT) of
	// the bound framebuffer. INVALID_ENUM for a bad target, attachment or
	// rbTarget; INVALID_OPERATION if the default framebuffer is bound or rb is
	// not a renderbuffer.
	FramebufferRenderbuffer(target, attachment, rbTarget Enum, rb Renderbuffer)

	// FramebufferTexture2D attaches level 0 of texture t (a 2D texture or a cube
	// map face, per texTarget; zero: detach) to attachment of the bound
	// framebuffer. INVALID_ENUM for a bad target, attachment or texTarget;
	// INVALID_VALUE if level is not 0; INVALID_OPERATION if the default
	// framebuffer is bound or t does not match texTarget.
	FramebufferTexture2D(target, attachment, texTarget Enum, t Texture, level int)

	// FrontFace selects which winding is front-facing: CCW (the default) or CW.
	// INVALID_ENUM otherwise.
	FrontFace(mode Enum)

	// GenerateMipmap builds every mipmap level of the bound texture from level
	// 0. INVALID_ENUM for a bad target; INVALID_OPERATION if level 0 is
	// undefined, a cube map is not cube complete, or the size is not a power of
	// two.
	GenerateMipmap(target Enum)

	// GetActiveAttrib returns the name, array size and type of p's active
	// attribute index. INVALID_VALUE if p is not an object or index >=
	// ACTIVE_ATTRIBUTES; INVALID_OPERATION if p is a shader.
	GetActiveAttrib(p Program, index uint32) (name string, size int, ty Enum)

	// GetActiveUniform returns the name, array size and type of p's active
	// uniform index. INVALID_VALUE if p is not an object or index >=
	// ACTIVE_UNIFORMS; INVALID_OPERATION if p is a shader.
	GetActiveUniform(p Program, index uint32) (name string, size int, ty Enum)

	// GetAttachedShaders returns the shaders attached to p. INVALID_VALUE if p
	// is not an object; INVALID_OPERATION if it is a shader.
	GetAttachedShaders(p Program) []Shader

	// GetAttribLocation returns the location of p's active attribute name after
	// link, or -1 (as Attrib) if there is none. INVALID_OPERATION if p is not
	// linked.
	GetAttribLocation(p Program, name string) Attrib

	// GetBooleanv stores the state pname in dst as booleans. INVALID_ENUM for an
	// unknown pname.
	GetBooleanv(dst []bool, pname Enum)

	// GetFloatv stores the state pname in dst as floats. INVALID_ENUM for an
	// unknown pname.
	GetFloatv(dst []float32, pname Enum)

	// GetIntegerv stores the state pname in dst as integers. INVALID_ENUM for an
	// unknown pname.
	GetIntegerv(dst []int32, pname Enum)

	// GetInteger returns the first integer of the state pname. INVALID_ENUM for
	// an unknown pname.
	GetInteger(pname Enum) int

	// GetBufferParameteri returns BUFFER_SIZE or BUFFER_USAGE of the buffer
	// bound to target. INVALID_ENUM for a bad target or value; INVALID_OPERATION
	// if no buffer is bound.
	GetBufferParameteri(target, value Enum) int

	// GetError returns and clears the oldest recorded GL error (NO_ERROR when
	// none). Errors are recorded by the other methods, which then have no other
	// effect.
	GetError() Enum

	// GetFramebufferAttachmentParameteri returns a property of attachment of the
	// bound framebuffer (object type and name, texture level and cube face).
	// INVALID_ENUM for a bad target, attachment or pname; INVALID_OPERATION if
	// the default framebuffer is bound.
	GetFramebufferAttachmentParameteri(target, attachment, pname Enum) int

	// GetProgrami returns a property of program p (DELETE_STATUS, LINK_STATUS,
	// VALIDATE_STATUS, INFO_LOG_LENGTH, ATTACHED_SHADERS, ACTIVE_ATTRIBUTES,
	// ACTIVE_UNIFORMS and their maximum name lengths). INVALID_ENUM for a bad
	// pname; INVALID_VALUE if p is not an object; INVALID_OPERATION if it is a
	// shader.
	GetProgrami(p Program, pname Enum) int

	// GetProgramInfoLog returns the log of p's last link or validation.
	// INVALID_VALUE if p is not an object; INVALID_OPERATION if it is a shader.
	GetProgramInfoLog(p Program) string

	// GetRenderbufferParameteri returns a property (width, height, internal
	// format, channel sizes) of the bound renderbuffer. INVALID_ENUM for a bad
	// target or pname; INVALID_OPERATION if none is bound.
	GetRenderbufferParameteri(target, pname Enum) int

	// GetShaderi returns a property of shader s (SHADER_TYPE, DELETE_STATUS,
	// COMPILE_STATUS, INFO_LOG_LENGTH, SHADER_SOURCE_LENGTH). INVALID_ENUM for a
	// bad pname; INVALID_VALUE if s is not an object; INVALID_OPERATION if it is
	// a program.
	GetShaderi(s Shader, pname Enum) int

	// GetShaderInfoLog returns the log of s's last compilation (one "ERROR:
	// 0:LINE: ..." line per error). INVALID_VALUE if s is not an object;
	// INVALID_OPERATION if it is a program.
	GetShaderInfoLog(s Shader) string

	// GetShaderPrecisionFormat returns the range (log2 of the magnitudes) and
	// precision (bits) of a precision qualifier in a shader stage. INVALID_ENUM
	// for a bad shader or precision type.
	GetShaderPrecisionFormat(shadertype, precisiontype Enum) (rangeLow, rangeHigh, precision int)

	// GetShaderSource returns the source last given to ShaderSource.
	// INVALID_VALUE if s is not an object; INVALID_OPERATION if it is a program.
	GetShaderSource(s Shader) string

	// GetString returns VENDOR, RENDERER, VERSION, SHADING_LANGUAGE_VERSION or
	// EXTENSIONS. INVALID_ENUM (and "") otherwise.
	GetString(pname Enum) string

	// GetTexParameterfv stores a texture parameter of the texture bound to
	// target in dst. INVALID_ENUM for a bad target or pname.
	GetTexParameterfv(dst []float32, target, pname Enum)

	// GetTexParameteriv stores a texture parameter of the texture bound to
	// target in dst. INVALID_ENUM for a bad target or pname.
	GetTexParameteriv(dst []int32, target, pname Enum)

	// GetUniformfv stores the value of p's uniform src in dst as floats.
	// INVALID_VALUE if p is not an object; INVALID_OPERATION if p is not linked
	// or src is not one of its locations.
	GetUniformfv(dst []float32, src Uniform, p Program)

	// GetUniformiv stores the value of p's uniform src in dst as integers.
	// INVALID_VALUE if p is not an object; INVALID_OPERATION if p is not linked
	// or src is not one of its locations.
	GetUniformiv(dst []int32, src Uniform, p Program)

	// GetUniformLocation returns the location of p's active uniform name (an
	// array element may be named, as in "a[2]"), or Uniform{-1} if there is
	// none. INVALID_OPERATION if p is not linked.
	GetUniformLocation(p Program, name string) Uniform

	// GetVertexAttribf returns the first float of attribute src's state pname
	// (see GetVertexAttribfv).
	GetVertexAttribf(src Attrib, pname Enum) float32

	// GetVertexAttribfv stores attribute src's state pname (array enabled, size,
	// stride, type, normalized, buffer binding, CURRENT_VERTEX_ATTRIB) in dst.
	// INVALID_VALUE if src >= MAX_VERTEX_ATTRIBS; INVALID_ENUM for a bad pname.
	GetVertexAttribfv(dst []float32, src Attrib, pname Enum)

	// GetVertexAttribi returns the first integer of attribute src's state pname
	// (see GetVertexAttribfv).
	GetVertexAttribi(src Attrib, pname Enum) int32

	// GetVertexAttribiv stores attribute src's state pname in dst as integers
	// (see GetVertexAttribfv).
	GetVertexAttribiv(dst []int32, src Attrib, pname Enum)

	// Hint sets an implementation hint (GENERATE_MIPMAP_HINT, or
	// FRAGMENT_SHADER_DERIVATIVE_HINT_OES with OES_standard_derivatives) to
	// FASTEST, NICEST or DONT_CARE; it does not change the rendering here.
	// INVALID_ENUM for a bad target or mode.
	Hint(target, mode Enum)

	// IsBuffer reports whether b names a buffer object (one that has been
	// bound).
	IsBuffer(b Buffer) bool

	// IsEnabled reports whether a capability is enabled. INVALID_ENUM (and
	// false) for an unknown one.
	IsEnabled(cap Enum) bool

	// IsFramebuffer reports whether fb names a framebuffer object (one that has
	// been bound).
	IsFramebuffer(fb Framebuffer) bool

	// IsProgram reports whether p names a program object not yet deleted.
	IsProgram(p Program) bool

	// IsRenderbuffer reports whether rb names a renderbuffer object (one that
	// has been bound).
	IsRenderbuffer(rb Renderbuffer) bool

	// IsShader reports whether s names a shader object not yet deleted.
	IsShader(s Shader) bool

	// IsTexture reports whether t names a texture object (one that has been
	// bound).
	IsTexture(t Texture) bool

	// LineWidth sets the width of rasterized lines (ALIASED_LINE_WIDTH_RANGE
	// bounds what is drawn). INVALID_VALUE if width <= 0.
	LineWidth(width float32)

	// LinkProgram links p's attached shaders into an executable, assigning
	// attribute and uniform locations; GetProgrami(p, LINK_STATUS) and
	// GetProgramInfoLog report the outcome. INVALID_VALUE if p is not an object;
	// INVALID_OPERATION if it is a shader.
	LinkProgram(p Program)

	// PixelStorei sets PACK_ALIGNMENT (ReadPixels) or UNPACK_ALIGNMENT
	// (TexImage2D, TexSubImage2D) to 1, 2, 4 or 8. INVALID_ENUM for another
	// pname; INVALID_VALUE for another value.
	PixelStorei(pname Enum, param int32)

	// PolygonOffset sets the factor and units of the depth offset
	// POLYGON_OFFSET_FILL applies to triangles.
	PolygonOffset(factor, units float32)

	// ReadPixels reads a rectangle of the bound framebuffer's colour buffer into
	// dst (RGBA/UNSIGNED_BYTE, or the IMPLEMENTATION_COLOR_READ format), rows
	// bottom first, after all queued rendering. INVALID_ENUM for an unsupported
	// format or type; INVALID_VALUE for negative sizes; INVALID_OPERATION if
	// format and type do not match or dst is too small;
	// INVALID_FRAMEBUFFER_OPERATION if the framebuffer is incomplete.
	ReadPixels(dst []byte, x, y, width, height int, format, ty Enum)

	// ReleaseShaderCompiler hints that the shader compiler's resources may be
	// freed; it has no effect.
	ReleaseShaderCompiler()

	// RenderbufferStorage allocates the bound renderbuffer's storage (RGBA4,
	// RGB565, RGB5_A1, DEPTH_COMPONENT16, STENCIL_INDEX8 or
	// DEPTH24_STENCIL8_OES) of width×height. INVALID_ENUM for a bad target or
	// format; INVALID_VALUE if a size is negative or above
	// MAX_RENDERBUFFER_SIZE; INVALID_OPERATION if none is bound; OUT_OF_MEMORY
	// if GPU memory is exhausted.
	RenderbufferStorage(target, internalFormat Enum, width, height int)

	// SampleCoverage sets the coverage value and inversion used by
	// SAMPLE_COVERAGE.
	SampleCoverage(value float32, invert bool)

	// Scissor sets the scissor box that SCISSOR_TEST confines drawing and
	// clearing to. INVALID_VALUE if width or height < 0.
	Scissor(x, y, width, height int32)

	// ShaderSource replaces s's source (compiled by the next CompileShader).
	// INVALID_VALUE if s is not an object; INVALID_OPERATION if it is a program.
	ShaderSource(s Shader, src string)

	// StencilFunc sets the stencil test's function, reference value and mask for
	// front and back faces. INVALID_ENUM for a bad function.
	StencilFunc(fn Enum, ref int, mask uint32)

	// StencilFuncSeparate sets the stencil test for FRONT, BACK or
	// FRONT_AND_BACK faces. INVALID_ENUM for a bad face or function.
	StencilFuncSeparate(face, fn Enum, ref int, mask uint32)

	// StencilMask sets which stencil bits are written, for front and back faces.
	StencilMask(mask uint32)

	// StencilMaskSeparate sets which stencil bits are written for FRONT, BACK or
	// FRONT_AND_BACK faces. INVALID_ENUM for a bad face.
	StencilMaskSeparate(face Enum, mask uint32)

	// StencilOp sets the actions on stencil fail, depth fail and depth pass
	// (KEEP, ZERO, REPLACE, INCR, INCR_WRAP, DECR, DECR_WRAP, INVERT) for front
	// and back faces. INVALID_ENUM for a bad action.
	StencilOp(fail, zfail, zpass Enum)

	// StencilOpSeparate sets the stencil actions for FRONT, BACK or
	// FRONT_AND_BACK faces. INVALID_ENUM for a bad face or action.
	StencilOpSeparate(face, sfail, dpfail, dppass Enum)

	// TexImage2D specifies image level of the bound texture (a 2D texture or a
	// cube map face) from data, rows bottom first (nil: undefined contents).
	// Formats: ALPHA, LUMINANCE, LUMINANCE_ALPHA, RGB, RGBA with UNSIGNED_BYTE,
	// and the packed 16-bit types. INVALID_ENUM for a bad target, format or
	// type; INVALID_VALUE for a bad level, size (above MAX_TEXTURE_SIZE) or
	// internalFormat, or non-square cube faces; INVALID_OPERATION if format and
	// internalFormat differ, the type does not fit the format or data is too
	// short; OUT_OF_MEMORY if GPU memory is exhausted.
	TexImage2D(target Enum, level int, internalFormat int, width, height int, format Enum, ty Enum, data []byte)

	// TexSubImage2D replaces a rectangle of an existing texture image with data.
	// INVALID_ENUM for a bad target, format or type; INVALID_VALUE if the
	// rectangle is outside the image; INVALID_OPERATION if the level is
	// undefined, format does not match it or data is too short.
	TexSubImage2D(target Enum, level int, x, y, width, height int, format, ty Enum, data []byte)

	// TexParameterf sets a sampler parameter of the texture bound to target
	// (TEXTURE_MIN_FILTER, TEXTURE_MAG_FILTER, TEXTURE_WRAP_S, TEXTURE_WRAP_T).
	// INVALID_ENUM for a bad target, pname or value.
	TexParameterf(target, pname Enum, param float32)

	// TexParameterfv sets a sampler parameter from params[0] (see
	// TexParameterf).
	TexParameterfv(target, pname Enum, params []float32)

	// TexParameteri sets a sampler parameter (see TexParameterf).
	TexParameteri(target, pname Enum, param int)

	// TexParameteriv sets a sampler parameter from params[0] (see
	// TexParameterf).
	TexParameteriv(target, pname Enum, params []int32)

	// Uniform1f sets the float uniform at dst in the current program.
	// INVALID_OPERATION if no program is in use, dst is not its location, or the
	// uniform's type is not float (or bool); a location of -1 is ignored.
	Uniform1f(dst Uniform, v float32)

	// Uniform1fv sets len(src) consecutive float array elements from dst (see
	// Uniform1f; INVALID_OPERATION also when dst is not an array and len(src) >
	// 1).
	Uniform1fv(dst Uniform, src []float32)

	// Uniform1i sets the int, bool or sampler uniform at dst; a sampler takes a
	// texture unit number. INVALID_OPERATION as for Uniform1f, and INVALID_VALUE
	// for a sampler value outside the units.
	Uniform1i(dst Uniform, v int)

	// Uniform1iv sets consecutive int, bool or sampler array elements from dst
	// (see Uniform1i).
	Uniform1iv(dst Uniform, src []int32)

	// Uniform2f sets the vec2 (or bvec2) uniform at dst (see Uniform1f).
	Uniform2f(dst Uniform, v0, v1 float32)

	// Uniform2fv sets consecutive vec2 elements from src, two floats each (see
	// Uniform1fv).
	Uniform2fv(dst Uniform, src []float32)

	// Uniform2i sets the ivec2 (or bvec2) uniform at dst (see Uniform1f).
	Uniform2i(dst Uniform, v0, v1 int)

	// Uniform2iv sets consecutive ivec2 elements from src, two ints each (see
	// Uniform1fv).
	Uniform2iv(dst Uniform, src []int32)

	// Uniform3f sets the vec3 (or bvec3) uniform at dst (see Uniform1f).
	Uniform3f(dst Uniform, v0, v1, v2 float32)

	// Uniform3fv sets consecutive vec3 elements from src, three floats each (see
	// Uniform1fv).
	Uniform3fv(dst Uniform, src []float32)

	// Uniform3i sets the ivec3 (or bvec3) uniform at dst (see Uniform1f).
	Uniform3i(dst Uniform, v0, v1, v2 int32)

	// Uniform3iv sets consecutive ivec3 elements from src, three ints each (see
	// Uniform1fv).
	Uniform3iv(dst Uniform, src []int32)

	// Uniform4f sets the vec4 (or bvec4) uniform at dst (see Uniform1f).
	Uniform4f(dst Uniform, v0, v1, v2, v3 float32)

	// Uniform4fv sets consecutive vec4 elements from src, four floats each (see
	// Uniform1fv).
	Uniform4fv(dst Uniform, src []float32)

	// Uniform4i sets the ivec4 (or bvec4) uniform at dst (see Uniform1f).
	Uniform4i(dst Uniform, v0, v1, v2, v3 int32)

	// Uniform4iv sets consecutive ivec4 elements from src, four ints each (see
	// Uniform1fv).
	Uniform4iv(dst Uniform, src []int32)

	// UniformMatrix2fv sets consecutive mat2 elements from src, four floats each
	// in column-major order (see Uniform1fv).
	UniformMatrix2fv(dst Uniform, src []float32)

	// UniformMatrix3fv sets consecutive mat3 elements from src, nine floats each
	// in column-major order (see Uniform1fv).
	UniformMatrix3fv(dst Uniform, src []float32)

	// UniformMatrix4fv sets consecutive mat4 elements from src, sixteen floats
	// each in column-major order (see Uniform1fv).
	UniformMatrix4fv(dst Uniform, src []float32)

	// UseProgram makes p's executable current for drawing (zero: none).
	// INVALID_VALUE if p is not an object; INVALID_OPERATION if it is a shader
	// or not linked.
	UseProgram(p Program)

	// ValidateProgram checks whether p can run with the current state;
	// GetProgrami(p, VALIDATE_STATUS) and GetProgramInfoLog report why not (for
	// example two sampler types on one unit). INVALID_VALUE if p is not an
	// object; INVALID_OPERATION if it is a shader.
	ValidateProgram(p Program)

	// VertexAttrib1f sets attribute dst's current generic value to (x, 0, 0, 1),
	// used while its array is disabled. INVALID_VALUE if dst >=
	// MAX_VERTEX_ATTRIBS.
	VertexAttrib1f(dst Attrib, x float32)

	// VertexAttrib1fv sets attribute dst's generic value from src[0] (see
	// VertexAttrib1f).
	VertexAttrib1fv(dst Attrib, src []float32)

	// VertexAttrib2f sets attribute dst's generic value to (x, y, 0, 1) (see
	// VertexAttrib1f).
	VertexAttrib2f(dst Attrib, x, y float32)

	// VertexAttrib2fv sets attribute dst's generic value from src[0:2] (see
	// VertexAttrib1f).
	VertexAttrib2fv(dst Attrib, src []float32)

	// VertexAttrib3f sets attribute dst's generic value to (x, y, z, 1) (see
	// VertexAttrib1f).
	VertexAttrib3f(dst Attrib, x, y, z float32)

	// VertexAttrib3fv sets attribute dst's generic value from src[0:3] (see
	// VertexAttrib1f).
	VertexAttrib3fv(dst Attrib, src []float32)

	// VertexAttrib4f sets attribute dst's generic value to (x, y, z, w) (see
	// VertexAttrib1f).
	VertexAttrib4f(dst Attrib, x, y, z, w float32)

	// VertexAttrib4fv sets attribute dst's generic value from src[0:4] (see
	// VertexAttrib1f).
	VertexAttrib4fv(dst Attrib, src []float32)

	// VertexAttribPointer makes attribute dst read size (1..4) components of
	// type ty (BYTE, UNSIGNED_BYTE, SHORT, UNSIGNED_SHORT, FIXED, FLOAT;
	// normalized or not) per vertex from the buffer bound to ARRAY_BUFFER, at
	// byte offset, stride bytes apart (0: tightly packed). INVALID_VALUE if dst
	// >= MAX_VERTEX_ATTRIBS, size is not 1..4 or stride < 0; INVALID_ENUM for a
	// bad type.
	VertexAttribPointer(dst Attrib, size int, ty Enum, normalized bool, stride, offset int)

	// Viewport sets the viewport: normalized device coordinates map to the
	// window rectangle at (x, y) of width×height (clamped to MAX_VIEWPORT_DIMS).
	// INVALID_VALUE if width or height < 0.
	Viewport(x, y, width, height int)
}

// Float32Bytes packs v as little-endian IEEE 754 bytes, the layout
// BufferData, BufferSubData and TexImage2D take for FLOAT data on tilegpu
// (as on every little-endian GL).
func Float32Bytes(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// Uint16Bytes packs v as little-endian bytes: UNSIGNED_SHORT indices for
// DrawElements, or packed 16-bit texels (UNSIGNED_SHORT_5_6_5 and the like).
func Uint16Bytes(v ...uint16) []byte {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], x)
	}
	return b
}

// Uint32Bytes packs v as little-endian bytes: UNSIGNED_INT indices for
// DrawElements (OES_element_index_uint).
func Uint32Bytes(v ...uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}
