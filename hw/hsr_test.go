package hw

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// hsrQuad is a full-screen quad at depth z whose colour varies across it
// (red from 0 on the left to 1 on the right), so a kill shader keyed on red
// discards half of it.
func hsrQuad(z, g, b float32) []testVertex {
	return []testVertex{
		{x: -1, y: -1, z: z, w: 1, r: 0, g: g, b: b, a: 1}, {x: 1, y: -1, z: z, w: 1, r: 1, g: g, b: b, a: 1},
		{x: -1, y: 1, z: z, w: 1, r: 0, g: g, b: b, a: 1}, {x: 1, y: 1, z: z, w: 1, r: 1, g: g, b: b, a: 1}}
}

// hsrGrid is a full-screen n×n grid of small triangles (indexed), the
// occluder as many primitives whose union covers the tiles.
func hsrGrid(n int, z float32) ([]testVertex, []uint32) {
	var vs []testVertex
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			x, y := -1+2*float32(i)/float32(n), -1+2*float32(j)/float32(n)
			vs = append(vs, testVertex{x: x, y: y, z: z, w: 1, r: 0.25, g: (x + 1) / 2, b: (y + 1) / 2, a: 1})
		}
	}
	var idx []uint32
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			a := uint32(j*(n+1) + i)
			b, c, d := a+1, a+uint32(n+1), a+uint32(n+2)
			idx = append(idx, a, b, c, b, d, c)
		}
	}
	return vs, idx
}

