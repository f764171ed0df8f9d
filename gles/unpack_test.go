package gles

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// refUnpack is the obvious per-pixel conversion UnpackRGBA must match.
func refUnpack(data []byte, w, h int, format, ty gl.Enum, align int) []byte {
	bpp := map[gl.Enum]int{gl.ALPHA: 1, gl.LUMINANCE: 1, gl.LUMINANCE_ALPHA: 2, gl.RGB: 3, gl.RGBA: 4}[format]
	if ty != gl.UNSIGNED_BYTE {
		bpp = 2
	}
	stride := (w*bpp + align - 1) / align * align
	out := make([]byte, 0, w*h*4)
	for y := range h {
		for x := range w {
			p := data[y*stride+x*bpp:]
			v := uint16(p[0])
			if bpp >= 2 {
				v |= uint16(p[1]) << 8
			}
			var px [4]byte
			switch {
			case ty == gl.UNSIGNED_SHORT_5_6_5:
				px = [4]byte{expand(v>>11, 5), expand(v>>5&63, 6), expand(v&31, 5), 255}
			case ty == gl.UNSIGNED_SHORT_4_4_4_4:
				px = [4]byte{expand(v>>12, 4), expand(v>>8&15, 4), expand(v>>4&15, 4), expand(v&15, 4)}
			case ty == gl.UNSIGNED_SHORT_5_5_5_1:
				px = [4]byte{expand(v>>11, 5), expand(v>>6&31, 5), expand(v>>1&31, 5), expand(v&1, 1)}
			case format == gl.RGBA:
				px = [4]byte{p[0], p[1], p[2], p[3]}
			case format == gl.RGB:
				px = [4]byte{p[0], p[1], p[2], 255}
			case format == gl.LUMINANCE:
				px = [4]byte{p[0], p[0], p[0], 255}
			case format == gl.LUMINANCE_ALPHA:
				px = [4]byte{p[0], p[0], p[0], p[1]}
			case format == gl.ALPHA:
				px = [4]byte{0, 0, 0, p[0]}
			}
			out = append(out, px[:]...)
		}
	}
	return out
}

// TestUnpackRGBA: every ES 2.0 upload layout and unpack alignment converts
// as the per-pixel reference does, into the caller's memory when it is
// large enough, never aliasing the source; short data is refused.
func TestUnpackRGBA(t *testing.T) {
	layouts := []struct{ format, ty gl.Enum }{
		{gl.RGBA, gl.UNSIGNED_BYTE}, {gl.RGB, gl.UNSIGNED_BYTE}, {gl.LUMINANCE, gl.UNSIGNED_BYTE},
		{gl.LUMINANCE_ALPHA, gl.UNSIGNED_BYTE}, {gl.ALPHA, gl.UNSIGNED_BYTE}, {gl.RGB, gl.UNSIGNED_SHORT_5_6_5},
		{gl.RGBA, gl.UNSIGNED_SHORT_4_4_4_4}, {gl.RGBA, gl.UNSIGNED_SHORT_5_5_5_1},
	}
	const w, h = 7, 5
	data := make([]byte, 8*w*h)
	for i := range data {
		data[i] = byte(i*37 + 11)
	}
	for _, l := range layouts {
		for _, align := range []int{1, 2, 4, 8} {
			t.Run(fmt.Sprintf("0x%x/0x%x/align%d", l.format, l.ty, align), func(t *testing.T) {
				want := refUnpack(data, w, h, l.format, l.ty, align)
				dst := make([]byte, 0, w*h*4)
				got, ok := UnpackRGBA(dst, data, w, h, l.format, l.ty, align)
				if !ok || !bytes.Equal(got, want) {
					t.Fatalf("ok=%v, got %v\nwant %v", ok, got, want)
				}
				if &got[0] != &dst[:1][0] {
					t.Error("did not convert into the caller's memory")
				}
				if &got[0] == &data[0] {
					t.Error("result aliases the source")
				}
				if _, ok := UnpackRGBA(nil, data[:1], w, h, l.format, l.ty, align); ok {
					t.Error("one byte of data accepted for a 7×5 image")
				}
			})
		}
	}
}
