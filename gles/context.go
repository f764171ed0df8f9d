// Package gles is tilegpu's OpenGL ES 2.0 state tracker: it implements
// gl.Context (package github.com/tilegpu/tilegpu/gl, the method set of
// golang.org/x/mobile/gl without its cgo) on top of the pipe driver interface,
// the way Mesa's GL state tracker (main/ + state_tracker/) sits on Gallium.
//
// It carries the "GL" part of the architecture: GL objects (buffers,
// textures, shaders, programs, framebuffers, renderbuffers), the GL error
// rules of the ES 2.0 specification for the entry points it implements, and
// draw validation. At draw time it turns GL state into pipe constant state
// objects (cached by value, like Mesa's cso_context), set_* calls and a
// DrawInfo. Entry points it does not implement set GL_INVALID_OPERATION and
// are marked "not implemented" in their doc comments (stubs.go).
//
// Texture data of every GL format is converted to RGBA8 on upload (the only
// texture format of the TG hardware); sampler-view swizzles give RGB
// textures an alpha of one.
//
// Context loss (robust.go): applications use the gl.Context that GL()
// returns, which follows GL_KHR_robustness with LOSE_CONTEXT_ON_RESET —
// after a GPU reset caused by (or, with the no-replay fault policy,
// affecting) the context, or after Destroy, every call does nothing and
// GetError reports GL_CONTEXT_LOST; GetGraphicsResetStatus (the Robustness
// interface) says why.
//
// Concurrency: a Context must be used by one goroutine at a time, like a GL
// context that is current on one thread.
package gles

import (
	"errors"
	"fmt"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/pipe"
)

var _ gl.Context = (*Context)(nil)

// maxVertexAttribs is GL_MAX_VERTEX_ATTRIBS: the compiler's
// gl_MaxVertexAttribs, which Link enforces. New fails on a driver that
// supports fewer.
const maxVertexAttribs = glsl.MaxVertexAttribs

// DefaultFramebuffer is the window-system framebuffer (framebuffer 0).
type DefaultFramebuffer struct {
	Width, Height int
	Color         pipe.Resource // RGBA8, RGBX8 or RGB565 (the EGL config's format: formats.go)
	DepthStencil  pipe.Resource // Z24S8, may be nil
	// NoStencil: DepthStencil is a depth buffer only (an EGL config with
	// depth and no stencil). Its stencil bits are then no stencil buffer:
	// STENCIL_BITS is 0, the stencil test passes and nothing writes them.
	NoStencil bool
	// Samples is 4 for a multisampled surface (EGL_SAMPLES 4): rendered
	// with four samples per pixel, resolved into Color when stored; 0
	// otherwise.
	Samples int
}

// Context is a GL ES 2.0 context.
type Context struct {
	screen pipe.Screen
	pipe   pipe.Context
	args   stateArgs // see sendFramebufferState
	dfb    DefaultFramebuffer

	err gl.Enum // first error since the last GetError

	*objects  // names and objects, shared by the contexts of a share group (share.go)
	fbos      map[uint32]*framebuffer
	lastFence pipe.Fence

	arrayBuffer   *buffer
	elementBuffer *buffer
	activeUnit    int
	units         []textureUnit
	default2D     *texture // texture object 0 of each target
	defaultCube   *texture
	current       *program
	drawFB        *framebuffer // nil: the default framebuffer
	renderbuffer  *renderbuffer

	attribs [maxVertexAttribs]vertexAttrib
	ext     extState    // OES_vertex_array_object, ANGLE_instanced_arrays, OES_mapbuffer (vao.go, instanced.go)
	queries queryState  // EXT_occlusion_query_boolean (query.go)
	clipCtl clipControl // EXT_clip_control (clipcontrol.go)

	clearColor   [4]float32
	clearDepth   float32
	clearStencil int
	viewport     [4]int
	scissorBox   [4]int
	depthRange   [2]float32
	enables      map[gl.Enum]bool
	depthFunc    gl.Enum
	depthMask    bool
	blendEq      [2]gl.Enum // RGB, alpha
	blendFunc    [4]gl.Enum // src RGB, dst RGB, src alpha, dst alpha
	blendColor   [4]float32
	colorMask    [4]bool
	cullFace     gl.Enum
	frontFace    gl.Enum
	lineWidth    float32
	polyOffset   [2]float32 // factor, units
	stencil      [2]stencilFace
	unpackAlign  int
	packAlign    int
	hints        map[gl.Enum]gl.Enum
	extensions   string // GL_EXTENSIONS, computed on first use
	sampleCov    float32
	sampleInvert bool

	csos csoCache

	clearProg     *clearProgram
	orphans       []attachment // deleted images still attached to unbound framebuffers
	lastDriverErr error

	// Context loss (robust.go).
	disp          *dispatch
	lost          lostContext
	isLost        bool
	resetStatus   gl.Enum // GUILTY/INNOCENT/UNKNOWN_CONTEXT_RESET, or NO_ERROR
	resetReported bool    // GetGraphicsResetStatus returned resetStatus
	lostErr       error
	lostHasCause  bool // lostErr carries the driver's error
	destroyed     bool
	hadSurface    bool                // a default framebuffer was set (share.go)
	clipPrim      *pipe.PrimitiveMode // primitive of the draw being prepared (viewclip.go)
	native        nativeState         // state only the C ABI reaches (native.go)
}