// TestHSRMatchesInOrder renders frames with hidden-surface removal on and
// off and requires bit-identical colour and depth/stencil buffers (both are
// stored by the test kernel), and checks PERF_HSR_PRIMITIVES: work is
// removed where an occluder makes it invisible and kept where something of
// it can still show (discard, a depth or stencil write the occluder does
// not redo, a partial colour mask, blending, a scissor, culling).
func TestHSRMatchesInOrder(t *testing.T) {
	depthLessWrite := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true,
		DepthTestEnable: true, DepthFunc: cl.CompareLess, ZUpdatesEnable: true}
	depthLessNoWrite := depthLessWrite
	depthLessNoWrite.ZUpdatesEnable = false
	depthAlwaysWrite := depthLessWrite
	depthAlwaysWrite.DepthFunc = cl.CompareAlways
	noDepth := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true}
	stencilOn := noDepth
	stencilOn.StencilEnable = true
	cullBack := cl.ConfigurationBits{EnableForwardFacing: true}
	incr := cl.StencilConfig{Face: cl.FaceBoth, Func: cl.CompareAlways, ValueMask: 0xFF, WriteMask: 0xFF,
		DepthPass: cl.StencilOpIncr}
	replace := cl.StencilConfig{Face: cl.FaceBoth, Func: cl.CompareAlways, Ref: 0x33, ValueMask: 0xFF, WriteMask: 0xFF,
		DepthPass: cl.StencilOpReplace}
	replacePartialMask := replace
	replacePartialMask.WriteMask = 0x0F
	blend := cl.BlendConfig{Enable: true, SrcRGB: cl.BlendFactorSrcAlpha, DstRGB: cl.BlendFactorOneMinusSrcAlpha,
		SrcAlpha: cl.BlendFactorOne, DstAlpha: cl.BlendFactorZero}
	// The first draw of each case is never an occluder itself (alpha is
	// not written), so PERF_HSR_PRIMITIVES counts only what later draws
	// hide; later draws write every channel unless the case says otherwise.
	under := func(st ...cl.Record) []cl.Record {
		return append([]cl.Record{cl.ColorMask{R: true, G: true, B: true}}, st...)
	}
	over := func(st ...cl.Record) []cl.Record {
		return append([]cl.Record{cl.ColorMask{R: true, G: true, B: true, A: true}}, st...)
	}
	gridV, gridI := hsrGrid(9, 0.2)
	// A triangle strip drawn back-facing (clockwise order).
	backQuad := hsrQuad(0, 0.3, 0.3)
	backQuad[1], backQuad[2] = backQuad[2], backQuad[1]
	halfQuad := []testVertex{{x: -1, y: -1, w: 1, g: 1, a: 1}, {x: 0, y: -1, w: 1, g: 1, a: 1},
		{x: -1, y: 1, w: 1, g: 1, a: 1}, {x: 0, y: 1, w: 1, g: 1, a: 1}}
	strip := cl.PrimTriangleStrip
	// Two full-screen quads as four triangles of one draw: no state record
	// between them.
	var twoQuads []testVertex
	for _, q := range [][]testVertex{hsrQuad(0, 0.5, 0), hsrQuad(0, 0, 0.5)} {
		twoQuads = append(twoQuads, q[0], q[1], q[2], q[1], q[3], q[2])
	}

	tests := []struct {
		name        string
		draws       []testDraw
		wantRemoved bool
	}{
		{"opaque over opaque", []testDraw{
			{mode: strip, verts: hsrQuad(0, 0.5, 0), state: under()},
			{mode: strip, verts: hsrQuad(0, 0, 0.5), state: over()},
		}, true},
		{"one draw, one run: the later quad hides the earlier", []testDraw{
			{mode: cl.PrimTriangles, verts: twoQuads},
		}, true},
		{"grid of small triangles covers", []testDraw{
			{mode: strip, verts: hsrQuad(0, 0.5, 0), state: under()},
			{mode: cl.PrimTriangles, verts: gridV, indices: gridI, itype: cl.IndexU16, state: over()},
		}, true},
		{"points and lines under a quad", []testDraw{
			{mode: cl.PrimPoints, verts: hsrQuad(0, 1, 1), state: under(cl.PointSize{PointSize: 9})},
			{mode: cl.PrimLineLoop, verts: hsrQuad(0, 1, 0), state: over(cl.LineWidth{Width: 5})},
			{mode: strip, verts: hsrQuad(0, 0, 0.5), state: over()},
		}, true},
		{"discard in the later quad (flag clear, program kills)", []testDraw{
			{mode: strip, verts: hsrQuad(0, 0.5, 0), state: under()},
			{mode: strip, verts: hsrQuad(0, 0, 0.5), fs: goldenFSKill, state: over()},
		}, false},
		{"discard flag set", []testDraw{
			{mode: strip, verts: hsrQuad(0, 0.5, 0), state: under()},
			{mode: strip, verts: hsrQuad(0, 0, 0.5), flags: shaderFlagDiscardsOrZ, state: over()},
		}, false},
		{"TLB_Z written by the later quad", []testDraw{
			{mode: strip, verts: hsrQuad(0.3, 0.5, 0), state: under(depthLessWrite)},
			{mode: strip, verts: hsrQuad(0, 0, 0.5), fs: goldenFSZ, state: over(depthAlwaysWrite)},
		}, false},
		{"depth written below, later quad without depth test", []testDraw{
			{mode: strip, verts: hsrQuad(-0.5, 0.5, 0), state: under(depthLessWrite)},
			{mode: strip, verts: hsrQuad(0.5, 0, 0.5), state: over(noDepth)},
		}, false},
		{"depth tested without writes below", []testDraw{
			{mode: strip, verts: hsrQuad(-0.5, 0.5, 0), state: under(depthLessNoWrite)},
			{mode: strip, verts: hsrQuad(0.5, 0, 0.5), state: over(noDepth)},
		}, true},
		{"depth overwritten with ALWAYS", []testDraw{
			{mode: strip, verts: hsrQuad(-0.5, 0.5, 0), state: under(depthLessWrite)},
			{mode: strip, verts: hsrQuad(0.5, 0, 0.5), state: over(depthAlwaysWrite)},
		}, true},
		{"depth-tested later quad (LESS) keeps earlier work", []testDraw{
			{mode: strip, verts: hsrQuad(-0.5, 0.5, 0), state: under(depthLessWrite)},
			{mode: strip, verts: hsrQuad(0.5, 0, 0.5), state: over()},
		}, false},
		{"stencil incremented below, later quad without stencil", []testDraw{
			{mode: strip, verts: hsrQuad(0, 0.5, 0), state: under(stencilOn, incr)},
			{mode: strip, verts: hsrQuad(0, 0, 0.5), state: over(noDepth)},
		}, false},
		{"stencil replaced by the later quad", []testDraw{
			{mode: strip, verts: hsrQuad(0, 0.5, 0), state: under(stencilOn, incr)},
			{mode: strip, verts: hsrQuad(0, 0, 0.5), state: over(replace)},
		}, true},
		{"stencil replaced through a partial write mask", []testDraw{
			{mode: strip, verts: hsrQuad(0, 0.5, 0), state: under(stencilOn, incr)},
			{mode: strip, verts: hsrQuad(0, 0, 0.5), state: over(replacePartialMask)},
		}, false},
		{"stencil test that can fail", []testDraw{
			{mode: strip, verts: hsrQuad(0, 0.5, 0), state: under()},
			{mode: strip, verts: hsrQuad(0, 0, 0.5), state: []cl.Record{stencilOn,
				cl.StencilConfig{Face: cl.FaceBoth, Func: cl.CompareEqual, ValueMask: 0xFF, WriteMask: 0xFF}}},
		}, false},
		{"partial colour mask", []testDraw{
			{mode: strip, verts: hsrQuad(0, 0.5, 0), state: under()},
			{mode: strip, verts: hsrQuad(0, 0, 0.5), state: over(cl.ColorMask{R: true, G: true, B: true})},
		}, false},
		{"blending after an opaque layer", []testDraw{
			{mode: strip, verts: hsrQuad(0, 0.5, 0), state: under()},
			{mode: strip, verts: hsrQuad(0, 0, 0.5), state: over()},
			{mode: strip, verts: solid(0.9, 0.1, 0.2, 0.4, hsrQuad(0, 0, 0)), state: over(blend)},
			{mode: strip, verts: solid(0.1, 0.8, 0.2, 0.7, hsrQuad(0, 0, 0)), state: over(cl.BlendConfig{})},
			{mode: strip, verts: solid(0.3, 0.3, 0.9, 0.5, hsrQuad(0, 0, 0)), state: over(blend)},
		}, true},
		{"blended layer on top only", []testDraw{
			{mode: strip, verts: hsrQuad(0, 0.5, 0), state: under()},
			{mode: strip, verts: solid(0.9, 0.1, 0.2, 0.4, hsrQuad(0, 0, 0)), state: over(blend)},
		}, false},
		{"scissored later quad", []testDraw{
			{mode: strip, verts: hsrQuad(0, 0.5, 0), state: under()},
			{mode: strip, verts: hsrQuad(0, 0, 0.5), state: over(cl.ClipWindow{Left: 10, Bottom: 20, Width: 50, Height: 40})},
		}, false},
		{"culled later quad", []testDraw{
			{mode: strip, verts: hsrQuad(0, 0.5, 0), state: under()},
			{mode: strip, verts: backQuad, state: over(cullBack)},
		}, false},
		{"later quad covers the left half", []testDraw{
			{mode: strip, verts: hsrQuad(0, 0.5, 0), state: under()},
			{mode: strip, verts: halfQuad, state: over()},
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fr := &testFrame{width: 150, height: 100, clear: 0xFF403020, clearDepth: 0x800000 | 0x11<<24, draws: tc.draws}
			ref := newTestKernel(t, 2, 32<<20)
			ref.g.noHSR = true
			want := ref.renderFrame(fr)
			k := newTestKernel(t, 2, 32<<20)
			got := k.renderFrame(fr)
			if !bytes.Equal(got.color, want.color) {
				t.Errorf("colour differs from in-order rendering")
			}
			if !bytes.Equal(got.zs, want.zs) {
				t.Errorf("depth/stencil differs from in-order rendering")
			}
			removed := uint64(k.g.ReadReg(RegPerfHSRPrimitives)) | uint64(k.g.ReadReg(RegPerfHSRPrimitivesHi))<<32
			if ref.g.ReadReg(RegPerfHSRPrimitives) != 0 {
				t.Errorf("HSR removed primitives while turned off")
			}
			if tc.wantRemoved != (removed > 0) {
				t.Errorf("PERF_HSR_PRIMITIVES = %d, want removal %v", removed, tc.wantRemoved)
			}
			// Fewer fragments reached the shader when work was removed.
			fg, fw := k.g.ReadReg(RegPerfFragments), ref.g.ReadReg(RegPerfFragments)
			if tc.wantRemoved && fg >= fw {
				t.Errorf("fragments %d with HSR, %d without", fg, fw)
			}
		})
	}
}

