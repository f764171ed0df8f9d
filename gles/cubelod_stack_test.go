package gles_test

import (
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// dEQP-GLES2.functional.texture.mipmap.cube.* and texture.size.cube.*_mipmap:
// along a primitive's edge that is also a cube face's edge, the helper
// lanes of a 2×2 quad extrapolate onto another face; the level of detail
// must still come from one face's coordinates, not from differences
// between unrelated faces.
func TestCubeLODAtFaceEdges(t *testing.T) {
	const N = 8
	ctx, g := newStack(t, N, N, 1)
	program(t, g, `attribute vec2 a_pos; varying vec3 v;
void main() { v = vec3(1.0, -a_pos.y, -a_pos.x / 0.75); gl_Position = vec4(a_pos, 0.0, 1.0); }`,
		`precision mediump float; uniform samplerCube s; varying vec3 v; void main() { gl_FragColor = textureCube(s, v); }`)
	tex := g.CreateTexture()
	g.BindTexture(gl.TEXTURE_CUBE_MAP, tex)
	for l, sz := 0, 8; sz >= 1; l, sz = l+1, sz/2 {
		for f := 0; f < 6; f++ {
			px := make([]byte, sz*sz*4)
			for i := 0; i < len(px); i += 4 {
				px[i], px[i+1], px[i+2], px[i+3] = byte(l*60), 0, 0, 255
			}
			g.TexImage2D(gl.TEXTURE_CUBE_MAP_POSITIVE_X+gl.Enum(f), l, gl.RGBA, sz, sz, gl.RGBA, gl.UNSIGNED_BYTE, px)
		}
	}
	g.TexParameteri(gl.TEXTURE_CUBE_MAP, gl.TEXTURE_MIN_FILTER, gl.NEAREST_MIPMAP_NEAREST)
	g.TexParameteri(gl.TEXTURE_CUBE_MAP, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	g.ClearColor(0, 0, 1, 1)
	g.Clear(gl.COLOR_BUFFER_BIT)
	quad(g, -0.75, 0.75) // pixels 1..6: the +X face's 8 texels over 6 pixels, λ ≈ 0.4 → level 0
	g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	px := pixels(t, ctx, N, N)
	for y := 0; y < N; y++ {
		for x := 1; x < N-1; x++ {
			if r := px[(y*N+x)*4]; r != 0 {
				t.Errorf("pixel %d,%d sampled level %d, want level 0", x, y, r/60)
			}
		}
	}
}