type stencilFace struct {
	fn                 gl.Enum
	ref                int
	valueMask          uint32
	writeMask          uint32
	fail, zfail, zpass gl.Enum
}

type textureUnit struct {
	tex2D, cube *texture
}

type vertexAttrib struct {
	enabled    bool
	size       int
	typ        gl.Enum
	normalized bool
	stride     int
	offset     int
	buffer     *buffer
	current    [4]float32
	divisor    int // ANGLE_instanced_arrays: advance once per divisor instances (0: per vertex)
}

// New creates a context drawing through p into the default framebuffer dfb.
func New(p pipe.Context, dfb DefaultFramebuffer) (*Context, error) {
	if p == nil {
		return nil, errors.New("gles: New needs a pipe context")
	}
	if dfb.Color == nil || dfb.Width < 1 || dfb.Height < 1 {
		return nil, errors.New("gles: the default framebuffer needs a colour buffer and a size")
	}
	if n := p.Screen().GetParam(pipe.ParamMaxVertexAttribs); n < maxVertexAttribs {
		return nil, fmt.Errorf("gles: the driver supports %d vertex attributes, the shader compiler %d", n, maxVertexAttribs)
	}
	c := &Context{
		screen:  p.Screen(),
		pipe:    p,
		dfb:     dfb,
		objects: newObjects(),
		fbos:    map[uint32]*framebuffer{},
		enables: map[gl.Enum]bool{gl.DITHER: true},
		hints:   map[gl.Enum]gl.Enum{gl.GENERATE_MIPMAP_HINT: gl.DONT_CARE, gl.FRAGMENT_SHADER_DERIVATIVE_HINT_OES: gl.DONT_CARE},
	}
	c.hadSurface = true
	c.default2D, c.defaultCube = newTexture(0), newTexture(0)
	c.default2D.target, c.defaultCube.target = gl.TEXTURE_2D, gl.TEXTURE_CUBE_MAP
	c.units = make([]textureUnit, c.maxTextureUnits())
	for i := range c.units {
		c.units[i] = textureUnit{tex2D: c.default2D, cube: c.defaultCube}
	}
	c.viewport = [4]int{0, 0, dfb.Width, dfb.Height}
	c.scissorBox = c.viewport
	c.clearDepth = 1
	c.depthRange = [2]float32{0, 1}
	c.depthFunc = gl.LESS
	c.depthMask = true
	c.blendEq = [2]gl.Enum{gl.FUNC_ADD, gl.FUNC_ADD}
	c.blendFunc = [4]gl.Enum{gl.ONE, gl.ZERO, gl.ONE, gl.ZERO}
	c.colorMask = [4]bool{true, true, true, true}
	c.cullFace = gl.BACK
	c.frontFace = gl.CCW
	c.lineWidth = 1
	for i := range c.stencil {
		c.stencil[i] = stencilFace{fn: gl.ALWAYS, valueMask: 0xffffffff, writeMask: 0xffffffff, fail: gl.KEEP, zfail: gl.KEEP, zpass: gl.KEEP}
	}
	c.unpackAlign, c.packAlign = 4, 4
	c.sampleCov = 1
	for i := range c.attribs {
		c.attribs[i] = vertexAttrib{size: 4, typ: gl.FLOAT, current: [4]float32{0, 0, 0, 1}}
	}
	c.csos.init(p)
	c.disp = &dispatch{Context: c, c: c}
	return c, nil
}

// maxTextureUnits is the size of the texture unit table, which both
// stages share: GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS.
func (c *Context) maxTextureUnits() int {
	n := c.screen.GetParam(pipe.ParamMaxCombinedTextureUnits)
	if n < 8 {
		n = 8 // ES 2.0 minimum
	}
	return n
}

// Pipe returns the driver context the GL context draws through.
func (c *Context) Pipe() pipe.Context { return c.pipe }

