package tg

import (
	"time"

	"github.com/tilegpu/tilegpu/pipe"
)

// dirty bits: which groups of hardware state changed since the current job
// last emitted them. A new job starts with every bit set.
type dirtyBits uint32

const (
	dirtyBlend dirtyBits = 1 << iota
	dirtyBlendColor
	dirtyDSA
	dirtyStencilRef
	dirtyRasterizer
	dirtyViewport
	dirtyScissor
	dirtyProgram
	dirtyVertexElements
	dirtyVertexBuffers
	dirtyUniforms
	dirtyTextures
	dirtyFramebuffer

	dirtyAll dirtyBits = 1<<iota - 1
	// dirtyShaderState are the groups that make a new GL_SHADER_STATE.
	dirtyShaderState = dirtyProgram | dirtyVertexElements | dirtyVertexBuffers | dirtyUniforms | dirtyTextures
)

// CSO types.
type blendState struct {
	pipe.BlendCSO
	s pipe.BlendState
}

type dsaState struct {
	pipe.DepthStencilCSO
	s pipe.DepthStencilAlphaState
}

type rasterizerState struct {
	pipe.RasterizerCSO
	s pipe.RasterizerState
}

type samplerState struct {
	pipe.SamplerCSO
	s pipe.SamplerState
}

type vertexElements struct {
	pipe.VertexElementsCSO
	elems []pipe.VertexElement
}

type samplerView struct {
	pipe.SamplerViewCSO
	res *Resource
	t   pipe.SamplerViewTemplate
}

// Context is the TG driver's pipe.Context. It is used by one goroutine at a time.
type Context struct {
	screen *Screen

	blend    *blendState
	dsa      *dsaState
	rast     *rasterizerState
	samplers []*samplerState
	views    []*samplerView
	ve       *vertexElements
	prog     *program

	fb         pipe.FramebufferState
	viewport   pipe.ViewportState
	scissor    pipe.ScissorState
	blendColor [4]float32
	stencilRef [2]uint8
	storage    []uint32
	// storageGen counts storage changes (a variant's pre-shader outputs
	// are current for one context and generation); preShaderRuns counts
	// pre-shader evaluations (tests).
	storageGen    uint64
	preShaderRuns int
	vbs           []pipe.VertexBuffer

	dirty          dirtyBits
	lastBaseVertex int
	lastVariant    *Variant

	jobs      map[jobKey]*job
	jobSeq    int // creation counter of jobs, for submission order
	cur       *job
	writeJobs map[*Resource]*job
	lastFence uint64

	activeQuery *Query // the occlusion query counting draws, if any

	defaults struct {
		blend *blendState
		dsa   *dsaState
		rast  *rasterizerState
	}
	blackTexture *Resource // sampled for units with no complete texture

	stats ContextStats

	destroyed bool // Destroy ran: every call that would reach the kernel fails

	// unchecked are the fences of submitted jobs whose outcome nobody has
	// seen yet, oldest first; FenceFinish reports the first failure among
	// them, so a failed job is never hidden by a later one that succeeded.
	unchecked []uint64
	asyncErr  error // a failure found while pruning unchecked, for the next FenceFinish

	// scratch reused by every draw (no allocation per draw)
	attrScratch []attribute
	descScratch map[uint32]uint32
}

// ContextStats count what the context did, for tests and profiling.
type ContextStats struct {
	Draws, JobsSubmitted, JobsDropped, Flushes int
}

var _ pipe.Context = (*Context)(nil)

func newContext(s *Screen) *Context {
	c := &Context{screen: s, jobs: map[jobKey]*job{}, writeJobs: map[*Resource]*job{}, dirty: dirtyAll}
	c.defaults.blend = &blendState{s: pipe.BlendState{SrcRGB: pipe.FactorOne, SrcAlpha: pipe.FactorOne, ColorMask: [4]bool{true, true, true, true}}}
	c.defaults.dsa = &dsaState{s: pipe.DepthStencilAlphaState{DepthFunc: pipe.FuncLess, Stencil: [2]pipe.StencilState{
		{Func: pipe.FuncAlways, ValueMask: 0xff, WriteMask: 0xff}, {Func: pipe.FuncAlways, ValueMask: 0xff, WriteMask: 0xff}}}}
	c.defaults.rast = &rasterizerState{s: pipe.RasterizerState{FrontCCW: true, LineWidth: 1}}
	c.blend, c.dsa, c.rast = c.defaults.blend, c.defaults.dsa, c.defaults.rast
	return c
}

// Screen implements pipe.Context.
func (c *Context) Screen() pipe.Screen { return c.screen }