// TestDisableHSRBit: a render list with DisableHSR renders every
// primitive — the hidden quad's fragments are shaded and counted, as an
// occlusion query needs — and the image is the same.
func TestDisableHSRBit(t *testing.T) {
	draws := []testDraw{
		{mode: cl.PrimTriangleStrip, verts: hsrQuad(0, 0.5, 0), state: []cl.Record{cl.ColorMask{R: true, G: true, B: true}}},
		{mode: cl.PrimTriangleStrip, verts: hsrQuad(0, 0, 0.5), state: []cl.Record{cl.ColorMask{R: true, G: true, B: true, A: true}}},
	}
	const w, h = 150, 100
	on := newTestKernel(t, 2, 32<<20)
	want := on.renderFrame(&testFrame{width: w, height: h, draws: draws})
	off := newTestKernel(t, 2, 32<<20)
	got := off.renderFrame(&testFrame{width: w, height: h, draws: draws, noHSR: true})
	if !bytes.Equal(got.color, want.color) {
		t.Errorf("colour differs with DisableHSR")
	}
	if on.g.ReadReg(RegPerfHSRPrimitives) == 0 {
		t.Fatalf("the reference frame removed nothing: the test shows nothing")
	}
	if n := off.g.ReadReg(RegPerfHSRPrimitives); n != 0 {
		t.Errorf("DisableHSR: %d primitives removed, want 0", n)
	}
	if f := off.g.ReadReg(RegPerfFragments); f != 2*w*h {
		t.Errorf("DisableHSR: %d fragments shaded, want both quads' %d", f, 2*w*h)
	}
}

