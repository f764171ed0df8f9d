package gles_test

import (
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// dEQP-GLES2.functional.uniform_api.*: 32 combined texture units — each
// stage samples up to 16 of them, together up to 32 at once.
func TestCombinedTextureUnits(t *testing.T) {
	ctx, g := newStack(t, 4, 4, 1)
	if n := g.GetInteger(gl.MAX_COMBINED_TEXTURE_IMAGE_UNITS); n != 32 {
		t.Fatalf("MAX_COMBINED_TEXTURE_IMAGE_UNITS = %d, want 32", n)
	}
	p := program(t, g, `attribute vec2 a_pos; uniform sampler2D vs[16]; varying vec4 v;
void main() { v = texture2DLod(vs[15], vec2(0.5), 0.0); gl_Position = vec4(a_pos, 0.0, 1.0); }`,
		`precision mediump float; uniform sampler2D fs[16]; varying vec4 v;
void main() { gl_FragColor = v + texture2D(fs[15], vec2(0.5)); }`)
	units := make([]int32, 16)
	for i := range units {
		units[i] = int32(i)
	}
	g.Uniform1iv(g.GetUniformLocation(p, "vs"), units)
	for i := range units {
		units[i] = int32(16 + i)
	}
	g.Uniform1iv(g.GetUniformLocation(p, "fs"), units)
	for unit, texel := range map[int][]byte{15: {200, 0, 0, 255}, 31: {0, 0, 100, 0}} {
		g.ActiveTexture(gl.TEXTURE0 + gl.Enum(unit))
		tex := g.CreateTexture()
		g.BindTexture(gl.TEXTURE_2D, tex)
		g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, texel)
		g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	}
	checkGL(t, ctx, "textures on units 15 and 31")
	quad(g, -1, 1)
	g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	checkGL(t, ctx, "draw")
	if px := pixels(t, ctx, 4, 4); px[0] != 200 || px[2] != 100 {
		t.Errorf("pixel %v, want 200,0,100 (vertex unit 15 + fragment unit 31)", px[:4])
	}
}
