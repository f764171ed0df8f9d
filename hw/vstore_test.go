package hw

import (
	"bytes"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// testFSBadVarying reads more varyings than a batch holds: a shader CL
// error in the middle of a segment, after its vertices were shaded.
var testFSBadVarying = strings.Repeat("or r0, a.vary, a.vary ; nop\n", maxVaryings) + `
or tlb_r, a.vary, a.vary ; nop
or tlb_g, a.vary, a.vary ; nop
or tlb_b, a.vary, a.vary ; nop
or tlb_a, a.vary, a.vary ; nop ; end
`

// TestAbandonedSegmentDoesNotLeak: a tile that fails in the middle of a
// segment leaves that segment's vertices in the worker; the next job's
// first segment must not shade them. Before the fix the second job shaded
// the first job's vertex 100 with its own three-vertex attributes and
// failed with "attribute 0 of vertex 100 beyond MaxOffset".
func TestAbandonedSegmentDoesNotLeak(t *testing.T) {
	k := newTestKernel(t, 1, 16<<20)
	k.g.noVertexStore = true // indices in the tile list, as the failing case had
	// HSR's coverage test empties the segment before the walk when the
	// tile has an occluder candidate, which hid the leak.
	k.g.noHSR = true
	k.g.WriteReg(RegIntrEnable, IntrCLError)
	k.expectErrors = true
	verts := make([]testVertex, 103)
	copy(verts[100:], tri(-1, -1, 3, -1, -1, 3))
	k.renderFrame(&testFrame{width: 64, height: 64, draws: []testDraw{
		{mode: cl.PrimTriangles, verts: verts, indices: []uint32{100, 101, 102}, fs: testFSBadVarying},
	}})
	st := k.g.ReadReg(RegIntrStatus)
	if st&IntrCLError == 0 {
		t.Fatalf("the first job did not fail (INTR_STATUS %#x): the test needs a failing segment", st)
	}
	k.g.WriteReg(RegIntrAck, st)
	res := k.renderFrame(&testFrame{width: 64, height: 64, draws: []testDraw{
		{mode: cl.PrimTriangles, verts: tri(-1, -1, 3, -1, -1, 3)},
	}})
	if st := k.g.ReadReg(RegIntrStatus); st&IntrCLError != 0 {
		t.Fatalf("the second job failed too: CL_ERROR_STATUS %#x", k.g.ReadReg(RegCLErrorStatus))
	}
	if p := res.pixel(64, 10, 10); p != [4]byte{0xFF, 0, 0, 0xFF} && p[3] == 0 {
		t.Errorf("pixel = %v, want drawn", p)
	}
}

// storeFrame renders fr with the vertex store on and off (cores each) and
// returns both results and GPUs.
func storeFrame(t *testing.T, fr *testFrame, cores int) (on, off *frameResult) {
	t.Helper()
	ref := newTestKernel(t, cores, 32<<20)
	ref.g.noVertexStore = true
	off = ref.renderFrame(fr)
	k := newTestKernel(t, cores, 32<<20)
	on = k.renderFrame(fr)
	return on, off
}

func counter(k *testKernel, c Counter) uint64 {
	return uint64(k.g.ReadReg(RegPerfCounter(c))) | uint64(k.g.ReadReg(RegPerfCounter(c)+4))<<32
}

// TestVertexStoreMatchesReshading: random frames of every primitive mode,
// indexed (compact and sparse index ranges) and not, with clipping,
// culling, flat shading and depth, come out bit-identical whether the
// binner stores shaded vertices or the tiles shade them again; with the
// store no tile runs the vertex shader.
func TestVertexStoreMatchesReshading(t *testing.T) {
	rng := rand.New(rand.NewSource(71))
	allStored, mixed := 0, 0
	for frame := 0; frame < 40; frame++ {
		var draws []testDraw
		for d := 0; d < 1+rng.Intn(5); d++ {
			verts := goldenRandVerts(rng, 3+rng.Intn(60), 1.2, 0.4, 2, frame%3 == 0)
			dr := testDraw{mode: cl.PrimitiveMode(rng.Intn(7)), verts: verts}
			if rng.Intn(2) == 0 {
				n := 3 + rng.Intn(90)
				span := len(verts)
				for i := 0; i < n; i++ {
					// Mostly valid indices; some beyond MaxIndex are dropped.
					dr.indices = append(dr.indices, uint32(rng.Intn(span+span/10)))
				}
				dr.itype = cl.IndexType(rng.Intn(3))
				if dr.itype == cl.IndexU8 && span > 200 {
					dr.itype = cl.IndexU16
				}
			}
			cfg := cl.ConfigurationBits{EnableForwardFacing: rng.Intn(4) != 0, EnableReverseFacing: rng.Intn(4) != 0,
				ClockwisePrimitives: rng.Intn(2) == 0, DepthTestEnable: rng.Intn(2) == 0, DepthFunc: cl.CompareLess, ZUpdatesEnable: true}
			dr.state = []cl.Record{cfg, cl.FlatShadeFlags{Flags: uint32(rng.Intn(16))}, cl.PointSize{PointSize: 1 + rng.Float32()*6}}
			draws = append(draws, dr)
		}
		fr := &testFrame{width: 150, height: 110, clear: 0xFF102030, clearDepth: 0xFFFFFF, draws: draws}
		on, off := storeFrame(t, fr, 2)
		if !bytes.Equal(on.color, off.color) || !bytes.Equal(on.zs, off.zs) {
			t.Fatalf("frame %d: the vertex store changes the image", frame)
		}
		if n := counter(off.k, CtrBinStoredVertices) + counter(off.k, CtrVSStoredVertices); n != 0 {
			t.Fatalf("frame %d: %d stored vertices with the store off", frame, n)
		}
		// Records after one that culled much are re-shaded (the
		// heuristic); a frame whose every record was stored shades no
		// vertex in the tiles.
		stored, binned := counter(on.k, CtrBinStoredVertices), counter(on.k, CtrCSVertices)
		if stored > binned || (stored == binned && counter(on.k, CtrVSVertices) != 0) {
			t.Errorf("frame %d: stored %d of %d binner-shaded vertices, tiles shaded %d", frame, stored, binned, counter(on.k, CtrVSVertices))
		}
		if stored == binned {
			allStored++
		} else if stored > 0 {
			mixed++
		}
	}
	if allStored == 0 || mixed == 0 {
		t.Errorf("%d frames stored every vertex, %d some: the test needs both", allStored, mixed)
	}
}

// TestVertexStorePartial: a record whose vertices do not all fit in the
// initial pool stores its first slots and bins the rest with indices; the
// image is the same and both kinds of primitive reach the tiles.
func TestVertexStorePartial(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	var verts []testVertex
	for i := 0; i < 3000; i++ {
		cx, cy := rng.Float32()*2-1, rng.Float32()*2-1
		for k := 0; k < 3; k++ {
			verts = append(verts, testVertex{x: cx + rng.Float32()*0.2, y: cy + rng.Float32()*0.2, z: rng.Float32()*2 - 1, w: 1,
				r: rng.Float32(), g: rng.Float32(), b: rng.Float32(), a: 1})
		}
	}
	depth := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthTestEnable: true, DepthFunc: cl.CompareLess, ZUpdatesEnable: true}
	// 9,000 vertices × 36 bytes = 316 KiB; the pool has 360 KiB, of which
	// the tile lists keep 64 KiB (listReserveBytes of 4 tiles).
	fr := &testFrame{width: 128, height: 128, clearDepth: 0xFFFFFF, poolExtra: 90 * tileBlockSize,
		draws: []testDraw{{mode: cl.PrimTriangles, verts: verts, state: []cl.Record{depth}}}}
	on, off := storeFrame(t, fr, 2)
	if !bytes.Equal(on.color, off.color) || !bytes.Equal(on.zs, off.zs) {
		t.Fatal("a partly stored record changes the image")
	}
	stored, shaded := counter(on.k, CtrBinStoredVertices), counter(on.k, CtrVSVertices)
	if stored == 0 || stored >= 9000 || stored%16 != 0 || shaded == 0 {
		t.Errorf("stored %d of 9000 vertices (want a multiple of 16 strictly between), tiles shaded %d", stored, shaded)
	}
}

