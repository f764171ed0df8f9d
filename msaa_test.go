package tilegpu

import (
	"math"
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// The 4× sample positions of docs/hardware.md §5.2, in pixels from the
// pixel's lower-left corner.
var msaaPositions = [4][2]float64{{0.375, 0.125}, {0.875, 0.375}, {0.125, 0.625}, {0.625, 0.875}}

// msaaTri is a window-space triangle on the 1/256 grid of a 64×64
// framebuffer, with edges at odd slopes.
var msaaTri = [3][2]float64{{3.25, 2.5}, {61.75, 17.125}, {20.5, 60.875}}

// sampleFraction counts the sample positions of pixel (x, y) inside tri,
// and whether one lies within eps of an edge (left to the fill rule).
func sampleFraction(tri [3][2]float64, x, y int) (covered int, onEdge bool) {
	for _, p := range msaaPositions {
		px, py := float64(x)+p[0], float64(y)+p[1]
		pos := 0
		for k := 0; k < 3; k++ {
			a, b := tri[k], tri[(k+1)%3]
			d := (b[0]-a[0])*(py-a[1]) - (b[1]-a[1])*(px-a[0])
			if d > -1e-9 && d < 1e-9 {
				onEdge = true
			}
			if d > 0 {
				pos++
			}
		}
		if pos == 3 {
			covered++
		}
	}
	return covered, onEdge
}

// drawWhiteTriangle draws msaaTri in white over black on the bound
// framebuffer (64×64) and returns its pixels read back, bottom row first.
func drawWhiteTriangle(t *testing.T, g gl.Context) []byte {
	t.Helper()
	g.UseProgram(buildProgram(t, g, "attribute vec2 a_pos; void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }",
		"precision mediump float; void main() { gl_FragColor = vec4(1.0); }"))
	var xy []float32
	for _, p := range msaaTri {
		xy = append(xy, float32((p[0]-32)/32), float32((p[1]-32)/32))
	}
	positions(g, xy...)
	g.Viewport(0, 0, 64, 64)
	g.ClearColor(0, 0, 0, 1)
	g.Clear(gl.COLOR_BUFFER_BIT)
	g.DrawArrays(gl.TRIANGLES, 0, 3)
	px := make([]byte, 64*64*4)
	g.ReadPixels(px, 0, 0, 64, 64, gl.RGBA, gl.UNSIGNED_BYTE)
	if e := g.GetError(); e != gl.NO_ERROR {
		t.Fatalf("GL error %#x", e)
	}
	return px
}

// checkCoverage compares every pixel with the analytic fraction of its
// samples the triangle covers (samples 4) or its centre coverage (1).
func checkCoverage(t *testing.T, px []byte, samples int) {
	t.Helper()
	partial := 0
	for y := 0; y < 64; y++ {
		for x := 0; x < 64; x++ {
			covered, onEdge := sampleFraction(msaaTri, x, y)
			if onEdge {
				continue
			}
			want := float64(covered) / 4 * 255
			got := px[(y*64+x)*4]
			if samples == 1 {
				// single-sampled: 0 or 255 only
				if got != 0 && got != 255 {
					t.Fatalf("pixel (%d,%d) = %d without MSAA", x, y, got)
				}
				continue
			}
			if d := float64(got) - want; d > 1 || d < -1 {
				t.Fatalf("pixel (%d,%d) = %d, want %.2f (%d of 4 samples covered)", x, y, got, want, covered)
			}
			if covered > 0 && covered < 4 {
				partial++
			}
		}
	}
	if samples == 4 && partial < 50 {
		t.Fatalf("only %d partly covered pixels", partial)
	}
}

// TestMSAADefaultFramebuffer: Config.Samples 4 renders the default
// framebuffer with 4× MSAA: GL_SAMPLES reports it, and every edge pixel
// resolves to the fraction of its samples the triangle covers.
func TestMSAADefaultFramebuffer(t *testing.T) {
	for _, samples := range []int{0, 4} {
		ctx := newTestContext(t, Config{Width: 64, Height: 64, Cores: 2, Samples: samples})
		g := ctx.GL()
		if got := g.GetInteger(gl.SAMPLES); got != samples {
			t.Errorf("GL_SAMPLES = %d, want %d", got, samples)
		}
		if got, want := g.GetInteger(gl.SAMPLE_BUFFERS), min(samples, 1); got != want {
			t.Errorf("GL_SAMPLE_BUFFERS = %d, want %d", got, want)
		}
		checkCoverage(t, drawWhiteTriangle(t, g), max(samples, 1))
	}
	if _, err := NewContext(Config{Width: 8, Height: 8, Samples: 2}); err == nil {
		t.Error("Samples 2 accepted")
	}
}

// TestMSAASampleCoverageGL: GL_SAMPLE_COVERAGE and alpha-to-coverage keep
// round(value·4) samples of a fully covered pixel (inverted: the others).
func TestMSAASampleCoverageGL(t *testing.T) {
	ctx := newTestContext(t, Config{Width: 16, Height: 16, Cores: 1, Samples: 4})
	g := ctx.GL()
	p := buildProgram(t, g, "attribute vec2 a_pos; void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }",
		"precision mediump float; uniform float u_a; void main() { gl_FragColor = vec4(1.0, 1.0, 1.0, u_a); }")
	g.UseProgram(p)
	positions(g, -1, -1, 3, -1, -1, 3)
	cases := []struct {
		name     string
		cov      bool
		value    float32
		invert   bool
		a2c      bool
		alpha    float32
		samplesN int
	}{
		{"off", false, 1, false, false, 1, 4},
		{"coverage 0.5", true, 0.5, false, false, 1, 2},
		{"coverage 0.25 inverted", true, 0.25, true, false, 1, 3},
		{"coverage 0", true, 0, false, false, 1, 0},
		{"alpha 0.25", false, 1, false, true, 0.25, 1},
		{"alpha 0.5 and coverage 0.25 inverted", true, 0.25, true, true, 0.5, 1},
	}
	for _, tc := range cases {
		g.ClearColor(0, 0, 0, 0)
		g.Clear(gl.COLOR_BUFFER_BIT)
		if tc.cov {
			g.Enable(gl.SAMPLE_COVERAGE)
		} else {
			g.Disable(gl.SAMPLE_COVERAGE)
		}
		if tc.a2c {
			g.Enable(gl.SAMPLE_ALPHA_TO_COVERAGE)
		} else {
			g.Disable(gl.SAMPLE_ALPHA_TO_COVERAGE)
		}
		g.SampleCoverage(tc.value, tc.invert)
		g.Uniform1f(g.GetUniformLocation(p, "u_a"), tc.alpha)
		g.DrawArrays(gl.TRIANGLES, 0, 3)
		px := make([]byte, 4)
		g.ReadPixels(px, 5, 7, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE)
		want := float64(tc.samplesN) / 4 * 255
		if d := float64(px[0]) - want; d > 1 || d < -1 {
			t.Errorf("%s: R = %d, want %.2f (%d samples)", tc.name, px[0], want, tc.samplesN)
		}
	}
}

// TestMultisampledRenderToTexture: EXT_multisampled_render_to_texture —
// a texture attached with 4 samples is rendered with 4× MSAA and holds
// the resolved image; renderbuffers with other sample counts make the
// framebuffer FRAMEBUFFER_INCOMPLETE_MULTISAMPLE.
func TestMultisampledRenderToTexture(t *testing.T) {
	ctx := newTestContext(t, Config{Width: 8, Height: 8, Cores: 2})
	c := ctx.gl
	g := ctx.GL()
	tex := g.CreateTexture()
	g.BindTexture(gl.TEXTURE_2D, tex)
	g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 64, 64, gl.RGBA, gl.UNSIGNED_BYTE, nil)
	fb := g.CreateFramebuffer()
	g.BindFramebuffer(gl.FRAMEBUFFER, fb)
	c.FramebufferTexture2DMultisampleEXT(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0, 2)
	if e := g.GetError(); e != gl.NO_ERROR {
		t.Fatalf("FramebufferTexture2DMultisampleEXT: error %#x", e)
	}
	if got := g.GetFramebufferAttachmentParameteri(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, 0x8D6C); got != 4 {
		t.Errorf("TEXTURE_SAMPLES_EXT = %d, want 4 (2 rounded up)", got)
	}
	if got := g.GetInteger(gl.SAMPLES); got != 4 {
		t.Errorf("GL_SAMPLES = %d, want 4", got)
	}
	checkCoverage(t, drawWhiteTriangle(t, g), 4)

	// A single-sampled depth renderbuffer does not match.
	rb := g.CreateRenderbuffer()
	g.BindRenderbuffer(gl.RENDERBUFFER, rb)
	g.RenderbufferStorage(gl.RENDERBUFFER, gl.DEPTH_COMPONENT16, 64, 64)
	g.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, rb)
	if got := g.CheckFramebufferStatus(gl.FRAMEBUFFER); got != 0x8D56 {
		t.Errorf("mixed sample counts: status %#x, want FRAMEBUFFER_INCOMPLETE_MULTISAMPLE_EXT", got)
	}
	c.RenderbufferStorageMultisampleEXT(gl.RENDERBUFFER, 4, gl.DEPTH_COMPONENT16, 64, 64)
	if got := g.GetRenderbufferParameteri(gl.RENDERBUFFER, 0x8CAB); got != 4 {
		t.Errorf("RENDERBUFFER_SAMPLES_EXT = %d, want 4", got)
	}
	if got := g.CheckFramebufferStatus(gl.FRAMEBUFFER); got != gl.FRAMEBUFFER_COMPLETE {
		t.Errorf("matching sample counts: status %#x", got)
	}
	c.RenderbufferStorageMultisampleEXT(gl.RENDERBUFFER, 5, gl.DEPTH_COMPONENT16, 64, 64)
	if e := g.GetError(); e != gl.INVALID_VALUE {
		t.Errorf("5 samples (MAX_SAMPLES_EXT is %d): error %#x, want INVALID_VALUE", g.GetInteger(0x8D57), e)
	}
}

