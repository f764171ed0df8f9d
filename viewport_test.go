package tilegpu

import (
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// TestViewportBoundsFragments: a triangle reaching far outside the view
// volume, drawn with a viewport covering the left half, colours only the
// left half. The GPU clips x and y only at its guard band, so the clip
// window must include the viewport; it held only the framebuffer and the
// scissor box, and the whole framebuffer turned red.
func TestViewportBoundsFragments(t *testing.T) {
	ctx := newTestContext(t, Config{Width: 16, Height: 8, Cores: 1})
	g := ctx.GL()
	g.UseProgram(buildProgram(t, g, "attribute vec2 a_pos; void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }",
		"precision mediump float; void main() { gl_FragColor = vec4(1.0, 0.0, 0.0, 1.0); }"))
	positions(g, -1, -1, 3, -1, -1, 3)
	g.ClearColor(0, 0, 1, 1)
	g.Clear(gl.COLOR_BUFFER_BIT)
	g.Viewport(0, 0, 8, 8)
	g.DrawArrays(gl.TRIANGLES, 0, 3)
	img, err := ctx.Image()
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < 8; y++ {
		for x := 0; x < 16; x++ {
			want := [4]uint8{255, 0, 0, 255} // inside the viewport
			if x >= 8 {
				want = [4]uint8{0, 0, 255, 255} // the clear colour
			}
			if c := img.NRGBAAt(x, y); [4]uint8{c.R, c.G, c.B, c.A} != want {
				t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, c, want)
			}
		}
	}
}
