package qpu

import (
	"math"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
)

const descVA = texVA // descriptor; texels from texVA+0x100

// putTexture writes descriptor d (Address filled in) and the texels.
func putTexture(m *flatMem, d cl.TextureDescriptor, texels []uint32) {
	d.Address = texVA + 0x100
	if d.Swizzle == 0 {
		d.Swizzle = cl.SwizzleIdentity
	}
	var raw [cl.SizeTextureDescriptor]byte
	d.Pack(raw[:])
	copy(m.data[descVA-m.base:], raw[:])
	m.put32(d.Address, texels...)
}

func rgba(r, g, b, a uint8) uint32 {
	return uint32(r) | uint32(g)<<8 | uint32(b)<<16 | uint32(a)<<24
}

func sample(t *testing.T, m *flatMem, req *TexRequest) *[4][Lanes]float32 {
	t.Helper()
	var o [4][Lanes]float32
	if req.Mask == 0 {
		req.Mask = 0xffff
	}
	if err := NewTMU().Sample(pagedMem{m}, descVA, req, &o); err != nil {
		t.Fatal(err)
	}
	return &o
}

func TestTMUWrapNearest(t *testing.T) {
	// 4x1: R = 64·i
	texels := []uint32{rgba(0, 7, 9, 255), rgba(64, 7, 9, 255), rgba(128, 7, 9, 255), rgba(192, 7, 9, 255)}
	ss := []float32{0.1, 0.3, 0.6, 0.9, -0.1, 1.1, -0.3, 1.3, 2.1, -1.9}
	want := map[cl.Wrap][]int{ // texel index per s
		cl.WrapRepeat:         {0, 1, 2, 3, 3, 0, 2, 1, 0, 0},
		cl.WrapClampToEdge:    {0, 1, 2, 3, 0, 3, 0, 3, 3, 0},
		cl.WrapMirroredRepeat: {0, 1, 2, 3, 0, 3, 1, 2, 0, 0},
	}
	for mode, idx := range want {
		m := newFlatMem()
		putTexture(m, cl.TextureDescriptor{Width: 4, Height: 1, Levels: 1, WrapS: mode, WrapT: mode}, texels)
		req := &TexRequest{}
		for l, s := range ss {
			req.S[l], req.T[l] = s, 0.5
		}
		o := sample(t, m, req)
		for l := range ss {
			if o[0][l] != unorm8[64*idx[l]] || o[1][l] != unorm8[7] || o[2][l] != unorm8[9] || o[3][l] != 1 {
				t.Errorf("wrap %d s=%g: %v %v %v %v, want texel %d", mode, ss[l], o[0][l], o[1][l], o[2][l], o[3][l], idx[l])
			}
		}
	}
}

func TestTMUBilinear(t *testing.T) {
	// 4x4 checker: R = 255 on odd columns, G = 255 on odd rows.
	var texels []uint32
	for j := 0; j < 4; j++ {
		for i := 0; i < 4; i++ {
			texels = append(texels, rgba(uint8(255*(i&1)), uint8(255*(j&1)), 0, 255))
		}
	}
	tests := []struct {
		wrap cl.Wrap
		s, t float32
		r, g float32
	}{
		{cl.WrapRepeat, 0.375, 0.125, 1, 0},         // texel centre (1,0)
		{cl.WrapRepeat, 0.5, 0.125, 0.5, 0},         // halfway between columns 1 and 2
		{cl.WrapRepeat, 0.4375, 0.125, 0.75, 0},     // α = 0.25
		{cl.WrapRepeat, 0.375, 0.25, 1, 0.5},        // β = 0.5
		{cl.WrapRepeat, 0.4375, 0.3125, 0.75, 0.75}, // α = β = 0.25
		{cl.WrapRepeat, 0, 0.125, 0.5, 0},           // wraps to column 3
		{cl.WrapClampToEdge, 0, 0.125, 0, 0},        // column 0 twice
		{cl.WrapClampToEdge, 1, 0.125, 1, 0},        // column 3 twice
		{cl.WrapMirroredRepeat, 0, 0.125, 0, 0},     // column −1 mirrors to 0
		{cl.WrapMirroredRepeat, 1, 0.125, 1, 0},     // column 4 mirrors to 3
	}
	for _, tt := range tests {
		m := newFlatMem()
		putTexture(m, cl.TextureDescriptor{Width: 4, Height: 4, Levels: 1, WrapS: tt.wrap, WrapT: tt.wrap,
			MagFilter: cl.MagFilterLinear, MinFilter: cl.MinFilterLinear}, texels)
		req := &TexRequest{}
		for l := range req.S {
			req.S[l], req.T[l] = tt.s, tt.t
		}
		o := sample(t, m, req)
		if o[0][5] != tt.r || o[1][5] != tt.g || o[3][5] != 1 {
			t.Errorf("wrap %d (%g, %g): r %v g %v a %v, want %v %v 1", tt.wrap, tt.s, tt.t, o[0][5], o[1][5], o[3][5], tt.r, tt.g)
		}
	}
}