// TestMSAAStencilSurvivesReadback is dEQP multisample.stencil: a fan of
// thin triangles marks its samples in stencil, the image is read back
// (which submits the frame so far), colour is cleared and a full quad is
// drawn with stencil EQUAL 1. The multisampled depth/stencil buffer keeps
// every sample across the split, so the two images are identical — in
// the default framebuffer and in a multisampled-render-to-texture FBO
// with a 4-sample DEPTH24_STENCIL8 renderbuffer.
func TestMSAAStencilSurvivesReadback(t *testing.T) {
	for _, fbo := range []bool{false, true} {
		ctx := newTestContext(t, Config{Width: 64, Height: 64, Cores: 2, Samples: 4})
		g := ctx.GL()
		if fbo {
			tex := g.CreateTexture()
			g.BindTexture(gl.TEXTURE_2D, tex)
			g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 64, 64, gl.RGBA, gl.UNSIGNED_BYTE, nil)
			g.BindFramebuffer(gl.FRAMEBUFFER, g.CreateFramebuffer())
			ctx.gl.FramebufferTexture2DMultisampleEXT(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0, 4)
			rb := g.CreateRenderbuffer()
			g.BindRenderbuffer(gl.RENDERBUFFER, rb)
			ctx.gl.RenderbufferStorageMultisampleEXT(gl.RENDERBUFFER, 4, 0x88F0, 64, 64) // DEPTH24_STENCIL8_OES
			g.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, rb)
			g.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.STENCIL_ATTACHMENT, gl.RENDERBUFFER, rb)
			if st := g.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
				t.Fatalf("fbo status %#x", st)
			}
		}
		g.UseProgram(buildProgram(t, g, "attribute vec2 a_pos; void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }",
			"precision mediump float; void main() { gl_FragColor = vec4(1.0); }"))
		var xy []float32
		for i := 0; i < 12; i++ {
			a0, a1 := 2*math.Pi*float64(i)/12, 2*math.Pi*(float64(i)+0.5)/12
			xy = append(xy, 0, 0, float32(0.95*math.Cos(a0)), float32(0.95*math.Sin(a0)), float32(0.95*math.Cos(a1)), float32(0.95*math.Sin(a1)))
		}
		xy = append(xy, -1, -1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1)
		positions(g, xy...)
		read := func() []byte {
			px := make([]byte, 64*64*4)
			g.ReadPixels(px, 0, 0, 64, 64, gl.RGBA, gl.UNSIGNED_BYTE)
			return px
		}
		g.ClearColor(0, 0, 0, 1)
		g.ClearStencil(0)
		g.Clear(gl.COLOR_BUFFER_BIT | gl.STENCIL_BUFFER_BIT)
		g.Enable(gl.STENCIL_TEST)
		g.StencilFunc(gl.ALWAYS, 1, 1)
		g.StencilOp(gl.KEEP, gl.KEEP, gl.REPLACE)
		g.DrawArrays(gl.TRIANGLES, 0, 36)
		first := read()
		g.Clear(gl.COLOR_BUFFER_BIT)
		g.StencilFunc(gl.EQUAL, 1, 1)
		g.StencilOp(gl.KEEP, gl.KEEP, gl.KEEP)
		g.DrawArrays(gl.TRIANGLES, 36, 6)
		second := read()
		if e := g.GetError(); e != gl.NO_ERROR {
			t.Fatalf("fbo %v: GL error %#x", fbo, e)
		}
		partial, diff := 0, 0
		for i := 0; i < len(first); i += 4 {
			if first[i] != 0 && first[i] != 255 {
				partial++
			}
			if first[i] != second[i] {
				diff++
			}
		}
		if partial < 50 {
			t.Fatalf("fbo %v: only %d partly covered pixels", fbo, partial)
		}
		if diff != 0 {
			t.Errorf("fbo %v: %d pixels differ between the pattern and its redraw through the stencil", fbo, diff)
		}
	}
}