// TestBlockRasterMatchesQuadWalk renders large random triangles (counted
// with additive blending, interpolated colours, depth test with writes,
// scissor) with the 4×4 block rasteriser and with the quad walk alone:
// colour and depth/stencil must be bit-identical, and the block counter
// must show blocks were taken whole.
func TestBlockRasterMatchesQuadWalk(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	var verts []testVertex
	for i := 0; i < 60; i++ {
		verts = append(verts, testVertex{x: rng.Float32()*3 - 1.5, y: rng.Float32()*3 - 1.5, z: rng.Float32()*2 - 1, w: 1,
			r: rng.Float32() * 0.3, g: rng.Float32() * 0.3, b: rng.Float32() * 0.3, a: 1})
	}
	depth := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true,
		DepthTestEnable: true, DepthFunc: cl.CompareLEqual, ZUpdatesEnable: true}
	fr := &testFrame{width: 203, height: 157, clear: 0xFF000000, clearDepth: 0xFFFFFF, draws: []testDraw{
		{mode: cl.PrimTriangles, verts: verts[:30], state: []cl.Record{depth}},
		{mode: cl.PrimTriangles, verts: verts[30:], state: append([]cl.Record{
			cl.ClipWindow{Left: 9, Bottom: 13, Width: 170, Height: 121}}, additive...)},
	}}
	ref := newTestKernel(t, 2, 32<<20)
	ref.g.noBlocks = true
	want := ref.renderFrame(fr)
	k := newTestKernel(t, 2, 32<<20)
	got := k.renderFrame(fr)
	if !bytes.Equal(got.color, want.color) || !bytes.Equal(got.zs, want.zs) {
		t.Errorf("block rasteriser differs from the quad walk")
	}
	if n := k.g.ReadReg(RegPerfRasterBlocks); n == 0 {
		t.Errorf("PERF_RASTER_BLOCKS = 0: no block was accepted whole")
	}
	if n := ref.g.ReadReg(RegPerfRasterBlocks); n != 0 {
		t.Errorf("PERF_RASTER_BLOCKS = %d with blocks off", n)
	}
}

