package hw

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/hw/qpu"
)

func solid(r, g, b, a float32, vs []testVertex) []testVertex {
	out := make([]testVertex, len(vs))
	for i, v := range vs {
		v.r, v.g, v.b, v.a = r, g, b, a
		out[i] = v
	}
	return out
}

// ndcToPixel returns the pixel whose centre is nearest NDC (x, y).
func ndcToPixel(w, h int, x, y float32) (int, int) {
	return int((x + 1) / 2 * float32(w)), int((y + 1) / 2 * float32(h))
}

func TestFullFrame(t *testing.T) {
	k := newTestKernel(t, 2, 32<<20)
	const W, H = 150, 100
	res := k.renderFrame(&testFrame{width: W, height: H, clear: 0xFF403020, draws: []testDraw{
		// A full-screen quad in solid colour over the left half.
		{mode: cl.PrimTriangleStrip, verts: solid(0, 0, 1, 1, []testVertex{
			{x: -1, y: -1, w: 1}, {x: 0, y: -1, w: 1}, {x: -1, y: 1, w: 1}, {x: 0, y: 1, w: 1}})},
		// An interpolated triangle on the right half.
		{mode: cl.PrimTriangles, verts: tri(0.1, -0.9, 0.9, -0.9, 0.5, 0.9)},
	}})
	for y := 0; y < H; y++ {
		for x := 0; x < W/2; x++ {
			if p := res.pixel(W, x, y); p != [4]byte{0, 0, 255, 255} {
				t.Fatalf("pixel (%d,%d) = %v, want blue", x, y, p)
			}
		}
	}
	if p := res.pixel(W, W-1, H-1); p != [4]byte{0x20, 0x30, 0x40, 0xFF} {
		t.Fatalf("background pixel = %v, want clear colour", p)
	}
	// Centroid of the triangle: (0.5, -0.3) → colour ≈ (1/3, 1/3, 1/3).
	x, y := ndcToPixel(W, H, 0.5, -0.3)
	p := res.pixel(W, x, y)
	for c := 0; c < 3; c++ {
		if math.Abs(float64(p[c])-85) > 6 {
			t.Fatalf("centroid pixel (%d,%d) = %v, want ≈ 85 per channel", x, y, p)
		}
	}
	// Near the red vertex the colour is mostly red.
	x, y = ndcToPixel(W, H, 0.15, -0.87)
	if p := res.pixel(W, x, y); p[0] < 200 || p[1] > 60 || p[2] > 60 {
		t.Fatalf("pixel near the red vertex = %v", p)
	}
}

// additive blending of a constant colour counts how often each pixel is hit.
var additive = []cl.Record{cl.BlendConfig{Enable: true, SrcRGB: cl.BlendFactorOne, DstRGB: cl.BlendFactorOne, SrcAlpha: cl.BlendFactorOne, DstAlpha: cl.BlendFactorOne}}

func TestFillRuleSharedEdges(t *testing.T) {
	const W, H = 97, 83
	// A fan of triangles around an off-centre point: every interior edge is
	// shared by two triangles, and vertices are not on pixel centres.
	rng := rand.New(rand.NewSource(1))
	cx, cy := float32(0.07), float32(-0.13)
	var verts []testVertex
	verts = append(verts, testVertex{x: cx, y: cy, w: 1})
	const n = 23
	for i := 0; i <= n; i++ {
		a := 2 * math.Pi * float64(i%n) / n
		r := 0.3 + 0.2*rng.Float64()
		if i == n {
			verts = append(verts, verts[1])
			break
		}
		verts = append(verts, testVertex{x: cx + float32(r*math.Cos(a)), y: cy + float32(r*math.Sin(a)), w: 1})
	}
	// Plus an axis-aligned quad split along its diagonal, on exact pixel
	// centres and edges, in the other corner.
	quad := []testVertex{{x: -1, y: -1, w: 1}, {x: -0.5, y: -1, w: 1}, {x: -1, y: -0.5, w: 1}, {x: -0.5, y: -0.5, w: 1}}
	k := newTestKernel(t, 2, 32<<20)
	res := k.renderFrame(&testFrame{width: W, height: H, draws: []testDraw{
		{mode: cl.PrimTriangleFan, verts: verts, fs: testFSUniform, uniforms: []float32{10.0 / 255, 0, 0, 0}, state: additive},
		{mode: cl.PrimTriangleStrip, verts: quad, fs: testFSUniform, uniforms: []float32{10.0 / 255, 0, 0, 0}},
	}})
	covered := 0
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			switch r := res.pixel(W, x, y)[0]; r {
			case 0:
			case 10:
				covered++
			default:
				t.Fatalf("pixel (%d,%d) hit %d times", x, y, r/10)
			}
		}
	}
	if covered < 600 {
		t.Fatalf("only %d pixels covered", covered)
	}
	// The pixel under the fan centre is covered exactly once.
	if x, y := ndcToPixel(W, H, cx, cy); res.pixel(W, x, y)[0] != 10 {
		t.Fatalf("fan centre pixel not covered once")
	}
}

