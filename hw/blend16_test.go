package hw

import (
	"bytes"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/hw/qpu"
)

// blendTestColor is a random shader colour channel: in [0, 1], out of
// range, or one of the values clamping must handle (NaN, ±Inf, ±0,
// denormals).
func blendTestColor(rng *rand.Rand) float32 {
	switch rng.Intn(10) {
	case 0:
		return []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
			math.Float32frombits(1), math.Float32frombits(0x80000001), 1, 0.5, 1.0000001}[rng.Intn(10)]
	case 1:
		return rng.Float32()*4 - 2
	case 2:
		return float32(rng.Intn(256)) / 255
	}
	return rng.Float32()
}

// TestColorLanesMatchesBlendPixel: the 16-lane colour write equals
// blendPixel lane by lane for every blend equation (the five defined and
// undefined codes), every source and destination factor of RGB and alpha,
// every colour mask and blending off, on random colours and destination
// pixels.
func TestColorLanesMatchesBlendPixel(t *testing.T) {
	rng := rand.New(rand.NewSource(47))
	w := &worker{st: defaultRenderState()}
	var bl blendLanes
	check := func(what string) {
		t.Helper()
		for c := range 4 {
			for l := range qpu.Lanes {
				w.batch.Color[c][l] = blendTestColor(rng)
			}
		}
		for l := range qpu.Lanes {
			bl.px[l] = rng.Uint32()
			if rng.Intn(4) == 0 {
				bl.px[l] = []uint32{0, 0xFFFFFFFF, 0x80808080, 0xFF00FF00}[rng.Intn(4)]
			}
		}
		var want [qpu.Lanes]uint32
		for l := range qpu.Lanes {
			want[l] = w.blendPixel(l, bl.px[l])
		}
		w.colorLanes(&bl)
		for l := range qpu.Lanes {
			if bl.px[l] != want[l] {
				t.Fatalf("%s: lane %d = %#08x, blendPixel %#08x (colour %v)", what, l, bl.px[l], want[l],
					[4]float32{w.batch.Color[0][l], w.batch.Color[1][l], w.batch.Color[2][l], w.batch.Color[3][l]})
			}
		}
	}
	s := &w.st
	for mask := range 16 {
		s.colorMask = [4]bool{mask&1 != 0, mask&2 != 0, mask&4 != 0, mask&8 != 0}
		s.blend = false
		check("blending off")
		s.blend = true
		for eq := uint32(0); eq < 16; eq++ {
			for f := uint32(0); f < 16; f++ {
				for _, k := range [][4]float32{{0.25, 0.5, 0.75, 1}, {-1, 2, float32(math.NaN()), 0.3}} {
					s.blendConst = k
					// f as each of the four factors, the others random.
					r := func() uint32 { return uint32(rng.Intn(16)) }
					for _, fac := range [][4]uint32{{f, r(), r(), r()}, {r(), f, r(), r()}, {r(), r(), f, r()}, {r(), r(), r(), f}} {
						s.srcRGB, s.dstRGB, s.srcA, s.dstA = fac[0], fac[1], fac[2], fac[3]
						s.eqRGB, s.eqA = eq, uint32(rng.Intn(16))
						if rng.Intn(2) == 0 {
							s.eqRGB, s.eqA = s.eqA, eq
						}
						check("blending")
					}
				}
			}
		}
	}
}

// TestCombineLanes compares the SSE2 combining step with the Go one for
// every equation code on the values colorLanes gives it: clamped colours
// and factors in [0, 1] (denormals and zeros included).
func TestCombineLanes(t *testing.T) {
	rng := rand.New(rand.NewSource(53))
	var s, fs, d, fd [qpu.Lanes]float32
	for i := 0; i < 20000; i++ {
		for l := range qpu.Lanes {
			s[l], fs[l] = clamp01(blendTestColor(rng)), clamp01(blendTestColor(rng))
			d[l], fd[l] = clamp01(blendTestColor(rng)), clamp01(blendTestColor(rng))
		}
		eq := uint32(rng.Intn(8))
		shift := uint(8 * rng.Intn(4))
		var got, want [qpu.Lanes]uint32
		for l := range got {
			got[l] = rng.Uint32() &^ (0xFF << shift)
			want[l] = got[l]
		}
		if shift == 0 {
			want = [qpu.Lanes]uint32{}
		}
		combineLanes(&s, &fs, &d, &fd, eq, &got, shift)
		combineLanesGo(&s, &fs, &d, &fd, eq, &want, shift)
		if got != want {
			t.Fatalf("eq %d shift %d: %x, want %x (s %v fs %v d %v fd %v)", eq, shift, got, want, s, fs, d, fd)
		}
	}
}

