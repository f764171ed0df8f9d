package gles

import (
	"unsafe"

	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/pipe"
)

// Native is what the C ABI (capi/, libGLESv2) needs beyond gl.Context:
// GL ES 2.0 entry points that take raw client memory, which x/mobile/gl's
// Go signatures cannot express, and the sizes a C caller's untyped
// pointers stand for. *Context implements it; docs/interfaces.md describes
// it. Pointers passed in point to C memory that stays valid for the call
// (client arrays: until the draw that reads them, as GL specifies).
type Native interface {
	gl.Context
	// VertexAttribPointerNative is glVertexAttribPointer: ptr is an offset
	// into the bound ARRAY_BUFFER, or a client-side array when none is bound.
	VertexAttribPointerNative(a gl.Attrib, size int, ty gl.Enum, normalized bool, stride int, ptr unsafe.Pointer)
	// GetVertexAttribPointer is glGetVertexAttribPointerv(VERTEX_ATTRIB_ARRAY_POINTER).
	GetVertexAttribPointer(a gl.Attrib, pname gl.Enum) unsafe.Pointer
	// DrawArraysNative is glDrawArrays, reading client-side arrays too.
	DrawArraysNative(mode gl.Enum, first, count int)
	// DrawElementsNative is glDrawElements: indices is an offset into the
	// bound ELEMENT_ARRAY_BUFFER, or a client-side index array when none is bound.
	DrawElementsNative(mode gl.Enum, count int, ty gl.Enum, indices unsafe.Pointer)
	// BufferSubDataNative is glBufferSubData with a size beside the
	// pointer: the range is checked against the buffer whatever data is
	// (a NULL pointer with a valid range writes nothing).
	BufferSubDataNative(target gl.Enum, offset, size int, data unsafe.Pointer)
	// ShaderBinary is glShaderBinary; no binary formats exist.
	ShaderBinary(shaders []gl.Shader, format gl.Enum, binary []byte)
	// StateSize is the number of values glGet* writes for pname (0: not a state).
	StateSize(pname gl.Enum) int
	// UniformSize is the number of values glGetUniform* writes for u of p
	// (0 when the query fails).
	UniformSize(p gl.Program, u gl.Uniform) int
	// PixelDataSize is the number of bytes glTexImage2D / glTexSubImage2D
	// (pack false) or glReadPixels (pack true) reads or writes for a
	// width×height image of format and ty under the current alignment;
	// 0 for a combination GL rejects.
	PixelDataSize(width, height int, format, ty gl.Enum, pack bool) int
	// RecordError records a GL error found by the caller (argument checks
	// on C-only parameters such as negative counts).
	RecordError(e gl.Enum)
	// InsertEventMarker, PushGroupMarker and PopGroupMarker are
	// EXT_debug_marker: annotations for debuggers, which tilegpu accepts
	// and ignores (the extension requires no effect on rendering).
	InsertEventMarker(marker string)
	PushGroupMarker(marker string)
	PopGroupMarker()
	// SetDefaultFramebuffer makes dfb framebuffer 0 (eglMakeCurrent).
	SetDefaultFramebuffer(dfb DefaultFramebuffer)
}

var _ Native = (*Context)(nil)

// framebufferUndefined is GL_FRAMEBUFFER_UNDEFINED_OES
// (EGL_KHR_surfaceless_context): framebuffer 0 of a context without a surface.
const framebufferUndefined gl.Enum = 0x8219

// nativeState is the state only Native reaches.
type nativeState struct {
	client [maxVertexAttribs]unsafe.Pointer // client-side array of each attribute (nil: buffer offset)
}

// VertexAttribPointerNative implements Native.
func (c *Context) VertexAttribPointerNative(a gl.Attrib, size int, ty gl.Enum, normalized bool, stride int, ptr unsafe.Pointer) {
	if c.arrayBuffer != nil {
		c.VertexAttribPointer(a, size, ty, normalized, stride, int(uintptr(ptr)))
		return
	}
	before := c.err
	c.err = gl.NO_ERROR
	c.VertexAttribPointer(a, size, ty, normalized, stride, 0)
	failed := c.err != gl.NO_ERROR
	if before != gl.NO_ERROR {
		c.err = before
	}
	if !failed {
		c.native.client[a.Value] = ptr
	}
}

// GetVertexAttribPointer implements Native.
func (c *Context) GetVertexAttribPointer(a gl.Attrib, pname gl.Enum) unsafe.Pointer {
	if int(a.Value) >= maxVertexAttribs {
		c.recordError(gl.INVALID_VALUE)
		return nil
	}
	if pname != gl.VERTEX_ATTRIB_ARRAY_POINTER {
		c.recordError(gl.INVALID_ENUM)
		return nil
	}
	if p := c.native.client[a.Value]; p != nil {
		return p
	}
	return unsafe.Add(unsafe.Pointer(nil), c.attribs[a.Value].offset)
}

