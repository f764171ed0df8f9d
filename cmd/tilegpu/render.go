package main

import (
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"time"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/scene"
)

func cmdRender(args []string) error {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	out := fs.String("o", "out.png", "output PNG")
	size := fs.Int("size", 1024, "framebuffer width and height in pixels")
	cores := fs.Int("cores", 0, "render worker cores (0: GOMAXPROCS)")
	decode := fs.Bool("decode", false, "print the frame's command streams decoded (ring packets, control lists, shader records, shaders)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *size < 1 || *size > 4096 {
		return fmt.Errorf("-size %d out of range 1..4096", *size)
	}
	cfg := tilegpu.Config{Width: *size, Height: *size, Cores: *cores}
	if *decode {
		cfg.Capture = newDecoder(stdout).capture
	}
	ctx, err := tilegpu.NewContext(cfg)
	if err != nil {
		return err
	}
	defer ctx.Close()
	t0 := time.Now()
	st, err := scene.DrawSpot(ctx.GL(), *size, *size)
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
	return nil
}

func cmdBench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	name := fs.String("scene", "fill", "scene: fill, blend, tex or tris")
	frames := fs.Int("frames", 5, "frames to time after one warm-up frame")
	out := fs.String("o", "", "write the final frame as a PNG")
	cores := fs.Int("cores", 0, "render worker cores (0: GOMAXPROCS)")
	width := fs.Int("width", 1920, "framebuffer width (SCENES.md: 1920)")
	height := fs.Int("height", 1080, "framebuffer height (SCENES.md: 1080)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	opt := bench.DefaultOptions()
	opt.Width, opt.Height = *width, *height
	ctx, err := tilegpu.NewContext(tilegpu.Config{Width: 1, Height: 1, Cores: *cores})
	if err != nil {
		return err
	}
	defer ctx.Close()
	sc, err := bench.Setup(ctx.GL(), *name, opt)
	if err != nil {
		return err
	}
	res := sc.Run(*frames)
	fmt.Fprintln(stdout, res.String(sc))
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