// TestPrepareLanes compares the SSE2 clamp and unpack with the Go ones on
// random and special colours (NaN, ±Inf, ±0, denormals) and pixels.
func TestPrepareLanes(t *testing.T) {
	rng := rand.New(rand.NewSource(59))
	var color [4][qpu.Lanes]float32
	var px [qpu.Lanes]uint32
	for i := 0; i < 20000; i++ {
		for c := range color {
			for l := range color[c] {
				color[c][l] = blendTestColor(rng)
			}
		}
		for l := range px {
			px[l] = rng.Uint32()
		}
		var src, dst, wsrc, wdst [4][qpu.Lanes]float32
		prepareLanes(&color, &px, &src, &dst)
		prepareLanesGo(&color, &px, &wsrc, &wdst)
		for c := range 4 {
			for l := range qpu.Lanes {
				if math.Float32bits(src[c][l]) != math.Float32bits(wsrc[c][l]) || math.Float32bits(dst[c][l]) != math.Float32bits(wdst[c][l]) {
					t.Fatalf("channel %d lane %d: colour %v → %v, want %v; pixel %#x → %v, want %v",
						c, l, color[c][l], src[c][l], wsrc[c][l], px[l], dst[c][l], wdst[c][l])
				}
			}
		}
	}
}

// TestReplaceRun compares the SSE2 run replacement with the Go one on
// rows with a mismatching pixel anywhere (or none).
func TestReplaceRun(t *testing.T) {
	rng := rand.New(rand.NewSource(61))
	for i := 0; i < 5000; i++ {
		n := 4 * rng.Intn(17)
		dst, out := rng.Uint32(), rng.Uint32()
		a := make([]uint32, n)
		for j := range a {
			a[j] = dst
		}
		if n > 0 && rng.Intn(4) != 0 {
			a[rng.Intn(n)] = dst ^ 1<<uint(rng.Intn(32))
		}
		b := append([]uint32(nil), a...)
		ga, gb := replaceRun(a, dst, out), replaceRunGo(b, dst, out)
		if ga != gb || !slices.Equal(a, b) {
			t.Fatalf("n %d: replaceRun %d %x, replaceRunGo %d %x", n, ga, a, gb, b)
		}
	}
}

// TestPackLanes compares the SSE2 RGBA8 conversion with unorm8 lane by
// lane on random and special colours.
func TestPackLanes(t *testing.T) {
	rng := rand.New(rand.NewSource(67))
	var color [4][qpu.Lanes]float32
	for i := 0; i < 20000; i++ {
		for c := range color {
			for l := range color[c] {
				color[c][l] = blendTestColor(rng)
			}
		}
		var got, want [qpu.Lanes]uint32
		packLanes(&color, &got)
		packLanesGo(&color, &want)
		if got != want {
			t.Fatalf("%x, want %x (colours %v)", got, want, color)
		}
	}
}

// TestDepthLanes compares the SSE2 depth conversion with depthTo24 on
// random depths and the special cases (NaN, ±Inf, ±0, denormals, 1 and
// the values next to it, exact steps of the 24-bit grid and their
// midpoints).
func TestDepthLanes(t *testing.T) {
	rng := rand.New(rand.NewSource(71))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), math.SmallestNonzeroFloat64,
		1, math.Nextafter(1, 0), math.Nextafter(1, 2), 0.5, 0.5 / depthMax, 1.5 / depthMax, 2}
	var z [qpu.Lanes]float64
	for i := 0; i < 20000; i++ {
		for l := range z {
			switch rng.Intn(4) {
			case 0:
				z[l] = special[rng.Intn(len(special))]
			case 1:
				z[l] = (float64(rng.Intn(depthMax+1)) + []float64{0, 0.5, -0.5}[rng.Intn(3)]) / depthMax
			default:
				z[l] = rng.Float64()*1.2 - 0.1
			}
		}
		var got, want [qpu.Lanes]uint32
		depthLanes(&z, &got)
		depthLanesGo(&z, &want)
		if got != want {
			t.Fatalf("%v: %x, want %x", z, got, want)
		}
	}
}

