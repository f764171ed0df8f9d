package main

import (
	"flag"
	"fmt"
	"image"
	_ "image/jpeg" // -texture may be a JPEG
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/scene"
)

func cmdRender(args []string) error {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	out := fs.String("o", "out.png", "output PNG")
	size := fs.Int("size", 1024, "framebuffer width and height in pixels")
	cores := fs.Int("cores", 0, "render worker cores (0: GOMAXPROCS)")
	decode := fs.Bool("decode", false, "print the frame's command streams decoded (ring packets, control lists, shader records, shaders)")
	modelPath := fs.String("model", "", "render this model (.gltf, .glb, .stl or .obj) instead of the default scene")
	texPath := fs.String("texture", "", "with an .obj -model: its texture (PNG or JPEG)")
	yaw := fs.Float64("yaw", math.NaN(), "with -model: camera yaw in degrees from the front towards +X (default: automatic)")
	pitch := fs.Float64("pitch", math.NaN(), "with -model: camera pitch in degrees above the horizontal (default: automatic)")
	obs := addObsFlags(fs)
	obs.addHeatmapFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *size < 1 || *size > 4096 {
		return fmt.Errorf("-size %d out of range 1..4096", *size)
	}
	var model *scene.Model
	if *modelPath != "" {
		var err error
		if model, err = loadModel(*modelPath, *texPath); err != nil {
			return err
		}
	} else if *texPath != "" || !math.IsNaN(*yaw) || !math.IsNaN(*pitch) {
		return fmt.Errorf("-texture, -yaw and -pitch need -model")
	}
	cfg := tilegpu.Config{Width: *size, Height: *size, Cores: *cores}
	if *decode {
		cfg.Capture = newDecoder(stdout).capture
	}
	if err := obs.configure(&cfg); err != nil {
		return err
	}
	ctx, err := tilegpu.NewContext(cfg)
	if err != nil {
		return err
	}
	defer ctx.Close()
	t0 := time.Now()
	draw := func(g gl.Context) (scene.Stats, error) {
		if model != nil {
			view := scene.DefaultView(model)
			if !math.IsNaN(*yaw) {
				view.Yaw = float32(*yaw * math.Pi / 180)
			}
			if !math.IsNaN(*pitch) {
				view.Pitch = float32(*pitch * math.Pi / 180)
			}
			return scene.DrawModelView(g, model, *size, *size, view)
		}
		return scene.DrawSpot(g, *size, *size)
	}
	st, err := draw(ctx.GL())
	if err != nil {
		return err
	}
	img, err := ctx.Image()
	if err != nil {
		return err
	}
	el := time.Since(t0)
	if err := writePNG(*out, img); err != nil {
		return err
	}
	s := ctx.Stats()
	fmt.Fprintf(stdout, "rendered %s: %d×%d, %d triangles (%d after culling), %d tiles, %.1f ms, %d shader instructions executed (16-lane), %d vertices and %d fragments shaded\n",
		*out, *size, *size, st.Triangles, s.Triangles, s.Tiles, float64(el.Microseconds())/1000, s.Instructions, s.Vertices, s.Fragments)
	if err := obs.writeTrace(ctx); err != nil {
		return err
	}
	if err := obs.writeHeatmap(ctx, img); err != nil {
		return err
	}
	if err := obs.writeOverdraw(cfg, draw); err != nil {
		return err
	}
	return obs.report(stdout, ctx, 1)
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

func cmdBench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	name := fs.String("scene", "fill", "scene: fill, blend, tex or tris")
	frames := fs.Int("frames", 5, "frames to time after one warm-up frame")
	out := fs.String("o", "", "write the final frame as a PNG")
	cores := fs.Int("cores", 0, "render worker cores (0: GOMAXPROCS)")
	width := fs.Int("width", 1920, "framebuffer width (SCENES.md: 1920)")
	height := fs.Int("height", 1080, "framebuffer height (SCENES.md: 1080)")
	obs := addObsFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	opt := bench.DefaultOptions()
	opt.Width, opt.Height = *width, *height
	cfg := tilegpu.Config{Width: 1, Height: 1, Cores: *cores}
	if err := obs.configure(&cfg); err != nil {
		return err
	}
	ctx, err := tilegpu.NewContext(cfg)
	if err != nil {
		return err
	}
	defer ctx.Close()
	sc, err := bench.Setup(ctx.GL(), *name, opt)
	if err != nil {
		return err
	}
	if err := obs.begin(ctx); err != nil {
		return err
	}
	res := sc.Run(*frames)
	fmt.Fprintln(stdout, res.String(sc))
	// Run draws one warm-up frame before the timed ones.
	if err := obs.report(stdout, ctx, res.Frames+1); err != nil {
		return err
	}
	if err := obs.writeTrace(ctx); err != nil {
		return err
	}
	if *out != "" {
		img := sc.ReadPixels()
		if *name == "tris" {
			fmt.Fprintf(stdout, "covered_pixels=%d\n", bench.CoveredPixels(img))
		}
		return writePNG(*out, img)
	}
	return nil
}

func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
