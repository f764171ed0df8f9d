package gles_test

import (
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// dEQP-GLES2.functional.fbo.render.color_clear.rbo_rgb565 and
// *.tex2d_rgb: a colour buffer without alpha reads alpha 1 whatever the
// clear colour's alpha, and blending sees a destination alpha of 1.
func TestColorBufferWithoutAlpha(t *testing.T) {
	ctx, g := newStack(t, 8, 8, 1)
	program(t, g, `attribute vec2 a_pos; void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }`,
		`precision mediump float; void main() { gl_FragColor = vec4(1.0, 0.0, 0.0, 0.25); }`)
	quad(g, -1, 1)
	for _, tc := range []struct {
		name   string
		attach func()
		alpha  bool
	}{
		{"rbo rgb565", func() {
			rb := g.CreateRenderbuffer()
			g.BindRenderbuffer(gl.RENDERBUFFER, rb)
			g.RenderbufferStorage(gl.RENDERBUFFER, gl.RGB565, 8, 8)
			g.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, rb)
		}, false},
		{"tex rgb", func() {
			tex := g.CreateTexture()
			g.BindTexture(gl.TEXTURE_2D, tex)
			g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGB, 8, 8, gl.RGB, gl.UNSIGNED_BYTE, nil)
			g.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0)
		}, false},
		{"rbo rgba4", func() {
			rb := g.CreateRenderbuffer()
			g.BindRenderbuffer(gl.RENDERBUFFER, rb)
			g.RenderbufferStorage(gl.RENDERBUFFER, gl.RGBA4, 8, 8)
			g.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, rb)
		}, true},
	} {
		fb := g.CreateFramebuffer()
		g.BindFramebuffer(gl.FRAMEBUFFER, fb)
		tc.attach()
		g.Disable(gl.BLEND)
		g.ClearColor(0, 0, 1, 0)
		g.Clear(gl.COLOR_BUFFER_BIT)
		px := pixels(t, ctx, 8, 8)
		if want := map[bool]byte{false: 255, true: 0}[tc.alpha]; px[3] != want {
			t.Errorf("%s: cleared alpha reads %d, want %d", tc.name, px[3], want)
		}
		// Destination alpha 1 (no alpha) or 0 (cleared): DST_ALPHA × red.
		g.Enable(gl.BLEND)
		g.BlendFunc(gl.DST_ALPHA, gl.ONE_MINUS_DST_ALPHA)
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		px = pixels(t, ctx, 8, 8)
		wantRed := map[bool]byte{false: 255, true: 0}[tc.alpha]
		if px[0] != wantRed {
			t.Errorf("%s: blended red %d, want %d (destination alpha %v)", tc.name, px[0], wantRed, !tc.alpha)
		}
		g.BindFramebuffer(gl.FRAMEBUFFER, gl.Framebuffer{})
	}
}
