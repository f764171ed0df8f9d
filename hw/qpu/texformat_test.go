package qpu

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
)

func TestHalfToFloat(t *testing.T) {
	for _, tt := range []struct {
		h    uint16
		want float32
	}{
		{0x0000, 0}, {0x3C00, 1}, {0x3800, 0.5}, {0xC000, -2}, {0x7BFF, 65504},
		{0x0001, 1.0 / (1 << 24)}, {0x03FF, 1023.0 / (1 << 24)}, {0x0400, 1.0 / (1 << 14)},
		{0x3555, 0.333251953125}, {0x7C00, float32(math.Inf(1))}, {0xFC00, float32(math.Inf(-1))},
	} {
		if got := halfToFloat(tt.h); got != tt.want {
			t.Errorf("halfToFloat(%#04x) = %v, want %v", tt.h, got, tt.want)
		}
	}
	if got := halfToFloat(0x8000); got != 0 || !math.Signbit(float64(got)) {
		t.Errorf("halfToFloat(0x8000) = %v, want -0", got)
	}
	if got := halfToFloat(0x7E00); got == got {
		t.Errorf("halfToFloat(0x7E00) = %v, want NaN", got)
	}
}

// putTextureBytes writes descriptor d and raw texel bytes.
func putTextureBytes(m *flatMem, d cl.TextureDescriptor, texels []byte) {
	d.Address = texVA + 0x100
	if d.Swizzle == 0 {
		d.Swizzle = cl.SwizzleIdentity
	}
	var raw [cl.SizeTextureDescriptor]byte
	d.Pack(raw[:])
	copy(m.data[descVA-m.base:], raw[:])
	copy(m.data[d.Address-m.base:], texels)
}

// TestTMUFormats samples every texel of a 3×2 texture (odd width: 16-bit
// rows and level 1 start at 2-byte offsets) and its 1×1 level 1 in each
// format, and a bilinear mix.
func TestTMUFormats(t *testing.T) {
	u16 := func(vs ...uint16) []byte {
		b := make([]byte, 2*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint16(b[2*i:], v)
		}
		return b
	}
	u32 := func(vs ...uint32) []byte {
		b := make([]byte, 4*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint32(b[4*i:], v)
		}
		return b
	}
	const one = 0x3C00
	tests := []struct {
		name   string
		f      cl.TextureFormat
		texels []byte       // level 0 (3×2) then level 1 (1×1)
		want   [][4]float32 // per texel, row-major, then level 1
	}{
		{"RGB565", cl.TextureFormatRGB565, u16(0xF800, 0x07E0, 0x001F, 0x0000, 0xFFFF, 1<<11|2<<5|3, 0x8410),
			[][4]float32{{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}, {0, 0, 0, 1}, {1, 1, 1, 1}, {1. / 31, 2. / 63, 3. / 31, 1}, {16. / 31, 32. / 63, 16. / 31, 1}}},
		{"RGBA4444", cl.TextureFormatRGBA4444, u16(0xF000, 0x0F00, 0x00F0, 0x000F, 0x1234, 0xFFFF, 0x8421),
			[][4]float32{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}, {1. / 15, 2. / 15, 3. / 15, 4. / 15}, {1, 1, 1, 1}, {8. / 15, 4. / 15, 2. / 15, 1. / 15}}},
		{"RGBA5551", cl.TextureFormatRGBA5551, u16(0xF800, 0x07C0, 0x003E, 0x0001, 1<<11|2<<6|3<<1|1, 0xFFFE, 0x8421),
			[][4]float32{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}, {1. / 31, 2. / 31, 3. / 31, 1}, {1, 1, 1, 0}, {16. / 31, 16. / 31, 16. / 31, 1}}},
		{"DEPTH24", cl.TextureFormatDepth24, u32(0, 0xFFFFFF, 0xAB800000, 0x12345678, 0x00000001, 0xFF7FFFFF, 0x00400000),
			[][4]float32{{0, 0, 0, 1}, {1, 1, 1, 1}, {d24(0x800000), d24(0x800000), d24(0x800000), 1}, {d24(0x345678), d24(0x345678), d24(0x345678), 1}, {d24(1), d24(1), d24(1), 1}, {d24(0x7FFFFF), d24(0x7FFFFF), d24(0x7FFFFF), 1}, {d24(0x400000), d24(0x400000), d24(0x400000), 1}}},
		{"RGBA16F", cl.TextureFormatRGBA16F, u16(one, 0, 0, one, 0x4400, 0xC000, 0x3800, 0, 0x7BFF, 0x0001, 0xBC00, one, 0, 0, 0, 0, 0x3555, 0x3555, 0x3555, 0x3555, one, one, one, 0x3800, 0x4200, 0, 0, one),
			[][4]float32{{1, 0, 0, 1}, {4, -2, 0.5, 0}, {65504, 1.0 / (1 << 24), -1, 1}, {0, 0, 0, 0}, {0.333251953125, 0.333251953125, 0.333251953125, 0.333251953125}, {1, 1, 1, 0.5}, {3, 0, 0, 1}}},
	}
	for _, tt := range tests {
		m := newFlatMem()
		putTextureBytes(m, cl.TextureDescriptor{Format: tt.f, Width: 3, Height: 2, Levels: 2, MinFilter: cl.MinFilterNearestMipmapNearest}, tt.texels)
		req := &TexRequest{HasLOD: true}
		for k := 0; k < 6; k++ {
			req.S[k], req.T[k] = (float32(k%3)+0.5)/3, (float32(k/3)+0.5)/2
		}
		req.S[6], req.T[6], req.LOD[6] = 0.5, 0.5, 1
		req.Mask = 0x7F
		o := sample(t, m, req)
		for k, want := range tt.want {
			got := [4]float32{o[0][k], o[1][k], o[2][k], o[3][k]}
			if got != want {
				t.Errorf("%s texel %d: %v, want %v", tt.name, k, got, want)
			}
		}
		// Bilinear halfway between texels 0 and 1 of row 0 (clamped rows).
		putTextureBytes(m, cl.TextureDescriptor{Format: tt.f, Width: 3, Height: 2, Levels: 1, MinFilter: cl.MinFilterLinear, MagFilter: cl.MagFilterLinear,
			WrapT: cl.WrapClampToEdge}, tt.texels)
		req = &TexRequest{Mask: 1}
		req.S[0], req.T[0] = 1.0/3, 0.25
		o = sample(t, m, req)
		for c := 0; c < 4; c++ {
			if want := (tt.want[0][c] + tt.want[1][c]) / 2; o[c][0] != want {
				t.Errorf("%s bilinear channel %d: %v, want %v", tt.name, c, o[c][0], want)
			}
		}
	}
	// An unknown format is an error naming it.
	m := newFlatMem()
	putTextureBytes(m, cl.TextureDescriptor{Format: 9, Width: 1, Height: 1, Levels: 1}, nil)
	var o [4][Lanes]float32
	if err := NewTMU().Sample(m, descVA, &TexRequest{Mask: 1}, &o); err == nil {
		t.Fatal("format 9 sampled without error")
	}
}

func d24(v uint32) float32 { return float32(float64(v) / 0xFFFFFF) }
