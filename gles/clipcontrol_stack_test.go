package gles_test

import (
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// EXT_clip_control through the whole stack: UPPER_LEFT draws the quadrant
// (-1,-1)..(0,0) at the top; culling keeps its meaning with either origin;
// ZERO_TO_ONE clips z < 0 and maps z ∈ [0,1] to depth z.
func TestClipControl(t *testing.T) {
	const (
		lowerLeft, upperLeft      gl.Enum = 0x8CA1, 0x8CA2
		negOneToOne, zeroToOne    gl.Enum = 0x935E, 0x935F
		clipOrigin, clipDepthMode gl.Enum = 0x935C, 0x935D
		W, H                              = 32, 32
	)
	ctx, g := newStack(t, W, H, 2)
	c := ctx.GLES()
	if o, d := g.GetInteger(clipOrigin), g.GetInteger(clipDepthMode); gl.Enum(o) != lowerLeft || gl.Enum(d) != negOneToOne {
		t.Errorf("initial state %#x %#x", o, d)
	}
	c.ClipControl(upperLeft, 0)
	if e := g.GetError(); e != gl.INVALID_ENUM {
		t.Errorf("bad depth mode: error %#x", e)
	}
	p := program(t, g, `attribute vec2 a_pos; uniform float u_z0, u_z1; void main() { gl_Position = vec4(a_pos, a_pos.x < 0.0 ? u_z0 : u_z1, 1.0); }`,
		`precision mediump float; uniform vec4 u_c; void main() { gl_FragColor = u_c; }`)
	z0, z1, col := g.GetUniformLocation(p, "u_z0"), g.GetUniformLocation(p, "u_z1"), g.GetUniformLocation(p, "u_c")
	buf := g.CreateBuffer()
	g.BindBuffer(gl.ARRAY_BUFFER, buf)
	g.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, 0)
	g.EnableVertexAttribArray(gl.Attrib{Value: 0})
	draw := func(xy ...float32) {
		g.BufferData(gl.ARRAY_BUFFER, f32s(xy...), gl.STATIC_DRAW)
		g.DrawArrays(gl.TRIANGLES, 0, len(xy)/2)
	}
	at := func(px []byte, x, y int) byte { return px[(y*W+x)*4+1] } // green
	g.Uniform4f(col, 0, 1, 0, 1)

	for _, origin := range []gl.Enum{upperLeft, lowerLeft} {
		c.ClipControl(origin, negOneToOne)
		g.ClearColor(1, 0, 0, 1)
		g.Clear(gl.COLOR_BUFFER_BIT)
		draw(-1, -1, 0, -1, -1, 0, 0, -1, 0, 0, -1, 0) // the quadrant (-1,-1)..(0,0), CCW
		px := pixels(t, ctx, W, H)
		top, bottom := at(px, 8, H-8) == 255, at(px, 8, 8) == 255
		if top != (origin == upperLeft) || bottom != (origin == lowerLeft) || at(px, W-8, 8) != 0 {
			t.Errorf("origin %#x: quadrant drawn top %v bottom %v", origin, top, bottom)
		}
		// Culling: CCW on the left, CW on the right, back faces culled.
		g.Enable(gl.CULL_FACE)
		g.Clear(gl.COLOR_BUFFER_BIT)
		draw(-1, -1, 0, -1, -1, 1, 0, -1, 0, 1, -1, 1, // CCW
			0, -1, 0, 1, 1, -1, 1, -1, 0, 1, 1, 1) // CW
		px = pixels(t, ctx, W, H)
		if at(px, 8, 16) != 255 || at(px, W-8, 16) != 0 {
			t.Errorf("origin %#x: culling kept left %v right %v (want the CCW left half only)", origin, at(px, 8, 16), at(px, W-8, 16))
		}
		g.Disable(gl.CULL_FACE)
	}

	// ZERO_TO_ONE: a quad from z -1 (left) to 1 (right) with depth ALWAYS
	// keeps the right half (z ≥ 0) and writes depth z there; a flat quad
	// at z 0.5 with LESS then wins only where the first was deeper.
	c.ClipControl(lowerLeft, zeroToOne)
	if d := g.GetInteger(clipDepthMode); gl.Enum(d) != zeroToOne {
		t.Errorf("CLIP_DEPTH_MODE %#x", d)
	}
	g.Enable(gl.DEPTH_TEST)
	g.ClearDepthf(0.25)
	g.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	g.DepthFunc(gl.ALWAYS)
	full := []float32{-1, -1, 1, -1, -1, 1, -1, 1, 1, -1, 1, 1}
	g.Uniform1f(z0, -1)
	g.Uniform1f(z1, 1)
	draw(full...)
	px := pixels(t, ctx, W, H)
	for x := 0; x < W; x++ {
		if drawn, want := at(px, x, 16) == 255, (float64(x)+0.5)/W*2-1 > 0; drawn != want {
			t.Fatalf("zero-to-one: pixel %d drawn %v, want %v", x, drawn, want)
		}
	}
	g.DepthFunc(gl.LESS)
	g.Uniform4f(col, 0, 0, 1, 1)
	g.Uniform1f(z0, 0.5)
	g.Uniform1f(z1, 0.5)
	draw(full...)
	px = pixels(t, ctx, W, H)
	for x := 0; x < W; x++ {
		zNDC := (float64(x)+0.5)/W*2 - 1
		depth := 0.25 // cleared, where the first quad was clipped
		if zNDC > 0 {
			depth = zNDC
		}
		if blue, want := px[(16*W+x)*4+2] == 255, 0.5 < depth; blue != want && (depth-0.5 > 0.02 || 0.5-depth > 0.02) {
			t.Fatalf("zero-to-one: pixel %d (depth %.3f) covered by z 0.5: %v, want %v", x, depth, blue, want)
		}
	}
	c.ClipControl(lowerLeft, negOneToOne)
	checkGL(t, ctx, "clip control")
}