func TestRasterCoverageExact(t *testing.T) {
	// An axis-aligned rectangle drawn as two triangles covers exactly the
	// pixels whose centres are inside; centres exactly on an edge belong to
	// the rectangle only on its left and bottom edges (y grows upwards).
	const W, H = 64, 64
	px := func(x, y float32) testVertex { return testVertex{x: x/W*2 - 1, y: y/H*2 - 1, w: 1} }
	tests := []struct {
		name               string
		x0, y0, x1, y1     float32
		wx0, wy0, wx1, wy1 int // covered pixels [wx0,wx1)×[wy0,wy1)
	}{
		{"edges between centres", 10, 10, 20, 16, 10, 10, 20, 16},
		{"edges through centres", 10.5, 10.5, 20.5, 16.5, 10, 10, 20, 16},
		{"sub-pixel offsets", 10.25, 10.75, 20.875, 16.125, 10, 11, 21, 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := newTestKernel(t, 1, 16<<20)
			res := k.renderFrame(&testFrame{width: W, height: H, draws: []testDraw{{
				mode:  cl.PrimTriangleStrip,
				verts: []testVertex{px(tc.x0, tc.y0), px(tc.x1, tc.y0), px(tc.x0, tc.y1), px(tc.x1, tc.y1)},
				fs:    testFSUniform, uniforms: []float32{10.0 / 255, 0, 0, 0}, state: additive,
			}}})
			for y := 0; y < H; y++ {
				for x := 0; x < W; x++ {
					want := byte(0)
					if x >= tc.wx0 && x < tc.wx1 && y >= tc.wy0 && y < tc.wy1 {
						want = 10
					}
					if got := res.pixel(W, x, y)[0]; got != want {
						t.Fatalf("pixel (%d,%d) = %d, want %d", x, y, got, want)
					}
				}
			}
		})
	}
}

func TestDepthTest(t *testing.T) {
	const W, H = 64, 64
	depth := []cl.Record{cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true,
		DepthTestEnable: true, DepthFunc: cl.CompareLess, ZUpdatesEnable: true, EarlyZEnable: true}}
	quad := func(z float32, r, g, b float32) []testVertex {
		return solid(r, g, b, 1, []testVertex{{x: -1, y: -1, z: z, w: 1}, {x: 1, y: -1, z: z, w: 1}, {x: -1, y: 1, z: z, w: 1}, {x: 1, y: 1, z: z, w: 1}})
	}
	k := newTestKernel(t, 2, 16<<20)
	res := k.renderFrame(&testFrame{width: W, height: H, clearDepth: 0xFFFFFF, draws: []testDraw{
		{mode: cl.PrimTriangleStrip, verts: quad(0.5, 1, 0, 0), state: depth},
		{mode: cl.PrimTriangleStrip, verts: quad(-0.5, 0, 1, 0)},
		{mode: cl.PrimTriangleStrip, verts: quad(0.0, 0, 0, 1)},
	}})
	if p := res.pixel(W, 30, 30); p != [4]byte{0, 255, 0, 255} {
		t.Fatalf("pixel = %v, want green (nearest)", p)
	}
	// z_ndc −0.5 → window 0.25 → 24-bit 0x3FFFFF (rounded).
	z := binary.LittleEndian.Uint32(res.zs[(30*W+30)*4:])
	if want := depthTo24(0.25); z != want {
		t.Fatalf("depth = %#x, want %#x", z, want)
	}
}

