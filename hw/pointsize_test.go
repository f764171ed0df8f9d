package hw

import (
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// dEQP-GLES2.functional.rasterization.limits.points: a point larger than
// the supported range is drawn at the largest supported size, 64.
func TestPointSizeClamped(t *testing.T) {
	const W, H = 96, 96
	k := newTestKernel(t, 1, 16<<20)
	res := k.renderFrame(&testFrame{width: W, height: H, draws: []testDraw{
		{mode: cl.PrimPoints, verts: []testVertex{{x: 0, y: 0, w: 1, r: 1, a: 1}}, state: []cl.Record{cl.PointSize{PointSize: 80}}},
	}})
	n := 0
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			if res.pixel(W, x, y)[0] == 255 {
				n++
			}
		}
	}
	if n != 64*64 {
		t.Errorf("a point of size 80 covers %d pixels, want 64×64 = %d", n, 64*64)
	}
}

// dEQP-GLES2.functional.clipping.point.wide_point_clip_viewport_* and
// line.wide_line_clip_viewport_*: a wide point whose centre, or a wide
// line that lies, just outside the view volume still draws the fragments
// that fall inside the viewport (the clip window bounds them); the left
// half of a 64×64 framebuffer is the viewport.
func TestWidePrimitivesJustOutsideTheViewport(t *testing.T) {
	const W, H = 64, 64
	viewport := []cl.Record{cl.ViewportOffset{X: 16, Y: 32}, cl.ClipperXYScaling{X: 16, Y: 32},
		cl.ClipWindow{Width: 32, Height: H}, cl.PointSize{PointSize: 9}, cl.LineWidth{Width: 5}}
	const out = 1 + 2.0/16 // NDC x two pixels right of the viewport's edge (window x 34)
	for _, tc := range []struct {
		name  string
		mode  cl.PrimitiveMode
		verts []testVertex
		want  int // pixels drawn
	}{
		// Centre (34, 32), size 9: x 29.5..38.5 → columns 29 to 31 inside (the
		// left edge is in), rows 27 to 35.
		{"point", cl.PrimPoints, []testVertex{{x: out, y: 0, w: 1, r: 1, a: 1}}, 3 * 9},
		// Vertical line at x 34 from y 16 to 48, width 5: x 31.5..36.5 → column 31, rows 16 to 47.
		{"line", cl.PrimLines, []testVertex{{x: out, y: -0.5, w: 1, r: 1, a: 1}, {x: out, y: 0.5, w: 1, r: 1, a: 1}}, 32},
	} {
		k := newTestKernel(t, 1, 16<<20)
		res := k.renderFrame(&testFrame{width: W, height: H, draws: []testDraw{{mode: tc.mode, verts: tc.verts, state: viewport}}})
		n := 0
		for y := 0; y < H; y++ {
			for x := 0; x < W; x++ {
				if res.pixel(W, x, y)[0] == 255 {
					if x >= 32 {
						t.Fatalf("%s: pixel (%d,%d) drawn outside the viewport", tc.name, x, y)
					}
					n++
				}
			}
		}
		if n != tc.want {
			t.Errorf("%s: %d pixels drawn inside the viewport, want %d", tc.name, n, tc.want)
		}
	}
}

// dEQP-GLES2.functional.rasterization.interpolation.*.lines: a line's
// fragment takes the value at the projection of its centre onto the
// segment, t = (p−a)·(b−a)/|b−a|², not at its position along the major
// axis. Line (8,8)→(56,40), width 9, red 0→1: pixel (20,20)'s centre
// (20.5,20.5) projects to t = (12.5·48 + 12.5·32)/(48²+32²) = 0.3005 (red
// 77); the major-axis position would be 12.5/48 = 0.2604 (red 66).
func TestWideLineInterpolatesAlongTheLine(t *testing.T) {
	const W, H = 64, 64
	n := func(p float32) float32 { return (p - 32) / 32 }
	k := newTestKernel(t, 1, 16<<20)
	res := k.renderFrame(&testFrame{width: W, height: H, draws: []testDraw{{mode: cl.PrimLines,
		verts: []testVertex{{x: n(8), y: n(8), w: 1, a: 1}, {x: n(56), y: n(40), w: 1, r: 1, a: 1}},
		state: []cl.Record{cl.LineWidth{Width: 9}}}}})
	// (20,16) lies on the line (both methods agree); (40,26) is 3 pixels
	// below it (major-axis red would be 173).
	for _, p := range []struct{ x, y, red int }{{20, 20, 77}, {20, 16, 67}, {40, 26, 165}} {
		got := int(res.pixel(W, p.x, p.y)[0])
		if got < p.red-1 || got > p.red+1 {
			t.Errorf("pixel (%d,%d): red %d, want %d (±1)", p.x, p.y, got, p.red)
		}
	}
}
