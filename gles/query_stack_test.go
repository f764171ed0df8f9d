package gles_test

import (
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// EXT_occlusion_query_boolean through the whole stack: the hardware's
// occlusion counter decides each result.
func TestOcclusionQueryBoolean(t *testing.T) {
	const (
		anySamples   gl.Enum = 0x8C2F
		conservative gl.Enum = 0x8D6A
		current      gl.Enum = 0x8865
		result       gl.Enum = 0x8866
		available    gl.Enum = 0x8867
	)
	ctx, g := newStack(t, 96, 64, 2)
	c := ctx.GLES()
	p := program(t, g, `attribute vec2 a_pos; uniform float u_z; void main() { gl_Position = vec4(a_pos, u_z, 1.0); }`,
		`precision mediump float; void main() { gl_FragColor = vec4(1.0); }`)
	z := g.GetUniformLocation(p, "u_z")
	g.Enable(gl.DEPTH_TEST)
	g.DepthFunc(gl.LESS)
	g.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	// The left half is covered near (z = -0.5).
	quad(g, -1, 0)
	g.Uniform1f(z, -0.5)
	g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)

	ids := make([]uint32, 5)
	for i := range ids {
		ids[i] = c.CreateQuery()
	}
	if c.IsQuery(ids[0]) {
		t.Error("a generated name is a query object before BeginQuery")
	}
	run := func(id uint32, target gl.Enum, draw func()) {
		t.Helper()
		c.BeginQuery(target, id)
		if cur, _ := c.GetQueryiv(target, current); cur != int32(id) {
			t.Errorf("CURRENT_QUERY = %d, want %d", cur, id)
		}
		if _, ok := c.GetQueryObjectuiv(id, result); ok || g.GetError() != gl.INVALID_OPERATION {
			t.Error("the result of the active query: want INVALID_OPERATION")
		}
		draw()
		c.EndQuery(target)
		checkGL(t, ctx, "query")
	}
	farQuad := func(x0, x1 float32) func() {
		return func() { quad(g, x0, x1); g.Uniform1f(z, 0.5); g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4) }
	}
	run(ids[0], anySamples, farQuad(-1, 0))     // hidden behind the near half
	run(ids[1], anySamples, farQuad(-0.5, 0.5)) // half of it visible
	run(ids[2], conservative, func() {})        // nothing drawn
	run(ids[3], conservative, func() {          // visible, but writes no colour
		g.ColorMask(false, false, false, false)
		farQuad(0.5, 1)()
		g.ColorMask(true, true, true, true)
	})
	// Drawn under the counter, then covered by an opaque draw after it
	// (hidden-surface removal must not drop it).
	g.Disable(gl.DEPTH_TEST)
	run(ids[4], anySamples, farQuad(-1, -0.5))
	quad(g, -1, 1)
	g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)

	for i, want := range []uint32{0, 1, 0, 1, 1} {
		got, ok := c.GetQueryObjectuiv(ids[i], result)
		if !ok || got != want {
			t.Errorf("query %d: QUERY_RESULT = %d (ok %v), want %d", i, got, ok, want)
		}
		if av, _ := c.GetQueryObjectuiv(ids[i], available); av != 1 {
			t.Errorf("query %d: QUERY_RESULT_AVAILABLE = %d after the result", i, av)
		}
		if !c.IsQuery(ids[i]) {
			t.Errorf("query %d: IsQuery false after use", i)
		}
	}
	checkGL(t, ctx, "results")

	// Errors.
	for _, tc := range []struct {
		name string
		call func()
		want gl.Enum
	}{
		{"begin name 0", func() { c.BeginQuery(anySamples, 0) }, gl.INVALID_OPERATION},
		{"begin bad target", func() { c.BeginQuery(gl.TEXTURE_2D, ids[0]) }, gl.INVALID_ENUM},
		{"begin never generated", func() { c.BeginQuery(anySamples, 999) }, gl.INVALID_OPERATION},
		{"begin other target", func() { c.BeginQuery(conservative, ids[0]) }, gl.INVALID_OPERATION},
		{"end not active", func() { c.EndQuery(anySamples) }, gl.INVALID_OPERATION},
		{"begin while active", func() {
			c.BeginQuery(anySamples, ids[0])
			c.BeginQuery(conservative, ids[2])
			e := g.GetError()
			c.EndQuery(anySamples)
			c.RecordError(e)
		}, gl.INVALID_OPERATION},
		{"result of a non-query", func() { c.GetQueryObjectuiv(999, result) }, gl.INVALID_OPERATION},
		{"bad pname", func() { c.GetQueryObjectuiv(ids[0], gl.TEXTURE_2D) }, gl.INVALID_ENUM},
	} {
		tc.call()
		if e := g.GetError(); e != tc.want {
			t.Errorf("%s: error %#x, want %#x", tc.name, e, tc.want)
		}
	}
	// Deleting the active query ends it.
	c.BeginQuery(anySamples, ids[1])
	c.DeleteQuery(ids[1])
	if cur, _ := c.GetQueryiv(anySamples, current); cur != 0 || c.IsQuery(ids[1]) {
		t.Errorf("after deleting the active query: CURRENT_QUERY %d, IsQuery %v", cur, c.IsQuery(ids[1]))
	}
	checkGL(t, ctx, "delete")
}