func TestNearPlaneClipping(t *testing.T) {
	const W, H = 64, 64
	// The apex lies beyond the near plane (z < −w): only the part of the
	// triangle below y_ndc = −0.5 + 1/3 is visible.
	verts := solid(1, 1, 1, 1, []testVertex{{x: -0.5, y: -0.5, z: 0, w: 1}, {x: 0.5, y: -0.5, z: 0, w: 1}, {x: 0, y: 0.5, z: -3, w: 1}})
	k := newTestKernel(t, 1, 16<<20)
	res := k.renderFrame(&testFrame{width: W, height: H, draws: []testDraw{{mode: cl.PrimTriangles, verts: verts}}})
	if x, y := ndcToPixel(W, H, 0, -0.3); res.pixel(W, x, y)[0] != 255 {
		t.Fatalf("visible part not drawn")
	}
	if x, y := ndcToPixel(W, H, 0, 0); res.pixel(W, x, y)[0] != 0 {
		t.Fatalf("clipped part drawn")
	}
	// A triangle with a vertex behind the eye (w < 0).
	verts = solid(1, 1, 1, 1, []testVertex{{x: -0.5, y: -0.5, z: 0, w: 1}, {x: 0.5, y: -0.5, z: 0, w: 1}, {x: 0, y: 1, z: 1, w: -1}})
	k = newTestKernel(t, 1, 16<<20)
	k.renderFrame(&testFrame{width: W, height: H, draws: []testDraw{{mode: cl.PrimTriangles, verts: verts}}})
}

func TestPointsAndLines(t *testing.T) {
	const W, H = 64, 64
	px := func(x, y float32) testVertex { return testVertex{x: x/W*2 - 1, y: y/H*2 - 1, w: 1, r: 1, a: 1} }
	k := newTestKernel(t, 1, 16<<20)
	res := k.renderFrame(&testFrame{width: W, height: H, draws: []testDraw{
		{mode: cl.PrimPoints, verts: []testVertex{px(10, 10)}, state: []cl.Record{cl.PointSize{PointSize: 4}}},
		{mode: cl.PrimLines, verts: []testVertex{px(20.5, 40.5), px(50.5, 40.5)}},
	}})
	count := 0
	for y := 0; y < 30; y++ {
		for x := 0; x < W; x++ {
			if res.pixel(W, x, y)[0] == 255 {
				count++
				if x < 8 || x >= 12 || y < 8 || y >= 12 {
					t.Fatalf("point covers (%d,%d)", x, y)
				}
			}
		}
	}
	if count != 16 {
		t.Fatalf("point of size 4 covers %d pixels, want 16", count)
	}
	count = 0
	for y := 30; y < H; y++ {
		for x := 0; x < W; x++ {
			if res.pixel(W, x, y)[0] == 255 {
				count++
				if y != 40 {
					t.Fatalf("line covers (%d,%d)", x, y)
				}
			}
		}
	}
	if count != 30 {
		t.Fatalf("line of length 30 covers %d pixels, want 30", count)
	}
}

// randomScene is many overlapping blended and depth-tested triangles.
func randomScene(seed int64, n int) *testFrame {
	rng := rand.New(rand.NewSource(seed))
	var verts []testVertex
	for i := 0; i < 3*n; i++ {
		verts = append(verts, testVertex{
			x: rng.Float32()*2.4 - 1.2, y: rng.Float32()*2.4 - 1.2, z: rng.Float32()*2 - 1, w: 1,
			r: rng.Float32(), g: rng.Float32(), b: rng.Float32(), a: rng.Float32(),
		})
	}
	state := []cl.Record{
		cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthTestEnable: true, DepthFunc: cl.CompareLEqual, ZUpdatesEnable: true},
		cl.BlendConfig{Enable: true, SrcRGB: cl.BlendFactorSrcAlpha, DstRGB: cl.BlendFactorOneMinusSrcAlpha, SrcAlpha: cl.BlendFactorOne, DstAlpha: cl.BlendFactorOneMinusSrcAlpha},
	}
	return &testFrame{width: 300, height: 200, clearDepth: 0xFFFFFF, draws: []testDraw{{mode: cl.PrimTriangles, verts: verts, state: state}}}
}