// mipTexture is 8x8 with 4 levels, each a solid red value.
var mipRed = [4]uint8{200, 100, 50, 25}

func mipTexture(m *flatMem, min cl.MinFilter, mag cl.MagFilter) {
	var texels []uint32
	for n := 0; n < 4; n++ {
		w := 8 >> n
		for k := 0; k < w*w; k++ {
			texels = append(texels, rgba(mipRed[n], 0, 0, 255))
		}
	}
	putTexture(m, cl.TextureDescriptor{Width: 8, Height: 8, Levels: 4, MinFilter: min, MagFilter: mag}, texels)
}

func TestTMUMipmaps(t *testing.T) {
	level := func(n int) float32 { return unorm8[mipRed[n]] }
	blend := func(a, b int, f float32) float32 { return (1-f)*level(a) + f*level(b) }
	tests := []struct {
		name        string
		min         cl.MinFilter
		mag         cl.MagFilter
		rho         float64 // texels per pixel in x
		derivatives bool
		lod, bias   float32
		hasLOD      bool
		want        float32
	}{
		{"magnified", cl.MinFilterNearestMipmapNearest, cl.MagFilterNearest, 1, true, 0, 0, false, level(0)},
		{"λ=1", cl.MinFilterNearestMipmapNearest, cl.MagFilterNearest, 2, true, 0, 0, false, level(1)},
		{"λ=0.7 rounds up", cl.MinFilterNearestMipmapNearest, cl.MagFilterNearest, math.Pow(2, 0.7), true, 0, 0, false, level(1)},
		{"λ=2", cl.MinFilterLinearMipmapNearest, cl.MagFilterNearest, 4, true, 0, 0, false, level(2)},
		{"λ beyond the last level", cl.MinFilterNearestMipmapNearest, cl.MagFilterNearest, 64, true, 0, 0, false, level(3)},
		{"trilinear λ=1.5", cl.MinFilterLinearMipmapLinear, cl.MagFilterLinear, math.Pow(2, 1.5), true, 0, 0, false, blend(1, 2, 0.5)},
		{"nearest-mipmap-linear λ=1.25", cl.MinFilterNearestMipmapLinear, cl.MagFilterNearest, math.Pow(2, 1.25), true, 0, 0, false, blend(1, 2, 0.25)},
		{"mipmap-linear beyond last", cl.MinFilterNearestMipmapLinear, cl.MagFilterNearest, 100, true, 0, 0, false, level(3)},
		{"no mipmaps", cl.MinFilterLinear, cl.MagFilterNearest, 8, true, 0, 0, false, level(0)},
		{"explicit LOD", cl.MinFilterNearestMipmapNearest, cl.MagFilterNearest, 1, true, 2, 0, true, level(2)},
		{"bias", cl.MinFilterNearestMipmapNearest, cl.MagFilterNearest, 2, true, 0, 1, false, level(2)},
		{"vertex: λ=0", cl.MinFilterNearestMipmapNearest, cl.MagFilterNearest, 16, false, 0, 0, false, level(0)},
		{"vertex explicit LOD", cl.MinFilterNearestMipmapNearest, cl.MagFilterNearest, 16, false, 1, 0, true, level(1)},
		// GL ES 2.0 §3.7.7: c = 0.5 for LINEAR mag with NEAREST_MIPMAP_*:
		// λ = 0.4 is still magnification, so level 0 alone.
		{"switch-over c", cl.MinFilterNearestMipmapLinear, cl.MagFilterLinear, math.Pow(2, 0.4), true, 0, 0, false, level(0)},
		{"switch-over c=0", cl.MinFilterLinearMipmapLinear, cl.MagFilterLinear, math.Pow(2, 0.4), true, 0, 0, false, blend(0, 1, 0.4)},
	}
	for _, tt := range tests {
		m := newFlatMem()
		mipTexture(m, tt.min, tt.mag)
		req := &TexRequest{Derivatives: tt.derivatives, HasLOD: tt.hasLOD, HasBias: tt.bias != 0}
		ds := float32(tt.rho / 8)
		for l := range req.S {
			req.S[l] = 0.25 + float32(l&1)*ds
			req.T[l] = 0.5 + float32(l>>1&1)*ds/4 // smaller in y: x decides ρ
			req.LOD[l], req.Bias[l] = tt.lod, tt.bias
		}
		o := sample(t, m, req)
		for _, l := range []int{0, 3, 6, 13} {
			if d := math.Abs(float64(o[0][l] - tt.want)); d > 1e-6 {
				t.Errorf("%s: lane %d red %v, want %v", tt.name, l, o[0][l], tt.want)
			}
		}
	}
}

