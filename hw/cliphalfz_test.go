package hw

import (
	"encoding/binary"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// TestClipHalfZ: with ClipHalfZ the near plane is z = 0, so a full-screen
// quad whose NDC z runs from -1 (left edge) to 1 (right edge) keeps only
// its right half; with the viewport's z transform of EXT_clip_control's
// ZERO_TO_ONE mode (scale 1, offset 0) the stored depth is z itself.
// Without the bit the whole quad is drawn.
func TestClipHalfZ(t *testing.T) {
	const W, H = 64, 32
	quad := solid(1, 1, 1, 1, []testVertex{
		{x: -1, y: -1, z: -1, w: 1}, {x: 1, y: -1, z: 1, w: 1}, {x: 1, y: 1, z: 1, w: 1},
		{x: -1, y: -1, z: -1, w: 1}, {x: 1, y: 1, z: 1, w: 1}, {x: -1, y: 1, z: -1, w: 1},
	})
	for _, halfZ := range []bool{true, false} {
		cfg := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, ClipHalfZ: halfZ,
			DepthTestEnable: true, DepthFunc: cl.CompareAlways, ZUpdatesEnable: true}
		k := newTestKernel(t, 2, 16<<20)
		res := k.renderFrame(&testFrame{width: W, height: H, clear: 0xFF000000, draws: []testDraw{{mode: cl.PrimTriangles, verts: quad,
			state: []cl.Record{cfg, cl.ClipperZScaleAndOffset{Scale: 1, Offset: 0}}}}})
		for y := 0; y < H; y += 5 {
			for x := 0; x < W; x++ {
				drawn := res.pixel(W, x, y)[0] == 255
				zNDC := (float64(x)+0.5)/W*2 - 1
				if want := !halfZ || zNDC > 0; drawn != want {
					t.Fatalf("halfZ %v: pixel (%d,%d) (z %.3f) drawn %v, want %v", halfZ, x, y, zNDC, drawn, want)
				}
				if drawn && halfZ {
					got := float64(binary.LittleEndian.Uint32(res.zs[(y*W+x)*4:])&depthMax) / depthMax
					if d := got - zNDC; d > 1e-3 || d < -1e-3 {
						t.Fatalf("pixel (%d,%d): depth %.4f, want %.4f", x, y, got, zNDC)
					}
				}
			}
		}
	}
}