func TestCoresBitIdentical(t *testing.T) {
	var ref *frameResult
	for _, cores := range []int{1, 4} {
		k := newTestKernel(t, cores, 64<<20)
		res := k.renderFrame(randomScene(3, 300))
		if ref == nil {
			ref = res
			continue
		}
		if !bytes.Equal(ref.color, res.color) || !bytes.Equal(ref.zs, res.zs) {
			t.Fatalf("%d cores: image differs from 1 core", cores)
		}
	}
}

func TestEarlyZMatchesLateZ(t *testing.T) {
	var ref []byte
	for _, early := range []bool{false, true} {
		fr := randomScene(9, 200)
		fr.draws[0].state[0] = cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true,
			DepthTestEnable: true, DepthFunc: cl.CompareLess, ZUpdatesEnable: true, EarlyZEnable: early}
		k := newTestKernel(t, 2, 64<<20)
		res := k.renderFrame(fr)
		if ref == nil {
			ref = res.color
		} else if !bytes.Equal(ref, res.color) {
			t.Fatal("early-Z changed the image")
		}
	}
}

func TestStencil(t *testing.T) {
	const W, H = 64, 64
	full := func(r, g, b float32) []testVertex {
		return solid(r, g, b, 1, []testVertex{{x: -1, y: -1, w: 1}, {x: 1, y: -1, w: 1}, {x: -1, y: 1, w: 1}, {x: 1, y: 1, w: 1}})
	}
	cfg := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, StencilEnable: true}
	k := newTestKernel(t, 1, 16<<20)
	res := k.renderFrame(&testFrame{width: W, height: H, draws: []testDraw{
		// Left half: write stencil 5 (colour masked off).
		{mode: cl.PrimTriangleStrip, verts: solid(1, 1, 1, 1, []testVertex{{x: -1, y: -1, w: 1}, {x: 0, y: -1, w: 1}, {x: -1, y: 1, w: 1}, {x: 0, y: 1, w: 1}}),
			state: []cl.Record{cfg, cl.ColorMask{},
				cl.StencilConfig{Face: cl.FaceBoth, Func: cl.CompareAlways, Ref: 5, ValueMask: 0xFF, WriteMask: 0xFF, DepthPass: cl.StencilOpReplace}}},
		// Everywhere: draw red where stencil == 5.
		{mode: cl.PrimTriangleStrip, verts: full(1, 0, 0),
			state: []cl.Record{cl.ColorMask{R: true, G: true, B: true, A: true},
				cl.StencilConfig{Face: cl.FaceBoth, Func: cl.CompareEqual, Ref: 5, ValueMask: 0xFF, WriteMask: 0xFF}}},
	}})
	if p := res.pixel(W, 10, 30); p != [4]byte{255, 0, 0, 255} {
		t.Fatalf("left pixel = %v, want red", p)
	}
	if p := res.pixel(W, 50, 30); p != [4]byte{0, 0, 0, 0} {
		t.Fatalf("right pixel = %v, want untouched", p)
	}
	if s := res.zs[(30*W+10)*4+3]; s != 5 {
		t.Fatalf("stencil = %d, want 5", s)
	}
	for _, r := range []Reg{RegPerfTriangles, RegPerfTiles, RegPerfFragments, RegPerfVertices, RegPerfQPUInstructions} {
		if k.g.ReadReg(r) == 0 {
			t.Errorf("perf counter %#x is 0 after a frame", r)
		}
	}
}

func TestPerspectiveCorrectVaryings(t *testing.T) {
	const W, H = 64, 64
	// v1 has w = 3: along the bottom edge the screen midpoint is a quarter
	// of the way in eye space, so r = 0.25 there (affine would give 0.5).
	verts := []testVertex{
		{x: -1, y: -1, w: 1, a: 1},
		{x: 3, y: -3, w: 3, r: 1, a: 1},
		{x: -1, y: 1, w: 1, a: 1},
	}
	k := newTestKernel(t, 1, 16<<20)
	res := k.renderFrame(&testFrame{width: W, height: H, draws: []testDraw{{mode: cl.PrimTriangles, verts: verts}}})
	p := res.pixel(W, W/2, 0)
	// Pixel (32, 0) centre is (32.5, 0.5): slightly inside; expect ≈ 0.25.
	if math.Abs(float64(p[0])-0.25*255) > 4 {
		t.Fatalf("r at the bottom-edge midpoint = %d, want ≈ 64 (perspective-correct)", p[0])
	}
}