// TestLaneBatchMatchesLaneByLane renders random frames of overlapping
// depth-tested (every function, writes on and off, TLB_Z from the shader,
// stencil on in some draws), blended and masked triangles with the batched
// depth test and colour write on and off: colour, depth/stencil and every
// counter must be identical.
func TestLaneBatchMatchesLaneByLane(t *testing.T) {
	rng := rand.New(rand.NewSource(73))
	shaders := []string{testFSVarying, goldenFSZ, goldenFSKill, testFSUniform}
	for frame := 0; frame < 40; frame++ {
		var draws []testDraw
		for d := 0; d < 1+rng.Intn(5); d++ {
			cfg := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true,
				DepthTestEnable: rng.Intn(4) != 0, DepthFunc: cl.CompareFunc(rng.Intn(8)), ZUpdatesEnable: rng.Intn(3) != 0,
				StencilEnable: rng.Intn(5) == 0, EarlyZEnable: rng.Intn(2) == 0}
			st := []cl.Record{cfg, cl.StencilConfig{Face: cl.FaceBoth, Func: cl.CompareFunc(rng.Intn(8)), Ref: uint8(rng.Intn(3)),
				ValueMask: 0xFF, WriteMask: 0xFF, DepthPass: cl.StencilOpIncr}}
			if rng.Intn(2) == 0 {
				st = append(st, blendHalf)
			} else {
				st = append(st, cl.BlendConfig{})
			}
			st = append(st, cl.ColorMask{R: true, G: rng.Intn(4) != 0, B: true, A: rng.Intn(4) != 0})
			var verts []testVertex
			for i := 0; i < 3*(2+rng.Intn(20)); i++ {
				verts = append(verts, testVertex{x: rng.Float32()*2.4 - 1.2, y: rng.Float32()*2.4 - 1.2, z: rng.Float32()*2 - 1, w: 1,
					r: rng.Float32(), g: rng.Float32(), b: rng.Float32(), a: rng.Float32()})
			}
			draws = append(draws, testDraw{mode: cl.PrimTriangles, verts: verts, state: st, fs: shaders[rng.Intn(len(shaders))],
				uniforms: []float32{rng.Float32(), rng.Float32(), rng.Float32(), rng.Float32()}})
		}
		fr := &testFrame{width: 100 + rng.Intn(100), height: 80 + rng.Intn(60), clear: rng.Uint32(),
			clearDepth: uint32(rng.Intn(depthMax+1)) | 0x01<<24, draws: draws}
		ref := newTestKernel(t, 2, 32<<20)
		ref.g.noLaneBatch = true
		want := ref.renderFrame(fr)
		k := newTestKernel(t, 2, 32<<20)
		got := k.renderFrame(fr)
		if !bytes.Equal(got.color, want.color) || !bytes.Equal(got.zs, want.zs) {
			t.Fatalf("frame %d: batched depth/colour differs from lane by lane (colour equal %v, depth/stencil equal %v)",
				frame, bytes.Equal(got.color, want.color), bytes.Equal(got.zs, want.zs))
		}
		for c := Counter(0); c < NumCounters; c++ {
			if a, b := k.g.ReadReg(RegPerfCounter(c)), ref.g.ReadReg(RegPerfCounter(c)); a != b {
				t.Errorf("frame %d: counter %v = %d, want %d", frame, c, a, b)
			}
		}
		if a, b := k.g.ReadReg(RegPerfFragments), ref.g.ReadReg(RegPerfFragments); a != b {
			t.Errorf("frame %d: PERF_FRAGMENTS = %d, want %d", frame, a, b)
		}
	}
}