// recordError keeps the first error until GetError reads it (ES 2.0 §2.5:
// further errors are not recorded while one is pending).
func (c *Context) recordError(e gl.Enum) {
	if c.err == gl.NO_ERROR {
		c.err = e
	}
}

// GetError returns and clears the pending error.
func (c *Context) GetError() gl.Enum {
	e := c.err
	c.err = gl.NO_ERROR
	return e
}

// genName returns a fresh object name. ES 2.0 shares nothing between object
// kinds except shaders and programs, so one counter serves all.
func (c *Context) genName() uint32 {
	n := c.nextName
	c.nextName++
	return n
}

// Flush submits queued rendering.
func (c *Context) Flush() {
	f, err := c.pipe.Flush()
	if err != nil {
		// The kernel refused or lost the work (a rejected job, a GPU fault
		// or reset); GL ES 2.0 has no better error than OUT_OF_MEMORY. A
		// reset also loses the context (robust.go).
		c.driverFailed(err, gl.OUT_OF_MEMORY)
	}
	if f != 0 {
		c.lastFence = f
	}
}

// Finish submits queued rendering and waits for it.
func (c *Context) Finish() {
	c.Flush()
	if c.lastFence != 0 {
		if err := c.pipe.FenceFinish(c.lastFence, finishTimeout); err != nil {
			c.driverFailed(err, gl.OUT_OF_MEMORY)
		}
	}
}

// Destroy releases the context's GL objects and the driver context.
// Afterwards every call through GL() records GL_CONTEXT_LOST and does
// nothing; calls on the Context itself fail in the driver
// (tg.ErrContextDestroyed) and record GL errors.
func (c *Context) Destroy() {
	if c.destroyed {
		return
	}
	c.destroyed = true
	c.releaseQueries()
	c.Finish()
	c.lose(c.resetStatus, fmt.Errorf("%w: the context was destroyed", ErrContextLost))
	for _, fb := range c.fbos {
		c.releaseZS(fb)
	}
	if c.objects.unref() { // the last context of its share group
		c.releaseShared()
	}
	c.default2D.release(c)
	c.defaultCube.release(c)
	for _, o := range c.orphans {
		if o.tex != nil {
			o.tex.release(c)
		}
		if o.rb != nil {
			o.rb.release(c)
		}
	}
	if c.clearProg != nil {
		c.clearProg.release(c)
	}
	c.pipe.Destroy()
}

// ---- fixed-function state ----

// isCap reports whether cap is an Enable/Disable capability of ES 2.0.
func isCap(cap gl.Enum) bool {
	switch cap {
	case gl.BLEND, gl.CULL_FACE, gl.DEPTH_TEST, gl.DITHER, gl.POLYGON_OFFSET_FILL,
		gl.SAMPLE_ALPHA_TO_COVERAGE, gl.SAMPLE_COVERAGE, gl.SCISSOR_TEST, gl.STENCIL_TEST:
		return true
	}
	return false
}