func TestTMUCube(t *testing.T) {
	// Six 2x2 faces; face f texel (i,j) has R = 40f+10, G = 100i, B = 100j.
	var texels []uint32
	for f := 0; f < 6; f++ {
		for j := 0; j < 2; j++ {
			for i := 0; i < 2; i++ {
				texels = append(texels, rgba(uint8(40*f+10), uint8(100*i), uint8(100*j), 255))
			}
		}
	}
	m := newFlatMem()
	putTexture(m, cl.TextureDescriptor{Width: 2, Height: 2, Levels: 1, Cube: true, FaceStride: 16,
		WrapS: cl.WrapClampToEdge, WrapT: cl.WrapClampToEdge}, texels)
	tests := []struct {
		dir  [3]float32
		face int
		i, j int
	}{
		{[3]float32{1, 0.1, 0.2}, 0, 0, 0}, // +X: sc = −rz, tc = −ry
		{[3]float32{1, -0.5, -0.5}, 0, 1, 1},
		{[3]float32{-1, -0.5, 0.5}, 1, 1, 1},  // −X: sc = rz, tc = −ry
		{[3]float32{0.5, 2, 0.5}, 2, 1, 1},    // +Y: sc = rx, tc = rz
		{[3]float32{0.5, -2, -0.5}, 3, 1, 1},  // −Y: sc = rx, tc = −rz
		{[3]float32{-0.5, 0.5, 3}, 4, 0, 0},   // +Z: sc = rx, tc = −ry
		{[3]float32{-0.5, -0.5, -3}, 5, 1, 1}, // −Z: sc = −rx, tc = −ry
	}
	req := &TexRequest{}
	for l, tt := range tests {
		req.S[l], req.T[l], req.R[l] = tt.dir[0], tt.dir[1], tt.dir[2]
	}
	o := sample(t, m, req)
	for l, tt := range tests {
		if o[0][l] != unorm8[40*tt.face+10] || o[1][l] != unorm8[100*tt.i] || o[2][l] != unorm8[100*tt.j] {
			t.Errorf("direction %v: %v %v %v, want face %d texel (%d,%d)", tt.dir, o[0][l], o[1][l], o[2][l], tt.face, tt.i, tt.j)
		}
	}
}

func TestTMUSwizzle(t *testing.T) {
	m := newFlatMem()
	putTexture(m, cl.TextureDescriptor{Width: 1, Height: 1, Levels: 1,
		Swizzle: cl.Swizzle(cl.SwizzleB, cl.SwizzleZero, cl.SwizzleR, cl.SwizzleOne)}, []uint32{rgba(10, 20, 30, 40)})
	o := sample(t, m, &TexRequest{Mask: 1})
	if o[0][0] != unorm8[30] || o[1][0] != 0 || o[2][0] != unorm8[10] || o[3][0] != 1 {
		t.Errorf("swizzle: %v %v %v %v", o[0][0], o[1][0], o[2][0], o[3][0])
	}
}

func TestTMUDescriptorErrors(t *testing.T) {
	tests := []struct {
		d    cl.TextureDescriptor
		want string
	}{
		{cl.TextureDescriptor{Width: 0, Height: 4, Levels: 1}, "size 0x4"},
		{cl.TextureDescriptor{Width: 4, Height: 4, Levels: 0}, "0 mip levels"},
		{cl.TextureDescriptor{Width: 4, Height: 4, Levels: 4}, "4 mip levels"},
		{cl.TextureDescriptor{Width: 4, Height: 2, Levels: 1, Cube: true}, "not square"},
		{cl.TextureDescriptor{Width: 4, Height: 4, Levels: 1, Swizzle: 7}, "swizzle"},
		{cl.TextureDescriptor{Width: 4, Height: 4, Levels: 1, WrapS: 3}, ""},
	}
	for _, tt := range tests {
		m := newFlatMem()
		putTexture(m, tt.d, nil)
		var o [4][Lanes]float32
		err := NewTMU().Sample(m, descVA, &TexRequest{Mask: 1}, &o)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want %q", tt.d, err, tt.want)
		}
	}
	m := newFlatMem()
	var o [4][Lanes]float32
	if err := NewTMU().Sample(m, descVA+4, &TexRequest{Mask: 1}, &o); err == nil || !strings.Contains(err.Error(), "aligned") {
		t.Errorf("unaligned descriptor: %v", err)
	}
}

