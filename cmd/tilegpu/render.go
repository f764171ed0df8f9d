package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/scene"
)

// renderSynopsis heads `tilegpu render -h`.
const renderSynopsis = `usage: tilegpu render [flags] [MODEL|DIR ...]

Renders the default scene (Spot), or each model (.gltf, .glb, .stl, .obj; a
directory stands for the models in it), to one image each, and prints a
summary line per image (-json: one JSON object per line). The output format
follows -o's extension: .png, .jpg/.jpeg, or .gif (-turntable: an animated
GIF of N views around the model). With several models -o is a directory
(default: the current one) and each image is named after its model.
Flags may come before or after the models.

flags:
`

// optFloat is a float flag that may be left unset (and then shows no
// default in -h).
type optFloat struct {
	v   float64
	set bool
}

func (f *optFloat) String() string {
	if f == nil || !f.set {
		return ""
	}
	return strconv.FormatFloat(f.v, 'g', -1, 64)
}

func (f *optFloat) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("want a finite number")
	}
	f.v, f.set = v, true
	return nil
}

// animTimeFlag is -time: seconds, or a Go duration.
type animTimeFlag struct {
	seconds float32
	set     bool
}

func (f *animTimeFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return strconv.FormatFloat(float64(f.seconds), 'g', -1, 32) + "s"
}

func (f *animTimeFlag) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		d, derr := time.ParseDuration(s)
		if derr != nil {
			return fmt.Errorf("want seconds (0.5) or a duration (500ms)")
		}
		v = d.Seconds()
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1e6 {
		return fmt.Errorf("want a time from 0 to 1e6 seconds")
	}
	f.seconds, f.set = float32(v), true
	return nil
}

