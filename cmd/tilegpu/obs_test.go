package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/internal/gputrace"
)

// captureStdout runs f with stdout going to a buffer.
func captureStdout(t *testing.T, f func() error) string {
	t.Helper()
	var buf bytes.Buffer
	old := stdout
	stdout = &buf
	defer func() { stdout = old }()
	if err := f(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// render -stats -json: one JSON object per image (render's -json), then
// the counters, those of the frame the image object describes (Spot:
// 5,856 triangles, 4×4 tiles at 256×256).
func TestRenderStatsJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "spot.png")
	text := captureStdout(t, func() error { return cmdRender([]string{"-size", "256", "-o", out, "-stats", "-json"}) })
	dec := json.NewDecoder(strings.NewReader(text))
	var img renderResult
	if err := dec.Decode(&img); err != nil {
		t.Fatalf("image object: %v in\n%s", err, text)
	}
	var got struct {
		Frames   int                `json:"frames"`
		Counters map[string]uint64  `json:"counters"`
		Ratios   map[string]float64 `json:"ratios"`
	}
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("counters object: %v in\n%s", err, text)
	}
	if dec.More() {
		t.Errorf("more than the image and counters objects in\n%s", text)
	}
	c := got.Counters
	if img.Output != out || img.Tiles != c["render.tiles"] || img.Fragments != c["fs.fragments_shaded"] {
		t.Errorf("image object %+v disagrees with the counters (tiles %d, fragments shaded %d)", img, c["render.tiles"], c["fs.fragments_shaded"])
	}
	if got.Frames != 1 || c["bin.primitives"] != 5856 || c["render.tiles"] != 16 {
		t.Errorf("frames %d, primitives %d, tiles %d; want 1, 5856, 16", got.Frames, c["bin.primitives"], c["render.tiles"])
	}
	if c["bin.binned"]+c["bin.culled"]+c["bin.rejected"] != c["bin.primitives"] {
		t.Errorf("binned %d + culled %d + rejected %d != primitives %d", c["bin.binned"], c["bin.culled"], c["bin.rejected"], c["bin.primitives"])
	}
	if c["fs.fragments_shaded"]-c["fs.fragments_discarded"]-c["tlb.fragments_depth_failed"] != c["tlb.fragments_written"] {
		t.Errorf("shaded %d − discarded %d − depth failed %d != written %d", c["fs.fragments_shaded"], c["fs.fragments_discarded"], c["tlb.fragments_depth_failed"], c["tlb.fragments_written"])
	}
	// Every tile-list entry is rasterised or removed by HSR.
	if c["bin.tile_refs"] != c["render.primitives"]+c["render.hsr_primitives"] {
		t.Errorf("tile-list entries %d != primitives rasterised %d + removed by HSR %d", c["bin.tile_refs"], c["render.primitives"], c["render.hsr_primitives"])
	}
	// The ratios are the counters' quotients (Spot's shaders dual-issue
	// and sample a texture in every stage that reads one).
	for _, st := range []string{"cs", "vs", "fs"} {
		r, ok := got.Ratios[st+".dual_issue_occupancy"]
		if c[st+".instructions"] == 0 {
			// No instructions in the stage (the vertex store can leave the
			// tiles nothing to shade): no ratio.
			if ok {
				t.Errorf("%s.dual_issue_occupancy = %v with no %s instructions", st, r, st)
			}
			continue
		}
		want := float64(c[st+".dual_issued"]) / float64(c[st+".instructions"])
		if !ok || r != want || r <= 0 || r > 1 {
			t.Errorf("%s.dual_issue_occupancy = %v (present %v), want %v in (0, 1]", st, r, ok, want)
		}
	}
	if c["fs.instructions"] == 0 || c["cs.instructions"]+c["vs.instructions"] == 0 {
		t.Errorf("no shader instructions counted: %v", c)
	}
	if r, want := got.Ratios["tmu.hit_rate"], 1-float64(c["tmu.page_misses"])/float64(c["tmu.texels"]); r != want || r <= 0.5 || r >= 1 {
		t.Errorf("tmu.hit_rate = %v, want %v (misses %d of %d texels)", r, want, c["tmu.page_misses"], c["tmu.texels"])
	}
	if _, ok := got.Ratios["cs.tmu_hit_rate"]; ok {
		t.Errorf("cs.tmu_hit_rate reported although the coordinate shader fetched no texels")
	}
	if c["render.bytes_written"] != 2*256*256*4 {
		t.Errorf("bytes written %d, want colour and depth/stencil stored once (%d)", c["render.bytes_written"], 2*256*256*4)
	}
}