// TestVertexStoreHeuristic: after a record that dropped every primitive
// (f = 1), storing costs V = 8 instructions a vertex against the
// coordinate shader's C = 4, so the next record is re-shaded; after one
// that dropped none, it is stored.
func TestVertexStoreHeuristic(t *testing.T) {
	culled := tri(-0.5, -0.5, -0.5, 0.5, 0.5, -0.5) // clockwise
	ccw := tri(-0.5, -0.5, 0.5, -0.5, -0.5, 0.5)
	backOff := cl.ConfigurationBits{EnableForwardFacing: true}
	for _, tc := range []struct {
		name  string
		first []testVertex
		want  uint64 // vertices stored of the second record
	}{
		{"after a culled record", culled, 0},
		{"after a visible record", ccw, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newTestKernel(t, 1, 16<<20)
			k.renderFrame(&testFrame{width: 64, height: 64, draws: []testDraw{
				{mode: cl.PrimTriangles, verts: tc.first, state: []cl.Record{backOff}},
				{mode: cl.PrimTriangles, verts: ccw},
			}})
			// The first record of a job is always stored (f estimated 0).
			if got := counter(k, CtrBinStoredVertices) - 3; got != tc.want {
				t.Errorf("second record: %d vertices stored, want %d", got, tc.want)
			}
		})
	}
}

