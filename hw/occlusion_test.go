package hw

import (
	"encoding/binary"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// occlRect is a window-space rectangle [x0,x1)×[y0,y1) at depth z (NDC)
// as two triangles of a 128×128 framebuffer.
func occlRect(x0, y0, x1, y1 int, z float32) []testVertex {
	n := func(p int) float32 { return float32(p-64) / 64 }
	a, b, c, d := testVertex{x: n(x0), y: n(y0), z: z, w: 1}, testVertex{x: n(x1), y: n(y0), z: z, w: 1},
		testVertex{x: n(x1), y: n(y1), z: z, w: 1}, testVertex{x: n(x0), y: n(y1), z: z, w: 1}
	return solid(1, 1, 1, 1, []testVertex{a, b, c, a, c, d})
}

// TestOcclusionCounter draws rectangles (crossing tile borders, so several
// workers add to one word) under OCCLUSION_QUERY_COUNTER records and
// checks each word holds exactly the samples that passed depth and
// stencil: a passing rectangle counts its area, a hidden one nothing, a
// half-hidden one its visible part, a draw with the counter off nothing,
// and a counted draw that a later opaque draw hides (which hidden-surface
// removal would otherwise drop) still counts.
func TestOcclusionCounter(t *testing.T) {
	depthLess := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true,
		DepthTestEnable: true, DepthFunc: cl.CompareLess, ZUpdatesEnable: true, EarlyZEnable: true}
	noDepth := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true}
	stencilEq := cl.StencilConfig{Face: cl.FaceBoth, Func: cl.CompareEqual, Ref: 1, ValueMask: 0xFF, WriteMask: 0xFF}
	stencilOn := noDepth
	stencilOn.StencilEnable = true
	for _, msaa := range []bool{false, true} {
		k := newTestKernel(t, 2, 32<<20)
		words, mem := k.bo(64, true)
		ctr := func(i int) cl.Record { return cl.OcclusionQueryCounter{Address: words + uint32(4*i)} }
		off := cl.OcclusionQueryCounter{}
		withMS := func(c cl.ConfigurationBits) cl.ConfigurationBits { c.Multisample4x = msaa; return c }
		draws := []testDraw{
			// 0: 50×40 in front of the cleared depth: all pass.
			{mode: cl.PrimTriangles, verts: occlRect(40, 30, 90, 70, 0), state: []cl.Record{withMS(depthLess), ctr(0)}},
			// 1: the same rectangle behind it: none pass.
			{mode: cl.PrimTriangles, verts: occlRect(40, 30, 90, 70, 0.5), state: []cl.Record{ctr(1)}},
			// 2: 40×40 behind draw 0 where they overlap (30×40).
			{mode: cl.PrimTriangles, verts: occlRect(60, 30, 100, 70, 0.5), state: []cl.Record{ctr(2)}},
			// 3: counter off: counts nowhere.
			{mode: cl.PrimTriangles, verts: occlRect(0, 0, 20, 20, -0.5), state: []cl.Record{off}},
			// 4: stencil EQUAL 1 against stencil 0: none pass.
			{mode: cl.PrimTriangles, verts: occlRect(0, 0, 128, 128, 0), state: []cl.Record{withMS(stencilOn), stencilEq, ctr(3)}},
		}
		k.renderFrame(&testFrame{width: 128, height: 128, clear: 0xFF000000, clearDepth: depthMax, msaa: msaa, draws: draws})
		// A frame of its own, so that no earlier draw writes depth and
		// hidden-surface removal may drop draw 0 (16×16, no depth test)
		// under draw 1 (opaque, full screen, uncounted).
		k.renderFrame(&testFrame{width: 128, height: 128, clear: 0xFF000000, clearDepth: depthMax, msaa: msaa, draws: []testDraw{
			{mode: cl.PrimTriangles, verts: occlRect(56, 56, 72, 72, 0), state: []cl.Record{withMS(noDepth), ctr(4)}},
			{mode: cl.PrimTriangles, verts: occlRect(0, 0, 128, 128, 0), state: []cl.Record{off}},
		}})
		per := uint32(1)
		if msaa {
			per = 4
		}
		want := []uint32{50 * 40, 0, 10 * 40, 0, 16 * 16}
		for i, w := range want {
			if got := binary.LittleEndian.Uint32(mem[4*i:]); got != w*per {
				t.Errorf("msaa %v: counter %d = %d samples, want %d", msaa, i, got, w*per)
			}
		}
		if got := binary.LittleEndian.Uint32(mem[4*len(want):]); got != 0 {
			t.Errorf("msaa %v: word after the counters = %d, want 0 (untouched)", msaa, got)
		}
	}
}

// TestOcclusionCounterSaturates: a count that would pass 2^32−1 stops
// there instead of wrapping to a small number.
func TestOcclusionCounterSaturates(t *testing.T) {
	k := newTestKernel(t, 1, 16<<20)
	va, mem := k.bo(4, true)
	binary.LittleEndian.PutUint32(mem, 0xFFFFFF00)
	k.renderFrame(&testFrame{width: 64, height: 64, clear: 0xFF000000, draws: []testDraw{
		{mode: cl.PrimTriangles, verts: occlRect(0, 0, 32, 32, 0), state: []cl.Record{cl.OcclusionQueryCounter{Address: va}}}, // 16×16 pixels here,
	}})
	if got := binary.LittleEndian.Uint32(mem); got != 0xFFFFFFFF {
		t.Errorf("counter = %#x, want 0xffffffff (256 samples added to 0xffffff00)", got)
	}
}
