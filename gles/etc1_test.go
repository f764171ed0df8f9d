package gles

import (
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// Hand-encoded blocks (OES_compressed_ETC1_RGB8_texture's bit layout) and
// the texels the specification's decoding gives.
func TestDecodeETC1(t *testing.T) {
	for _, tc := range []struct {
		name  string
		block []byte
		want  map[[2]int][3]byte
	}{
		{"individual", []byte{0x8F, 0x40, 0x2A, 0x38, 0x18, 0x00, 0x10, 0x40}, map[[2]int][3]byte{
			{0, 0}: {141, 73, 39},  // left half, index 0: +5 (table 1)
			{3, 0}: {149, 0, 64},   // right half, index 3: -106 (table 6)
			{1, 2}: {153, 85, 51},  // index 1: +17
			{2, 3}: {222, 0, 137}}, // index 2: -33
		},
		{"differential flipped", []byte{0x57, 0x00, 0x00, 0x03, 0, 0, 0, 0}, map[[2]int][3]byte{
			{0, 0}: {84, 2, 2}, // top half: R 10 → 82, +2
			{3, 3}: {76, 2, 2}, // bottom half: R 10-1 → 74, +2
		}},
	} {
		got := decodeETC1(tc.block, 4, 4)
		for p, want := range tc.want {
			o := got[(p[1]*4+p[0])*4:]
			if [3]byte(o[:3]) != want || o[3] != 255 {
				t.Errorf("%s: texel %v = %v, want %v", tc.name, p, o[:4], want)
			}
		}
	}
	// A partial block at the image edge writes only the texels inside.
	if got := decodeETC1(make([]byte, 8), 3, 2); len(got) != 3*2*4 {
		t.Errorf("3x2 image decoded to %d bytes", len(got))
	}
}

func TestCompressedTexImage2DErrors(t *testing.T) {
	c, _ := newTestContext(t)
	tex := c.CreateTexture()
	c.BindTexture(gl.TEXTURE_2D, tex)
	for _, tc := range []struct {
		name         string
		format       gl.Enum
		w, h, border int
		size         int
		want         gl.Enum
	}{
		{"ok", etc1RGB8, 8, 4, 0, 16, gl.NO_ERROR},
		{"npot", etc1RGB8, 5, 3, 0, 16, gl.NO_ERROR},
		{"unknown format", gl.RGBA, 4, 4, 0, 8, gl.INVALID_ENUM},
		{"wrong size", etc1RGB8, 8, 4, 0, 8, gl.INVALID_VALUE},
		{"border", etc1RGB8, 4, 4, 1, 8, gl.INVALID_VALUE},
		{"negative", etc1RGB8, -4, 4, 0, 8, gl.INVALID_VALUE},
	} {
		c.CompressedTexImage2D(gl.TEXTURE_2D, 0, tc.format, tc.w, tc.h, tc.border, make([]byte, tc.size))
		if e := c.GetError(); e != tc.want {
			t.Errorf("%s: error %#x, want %#x", tc.name, e, tc.want)
		}
	}
	c.CompressedTexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, 4, 4, etc1RGB8, make([]byte, 8))
	if e := c.GetError(); e != gl.INVALID_OPERATION {
		t.Errorf("CompressedTexSubImage2D: error %#x, want INVALID_OPERATION", e)
	}
	formats := make([]int32, c.StateSize(gl.COMPRESSED_TEXTURE_FORMATS))
	c.GetIntegerv(formats, gl.COMPRESSED_TEXTURE_FORMATS)
	if len(formats) != c.GetInteger(gl.NUM_COMPRESSED_TEXTURE_FORMATS) || len(formats) != 3 || gl.Enum(formats[0]) != etc1RGB8 ||
		gl.Enum(formats[1]) != rgbDXT1 || gl.Enum(formats[2]) != rgbaDXT1 {
		t.Errorf("COMPRESSED_TEXTURE_FORMATS %v", formats)
	}
	if !c.hasExtension("GL_OES_compressed_ETC1_RGB8_texture") {
		t.Error("extension not advertised")
	}
}

// FuzzCompressedTexImage2D feeds arbitrary sizes, formats and data to the
// ETC1 upload path: it must record a GL error or define the image, never
// panic or read outside data.
func FuzzCompressedTexImage2D(f *testing.F) {
	f.Add(uint32(etc1RGB8), 4, 4, 0, []byte{0x8F, 0x40, 0x2A, 0x38, 0x18, 0x00, 0x10, 0x40})
	f.Add(uint32(etc1RGB8), 5, 3, 0, make([]byte, 16))
	f.Add(uint32(gl.RGBA), -1, 1<<20, 1, []byte{})
	f.Add(uint32(rgbaDXT1), 6, 5, 0, make([]byte, 32))
	f.Fuzz(func(t *testing.T, format uint32, w, h, border int, data []byte) {
		if w > 256 || h > 256 {
			return // large images are valid but slow; sizes are checked before any allocation
		}
		c, _ := newTestContext(t)
		tex := c.CreateTexture()
		c.BindTexture(gl.TEXTURE_2D, tex)
		c.CompressedTexImage2D(gl.TEXTURE_2D, 0, gl.Enum(format), w, h, border, data)
		e := c.GetError()
		size := etc1Size(w, h)
		if gl.Enum(format) == rgbDXT1 || gl.Enum(format) == rgbaDXT1 {
			size = dxt1Size(w, h)
		}
		known := gl.Enum(format) == etc1RGB8 || gl.Enum(format) == rgbDXT1 || gl.Enum(format) == rgbaDXT1
		ok := known && w >= 0 && h >= 0 && border == 0 && len(data) == size
		if ok != (e == gl.NO_ERROR) {
			t.Fatalf("format %#x %dx%d border %d, %d bytes: error %#x", format, w, h, border, len(data), e)
		}
	})
}
