package hw

// Golden images: a varied set of frames (every blend equation and factor,
// colour masks, scissor, two-sided stencil with every op, depth functions
// and offset, early Z, discard, TLB_Z, points, wide lines, flat shading,
// FRAG_*, derivatives, perspective, clipping, odd framebuffer sizes, 1 and
// 3 cores) whose colour and depth/stencil buffers must hash to the values
// in testdata/golden.txt. The fast paths of the fragment pipeline are only
// allowed if they change no bit; this test is how that is checked. After an
// intended change of the output, regenerate with
//
//	go test ./hw -run TestGoldenImages -update-golden

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
)

const (
	goldenFSKill = `
or r0, a.vary, a.vary ; nop
fsub.setf r1, r0, 0.5 ; nop
or tlb_r, r0, r0 ; nop
or tlb_g, a.vary, a.vary ; nop
or tlb_b, a.vary, a.vary ; nop
or tlb_a, a.vary, a.vary ; nop
or.ifns tlb_kill, 1, 1 ; nop
nop ; nop ; end
`
	goldenFSFrag = `
nop ; fmul r0, frag_x, 0.0625
ffract tlb_r, r0 ; nop
or r1, frag_y, frag_y ; nop
nop ; fmul r1, r1, 0.0625
ffract tlb_g, r1 ; nop
or r2, frag_z, frag_z ; nop
or tlb_b, r2, r2 ; nop
or r3, a.vary, a.vary ; nop
fdx r0, r3 ; nop
fdy r1, r3 ; nop
fadd r0, r0, r1 ; nop
nop ; fmul r0, r0, 8.0
fadd tlb_a, r0, r3 ; nop
or r0, a.vary, a.vary ; nop
or r0, a.vary, a.vary ; nop
or r0, a.vary, a.vary ; nop ; end
`
	goldenFSZ = `
or r0, a.vary, a.vary ; nop
or tlb_r, r0, r0 ; nop
or tlb_g, a.vary, a.vary ; nop
or tlb_b, a.vary, a.vary ; nop
or tlb_a, a.vary, a.vary ; nop
nop ; fmul tlb_z, r0, 1.0
nop ; nop ; end
`
	goldenFSPoint = `
or tlb_r, point_s, point_s ; nop
nop ; mov tlb_g, point_t
or tlb_b, front_facing, front_facing ; nop
or tlb_a, frag_w, frag_w ; nop
or r0, a.vary, a.vary ; nop
or r0, a.vary, a.vary ; nop
or r0, a.vary, a.vary ; nop
or r0, a.vary, a.vary ; nop ; end
`
)

func goldenRandVerts(rng *rand.Rand, n int, spread, wmin, wmax float32, outOfRange bool) []testVertex {
	var vs []testVertex
	for i := 0; i < n; i++ {
		w := wmin + rng.Float32()*(wmax-wmin)
		c := func() float32 {
			if outOfRange {
				return rng.Float32()*1.6 - 0.3
			}
			return rng.Float32()
		}
		vs = append(vs, testVertex{
			x: (rng.Float32()*2*spread - spread) * w, y: (rng.Float32()*2*spread - spread) * w,
			z: (rng.Float32()*2.2 - 1.1) * w, w: w,
			r: c(), g: c(), b: c(), a: c(),
		})
	}
	return vs
}

func goldenQuad(z float32) []testVertex {
	return []testVertex{{x: -1, y: -1, z: z, w: 1}, {x: 1, y: -1, z: z, w: 1}, {x: -1, y: 1, z: z, w: 1}, {x: 1, y: 1, z: z, w: 1}}
}