// newFlagSet makes a subcommand's flag set whose errors come back to main
// (which prints them once) and whose -h prints synopsis and flags on
// stdout.
func newFlagSet(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprint(stdout, synopsis)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parseInterspersed parses flags that may come before, between or after
// the positional arguments (models), which it returns; "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// modelExts are the model formats render reads (lower case).
var modelExts = map[string]bool{".gltf": true, ".glb": true, ".stl": true, ".obj": true}

// imageExts maps output extensions to their format.
var imageExts = map[string]string{".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".gif": "gif"}

// renderJob is one image to make: a model (or the default scene when
// input is "") and where to write it.
type renderJob struct{ input, output string }

// renderResult is what render reports for one image (-json prints it).
type renderResult struct {
	Input          string  `json:"input"` // model file; "" for the default scene
	Output         string  `json:"output"`
	Width          int     `json:"width"`
	Height         int     `json:"height"`
	Frames         int     `json:"frames"`    // 1, or the -turntable views
	Triangles      int     `json:"triangles"` // submitted, all frames
	TrianglesDrawn uint64  `json:"triangles_after_culling"`
	Tiles          uint64  `json:"tiles"`
	Instructions   uint64  `json:"shader_instructions"`     // 16-lane QPU instructions executed
	XlatInstrs     uint64  `json:"translated_instructions"` // of those, run by translated code
	XlatPrograms   uint64  `json:"programs_translated"`
	Vertices       uint64  `json:"vertices_shaded"`
	Fragments      uint64  `json:"fragments_shaded"`
	Milliseconds   float64 `json:"ms"` // rendering and read-back, not loading or encoding

	img  *image.NRGBA                          // the (last) frame, for -heatmap
	draw func(gl.Context) (scene.Stats, error) // draws the frame again, for -overdraw
}

func cmdRender(args []string) error {
	fs := newFlagSet("render", renderSynopsis)
	out := fs.String("o", "", "output `file` (.png, .jpg, .jpeg, .gif) or, with several models, directory (default out.png, out.gif with -turntable, . with several models)")
	size := fs.Int("size", 0, "framebuffer width and height in pixels (shorthand for -width N -height N)")
	width := fs.Int("width", 1024, "framebuffer width in pixels, 1..4096")
	height := fs.Int("height", 1024, "framebuffer height in pixels, 1..4096")
	format := fs.String("format", "png", "image format of outputs named after their models (several models or -o DIR): png, jpeg or gif")
	turntable := fs.Int("turntable", 0, "write an animated GIF of `N` views around the model (yaw steps of 360°/N)")
	jsonOut := fs.Bool("json", false, "print one JSON object per image (input, output, size, triangles, tiles, shader work, ms) instead of the summary line; with -stats the counters as one more JSON object")
	cores := fs.Int("cores", 0, "render worker cores (0: GOMAXPROCS)")
	decode := fs.Bool("decode", false, "print the frame's command streams decoded (ring packets, control lists, shader records, shaders); one image only")
	modelFlag := fs.String("model", "", "render this model `file` (same as naming it as an argument)")
	texPath := fs.String("texture", "", "with one .obj model: its texture `image` (PNG or JPEG)")
	cameraIdx := fs.Int("camera", -1, "view a glTF model through its camera `N` (0: the first the default scene places) instead of the automatic framing")
	var animTime animTimeFlag
	fs.Var(&animTime, "time", "pose a glTF model's animations (and skins) at this `time`: seconds (0.5) or a duration (500ms, 1.5s)")
	var yaw, pitch optFloat
	fs.Var(&yaw, "yaw", "camera yaw in `degrees` from the model's front (+Z) towards +X (default: automatic)")
	fs.Var(&pitch, "pitch", "camera pitch in `degrees` above the horizontal (default: automatic)")
	remote := fs.String("remote", "", "draw through a `tilegpu serve` service at ADDR (unix:PATH or tcp:HOST:PORT)")
	obs := addObsFlags(fs, jsonOut)
	obs.addHeatmapFlags(fs)
	models, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["size"] {
		if set["width"] || set["height"] {
			return fmt.Errorf("-size sets both -width and -height: give either -size or -width/-height")
		}
		*width, *height = *size, *size
	}
	if *width < 1 || *width > tilegpu.MaxSize || *height < 1 || *height > tilegpu.MaxSize {
		return fmt.Errorf("image size %d×%d out of range 1..%d", *width, *height, tilegpu.MaxSize)
	}
	if *cores < 0 {
		return fmt.Errorf("-cores %d: must not be negative", *cores)
	}
	if *turntable < 0 || *turntable > 3600 {
		return fmt.Errorf("-turntable %d out of range 0..3600 (0: a still image)", *turntable)
	}
	if *modelFlag != "" {
		if len(models) > 0 {
			return fmt.Errorf("-model %s and model arguments %q: name the models one way", *modelFlag, models)
		}
		models = []string{*modelFlag}
	}
	formatExt := map[string]string{"png": ".png", "jpeg": ".jpg", "jpg": ".jpg", "gif": ".gif"}[strings.ToLower(*format)]
	if formatExt == "" {
		return fmt.Errorf("-format %q: want png, jpeg or gif", *format)
	}
	if *turntable > 0 {
		formatExt = ".gif"
		if set["format"] && strings.ToLower(*format) != "gif" {
			return fmt.Errorf("-turntable writes animated GIFs, not -format %s", *format)
		}
	}
	jobs, err := renderJobs(models, *out, formatExt)
	if err != nil {
		return err
	}
	if *texPath != "" && (len(jobs) != 1 || jobs[0].input == "") {
		return fmt.Errorf("-texture needs exactly one .obj model")
	}
	if (yaw.set || pitch.set) && len(models) == 0 && *turntable == 0 {
		return fmt.Errorf("-yaw and -pitch need a model (or -turntable): the default scene has its own camera")
	}
	if *cameraIdx >= 0 && (len(models) == 0 || *turntable > 0 || yaw.set || pitch.set) {
		return fmt.Errorf("-camera needs a model, and excludes -turntable, -yaw and -pitch")
	}
	if animTime.set && len(models) == 0 {
		return fmt.Errorf("-time needs a glTF model with animations")
	}
	if *cameraIdx < -1 {
		return fmt.Errorf("-camera %d: cameras are numbered from 0", *cameraIdx)
	}
	if *decode && (len(jobs) > 1 || *turntable > 0) {
		return fmt.Errorf("-decode prints one frame's command streams: give one model and no -turntable")
	}
	for _, j := range jobs {
		if *turntable > 0 && strings.ToLower(filepath.Ext(j.output)) != ".gif" {
			return fmt.Errorf("-turntable writes an animated GIF: -o %s should end in .gif", j.output)
		}
	}

	cfg := tilegpu.Config{Width: *width, Height: *height, Cores: *cores}
	if *decode {
		cfg.Capture = newDecoder(stdout).capture
	}
	if err := obs.configure(&cfg); err != nil {
		return err
	}
	if *remote != "" && obs.active() {
		return fmt.Errorf("-stats, -trace, -heatmap and -overdraw read the local GPU: they do not apply with -remote")
	}
	if (obs.wantsImage()) && (len(jobs) > 1 || *turntable > 0) {
		return fmt.Errorf("-heatmap and -overdraw show one frame: give one model and no -turntable")
	}
	ctx, err := openTarget(*remote, cfg)
	if err != nil {
		return err
	}
	defer ctx.Close()
	frames := max(*turntable, 1)
	var last renderResult
	prog := newProgress(len(jobs)*frames, "rendering")
	defer prog.finish()
	for _, j := range jobs {
		res, err := renderOne(ctx, j, *texPath, yaw, pitch, *turntable, *cameraIdx, animTime, prog)
		last = res
		if err != nil {
			if j.input != "" {
				return fmt.Errorf("%s: %w", j.input, err)
			}
			return err
		}
		if *jsonOut {
			b, _ := json.Marshal(res)
			fmt.Fprintf(stdout, "%s\n", b)
			continue
		}
		if *remote != "" {
			// The GPU's counters belong to the service (shared by all
			// its clients): only what the client knows is printed.
			fmt.Fprintf(stdout, "rendered %s: %d×%d, %d triangles, %.1f ms through %s\n", res.Output, res.Width, res.Height, res.Triangles, res.Milliseconds, *remote)
			continue
		}
		fmt.Fprintf(stdout, "rendered %s: %d×%d, %d triangles (%d after culling), %d tiles, %.1f ms, %d shader instructions executed (16-lane; %d by translated code, %d programs translated), %d vertices and %d fragments shaded\n",
			res.Output, res.Width, res.Height, res.Triangles, res.TrianglesDrawn, res.Tiles, res.Milliseconds, res.Instructions, res.XlatInstrs, res.XlatPrograms, res.Vertices, res.Fragments)
	}
	if *remote == "" && !*jsonOut {
		fmt.Fprintln(stdout, countersLine(ctx.Stats(), len(jobs)*frames))
	}
	lc, _ := ctx.(*tilegpu.Context) // nil with -remote, where obs is inactive
	if err := obs.writeTrace(lc); err != nil {
		return err
	}
	if err := obs.writeHeatmap(lc, last.img); err != nil {
		return err
	}
	if err := obs.writeOverdraw(cfg, last.draw); err != nil {
		return err
	}
	return obs.report(stdout, lc, len(jobs)*frames)
}

// renderJobs pairs each model with its output. No models: the default
// scene to -o (default out.png). One model file: to -o, or into -o when it
// is a directory. Several models or a directory of them: into the
// directory -o (created if needed), each named after its model with ext.
func renderJobs(models []string, out, ext string) ([]renderJob, error) {
	var inputs []string
	batch := len(models) > 1
	for _, m := range models {
		st, err := os.Stat(m)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			if !modelExts[strings.ToLower(filepath.Ext(m))] {
				return nil, fmt.Errorf("%s: unknown model format %q (want .gltf, .glb, .stl or .obj)", m, filepath.Ext(m))
			}
			inputs = append(inputs, m)
			continue
		}
		batch = true
		entries, err := os.ReadDir(m)
		if err != nil {
			return nil, err
		}
		n := 0
		for _, e := range entries {
			if !e.IsDir() && modelExts[strings.ToLower(filepath.Ext(e.Name()))] {
				inputs = append(inputs, filepath.Join(m, e.Name()))
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: no models (.gltf, .glb, .stl, .obj) in the directory", m)
		}
	}
	outIsDir := strings.HasSuffix(out, "/") || strings.HasSuffix(out, string(filepath.Separator))
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		outIsDir = true
	}
	if !batch && !outIsDir {
		if out == "" {
			out = "out" + ext
		}
		if imageExts[strings.ToLower(filepath.Ext(out))] == "" {
			return nil, fmt.Errorf("-o %s: unknown image format %q (want .png, .jpg, .jpeg or .gif)", out, filepath.Ext(out))
		}
		in := ""
		if len(inputs) == 1 {
			in = inputs[0]
		}
		return []renderJob{{input: in, output: out}}, nil
	}
	dir := out
	if dir == "" {
		dir = "."
	}
	if !outIsDir && imageExts[strings.ToLower(filepath.Ext(out))] != "" {
		return nil, fmt.Errorf("-o %s: several models need an output directory", out)
	}
	if len(inputs) == 0 {
		inputs = []string{""}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var jobs []renderJob
	seen := map[string]string{}
	for _, in := range inputs {
		base := "out"
		if in != "" {
			base = strings.TrimSuffix(filepath.Base(in), filepath.Ext(in))
		}
		o := filepath.Join(dir, base+ext)
		if prev, ok := seen[o]; ok {
			return nil, fmt.Errorf("%s and %s would both be written to %s", prev, in, o)
		}
		seen[o] = in
		jobs = append(jobs, renderJob{input: in, output: o})
	}
	return jobs, nil
}

// renderOne renders one job on ctx (whose framebuffer is the image size)
// and writes its image.
func renderOne(ctx drawTarget, j renderJob, texPath string, yaw, pitch optFloat, turntable, cameraIdx int, animTime animTimeFlag, prog progress) (renderResult, error) {
	cfgW, cfgH := ctx.Size()
	res := renderResult{Input: j.input, Output: j.output, Width: cfgW, Height: cfgH, Frames: max(turntable, 1)}
	var model *scene.Model
	var err error
	switch {
	case j.input != "":
		if model, err = loadModel(j.input, texPath); err != nil {
			return res, err
		}
		if animTime.set {
			if len(model.Animations) == 0 {
				return res, fmt.Errorf("-time %s: the model has no animations", animTime.String())
			}
			model = model.Pose(animTime.seconds)
		}
	case turntable > 0:
		if model, err = spotModel(); err != nil {
			return res, err
		}
	}
	var view scene.View
	if model != nil {
		view = scene.DefaultView(model)
		if yaw.set {
			view.Yaw = float32(yaw.v * math.Pi / 180)
		}
		if pitch.set {
			view.Pitch = float32(pitch.v * math.Pi / 180)
		}
	}
	before := ctx.Stats()
	var imgs []*image.NRGBA
	var el time.Duration
	for f := range res.Frames {
		t0 := time.Now()
		res.draw = func(g gl.Context) (scene.Stats, error) {
			switch {
			case model == nil:
				return scene.DrawSpot(g, cfgW, cfgH)
			case cameraIdx >= 0:
				return scene.DrawModelCamera(g, model, cfgW, cfgH, cameraIdx)
			default:
				v := view
				v.Yaw += float32(2 * math.Pi * float64(f) / float64(res.Frames))
				return scene.DrawModelView(g, model, cfgW, cfgH, v)
			}
		}
		st, err := res.draw(ctx.GL())
		if err != nil {
			return res, err
		}
		var img *image.NRGBA
		if _, single := prog.(noProgress); single {
			// One image: show its tiles (a batch shows images instead).
			img, err = imageWithProgress(ctx, "rendering "+filepath.Base(j.output))
		} else {
			img, err = ctx.Image()
		}
		if err != nil {
			return res, err
		}
		el += time.Since(t0)
		res.Triangles += st.Triangles
		imgs = append(imgs, img)
		res.img = img
		prog.step(filepath.Base(j.output))
	}
	after := ctx.Stats()
	res.Milliseconds = float64(el.Microseconds()) / 1000
	res.TrianglesDrawn = after.Triangles - before.Triangles
	res.Tiles = after.Tiles - before.Tiles
	res.Instructions = after.Instructions - before.Instructions
	res.XlatInstrs = after.XlatInstructions - before.XlatInstructions
	res.XlatPrograms = after.ProgramsTranslated - before.ProgramsTranslated
	res.Vertices = after.Vertices - before.Vertices
	res.Fragments = after.Fragments - before.Fragments
	if turntable > 0 {
		return res, writeTurntable(j.output, imgs)
	}
	return res, writeImage(j.output, imgs[0])
}

// spotModel is the default scene's cow as a Model (for -turntable).
func spotModel() (*scene.Model, error) {
	mesh, err := scene.Spot()
	if err != nil {
		return nil, err
	}
	tex, err := scene.SpotTexture()
	if err != nil {
		return nil, err
	}
	return scene.ModelFromMesh(mesh, tex), nil
}

// loadModel loads -model, giving an OBJ the -texture image.
func loadModel(path, texPath string) (*scene.Model, error) {
	if texPath == "" {
		return scene.LoadModelFile(path)
	}
	if !strings.EqualFold(filepath.Ext(path), ".obj") {
		return nil, fmt.Errorf("-texture applies to .obj models only (glTF models carry their textures)")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	mesh, err := scene.LoadOBJ(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	tf, err := os.Open(texPath)
	if err != nil {
		return nil, err
	}
	defer tf.Close()
	img, _, err := image.Decode(tf)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", texPath, err)
	}
	return scene.ModelFromMesh(mesh, img), nil
}

// benchSynopsis heads `tilegpu bench -h`.
const benchSynopsis = `usage: tilegpu bench [flags]

Runs one benchmark scene of SCENES.md (fill, blend, tex or tris) into an
offscreen framebuffer: one warm-up frame, then -frames timed frames, and
prints "scene=NAME frames=N ms/frame=X ...".

flags:
`

func cmdBench(args []string) error {
	fs := newFlagSet("bench", benchSynopsis)
	name := fs.String("scene", "fill", "scene: fill, blend, tex or tris")
	frames := fs.Int("frames", 5, "frames to time after one warm-up frame, at least 1")
	out := fs.String("o", "", "write the final frame to this image `file` (.png, .jpg, .jpeg, .gif)")
	cores := fs.Int("cores", 0, "render worker cores (0: GOMAXPROCS)")
	width := fs.Int("width", 1920, "framebuffer width in pixels, 1..4096 (SCENES.md uses 1920)")
	height := fs.Int("height", 1080, "framebuffer height in pixels, 1..4096 (SCENES.md uses 1080)")
	remote := fs.String("remote", "", "run the scene on a `tilegpu serve` service at ADDR (unix:PATH or tcp:HOST:PORT)")
	obs := addObsFlags(fs, nil)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (bench takes only flags)", fs.Arg(0))
	}
	if *frames < 1 {
		return fmt.Errorf("-frames %d: time at least one frame", *frames)
	}
	if *width < 1 || *width > tilegpu.MaxSize || *height < 1 || *height > tilegpu.MaxSize {
		return fmt.Errorf("-width %d -height %d: each must be in 1..%d", *width, *height, tilegpu.MaxSize)
	}
	if *cores < 0 {
		return fmt.Errorf("-cores %d: must not be negative", *cores)
	}
	if *out != "" && imageExts[strings.ToLower(filepath.Ext(*out))] == "" {
		return fmt.Errorf("-o %s: unknown image format %q (want .png, .jpg, .jpeg or .gif)", *out, filepath.Ext(*out))
	}
	opt := bench.DefaultOptions()
	opt.Width, opt.Height = *width, *height
	cfg := tilegpu.Config{Width: 1, Height: 1, Cores: *cores}
	if err := obs.configure(&cfg); err != nil {
		return err
	}
	if *remote != "" && obs.active() {
		return fmt.Errorf("-stats and -trace read the local GPU: they do not apply with -remote")
	}
	ctx, err := openTarget(*remote, cfg)
	if err != nil {
		return err
	}
	defer ctx.Close()
	sc, err := bench.Setup(ctx.GL(), *name, opt)
	if err != nil {
		return err
	}
	lc, _ := ctx.(*tilegpu.Context) // nil with -remote, where obs is inactive
	if err := obs.begin(lc); err != nil {
		return err
	}
	res := sc.Run(*frames)
	fmt.Fprintln(stdout, res.String(sc))
	if st := ctx.Stats(); *remote == "" {
		fmt.Fprintf(stdout, "qpu_instructions=%d translated_instructions=%d programs_translated=%d translation_hits=%d translation_misses=%d native_instructions=%d native_runs=%d\n",
			st.Instructions, st.XlatInstructions, st.ProgramsTranslated, st.XlatHits, st.XlatMisses, st.NativeInstructions, st.NativeRuns)
		fmt.Fprintln(stdout, countersLine(st, *frames+1))
	}
	// Run draws one warm-up frame before the timed ones.
	if err := obs.report(stdout, lc, res.Frames+1); err != nil {
		return err
	}
	if err := obs.writeTrace(lc); err != nil {
		return err
	}
	if *out != "" {
		img := sc.ReadPixels()
		if *name == "tris" {
			fmt.Fprintf(stdout, "covered_pixels=%d\n", bench.CoveredPixels(img))
		}
		return writeImage(*out, img)
	}
	return nil
}

// countersLine formats the GPU's performance counters over the frames
// rendered (warm-up included), one key=value per counter.
func countersLine(st tilegpu.Stats, frames int) string {
	return fmt.Sprintf("counters frames=%d instructions=%d vertices=%d triangles=%d fragments=%d tiles=%d hsr_primitives=%d raster_blocks=%d earlyz_rejected=%d bin_parallel_vertices=%d draws=%d jobs=%d",
		frames, st.Instructions, st.Vertices, st.Triangles, st.Fragments, st.Tiles, st.HSRPrimitives, st.RasterBlocks, st.EarlyZRejected, st.BinParallelVertices, st.Draws, st.Jobs)
}

// writeImage writes img in the format of path's extension.
func writeImage(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	switch imageExts[strings.ToLower(filepath.Ext(path))] {
	case "jpeg":
		err = jpeg.Encode(f, img, &jpeg.Options{Quality: 92})
	case "gif":
		err = gif.Encode(f, quantize(img), nil)
	case "png":
		err = png.Encode(f, img)
	default:
		err = fmt.Errorf("%s: unknown image format %q (want .png, .jpg, .jpeg or .gif)", path, filepath.Ext(path))
	}
	if err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeTurntable writes frames as a looping animated GIF, one turn in
// about four seconds.
func writeTurntable(path string, frames []*image.NRGBA) error {
	anim := &gif.GIF{}
	delay := max(400/len(frames), 2) // hundredths of a second
	for _, fr := range frames {
		anim.Image = append(anim.Image, quantize(fr))
		anim.Delay = append(anim.Delay, delay)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := gif.EncodeAll(f, anim); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// quantize maps img to the 216-colour web-safe cube plus greys, with
// Floyd–Steinberg dithering: a fixed palette keeps the frames of a
// turntable consistent.
func quantize(img image.Image) *image.Paletted {
	p := image.NewPaletted(img.Bounds(), gifPalette)
	draw.FloydSteinberg.Draw(p, img.Bounds(), img, img.Bounds().Min)
	return p
}

var gifPalette = func() color.Palette {
	p := append(color.Palette{}, palette.WebSafe...)
	for i := 1; len(p) < 256; i++ {
		v := uint8(i * 255 / 41)
		p = append(p, color.RGBA{v, v, v, 255})
	}
	return p
}()