// Enable enables a capability.
func (c *Context) Enable(cap gl.Enum) {
	if !isCap(cap) {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	c.enables[cap] = true
}

// Disable disables a capability.
func (c *Context) Disable(cap gl.Enum) {
	if !isCap(cap) {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	c.enables[cap] = false
}

// IsEnabled reports a capability.
func (c *Context) IsEnabled(cap gl.Enum) bool {
	if !isCap(cap) {
		c.recordError(gl.INVALID_ENUM)
		return false
	}
	return c.enables[cap]
}

// ClearColor sets the colour clear value (clamped to [0,1]).
func (c *Context) ClearColor(r, g, b, a float32) {
	c.clearColor = [4]float32{clamp01(r), clamp01(g), clamp01(b), clamp01(a)}
}

// ClearDepthf sets the depth clear value (clamped to [0,1]).
func (c *Context) ClearDepthf(d float32) { c.clearDepth = clamp01(d) }

// ClearStencil sets the stencil clear value.
func (c *Context) ClearStencil(s int) { c.clearStencil = s }

// ColorMask sets the colour write mask.
func (c *Context) ColorMask(r, g, b, a bool) { c.colorMask = [4]bool{r, g, b, a} }

// DepthMask enables or disables depth writes.
func (c *Context) DepthMask(flag bool) { c.depthMask = flag }

func isCompareFunc(fn gl.Enum) bool {
	return fn >= gl.NEVER && fn <= gl.ALWAYS
}

// DepthFunc sets the depth comparison.
func (c *Context) DepthFunc(fn gl.Enum) {
	if !isCompareFunc(fn) {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	c.depthFunc = fn
}

// DepthRangef sets the depth range (clamped to [0,1]).
func (c *Context) DepthRangef(n, f float32) { c.depthRange = [2]float32{clamp01(n), clamp01(f)} }

// Viewport sets the viewport; negative sizes are GL_INVALID_VALUE.
func (c *Context) Viewport(x, y, width, height int) {
	if width < 0 || height < 0 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	maxDim := c.screen.GetParam(pipe.ParamMaxViewportSize)
	c.viewport = [4]int{x, y, min(width, maxDim), min(height, maxDim)}
}

// Scissor sets the scissor box; negative sizes are GL_INVALID_VALUE.
func (c *Context) Scissor(x, y, width, height int32) {
	if width < 0 || height < 0 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	c.scissorBox = [4]int{int(x), int(y), int(width), int(height)}
}

func isBlendEquation(e gl.Enum) bool {
	return e == gl.FUNC_ADD || e == gl.FUNC_SUBTRACT || e == gl.FUNC_REVERSE_SUBTRACT || e == minEXT || e == maxEXT
}

// BlendEquation sets both blend equations.
func (c *Context) BlendEquation(mode gl.Enum) { c.BlendEquationSeparate(mode, mode) }

// BlendEquationSeparate sets the RGB and alpha blend equations.
func (c *Context) BlendEquationSeparate(modeRGB, modeAlpha gl.Enum) {
	if !isBlendEquation(modeRGB) || !isBlendEquation(modeAlpha) {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	c.blendEq = [2]gl.Enum{modeRGB, modeAlpha}
}

// blendFactors maps GL blend factors to the hardware's.
var blendFactors = map[gl.Enum]pipe.BlendFactor{
	gl.ZERO: pipe.FactorZero, gl.ONE: pipe.FactorOne,
	gl.SRC_COLOR: pipe.FactorSrcColor, gl.ONE_MINUS_SRC_COLOR: pipe.FactorOneMinusSrcColor,
	gl.DST_COLOR: pipe.FactorDstColor, gl.ONE_MINUS_DST_COLOR: pipe.FactorOneMinusDstColor,
	gl.SRC_ALPHA: pipe.FactorSrcAlpha, gl.ONE_MINUS_SRC_ALPHA: pipe.FactorOneMinusSrcAlpha,
	gl.DST_ALPHA: pipe.FactorDstAlpha, gl.ONE_MINUS_DST_ALPHA: pipe.FactorOneMinusDstAlpha,
	gl.CONSTANT_COLOR: pipe.FactorConstantColor, gl.ONE_MINUS_CONSTANT_COLOR: pipe.FactorOneMinusConstantColor,
	gl.CONSTANT_ALPHA: pipe.FactorConstantAlpha, gl.ONE_MINUS_CONSTANT_ALPHA: pipe.FactorOneMinusConstantAlpha,
	gl.SRC_ALPHA_SATURATE: pipe.FactorSrcAlphaSaturate,
}

// BlendFunc sets the blend factors for RGB and alpha.
func (c *Context) BlendFunc(sfactor, dfactor gl.Enum) {
	c.BlendFuncSeparate(sfactor, dfactor, sfactor, dfactor)
}

// BlendFuncSeparate sets the four blend factors. SRC_ALPHA_SATURATE is a
// source factor only in ES 2.0.
func (c *Context) BlendFuncSeparate(sRGB, dRGB, sA, dA gl.Enum) {
	for i, f := range []gl.Enum{sRGB, dRGB, sA, dA} {
		if _, ok := blendFactors[f]; !ok || (f == gl.SRC_ALPHA_SATURATE && i%2 == 1) {
			c.recordError(gl.INVALID_ENUM)
			return
		}
	}
	c.blendFunc = [4]gl.Enum{sRGB, dRGB, sA, dA}
}

// BlendColor sets the constant blend colour (clamped to [0,1]).
func (c *Context) BlendColor(r, g, b, a float32) {
	c.blendColor = [4]float32{clamp01(r), clamp01(g), clamp01(b), clamp01(a)}
}

// CullFace selects the faces culled.
func (c *Context) CullFace(mode gl.Enum) {
	if mode != gl.FRONT && mode != gl.BACK && mode != gl.FRONT_AND_BACK {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	c.cullFace = mode
}

// FrontFace selects the winding of front faces.
func (c *Context) FrontFace(mode gl.Enum) {
	if mode != gl.CW && mode != gl.CCW {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	c.frontFace = mode
}

// LineWidth sets the line width; values ≤ 0 are GL_INVALID_VALUE.
func (c *Context) LineWidth(width float32) {
	if !(width > 0) {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	c.lineWidth = width
}

// PolygonOffset sets the depth offset factor and units.
func (c *Context) PolygonOffset(factor, units float32) { c.polyOffset = [2]float32{factor, units} }

// Hint records a hint: GENERATE_MIPMAP_HINT, and
// FRAGMENT_SHADER_DERIVATIVE_HINT_OES when GL_OES_standard_derivatives is
// exposed. Neither changes rendering (mipmaps are box filtered, derivatives
// are exact per quad).
func (c *Context) Hint(target, mode gl.Enum) {
	if mode != gl.FASTEST && mode != gl.NICEST && mode != gl.DONT_CARE {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	if target != gl.GENERATE_MIPMAP_HINT && !(target == gl.FRAGMENT_SHADER_DERIVATIVE_HINT_OES && c.hasExtension("GL_OES_standard_derivatives")) {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	c.hints[target] = mode
}

// SampleCoverage sets GL_SAMPLE_COVERAGE's value and inversion (used by
// multisampled framebuffers, hardware.md §5.2).
func (c *Context) SampleCoverage(value float32, invert bool) {
	c.sampleCov, c.sampleInvert = clamp01(value), invert
}

// PixelStorei sets PACK_ALIGNMENT or UNPACK_ALIGNMENT (1, 2, 4 or 8).
func (c *Context) PixelStorei(pname gl.Enum, param int32) {
	if param != 1 && param != 2 && param != 4 && param != 8 {
		if pname == gl.PACK_ALIGNMENT || pname == gl.UNPACK_ALIGNMENT {
			c.recordError(gl.INVALID_VALUE)
		} else {
			c.recordError(gl.INVALID_ENUM)
		}
		return
	}
	switch pname {
	case gl.PACK_ALIGNMENT:
		c.packAlign = int(param)
	case gl.UNPACK_ALIGNMENT:
		c.unpackAlign = int(param)
	default:
		c.recordError(gl.INVALID_ENUM)
	}
}

func isStencilOp(op gl.Enum) bool {
	switch op {
	case gl.KEEP, gl.ZERO, gl.REPLACE, gl.INCR, gl.DECR, gl.INVERT, gl.INCR_WRAP, gl.DECR_WRAP:
		return true
	}
	return false
}

// faces returns the stencil faces a face enum selects, or nil for a bad enum.
func faces(face gl.Enum) []int {
	switch face {
	case gl.FRONT:
		return []int{0}
	case gl.BACK:
		return []int{1}
	case gl.FRONT_AND_BACK:
		return []int{0, 1}
	}
	return nil
}

// StencilFunc sets the stencil test of both faces.
func (c *Context) StencilFunc(fn gl.Enum, ref int, mask uint32) {
	c.StencilFuncSeparate(gl.FRONT_AND_BACK, fn, ref, mask)
}

// StencilFuncSeparate sets the stencil test of the selected faces.
func (c *Context) StencilFuncSeparate(face, fn gl.Enum, ref int, mask uint32) {
	fs := faces(face)
	if fs == nil || !isCompareFunc(fn) {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	for _, i := range fs {
		c.stencil[i].fn, c.stencil[i].ref, c.stencil[i].valueMask = fn, ref, mask
	}
}

// StencilMask sets the stencil write mask of both faces.
func (c *Context) StencilMask(mask uint32) { c.StencilMaskSeparate(gl.FRONT_AND_BACK, mask) }

// StencilMaskSeparate sets the stencil write mask of the selected faces.
func (c *Context) StencilMaskSeparate(face gl.Enum, mask uint32) {
	fs := faces(face)
	if fs == nil {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	for _, i := range fs {
		c.stencil[i].writeMask = mask
	}
}

// StencilOp sets the stencil operations of both faces.
func (c *Context) StencilOp(fail, zfail, zpass gl.Enum) {
	c.StencilOpSeparate(gl.FRONT_AND_BACK, fail, zfail, zpass)
}

// StencilOpSeparate sets the stencil operations of the selected faces.
func (c *Context) StencilOpSeparate(face, sfail, dpfail, dppass gl.Enum) {
	fs := faces(face)
	if fs == nil || !isStencilOp(sfail) || !isStencilOp(dpfail) || !isStencilOp(dppass) {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	for _, i := range fs {
		c.stencil[i].fail, c.stencil[i].zfail, c.stencil[i].zpass = sfail, dpfail, dppass
	}
}

func clamp01(x float32) float32 {
	if x < 0 {
		return 0
	}
	if x > 1 {
		return 1
	}
	if x != x { // NaN
		return 0
	}
	return x
}