// clientArrays returns the enabled attributes the current program reads
// from client memory.
func (c *Context) clientArrays() []int {
	p := c.current
	if p == nil || p.handle == nil {
		return nil
	}
	var out []int
	for i := range c.attribs {
		if c.attribs[i].enabled && c.native.client[i] != nil && c.attribUsed(p, i) {
			out = append(out, i)
		}
	}
	return out
}

// withClientArrays uploads vertices 0..maxIndex of every client-side array
// the draw reads into buffers of their own, runs draw with the attributes
// pointing at them, and restores the attributes. The buffers are released
// at once: the driver's job holds them until the GPU has read them.
func (c *Context) withClientArrays(attrs []int, maxIndex int, draw func()) {
	type saved struct {
		i int
		a vertexAttrib
	}
	restore := make([]saved, 0, len(attrs))
	var tmp []pipe.Resource
	defer func() {
		for _, s := range restore {
			c.attribs[s.i] = s.a
		}
		for _, r := range tmp {
			c.screen.ResourceDestroy(r)
		}
	}()
	for _, i := range attrs {
		a := &c.attribs[i]
		elem := a.size * vertexTypes[a.typ].Size()
		stride := a.stride
		if stride == 0 {
			stride = elem
		}
		last := maxIndex
		if a.divisor > 0 { // an instanced array holds one element per divisor instances (instanced.go)
			last = (max(c.ext.instances, 1) - 1) / a.divisor
		}
		n := last*stride + elem
		res, err := c.screen.ResourceCreate(pipe.ResourceTemplate{Target: pipe.TargetBuffer, Width: n, Height: 1, Levels: 1,
			Bind: pipe.BindVertexBuffer})
		if err != nil {
			c.recordError(gl.OUT_OF_MEMORY)
			return
		}
		tmp = append(tmp, res)
		if err := c.pipe.BufferWrite(res, 0, unsafe.Slice((*byte)(c.native.client[i]), n)); err != nil {
			c.recordError(gl.OUT_OF_MEMORY)
			return
		}
		restore = append(restore, saved{i, *a})
		a.buffer, a.offset, a.stride = &buffer{res: res, size: n}, 0, stride
	}
	draw()
}

// DrawArraysNative implements Native.
func (c *Context) DrawArraysNative(mode gl.Enum, first, count int) {
	attrs := c.clientArrays()
	if _, ok := primModes[mode]; !ok || first < 0 || count <= 0 || len(attrs) == 0 || !c.framebufferDrawable() {
		c.DrawArrays(mode, first, count)
		return
	}
	c.withClientArrays(attrs, first+count-1, func() { c.DrawArrays(mode, first, count) })
}

// framebufferDrawable reports (without recording an error) whether a draw
// would reach the driver.
func (c *Context) framebufferDrawable() bool {
	if c.drawFB == nil {
		return c.dfb.Color != nil
	}
	return c.drawFB.status() == gl.FRAMEBUFFER_COMPLETE
}

// indexSize is the size of an index of type ty (0: not an index type).
func indexSize(ty gl.Enum) int {
	switch ty {
	case gl.UNSIGNED_BYTE:
		return 1
	case gl.UNSIGNED_SHORT:
		return 2
	case gl.UNSIGNED_INT:
		return 4
	}
	return 0
}

// maxIndex returns the largest of count indices of size in data.
func maxIndex(data []byte, size, count int) int {
	m := 0
	for k := 0; k < count; k++ {
		var v int
		switch size {
		case 1:
			v = int(data[k])
		case 2:
			v = int(data[2*k]) | int(data[2*k+1])<<8
		default:
			v = int(uint32(data[4*k]) | uint32(data[4*k+1])<<8 | uint32(data[4*k+2])<<16 | uint32(data[4*k+3])<<24)
		}
		m = max(m, v)
	}
	return m
}

