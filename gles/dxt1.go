package gles

import "github.com/tilegpu/tilegpu/gl"

// EXT_texture_compression_dxt1: DXT1 (BC1) images are decoded to RGBA8 on
// upload, as ETC1 images are (the TG hardware samples RGBA8 only). Unlike
// ETC1, DXT1 images may be updated in part (CompressedTexSubImage2D on
// block boundaries).

const (
	rgbDXT1  gl.Enum = 0x83F0 // COMPRESSED_RGB_S3TC_DXT1_EXT
	rgbaDXT1 gl.Enum = 0x83F1 // COMPRESSED_RGBA_S3TC_DXT1_EXT
)

// dxt1Size is the byte size of a w×h DXT1 image (8 bytes per 4×4 block).
func dxt1Size(w, h int) int { return (w + 3) / 4 * ((h + 3) / 4) * 8 }

// expand565 converts an RGB565 colour to 8-bit channels.
func expand565(c uint16) [3]int {
	r, g, b := int(c>>11), int(c>>5&63), int(c&31)
	return [3]int{r<<3 | r>>2, g<<2 | g>>4, b<<3 | b>>2}
}

// decodeDXT1 decodes a w×h DXT1 image to RGBA8 rows. Each block holds two
// RGB565 colours and 2-bit indices: with colour0 > colour1 the palette is
// c0, c1, (2c0+c1)/3, (c0+2c1)/3; otherwise c0, c1, (c0+c1)/2 and black,
// which is transparent (alpha 0) in the RGBA variant.
func decodeDXT1(src []byte, w, h int, alpha bool) []byte {
	out := make([]byte, w*h*4)
	bw := (w + 3) / 4
	for by := 0; by < (h+3)/4; by++ {
		for bx := 0; bx < bw; bx++ {
			b := src[(by*bw+bx)*8:]
			c0 := uint16(b[0]) | uint16(b[1])<<8
			c1 := uint16(b[2]) | uint16(b[3])<<8
			e0, e1 := expand565(c0), expand565(c1)
			var pal [4][4]byte
			for c := 0; c < 3; c++ {
				pal[0][c], pal[1][c] = byte(e0[c]), byte(e1[c])
				if c0 > c1 {
					pal[2][c] = byte((2*e0[c] + e1[c]) / 3)
					pal[3][c] = byte((e0[c] + 2*e1[c]) / 3)
				} else {
					pal[2][c] = byte((e0[c] + e1[c]) / 2)
				}
			}
			pal[0][3], pal[1][3], pal[2][3], pal[3][3] = 255, 255, 255, 255
			if c0 <= c1 && alpha {
				pal[3][3] = 0
			}
			idx := uint32(b[4]) | uint32(b[5])<<8 | uint32(b[6])<<16 | uint32(b[7])<<24
			for y := 0; y < 4; y++ {
				for x := 0; x < 4; x++ {
					px, py := bx*4+x, by*4+y
					if px >= w || py >= h {
						continue
					}
					copy(out[(py*w+px)*4:], pal[idx>>(2*(4*y+x))&3][:])
				}
			}
		}
	}
	return out
}
