package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"io"
	"os"
	"text/tabwriter"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/scene"
)

// obsFlags are the observability flags render and bench share.
type obsFlags struct {
	stats    *bool
	json     *bool
	trace    *string
	heatmap  *string
	metric   *string
	overdraw *string
	counter  map[string]uint64 // counters before the measured part (bench)
}

// addObsFlags adds -stats and -trace, and -json unless the command has
// its own (render's -json also prints its per-image objects as JSON):
// jsonFlag is that flag, or nil. A flag defined twice panics.
func addObsFlags(fs *flag.FlagSet, jsonFlag *bool) *obsFlags {
	o := &obsFlags{
		stats: fs.Bool("stats", false, "print the GPU's performance counters for the context's work (a table)"),
		json:  jsonFlag,
		trace: fs.String("trace", "", "write a Chrome trace-event JSON timeline (GL calls, driver, kernel queues, rings, tiles per core) to this `file`; open it in ui.perfetto.dev"),
	}
	if o.json == nil {
		o.json = fs.Bool("json", false, "with -stats: print the counters as JSON")
	}
	return o
}

// active reports whether a flag asks for the local GPU's counters,
// trace or views.
func (o *obsFlags) active() bool {
	return *o.stats || *o.trace != "" || o.wantsImage()
}

// wantsImage reports whether -heatmap or -overdraw was given (they show
// one frame).
func (o *obsFlags) wantsImage() bool {
	return (o.heatmap != nil && *o.heatmap != "") || (o.overdraw != nil && *o.overdraw != "")
}

// addHeatmapFlags adds -heatmap (render only: it draws over the frame).
func (o *obsFlags) addHeatmapFlags(fs *flag.FlagSet) {
	o.heatmap = fs.String("heatmap", "", "write a PNG of the frame with each tile tinted by its cost and a legend")
	o.metric = fs.String("heatmap-metric", "instructions", "the -heatmap cost: instructions, fragments, overdraw (fragments per pixel) or time (µs on the render core)")
	o.overdraw = fs.String("overdraw", "", "write a PNG of how many fragments were shaded at each pixel (the frame rendered again in the GPU's overdraw view), with a legend")
}

// writeOverdraw renders the frame again on a context in the GPU's
// overdraw view and writes -overdraw's PNG.
func (o *obsFlags) writeOverdraw(cfg tilegpu.Config, draw func(gl.Context) (scene.Stats, error)) error {
	if o.overdraw == nil || *o.overdraw == "" || draw == nil {
		return nil
	}
	cfg = tilegpu.Config{Width: cfg.Width, Height: cfg.Height, Cores: cfg.Cores, MemorySize: cfg.MemorySize, Overdraw: true}
	ctx, err := tilegpu.NewContext(cfg)
	if err != nil {
		return err
	}
	defer ctx.Close()
	if _, err := draw(ctx.GL()); err != nil {
		return err
	}
	counts, err := ctx.Image()
	if err != nil {
		return err
	}
	return writeImage(*o.overdraw, overdrawImage(counts))
}

// writeHeatmap writes -heatmap's PNG over frame.
func (o *obsFlags) writeHeatmap(ctx *tilegpu.Context, frame *image.NRGBA) error {
	if o.heatmap == nil || *o.heatmap == "" || ctx == nil || frame == nil {
		return nil
	}
	costs, err := ctx.TileCosts()
	if err != nil {
		return err
	}
	img, err := heatmap(frame, costs, *o.metric)
	if err != nil {
		return err
	}
	return writeImage(*o.heatmap, img)
}

// configure sets the context options the flags need.
func (o *obsFlags) configure(cfg *tilegpu.Config) error {
	cfg.Trace = *o.trace != ""
	if o.heatmap != nil && *o.heatmap != "" {
		if _, ok := heatMetrics[*o.metric]; !ok {
			return fmt.Errorf("-heatmap-metric %q: want instructions, fragments, overdraw or time", *o.metric)
		}
		cfg.TileCosts = true
	}
	return nil
}

// writeTrace writes -trace's file.
func (o *obsFlags) writeTrace(ctx *tilegpu.Context) error {
	if *o.trace == "" || ctx == nil {
		return nil
	}
	f, err := os.Create(*o.trace)
	if err != nil {
		return err
	}
	if err := ctx.WriteTrace(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// begin notes the counters before the measured frames.
func (o *obsFlags) begin(ctx *tilegpu.Context) error {
	if !*o.stats || ctx == nil {
		return nil
	}
	cs, err := ctx.Counters()
	if err != nil {
		return err
	}
	o.counter = map[string]uint64{}
	for _, c := range cs {
		o.counter[c.Name] = c.Value
	}
	return nil
}

// report prints the counters accumulated since begin (since the context
// was created when begin was not called), with per-frame values.
func (o *obsFlags) report(w io.Writer, ctx *tilegpu.Context, frames int) error {
	if !*o.stats || ctx == nil {
		return nil
	}
	cs, err := ctx.Counters()
	if err != nil {
		return err
	}
	for i := range cs {
		cs[i].Value -= o.counter[cs[i].Name]
	}
	return writeCounters(w, cs, frames, *o.json)
}

// writeCounters prints counters as a table (name, total, per frame) and
// the ratios derived from them, or as JSON: {"frames": N, "counters":
// {"name": total, ...}, "ratios": {"name": value, ...}}.
func writeCounters(w io.Writer, cs []tilegpu.Counter, frames int, asJSON bool) error {
	frames = max(frames, 1)
	m := make(map[string]uint64, len(cs))
	for _, c := range cs {
		m[c.Name] = c.Value
	}
	rs := counterRatios(m)
	if asJSON {
		rm := make(map[string]float64, len(rs))
		for _, r := range rs {
			rm[r.name] = r.value
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Frames   int                `json:"frames"`
			Counters map[string]uint64  `json:"counters"`
			Ratios   map[string]float64 `json:"ratios"`
		}{frames, m, rm})
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "counter\ttotal\tper frame\t\n")
	for _, c := range cs {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t\n", c.Name, c.Value, float64(c.Value)/float64(frames))
	}
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%.3f\t\t\n", r.name, r.value)
	}
	return tw.Flush()
}

type counterRatio struct {
	name  string
	value float64
}

// counterRatios derives what a GPU engineer reads from the counters
// rather than the counts themselves: each shader stage's dual-issue
// occupancy (the model issues one instruction per cycle, so instructions
// are cycles) and the TMU page caches' hit rates. A ratio whose
// denominator is zero is left out.
func counterRatios(m map[string]uint64) []counterRatio {
	var rs []counterRatio
	ratio := func(name string, num, den uint64, complement bool) {
		if den == 0 {
			return
		}
		v := float64(num) / float64(den)
		if complement {
			v = 1 - v
		}
		rs = append(rs, counterRatio{name, v})
	}
	for _, st := range []string{"cs", "vs", "fs"} {
		ratio(st+".dual_issue_occupancy", m[st+".dual_issued"], m[st+".instructions"], false)
	}
	ratio("cs.tmu_hit_rate", m["cs.tmu_page_misses"], m["cs.tmu_texels"], true)
	ratio("tmu.hit_rate", m["tmu.page_misses"], m["tmu.texels"], true)
	return rs
}