// Stats returns the context's counters.
func (c *Context) Stats() ContextStats { return c.stats }

// CreateBlendState implements pipe.Context.
func (c *Context) CreateBlendState(s *pipe.BlendState) pipe.BlendHandle {
	return &blendState{s: *s}
}

// BindBlendState implements pipe.Context; nil binds the default.
func (c *Context) BindBlendState(h pipe.BlendHandle) {
	b, _ := h.(*blendState)
	if b == nil {
		b = c.defaults.blend
	}
	if b != c.blend {
		c.blend = b
		c.dirty |= dirtyBlend
	}
}

// DeleteBlendState implements pipe.Context.
func (c *Context) DeleteBlendState(h pipe.BlendHandle) {
	if b, _ := h.(*blendState); b == c.blend {
		c.blend = c.defaults.blend
		c.dirty |= dirtyBlend
	}
}

// CreateDepthStencilAlphaState implements pipe.Context.
func (c *Context) CreateDepthStencilAlphaState(s *pipe.DepthStencilAlphaState) pipe.DepthStencilHandle {
	return &dsaState{s: *s}
}

// BindDepthStencilAlphaState implements pipe.Context; nil binds the default.
func (c *Context) BindDepthStencilAlphaState(h pipe.DepthStencilHandle) {
	d, _ := h.(*dsaState)
	if d == nil {
		d = c.defaults.dsa
	}
	if d != c.dsa {
		c.dsa = d
		c.dirty |= dirtyDSA
	}
}

// DeleteDepthStencilAlphaState implements pipe.Context.
func (c *Context) DeleteDepthStencilAlphaState(h pipe.DepthStencilHandle) {
	if d, _ := h.(*dsaState); d == c.dsa {
		c.dsa = c.defaults.dsa
		c.dirty |= dirtyDSA
	}
}

// CreateRasterizerState implements pipe.Context.
func (c *Context) CreateRasterizerState(s *pipe.RasterizerState) pipe.RasterizerHandle {
	return &rasterizerState{s: *s}
}

// BindRasterizerState implements pipe.Context; nil binds the default.
func (c *Context) BindRasterizerState(h pipe.RasterizerHandle) {
	r, _ := h.(*rasterizerState)
	if r == nil {
		r = c.defaults.rast
	}
	if r != c.rast {
		// The scissor enable lives in the rasterizer; CLIP_WINDOW follows it.
		if r.s.ScissorEnable != c.rast.s.ScissorEnable {
			c.dirty |= dirtyScissor
		}
		c.rast = r
		c.dirty |= dirtyRasterizer
	}
}

// DeleteRasterizerState implements pipe.Context.
func (c *Context) DeleteRasterizerState(h pipe.RasterizerHandle) {
	if r, _ := h.(*rasterizerState); r == c.rast {
		c.BindRasterizerState(nil)
	}
}

// CreateSamplerState implements pipe.Context.
func (c *Context) CreateSamplerState(s *pipe.SamplerState) pipe.SamplerHandle {
	return &samplerState{s: *s}
}

// BindSamplerStates implements pipe.Context.
func (c *Context) BindSamplerStates(states []pipe.SamplerHandle) {
	n := min(len(states), maxTextureUnits)
	if len(c.samplers) != n {
		c.samplers = make([]*samplerState, n)
		c.dirty |= dirtyTextures
	}
	for i := 0; i < n; i++ {
		s, _ := states[i].(*samplerState)
		if c.samplers[i] != s {
			c.samplers[i] = s
			c.dirty |= dirtyTextures
		}
	}
}

// DeleteSamplerState implements pipe.Context.
func (c *Context) DeleteSamplerState(h pipe.SamplerHandle) {
	for i, s := range c.samplers {
		if pipe.SamplerHandle(s) == h {
			c.samplers[i] = nil
			c.dirty |= dirtyTextures
		}
	}
}

// CreateVertexElementsState implements pipe.Context.
func (c *Context) CreateVertexElementsState(elems []pipe.VertexElement) pipe.VertexElementsHandle {
	return &vertexElements{elems: append([]pipe.VertexElement(nil), elems...)}
}

// BindVertexElementsState implements pipe.Context.
func (c *Context) BindVertexElementsState(h pipe.VertexElementsHandle) {
	v, _ := h.(*vertexElements)
	if v != c.ve {
		c.ve = v
		c.dirty |= dirtyVertexElements
	}
}

// DeleteVertexElementsState implements pipe.Context.
func (c *Context) DeleteVertexElementsState(h pipe.VertexElementsHandle) {
	if v, _ := h.(*vertexElements); v == c.ve {
		c.ve = nil
		c.dirty |= dirtyVertexElements
	}
}

