package gles_test

import (
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// dEQP-GLES2.functional.fbo.render.*_depth_component16_stencil_index8:
// separate depth and stencil renderbuffers make a complete framebuffer whose
// depth and stencil tests work, and whose stencil contents survive in the
// stencil renderbuffer when it is attached to another framebuffer.
func TestSplitDepthStencilRenderbuffers(t *testing.T) {
	const size = 8
	ctx, g := newStack(t, size, size, 1)
	p := program(t, g, `attribute vec2 a_pos; uniform float z; void main() { gl_Position = vec4(a_pos, z, 1.0); }`,
		`precision mediump float; uniform vec4 c; void main() { gl_FragColor = c; }`)
	zLoc, cLoc := g.GetUniformLocation(p, "z"), g.GetUniformLocation(p, "c")
	rb := func(format gl.Enum) gl.Renderbuffer {
		r := g.CreateRenderbuffer()
		g.BindRenderbuffer(gl.RENDERBUFFER, r)
		g.RenderbufferStorage(gl.RENDERBUFFER, format, size, size)
		return r
	}
	color, depth, stencil, depth2 := rb(gl.RGBA4), rb(gl.DEPTH_COMPONENT16), rb(gl.STENCIL_INDEX8), rb(gl.DEPTH_COMPONENT16)
	fbo := func(d gl.Renderbuffer) gl.Framebuffer {
		fb := g.CreateFramebuffer()
		g.BindFramebuffer(gl.FRAMEBUFFER, fb)
		g.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, color)
		g.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, d)
		g.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.STENCIL_ATTACHMENT, gl.RENDERBUFFER, stencil)
		if st := g.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
			t.Fatalf("depth16 + stencil8 renderbuffers: status %#x, want FRAMEBUFFER_COMPLETE", st)
		}
		return fb
	}
	draw := func(x0, x1, z float32, r, gr, b float32) {
		quad(g, x0, x1)
		g.Uniform1f(zLoc, z)
		g.Uniform4f(cLoc, r, gr, b, 1)
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	}
	fb1 := fbo(depth)
	g.ClearColor(0, 0, 0, 1)
	g.ClearStencil(0)
	g.ClearDepthf(1)
	g.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT | gl.STENCIL_BUFFER_BIT)
	g.Enable(gl.STENCIL_TEST)
	g.Enable(gl.DEPTH_TEST)
	g.StencilOp(gl.KEEP, gl.KEEP, gl.REPLACE)
	g.StencilFunc(gl.ALWAYS, 1, 0xff)
	draw(-1, 0, 0, 0, 0, 1) // left half: stencil 1, depth 0.5, blue
	g.StencilFunc(gl.EQUAL, 1, 0xff)
	g.StencilOp(gl.KEEP, gl.KEEP, gl.KEEP)
	draw(-1, 1, 0.5, 1, 0, 0) // behind the blue half: depth test fails there; stencil fails on the right
	px := pixels(t, ctx, size, size)
	if px[0] != 0 || px[2] != 255 || px[(size-1)*4] != 0 || px[(size-1)*4+2] != 0 {
		t.Fatalf("first framebuffer: left %v right %v, want blue (depth test) and black (stencil test)", px[:4], px[(size-1)*4:size*4])
	}
	checkGL(t, ctx, "first framebuffer")
	// Another framebuffer shares the stencil renderbuffer: its stencil 1 on
	// the left half must still be there.
	fbo(depth2)
	g.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT) // keeps the stencil
	draw(-1, 1, 0, 0, 1, 0)
	px = pixels(t, ctx, size, size)
	if px[1] != 255 || px[(size-1)*4+1] != 0 {
		t.Fatalf("second framebuffer: left %v right %v, want green where the stencil renderbuffer holds 1", px[:4], px[(size-1)*4:size*4])
	}
	g.DeleteFramebuffer(fb1)
	checkGL(t, ctx, "second framebuffer")
}