// TestHSRRandomFrames renders random layered frames — full-screen quads,
// half-screen quads and random triangles under random depth, stencil,
// blend, colour-mask, scissor and discard state — with hidden-surface
// removal on and off; colour and depth/stencil must be bit-identical.
func TestHSRRandomFrames(t *testing.T) {
	rng := rand.New(rand.NewSource(23))
	funcs := []cl.CompareFunc{cl.CompareAlways, cl.CompareAlways, cl.CompareLess, cl.CompareLEqual, cl.CompareEqual, cl.CompareGreater}
	ops := []cl.StencilOp{cl.StencilOpKeep, cl.StencilOpZero, cl.StencilOpReplace, cl.StencilOpIncr, cl.StencilOpInvert}
	removedAny := false
	for frame := 0; frame < 150; frame++ {
		var draws []testDraw
		for d := 0; d < 2+rng.Intn(6); d++ {
			var st []cl.Record
			cfg := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: rng.Intn(4) != 0,
				DepthTestEnable: rng.Intn(2) == 0, DepthFunc: funcs[rng.Intn(len(funcs))], ZUpdatesEnable: rng.Intn(2) == 0,
				StencilEnable: rng.Intn(3) == 0}
			st = append(st, cfg)
			if cfg.StencilEnable {
				st = append(st, cl.StencilConfig{Face: cl.StencilFace(rng.Intn(3)), Func: funcs[rng.Intn(len(funcs))],
					Ref: uint8(rng.Intn(4)), ValueMask: 0xFF, WriteMask: []uint8{0xFF, 0x0F, 0}[rng.Intn(3)],
					StencilFail: ops[rng.Intn(len(ops))], DepthFail: ops[rng.Intn(len(ops))], DepthPass: ops[rng.Intn(len(ops))]})
			}
			if rng.Intn(4) == 0 {
				st = append(st, blendHalf)
			} else {
				st = append(st, cl.BlendConfig{})
			}
			if rng.Intn(5) == 0 {
				st = append(st, cl.ColorMask{R: true, G: rng.Intn(2) == 0, B: true, A: rng.Intn(2) == 0})
			} else {
				st = append(st, cl.ColorMask{R: true, G: true, B: true, A: true})
			}
			if rng.Intn(6) == 0 {
				st = append(st, cl.ClipWindow{Left: uint16(rng.Intn(60)), Bottom: uint16(rng.Intn(40)), Width: 90, Height: 70})
			} else {
				st = append(st, cl.ClipWindow{Width: 1000, Height: 1000})
			}
			z := rng.Float32()*1.6 - 0.8
			var verts []testVertex
			mode := cl.PrimTriangleStrip
			switch rng.Intn(4) {
			case 0:
				verts = hsrQuad(z, rng.Float32(), rng.Float32())
				verts[0].x, verts[2].x = -1+rng.Float32()*0.3, -1+rng.Float32()*0.3 // slanted left edge
			case 1:
				mode = cl.PrimTriangles
				for i := 0; i < 9; i++ {
					verts = append(verts, testVertex{x: rng.Float32()*3 - 1.5, y: rng.Float32()*3 - 1.5, z: z + rng.Float32()*0.2, w: 1,
						r: rng.Float32(), g: rng.Float32(), b: rng.Float32(), a: rng.Float32()})
				}
			default:
				verts = hsrQuad(z, rng.Float32(), rng.Float32())
			}
			dr := testDraw{mode: mode, verts: verts, state: st}
			if rng.Intn(6) == 0 {
				dr.fs = goldenFSKill
			}
			draws = append(draws, dr)
		}
		fr := &testFrame{width: 150, height: 100, clear: 0xFF203040, clearDepth: 0x800000 | 0x02<<24, draws: draws}
		ref := newTestKernel(t, 2, 32<<20)
		ref.g.noHSR = true
		want := ref.renderFrame(fr)
		k := newTestKernel(t, 2, 32<<20)
		got := k.renderFrame(fr)
		if !bytes.Equal(got.color, want.color) || !bytes.Equal(got.zs, want.zs) {
			t.Fatalf("frame %d: HSR output differs from in-order rendering (colour equal %v, depth/stencil equal %v)",
				frame, bytes.Equal(got.color, want.color), bytes.Equal(got.zs, want.zs))
		}
		if k.g.ReadReg(RegPerfHSRPrimitives) > 0 {
			removedAny = true
		}
	}
	if !removedAny {
		t.Errorf("no frame had primitives removed: the test does not exercise HSR")
	}
}

