package hw

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/hw/isa"
	"github.com/tilegpu/tilegpu/hw/qpu"
)

// Batch-invariant fragment programs for the tests: each reads only
// uniforms and registers.
const (
	// invFSComputed computes its colour from two uniforms (float ops,
	// the SFU, flags from a uniform, conditional writes, a branch on
	// them) and discards every lane when the first uniform is ≥ 0.75.
	invFSComputed = `
or r0, a.unif, a.unif ; nop
or r1, a.unif, a.unif ; nop
li r2, 0x3f400000
fsub.setf r2, r0, r2 ; nop
nop ; mov sfu_recip, r1
nop ; nop
nop ; fmul r3, r4, r0
or.ifnc tlb_kill, 1, 1 ; nop
brr.allnc skip
fadd r3, r3, 0.125 ; nop
skip: fmin tlb_r, r3, r1 ; nop
nop ; fmul tlb_g, r0, r1
or tlb_b, r1, r1 ; nop
or tlb_a, r0, r0 ; nop ; end
`
	// invFSZ writes a depth from a uniform with its colour.
	invFSZ = `
or tlb_r, a.unif, a.unif ; nop
or tlb_g, a.unif, a.unif ; nop
or tlb_b, a.unif, a.unif ; nop
or r0, a.unif, a.unif ; nop
or tlb_a, r0, r0 ; nop
nop ; mov tlb_z, r0 ; end
`
)

