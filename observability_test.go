package tilegpu

import (
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// drawDepthPair draws a full-screen quad at depth zNear and then one at
// zFar behind it with depth test LESS: the second one's fragments all fail.
func drawDepthPair(t *testing.T, ctx *Context) {
	t.Helper()
	g := ctx.GL()
	p := buildProgram(t, g,
		"attribute vec2 a_pos; uniform float u_z; void main() { gl_Position = vec4(a_pos, u_z, 1.0); }",
		"precision mediump float; uniform vec4 u_color; void main() { gl_FragColor = u_color; }")
	g.UseProgram(p)
	positions(g, -1, -1, 1, -1, -1, 1, -1, 1, 1, -1, 1, 1)
	g.ClearColor(0, 0, 0, 1)
	g.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	g.Enable(gl.DEPTH_TEST)
	g.DepthFunc(gl.LESS)
	for _, z := range []float32{0, 0.5} {
		g.Uniform1f(g.GetUniformLocation(p, "u_z"), z)
		g.Uniform4f(g.GetUniformLocation(p, "u_color"), 1, z, 0, 1)
		g.DrawArrays(gl.TRIANGLES, 0, 6)
	}
	if e := g.GetError(); e != gl.NO_ERROR {
		t.Fatalf("GL error %#x: %v", e, ctx.GLES().LastDriverError())
	}
}

func counterMap(t *testing.T, ctx *Context) map[string]uint64 {
	t.Helper()
	cs, err := ctx.Counters()
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]uint64{}
	for _, c := range cs {
		m[c.Name] = c.Value
	}
	return m
}

// The context's counters follow from what was drawn: every pixel written
// once (the near quad), every fragment of the far quad rejected by the
// depth test (early or late), four triangles binned into four tiles.
func TestCountersFollowTheFrame(t *testing.T) {
	const w, h = 128, 96
	ctx := newTestContext(t, Config{Width: w, Height: h, Cores: 2})
	drawDepthPair(t, ctx)
	m := counterMap(t, ctx)
	if got := m["tlb.fragments_written"]; got != w*h {
		t.Errorf("fragments written = %d, want %d (the near quad only)", got, w*h)
	}
	rejected := m["tlb.fragments_depth_failed"] + m["render.fragments_early_z_killed"]
	if rejected != w*h {
		t.Errorf("depth-rejected fragments = %d late + %d early, want %d", m["tlb.fragments_depth_failed"], m["render.fragments_early_z_killed"], w*h)
	}
	if q := m["render.quads_early_z_killed"]; q*4 < m["render.fragments_early_z_killed"] {
		t.Errorf("%d early-killed quads cannot hold %d early-killed fragments", q, m["render.fragments_early_z_killed"])
	}
	if got, want := m["fs.fragments_shaded"], w*h+m["tlb.fragments_depth_failed"]; got != want {
		t.Errorf("fragments shaded = %d, want %d", got, want)
	}
	if m["bin.primitives"] != 4 || m["bin.binned"] != 4 || m["bin.culled"] != 0 {
		t.Errorf("binner: primitives %d binned %d culled %d, want 4 4 0", m["bin.primitives"], m["bin.binned"], m["bin.culled"])
	}
	if m["render.tiles"]%4 != 0 || m["render.tiles"] == 0 {
		t.Errorf("tiles rendered = %d, want a multiple of the 4 tiles of a %d×%d frame", m["render.tiles"], w, h)
	}
	if m["fs.instructions"] == 0 || m["vs.instructions"] == 0 || m["cs.instructions"] == 0 {
		t.Errorf("shader instructions not counted: %v", m)
	}
	if n := len(m); n != 27 {
		t.Errorf("%d counters, want 27", n)
	}
}
