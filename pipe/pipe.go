// Package pipe is the Gallium-style driver interface of tilegpu: the contract
// between the GL state tracker (package gles) and a user-mode driver (package
// driver/tg).
//
// It carries the "User-mode driver" layer of the architecture: a Screen owns
// resources and creates contexts; a Context takes constant state objects
// (CSOs: created once, bound many times, deleted), set_* calls for the small
// pieces of state that change often, draws described by DrawInfo, clears,
// transfers (resource write/read) and flushes. Everything here is plain data;
// the driver decides how state becomes control-list records.
//
// Enumerations deliberately use the hardware's numbering (GL order, see
// docs/hardware.md §4.1), so a driver can pass them through unchanged.
//
// Concurrency: a Screen is safe for concurrent use; a Context and the
// objects created from it belong to one goroutine at a time, like a GL
// context.
package pipe

import (
	"errors"
	"time"
)

// ErrPartialClear is returned by Context.Clear when the driver cannot clear
// the requested part of the buffers with its whole-surface clear (scissored
// or masked clears, half of a depth/stencil surface). The state tracker then
// draws a quad instead, as Mesa's st_Clear does.
var ErrPartialClear = errors.New("pipe: clear needs a quad draw")

// Param names a screen capability queried with Screen.GetParam.
type Param int

const (
	ParamMaxTextureSize            Param = iota // largest texture width/height
	ParamMaxTextureUnits                        // texture image units available to the fragment stage
	ParamMaxVertexAttribs                       // generic vertex attributes
	ParamMaxViewportSize                        // largest framebuffer width/height
	ParamMaxVertexUniformVectors                // vec4 uniform rows of the vertex stage
	ParamMaxVaryingVectors                      // vec4 varyings
	ParamMaxRenderbufferSize                    // largest renderbuffer width/height
	ParamNumCores                               // render worker cores of the GPU
	ParamQPUInstructions                        // QPU instructions executed so far (performance counter)
	ParamTriangles                              // triangles after culling (performance counter)
	ParamFragments                              // fragments shaded (performance counter)
	ParamVertices                               // vertices shaded (performance counter)
	ParamTiles                                  // tiles rendered (performance counter)
	ParamMaxFragmentUniformVectors              // vec4 uniform rows of the fragment stage
	ParamMaxVertexTextureUnits                  // texture image units available to the vertex stage
	ParamMaxCombinedTextureUnits                // texture image units of both stages together (the unit table)
)

// Format is the memory layout of one texel or pixel of a resource.
type Format int

const (
	FormatNone  Format = iota
	FormatRGBA8        // 4 bytes: R, G, B, A (byte 0 = R)
	FormatZ24S8        // little-endian u32: depth in bits 0..23, stencil in bits 24..31
	// Formats of issue 8 (format.go): packed 16-bit colour in GL's
	// UNSIGNED_SHORT_* layouts (little-endian u16, R in the top bits),
	// RGBA8 without alpha, and half-float RGBA (sampled only).
	FormatRGB565  // u16: R 15..11, G 10..5, B 4..0
	FormatRGBA4   // u16: R 15..12, G 11..8, B 7..4, A 3..0
	FormatRGB5A1  // u16: R 15..11, G 10..6, B 5..1, A 0
	FormatRGBX8   // FormatRGBA8's layout; alpha is not stored (reads 1)
	FormatRGBA16F // 4 × IEEE binary16: R, G, B, A
)

// BytesPerPixel is the size of one element of the format; 0 for FormatNone.
func (f Format) BytesPerPixel() int {
	switch f {
	case FormatRGBA8, FormatZ24S8, FormatRGBX8:
		return 4
	case FormatRGB565, FormatRGBA4, FormatRGB5A1:
		return 2
	case FormatRGBA16F:
		return 8
	}
	return 0
}

// Target is the kind of a resource.
type Target int

const (
	TargetBuffer       Target = iota // untyped bytes: vertex, index data
	TargetTexture2D                  // 2D texture with a mip chain
	TargetTextureCube                // six 2D faces (+X −X +Y −Y +Z −Z), each a mip chain
	TargetRenderbuffer               // single-level 2D surface used only for rendering
)

// BindFlags say how a resource will be used; drivers may pick layouts from them.
type BindFlags uint32

const (
	BindVertexBuffer BindFlags = 1 << iota
	BindIndexBuffer
	BindSamplerView
	BindRenderTarget
	BindDepthStencil
)

