package gles

import (
	"bytes"
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// TestDecodeDXT1 checks both palettes of a block against values worked
// out by hand: red 0xF800 and blue 0x001F give thirds in four-colour mode;
// swapped (c0 ≤ c1) the third colour is the mean and index 3 is black,
// transparent in the RGBA variant.
func TestDecodeDXT1(t *testing.T) {
	// Indices row by row: 0 1 2 3 in every row (bits 0-1 are pixel (0,0)).
	idx := []byte{0xE4, 0xE4, 0xE4, 0xE4}
	four := append([]byte{0x00, 0xF8, 0x1F, 0x00}, idx...)
	three := append([]byte{0x1F, 0x00, 0x00, 0xF8}, idx...)
	for _, tc := range []struct {
		name  string
		block []byte
		alpha bool
		want  [4][4]byte
	}{
		{"four colours", four, false, [4][4]byte{{255, 0, 0, 255}, {0, 0, 255, 255}, {170, 0, 85, 255}, {85, 0, 170, 255}}},
		{"three colours", three, false, [4][4]byte{{0, 0, 255, 255}, {255, 0, 0, 255}, {127, 0, 127, 255}, {0, 0, 0, 255}}},
		{"three colours rgba", three, true, [4][4]byte{{0, 0, 255, 255}, {255, 0, 0, 255}, {127, 0, 127, 255}, {0, 0, 0, 0}}},
	} {
		out := decodeDXT1(tc.block, 4, 4, tc.alpha)
		for y := 0; y < 4; y++ {
			for x := 0; x < 4; x++ {
				if got := out[(y*4+x)*4:][:4]; !bytes.Equal(got, tc.want[x][:]) {
					t.Errorf("%s: pixel (%d,%d) = %v, want %v", tc.name, x, y, got, tc.want[x])
				}
			}
		}
	}
	// A 3×2 image uses the top-left corner of its one block.
	if out := decodeDXT1(four, 3, 2, false); len(out) != 3*2*4 || !bytes.Equal(out[4:8], []byte{0, 0, 255, 255}) {
		t.Errorf("3×2 image: %v", out)
	}
}

// TestCompressedTexSubImage2DErrors: EXT_texture_compression_dxt1's rules
// (dEQP negative_api.texture.compressedtexsubimage2d_*).
func TestCompressedTexSubImage2DErrors(t *testing.T) {
	c, _ := newTestContext(t)
	c.BindTexture(gl.TEXTURE_2D, c.CreateTexture())
	c.CompressedTexImage2D(gl.TEXTURE_2D, 0, rgbDXT1, 10, 8, 0, make([]byte, dxt1Size(10, 8)))
	if e := c.GetError(); e != gl.NO_ERROR {
		t.Fatalf("CompressedTexImage2D: %#x", e)
	}
	for _, tc := range []struct {
		name              string
		target            gl.Enum
		level, x, y, w, h int
		format            gl.Enum
		size              int
		want              gl.Enum
	}{
		{"whole image", gl.TEXTURE_2D, 0, 0, 0, 10, 8, rgbDXT1, 48, gl.NO_ERROR},
		{"one block", gl.TEXTURE_2D, 0, 4, 4, 4, 4, rgbDXT1, 8, gl.NO_ERROR},
		{"to the right edge", gl.TEXTURE_2D, 0, 8, 0, 2, 8, rgbDXT1, 16, gl.NO_ERROR},
		{"bad target", 0, 0, 0, 0, 4, 4, rgbDXT1, 8, gl.INVALID_ENUM},
		{"bad format", gl.TEXTURE_2D, 0, 0, 0, 4, 4, gl.RGBA, 8, gl.INVALID_ENUM},
		{"etc1", gl.TEXTURE_2D, 0, 0, 0, 4, 4, etc1RGB8, 8, gl.INVALID_OPERATION},
		{"other dxt1 format", gl.TEXTURE_2D, 0, 0, 0, 4, 4, rgbaDXT1, 8, gl.INVALID_OPERATION},
		{"negative level", gl.TEXTURE_2D, -1, 0, 0, 0, 0, rgbDXT1, 0, gl.INVALID_VALUE},
		{"level too large", gl.TEXTURE_2D, 14, 0, 0, 0, 0, rgbDXT1, 0, gl.INVALID_VALUE},
		{"undefined level", gl.TEXTURE_2D, 1, 0, 0, 0, 0, rgbDXT1, 0, gl.INVALID_OPERATION},
		{"negative offset", gl.TEXTURE_2D, 0, -1, 0, 0, 0, rgbDXT1, 0, gl.INVALID_VALUE},
		{"negative width", gl.TEXTURE_2D, 0, 0, 0, -1, 0, rgbDXT1, 0, gl.INVALID_VALUE},
		{"past the image", gl.TEXTURE_2D, 0, 8, 0, 4, 4, rgbDXT1, 8, gl.INVALID_VALUE},
		{"offset far past", gl.TEXTURE_2D, 0, 4097, 0, 0, 0, rgbDXT1, 0, gl.INVALID_VALUE},
		{"unaligned offset", gl.TEXTURE_2D, 0, 2, 0, 4, 4, rgbDXT1, 8, gl.INVALID_OPERATION},
		{"partial block inside", gl.TEXTURE_2D, 0, 0, 0, 2, 4, rgbDXT1, 8, gl.INVALID_OPERATION},
		{"wrong size", gl.TEXTURE_2D, 0, 0, 0, 4, 4, rgbDXT1, 4, gl.INVALID_VALUE},
	} {
		c.CompressedTexSubImage2D(tc.target, tc.level, tc.x, tc.y, tc.w, tc.h, tc.format, make([]byte, tc.size))
		if e := c.GetError(); e != tc.want {
			t.Errorf("%s: error %#x, want %#x", tc.name, e, tc.want)
		}
	}
}

// FuzzCompressedTexSubImage2D: arbitrary rectangles, formats and data
// against a DXT1 image must record an error or store the blocks, never
// panic or read outside data.
func FuzzCompressedTexSubImage2D(f *testing.F) {
	f.Add(10, 8, 4, 4, 4, 4, uint32(rgbDXT1), make([]byte, 8))
	f.Add(10, 8, 8, 4, 2, 4, uint32(rgbDXT1), make([]byte, 8))
	f.Add(5, 5, 0, 0, 5, 5, uint32(rgbaDXT1), make([]byte, 32))
	f.Add(4, 4, -4, 0, 4, 4, uint32(rgbDXT1), []byte{})
	f.Fuzz(func(t *testing.T, w, h, x, y, sw, sh int, format uint32, data []byte) {
		if w < 0 || h < 0 || w > 64 || h > 64 || sw > 1<<12 || sh > 1<<12 {
			return
		}
		c, _ := newTestContext(t)
		c.BindTexture(gl.TEXTURE_2D, c.CreateTexture())
		c.CompressedTexImage2D(gl.TEXTURE_2D, 0, rgbDXT1, w, h, 0, make([]byte, dxt1Size(w, h)))
		if e := c.GetError(); e != gl.NO_ERROR {
			t.Fatalf("%dx%d image: error %#x", w, h, e)
		}
		c.CompressedTexSubImage2D(gl.TEXTURE_2D, 0, x, y, sw, sh, gl.Enum(format), data)
		if c.GetError() == gl.NO_ERROR && (gl.Enum(format) != rgbDXT1 || len(data) != dxt1Size(sw, sh) || x < 0 || y < 0 || x+sw > w || y+sh > h) {
			t.Fatalf("accepted: image %dx%d, rect %d,%d %dx%d, format %#x, %d bytes", w, h, x, y, sw, sh, format, len(data))
		}
	})
}
