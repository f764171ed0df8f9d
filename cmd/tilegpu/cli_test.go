package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/ext/unlit"
	"github.com/qmuntal/gltf/modeler"
)

// TestMain lets a test run the real main (exit status and all) in a child
// process: TestHelpExitsZero execs the test binary with TILEGPU_RUN_MAIN.
func TestMain(m *testing.M) {
	if os.Getenv("TILEGPU_RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runMain runs `tilegpu args...` in a child process.
func runMain(t *testing.T, args ...string) (stdoutText, stderrText string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TILEGPU_RUN_MAIN=1")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// TestHelpExitsZero: every subcommand's -h prints its usage and exits 0,
// with no unset-looking defaults ("NaN").
func TestHelpExitsZero(t *testing.T) {
	for _, cmd := range []string{"render", "bench", "glsl", "disasm", "deqp", "shader-test"} {
		for _, h := range []string{"-h", "-help"} {
			o, e, code := runMain(t, cmd, h)
			text := o + e
			if code != 0 {
				t.Errorf("tilegpu %s %s exited %d:\n%s", cmd, h, code, text)
			}
			if !strings.Contains(text, "usage: tilegpu "+cmd) || strings.Contains(text, "NaN") || strings.Contains(text, "help requested") {
				t.Errorf("tilegpu %s %s printed:\n%s", cmd, h, text)
			}
		}
	}
	if _, e, code := runMain(t, "render", "-nope"); code != 1 || !strings.Contains(e, "flag provided but not defined: -nope") {
		t.Errorf("render -nope: exit %d, stderr %q", code, e)
	}
}

// render runs cmdRender with stdout and stderr captured; progress lines are
// plain (not a terminal).
func render(t *testing.T, args ...string) (out, errOut string, err error) {
	t.Helper()
	var o, e bytes.Buffer
	oldOut, oldErr, oldTerm := stdout, stderr, stderrIsTerminal
	stdout, stderr, stderrIsTerminal = &o, &e, func() bool { return false }
	defer func() { stdout, stderr, stderrIsTerminal = oldOut, oldErr, oldTerm }()
	err = cmdRender(args)
	return o.String(), e.String(), err
}

func decodeFile(t *testing.T, path string, dec func(*os.File) (image.Image, error)) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := dec(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

const models = "../../scene/testdata/models/"

// TestRenderModelsAsArguments: models named as arguments (flags before or
// after them), non-square sizes, formats by extension, batches into a
// directory with progress lines, and -json.
func TestRenderModelsAsArguments(t *testing.T) {
	dir := t.TempDir()

	// One model, flags after it, a JPEG of 80×48.
	jpg := filepath.Join(dir, "box.jpg")
	o, _, err := render(t, models+"Box/Box.gltf", "-width", "80", "-height", "48", "-o", jpg)
	if err != nil || !strings.Contains(o, "rendered "+jpg+": 80×48, 12 triangles") {
		t.Fatalf("err %v, output %q", err, o)
	}
	img := decodeFile(t, jpg, func(f *os.File) (image.Image, error) { return jpeg.Decode(f) })
	if b := img.Bounds(); b.Dx() != 80 || b.Dy() != 48 {
		t.Errorf("JPEG is %v, want 80×48", b)
	}

	// Several models and a directory: one PNG each, named after the model,
	// progress on stderr, one JSON object per image.
	outDir := filepath.Join(dir, "batch")
	o, e, err := render(t, "-size", "32", "-json", "-o", outDir+"/", models+"Box/Box.gltf", models+"teapot", models+"BoxTextured/BoxTextured.gltf")
	if err != nil {
		t.Fatal(err)
	}
	var results []renderResult
	for _, line := range strings.Split(strings.TrimSpace(o), "\n") {
		var r renderResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("-json line %q: %v", line, err)
		}
		results = append(results, r)
	}
	teapots, _ := filepath.Glob(models + "teapot/*.stl")
	if want := 2 + len(teapots); len(results) != want || len(teapots) == 0 {
		t.Fatalf("%d results for %d images: %q", len(results), want, o)
	}
	for _, r := range results {
		if r.Width != 32 || r.Height != 32 || r.Frames != 1 || r.Triangles == 0 || r.Tiles == 0 || r.Fragments == 0 {
			t.Errorf("result %+v", r)
		}
		base := strings.TrimSuffix(filepath.Base(r.Input), filepath.Ext(r.Input))
		if r.Output != filepath.Join(outDir, base+".png") {
			t.Errorf("%s written to %s", r.Input, r.Output)
		}
		decodeFile(t, r.Output, func(f *os.File) (image.Image, error) { return png.Decode(f) })
	}
	if results[0].Triangles != 12 {
		t.Errorf("Box: %d triangles, want 12 (stats are per image, not cumulative)", results[0].Triangles)
	}
	if n := strings.Count(e, "rendering "); n != len(results) || !strings.Contains(e, "rendering 1/") {
		t.Errorf("progress lines %q, want %d", e, len(results))
	}
}

// TestRenderTurntable writes an animated GIF of N views.
func TestRenderTurntable(t *testing.T) {
	out := filepath.Join(t.TempDir(), "spin.gif")
	o, e, err := render(t, models+"BoxVertexColors/BoxVertexColors.gltf", "-size", "40", "-turntable", "6", "-o", out)
	if err != nil || !strings.Contains(o, "72 triangles") {
		t.Fatalf("err %v, output %q", err, o)
	}
	if strings.Count(e, "rendering ") != 6 {
		t.Errorf("progress %q, want 6 lines", e)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := gif.DecodeAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != 6 || g.Image[0].Bounds().Dx() != 40 {
		t.Fatalf("%d frames of %v, want 6 of 40×40", len(g.Image), g.Image[0].Bounds())
	}
	// The views differ: the box turns.
	if bytes.Equal(g.Image[0].Pix, g.Image[1].Pix) {
		t.Error("frames 0 and 1 are identical")
	}
}

// TestRenderArgumentErrors: every bad or misplaced argument is an error
// naming it; nothing is silently ignored.
func TestRenderArgumentErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	box := models + "Box/Box.gltf"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{box, "-width"}, "flag needs an argument: -width"},
		{[]string{"-size", "64", "-width", "32"}, "either -size or -width/-height"},
		{[]string{"-width", "0"}, "out of range 1..4096"},
		{[]string{"-height", "4097"}, "out of range 1..4096"},
		{[]string{"-yaw", "NaN", box}, "want a finite number"},
		{[]string{"-o", filepath.Join(dir, "x.bmp")}, `unknown image format ".bmp"`},
		{[]string{"-o", filepath.Join(dir, "x.png"), box, models + "teapot"}, "several models need an output directory"},
		{[]string{"-turntable", "4", "-o", filepath.Join(dir, "x.png"), box}, "should end in .gif"},
		{[]string{"-turntable", "-1"}, "-turntable -1 out of range"},
		{[]string{"-decode", box, models + "teapot"}, "-decode prints one frame"},
		{[]string{"-model", box, box}, "name the models one way"},
		{[]string{empty}, "no models"},
		{[]string{models + "missing.glb"}, "no such file"},
		{[]string{"-format", "bmp", models + "teapot"}, `-format "bmp"`},
		{[]string{"-texture", "x.png"}, "-texture needs exactly one .obj model"},
		{[]string{"-o", dir + "/", box, models + "Box/Box.gltf"}, "would both be written"},
		{[]string{"-camera", "0"}, "-camera needs a model"},
		{[]string{"-camera", "0", "-turntable", "3", box}, "excludes -turntable"},
		{[]string{"-camera", "-2", box}, "numbered from 0"},
		{[]string{"-time", "1s"}, "-time needs a glTF model"},
		{[]string{"-time", "-1", box}, "want a time from 0"},
		{[]string{"-time", "soon", box}, "want seconds"},
		{[]string{"-time", "500ms", "-o", filepath.Join(dir, "t.png"), box}, "the model has no animations"},
		{[]string{"-camera", "0", "-o", filepath.Join(dir, "c.png"), box}, "camera 0 out of range (the model has 0)"},
	} {
		if _, _, err := render(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("render %q: err %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestBenchArgumentErrors: impossible bench settings are errors, not a
// zero-frame "result" or a panic.
func TestBenchArgumentErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-frames", "0"}, "-frames 0: time at least one frame"},
		{[]string{"-frames", "-3"}, "-frames -3"},
		{[]string{"-width", "0"}, "each must be in 1..4096"},
		{[]string{"-height", "5000"}, "each must be in 1..4096"},
		{[]string{"-cores", "-1"}, "must not be negative"},
		{[]string{"fill"}, `unexpected argument "fill"`},
		{[]string{"-o", "x.tiff"}, `unknown image format ".tiff"`},
	} {
		if err := cmdBench(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("bench %q: err %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestRenderTime poses an animated model: a unit quad that slides from
// x = 0 to x = 4 over one second, seen through the file's camera (which
// frames x in -2..2): at -time 0 it covers the frame's centre, at -time 1s
// it has left it.
func TestRenderTime(t *testing.T) {
	d := gltf.NewDocument()
	pos := modeler.WritePosition(d, [][3]float32{{-1, 1, 0}, {1, 1, 0}, {-1, -1, 0}, {1, -1, 0}})
	idx := modeler.WriteIndices(d, []uint16{2, 3, 1, 2, 1, 0})
	d.Materials = []*gltf.Material{{PBRMetallicRoughness: &gltf.PBRMetallicRoughness{BaseColorFactor: &[4]float64{1, 0, 0, 1}},
		Extensions: gltf.Extensions{unlit.ExtensionName: unlit.Unlit{}}}}
	d.Meshes = []*gltf.Mesh{{Primitives: []*gltf.Primitive{{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos}, Indices: gltf.Index(idx), Material: gltf.Index(0)}}}}
	d.Cameras = []*gltf.Camera{{Perspective: &gltf.Perspective{Yfov: 2 * math.Atan(0.4), Znear: 0.1}}}
	d.Nodes = []*gltf.Node{{Mesh: gltf.Index(0)}, {Camera: gltf.Index(0), Translation: [3]float64{0, 0, 5}}}
	d.Scenes[0].Nodes = []int{0, 1}
	in := modeler.WriteAccessor(d, gltf.TargetNone, []float32{0, 1})
	out := modeler.WriteAccessor(d, gltf.TargetNone, [][3]float32{{0, 0, 0}, {4, 0, 0}})
	d.Animations = []*gltf.Animation{{
		Samplers: []*gltf.AnimationSampler{{Input: in, Output: out}},
		Channels: []*gltf.AnimationChannel{{Sampler: 0, Target: gltf.AnimationChannelTarget{Node: gltf.Index(0), Path: gltf.TRSTranslation}}},
	}}
	dir := t.TempDir()
	model := filepath.Join(dir, "slide.glb")
	f, err := os.Create(model)
	if err != nil {
		t.Fatal(err)
	}
	if err := gltf.NewEncoder(f).Encode(d); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, tc := range []struct {
		time  string
		isRed bool
	}{{"0", true}, {"1s", false}, {"125ms", true}} {
		png1 := filepath.Join(dir, "t.png")
		if _, _, err := render(t, model, "-size", "32", "-camera", "0", "-time", tc.time, "-o", png1); err != nil {
			t.Fatal(err)
		}
		img := decodeFile(t, png1, func(f *os.File) (image.Image, error) { return png.Decode(f) })
		r, g, _, _ := img.At(16, 16).RGBA()
		if red := r>>8 == 255 && g>>8 == 0; red != tc.isRed {
			t.Errorf("-time %s: centre pixel red=%v, want %v", tc.time, red, tc.isRed)
		}
	}
}

// FuzzRenderArgs feeds arbitrary argument lists (NUL-separated) to the
// render flag parsing: it must return an error or positional arguments
// taken from the input, never panic; -time and -yaw values parse to finite
// numbers or errors.
func FuzzRenderArgs(f *testing.F) {
	f.Add("model.glb\x00-o\x00x.png\x00-time\x00500ms")
	f.Add("-yaw\x00NaN\x00--\x00-o")
	f.Add("-time\x001e309\x00a\x00b\x00-width\x00-3")
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, "\x00")
		fs := newFlagSet("render", "")
		fs.String("o", "", "")
		fs.Int("width", 1024, "")
		var at animTimeFlag
		var yaw optFloat
		fs.Var(&at, "time", "")
		fs.Var(&yaw, "yaw", "")
		pos, err := parseInterspersed(fs, args)
		if err != nil {
			return
		}
		in := map[string]bool{}
		for _, a := range args {
			in[a] = true
		}
		for _, p := range pos {
			if !in[p] {
				t.Fatalf("positional %q not in the input %q", p, args)
			}
		}
		if at.set && (at.seconds < 0 || math.IsNaN(float64(at.seconds)) || math.IsInf(float64(at.seconds), 0)) {
			t.Fatalf("-time parsed to %v", at.seconds)
		}
		if yaw.set && (math.IsNaN(yaw.v) || math.IsInf(yaw.v, 0)) {
			t.Fatalf("-yaw parsed to %v", yaw.v)
		}
	})
}
