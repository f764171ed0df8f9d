package pipe

import (
	"encoding/binary"
	"math"
	"testing"
)

func TestHalfRoundTrip(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := HalfToFloat(uint16(h))
		if f != f {
			if g := FloatToHalf(f); g&0x7C00 != 0x7C00 || g&0x3FF == 0 {
				t.Fatalf("NaN %#04x → %#04x", h, g)
			}
			continue
		}
		if g := FloatToHalf(f); g != uint16(h) {
			t.Fatalf("FloatToHalf(HalfToFloat(%#04x) = %v) = %#04x", h, f, g)
		}
	}
	for _, tt := range []struct {
		f    float32
		want uint16
	}{
		{1 + 1.0/2048, 0x3C00},        // tie: to even (down)
		{1 + 3.0/2048, 0x3C02},        // tie: to even (up)
		{1 + 1.0/2048 + 1e-6, 0x3C01}, // above the tie
		{65520, 0x7C00},               // rounds past the largest half
		{1e9, 0x7C00}, {-1e9, 0xFC00}, // overflow
		{1.0 / (1 << 25), 0},      // tie between 0 and the smallest subnormal: even
		{1.5 / (1 << 25), 0x0001}, // above it
		{1e-10, 0}, {float32(math.Copysign(0, -1)), 0x8000},
	} {
		if got := FloatToHalf(tt.f); got != tt.want {
			t.Errorf("FloatToHalf(%v) = %#04x, want %#04x", tt.f, got, tt.want)
		}
	}
}

func TestColorFormatConversions(t *testing.T) {
	for _, f := range []Format{FormatRGB565, FormatRGBA4, FormatRGB5A1} {
		bits := f.ColorBits()
		var keep uint16
		_, shift, _ := f.packed16()
		for c := 0; c < 4; c++ {
			keep |= uint16(1<<bits[c]-1) << shift[c]
		}
		src, rgba, back := make([]byte, 2), make([]byte, 4), make([]byte, 2)
		for v := 0; v < 1<<16; v++ {
			binary.LittleEndian.PutUint16(src, uint16(v))
			if !f.ToRGBA8(rgba, src, 1) || !f.FromRGBA8(back, rgba, 1) {
				t.Fatalf("format %d not converted", f)
			}
			if got := binary.LittleEndian.Uint16(back); got != uint16(v)&keep {
				t.Fatalf("format %d: %#04x → %v → %#04x", f, v, rgba, got)
			}
			if bits[3] == 0 && rgba[3] != 255 {
				t.Fatalf("format %d: alpha %d, want 255", f, rgba[3])
			}
		}
	}
	// RGB565 rounding of an 8-bit value: 132/255·31 = 16.05 → 16; 255 → 31.
	out := make([]byte, 2)
	FormatRGB565.FromRGBA8(out, []byte{132, 255, 0, 7}, 1)
	if got := binary.LittleEndian.Uint16(out); got != 16<<11|63<<5 {
		t.Errorf("RGB565 of (132, 255, 0): %#04x", got)
	}
	// Half floats: clamped on the way to RGBA8.
	h := make([]byte, 8)
	for i, x := range []float32{2, -1, 0.5, 1} {
		binary.LittleEndian.PutUint16(h[2*i:], FloatToHalf(x))
	}
	rgba := make([]byte, 4)
	FormatRGBA16F.ToRGBA8(rgba, h, 1)
	if rgba[0] != 255 || rgba[1] != 0 || rgba[2] != 128 || rgba[3] != 255 {
		t.Errorf("RGBA16F → RGBA8: %v", rgba)
	}
	if FormatZ24S8.ToRGBA8(rgba, h, 1) || FormatNone.FromRGBA8(h, rgba, 1) {
		t.Error("non-colour formats converted")
	}
	for f, want := range map[Format]int{FormatRGB565: 2, FormatRGBA4: 2, FormatRGB5A1: 2, FormatRGBX8: 4, FormatRGBA16F: 8} {
		if got := f.BytesPerPixel(); got != want {
			t.Errorf("format %d: %d bytes, want %d", f, got, want)
		}
	}
}
