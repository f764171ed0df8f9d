package gles

import (
	"fmt"
	"math"

	"github.com/tilegpu/tilegpu/gl"

	"github.com/tilegpu/tilegpu/pipe"
)

// csoCache creates each distinct state object once and keeps it, like
// Mesa's cso_context: GL state is compared by value at draw time and only
// a changed value costs a driver call.
type csoCache struct {
	p        pipe.Context
	blend    map[pipe.BlendState]pipe.BlendHandle
	dsa      map[pipe.DepthStencilAlphaState]pipe.DepthStencilHandle
	rast     map[pipe.RasterizerState]pipe.RasterizerHandle
	sampler  map[pipe.SamplerState]pipe.SamplerHandle
	ve       pipe.VertexElementsHandle
	veState  []pipe.VertexElement
	samplers []pipe.SamplerHandle
	views    []pipe.SamplerView
	vbs      []pipe.VertexBuffer
}

// csoCacheLimit bounds each map; an application cycling through more
// distinct states than this gets its cache reset rather than unbounded growth.
const csoCacheLimit = 256

func (cc *csoCache) init(p pipe.Context) {
	cc.p = p
	cc.blend = map[pipe.BlendState]pipe.BlendHandle{}
	cc.dsa = map[pipe.DepthStencilAlphaState]pipe.DepthStencilHandle{}
	cc.rast = map[pipe.RasterizerState]pipe.RasterizerHandle{}
	cc.sampler = map[pipe.SamplerState]pipe.SamplerHandle{}
}

// cached returns the state object for s, creating it on first use. A map
// that reaches csoCacheLimit starts afresh (objects still bound stay valid:
// the driver holds them).
func cached[S comparable, H any](m *map[S]H, s S, create func(*S) H) H {
	h, ok := (*m)[s]
	if !ok {
		if len(*m) >= csoCacheLimit {
			*m = map[S]H{}
		}
		// A copy made only on a miss: taking s's address for create
		// would move s to the heap on every call, hit or not.
		k := s
		h = create(&k)
		(*m)[s] = h
	}
	return h
}

func (cc *csoCache) bindBlend(s pipe.BlendState) {
	cc.p.BindBlendState(cached(&cc.blend, s, cc.p.CreateBlendState))
}

func (cc *csoCache) bindDSA(s pipe.DepthStencilAlphaState) {
	cc.p.BindDepthStencilAlphaState(cached(&cc.dsa, s, cc.p.CreateDepthStencilAlphaState))
}

func (cc *csoCache) bindRasterizer(s pipe.RasterizerState) {
	cc.p.BindRasterizerState(cached(&cc.rast, s, cc.p.CreateRasterizerState))
}

func (cc *csoCache) samplerHandle(s pipe.SamplerState) pipe.SamplerHandle {
	return cached(&cc.sampler, s, cc.p.CreateSamplerState)
}

func (cc *csoCache) bindVertexElements(elems []pipe.VertexElement) {
	if cc.ve != nil && len(elems) == len(cc.veState) {
		same := true
		for i := range elems {
			if elems[i] != cc.veState[i] {
				same = false
				break
			}
		}
		if same {
			return
		}
	}
	if cc.ve != nil {
		cc.p.DeleteVertexElementsState(cc.ve)
	}
	cc.veState = append(cc.veState[:0], elems...)
	cc.ve = cc.p.CreateVertexElementsState(cc.veState)
	cc.p.BindVertexElementsState(cc.ve)
}

// ---- vertex attributes ----

