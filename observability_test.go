package tilegpu

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/internal/gputrace"
	"github.com/tilegpu/tilegpu/kernel"
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
	// The tiles shade vertices or read them from the binner's vertex store.
	if m["fs.instructions"] == 0 || (m["vs.instructions"] == 0 && m["vs.stored_vertices"] == 0) || m["cs.instructions"] == 0 {
		t.Errorf("shader instructions not counted: %v", m)
	}
	if n := len(m); n != int(hw.NumCounters) {
		t.Errorf("%d counters, want %d", n, hw.NumCounters)
	}
}

type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	ID   string         `json:"id"`
	Args map[string]any `json:"args"`
}

// The trace of a frame names its tracks, holds the GL calls, submissions
// and compiles, and for every job its queue slices, its bin and render
// passes in order and its tiles inside the render pass, each tile once.
func TestTraceJSONContent(t *testing.T) {
	const w, h = 128, 96
	ctx := newTestContext(t, Config{Width: w, Height: h, Cores: 2, Trace: true})
	drawDepthPair(t, ctx)
	if _, err := ctx.Image(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ctx.WriteTrace(&buf); err != nil {
		t.Fatal(err)
	}
	if p := gputrace.CheckPerfettoImport(buf.Bytes()); len(p) != 0 {
		t.Errorf("Perfetto's JSON importer would reject or flag:\n%s", strings.Join(p, "\n"))
	}
	var doc struct {
		TraceEvents []traceEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	tracks := map[string]bool{}
	count := map[string]int{}
	type job struct {
		queued, submitted, binStart, binEnd, renderStart, renderEnd float64
		tiles                                                       map[string]bool
		tileFrags                                                   float64
	}
	jobs := map[float64]*job{}
	get := func(e traceEvent) *job {
		f, _ := e.Args["fence"].(float64)
		if jobs[f] == nil {
			jobs[f] = &job{tiles: map[string]bool{}}
		}
		return jobs[f]
	}
	last := -1e18
	var tiles []traceEvent
	for _, e := range doc.TraceEvents {
		if e.Ph == "M" {
			if e.Name == "thread_name" {
				tracks[e.Args["name"].(string)] = true
			}
			continue
		}
		if e.Ts < last {
			t.Errorf("event %q at %v after one at %v: not in time order", e.Name, e.Ts, last)
		}
		last = e.Ts
		count[e.Name]++
		switch {
		case e.Ph == "b" && e.Name == "ctx 1 normal: queued":
			get(e).queued = e.Ts
		case e.Ph == "b" && e.Name == "ctx 1 normal: submitted":
			get(e).submitted = e.Ts
		case e.Cat == "bin":
			j := get(e)
			j.binStart, j.binEnd = e.Ts, e.Ts+e.Dur
		case e.Cat == "render":
			j := get(e)
			j.renderStart, j.renderEnd = e.Ts, e.Ts+e.Dur
		case e.Cat == "tile":
			tiles = append(tiles, e)
		}
	}
	for _, want := range []string{"GL calls", "driver: job flushes (SUBMIT_CL)", "driver: shader compiles", "BIN ring", "RENDER ring"} {
		if !tracks[want] {
			t.Errorf("no track %q (have %v)", want, tracks)
		}
	}
	if !tracks["render core 0: tiles"] && !tracks["render core 1: tiles"] {
		t.Errorf("no render-core track (have %v)", tracks)
	}
	if count["glDrawArrays"] != 2 || count["glClear"] != 1 || count["glCompileShader"] != 2 || count["glLinkProgram"] != 1 {
		t.Errorf("GL calls: %v", count)
	}
	if count["compile vertex shader"] != 1 || count["compile fragment shader"] != 1 || count["link program"] != 1 || count["shader variant (back end)"] == 0 {
		t.Errorf("compiler events: %v", count)
	}
	if count["SUBMIT_CL"] == 0 || count["SUBMIT_CL"] != len(jobs) {
		t.Errorf("%d SUBMIT_CL events, %d jobs", count["SUBMIT_CL"], len(jobs))
	}
	for _, e := range tiles {
		j := get(e)
		if e.Ts < j.renderStart || e.Ts+e.Dur > j.renderEnd+0.001 {
			t.Errorf("tile %s at %v+%v outside its render pass %v..%v", e.Name, e.Ts, e.Dur, j.renderStart, j.renderEnd)
		}
		if j.tiles[e.Name] {
			t.Errorf("tile %s twice in one job", e.Name)
		}
		j.tiles[e.Name] = true
		j.tileFrags += e.Args["fragments"].(float64)
	}
	var frags float64
	for f, j := range jobs {
		if !(j.queued <= j.submitted && j.submitted <= j.binStart && j.binStart <= j.binEnd && j.binEnd <= j.renderStart && j.renderStart <= j.renderEnd) {
			t.Errorf("fence %v out of order: %+v", f, *j)
		}
		if len(j.tiles) != 4 {
			t.Errorf("fence %v: %d tiles, want the 4 of a %d×%d frame", f, len(j.tiles), w, h)
		}
		frags += j.tileFrags
	}
	m := counterMap(t, ctx)
	if frags != float64(m["fs.fragments_shaded"]) {
		t.Errorf("tiles shaded %v fragments, the counters say %d", frags, m["fs.fragments_shaded"])
	}
}

// Tracing off leaves the draw path as it is: GL is gles's own dispatch
// (no trace wrapper, no recorder calls), so a draw allocates less than with
// tracing on, which records an event per call.
func TestTracingOffAddsNothingToDraws(t *testing.T) {
	allocs := func(trace bool) (float64, gl.Context) {
		ctx := newTestContext(t, Config{Width: 64, Height: 64, Cores: 1, Trace: trace})
		drawDepthPair(t, ctx)
		g := ctx.GL()
		return testing.AllocsPerRun(100, func() { g.DrawArrays(gl.TRIANGLES, 0, 6) }), g
	}
	off, g := allocs(false)
	if _, traced := g.(tracedGL); traced {
		t.Fatalf("GL() with tracing off is %T, want gles's own context", g)
	}
	on, _ := allocs(true)
	if off >= on {
		t.Errorf("allocations per draw: %v with tracing off, %v on; off must not pay for the trace", off, on)
	}
	var buf bytes.Buffer
	ctx := newTestContext(t, Config{Width: 8, Height: 8})
	if err := ctx.WriteTrace(&buf); err == nil {
		t.Error("WriteTrace without Config.Trace succeeded")
	}
}

// With CrashDumpDir the driver puts a MARKER with the draw id before each
// draw in the binning list (ids count the context's draws from 1).
func TestCrashDumpDirTurnsOnDrawMarkers(t *testing.T) {
	var ids []uint32
	ctx := newTestContext(t, Config{Width: 64, Height: 64, Cores: 1, CrashDumpDir: t.TempDir(), Capture: func(c *kernel.Capture) {
		for off := 0; off < len(c.BinCL); {
			l, err := cl.NextRecord(c.BinCL, off)
			if err != nil {
				t.Errorf("bin CL: %v", err)
				return
			}
			var m cl.Marker
			if l.Opcode == cl.OpMarker && m.Unpack(c.BinCL[off:]) == nil {
				ids = append(ids, m.Id)
			}
			off += l.Size
		}
	}})
	drawDepthPair(t, ctx)
	if _, err := ctx.Image(); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[0] != 1 || ids[1] != 2 {
		t.Errorf("draw markers %v, want [1 2]", ids)
	}
	plain := newTestContext(t, Config{Width: 64, Height: 64, Cores: 1, Capture: func(c *kernel.Capture) {
		for off := 0; off < len(c.BinCL); {
			l, err := cl.NextRecord(c.BinCL, off)
			if err != nil {
				return
			}
			if l.Opcode == cl.OpMarker {
				t.Error("draw marker without CrashDumpDir or Trace")
			}
			off += l.Size
		}
	}})
	drawDepthPair(t, plain)
	if _, err := plain.Image(); err != nil {
		t.Fatal(err)
	}
}

// TileCosts covers the framebuffer with its tiles, top row first, and
// their fragments add up to the context's fs.fragments_shaded counter.
func TestTileCosts(t *testing.T) {
	const w, h = 128, 96
	ctx := newTestContext(t, Config{Width: w, Height: h, Cores: 2, TileCosts: true})
	drawDepthPair(t, ctx)
	costs, err := ctx.TileCosts()
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ x, y, w, h int }{{0, 0, 64, 32}, {64, 0, 64, 32}, {0, 32, 64, 64}, {64, 32, 64, 64}}
	if len(costs) != len(want) {
		t.Fatalf("%d tiles, want %d: %+v", len(costs), len(want), costs)
	}
	var frags uint64
	for i, c := range costs {
		if c.X != want[i].x || c.Y != want[i].y || c.W != want[i].w || c.H != want[i].h {
			t.Errorf("tile %d at %d,%d %dx%d, want %+v", i, c.X, c.Y, c.W, c.H, want[i])
		}
		if c.Fragments < uint64(c.W*c.H) || c.Instructions == 0 || c.Jobs == 0 {
			t.Errorf("tile %d,%d: %d fragments (at least its %d pixels), %d instructions, %d jobs", c.Col, c.Row, c.Fragments, c.W*c.H, c.Instructions, c.Jobs)
		}
		frags += c.Fragments
	}
	if m := counterMap(t, ctx); frags != m["fs.fragments_shaded"] {
		t.Errorf("tiles shaded %d fragments, the counters say %d", frags, m["fs.fragments_shaded"])
	}
	plain := newTestContext(t, Config{Width: 8, Height: 8})
	if _, err := plain.TileCosts(); err == nil {
		t.Error("TileCosts without Config.TileCosts succeeded")
	}
}

// The overdraw view counts shaded fragments per pixel: with depth test
// LESS the far quad is rejected before shading (count 1 everywhere); with
// depth test off and blending on (ONE, ZERO: the same colour, but
// hidden-surface removal may not drop the lower quad) both quads are
// shaded (count 2).
func TestOverdrawCountsShadedFragments(t *testing.T) {
	for _, tc := range []struct {
		depth bool
		want  uint8
	}{{true, 1}, {false, 2}} {
		const w, h = 96, 80
		ctx := newTestContext(t, Config{Width: w, Height: h, Cores: 2, Overdraw: true})
		drawDepthPair(t, ctx)
		if !tc.depth {
			g := ctx.GL()
			g.Disable(gl.DEPTH_TEST)
			g.Enable(gl.BLEND)
			g.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
			g.DrawArrays(gl.TRIANGLES, 0, 6)
			g.DrawArrays(gl.TRIANGLES, 0, 6)
		}
		img, err := ctx.Image()
		if err != nil {
			t.Fatal(err)
		}
		m := counterMap(t, ctx)
		var sum uint64
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				p := img.NRGBAAt(x, y)
				if p.R != tc.want || p.A != 255 {
					t.Fatalf("depth test %v: pixel %d,%d = %v, want count %d", tc.depth, x, y, p, tc.want)
				}
				sum += uint64(p.R)
			}
		}
		if tc.depth && sum != m["fs.fragments_shaded"] {
			t.Errorf("overdraw sums to %d, the counters shaded %d", sum, m["fs.fragments_shaded"])
		}
	}
}

