package qpu

import (
	"math"
	"math/rand"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// TestBilinearFastPathMatchesSampleLevel checks bilinearLevel0 against
// sampleLevel, the general path it short-cuts, bit for bit: every wrap
// mode, odd sizes, and coordinates far outside, on texel edges, NaN and ±Inf.
func TestBilinearFastPathMatchesSampleLevel(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	coords := []float32{0, 1, 0.5, -0.5, 1.5, -3.25, 1e-7, -1e-7, 7, 1e9, -1e9, 3e38,
		float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
	for _, size := range [][2]uint16{{1, 1}, {3, 5}, {16, 16}, {37, 2}} {
		for _, ws := range []cl.Wrap{cl.WrapRepeat, cl.WrapClampToEdge, cl.WrapMirroredRepeat} {
			for _, wt := range []cl.Wrap{cl.WrapRepeat, cl.WrapClampToEdge, cl.WrapMirroredRepeat} {
				m := newFlatMem()
				texels := make([]uint32, int(size[0])*int(size[1]))
				for k := range texels {
					texels[k] = rng.Uint32()
				}
				putTexture(m, cl.TextureDescriptor{Width: size[0], Height: size[1], Levels: 1, WrapS: ws, WrapT: wt,
					MinFilter: cl.MinFilterLinear, MagFilter: cl.MagFilterLinear}, texels)
				u := NewTMU()
				if err := u.load(pagedMem{m}, descVA); err != nil {
					t.Fatal(err)
				}
				for trial := 0; trial < 40; trial++ {
					var req TexRequest
					req.Mask = uint16(rng.Uint32())
					for l := 0; l < Lanes; l++ {
						req.S[l] = rng.Float32()*6 - 3
						req.T[l] = rng.Float32()*6 - 3
						if rng.Intn(4) == 0 {
							req.S[l] = coords[rng.Intn(len(coords))]
						}
						if rng.Intn(4) == 0 {
							req.T[l] = coords[rng.Intn(len(coords))]
						}
					}
					var got [4][Lanes]float32
					if err := u.bilinearLevel0(&req, &got); err != nil {
						t.Fatal(err)
					}
					for l := 0; l < Lanes; l++ {
						if req.Mask&(1<<l) == 0 {
							continue
						}
						want, err := u.sampleLevel(0, 0, req.S[l], req.T[l], true)
						if err != nil {
							t.Fatal(err)
						}
						for ch := 0; ch < 4; ch++ {
							if math.Float32bits(got[ch][l]) != math.Float32bits(want[ch]) {
								t.Fatalf("%dx%d wrap %d/%d lane %d (s, t) = (%g, %g) channel %d: fast %g, general %g",
									size[0], size[1], ws, wt, l, req.S[l], req.T[l], ch, got[ch][l], want[ch])
							}
						}
					}
				}
			}
		}
	}
}

func TestFloorSmall(t *testing.T) {
	for _, x := range []float32{0, -0.0, 0.5, -0.5, 1, -1, 1.5, -1.5, 8388607.5, -8388607.5, 16777216, -16777216,
		1 << 29, -(1 << 29), 1073741760, -1073741760, 1e-30, -1e-30} {
		if got, want := floorSmall(x), int64(math.Floor(float64(x))); got != want {
			t.Errorf("floorSmall(%g) = %d, want %d", x, got, want)
		}
	}
}

// countingMem counts PageMem calls.
type countingMem struct {
	pagedMem
	pages int
}

func (m *countingMem) Page(va uint32, write bool) ([]byte, bool) {
	m.pages++
	return m.pagedMem.Page(va, write)
}

// TestRetainPages checks the page lifetime: per Run by default, across
// Runs with RetainPages until FlushPages.
func TestRetainPages(t *testing.T) {
	m := newFlatMem()
	m.put32(unifVA, f32(0.25))
	p := load(t, m, "nop ; mov tlb_r, b.unif ; end")
	cm := &countingMem{pagedMem: pagedMem{m}}
	c := NewCore(cm)
	b := newBatch(StageFragment)
	run := func() {
		t.Helper()
		if err := c.Run(p, b); err != nil {
			t.Fatal(err)
		}
		if b.Color[0][3] != 0.25 {
			t.Fatalf("tlb_r = %g, want 0.25", b.Color[0][3])
		}
	}
	for _, tc := range []struct {
		name  string
		setup func()
		want  int // Page calls over three Runs
	}{
		{"per Run", func() {}, 3},
		{"retained", func() { c.RetainPages(true) }, 1},
		{"flushed", func() { c.FlushPages() }, 1},
		{"per Run again", func() { c.RetainPages(false) }, 3},
	} {
		tc.setup()
		cm.pages = 0
		for i := 0; i < 3; i++ {
			run()
		}
		if cm.pages != tc.want {
			t.Errorf("%s: %d Page calls over three Runs, want %d", tc.name, cm.pages, tc.want)
		}
	}
}

func TestReadsFragmentInputs(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want FragmentInputs
	}{
		{"or tlb_r, a.unif, a.unif ; nop ; end", FragmentInputs{}},
		{"or tlb_r, frag_x, frag_x ; nop\nor tlb_g, frag_z, frag_z ; nop ; end", FragmentInputs{FragXY: true, FragZ: true}},
		{"or tlb_r, front_facing, front_facing ; nop\nnop ; mov tlb_g, point_t\nor tlb_b, frag_w, frag_w ; nop ; end",
			FragmentInputs{FragW: true, FrontFacing: true, PointCoord: true}},
	} {
		p := load(t, newFlatMem(), tc.src)
		if got := p.ReadsFragmentInputs(); got != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.src, got, tc.want)
		}
	}
}
