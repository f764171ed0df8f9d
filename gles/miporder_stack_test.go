package gles_test

import (
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// dEQP-GLES2.functional.texture.specification.random_teximage2d.*: mip
// levels may be specified in any order — a level given before level 0 (and
// updated by TexSubImage2D meanwhile) is sampled once the chain is complete,
// and levels survive a level 0 of another size and back.
func TestMipLevelsInAnyOrder(t *testing.T) {
	ctx, g := newStack(t, 4, 4, 1)
	program(t, g, `attribute vec2 a_pos; varying vec2 uv; void main() { uv = a_pos * 0.5 + 0.5; gl_Position = vec4(a_pos, 0.0, 1.0); }`,
		`precision mediump float; uniform sampler2D s; varying vec2 uv; void main() { gl_FragColor = texture2D(s, uv); }`)
	fill := func(n int, r, gr, b byte) []byte {
		px := make([]byte, n*n*4)
		for i := 0; i < len(px); i += 4 {
			px[i], px[i+1], px[i+2], px[i+3] = r, gr, b, 255
		}
		return px
	}
	tex := g.CreateTexture()
	g.BindTexture(gl.TEXTURE_2D, tex)
	g.TexImage2D(gl.TEXTURE_2D, 1, gl.RGBA, 4, 4, gl.RGBA, gl.UNSIGNED_BYTE, fill(4, 0, 255, 0)) // level 1 first: green
	g.TexSubImage2D(gl.TEXTURE_2D, 1, 0, 0, 4, 4, gl.RGBA, gl.UNSIGNED_BYTE, fill(4, 0, 200, 0)) // updated before level 0 exists
	g.TexImage2D(gl.TEXTURE_2D, 3, gl.RGBA, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, fill(1, 9, 9, 9))
	g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 8, 8, gl.RGBA, gl.UNSIGNED_BYTE, fill(8, 255, 0, 0))
	g.TexImage2D(gl.TEXTURE_2D, 2, gl.RGBA, 2, 2, gl.RGBA, gl.UNSIGNED_BYTE, fill(2, 0, 0, 255))
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST_MIPMAP_NEAREST)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	quad(g, -1, 1) // 8 texels over 4 pixels: λ = 1
	draw := func(what string, want [3]byte) {
		t.Helper()
		g.ClearColor(0, 0, 0, 1)
		g.Clear(gl.COLOR_BUFFER_BIT)
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		checkGL(t, ctx, what)
		if px := pixels(t, ctx, 4, 4); [3]byte(px[:3]) != want {
			t.Errorf("%s: pixel %v, want level 1's %v", what, px[:3], want)
		}
	}
	draw("level 1 given before level 0", [3]byte{0, 200, 0})
	g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 16, 16, gl.RGBA, gl.UNSIGNED_BYTE, fill(16, 255, 0, 0)) // incomplete now
	g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 8, 8, gl.RGBA, gl.UNSIGNED_BYTE, fill(8, 255, 0, 0))    // complete again
	draw("after level 0 changed size and back", [3]byte{0, 200, 0})
}