// TestParallelTileListsMatchSerial: records of ≥ minParallelPrims
// primitives of every mode — clipped, culled, outside the view, NaN,
// dropped indices — classified by helper threads and committed in order
// give byte-identical tile-allocation memory (lists, vertex store and all),
// image and counters to the binner alone.
func TestParallelTileListsMatchSerial(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	// Small primitives (the test is about binning, not fill): clusters of
	// 50 vertices within 0.1 of a centre in [-1.3, 1.3]², w in [-0.2, 2]
	// so some cross the w = 0 plane and are clipped.
	var verts []testVertex
	var cx, cy, w float32
	for i := 0; i < 30000; i++ {
		if i%50 == 0 {
			cx, cy, w = rng.Float32()*2.6-1.3, rng.Float32()*2.6-1.3, rng.Float32()*2.2-0.2
		}
		vw := w + rng.Float32()*0.1
		verts = append(verts, testVertex{x: (cx + rng.Float32()*0.1) * vw, y: (cy + rng.Float32()*0.1) * vw, z: (rng.Float32()*2 - 1) * vw, w: vw,
			r: rng.Float32(), g: rng.Float32(), b: rng.Float32(), a: 1})
	}
	verts[17].x = float32(math.NaN())
	fan := []testVertex{{x: 0.2, y: 0.1, w: 1}}
	for i := 0; i < 9000; i++ {
		a := float64(i) * 0.01
		fan = append(fan, testVertex{x: 0.2 + 0.05*float32(math.Cos(a)), y: 0.1 + 0.05*float32(math.Sin(a)), w: 1, g: 1, a: 1})
	}
	var idx []uint32
	for i := 0; i < 30000; i++ {
		idx = append(idx, uint32(rng.Intn(30100))) // some beyond MaxIndex
	}
	cull := cl.ConfigurationBits{EnableForwardFacing: true, DepthTestEnable: true, DepthFunc: cl.CompareLess, ZUpdatesEnable: true}
	both := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true}
	fr := &testFrame{width: 200, height: 150, clear: 0xFF000000, clearDepth: 0xFFFFFF, poolExtra: 16 << 20, draws: []testDraw{
		{mode: cl.PrimTriangles, verts: verts, state: []cl.Record{cull}},
		{mode: cl.PrimTriangleStrip, verts: verts[:20000], state: []cl.Record{both}},
		{mode: cl.PrimTriangleFan, verts: fan},
		{mode: cl.PrimLineLoop, verts: verts[:10000], indices: idx[:10000]},
		{mode: cl.PrimPoints, verts: verts, indices: idx[:12000]},
	}}
	ref := newTestKernel(t, 2, 64<<20)
	ref.g.noParallelBin = true
	want := ref.renderFrame(fr)
	k := newTestKernel(t, 3, 64<<20)
	got := k.renderFrame(fr)
	if !bytes.Equal(got.tileAlloc, want.tileAlloc) {
		t.Error("tile-allocation memory differs")
	}
	if !bytes.Equal(got.color, want.color) || !bytes.Equal(got.zs, want.zs) {
		t.Error("image differs")
	}
	for c := Counter(0); c < NumCounters; c++ {
		if c == CtrBinParallelVertices || c == CtrBinParallelPrimitives {
			continue
		}
		if a, b := counter(k, c), counter(ref, c); a != b {
			t.Errorf("%v = %d, want %d", c, a, b)
		}
	}
	if n := counter(k, CtrBinParallelPrimitives); n == 0 || counter(ref, CtrBinParallelPrimitives) != 0 {
		t.Errorf("bin.parallel_primitives = %d (binner alone: %d)", n, counter(ref, CtrBinParallelPrimitives))
	}
	if counter(k, CtrBinRejected) == 0 || counter(k, CtrBinCulled) == 0 || counter(k, CtrBinClipped) == 0 {
		t.Errorf("the frame must reject, cull and clip: %d %d %d", counter(k, CtrBinRejected), counter(k, CtrBinCulled), counter(k, CtrBinClipped))
	}
}