func TestTextureFetchThroughCore(t *testing.T) {
	m := newFlatMem()
	var texels []uint32
	for j := 0; j < 4; j++ {
		for i := 0; i < 4; i++ {
			texels = append(texels, rgba(uint8(60*i), uint8(60*j), 5, 255))
		}
	}
	putTexture(m, cl.TextureDescriptor{Width: 4, Height: 4, Levels: 1}, texels)
	m.put32(unifVA, descVA)
	b := newBatch(StageFragment)
	mustRun(t, m, `
		or.setf r0, elem_num, elem_num ; nop
		li tmu_t, 0.625
		li.ifzc tmu_s, 0.375                  # lane 0 does not take part
		nop ; nop ; ldtmu
		nop ; mov tlb_r, r4 ; ldtmu
		nop ; mov tlb_g, r4 ; ldtmu
		nop ; mov tlb_b, r4 ; ldtmu
		nop ; mov tlb_a, r4
		nop ; nop ; end`, b)
	if b.Color[0][0] != 0 || b.Color[3][0] != 0 {
		t.Errorf("lane 0 (condition failed) got %v %v", b.Color[0][0], b.Color[3][0])
	}
	for l := 1; l < Lanes; l++ {
		if b.Color[0][l] != unorm8[60] || b.Color[1][l] != unorm8[120] || b.Color[2][l] != unorm8[5] || b.Color[3][l] != 1 {
			t.Fatalf("lane %d: %v %v %v %v", l, b.Color[0][l], b.Color[1][l], b.Color[2][l], b.Color[3][l])
		}
	}
}

// recordingSampler checks what the core hands the TMU.
type recordingSampler struct {
	reqs  []TexRequest
	descs []uint32
}

func (r *recordingSampler) Sample(m Mem, desc uint32, req *TexRequest, out *[4][Lanes]float32) error {
	r.reqs = append(r.reqs, *req)
	r.descs = append(r.descs, desc)
	for c := range out {
		for l := range out[c] {
			out[c][l] = float32(10*len(r.reqs) + c)
		}
	}
	return nil
}

func TestTMURequestStaging(t *testing.T) {
	m := newFlatMem()
	m.put32(unifVA, 0x1000, 0x2000)
	p := load(t, m, `
		li tmu_t, 2.0
		li tmu_b, 1.5
		li tmu_lod, 3.0
		li tmu_r, 4.0
		nop ; mov tmu_s, elem_num
		li tmu_s, 0                       # second fetch: nothing staged
		nop ; nop ; ldtmu
		nop ; nop ; ldtmu
		nop ; nop ; ldtmu
		nop ; nop ; ldtmu
		nop ; nop ; ldtmu
		nop ; mov vpm, r4
		nop ; nop ; ldtmu
		nop ; nop ; ldtmu
		nop ; nop ; ldtmu
		nop ; nop ; end`)
	c := NewCore(m)
	rs := &recordingSampler{}
	c.SetSampler(rs)
	b := newBatch(StageFragment)
	if err := c.Run(p, b); err != nil {
		t.Fatal(err)
	}
	if len(rs.reqs) != 2 || rs.descs[0] != 0x1000 || rs.descs[1] != 0x2000 {
		t.Fatalf("requests %d descs %v", len(rs.reqs), rs.descs)
	}
	r0, r1 := rs.reqs[0], rs.reqs[1]
	if r0.T[3] != 2 || r0.Bias[3] != 1.5 || r0.LOD[3] != 3 || r0.R[3] != 4 || !r0.HasBias || !r0.HasLOD ||
		!r0.Derivatives || r0.Mask != 0xffff || r0.S[3] != math.Float32frombits(3) {
		t.Errorf("first request %+v", r0)
	}
	if r1.T[3] != 0 || r1.HasBias || r1.HasLOD {
		t.Errorf("staging not reset: %+v", r1)
	}
	if got := out(b, 0)[0]; got != f32(20) { // fifth pop: first channel of the second fetch
		t.Errorf("fifth LDTMU = %v, want 20", math.Float32frombits(got))
	}
}