// EnableVertexAttribArray makes attribute a read from its array.
func (c *Context) EnableVertexAttribArray(a gl.Attrib) {
	if int(a.Value) >= maxVertexAttribs {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	c.attribs[a.Value].enabled = true
}

// DisableVertexAttribArray makes attribute a read its current value.
func (c *Context) DisableVertexAttribArray(a gl.Attrib) {
	if int(a.Value) >= maxVertexAttribs {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	c.attribs[a.Value].enabled = false
}

var vertexTypes = map[gl.Enum]pipe.VertexType{
	gl.FLOAT: pipe.VertexFloat, gl.BYTE: pipe.VertexByte, gl.UNSIGNED_BYTE: pipe.VertexUnsignedByte,
	gl.SHORT: pipe.VertexShort, gl.UNSIGNED_SHORT: pipe.VertexUnsignedShort, gl.FIXED: pipe.VertexFixed,
}

// VertexAttribPointer points attribute dst at the bound ARRAY_BUFFER.
// Client-side arrays (no buffer bound) cannot be expressed through this
// API's integer offset; they are recorded and draws using them fail with
// GL_INVALID_OPERATION.
func (c *Context) VertexAttribPointer(dst gl.Attrib, size int, ty gl.Enum, normalized bool, stride, offset int) {
	if int(dst.Value) >= maxVertexAttribs || size < 1 || size > 4 || stride < 0 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	if _, ok := vertexTypes[ty]; !ok {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	// The attribute record's stride is 16 bits: larger strides cannot be
	// expressed (ES 2.0 sets no limit; later versions call this
	// MAX_VERTEX_ATTRIB_STRIDE and make it INVALID_VALUE too).
	if stride > 65535 || offset < 0 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	a := &c.attribs[dst.Value]
	a.size, a.typ, a.normalized, a.stride, a.offset, a.buffer = size, ty, normalized, stride, offset, c.arrayBuffer
	c.native.client[dst.Value] = nil // an offset, not a client pointer (native.go)
}

func (c *Context) setCurrentAttrib(dst gl.Attrib, v [4]float32) {
	if int(dst.Value) >= maxVertexAttribs {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	c.attribs[dst.Value].current = v
}

// VertexAttrib1f sets attribute dst's current value to (x, 0, 0, 1).
func (c *Context) VertexAttrib1f(dst gl.Attrib, x float32) {
	c.setCurrentAttrib(dst, [4]float32{x, 0, 0, 1})
}

// VertexAttrib2f sets attribute dst's current value to (x, y, 0, 1).
func (c *Context) VertexAttrib2f(dst gl.Attrib, x, y float32) {
	c.setCurrentAttrib(dst, [4]float32{x, y, 0, 1})
}

// VertexAttrib3f sets attribute dst's current value to (x, y, z, 1).
func (c *Context) VertexAttrib3f(dst gl.Attrib, x, y, z float32) {
	c.setCurrentAttrib(dst, [4]float32{x, y, z, 1})
}

// VertexAttrib4f sets attribute dst's current value.
func (c *Context) VertexAttrib4f(dst gl.Attrib, x, y, z, w float32) {
	c.setCurrentAttrib(dst, [4]float32{x, y, z, w})
}

func (c *Context) vertexAttribv(dst gl.Attrib, src []float32, n int) {
	if len(src) < n {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	v := [4]float32{0, 0, 0, 1}
	copy(v[:n], src)
	c.setCurrentAttrib(dst, v)
}

// VertexAttrib1fv sets attribute dst's current value from src[0].
func (c *Context) VertexAttrib1fv(dst gl.Attrib, src []float32) { c.vertexAttribv(dst, src, 1) }

// VertexAttrib2fv sets attribute dst's current value from src[:2].
func (c *Context) VertexAttrib2fv(dst gl.Attrib, src []float32) { c.vertexAttribv(dst, src, 2) }

// VertexAttrib3fv sets attribute dst's current value from src[:3].
func (c *Context) VertexAttrib3fv(dst gl.Attrib, src []float32) { c.vertexAttribv(dst, src, 3) }

// VertexAttrib4fv sets attribute dst's current value from src[:4].
func (c *Context) VertexAttrib4fv(dst gl.Attrib, src []float32) { c.vertexAttribv(dst, src, 4) }

// GetVertexAttribfv reads a vertex attribute parameter.
func (c *Context) GetVertexAttribfv(dst []float32, src gl.Attrib, pname gl.Enum) {
	if int(src.Value) >= maxVertexAttribs {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	a := c.attribs[src.Value]
	if pname == gl.CURRENT_VERTEX_ATTRIB {
		copy(dst, a.current[:])
		return
	}
	var v [1]int32
	c.GetVertexAttribiv(v[:], src, pname)
	if len(dst) > 0 {
		dst[0] = float32(v[0])
	}
}

// GetVertexAttribf reads one value of a vertex attribute parameter.
func (c *Context) GetVertexAttribf(src gl.Attrib, pname gl.Enum) float32 {
	var v [4]float32
	c.GetVertexAttribfv(v[:], src, pname)
	return v[0]
}

// GetVertexAttribiv reads a vertex attribute parameter.
func (c *Context) GetVertexAttribiv(dst []int32, src gl.Attrib, pname gl.Enum) {
	if int(src.Value) >= maxVertexAttribs {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	a := c.attribs[src.Value]
	var v int32
	switch pname {
	case gl.VERTEX_ATTRIB_ARRAY_ENABLED:
		v = int32(glBool(a.enabled))
	case gl.VERTEX_ATTRIB_ARRAY_SIZE:
		v = int32(a.size)
	case gl.VERTEX_ATTRIB_ARRAY_STRIDE:
		v = int32(a.stride)
	case gl.VERTEX_ATTRIB_ARRAY_TYPE:
		v = int32(a.typ)
	case gl.VERTEX_ATTRIB_ARRAY_NORMALIZED:
		v = int32(glBool(a.normalized))
	case gl.VERTEX_ATTRIB_ARRAY_BUFFER_BINDING:
		if a.buffer != nil {
			v = int32(a.buffer.name)
		}
	case gl.CURRENT_VERTEX_ATTRIB:
		for i := 0; i < 4 && i < len(dst); i++ {
			dst[i] = int32(a.current[i])
		}
		return
	case vertexAttribArrayDivisorANGLE: // instanced.go
		v = int32(a.divisor)
	default:
		c.recordError(gl.INVALID_ENUM)
		return
	}
	if len(dst) > 0 {
		dst[0] = v
	}
}

// GetVertexAttribi reads one value of a vertex attribute parameter.
func (c *Context) GetVertexAttribi(src gl.Attrib, pname gl.Enum) int32 {
	var v [4]int32
	c.GetVertexAttribiv(v[:], src, pname)
	return v[0]
}

// ---- draws ----

var primModes = map[gl.Enum]pipe.PrimitiveMode{
	gl.POINTS: pipe.PrimPoints, gl.LINES: pipe.PrimLines, gl.LINE_LOOP: pipe.PrimLineLoop, gl.LINE_STRIP: pipe.PrimLineStrip,
	gl.TRIANGLES: pipe.PrimTriangles, gl.TRIANGLE_STRIP: pipe.PrimTriangleStrip, gl.TRIANGLE_FAN: pipe.PrimTriangleFan,
}

// DrawArrays draws count vertices from first.
func (c *Context) DrawArrays(mode gl.Enum, first, count int) {
	pm, ok := primModes[mode]
	if !ok {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	if first < 0 || count < 0 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	c.clipPrim = &pm // triangles and lines are clipped to the viewport (viewclip.go)
	defer func() { c.clipPrim = nil }()
	if !c.checkFramebufferComplete() || count == 0 || !c.prepareDraw() {
		return
	}
	c.args.draw = pipe.DrawInfo{Mode: pm, Start: first, Count: count}
	if err := c.pipe.Draw(&c.args.draw); err != nil {
		c.drawFailed(err)
	}
}

// DrawElements draws count indices of type ty from the bound element
// buffer at byte offset. UNSIGNED_INT indices are supported
// (OES_element_index_uint). Client-side index arrays are not.
func (c *Context) DrawElements(mode gl.Enum, count int, ty gl.Enum, offset int) {
	pm, ok := primModes[mode]
	if !ok {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	size := map[gl.Enum]int{gl.UNSIGNED_BYTE: 1, gl.UNSIGNED_SHORT: 2, gl.UNSIGNED_INT: 4}[ty]
	if size == 0 {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	if count < 0 || offset < 0 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	if !c.checkFramebufferComplete() || count == 0 {
		return
	}
	eb := c.elementBuffer
	if eb == nil || eb.res == nil || offset%size != 0 || offset+count*size > eb.size {
		// No buffer (a client array) or indices outside it: nothing can be
		// read safely.
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	c.clipPrim = &pm
	defer func() { c.clipPrim = nil }()
	if !c.prepareDraw() {
		return
	}
	c.args.draw = pipe.DrawInfo{Mode: pm, Count: count, IndexSize: size, IndexBuffer: eb.res, IndexOffset: offset}
	err := c.pipe.Draw(&c.args.draw)
	c.args.draw.IndexBuffer = nil // not kept reachable after the draw
	if err != nil {
		c.drawFailed(err)
	}
}

// drawFailed handles a draw the driver refused. The usual cause is an
// attribute array too short for the vertices drawn: GL ES 2.0 leaves such
// reads undefined, and this implementation skips the draw and reports
// GL_INVALID_OPERATION (as WebGL does). LastDriverError keeps the reason.
func (c *Context) drawFailed(err error) {
	c.lastDriverErr = err
	c.recordError(gl.INVALID_OPERATION)
}

// LastDriverError returns the last error the driver reported for a draw or
// clear, for debugging; GL itself only sees the error enum.
func (c *Context) LastDriverError() error { return c.lastDriverErr }

// samplerConflict reports two sampler uniforms of different types that
// name the same unit (a draw-time GL_INVALID_OPERATION, ES 2.0 §2.10.4).
func (c *Context) samplerConflict(p *program) string {
	kinds := map[uint32]bool{}
	for _, s := range p.samplers {
		if s.slot >= len(p.storage) {
			continue
		}
		u := p.storage[s.slot]
		if cube, ok := kinds[u]; ok && cube != s.cube {
			return fmt.Sprintf("samplers of different types use texture unit %d", u)
		}
		kinds[u] = s.cube
	}
	return ""
}

// prepareDraw sends every piece of GL state a draw depends on to the
// driver. It returns false (with an error recorded where GL requires one)
// when nothing should be drawn.
func (c *Context) prepareDraw() bool {
	p := c.current
	if p == nil || p.handle == nil {
		return false // ES 2.0: undefined results; draw nothing
	}
	if c.samplerConflict(p) != "" {
		c.recordError(gl.INVALID_OPERATION)
		return false
	}
	for i := range c.attribs {
		if a := &c.attribs[i]; a.enabled && (a.buffer == nil || a.buffer.res == nil) {
			if c.attribUsed(p, i) {
				c.recordError(gl.INVALID_OPERATION) // client-side arrays: not implemented
				return false
			}
		}
	}
	if p.depthRange[0] >= 0 { // gl_DepthRange (program.go)
		n, f := c.depthRange[0], c.depthRange[1]
		for i, v := range [3]float32{n, f, f - n} {
			if s := p.depthRange[i]; s >= 0 && s < len(p.storage) {
				p.storage[s] = math.Float32bits(v)
			}
		}
	}
	c.pipe.BindProgramState(p.handle)
	c.pipe.SetUniformStorage(p.storage)
	c.sendFramebufferState()
	c.sendFixedFunction()
	c.sendTextures(p)
	c.sendVertexState()
	return true
}

func (c *Context) attribUsed(p *program, loc int) bool {
	for _, a := range p.attribs {
		for k := 0; k < max(a.Size, 1)*attribSlots(gl.Enum(a.Type)); k++ {
			if a.Location+k == loc {
				return true
			}
		}
	}
	return false
}

// attribSlots is the number of locations an attribute of type t uses.
func attribSlots(t gl.Enum) int {
	switch t {
	case gl.FLOAT_MAT2:
		return 2
	case gl.FLOAT_MAT3:
		return 3
	case gl.FLOAT_MAT4:
		return 4
	}
	return 1
}

// sendFramebufferState passes the states through c.args: the driver copies
// what the pointers hold (pipe.Context), and a pointer to a local passed
// through the interface would be a heap allocation per draw.
func (c *Context) sendFramebufferState() {
	a := &c.args
	a.fb, _ = c.framebufferState()
	c.pipe.SetFramebufferState(&a.fb)
	vx, vy, vw, vh := c.viewport[0], c.viewport[1], c.viewport[2], c.viewport[3]
	n, f := c.depthRange[0], c.depthRange[1]
	a.viewport = pipe.ViewportState{
		Scale:     [3]float32{float32(vw) / 2, float32(vh) / 2, (f - n) / 2},
		Translate: [3]float32{float32(vx) + float32(vw)/2, float32(vy) + float32(vh)/2, (n + f) / 2},
	}
	if c.clipCtl.upperLeft { // EXT_clip_control (clipcontrol.go)
		a.viewport.Scale[1] = -a.viewport.Scale[1]
	}
	if c.clipCtl.zeroToOne {
		a.viewport.Scale[2], a.viewport.Translate[2] = f-n, n
	}
	c.pipe.SetViewportState(&a.viewport)
	a.scissor = c.drawScissor()
	c.pipe.SetScissorState(&a.scissor)
}

// stateArgs is storage for the state structs a draw passes by pointer.
type stateArgs struct {
	fb       pipe.FramebufferState
	viewport pipe.ViewportState
	scissor  pipe.ScissorState
	draw     pipe.DrawInfo
}

var compareFuncs = map[gl.Enum]pipe.CompareFunc{
	gl.NEVER: pipe.FuncNever, gl.LESS: pipe.FuncLess, gl.EQUAL: pipe.FuncEqual, gl.LEQUAL: pipe.FuncLEqual,
	gl.GREATER: pipe.FuncGreater, gl.NOTEQUAL: pipe.FuncNotEqual, gl.GEQUAL: pipe.FuncGEqual, gl.ALWAYS: pipe.FuncAlways,
}

var stencilOps = map[gl.Enum]pipe.StencilOp{
	gl.KEEP: pipe.StencilKeep, gl.ZERO: pipe.StencilZero, gl.REPLACE: pipe.StencilReplace, gl.INCR: pipe.StencilIncr,
	gl.DECR: pipe.StencilDecr, gl.INVERT: pipe.StencilInvert, gl.INCR_WRAP: pipe.StencilIncrWrap, gl.DECR_WRAP: pipe.StencilDecrWrap,
}

var blendEquations = map[gl.Enum]pipe.BlendEquation{
	gl.FUNC_ADD: pipe.BlendAdd, gl.FUNC_SUBTRACT: pipe.BlendSubtract, gl.FUNC_REVERSE_SUBTRACT: pipe.BlendReverseSubtract,
	minEXT: pipe.BlendMin, maxEXT: pipe.BlendMax, // EXT_blend_minmax
}

// EXT_blend_minmax's blend equations.
const (
	minEXT gl.Enum = 0x8007
	maxEXT gl.Enum = 0x8008
)

// blendState, dsaState and rasterizerState convert the GL state.
func (c *Context) blendState() pipe.BlendState {
	if !c.colorHasAlpha() {
		s := c.blendStateRGBA()
		s.SrcRGB, s.DstRGB, s.SrcAlpha, s.DstAlpha = dstAlphaOne(s.SrcRGB), dstAlphaOne(s.DstRGB), dstAlphaOne(s.SrcAlpha), dstAlphaOne(s.DstAlpha)
		if s.SrcRGB == pipe.FactorSrcAlphaSaturate {
			s.SrcRGB = pipe.FactorZero // min(As, 1-Ad) with Ad = 1
		}
		return s
	}
	return c.blendStateRGBA()
}

func (c *Context) blendStateRGBA() pipe.BlendState {
	return pipe.BlendState{
		Enable:      c.enables[gl.BLEND],
		EquationRGB: blendEquations[c.blendEq[0]], EquationAlpha: blendEquations[c.blendEq[1]],
		SrcRGB: blendFactors[c.blendFunc[0]], DstRGB: blendFactors[c.blendFunc[1]],
		SrcAlpha: blendFactors[c.blendFunc[2]], DstAlpha: blendFactors[c.blendFunc[3]],
		ColorMask:       c.colorMask,
		AlphaToCoverage: c.enables[gl.SAMPLE_ALPHA_TO_COVERAGE],
	}
}

func (c *Context) dsaState() pipe.DepthStencilAlphaState {
	hasDepth, hasStencil := c.fbBits()
	s := pipe.DepthStencilAlphaState{
		DepthEnable: c.enables[gl.DEPTH_TEST] && hasDepth,
		DepthFunc:   compareFuncs[c.depthFunc],
		DepthWrite:  c.depthMask,
	}
	if c.enables[gl.STENCIL_TEST] && hasStencil {
		s.StencilEnable = true
		for i, f := range c.stencil {
			s.Stencil[i] = pipe.StencilState{
				Func: compareFuncs[f.fn], ValueMask: uint8(f.valueMask), WriteMask: uint8(f.writeMask),
				Fail: stencilOps[f.fail], ZFail: stencilOps[f.zfail], ZPass: stencilOps[f.zpass],
			}
		}
	}
	return s
}

func (c *Context) rasterizerState() pipe.RasterizerState {
	cull := c.enables[gl.CULL_FACE]
	return pipe.RasterizerState{
		CullFront:     cull && (c.cullFace == gl.FRONT || c.cullFace == gl.FRONT_AND_BACK),
		CullBack:      cull && (c.cullFace == gl.BACK || c.cullFace == gl.FRONT_AND_BACK),
		FrontCCW:      (c.frontFace == gl.CCW) != c.clipCtl.upperLeft, // clipcontrol.go
		ClipHalfZ:     c.clipCtl.zeroToOne,
		OffsetEnable:  c.enables[gl.POLYGON_OFFSET_FILL],
		OffsetFactor:  c.polyOffset[0],
		OffsetUnits:   c.polyOffset[1],
		LineWidth:     c.lineWidth,
		ScissorEnable: c.enables[gl.SCISSOR_TEST] || c.clipsToViewport(),

		SampleCoverage:       c.enables[gl.SAMPLE_COVERAGE],
		SampleCoverageValue:  c.sampleCov,
		SampleCoverageInvert: c.sampleInvert,
	}
}

func (c *Context) sendFixedFunction() {
	c.csos.bindBlend(c.blendState())
	c.csos.bindDSA(c.dsaState())
	c.csos.bindRasterizer(c.rasterizerState())
	c.pipe.SetBlendColor(c.blendColor)
	ref := func(r int) uint8 { return uint8(min(max(r, 0), 255)) }
	c.pipe.SetStencilRef(ref(c.stencil[0].ref), ref(c.stencil[1].ref))
}

// sendTextures binds, for every unit a sampler of the program uses, the
// complete texture of the sampler's type on that unit (or nothing).
func (c *Context) sendTextures(p *program) {
	n := 0
	for _, s := range p.samplers {
		if s.slot < len(p.storage) {
			n = max(n, int(p.storage[s.slot])+1)
		}
	}
	n = min(n, len(c.units))
	views := c.csos.views[:0]
	samplers := c.csos.samplers[:0]
	for i := 0; i < n; i++ {
		views = append(views, nil)
		samplers = append(samplers, nil)
	}
	for _, s := range p.samplers {
		if s.slot >= len(p.storage) || int(p.storage[s.slot]) >= n {
			continue
		}
		u := p.storage[s.slot]
		t := c.units[u].tex2D
		if s.cube {
			t = c.units[u].cube
		}
		if v := c.samplerView(t); v != nil {
			views[u] = v
			samplers[u] = c.csos.samplerHandle(t.samplerState())
		}
	}
	c.csos.views, c.csos.samplers = views, samplers
	c.pipe.SetSamplerViews(views)
	c.pipe.BindSamplerStates(samplers)
}

// sendVertexState describes every attribute location: enabled arrays as
// buffer elements (one vertex buffer slot per location), the rest as
// constants holding the current value.
func (c *Context) sendVertexState() {
	var elems [maxVertexAttribs]pipe.VertexElement
	vbs := c.csos.vbs[:0]
	for i := range c.attribs {
		a := &c.attribs[i]
		if !a.enabled || a.buffer == nil || a.buffer.res == nil {
			elems[i] = pipe.VertexElement{Constant: true, Value: a.current}
			vbs = append(vbs, pipe.VertexBuffer{})
			continue
		}
		vt := vertexTypes[a.typ]
		stride := a.stride
		if stride == 0 {
			stride = a.size * vt.Size()
		}
		offset := a.offset
		if a.divisor > 0 { // an instanced array: one element for every vertex of the instance (instanced.go)
			offset += c.ext.instance / a.divisor * stride
			stride = 0
		}
		elems[i] = pipe.VertexElement{BufferIndex: i, Offset: 0, Type: vt, Components: a.size, Normalized: a.normalized}
		vbs = append(vbs, pipe.VertexBuffer{Resource: a.buffer.res, Offset: uint32(offset), Stride: uint32(stride)})
	}
	c.csos.vbs = vbs
	c.csos.bindVertexElements(elems[:])
	c.pipe.SetVertexBuffers(vbs)
}
