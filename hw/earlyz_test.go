package hw

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// TestEarlyZWithDiscardMatchesLate renders random depth-tested frames whose
// fragment shaders discard (and some that write TLB_Z, where early Z must
// stay off) with EarlyZEnable set and clear: colour and depth must be
// bit-identical, and early Z must have shaded fewer fragments.
func TestEarlyZWithDiscardMatchesLate(t *testing.T) {
	rng := rand.New(rand.NewSource(31))
	funcs := []cl.CompareFunc{cl.CompareLess, cl.CompareLEqual, cl.CompareGreater, cl.CompareGEqual, cl.CompareNever}
	fewer := false
	for frame := 0; frame < 40; frame++ {
		fn := funcs[rng.Intn(len(funcs))]
		render := func(early bool) (*frameResult, uint32, uint32) {
			rng := rand.New(rand.NewSource(int64(frame)))
			var draws []testDraw
			for d := 0; d < 4; d++ {
				cfg := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true,
					DepthTestEnable: true, DepthFunc: fn, ZUpdatesEnable: rng.Intn(4) != 0, EarlyZEnable: early,
					EnableDepthOffset: rng.Intn(3) == 0}
				var verts []testVertex
				for i := 0; i < 12; i++ {
					verts = append(verts, testVertex{x: rng.Float32()*3 - 1.5, y: rng.Float32()*3 - 1.5, z: rng.Float32()*2 - 1, w: 0.5 + rng.Float32(),
						r: rng.Float32(), g: rng.Float32(), b: rng.Float32(), a: rng.Float32()})
				}
				fs := goldenFSKill
				if rng.Intn(5) == 0 {
					fs = goldenFSZ
				}
				draws = append(draws, testDraw{mode: cl.PrimTriangles, verts: verts, fs: fs, flags: shaderFlagDiscardsOrZ,
					state: []cl.Record{cfg, cl.DepthOffset{Factor: 1.5, Units: 2}}})
			}
			k := newTestKernel(t, 2, 32<<20)
			clearDepth := uint32(0x800000)
			if fn == cl.CompareGreater || fn == cl.CompareGEqual {
				clearDepth = 0x200000
			}
			res := k.renderFrame(&testFrame{width: 130, height: 90, clear: 0xFF000000, clearDepth: clearDepth, draws: draws})
			return res, k.g.ReadReg(RegPerfFragments), k.g.ReadReg(RegPerfEarlyZRejected)
		}
		late, lateFrags, lateRejected := render(false)
		early, earlyFrags, earlyRejected := render(true)
		if lateRejected != 0 {
			t.Fatalf("frame %d: PERF_EARLYZ_REJECTED = %d without EarlyZEnable", frame, lateRejected)
		}
		// Fewer fragments reach the late pipeline only if some were
		// rejected early (rejected ones that the shader would have
		// discarded change no count).
		if earlyFrags < lateFrags && earlyRejected == 0 {
			t.Fatalf("frame %d: fragments %d with early Z and %d without, but PERF_EARLYZ_REJECTED = 0", frame, earlyFrags, lateFrags)
		}
		if !bytes.Equal(early.color, late.color) || !bytes.Equal(early.zs, late.zs) {
			t.Fatalf("frame %d (func %d): early Z changes the image", frame, fn)
		}
		if earlyFrags > lateFrags {
			t.Fatalf("frame %d: %d fragments with early Z, %d without", frame, earlyFrags, lateFrags)
		}
		if earlyFrags < lateFrags {
			fewer = true
		}
	}
	if !fewer {
		t.Errorf("early Z never removed a fragment: the test does not exercise it")
	}
}
