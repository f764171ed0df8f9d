package hw

import (
	"math"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// msaaSize is the test framebuffer: 2×2 tiles of 32×32 with Multisample4x,
// and window ↔ NDC exact in float32 for 1/256-pixel positions.
const msaaSize = 64

func toNDC(p float64) float32 { return float32((p - msaaSize/2) / (msaaSize / 2)) }

// sampleInside is an independent point-in-triangle test of a sample in
// window coordinates: the signed distance to each edge, and whether it is
// inside all three (ccw or cw).
func sampleInside(tri [3][2]float64, px, py float64) (inside bool, minDist float64) {
	minDist = 1e9
	var pos, neg int
	for k := 0; k < 3; k++ {
		a, b := tri[k], tri[(k+1)%3]
		d := (b[0]-a[0])*(py-a[1]) - (b[1]-a[1])*(px-a[0])
		if d > 0 {
			pos++
		} else if d < 0 {
			neg++
		}
		minDist = min(minDist, max(d, -d))
	}
	return pos == 3 || neg == 3, minDist
}

// TestMSAAEdgeCoverage renders white triangles over black with 4× MSAA:
// every pixel's resolved value must be the fraction of its four sample
// positions the triangle covers (±1/255), computed analytically here, and
// a pixel wholly inside or outside stays exact.
func TestMSAAEdgeCoverage(t *testing.T) {
	// Window-space triangles, vertices on the 1/256 grid; edges at odd
	// slopes so many pixels are partly covered, across tile borders.
	tris := [][3][2]float64{
		{{3.25, 2.5}, {61.75, 17.125}, {20.5, 60.875}},
		{{60.125, 5.5}, {40.375, 62.25}, {1.5, 30.75}},
		{{10, 10}, {54.5, 11.75}, {33.25, 40}},
	}
	partial := 0
	for n, tri := range tris {
		var vs []testVertex
		for _, p := range tri {
			vs = append(vs, testVertex{x: toNDC(p[0]), y: toNDC(p[1]), z: 0, w: 1})
		}
		k := newTestKernel(t, 2, 32<<20)
		res := k.renderFrame(&testFrame{width: msaaSize, height: msaaSize, clear: 0xFF000000, msaa: true,
			draws: []testDraw{{mode: cl.PrimTriangles, verts: solid(1, 1, 1, 1, vs)}}})
		for y := 0; y < msaaSize; y++ {
			for x := 0; x < msaaSize; x++ {
				covered, ambiguous := 0, false
				for _, p := range samplePos {
					in, d := sampleInside(tri, float64(x)+float64(p[0])/256, float64(y)+float64(p[1])/256)
					if d < 1e-9 {
						ambiguous = true // on an edge: the fill rule decides
					}
					if in {
						covered++
					}
				}
				if ambiguous {
					continue
				}
				want := float64(covered) / 4 * 255
				got := res.pixel(msaaSize, x, y)
				if diff := float64(got[0]) - want; diff > 1 || diff < -1 || got[0] != got[1] || got[3] != 255 {
					t.Fatalf("triangle %d pixel (%d,%d): %v, want R=G=B %.2f (%d of 4 samples)", n, x, y, got, want, covered)
				}
				if covered > 0 && covered < 4 {
					partial++
				}
			}
		}
	}
	if partial < 100 {
		t.Fatalf("only %d partly covered pixels: the test does not exercise edges", partial)
	}
}

// TestMSAAPerSampleDepth: a quad whose depth crosses a flat one inside a
// pixel column: each sample keeps its own depth test, so the column
// resolves to the fraction of samples on the near side.
func TestMSAAPerSampleDepth(t *testing.T) {
	full := func(zl, zr float32) []testVertex {
		return []testVertex{
			{x: -1, y: -1, z: zl, w: 1}, {x: 1, y: -1, z: zr, w: 1}, {x: 1, y: 1, z: zr, w: 1},
			{x: -1, y: -1, z: zl, w: 1}, {x: 1, y: 1, z: zr, w: 1}, {x: -1, y: 1, z: zl, w: 1},
		}
	}
	depth := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true,
		DepthTestEnable: true, DepthFunc: cl.CompareLess, ZUpdatesEnable: true, Multisample4x: true}
	// The sloped quad's NDC z is (x_ndc − c)·0.5: zero (the flat quad's
	// depth) at window x = 32 + 32c = 20.25, a quarter pixel right of
	// pixel 20's centre. Samples left of it are nearer (less) and win.
	const cross = 20.25
	c := float32((cross - 32) / 32)
	k := newTestKernel(t, 2, 32<<20)
	res := k.renderFrame(&testFrame{width: msaaSize, height: msaaSize, clear: 0xFF000000, clearDepth: depthMax, msaa: true,
		draws: []testDraw{
			{mode: cl.PrimTriangles, verts: solid(1, 0, 0, 1, full(0, 0)), state: []cl.Record{depth}},
			{mode: cl.PrimTriangles, verts: solid(0, 1, 0, 1, full((-1-c)*0.5, (1-c)*0.5)), state: []cl.Record{depth}},
		}})
	for y := 0; y < msaaSize; y += 7 {
		for x := 17; x < 24; x++ {
			near := 0
			for _, o := range sampleOff {
				if float64(x)+0.5+o[0] < cross {
					near++
				}
			}
			got := res.pixel(msaaSize, x, y)
			wantG := float64(near) / 4 * 255
			if d := float64(got[1]) - wantG; d > 1 || d < -1 || int(got[0])+int(got[1]) < 254 || int(got[0])+int(got[1]) > 256 {
				t.Fatalf("pixel (%d,%d) = %v, want G %.2f (%d of 4 samples nearer)", x, y, got, wantG, near)
			}
		}
	}
}