// DrawElementsNative implements Native.
func (c *Context) DrawElementsNative(mode gl.Enum, count int, ty gl.Enum, indices unsafe.Pointer) {
	size := indexSize(ty)
	_, modeOK := primModes[mode]
	if !modeOK || size == 0 || count <= 0 || !c.framebufferDrawable() {
		c.DrawElements(mode, count, ty, int(uintptr(indices)))
		return
	}
	attrs := c.clientArrays()
	if eb := c.elementBuffer; eb != nil {
		off := int(uintptr(indices))
		if len(attrs) == 0 || off%size != 0 || off+count*size > len(eb.data) {
			c.DrawElements(mode, count, ty, off)
			return
		}
		c.withClientArrays(attrs, maxIndex(eb.data[off:], size, count), func() { c.DrawElements(mode, count, ty, off) })
		return
	}
	if indices == nil {
		c.recordError(gl.INVALID_OPERATION) // no index buffer and no index array
		return
	}
	data := unsafe.Slice((*byte)(indices), count*size)
	res, err := c.screen.ResourceCreate(pipe.ResourceTemplate{Target: pipe.TargetBuffer, Width: len(data), Height: 1, Levels: 1,
		Bind: pipe.BindIndexBuffer})
	if err != nil {
		c.recordError(gl.OUT_OF_MEMORY)
		return
	}
	defer c.screen.ResourceDestroy(res)
	if err := c.pipe.BufferWrite(res, 0, data); err != nil {
		c.recordError(gl.OUT_OF_MEMORY)
		return
	}
	c.elementBuffer = &buffer{res: res, size: len(data), data: data}
	defer func() { c.elementBuffer = nil }()
	draw := func() { c.DrawElements(mode, count, ty, 0) }
	if len(attrs) == 0 {
		draw()
		return
	}
	c.withClientArrays(attrs, maxIndex(data, size, count), draw)
}

// BufferSubDataNative implements Native.
func (c *Context) BufferSubDataNative(target gl.Enum, offset, size int, data unsafe.Pointer) {
	b := c.boundBuffer(target)
	if b == nil {
		return
	}
	if offset < 0 || size < 0 || offset > b.size || size > b.size-offset {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	if data == nil || size == 0 {
		return
	}
	c.BufferSubData(target, offset, unsafe.Slice((*byte)(data), size))
}

// ShaderBinary implements Native: NUM_SHADER_BINARY_FORMATS is 0, so
// every format is GL_INVALID_ENUM (after the count check ES 2.0 makes first).
func (c *Context) ShaderBinary(shaders []gl.Shader, format gl.Enum, binary []byte) {
	c.recordError(gl.INVALID_ENUM)
}

// InsertEventMarker implements Native (EXT_debug_marker): no effect.
func (c *Context) InsertEventMarker(marker string) {}

// PushGroupMarker implements Native (EXT_debug_marker): no effect.
func (c *Context) PushGroupMarker(marker string) {}

// PopGroupMarker implements Native (EXT_debug_marker): no effect; popping
// an empty stack is not an error in EXT_debug_marker.
func (c *Context) PopGroupMarker() {}

// RecordError implements Native.
func (c *Context) RecordError(e gl.Enum) { c.recordError(e) }

// StateSize implements Native.
func (c *Context) StateSize(pname gl.Enum) int {
	v, _, ok := c.state(pname)
	if !ok {
		return 0
	}
	return len(v)
}

// UniformSize implements Native.
func (c *Context) UniformSize(p gl.Program, u gl.Uniform) int {
	x := c.programs[p.Value]
	if x == nil || !x.linkOK {
		return 0
	}
	loc, ok := x.locs[u.Value]
	if !ok {
		return 0
	}
	n, _ := uniformInfo(gl.Enum(x.uniforms[loc.u].Type))
	return n
}

// PixelDataSize implements Native.
func (c *Context) PixelDataSize(width, height int, format, ty gl.Enum, pack bool) int {
	if width <= 0 || height <= 0 {
		return 0
	}
	bpp := 0
	switch ty {
	case gl.UNSIGNED_SHORT_5_6_5, gl.UNSIGNED_SHORT_4_4_4_4, gl.UNSIGNED_SHORT_5_5_5_1, unsignedShort4444Rev, unsignedShort1555Rev:
		bpp = 2
	case gl.UNSIGNED_BYTE:
		bpp = map[gl.Enum]int{gl.ALPHA: 1, gl.LUMINANCE: 1, gl.LUMINANCE_ALPHA: 2, gl.RGB: 3, gl.RGBA: 4, bgraEXT: 4}[format]
	case halfFloatOES: // OES_texture_half_float (formats.go)
		bpp = 2 * map[gl.Enum]int{gl.ALPHA: 1, gl.LUMINANCE: 1, gl.LUMINANCE_ALPHA: 2, gl.RGB: 3, gl.RGBA: 4}[format]
	case gl.UNSIGNED_SHORT: // OES_depth_texture
		if format == gl.DEPTH_COMPONENT {
			bpp = 2
		}
	case gl.UNSIGNED_INT, gl.UNSIGNED_INT_24_8_OES: // OES_depth_texture, OES_packed_depth_stencil
		if isDepthFormat(format) {
			bpp = 4
		}
	}
	if bpp == 0 {
		return 0
	}
	align := c.unpackAlign
	if pack {
		align = c.packAlign
	}
	row := width * bpp
	return (row+align-1)/align*align*(height-1) + row
}
