package gles

import "github.com/tilegpu/tilegpu/gl"

// EXT_read_format_bgra: ReadPixels with format BGRA_EXT and type
// UNSIGNED_BYTE, UNSIGNED_SHORT_4_4_4_4_REV_EXT or
// UNSIGNED_SHORT_1_5_5_5_REV_EXT (the _REV types pack the first component,
// blue, in the lowest bits). The colour buffer is read as RGBA8 and
// converted on the CPU.

const (
	unsignedShort4444Rev gl.Enum = 0x8365
	unsignedShort1555Rev gl.Enum = 0x8366
)

func (c *Context) readPixelsBGRA(dst []byte, x, y, width, height int, ty gl.Enum) {
	bpp := 0
	switch ty {
	case gl.UNSIGNED_BYTE:
		bpp = 4
	case unsignedShort4444Rev, unsignedShort1555Rev:
		bpp = 2
	case gl.UNSIGNED_SHORT_5_6_5, gl.UNSIGNED_SHORT_4_4_4_4, gl.UNSIGNED_SHORT_5_5_5_1:
		c.recordError(gl.INVALID_OPERATION) // a type, but not one for BGRA
		return
	default:
		c.recordError(gl.INVALID_ENUM)
		return
	}
	if width < 0 || height < 0 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	if !c.checkFramebufferComplete() {
		return
	}
	stride := (width*bpp + c.packAlign - 1) / c.packAlign * c.packAlign
	if height > 0 && len(dst) < stride*(height-1)+width*bpp {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	if width == 0 || height == 0 {
		return
	}
	px := c.readFramebufferRGBA(x, y, width, height)
	for row := 0; row < height; row++ {
		out := dst[row*stride:]
		for col := 0; col < width; col++ {
			s := px[(row*width+col)*4:]
			r, g, b, a := uint16(s[0]), uint16(s[1]), uint16(s[2]), uint16(s[3])
			switch ty {
			case gl.UNSIGNED_BYTE:
				out[col*4], out[col*4+1], out[col*4+2], out[col*4+3] = byte(b), byte(g), byte(r), byte(a)
			case unsignedShort4444Rev: // B in bits 0-3, G 4-7, R 8-11, A 12-15
				v := (b*15+127)/255 | (g*15+127)/255<<4 | (r*15+127)/255<<8 | (a*15+127)/255<<12
				out[col*2], out[col*2+1] = byte(v), byte(v>>8)
			case unsignedShort1555Rev: // B in bits 0-4, G 5-9, R 10-14, A 15
				v := (b*31+127)/255 | (g*31+127)/255<<5 | (r*31+127)/255<<10 | (a+127)/255<<15
				out[col*2], out[col*2+1] = byte(v), byte(v>>8)
			}
		}
	}
}