func goldenFrames() map[string]*testFrame {
	fr := map[string]*testFrame{}
	fr["random-300x200"] = randomScene(3, 300)
	fr["random-odd-197x133"] = func() *testFrame { f := randomScene(11, 200); f.width, f.height = 197, 133; return f }()

	// Perspective, early Z, out-of-range colours, clipping.
	{
		rng := rand.New(rand.NewSource(21))
		st := []cl.Record{cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true,
			DepthTestEnable: true, DepthFunc: cl.CompareLess, ZUpdatesEnable: true, EarlyZEnable: true}}
		fr["persp-earlyz"] = &testFrame{width: 257, height: 190, clearDepth: 0xFFFFFF, draws: []testDraw{
			{mode: cl.PrimTriangles, verts: goldenRandVerts(rng, 600, 1.5, 0.3, 4, true), state: st},
		}}
	}
	// Every blend equation and factor combination, out-of-range colours.
	{
		rng := rand.New(rand.NewSource(5))
		var draws []testDraw
		for i := 0; i < 45; i++ {
			bc := cl.BlendConfig{Enable: i%9 != 8,
				EquationRGB: cl.BlendEquation(i % 3), EquationAlpha: cl.BlendEquation((i / 3) % 3),
				SrcRGB: cl.BlendFactor(i % 15), DstRGB: cl.BlendFactor((i * 7) % 15),
				SrcAlpha: cl.BlendFactor((i * 4) % 15), DstAlpha: cl.BlendFactor((i * 11) % 15)}
			st := []cl.Record{bc, cl.BlendConstantColor{R: 0.3, G: 1.2, B: -0.1, A: 0.7}}
			if i%5 == 4 {
				st = append(st, cl.ColorMask{R: i%2 == 0, G: true, B: i%3 == 0, A: i%4 != 0})
			} else {
				st = append(st, cl.ColorMask{R: true, G: true, B: true, A: true})
			}
			draws = append(draws, testDraw{mode: cl.PrimTriangles, verts: goldenRandVerts(rng, 12, 1.2, 1, 1, true), state: st})
			if i%6 == 0 {
				draws = append(draws, testDraw{mode: cl.PrimTriangleStrip, verts: goldenQuad(0), fs: testFSUniform,
					uniforms: []float32{rng.Float32()*1.4 - 0.2, rng.Float32(), rng.Float32(), rng.Float32()*1.2 - 0.1}, state: st})
			}
		}
		fr["blend-modes"] = &testFrame{width: 160, height: 130, clear: 0x80402010, draws: draws}
	}
	// Fill-like: full-screen quads, constant colour, with and without
	// blending, scissor, colour masks.
	{
		var draws []testDraw
		for k := 0; k < 12; k++ {
			var st []cl.Record
			switch k % 4 {
			case 1:
				st = []cl.Record{cl.BlendConfig{Enable: true, SrcRGB: cl.BlendFactorSrcAlpha, DstRGB: cl.BlendFactorOneMinusSrcAlpha, SrcAlpha: cl.BlendFactorSrcAlpha, DstAlpha: cl.BlendFactorOneMinusSrcAlpha}}
			case 2:
				st = []cl.Record{cl.BlendConfig{}, cl.ClipWindow{Left: uint16(13 * k), Bottom: uint16(7 * k), Width: 100, Height: 77}}
			case 3:
				st = []cl.Record{cl.ClipWindow{Left: 0, Bottom: 0, Width: 1000, Height: 1000}, cl.ColorMask{R: true, B: true}}
			default:
				st = []cl.Record{cl.ColorMask{R: true, G: true, B: true, A: true}}
			}
			draws = append(draws, testDraw{mode: cl.PrimTriangleStrip, verts: goldenQuad(0), fs: testFSUniform,
				uniforms: []float32{float32(k%10) / 10, float32(k%7) / 7, float32(k%3) / 3, 0.5}, state: st})
		}
		fr["fill-like-333x211"] = &testFrame{width: 333, height: 211, clear: 0xff403333, draws: draws}
	}
	// Stencil with both faces, every op, depth offset, kill and Z writes.
	{
		rng := rand.New(rand.NewSource(8))
		var draws []testDraw
		for i := 0; i < 24; i++ {
			cfg := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: i%5 != 0, ClockwisePrimitives: i%3 == 0,
				DepthTestEnable: i%4 != 0, DepthFunc: cl.CompareFunc(i % 8), ZUpdatesEnable: i%3 != 1,
				StencilEnable: i%2 == 0, EnableDepthOffset: i%6 == 1, EarlyZEnable: i%2 == 1}
			st := []cl.Record{cfg,
				cl.StencilConfig{Face: cl.StencilFace(i % 3), Func: cl.CompareFunc((i * 3) % 8), Ref: uint8(i * 37), ValueMask: 0xF3, WriteMask: uint8(0xFF - i),
					StencilFail: cl.StencilOp(i % 8), DepthFail: cl.StencilOp((i + 3) % 8), DepthPass: cl.StencilOp((i + 5) % 8)},
				cl.DepthOffset{Factor: 1.5, Units: 3}}
			fs := ""
			switch i % 4 {
			case 1:
				fs = goldenFSKill
			case 2:
				fs = goldenFSZ
			}
			draws = append(draws, testDraw{mode: cl.PrimTriangles, verts: goldenRandVerts(rng, 30, 1.1, 0.5, 2, false), state: st, fs: fs})
		}
		fr["stencil-depth"] = &testFrame{width: 150, height: 140, clearDepth: 0x7FFFFF | 0x5A<<24, draws: draws}
	}
	// Points (many sizes), lines (widths), flat shading, FRAG_* and
	// derivatives.
	{
		rng := rand.New(rand.NewSource(13))
		var draws []testDraw
		for i := 0; i < 6; i++ {
			draws = append(draws, testDraw{mode: cl.PrimPoints, verts: goldenRandVerts(rng, 40, 1.05, 1, 1, false), fs: goldenFSPoint,
				state: []cl.Record{cl.PointSize{PointSize: 0.5 + float32(i)*2.3}}})
			draws = append(draws, testDraw{mode: cl.PrimitiveMode(1 + i%3), verts: goldenRandVerts(rng, 20, 1.1, 0.5, 2, false),
				state: []cl.Record{cl.LineWidth{Width: 0.7 + float32(i)*1.6}, cl.FlatShadeFlags{Flags: uint32(i * 5)}}})
			draws = append(draws, testDraw{mode: cl.PrimitiveMode(4 + i%3), verts: goldenRandVerts(rng, 20, 1.3, 0.5, 3, false), fs: goldenFSFrag,
				state: []cl.Record{cl.FlatShadeFlags{Flags: uint32(i&1) * 9}}})
		}
		fr["points-lines-frag"] = &testFrame{width: 200, height: 170, draws: draws}
	}
	return fr
}

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden.txt")

const goldenPath = "testdata/golden.txt"

func TestGoldenImages(t *testing.T) {
	var lines []string
	for name, f := range goldenFrames() {
		for _, cores := range []int{1, 3} {
			k := newTestKernel(t, cores, 128<<20)
			res := k.renderFrame(f)
			lines = append(lines, fmt.Sprintf("%s cores=%d color=%x zs=%x", name, cores, sha256.Sum256(res.color), sha256.Sum256(res.zs)))
		}
	}
	sort.Strings(lines)
	got := strings.Join(lines, "\n") + "\n"
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenPath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("images differ from %s (an optimisation changed output bits?):\ngot:\n%s\nwant:\n%s", goldenPath, got, want)
	}
}