// The QPU and TMU counters follow from the shader's work: one bilinear
// fetch per lane of every fragment batch (four texel words each, most of them served by
// the TMU's page cache), at least one SFU write per fragment batch
// (inversesqrt), dual-issued instructions a subset of the instructions.
func TestShaderUnitCounters(t *testing.T) {
	const w, h = 96, 64
	ctx := newTestContext(t, Config{Width: w, Height: h, Cores: 2})
	g := ctx.GL()
	p := buildProgram(t, g,
		"attribute vec2 a_pos; varying vec2 v_uv; void main() { v_uv = a_pos * 0.5 + 0.5; gl_Position = vec4(a_pos, 0.0, 1.0); }",
		"precision mediump float; uniform sampler2D s; varying vec2 v_uv;"+
			"void main() { gl_FragColor = texture2D(s, v_uv) * inversesqrt(v_uv.x + 1.0); }")
	g.UseProgram(p)
	positions(g, -1, -1, 1, -1, -1, 1, -1, 1, 1, -1, 1, 1)
	const tw = 64
	texels := make([]byte, 4*tw*tw)
	for i := range texels {
		texels[i] = byte(i * 7)
	}
	tex := g.CreateTexture()
	g.BindTexture(gl.TEXTURE_2D, tex)
	g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, tw, tw, gl.RGBA, gl.UNSIGNED_BYTE, texels)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
	g.DrawArrays(gl.TRIANGLES, 0, 6)
	if e := g.GetError(); e != gl.NO_ERROR {
		t.Fatalf("GL error %#x: %v", e, ctx.GLES().LastDriverError())
	}
	m := counterMap(t, ctx)
	if m["fs.fragments_shaded"] != w*h {
		t.Fatalf("fragments shaded = %d, want %d", m["fs.fragments_shaded"], w*h)
	}
	// The fetch is unconditional, so every lane of every batch requests
	// it: helper lanes (their results feed the derivatives that choose
	// the level) and the unused lanes of a partly filled batch too.
	if got, want := m["tmu.lanes"], 16*m["fs.batches"]; got != want {
		t.Errorf("tmu.lanes = %d, want %d (16 lanes of each of %d batches)", got, want, m["fs.batches"])
	}
	if got, want := m["tmu.texels"], 4*m["tmu.lanes"]; got != want {
		t.Errorf("tmu.texels = %d, want %d (bilinear: four per lane)", got, want)
	}
	if miss := m["tmu.page_misses"]; miss == 0 || miss*10 > m["tmu.texels"] {
		t.Errorf("tmu.page_misses = %d of %d texels: want some, and a hit rate above 90%% for a 16 KiB texture", miss, m["tmu.texels"])
	}
	if m["fs.sfu_ops"] < m["fs.batches"] {
		t.Errorf("fs.sfu_ops = %d < %d fragment batches (inversesqrt in every batch)", m["fs.sfu_ops"], m["fs.batches"])
	}
	for _, st := range []string{"cs", "vs", "fs"} {
		if m[st+".dual_issued"] > m[st+".instructions"] {
			t.Errorf("%s.dual_issued = %d > %d instructions", st, m[st+".dual_issued"], m[st+".instructions"])
		}
	}
	if m["cs.tmu_lanes"] != 0 || m["vs.sfu_ops"] != 0 {
		t.Errorf("vertex stages did no texture or SFU work, counted cs.tmu_lanes %d, vs.sfu_ops %d", m["cs.tmu_lanes"], m["vs.sfu_ops"])
	}
}