// TestStencilTwoSidedWithoutFrontFacingRead: the stencil face follows the
// primitive's facing even when the fragment shader does not read
// FRONT_FACING (the rasteriser skips inputs a shader does not read, but not
// this one while stencil is on).
func TestStencilTwoSidedWithoutFrontFacingRead(t *testing.T) {
	const W, H = 64, 64
	cfg := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, StencilEnable: true}
	st := []cl.Record{cfg,
		cl.StencilConfig{Face: cl.FaceFront, Func: cl.CompareAlways, Ref: 1, ValueMask: 0xFF, WriteMask: 0xFF, DepthPass: cl.StencilOpReplace},
		cl.StencilConfig{Face: cl.FaceBack, Func: cl.CompareAlways, Ref: 2, ValueMask: 0xFF, WriteMask: 0xFF, DepthPass: cl.StencilOpReplace}}
	k := newTestKernel(t, 1, 16<<20)
	res := k.renderFrame(&testFrame{width: W, height: H, draws: []testDraw{{
		mode: cl.PrimTriangles, fs: testFSUniform, uniforms: []float32{1, 1, 1, 1}, state: st,
		verts: []testVertex{
			{x: -0.9, y: -0.9, w: 1}, {x: -0.1, y: -0.9, w: 1}, {x: -0.9, y: 0.9, w: 1}, // counter-clockwise: front
			{x: 0.1, y: -0.9, w: 1}, {x: 0.1, y: 0.9, w: 1}, {x: 0.9, y: -0.9, w: 1}, // clockwise: back
		}}}})
	if s := res.zs[(20*W+8)*4+3]; s != 1 {
		t.Errorf("front-facing triangle: stencil %d, want 1", s)
	}
	if s := res.zs[(20*W+40)*4+3]; s != 2 {
		t.Errorf("back-facing triangle: stencil %d, want 2", s)
	}
}

// TestTranslationCounters: every shader instruction of a frame runs as
// translated code (qpu.Translate), and the counters say so.
func TestTranslationCounters(t *testing.T) {
	const W, H = 64, 64
	verts := solid(0, 1, 0, 1, []testVertex{{x: -1, y: -1, w: 1}, {x: 1, y: -1, w: 1}, {x: -1, y: 1, w: 1}})
	k := newTestKernel(t, 1, 16<<20)
	for frame := 0; frame < 2; frame++ {
		k.renderFrame(&testFrame{width: W, height: H, draws: []testDraw{{mode: cl.PrimTriangles, verts: verts}}})
	}
	rd := func(lo Reg) uint64 { return uint64(k.g.ReadReg(lo+4))<<32 | uint64(k.g.ReadReg(lo)) }
	instr, xlat := rd(RegPerfQPUInstructions), rd(RegPerfXlatInstructions)
	if instr == 0 || xlat != instr {
		t.Errorf("%d instructions, %d of them translated: want all", instr, xlat)
	}
	progs, hits, misses := rd(RegPerfXlatPrograms), rd(RegPerfXlatHits), rd(RegPerfXlatMisses)
	if progs == 0 || misses != progs {
		t.Errorf("%d programs translated on %d cache misses: want as many, and more than 0", progs, misses)
	}
	t.Logf("programs %d, hits %d, misses %d", progs, hits, misses)
	native, runs := rd(RegPerfNativeInstructions), rd(RegPerfNativeRuns)
	if native > xlat {
		t.Errorf("%d instructions ran natively, more than the %d translated", native, xlat)
	}
	if qpu.NativeSupported() && (native == 0 || runs == 0) {
		t.Errorf("native code: %d instructions, %d runs compiled; want both > 0 where native code exists", native, runs)
	}
	if !qpu.NativeSupported() && (native != 0 || runs != 0) {
		t.Errorf("native code in a build without it: %d instructions, %d runs", native, runs)
	}
	t.Logf("native: %d instructions, %d runs", native, runs)
}
