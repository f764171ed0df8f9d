package gles

import (
	"encoding/binary"
	"testing"

	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/pipe"
)

func TestUnpackDepth(t *testing.T) {
	le32 := func(vs ...uint32) []byte {
		b := make([]byte, 4*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint32(b[4*i:], v)
		}
		return b
	}
	for _, tt := range []struct {
		name string
		ty   gl.Enum
		data []byte
		want []uint32 // Z24S8 words
	}{
		// d/65535 to 24 bits, rounded: 0x8000 → 0x800080 (8388736.5 → up).
		{"UNSIGNED_SHORT", gl.UNSIGNED_SHORT, []byte{0, 0, 0xFF, 0xFF, 0x00, 0x80, 0x01, 0x00}, []uint32{0, 0xFFFFFF, 0x800080, 0x100}},
		// The top 24 bits, rounded.
		{"UNSIGNED_INT", gl.UNSIGNED_INT, le32(0, 0xFFFFFFFF, 0x12345678, 0x80, 0x81), []uint32{0, 0xFFFFFF, 0x123456, 0, 1}},
		// depth in 31..8, stencil in 7..0 → depth in 23..0, stencil in 31..24.
		{"UNSIGNED_INT_24_8", gl.UNSIGNED_INT_24_8_OES, le32(0xABCDEF12, 0xFFFFFF00, 0x000000FF), []uint32{0x12ABCDEF, 0x00FFFFFF, 0xFF000000}},
	} {
		n := len(tt.want)
		got, ok := unpackDepth(tt.data, n, 1, tt.ty, 1)
		if !ok {
			t.Fatalf("%s: not unpacked", tt.name)
		}
		for i, w := range tt.want {
			if v := binary.LittleEndian.Uint32(got[4*i:]); v != w {
				t.Errorf("%s texel %d: %#08x, want %#08x", tt.name, i, v, w)
			}
		}
		if _, ok := unpackDepth(tt.data[:len(tt.data)-1], n, 1, tt.ty, 1); ok {
			t.Errorf("%s: short data accepted", tt.name)
		}
	}
	// Rows padded to the unpack alignment: 3 UNSIGNED_SHORT texels take 6
	// bytes, padded to 8 with alignment 4.
	data := []byte{1, 0, 2, 0, 3, 0, 0xEE, 0xEE, 0xFF, 0xFF, 0, 0, 0, 0}
	got, ok := unpackDepth(data, 3, 2, gl.UNSIGNED_SHORT, 4)
	if !ok || binary.LittleEndian.Uint32(got[12:]) != 0xFFFFFF || binary.LittleEndian.Uint32(got[4:])&0xFFFFFF != (2*0xFFFFFF+0x7FFF)/0xFFFF {
		t.Errorf("aligned rows: %x", got)
	}
}

func TestUnpackHalf(t *testing.T) {
	one, two, half := uint16(0x3C00), uint16(0x4000), uint16(0x3800)
	u16 := func(vs ...uint16) []byte {
		b := make([]byte, 2*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint16(b[2*i:], v)
		}
		return b
	}
	for _, tt := range []struct {
		format gl.Enum
		in     []byte
		want   [4]uint16
	}{
		{gl.ALPHA, u16(two), [4]uint16{0, 0, 0, two}},
		{gl.LUMINANCE, u16(two), [4]uint16{two, two, two, one}},
		{gl.LUMINANCE_ALPHA, u16(two, half), [4]uint16{two, two, two, half}},
		{gl.RGB, u16(two, half, 0xC000), [4]uint16{two, half, 0xC000, one}},
		{gl.RGBA, u16(two, half, 0xC000, 0x7BFF), [4]uint16{two, half, 0xC000, 0x7BFF}},
	} {
		got, ok := unpackHalf(tt.in, 1, 1, tt.format, 1)
		if !ok {
			t.Fatalf("format %#x not unpacked", tt.format)
		}
		for c, w := range tt.want {
			if v := binary.LittleEndian.Uint16(got[2*c:]); v != w {
				t.Errorf("format %#x channel %d: %#04x, want %#04x", tt.format, c, v, w)
			}
		}
		if _, ok := unpackHalf(tt.in[:len(tt.in)-1], 1, 1, tt.format, 1); ok {
			t.Errorf("format %#x: short data accepted", tt.format)
		}
	}
	if _, ok := unpackHalf(u16(one), 1, 1, bgraEXT, 1); ok {
		t.Error("BGRA half floats unpacked")
	}
}