// ResourceTemplate describes a resource to create.
type ResourceTemplate struct {
	Target Target
	Format Format    // FormatNone for buffers
	Width  int       // bytes for buffers, pixels otherwise
	Height int       // 1 for buffers
	Levels int       // mip levels (≥ 1); 1 for buffers and renderbuffers
	Bind   BindFlags // intended uses
	// Samples is 4 for the depth/stencil renderbuffer of a multisampled
	// framebuffer: the driver keeps every sample, so a frame split
	// between jobs keeps per-sample depth and stencil; CPU reads see
	// sample 0 and CPU writes set all four. 0 or 1 otherwise.
	Samples int
}

// Resource is memory owned by the driver: a buffer, a texture or a
// renderbuffer. Drivers implement it with their own types.
type Resource interface {
	// Template is the description the resource was created from.
	Template() ResourceTemplate
}

// ShaderStage names a programmable stage.
type ShaderStage int

const (
	StageVertex ShaderStage = iota
	StageFragment
)

// CompiledShader is the result of compiling one shader's source.
type CompiledShader interface {
	Stage() ShaderStage
	OK() bool
	Log() string
}

// ActiveVariable is one active attribute or uniform of a linked program, as
// glGetActiveAttrib/glGetActiveUniform report it.
type ActiveVariable struct {
	Name     string // uniform arrays are named "a[0]"
	Type     uint32 // GL type enum (GL_FLOAT_VEC4, GL_SAMPLER_2D, ...)
	Size     int    // array length, 1 for non-arrays
	Location int    // GL location (of element 0 for arrays)
	Storage  int    // uniforms: u32 slot index of element 0 in the uniform storage block
	Stride   int    // uniforms: slots between array elements (0: the type's component count)
}

// LinkedProgram is the result of linking a vertex and a fragment shader.
type LinkedProgram interface {
	OK() bool
	Log() string
	Attributes() []ActiveVariable
	Uniforms() []ActiveVariable
	// StorageSize is the number of u32 slots of the program's uniform storage
	// block. A uniform of Type T occupies consecutive slots from its Storage
	// index: one per scalar component, matrices column by column, array
	// elements one after another; samplers hold their texture unit number.
	StorageSize() int
}

// Screen is the driver's device-level object.
type Screen interface {
	GetParam(p Param) int
	ResourceCreate(t ResourceTemplate) (Resource, error)
	ResourceDestroy(r Resource)
	ContextCreate() (Context, error)
	// CompileShader runs the compiler's front end; the result is immutable.
	CompileShader(stage ShaderStage, source string) CompiledShader
	// LinkProgram links two compiled shaders; bindings are the
	// glBindAttribLocation requests.
	LinkProgram(vs, fs CompiledShader, bindings map[string]int) LinkedProgram
	Destroy()
}

// ResetStatus says whether and why a context was lost (Gallium's
// pipe_reset_status).
type ResetStatus int

const (
	NoReset              ResetStatus = iota
	GuiltyContextReset               // the context's own work faulted or hung the GPU
	InnocentContextReset             // another context's reset took this one's work
	UnknownContextReset              // lost, cause unknown
)

// Fence identifies submitted work; 0 means "nothing submitted".
type Fence uint64

// ClearMask selects the buffers a Clear writes.
type ClearMask uint32

const (
	ClearColor ClearMask = 1 << iota
	ClearDepth
	ClearStencil
)

// CSO handles. Each is created by the Context that binds it.
type (
	BlendHandle          interface{ isBlend() }
	DepthStencilHandle   interface{ isDepthStencil() }
	RasterizerHandle     interface{ isRasterizer() }
	SamplerHandle        interface{ isSampler() }
	VertexElementsHandle interface{ isVertexElements() }
	ProgramHandle        interface{ isProgram() }
	SamplerView          interface{ isSamplerView() }
)

// CSO handle embedding helpers: drivers embed these in their CSO types so
// they satisfy the handle interfaces above.
type (
	BlendCSO          struct{}
	DepthStencilCSO   struct{}
	RasterizerCSO     struct{}
	SamplerCSO        struct{}
	VertexElementsCSO struct{}
	ProgramCSO        struct{}
	SamplerViewCSO    struct{}
)

func (BlendCSO) isBlend()                   {}
func (DepthStencilCSO) isDepthStencil()     {}
func (RasterizerCSO) isRasterizer()         {}
func (SamplerCSO) isSampler()               {}
func (VertexElementsCSO) isVertexElements() {}
func (ProgramCSO) isProgram()               {}
func (SamplerViewCSO) isSamplerView()       {}