func TestProgramBatchInvariant(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      bool
	}{
		{"uniform colour", testFSUniform, true},
		{"computed from uniforms", invFSComputed, true},
		{"depth from a uniform", invFSZ, true},
		{"varyings", testFSVarying, false},
		{"discard by a varying", goldenFSKill, false},
		{"frag_x/frag_z/derivatives", goldenFSFrag, false},
		{"point coordinates", goldenFSPoint, false},
		{"element number", "nop ; mov tlb_r, elem_num ; end", false},
		{"QPU number", "or tlb_r, qpu_num, qpu_num ; nop ; end", false},
		{"texture fetch", "or tmu_s, a.unif, a.unif ; nop ; ldtmu\nor tlb_r, r4, r4 ; nop ; end", false},
		{"TMU store", "or tmu_stdata, a.unif, a.unif ; nop\nor tmu_staddr, a.unif, a.unif ; nop ; end", false},
		{"uniform address write", "or unif_addr, a.unif, a.unif ; nop\nor tlb_r, a.unif, a.unif ; nop ; end", false},
		{"VPM read", "or tlb_r, a.vpm, a.vpm ; nop ; end", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, err := isa.AssembleProgram(tc.src, 0)
			if err != nil {
				t.Fatalf("assemble: %v", err)
			}
			p, err := qpu.Load(func(va uint32) (uint64, bool) {
				i := int(va / isa.InstrBytes)
				if i >= len(code) {
					return 0, false
				}
				return code[i], true
			}, 0)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			if got := programBatchInvariant(p); got != tc.want {
				t.Errorf("programBatchInvariant = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestInvariantMatchesShading renders random frames of batch-invariant and
// ordinary fragment programs under random depth, stencil, blend, colour
// mask, scissor and early-Z state with the memo (and the span path) on and
// off: colour, depth/stencil and every counter but the shader-instruction
// counts and fs.batches_reused must be identical, and batches must have
// been reused and blocks written as spans.
func TestInvariantMatchesShading(t *testing.T) {
	rng := rand.New(rand.NewSource(41))
	funcs := []cl.CompareFunc{cl.CompareAlways, cl.CompareLess, cl.CompareLEqual, cl.CompareEqual, cl.CompareGreater, cl.CompareNever}
	ops := []cl.StencilOp{cl.StencilOpKeep, cl.StencilOpZero, cl.StencilOpReplace, cl.StencilOpIncr, cl.StencilOpInvert}
	shaders := []string{testFSUniform, testFSUniform, invFSComputed, invFSZ, testFSVarying}
	var reused uint32
	for frame := 0; frame < 60; frame++ {
		var draws []testDraw
		for d := 0; d < 1+rng.Intn(6); d++ {
			cfg := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: rng.Intn(4) != 0,
				DepthTestEnable: rng.Intn(3) == 0, DepthFunc: funcs[rng.Intn(len(funcs))], ZUpdatesEnable: rng.Intn(2) == 0,
				StencilEnable: rng.Intn(4) == 0, EarlyZEnable: rng.Intn(2) == 0}
			st := []cl.Record{cfg}
			if cfg.StencilEnable {
				st = append(st, cl.StencilConfig{Face: cl.StencilFace(rng.Intn(3)), Func: funcs[rng.Intn(len(funcs))],
					Ref: uint8(rng.Intn(4)), ValueMask: 0xFF, WriteMask: []uint8{0xFF, 0x0F}[rng.Intn(2)],
					StencilFail: ops[rng.Intn(len(ops))], DepthFail: ops[rng.Intn(len(ops))], DepthPass: ops[rng.Intn(len(ops))]})
			}
			if rng.Intn(2) == 0 {
				st = append(st, cl.BlendConfig{Enable: true,
					EquationRGB: cl.BlendEquation(rng.Intn(5)), EquationAlpha: cl.BlendEquation(rng.Intn(5)),
					SrcRGB: cl.BlendFactor(rng.Intn(15)), DstRGB: cl.BlendFactor(rng.Intn(15)),
					SrcAlpha: cl.BlendFactor(rng.Intn(15)), DstAlpha: cl.BlendFactor(rng.Intn(15))},
					cl.BlendConstantColor{R: rng.Float32(), G: rng.Float32()*1.4 - 0.2, B: rng.Float32(), A: rng.Float32()})
			} else {
				st = append(st, cl.BlendConfig{})
			}
			if rng.Intn(4) == 0 {
				st = append(st, cl.ColorMask{R: rng.Intn(2) == 0, G: rng.Intn(2) == 0, B: true, A: rng.Intn(2) == 0})
			} else {
				st = append(st, cl.ColorMask{R: true, G: true, B: true, A: true})
			}
			if rng.Intn(5) == 0 {
				st = append(st, cl.ClipWindow{Left: uint16(rng.Intn(90)), Bottom: uint16(rng.Intn(60)), Width: uint16(20 + rng.Intn(120)), Height: uint16(20 + rng.Intn(90))})
			} else {
				st = append(st, cl.ClipWindow{Width: 1000, Height: 1000})
			}
			z := rng.Float32()*1.6 - 0.8
			var verts []testVertex
			mode := cl.PrimTriangleStrip
			switch rng.Intn(3) {
			case 0:
				verts = hsrQuad(z, rng.Float32(), rng.Float32())
			default:
				// Large random triangles: slanted edges through blocks.
				mode = cl.PrimTriangles
				for i := 0; i < 3*(1+rng.Intn(4)); i++ {
					verts = append(verts, testVertex{x: rng.Float32()*3 - 1.5, y: rng.Float32()*3 - 1.5, z: z + rng.Float32()*0.3, w: 1,
						r: rng.Float32(), g: rng.Float32(), b: rng.Float32(), a: rng.Float32()})
				}
			}
			u := []float32{rng.Float32(), rng.Float32()*1.2 - 0.1, rng.Float32(), rng.Float32()}
			draws = append(draws, testDraw{mode: mode, verts: verts, state: st, fs: shaders[rng.Intn(len(shaders))], uniforms: u})
		}
		fr := &testFrame{width: 150 + rng.Intn(60), height: 100 + rng.Intn(50), clear: rng.Uint32(),
			clearDepth: 0x800000 | 0x02<<24, draws: draws, shareFS: frame%2 == 0}
		ref := newTestKernel(t, 2, 32<<20)
		ref.g.noInvariant = true
		want := ref.renderFrame(fr)
		k := newTestKernel(t, 2, 32<<20)
		got := k.renderFrame(fr)
		if !bytes.Equal(got.color, want.color) || !bytes.Equal(got.zs, want.zs) {
			t.Fatalf("frame %d: output with the invariant-program memo differs (colour equal %v, depth/stencil equal %v)",
				frame, bytes.Equal(got.color, want.color), bytes.Equal(got.zs, want.zs))
		}
		if n := ref.g.ReadReg(RegPerfCounter(CtrFSBatchesReused)); n != 0 {
			t.Fatalf("frame %d: fs.batches_reused = %d with the memo off", frame, n)
		}
		for c := Counter(0); c < NumCounters; c++ {
			switch c {
			case CtrFSBatchesReused, CtrFSInstructions, CtrFSBatches:
				// Partly covered blocks written directly count as one
				// batch each instead of their quads' share of batches.
				continue
			case CtrFSDualIssued, CtrFSSFUOps, CtrTMULanes, CtrTMUTexels, CtrTMUPageMisses:
				// A reused batch runs no shader code, so it issues no
				// instructions, SFU writes or texture fetches.
				continue
			}
			if a, b := k.g.ReadReg(RegPerfCounter(c)), ref.g.ReadReg(RegPerfCounter(c)); a != b {
				t.Errorf("frame %d: counter %v = %d, want %d", frame, c, a, b)
			}
		}
		if a, b := k.g.ReadReg(RegPerfFragments), ref.g.ReadReg(RegPerfFragments); a != b {
			t.Errorf("frame %d: PERF_FRAGMENTS = %d, want %d", frame, a, b)
		}
		reused += k.g.ReadReg(RegPerfCounter(CtrFSBatchesReused))
	}
	if reused == 0 {
		t.Errorf("no batch was reused: the test does not exercise the memo")
	}
	t.Logf("%d batches reused", reused)
}

// TestFullBlocks checks fullBlocks' solved range against testing every
// block: random edge values and steps (small, and as large as the guard
// band allows), random starting ranges.
func TestFullBlocks(t *testing.T) {
	rng := rand.New(rand.NewSource(43))
	for i := 0; i < 200000; i++ {
		scale := int64(1) << uint(rng.Intn(50))
		v := rng.Int63n(2*scale+1) - scale
		step := rng.Int63n(2*scale+1) - scale
		if rng.Intn(8) == 0 {
			step = 0
		}
		n := 1 + rng.Intn(20)
		k0 := rng.Intn(n + 1)
		k1 := k0 + rng.Intn(n+1-k0)
		got0, got1 := fullBlocks(v, step, k0, k1)
		for k := k0; k < k1; k++ {
			in := v+int64(k)*step >= 0
			if in != (k >= got0 && k < got1) {
				t.Fatalf("fullBlocks(%d, %d, %d, %d) = [%d, %d): block %d inside %v", v, step, k0, k1, got0, got1, k, in)
			}
		}
		if got0 < k0 || got1 > k1 || got1 < got0 {
			t.Fatalf("fullBlocks(%d, %d, %d, %d) = [%d, %d): outside the range", v, step, k0, k1, got0, got1)
		}
	}
}

// TestCoversRect checks coversRect against testing every pixel centre of
// the rectangle, for random triangles (counter-clockwise, as rasterTri
// orders them) and random block-aligned rectangles near them.
func TestCoversRect(t *testing.T) {
	rng := rand.New(rand.NewSource(79))
	w := &worker{}
	covered := 0
	for i := 0; i < 20000; i++ {
		var v [3]winVert
		for k := range v {
			v[k].X = int64(rng.Intn(80*subPixelOne)) - 8*subPixelOne
			v[k].Y = int64(rng.Intn(80*subPixelOne)) - 8*subPixelOne
		}
		a, b, c := &v[0], &v[1], &v[2]
		area := (b.X-a.X)*(c.Y-a.Y) - (c.X-a.X)*(b.Y-a.Y)
		if area == 0 {
			continue
		}
		if area < 0 {
			b, c = c, b
		}
		var e0, e1, e2 edge
		e0.setup(b, c)
		e1.setup(c, a)
		e2.setup(a, b)
		px0, py0 := 2*rng.Intn(30), 2*rng.Intn(30)
		px1, py1 := px0+4*(1+rng.Intn(8)), py0+4*(1+rng.Intn(8))
		want := true
		for y := py0; y < py1 && want; y++ {
			for x := px0; x < px1; x++ {
				cx, cy := int64(x)*subPixelOne+subPixelOne/2, int64(y)*subPixelOne+subPixelOne/2
				if e0.at(cx, cy)|e1.at(cx, cy)|e2.at(cx, cy) < 0 {
					want = false
					break
				}
			}
		}
		if got := w.coversRect(&e0, &e1, &e2, px0, py0, px1, py1); got != want {
			t.Fatalf("triangle %v %v %v, rectangle [%d,%d)×[%d,%d): coversRect %v, every centre inside %v",
				[2]int64{a.X, a.Y}, [2]int64{b.X, b.Y}, [2]int64{c.X, c.Y}, px0, px1, py0, py1, got, want)
		}
		if want {
			covered++
		}
	}
	if covered < 100 {
		t.Errorf("only %d covered rectangles: the test does not exercise coversRect", covered)
	}
}
