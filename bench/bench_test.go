package bench_test

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"testing"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/gl"
)

// testOptions is the size the reference images in testdata were rendered at
// by llvmpipe (testdata/gen-refs.sh): 1/6 of SCENES.md's framebuffer and a
// 100×200 sphere, with every other parameter as SCENES.md defines it.
var testOptions = bench.Options{Width: 320, Height: 180, Quads: 100, Stacks: 100, Slices: 200}

func render(t testing.TB, name string, cores int) *image.NRGBA {
	t.Helper()
	ctx, err := tilegpu.NewContext(tilegpu.Config{Width: 1, Height: 1, Cores: cores})
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	sc, err := bench.Setup(ctx.GL(), name, testOptions)
	if err != nil {
		t.Fatal(err)
	}
	sc.Frame()
	return sc.ReadPixels()
}

func loadPNG(t testing.TB, path string) *image.NRGBA {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	n := image.NewNRGBA(img.Bounds())
	draw.Draw(n, n.Bounds(), img, img.Bounds().Min, draw.Src)
	return n
}

// TestScenesMatchLlvmpipe renders each scene and compares it with Mesa
// llvmpipe's image under SCENES.md's tolerance: at most 0.1% of the covered
// pixels may differ by more than 2 in any channel.
func TestScenesMatchLlvmpipe(t *testing.T) {
	for _, name := range bench.Names() {
		t.Run(name, func(t *testing.T) {
			got := render(t, name, 0)
			want := loadPNG(t, fmt.Sprintf("testdata/%s-%dx%d-llvmpipe.png", name, testOptions.Width, testOptions.Height))
			d, err := bench.Compare(got, want)
			if err != nil {
				t.Fatal(err)
			}
			covered := d.Pixels
			if name == "tris" {
				covered = bench.CoveredPixels(want)
			}
			limit := covered / 1000
			t.Logf("%s: %v (covered %d, limit %d)", name, d, covered, limit)
			if d.Over2 > limit {
				path := fmt.Sprintf("%s/%s-tilegpu.png", os.TempDir(), name)
				if err := os.WriteFile(path, encode(got), 0o644); err == nil {
					t.Logf("tilegpu's image kept as %s", path)
				}
				t.Errorf("%s: %d pixels differ by more than 2 from llvmpipe, limit %d", name, d.Over2, limit)
			}
		})
	}
}

// TestCoresBitIdentical renders each scene with 1 and with 4 render worker
// cores: tiles are independent, so the images must be bit-identical.
func TestCoresBitIdentical(t *testing.T) {
	for _, name := range bench.Names() {
		a, b := render(t, name, 1), render(t, name, 4)
		if !bytes.Equal(a.Pix, b.Pix) {
			d, _ := bench.Compare(a, b)
			t.Errorf("%s: 1 and 4 cores differ: %v", name, d)
		}
	}
}

func encode(img image.Image) []byte {
	var b bytes.Buffer
	_ = png.Encode(&b, img)
	return b.Bytes()
}

func BenchmarkScenes(b *testing.B) {
	for _, name := range bench.Names() {
		b.Run(name, func(b *testing.B) {
			ctx, err := tilegpu.NewContext(tilegpu.Config{Width: 1, Height: 1})
			if err != nil {
				b.Fatal(err)
			}
			defer ctx.Close()
			sc, err := bench.Setup(ctx.GL(), name, testOptions)
			if err != nil {
				b.Fatal(err)
			}
			sc.Frame()
			ctx.GL().Finish()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sc.Frame()
			}
			ctx.GL().Finish()
		})
	}
}

// TestSceneRelease sets up, runs and releases each scene many times on one
// context whose GPU memory holds only a few scenes (the tex scene's
// 1024² texture alone is 4 MiB): anything left behind runs it out of
// memory; afterwards no object name is left.
func TestSceneRelease(t *testing.T) {
	ctx, err := tilegpu.NewContext(tilegpu.Config{Width: 1, Height: 1, Cores: 1, MemorySize: 12 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	g := ctx.GL()
	opt := bench.DefaultOptions()
	opt.Width, opt.Height, opt.Quads = 64, 36, 2
	opt.Stacks, opt.Slices = 8, 8
	for i := 0; i < 12; i++ {
		for _, name := range bench.Names() {
			sc, err := bench.Setup(g, name, opt)
			if err != nil {
				t.Fatalf("round %d, %s: %v", i, name, err)
			}
			sc.Run(1)
			sc.Release()
		}
	}
	if e := g.GetError(); e != gl.NO_ERROR {
		t.Fatalf("GL error 0x%x", e)
	}
	for n := uint32(1); n < 256; n++ {
		if g.IsBuffer(gl.Buffer{Value: n}) || g.IsTexture(gl.Texture{Value: n}) || g.IsProgram(gl.Program{Value: n}) ||
			g.IsShader(gl.Shader{Value: n}) || g.IsFramebuffer(gl.Framebuffer{Value: n}) || g.IsRenderbuffer(gl.Renderbuffer{Value: n}) {
			t.Fatalf("object %d still exists", n)
		}
	}
}
