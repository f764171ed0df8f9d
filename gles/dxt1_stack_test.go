package gles_test

import (
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// An 8×8 DXT1 texture of red blocks whose top-right block is replaced by
// a blue one with CompressedTexSubImage2D, sampled texel for pixel.
func TestDXT1SubImageSampled(t *testing.T) {
	ctx, g := newStack(t, 8, 8, 1)
	c := ctx.GLES()
	block := func(c565 uint16) []byte { return []byte{byte(c565), byte(c565 >> 8), 0, 0, 0, 0, 0, 0} } // all index 0
	var img []byte
	for i := 0; i < 4; i++ {
		img = append(img, block(0xF800)...)
	}
	g.BindTexture(gl.TEXTURE_2D, g.CreateTexture())
	c.CompressedTexImage2D(gl.TEXTURE_2D, 0, 0x83F0, 8, 8, 0, img)
	c.CompressedTexSubImage2D(gl.TEXTURE_2D, 0, 4, 4, 4, 4, 0x83F0, block(0x001F))
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	checkGL(t, ctx, "upload")
	program(t, g, `attribute vec2 a_pos; varying vec2 v; void main() { v = a_pos * 0.5 + 0.5; gl_Position = vec4(a_pos, 0.0, 1.0); }`,
		`precision mediump float; uniform sampler2D s; varying vec2 v; void main() { gl_FragColor = texture2D(s, v); }`)
	quad(g, -1, 1)
	g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	px := pixels(t, ctx, 8, 8)
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			p := px[(y*8+x)*4:][:4]
			want := [4]byte{255, 0, 0, 255}
			if x >= 4 && y >= 4 {
				want = [4]byte{0, 0, 255, 255}
			}
			if [4]byte(p) != want {
				t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, p, want)
			}
		}
	}
}