// TestMSAASampleCoverage: SampleCoverageMask and alpha-to-coverage keep
// only some samples of a fully covered pixel, so the resolve shows the
// fraction; without Multisample4x the bits change nothing.
func TestMSAASampleCoverage(t *testing.T) {
	quad := []testVertex{{x: -1, y: -1, w: 1}, {x: 1, y: -1, w: 1}, {x: 1, y: 1, w: 1}, {x: -1, y: -1, w: 1}, {x: 1, y: 1, w: 1}, {x: -1, y: 1, w: 1}}
	base := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true}
	cases := []struct {
		name  string
		alpha float32
		cfg   func(cl.ConfigurationBits) cl.ConfigurationBits
		want  int // samples kept of 4
	}{
		{"none", 1, func(c cl.ConfigurationBits) cl.ConfigurationBits { return c }, 4},
		{"mask 0x3", 1, func(c cl.ConfigurationBits) cl.ConfigurationBits {
			c.SampleCoverageEnable, c.SampleCoverageMask = true, 0x3
			return c
		}, 2},
		{"mask 0x8", 1, func(c cl.ConfigurationBits) cl.ConfigurationBits {
			c.SampleCoverageEnable, c.SampleCoverageMask = true, 0x8
			return c
		}, 1},
		{"alpha 0.5", 0.5, func(c cl.ConfigurationBits) cl.ConfigurationBits { c.SampleAlphaToCoverage = true; return c }, 2},
		{"alpha 0.75", 0.75, func(c cl.ConfigurationBits) cl.ConfigurationBits { c.SampleAlphaToCoverage = true; return c }, 3},
		{"alpha 0.1", 0.1, func(c cl.ConfigurationBits) cl.ConfigurationBits { c.SampleAlphaToCoverage = true; return c }, 0},
		{"alpha 0.75 and mask 0x1", 0.75, func(c cl.ConfigurationBits) cl.ConfigurationBits {
			c.SampleAlphaToCoverage, c.SampleCoverageEnable, c.SampleCoverageMask = true, true, 0x1
			return c
		}, 1},
	}
	for _, tc := range cases {
		for _, msaa := range []bool{true, false} {
			k := newTestKernel(t, 2, 32<<20)
			res := k.renderFrame(&testFrame{width: msaaSize, height: msaaSize, clear: 0, msaa: msaa,
				draws: []testDraw{{mode: cl.PrimTriangles, verts: solid(1, 1, 1, tc.alpha, quad), state: []cl.Record{tc.cfg(base)}}}})
			want := float64(tc.want) / 4 * 255
			if !msaa {
				want = 255
			}
			for _, p := range [][2]int{{0, 0}, {33, 5}, {63, 63}} {
				got := res.pixel(msaaSize, p[0], p[1])
				if d := float64(got[0]) - want; d > 1 || d < -1 {
					t.Errorf("%s msaa=%v: pixel %v = %v, want R %.2f", tc.name, msaa, p, got, want)
				}
			}
		}
	}
}