var blendHalf = cl.BlendConfig{Enable: true, SrcRGB: cl.BlendFactorSrcAlpha, DstRGB: cl.BlendFactorOneMinusSrcAlpha,
	SrcAlpha: cl.BlendFactorOne, DstAlpha: cl.BlendFactorOneMinusSrcAlpha}

// TestParallelBinningMatchesSerial renders a frame of 7,500 small
// depth-tested triangles (22,500 vertices in one primitive record, more
// than minParallelSlots) with the coordinate shader run by the binner
// alone and split over helper threads (2 and 3 cores); colour, depth and
// the vertex and instruction counters must be identical, and
// PERF_BIN_PARALLEL_VERTICES must show the helpers' share.
func TestParallelBinningMatchesSerial(t *testing.T) {
	rng := rand.New(rand.NewSource(31))
	var verts []testVertex
	for i := 0; i < 7500; i++ {
		cx, cy := rng.Float32()*2.2-1.1, rng.Float32()*2.2-1.1
		for k := 0; k < 3; k++ {
			verts = append(verts, testVertex{x: cx + rng.Float32()*0.1, y: cy + rng.Float32()*0.1, z: rng.Float32()*2 - 1, w: 1,
				r: rng.Float32(), g: rng.Float32(), b: rng.Float32(), a: 1})
		}
	}
	depth := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true,
		DepthTestEnable: true, DepthFunc: cl.CompareLess, ZUpdatesEnable: true}
	// poolExtra: the vertex store needs 22,500 × 36 bytes of pool.
	fr := &testFrame{width: 160, height: 120, clear: 0xFF000000, clearDepth: 0xFFFFFF, poolExtra: 2 << 20, draws: []testDraw{
		{mode: cl.PrimTriangles, verts: verts, state: []cl.Record{depth}},
	}}
	ref := newTestKernel(t, 2, 32<<20)
	ref.g.noParallelBin = true
	want := ref.renderFrame(fr)
	if n := ref.g.ReadReg(RegPerfBinParallelVertices); n != 0 {
		t.Errorf("PERF_BIN_PARALLEL_VERTICES = %d with parallel binning off", n)
	}
	for _, cores := range []int{2, 3} {
		k := newTestKernel(t, cores, 32<<20)
		got := k.renderFrame(fr)
		if !bytes.Equal(got.color, want.color) || !bytes.Equal(got.zs, want.zs) {
			t.Errorf("%d cores: parallel binning differs from the binner alone", cores)
		}
		// Every count the helpers make reaches the counters: the legacy
		// registers, the translated/native instruction counts and every
		// counter of the block but bin.parallel_vertices match the binner
		// alone.
		regs := []Reg{RegPerfVertices, RegPerfQPUInstructions, RegPerfXlatInstructions, RegPerfNativeInstructions}
		for c := Counter(0); c < NumCounters; c++ {
			if c != CtrBinParallelVertices && c != CtrBinParallelPrimitives {
				regs = append(regs, RegPerfCounter(c))
			}
		}
		for _, r := range regs {
			if a, b := k.g.ReadReg(r), ref.g.ReadReg(r); a != b {
				t.Errorf("%d cores: counter %#x = %d, want %d", cores, r, a, b)
			}
		}
		if a, b := k.g.ReadReg(RegPerfBinParallelVertices), k.g.ReadReg(RegPerfCounter(CtrBinParallelVertices)); a != b {
			t.Errorf("%d cores: PERF_BIN_PARALLEL_VERTICES %d != bin.parallel_vertices %d", cores, a, b)
		}
		n := k.g.ReadReg(RegPerfBinParallelVertices)
		t.Logf("%d cores: %d of %d vertices shaded by helpers", cores, n, k.g.ReadReg(RegPerfVertices))
		if min := uint32(len(verts) * (cores - 1) / cores / 2); n < min {
			t.Errorf("%d cores: PERF_BIN_PARALLEL_VERTICES = %d, want at least %d", cores, n, min)
		}
	}
}
