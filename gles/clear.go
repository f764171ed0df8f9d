package gles

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/tilegpu/tilegpu/gl"

	"github.com/tilegpu/tilegpu/pipe"
)

// Clear clears the selected buffers of the bound framebuffer, honouring
// the scissor test, the colour mask, the depth mask and the stencil write
// mask. Whole-buffer clears become the tile buffer's clear values; other
// clears draw a quad (Mesa's clear_with_quad).
func (c *Context) Clear(mask gl.Enum) {
	const all = gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT | gl.STENCIL_BUFFER_BIT
	if mask&^all != 0 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	if !c.checkFramebufferComplete() {
		return
	}
	var buffers pipe.ClearMask
	hasDepth, hasStencil := c.fbBits()
	if mask&gl.COLOR_BUFFER_BIT != 0 && c.colorMask != [4]bool{} {
		buffers |= pipe.ClearColor
	}
	if mask&gl.DEPTH_BUFFER_BIT != 0 && c.depthMask && hasDepth {
		buffers |= pipe.ClearDepth
	}
	if mask&gl.STENCIL_BUFFER_BIT != 0 && c.stencil[0].writeMask&0xff != 0 && hasStencil {
		buffers |= pipe.ClearStencil
	}
	if buffers == 0 {
		return
	}
	c.sendFramebufferState()
	c.sendFixedFunction()
	stencil := uint8(c.clearStencil)
	err := c.pipe.Clear(buffers, c.clearColor, c.clearDepth, stencil)
	if errors.Is(err, pipe.ErrPartialClear) {
		err = c.clearWithQuad(buffers)
	}
	if err != nil {
		c.driverFailed(err, gl.OUT_OF_MEMORY)
	}
}

// clearProgram draws clear quads: a full-window strip at a uniform depth
// with a uniform colour.
type clearProgram struct {
	handle    pipe.ProgramHandle
	vb        pipe.Resource
	colorSlot int
	depthSlot int
	storage   []uint32
	posLoc    int
}

const clearVS = `attribute vec2 a_pos;
uniform float u_depth;
void main() { gl_Position = vec4(a_pos, u_depth, 1.0); }
`

const clearFS = `precision mediump float;
uniform vec4 u_color;
void main() { gl_FragColor = u_color; }
`

func (cp *clearProgram) release(c *Context) {
	if cp.handle != nil {
		c.pipe.DeleteProgramState(cp.handle)
	}
	if cp.vb != nil {
		c.screen.ResourceDestroy(cp.vb)
	}
}

func (c *Context) clearProgram() (*clearProgram, error) {
	if c.clearProg != nil {
		return c.clearProg, nil
	}
	vs := c.screen.CompileShader(pipe.StageVertex, clearVS)
	fs := c.screen.CompileShader(pipe.StageFragment, clearFS)
	if !vs.OK() || !fs.OK() {
		return nil, fmt.Errorf("gles: clear shaders do not compile: %s%s", vs.Log(), fs.Log())
	}
	lp := c.screen.LinkProgram(vs, fs, map[string]int{"a_pos": 0})
	if !lp.OK() {
		return nil, fmt.Errorf("gles: clear program does not link: %s", lp.Log())
	}
	h, err := c.pipe.CreateProgramState(lp)
	if err != nil {
		return nil, err
	}
	cp := &clearProgram{handle: h, colorSlot: -1, depthSlot: -1, storage: make([]uint32, lp.StorageSize())}
	for _, u := range lp.Uniforms() {
		switch u.Name {
		case "u_color":
			cp.colorSlot = u.Storage
		case "u_depth":
			cp.depthSlot = u.Storage
		}
	}
	for _, a := range lp.Attributes() {
		if a.Name == "a_pos" {
			cp.posLoc = a.Location
		}
	}
	quad := []float32{-1, -1, 1, -1, -1, 1, 1, 1}
	data := make([]byte, 0, len(quad)*4)
	for _, v := range quad {
		data = binary.LittleEndian.AppendUint32(data, math.Float32bits(v))
	}
	if cp.vb, err = c.screen.ResourceCreate(pipe.ResourceTemplate{Target: pipe.TargetBuffer, Width: len(data), Height: 1, Levels: 1, Bind: pipe.BindVertexBuffer}); err != nil {
		return nil, err
	}
	if err := c.pipe.BufferWrite(cp.vb, 0, data); err != nil {
		return nil, err
	}
	c.clearProg = cp
	return cp, nil
}

// clearWithQuad clears by drawing: depth test ALWAYS with writes for the
// depth buffer, stencil REPLACE with the clear value under the write mask,
// the colour mask and scissor as set. The next draw re-sends all GL state.
func (c *Context) clearWithQuad(buffers pipe.ClearMask) error {
	cp, err := c.clearProgram()
	if err != nil {
		return err
	}
	blend := pipe.BlendState{SrcRGB: pipe.FactorOne, SrcAlpha: pipe.FactorOne}
	if buffers&pipe.ClearColor != 0 {
		blend.ColorMask = c.colorMask
	}
	dsa := pipe.DepthStencilAlphaState{DepthFunc: pipe.FuncAlways}
	if buffers&pipe.ClearDepth != 0 {
		dsa.DepthEnable, dsa.DepthWrite = true, true
	}
	if buffers&pipe.ClearStencil != 0 {
		dsa.StencilEnable = true
		for i, f := range c.stencil {
			dsa.Stencil[i] = pipe.StencilState{Func: pipe.FuncAlways, ValueMask: 0xff, WriteMask: uint8(f.writeMask),
				Fail: pipe.StencilReplace, ZFail: pipe.StencilReplace, ZPass: pipe.StencilReplace}
		}
	}
	c.csos.bindBlend(blend)
	c.csos.bindDSA(dsa)
	c.csos.bindRasterizer(pipe.RasterizerState{FrontCCW: true, LineWidth: 1, ScissorEnable: c.enables[gl.SCISSOR_TEST]})
	st := uint8(c.clearStencil)
	c.pipe.SetStencilRef(st, st)
	fb, _ := c.framebufferState()
	w, h := float32(fb.Width), float32(fb.Height)
	c.pipe.SetViewportState(&pipe.ViewportState{Scale: [3]float32{w / 2, h / 2, 0.5}, Translate: [3]float32{w / 2, h / 2, 0.5}})

	for i := 0; i < 4 && cp.colorSlot >= 0 && cp.colorSlot+i < len(cp.storage); i++ {
		cp.storage[cp.colorSlot+i] = math.Float32bits(c.clearColor[i])
	}
	if cp.depthSlot >= 0 && cp.depthSlot < len(cp.storage) {
		cp.storage[cp.depthSlot] = math.Float32bits(2*c.clearDepth - 1)
	}
	c.pipe.BindProgramState(cp.handle)
	c.pipe.SetUniformStorage(cp.storage)
	c.pipe.SetSamplerViews(nil)
	c.pipe.BindSamplerStates(nil)
	var elems [maxVertexAttribs]pipe.VertexElement
	vbs := make([]pipe.VertexBuffer, maxVertexAttribs)
	for i := range elems {
		elems[i] = pipe.VertexElement{Constant: true, Value: [4]float32{0, 0, 0, 1}}
	}
	elems[cp.posLoc] = pipe.VertexElement{BufferIndex: cp.posLoc, Type: pipe.VertexFloat, Components: 2}
	vbs[cp.posLoc] = pipe.VertexBuffer{Resource: cp.vb, Stride: 8}
	c.csos.bindVertexElements(elems[:])
	c.pipe.SetVertexBuffers(vbs)
	return c.pipe.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangleStrip, Count: 4})
}