// bench -stats prints a table of per-frame counts of the measured frames.
func TestBenchStatsTable(t *testing.T) {
	text := captureStdout(t, func() error {
		return cmdBench([]string{"-scene", "fill", "-frames", "1", "-width", "128", "-height", "64", "-stats"})
	})
	var shaded, frames string
	total := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 3 {
			total[f[0]] = f[1]
		}
		if len(f) == 3 && f[0] == "fs.fragments_shaded" {
			shaded, frames = f[1], f[2]
		}
	}
	// Every tile-list entry is rasterised once or removed by HSR (whose
	// coverage test rasterises candidates without counting them).
	var refs, prims, hsr int
	for _, c := range []struct {
		name string
		v    *int
	}{{"bin.tile_refs", &refs}, {"render.primitives", &prims}, {"render.hsr_primitives", &hsr}} {
		if _, err := fmt.Sscan(total[c.name], c.v); err != nil {
			t.Fatalf("%s: %v in\n%s", c.name, err, text)
		}
	}
	if hsr == 0 || refs != prims+hsr {
		t.Errorf("tile refs %d, rasterised %d, removed by HSR %d: want refs = rasterised + removed, some removed", refs, prims, hsr)
	}
	if shaded == "" || !strings.Contains(text, "counter") {
		t.Fatalf("no counter table:\n%s", text)
	}
	// SCENES.md "fill": 100 full-screen opaque layers per frame, of which
	// hidden-surface removal leaves the top one to shade; two frames
	// (warm-up and one timed).
	if shaded != "16384" || frames != "8192.0" {
		t.Errorf("fs.fragments_shaded = %s (per frame %s), want 16384 (8192.0)", shaded, frames)
	}
}

