package gles_test

import (
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// dEQP-GLES2.functional.polygon_offset.default_render_with_units: a
// polygon offset of ±1 unit moves the depth by one step of the depth
// buffer, also at depths where the window z maps exactly onto a step
// (NDC z = 0 → window z 0.5).
func TestPolygonOffsetOneUnit(t *testing.T) {
	ctx, g := newStack(t, 16, 16, 1)
	program(t, g, `attribute vec4 a_pos; void main() { gl_Position = a_pos; }`,
		`precision mediump float; uniform vec4 c; void main() { gl_FragColor = c; }`)
	p := gl.Program{Init: true, Value: uint32(g.GetInteger(gl.CURRENT_PROGRAM))}
	u := g.GetUniformLocation(p, "c")
	g.Enable(gl.DEPTH_TEST)
	g.Enable(gl.POLYGON_OFFSET_FILL)
	g.DepthFunc(gl.LESS)
	for _, tc := range []struct {
		z             float32
		first, second float32 // units of the first and the second draw
	}{{0, 0, -1}, {0, 1, 0}, {0.3, 0, -1}, {0.3, 1, 0}, {-0.77, 1, 0}} {
		buf := g.CreateBuffer()
		g.BindBuffer(gl.ARRAY_BUFFER, buf)
		g.BufferData(gl.ARRAY_BUFFER, f32s(-1, -1, tc.z, 1, 1, -1, tc.z, 1, -1, 1, tc.z, 1, 1, 1, tc.z, 1), gl.STATIC_DRAW)
		g.VertexAttribPointer(gl.Attrib{Value: 0}, 4, gl.FLOAT, false, 0, 0)
		g.EnableVertexAttribArray(gl.Attrib{Value: 0})
		g.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
		g.PolygonOffset(0, tc.first)
		g.Uniform4f(u, 1, 1, 1, 1)
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		g.PolygonOffset(0, tc.second)
		g.Uniform4f(u, 0, 1, 0, 1)
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		px := pixels(t, ctx, 16, 16)
		if px[0] != 0 || px[1] != 255 {
			t.Errorf("z %v, units %v then %v: pixel %v, want the second (green) draw in front", tc.z, tc.first, tc.second, px[:4])
		}
	}
}