func TestStoreFormats(t *testing.T) {
	for _, tt := range []struct {
		format, ty gl.Enum
		want       pipe.Format
	}{
		{gl.RGB, gl.UNSIGNED_SHORT_5_6_5, pipe.FormatRGB565},
		{gl.RGBA, gl.UNSIGNED_SHORT_4_4_4_4, pipe.FormatRGBA4},
		{gl.RGBA, gl.UNSIGNED_SHORT_5_5_5_1, pipe.FormatRGB5A1},
		{gl.RGB, gl.UNSIGNED_BYTE, pipe.FormatRGBX8},
		{gl.RGBA, gl.UNSIGNED_BYTE, pipe.FormatRGBA8},
		{gl.LUMINANCE, gl.UNSIGNED_BYTE, pipe.FormatRGBA8},
		{gl.LUMINANCE, halfFloatOES, pipe.FormatRGBA16F},
		{gl.DEPTH_COMPONENT, gl.UNSIGNED_SHORT, pipe.FormatZ24S8},
		{gl.DEPTH_STENCIL_OES, gl.UNSIGNED_INT_24_8_OES, pipe.FormatZ24S8},
	} {
		if got := texStoreFormat(tt.format, tt.ty); got != tt.want {
			t.Errorf("texStoreFormat(%#x, %#x) = %d, want %d", tt.format, tt.ty, got, tt.want)
		}
	}
	for f, want := range map[gl.Enum]pipe.Format{gl.RGB565: pipe.FormatRGB565, gl.RGBA4: pipe.FormatRGBA4, gl.RGB5_A1: pipe.FormatRGB5A1,
		gl.RGB8_OES: pipe.FormatRGBX8, gl.RGBA8_OES: pipe.FormatRGBA8, bgra8EXT: pipe.FormatRGBA8} {
		if got := rbStoreFormat(f); got != want {
			t.Errorf("rbStoreFormat(%#x) = %d, want %d", f, got, want)
		}
	}
}

// FuzzUnpackTexels: the depth and half-float unpackers take any data,
// size and alignment: they return texels of the right length or refuse,
// never panic or read past data.
func FuzzUnpackTexels(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, uint8(2), uint8(1), uint8(0), uint8(1))
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, uint8(1), uint8(2), uint8(3), uint8(4))
	f.Add([]byte{}, uint8(0), uint8(5), uint8(6), uint8(8))
	kinds := []struct{ format, ty gl.Enum }{
		{gl.DEPTH_COMPONENT, gl.UNSIGNED_SHORT}, {gl.DEPTH_COMPONENT, gl.UNSIGNED_INT}, {gl.DEPTH_STENCIL_OES, gl.UNSIGNED_INT_24_8_OES},
		{gl.ALPHA, halfFloatOES}, {gl.LUMINANCE, halfFloatOES}, {gl.LUMINANCE_ALPHA, halfFloatOES}, {gl.RGB, halfFloatOES}, {gl.RGBA, halfFloatOES},
	}
	f.Fuzz(func(t *testing.T, data []byte, w, h, kind, align uint8) {
		k := kinds[int(kind)%len(kinds)]
		var out []byte
		var ok bool
		if isDepthFormat(k.format) {
			out, ok = unpackDepth(data, int(w), int(h), k.ty, int(align))
		} else {
			out, ok = unpackHalf(data, int(w), int(h), k.format, int(align))
		}
		if !ok {
			return
		}
		size := 4
		if !isDepthFormat(k.format) {
			size = 8
		}
		if len(out) != int(w)*int(h)*size {
			t.Fatalf("%d×%d %#x/%#x: %d bytes", w, h, k.format, k.ty, len(out))
		}
	})
}