// CreateSamplerView implements pipe.Context.
func (c *Context) CreateSamplerView(pr pipe.Resource, t pipe.SamplerViewTemplate) pipe.SamplerView {
	r, _ := pr.(*Resource)
	if t.Levels < 1 {
		t.Levels = 1
	}
	if r != nil && t.Levels > r.tmpl.Levels {
		t.Levels = r.tmpl.Levels
	}
	return &samplerView{res: r, t: t}
}

// SetSamplerViews implements pipe.Context.
func (c *Context) SetSamplerViews(views []pipe.SamplerView) {
	n := min(len(views), maxTextureUnits)
	if len(c.views) != n {
		c.views = make([]*samplerView, n)
		c.dirty |= dirtyTextures
	}
	for i := 0; i < n; i++ {
		v, _ := views[i].(*samplerView)
		if c.views[i] != v {
			c.views[i] = v
			c.dirty |= dirtyTextures
		}
	}
}

// DeleteSamplerView implements pipe.Context.
func (c *Context) DeleteSamplerView(v pipe.SamplerView) {
	for i, x := range c.views {
		if pipe.SamplerView(x) == v {
			c.views[i] = nil
			c.dirty |= dirtyTextures
		}
	}
}

// SetFramebufferState implements pipe.Context. Changing the framebuffer
// switches to the job of the new framebuffer; the old job stays queued.
func (c *Context) SetFramebufferState(fb *pipe.FramebufferState) {
	if *fb == c.fb {
		return
	}
	c.fb = *fb
	c.cur = nil
	c.dirty = dirtyAll
}

// SetViewportState implements pipe.Context.
func (c *Context) SetViewportState(v *pipe.ViewportState) {
	if *v != c.viewport {
		c.viewport = *v
		c.dirty |= dirtyViewport
	}
}

// SetScissorState implements pipe.Context.
func (c *Context) SetScissorState(s *pipe.ScissorState) {
	if *s != c.scissor {
		c.scissor = *s
		c.dirty |= dirtyScissor
	}
}

// SetBlendColor implements pipe.Context.
func (c *Context) SetBlendColor(col [4]float32) {
	if col != c.blendColor {
		c.blendColor = col
		c.dirty |= dirtyBlendColor
	}
}

// SetStencilRef implements pipe.Context.
func (c *Context) SetStencilRef(front, back uint8) {
	if c.stencilRef != [2]uint8{front, back} {
		c.stencilRef = [2]uint8{front, back}
		c.dirty |= dirtyStencilRef
	}
}

// SetUniformStorage implements pipe.Context.
func (c *Context) SetUniformStorage(slots []uint32) {
	if len(slots) == len(c.storage) {
		same := true
		for i := range slots {
			if slots[i] != c.storage[i] {
				same = false
				break
			}
		}
		if same {
			return
		}
	}
	c.storage = append(c.storage[:0], slots...)
	c.storageGen++
	c.dirty |= dirtyUniforms
}

// SetVertexBuffers implements pipe.Context.
func (c *Context) SetVertexBuffers(vbs []pipe.VertexBuffer) {
	if len(vbs) == len(c.vbs) {
		same := true
		for i := range vbs {
			if vbs[i] != c.vbs[i] {
				same = false
				break
			}
		}
		if same {
			return
		}
	}
	c.vbs = append(c.vbs[:0], vbs...)
	c.dirty |= dirtyVertexBuffers
}

// Flush implements pipe.Context: every queued job is submitted.
func (c *Context) Flush() (pipe.Fence, error) {
	if c.destroyed {
		return 0, ErrContextDestroyed
	}
	c.stats.Flushes++
	var firstErr error
	for _, j := range c.jobList() {
		if err := c.flushJob(j); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return pipe.Fence(c.lastFence), firstErr
}

// FenceFinish implements pipe.Context.
func (c *Context) FenceFinish(f pipe.Fence, timeout time.Duration) error {
	if f == 0 {
		return nil
	}
	if c.destroyed {
		return ErrContextDestroyed
	}
	return c.finishFences(uint64(f), timeout)
}

// Destroy implements pipe.Context: queued work is submitted and waited for.
func (c *Context) Destroy() {
	if c.destroyed {
		return
	}
	f, _ := c.Flush()
	_ = c.FenceFinish(f, 10*time.Second)
	c.destroyed = true
	if c.blackTexture != nil {
		c.screen.ResourceDestroy(c.blackTexture)
		c.blackTexture = nil
	}
}
