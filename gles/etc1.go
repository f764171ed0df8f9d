package gles

import (
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/pipe"
)

// OES_compressed_ETC1_RGB8_texture: ETC1 images are decoded on upload and
// stored as RGBX8 (the TG hardware has no compressed texture formats).

// etc1RGB8 is GL_ETC1_RGB8_OES.
const etc1RGB8 gl.Enum = 0x8D64

// compressedFormats is COMPRESSED_TEXTURE_FORMATS (ETC1 first: dEQP's
// negative tests use the first one for glCompressedTexImage2D).
var compressedFormats = []gl.Enum{etc1RGB8, rgbDXT1, rgbaDXT1}

// etc1Modifiers are the intensity tables of ETC1 (the small and large
// modifier of each of the 8 codewords).
var etc1Modifiers = [8][2]int{{2, 8}, {5, 17}, {9, 29}, {13, 42}, {18, 60}, {24, 80}, {33, 106}, {47, 183}}

// etc1Size is the byte size of a w×h ETC1 image (8 bytes per 4×4 block).
func etc1Size(w, h int) int { return (w + 3) / 4 * ((h + 3) / 4) * 8 }

// decodeETC1 decodes a w×h ETC1 image to RGBA8 rows (alpha 255).
func decodeETC1(src []byte, w, h int) []byte {
	out := make([]byte, w*h*4)
	bw := (w + 3) / 4
	for by := 0; by < (h+3)/4; by++ {
		for bx := 0; bx < bw; bx++ {
			b := src[(by*bw+bx)*8:]
			var base [2][3]int
			if b[3]&2 == 0 { // individual mode: two 4-bit colours
				for c := 0; c < 3; c++ {
					hi, lo := int(b[c]>>4), int(b[c]&15)
					base[0][c], base[1][c] = hi<<4|hi, lo<<4|lo
				}
			} else { // differential mode: 5-bit colour + signed 3-bit delta
				for c := 0; c < 3; c++ {
					c1 := int(b[c] >> 3)
					d := int(b[c]&7) - int(b[c]&4)<<1
					c2 := (c1 + d) & 31
					base[0][c], base[1][c] = c1<<3|c1>>2, c2<<3|c2>>2
				}
			}
			table := [2]int{int(b[3] >> 5), int(b[3] >> 2 & 7)}
			flip := b[3]&1 != 0
			msb := int(b[4])<<8 | int(b[5])
			lsb := int(b[6])<<8 | int(b[7])
			for x := 0; x < 4; x++ {
				for y := 0; y < 4; y++ {
					px, py := bx*4+x, by*4+y
					if px >= w || py >= h {
						continue
					}
					sub := x / 2
					if flip {
						sub = y / 2
					}
					bit := x*4 + y
					idx := (msb>>bit&1)<<1 | lsb>>bit&1
					m := etc1Modifiers[table[sub]][idx&1]
					if idx&2 != 0 {
						m = -m
					}
					o := out[(py*w+px)*4:]
					for c := 0; c < 3; c++ {
						o[c] = byte(min(max(base[sub][c]+m, 0), 255))
					}
					o[3] = 255
				}
			}
		}
	}
	return out
}

// CompressedTexImage2D specifies an ETC1 or DXT1 image; data must hold
// exactly its blocks.
func (c *Context) CompressedTexImage2D(target gl.Enum, level int, internalformat gl.Enum, width, height, border int, data []byte) {
	t, face, ok := c.texTarget(target)
	if !ok {
		return
	}
	var size int
	var base gl.Enum
	switch internalformat {
	case etc1RGB8:
		size, base = etc1Size(width, height), gl.RGB
	case rgbDXT1:
		size, base = dxt1Size(width, height), gl.RGB
	case rgbaDXT1:
		size, base = dxt1Size(width, height), gl.RGBA
	default:
		c.recordError(gl.INVALID_ENUM)
		return
	}
	if !c.checkImageArgs(target, level, width, height) {
		return
	}
	if border != 0 || len(data) != size {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	var rgba []byte
	sf := pipe.FormatRGBX8
	if internalformat == etc1RGB8 {
		rgba = decodeETC1(data, width, height)
	} else {
		rgba = decodeDXT1(data, width, height, internalformat == rgbaDXT1)
		if internalformat == rgbaDXT1 {
			sf = pipe.FormatRGBA8
		}
	}
	c.defineImage(t, face, level, width, height, base, sf, rgba)
	t.level(face, level).compressed = internalformat
}

// CompressedTexSubImage2D replaces a rectangle of a DXT1 image
// (EXT_texture_compression_dxt1: whole 4×4 blocks, except where the
// rectangle ends at the image's edge). ETC1 images cannot be updated in
// part (OES_compressed_ETC1_RGB8_texture): INVALID_OPERATION.
func (c *Context) CompressedTexSubImage2D(target gl.Enum, level, xoffset, yoffset, width, height int, format gl.Enum, data []byte) {
	t, face, ok := c.texTarget(target)
	if !ok {
		return
	}
	switch format {
	case etc1RGB8:
		c.recordError(gl.INVALID_OPERATION)
		return
	case rgbDXT1, rgbaDXT1:
	default:
		c.recordError(gl.INVALID_ENUM)
		return
	}
	if level < 0 || level > c.maxLevel() || width < 0 || height < 0 || xoffset < 0 || yoffset < 0 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	if t == nil || level >= len(t.levels[face]) || !t.levels[face][level].defined {
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	lv := t.levels[face][level]
	if xoffset+width > lv.w || yoffset+height > lv.h {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	if lv.compressed != format || xoffset%4 != 0 || yoffset%4 != 0 ||
		(width%4 != 0 && xoffset+width != lv.w) || (height%4 != 0 && yoffset+height != lv.h) {
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	if len(data) != dxt1Size(width, height) {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	if width == 0 || height == 0 || (!lv.inRes && lv.pending == nil) {
		return
	}
	c.storeSubImage(t, face, level, xoffset, yoffset, width, height, decodeDXT1(data, width, height, format == rgbaDXT1))
}