// render -trace writes a trace whose render pass covers every tile of the
// frame once and whose GL track holds the scene's draw.
func TestRenderTrace(t *testing.T) {
	dir := t.TempDir()
	tracePath := filepath.Join(dir, "trace.json")
	captureStdout(t, func() error {
		return cmdRender([]string{"-size", "128", "-o", filepath.Join(dir, "spot.png"), "-trace", tracePath})
	})
	data, err := os.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	if p := gputrace.CheckPerfettoImport(data); len(p) != 0 {
		t.Errorf("Perfetto's JSON importer would reject or flag:\n%s", strings.Join(p, "\n"))
	}
	var doc struct {
		TraceEvents []struct {
			Name string  `json:"name"`
			Cat  string  `json:"cat"`
			Ph   string  `json:"ph"`
			Ts   float64 `json:"ts"`
			Dur  float64 `json:"dur"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	tiles := map[string]bool{}
	var draws, renders int
	var rs, re float64
	for _, e := range doc.TraceEvents {
		switch {
		case e.Name == "glDrawElements":
			draws++
		case e.Cat == "render":
			renders++
			rs, re = e.Ts, e.Ts+e.Dur
		}
	}
	for _, e := range doc.TraceEvents {
		if e.Cat == "tile" {
			if e.Ts < rs || e.Ts+e.Dur > re+0.001 {
				t.Errorf("%s outside the render pass", e.Name)
			}
			tiles[e.Name] = true
		}
	}
	if draws != 1 || renders != 1 || len(tiles) != 4 {
		t.Errorf("trace has %d draws, %d render passes, tiles %v; want 1, 1 and the 4 tiles of 128×128", draws, renders, tiles)
	}
}

// tilegpu crashdec decodes a dump file; a file that is not a dump is an
// error naming it.
func TestCrashdecCommand(t *testing.T) {
	text := captureStdout(t, func() error { return cmdCrashdec([]string{"../../internal/crashdec/testdata/pagefault.json"}) })
	for _, want := range []string{"tilegpu crash dump: page fault", "draw: 2 (", "=> 00002000: e20f40000bad0000  li tmu_addr, 0xbad0000"} {
		if !strings.Contains(text, want) {
			t.Errorf("crashdec output lacks %q", want)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"Format":"x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cmdCrashdec([]string{bad}); err == nil || !strings.Contains(err.Error(), "bad.json") || !strings.Contains(err.Error(), "format") {
		t.Errorf("crashdec of a non-dump: %v", err)
	}
}

// heatmap tints each tile by its share of the maximum cost: the cheapest
// blue, the dearest red, with grid lines and the legend ramp below.
func TestHeatmapTintsTilesByCost(t *testing.T) {
	frame := image.NewNRGBA(image.Rect(0, 0, 128, 64))
	costs := []tilegpu.TileCost{
		{X: 0, Y: 0, W: 64, H: 64, Instructions: 0, Fragments: 64 * 64},
		{X: 64, Y: 0, W: 64, H: 64, Instructions: 500, Fragments: 3 * 64 * 64},
	}
	img, err := heatmap(frame, costs, "instructions")
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 128 || b.Dy() != 64+legendHeight {
		t.Fatalf("heat map is %v", b)
	}
	cheap, dear := img.NRGBAAt(32, 32), img.NRGBAAt(96, 32)
	if cheap.B <= cheap.R || dear.R <= dear.B || dear.G > 10 {
		t.Errorf("cheap tile %v should be blue, dear tile %v red", cheap, dear)
	}
	if g := img.NRGBAAt(64, 10); g != (color.NRGBA{0, 0, 0, 255}) {
		t.Errorf("grid line at the tile edge is %v", g)
	}
	if l, r := img.NRGBAAt(0, 64+8), img.NRGBAAt(127, 64+8); l != heatColor(0) || r != heatColor(1) {
		t.Errorf("legend ramp runs %v..%v", l, r)
	}
	over, err := heatmap(frame, costs, "overdraw")
	if err != nil {
		t.Fatal(err)
	}
	if c := over.NRGBAAt(32, 32); c.B <= c.R {
		t.Errorf("overdraw 1 of a maximum 3 drawn as %v, want the blue end", c)
	}
	if _, err := heatmap(frame, costs, "bogus"); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("unknown metric: %v", err)
	}
}

// render -heatmap writes the frame's heat map below which the legend sits.
func TestRenderHeatmap(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "heat.png")
	captureStdout(t, func() error {
		return cmdRender([]string{"-size", "128", "-o", filepath.Join(dir, "spot.png"), "-heatmap", out, "-heatmap-metric", "fragments"})
	})
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 128 || b.Dy() != 128+legendHeight {
		t.Errorf("heat map is %v, want 128×%d", b, 128+legendHeight)
	}
	if err := cmdRender([]string{"-size", "64", "-o", filepath.Join(dir, "x.png"), "-heatmap", out, "-heatmap-metric", "nope"}); err == nil {
		t.Error("unknown -heatmap-metric accepted")
	}
}

// render -overdraw: black where nothing was shaded (the corners), the
// ramp's colours where the cow is, the legend below.
func TestRenderOverdraw(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "over.png")
	captureStdout(t, func() error {
		return cmdRender([]string{"-size", "96", "-o", filepath.Join(dir, "spot.png"), "-overdraw", out})
	})
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 96 || b.Dy() != 96+legendHeight {
		t.Fatalf("overdraw image is %v", b)
	}
	if r, g, b, _ := img.At(0, 0).RGBA(); r|g|b != 0 {
		t.Errorf("corner (nothing shaded) is %v, want black", img.At(0, 0))
	}
	if r, g, b, _ := img.At(48, 48).RGBA(); r|g|b == 0 {
		t.Error("centre (the cow) is black: no fragments counted")
	}
}

func TestOverdrawImageScale(t *testing.T) {
	counts := image.NewNRGBA(image.Rect(0, 0, 4, 1))
	for x, n := range []uint8{0, 1, 2, 4} {
		counts.SetNRGBA(x, 0, color.NRGBA{n, 0, 0, 255})
	}
	img := overdrawImage(counts)
	if img.NRGBAAt(0, 0) != (color.NRGBA{0, 0, 0, 255}) || img.NRGBAAt(3, 0) != heatColor(1) || img.NRGBAAt(1, 0) != heatColor(0.25) {
		t.Errorf("counts 0,1,4 of max 4 drawn as %v %v %v", img.NRGBAAt(0, 0), img.NRGBAAt(1, 0), img.NRGBAAt(3, 0))
	}
}
