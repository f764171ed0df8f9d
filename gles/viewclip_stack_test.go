package gles_test

import (
	"math"
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// dEQP-GLES2.functional.clipping.triangle_vertex.*: a triangle with vertices
// far outside the view volume, drawn into a small viewport, covers exactly
// its part inside the viewport — nothing of the framebuffer around it, which
// the hardware's guard band alone would let through — and a clear
// afterwards still covers the whole framebuffer.
func TestTrianglesClippedToViewport(t *testing.T) {
	const size = 64
	ctx, g := newStack(t, size, size, 1)
	program(t, g, `attribute vec4 a_pos; void main() { gl_Position = a_pos; }`,
		`precision mediump float; void main() { gl_FragColor = vec4(1.0); }`)
	v := []float32{2.36879, 3.55319, 0, 11.844, 0, -201012, 0, 6.70041, -256040, 256040, 0, 8.53467}
	buf := g.CreateBuffer()
	g.BindBuffer(gl.ARRAY_BUFFER, buf)
	g.BufferData(gl.ARRAY_BUFFER, f32s(v...), gl.STATIC_DRAW)
	g.VertexAttribPointer(gl.Attrib{Value: 0}, 4, gl.FLOAT, false, 0, 0)
	g.EnableVertexAttribArray(gl.Attrib{Value: 0})
	vx, vy, vw, vh := 12, 12, 24, 24
	for _, scissor := range []bool{false, true} {
		g.Viewport(vx, vy, vw, vh)
		g.Scissor(0, 0, 20, size)
		if scissor {
			g.Enable(gl.SCISSOR_TEST)
		}
		g.ClearColor(0, 0, 0, 1)
		g.Disable(gl.SCISSOR_TEST)
		g.Clear(gl.COLOR_BUFFER_BIT)
		if scissor {
			g.Enable(gl.SCISSOR_TEST)
		}
		g.DrawArrays(gl.TRIANGLES, 0, 3)
		checkGL(t, ctx, "draw")
		px := pixels(t, ctx, size, size)
		// The triangle in window coordinates, for the expected coverage.
		type p2 struct{ x, y float64 }
		var q [3]p2
		for i := range q {
			w := float64(v[i*4+3])
			q[i] = p2{(float64(v[i*4])/w+1)*float64(vw)/2 + float64(vx), (float64(v[i*4+1])/w+1)*float64(vh)/2 + float64(vy)}
		}
		// edge is the signed distance of (x, y) from the line a→b, in pixels.
		edge := func(a, b p2, x, y float64) float64 {
			return ((b.x-a.x)*(y-a.y) - (b.y-a.y)*(x-a.x)) / math.Hypot(b.x-a.x, b.y-a.y)
		}
		wrong := 0
		for y := 0; y < size; y++ {
			for x := 0; x < size; x++ {
				cx, cy := float64(x)+0.5, float64(y)+0.5
				e0, e1, e2 := edge(q[0], q[1], cx, cy), edge(q[1], q[2], cx, cy), edge(q[2], q[0], cx, cy)
				if min(math.Abs(e0), math.Abs(e1), math.Abs(e2)) < 1 {
					continue // on an edge: either answer is right
				}
				in := ((e0 > 0 && e1 > 0 && e2 > 0) || (e0 < 0 && e1 < 0 && e2 < 0)) &&
					x >= vx && x < vx+vw && y >= vy && y < vy+vh && (!scissor || x < 20)
				if got := px[(y*size+x)*4] > 128; got != in {
					wrong++
				}
			}
		}
		if wrong > 0 {
			t.Errorf("scissor %v: %d pixels differ from the triangle clipped to the viewport", scissor, wrong)
		}
	}
	g.Disable(gl.SCISSOR_TEST)
	g.ClearColor(1, 0, 0, 1)
	g.Clear(gl.COLOR_BUFFER_BIT)
	if px := pixels(t, ctx, size, size); px[0] != 255 || px[len(px)-4] != 255 {
		t.Error("a clear after a viewport-clipped draw did not cover the framebuffer")
	}
}