// Context is one rendering context of a Screen.
type Context interface {
	Screen() Screen

	CreateBlendState(s *BlendState) BlendHandle
	BindBlendState(h BlendHandle)
	DeleteBlendState(h BlendHandle)

	CreateDepthStencilAlphaState(s *DepthStencilAlphaState) DepthStencilHandle
	BindDepthStencilAlphaState(h DepthStencilHandle)
	DeleteDepthStencilAlphaState(h DepthStencilHandle)

	CreateRasterizerState(s *RasterizerState) RasterizerHandle
	BindRasterizerState(h RasterizerHandle)
	DeleteRasterizerState(h RasterizerHandle)

	CreateSamplerState(s *SamplerState) SamplerHandle
	// BindSamplerStates binds samplers to texture units 0..len-1; a nil entry unbinds.
	BindSamplerStates(states []SamplerHandle)
	DeleteSamplerState(h SamplerHandle)

	CreateVertexElementsState(elems []VertexElement) VertexElementsHandle
	BindVertexElementsState(h VertexElementsHandle)
	DeleteVertexElementsState(h VertexElementsHandle)

	// CreateProgramState wraps a successfully linked program.
	CreateProgramState(p LinkedProgram) (ProgramHandle, error)
	BindProgramState(h ProgramHandle)
	DeleteProgramState(h ProgramHandle)

	CreateSamplerView(r Resource, t SamplerViewTemplate) SamplerView
	// SetSamplerViews binds views to texture units 0..len-1; a nil entry
	// means an incomplete texture, which samples as (0, 0, 0, 1).
	SetSamplerViews(views []SamplerView)
	DeleteSamplerView(v SamplerView)

	// The Set…State calls and Draw copy what their pointer arguments hold
	// before returning and keep no pointer to them: the state tracker
	// passes the same storage for every draw (no allocation per draw).
	SetFramebufferState(fb *FramebufferState)
	SetViewportState(v *ViewportState)
	SetScissorState(s *ScissorState)
	SetBlendColor(c [4]float32)
	SetStencilRef(front, back uint8)
	// SetUniformStorage sets the bound program's uniform storage block; the
	// driver copies it.
	SetUniformStorage(slots []uint32)
	// SetVertexBuffers binds buffers to vertex buffer slots 0..len-1.
	SetVertexBuffers(vbs []VertexBuffer)

	Draw(info *DrawInfo) error
	// Clear writes the selected buffers of the bound framebuffer inside the
	// scissor rectangle when the rasterizer has ScissorEnable; the colour
	// mask of the bound blend state and the stencil write mask of the bound
	// depth-stencil state apply.
	Clear(buffers ClearMask, color [4]float32, depth float32, stencil uint8) error
	// Flush submits all queued work and returns a fence for it.
	Flush() (Fence, error)
	// FenceFinish waits until the fence has signalled or the timeout passes.
	FenceFinish(f Fence, timeout time.Duration) error
	// GetDeviceResetStatus reports whether the device lost this context
	// (Gallium's get_device_reset_status): after a reset that was not
	// NoReset, the context's work is discarded and it cannot be used again.
	GetDeviceResetStatus() ResetStatus

	// BufferWrite copies data into a buffer at offset (buffer_subdata).
	BufferWrite(r Resource, offset int, data []byte) error
	// TextureWrite copies tightly packed pixels of the resource's format into
	// a rectangle of one face and mip level (texture_subdata). Row 0 of data
	// is row y of the level.
	TextureWrite(r Resource, face, level, x, y, w, h int, data []byte) error
	// ResourceRead copies a rectangle of one level back, waiting for every
	// job that writes the resource; rows are tightly packed, row y first.
	ResourceRead(r Resource, face, level, x, y, w, h int, dst []byte) error
	// GenerateMipmap fills levels 1.. of a texture face from level 0 with a
	// 2×2 box filter.
	GenerateMipmap(r Resource, face int) error

	Destroy()
}

// QueryKind says what a query counts.
type QueryKind int

const (
	// QueryOcclusionCounter counts the samples that pass the stencil and
	// depth tests between BeginQuery and EndQuery (Gallium's
	// PIPE_QUERY_OCCLUSION_COUNTER).
	QueryOcclusionCounter QueryKind = iota
)

// Query is a query object of a QueryContext (Gallium's pipe_query).
type Query interface {
	Kind() QueryKind
}

// QueryContext is implemented by contexts with hardware queries
// (Gallium's create_query, begin_query, end_query, get_query_result).
// At most one query of a kind is active at a time.
type QueryContext interface {
	CreateQuery(kind QueryKind) (Query, error)
	// BeginQuery starts counting from zero for the draws that follow.
	BeginQuery(q Query) error
	// EndQuery stops counting; the draws in between may still be queued.
	EndQuery(q Query) error
	// QueryResult returns the count of the last Begin/End range once the
	// GPU has finished that work. With wait false it does not block:
	// ready is false while the work is outstanding (the queued work is
	// submitted, so it finishes eventually).
	QueryResult(q Query, wait bool) (value uint64, ready bool, err error)
	DestroyQuery(q Query)
}
