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