// TestMSAAAllSamplesZS is dEQP multisample.stencil's situation: a frame
// marks the samples a fan of thin triangles covers in stencil and is
// stored; the next frame loads depth/stencil, clears colour and draws a
// full-screen quad with stencil EQUAL 1. With AllSamples every sample's
// stencil survives the store and load, so the second image equals the
// first exactly (one stencil value per pixel would widen or narrow the
// edges).
func TestMSAAAllSamplesZS(t *testing.T) {
	var fan []testVertex
	for i := 0; i < 12; i++ {
		a0, a1 := 2*math.Pi*float64(i)/12, 2*math.Pi*(float64(i)+0.5)/12
		fan = append(fan, testVertex{w: 1},
			testVertex{x: float32(0.95 * math.Cos(a0)), y: float32(0.95 * math.Sin(a0)), w: 1},
			testVertex{x: float32(0.95 * math.Cos(a1)), y: float32(0.95 * math.Sin(a1)), w: 1})
	}
	full := []testVertex{
		{x: -1, y: -1, w: 1}, {x: 1, y: -1, w: 1}, {x: 1, y: 1, w: 1},
		{x: -1, y: -1, w: 1}, {x: 1, y: 1, w: 1}, {x: -1, y: 1, w: 1},
	}
	stencilOn := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, StencilEnable: true, Multisample4x: true}
	mark := cl.StencilConfig{Face: cl.FaceBoth, Func: cl.CompareAlways, Ref: 1, ValueMask: 1, WriteMask: 0xFF, DepthPass: cl.StencilOpReplace}
	test := cl.StencilConfig{Face: cl.FaceBoth, Func: cl.CompareEqual, Ref: 1, ValueMask: 1, WriteMask: 0xFF}
	k := newTestKernel(t, 2, 32<<20)
	first := k.renderFrame(&testFrame{width: msaaSize, height: msaaSize, clear: 0xFF000000, msaa: true, zsAllSamples: true,
		draws: []testDraw{{mode: cl.PrimTriangles, verts: solid(1, 1, 1, 1, fan), state: []cl.Record{stencilOn, mark}}}})
	second := k.renderFrame(&testFrame{width: msaaSize, height: msaaSize, clear: 0xFF000000, msaa: true, zsAllSamples: true, zsLoad: first.zs,
		draws: []testDraw{{mode: cl.PrimTriangles, verts: solid(1, 1, 1, 1, full), state: []cl.Record{stencilOn, test}}}})
	partial := 0
	for y := 0; y < msaaSize; y++ {
		for x := 0; x < msaaSize; x++ {
			a, b := first.pixel(msaaSize, x, y), second.pixel(msaaSize, x, y)
			if a != b {
				t.Fatalf("pixel (%d,%d): first image %v, redrawn through the loaded stencil %v", x, y, a, b)
			}
			if a[0] != 0 && a[0] != 255 {
				partial++
			}
		}
	}
	if partial < 50 {
		t.Fatalf("only %d partly covered pixels: the test does not exercise per-sample stencil", partial)
	}
}
