package qpu

import (
	"errors"
	"math"
	"math/rand"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// randomTexRequest fills a request with coordinates around a quad layout
// (lane l of quad q at a step of scale texels), with now and then a value
// far outside, on an edge, NaN or ±Inf, and random bias, LOD and mask.
func randomTexRequest(rng *rand.Rand, scale float32) TexRequest {
	odd := []float32{0, 1, 0.5, -0.5, 1.5, -3.25, 1e-7, 7, 1e9, -1e9, 3e38,
		float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
	var req TexRequest
	req.Mask = uint16(rng.Uint32())
	req.Derivatives = rng.Intn(4) != 0
	req.HasBias = rng.Intn(3) == 0
	req.HasLOD = rng.Intn(5) == 0
	for qd := 0; qd < Lanes/4; qd++ {
		s0, t0 := rng.Float32()*3-1, rng.Float32()*3-1
		ds := scale * (rng.Float32()*2 - 0.5)
		dt := scale * (rng.Float32()*2 - 0.5)
		for k := 0; k < 4; k++ {
			l := 4*qd + k
			req.S[l] = s0 + float32(k&1)*ds
			req.T[l] = t0 + float32(k>>1)*dt
			if rng.Intn(12) == 0 {
				req.S[l] = odd[rng.Intn(len(odd))]
			}
			if rng.Intn(12) == 0 {
				req.T[l] = odd[rng.Intn(len(odd))]
			}
			req.Bias[l] = rng.Float32()*6 - 2
			req.LOD[l] = rng.Float32()*8 - 1
		}
	}
	return req
}

// TestSample2DMatchesSampleLanes checks the level-at-a-time path of 2D
// textures against sampleLanes, the lane-at-a-time definition, bit for bit:
// every filter pair, wrap modes, odd sizes and level counts, swizzles, bias,
// explicit LOD, coordinates far outside, NaN and ±Inf.
func TestSample2DMatchesSampleLanes(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	sizes := [][2]uint16{{1, 1}, {8, 8}, {37, 5}, {64, 16}, {3, 64}}
	wraps := []cl.Wrap{cl.WrapRepeat, cl.WrapClampToEdge, cl.WrapMirroredRepeat}
	for _, size := range sizes {
		maxLevels := 1 + log2floor(int(max(size[0], size[1])))
		for minF := cl.MinFilterNearest; minF <= cl.MinFilterLinearMipmapLinear; minF++ {
			for _, magF := range []cl.MagFilter{cl.MagFilterNearest, cl.MagFilterLinear} {
				levels := 1 + rng.Intn(maxLevels)
				m := newFlatMem()
				var texels []uint32
				for n := 0; n < levels; n++ {
					for k := 0; k < max(1, int(size[0])>>n)*max(1, int(size[1])>>n); k++ {
						texels = append(texels, rng.Uint32())
					}
				}
				swizzle := uint16(cl.SwizzleIdentity)
				if rng.Intn(3) == 0 {
					swizzle = uint16(rng.Intn(6) | rng.Intn(6)<<3 | rng.Intn(6)<<6 | rng.Intn(6)<<9)
				}
				d := cl.TextureDescriptor{Width: size[0], Height: size[1], Levels: uint8(levels),
					WrapS: wraps[rng.Intn(3)], WrapT: wraps[rng.Intn(3)], MinFilter: minF, MagFilter: magF, Swizzle: swizzle}
				putTexture(m, d, texels)
				u := NewTMU()
				if err := u.load(pagedMem{m}, descVA); err != nil {
					t.Fatal(err)
				}
				for trial := 0; trial < 30; trial++ {
					req := randomTexRequest(rng, float32(math.Pow(2, float64(rng.Intn(7))))/float32(size[0]))
					var got, want [4][Lanes]float32
					if err := u.sample2D(&req, &got); err != nil {
						t.Fatal(err)
					}
					u.s, u.t = req.S, req.T
					if err := u.sampleLanes(&req, &want); err != nil {
						t.Fatal(err)
					}
					for l := 0; l < Lanes; l++ {
						if req.Mask&(1<<l) == 0 {
							continue
						}
						for ch := 0; ch < 4; ch++ {
							if math.Float32bits(got[ch][l]) != math.Float32bits(want[ch][l]) {
								t.Fatalf("%dx%d levels %d min %d mag %d lane %d (s, t) = (%g, %g) channel %d: sample2D %g, sampleLanes %g",
									size[0], size[1], levels, minF, magF, l, req.S[l], req.T[l], ch, got[ch][l], want[ch][l])
							}
						}
					}
				}
			}
		}
	}
}

// TestSampleFaultInLaneOrder: a trilinear fetch whose smaller levels lie
// beyond mapped memory reports the fault sampleLanes reports, the first
// access in lane order that fails.
func TestSampleFaultInLaneOrder(t *testing.T) {
	m := newFlatMem()
	const W = 64
	texels := make([]uint32, W*W)
	putTexture(m, cl.TextureDescriptor{Width: W, Height: W, Levels: 7,
		MinFilter: cl.MinFilterLinearMipmapLinear, MagFilter: cl.MagFilterLinear}, texels)
	// Map levels 0 and 1 only: level 2 and beyond fault.
	end := uint32(texVA + 0x100 + W*W*4 + W*W)
	m.data = m.data[:end-m.base]
	// Quad 1 (λ = 2.5) needs levels 2 and 3, the others (λ = 1.5) levels 1
	// and 2: lane 0's level-2 access is the first fault in lane order,
	// though quad 1's level-2 access comes first level by level.
	req := TexRequest{Mask: 0xffff, Derivatives: true}
	for l := 0; l < Lanes; l++ {
		s0, t0, step := float32(0.1), float32(0.1), float32(math.Pow(2, 1.5))/W
		if l>>2 == 1 {
			s0, t0, step = 0.8, 0.8, float32(math.Pow(2, 2.5))/W
		}
		req.S[l] = s0 + float32(l&1)*step
		req.T[l] = t0 + float32(l>>1&1)*step
	}
	var out [4][Lanes]float32
	got := NewTMU().Sample(pagedMem{m}, descVA, &req, &out)
	u := NewTMU()
	if err := u.load(pagedMem{m}, descVA); err != nil {
		t.Fatal(err)
	}
	u.s, u.t = req.S, req.T
	want := u.sampleLanes(&req, &out)
	var fg, fw *Fault
	if !errors.As(got, &fg) || !errors.As(want, &fw) {
		t.Fatalf("Sample: %v, sampleLanes: %v; want two faults", got, want)
	}
	if *fg != *fw {
		t.Errorf("Sample faulted at %#x, sampleLanes at %#x", fg.VA, fw.VA)
	}
}

// BenchmarkSampleTrilinear samples a 512×512 LINEAR_MIPMAP_LINEAR texture
// minified about 2.8× (λ ≈ 1.5, two levels per lane), 16 lanes as four
// quads of a 4×4 pixel block per request: the level-at-a-time path
// (Sample) against the lane-at-a-time definition (sampleLanes).
func BenchmarkSampleTrilinear(b *testing.B) {
	const W = 512
	m := &flatMem{base: memBase, data: make([]byte, 0x10000+W*W*4*2)}
	var texels []uint32
	for n := 0; n <= 9; n++ {
		for k := 0; k < (W>>n)*(W>>n); k++ {
			texels = append(texels, uint32(k*2654435761))
		}
	}
	putTexture(m, cl.TextureDescriptor{Width: W, Height: W, Levels: 10, MinFilter: cl.MinFilterLinearMipmapLinear,
		MagFilter: cl.MagFilterLinear, WrapS: cl.WrapRepeat, WrapT: cl.WrapRepeat}, texels)
	for _, path := range []string{"levels", "lanes"} {
		b.Run(path, func(b *testing.B) {
			tmu := NewTMU()
			tmu.beginRun(pagedMem{m})
			var req TexRequest
			var out [4][Lanes]float32
			step := float32(2.83) / W
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				x0, y0 := (i*4)%1920, ((i*4)/1920*4)%1080
				for l := 0; l < Lanes; l++ {
					px, py := x0+(l&1)+2*(l>>2&1), y0+(l>>1&1)+2*(l>>3)
					req.S[l] = float32(px) * step
					req.T[l] = float32(py) * step
				}
				req.Mask, req.Derivatives = 0xffff, true
				var err error
				if path == "levels" {
					err = tmu.Sample(pagedMem{m}, descVA, &req, &out)
				} else {
					if err = tmu.load(pagedMem{m}, descVA); err == nil {
						tmu.s, tmu.t = req.S, req.T
						err = tmu.sampleLanes(&req, &out)
					}
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*Lanes), "ns/lane")
		})
	}
}

// TestFilterBilinearMatchesGo checks the platform filter kernel (SSE2 on
// amd64) against filterBilinearGo bit for bit, weights including zeros,
// ones, denormals, huge and negative values (any NaN counts as equal: the
// TMU never produces NaN weights, and NaN payloads may depend on operand
// order).
func TestFilterBilinearMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	special := []float32{0, float32(math.Copysign(0, -1)), 1, 0.5, 1e-40, -1e-40, 3e38, -2, float32(math.Inf(1)), float32(math.NaN())}
	for trial := 0; trial < 2000; trial++ {
		var tx [4][Lanes]uint32
		var wq [4][Lanes]float32
		for k := 0; k < 4; k++ {
			for l := 0; l < Lanes; l++ {
				tx[k][l] = rng.Uint32()
				wq[k][l] = rng.Float32()
				if rng.Intn(8) == 0 {
					wq[k][l] = special[rng.Intn(len(special))]
				}
			}
		}
		var got, want [4][Lanes]float32
		filterBilinear(&tx, &wq, &got)
		filterBilinearGo(&tx, &wq, &want)
		for k := 0; k < 4; k++ {
			for l := 0; l < Lanes; l++ {
				g, w := got[k][l], want[k][l]
				if math.Float32bits(g) != math.Float32bits(w) && !(g != g && w != w) {
					t.Fatalf("trial %d channel %d lane %d: %g (%#x), want %g (%#x)", trial, k, l, g, math.Float32bits(g), w, math.Float32bits(w))
				}
			}
		}
	}
}
