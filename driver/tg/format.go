package tg

import (
	"encoding/binary"
	"math"

	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/pipe"
)

// Resource formats as the hardware names them (hardware.md §4.4.1 for
// colour targets, §6.2.1 for textures).

// colorFormat is the ColorFormat of a colour target of format f; ok is
// false for formats the tile buffer cannot render to.
func colorFormat(f pipe.Format) (cf cl.ColorFormat, ok bool) {
	switch f {
	case pipe.FormatRGBA8:
		return cl.ColorFormatRGBA8888, true
	case pipe.FormatRGBX8:
		return cl.ColorFormatRGBX8888, true
	case pipe.FormatRGB565:
		return cl.ColorFormatRGB565, true
	case pipe.FormatRGBA4:
		return cl.ColorFormatRGBA4444, true
	case pipe.FormatRGB5A1:
		return cl.ColorFormatRGBA5551, true
	}
	return 0, false
}

// textureFormat is the TextureFormat the TMU samples a resource of format
// f as: a depth/stencil surface is sampled as its depth.
func textureFormat(f pipe.Format) cl.TextureFormat {
	switch f {
	case pipe.FormatRGB565:
		return cl.TextureFormatRGB565
	case pipe.FormatRGBA4:
		return cl.TextureFormatRGBA4444
	case pipe.FormatRGB5A1:
		return cl.TextureFormatRGBA5551
	case pipe.FormatZ24S8:
		return cl.TextureFormatDepth24
	case pipe.FormatRGBA16F:
		return cl.TextureFormatRGBA16F
	}
	return cl.TextureFormatRGBA8888 // RGBA8, RGBX8
}

// boxFilterLevel writes level dst (dw×dh) of format f as the 2×2 box
// filter of src (sw×sh); odd edges repeat their last texel. 8-bit and
// 16-bit colour formats are filtered at 8 bits and rounded to the format,
// half floats in float32.
func boxFilterLevel(f pipe.Format, dst, src []byte, dw, dh, sw, sh int) bool {
	switch f {
	case pipe.FormatRGBA8, pipe.FormatRGBX8:
		boxFilterRGBA8(dst, src, dw, dh, sw, sh)
		return true
	case pipe.FormatRGBA16F:
		for y := 0; y < dh; y++ {
			y0, y1 := min(2*y, sh-1), min(2*y+1, sh-1)
			for x := 0; x < dw; x++ {
				x0, x1 := min(2*x, sw-1), min(2*x+1, sw-1)
				for ch := 0; ch < 4; ch++ {
					at := func(i, j int) float32 { return pipe.HalfToFloat(binary.LittleEndian.Uint16(src[((j*sw+i)*4+ch)*2:])) }
					v := (at(x0, y0) + at(x1, y0) + at(x0, y1) + at(x1, y1)) / 4
					binary.LittleEndian.PutUint16(dst[((y*dw+x)*4+ch)*2:], pipe.FloatToHalf(v))
				}
			}
		}
		return true
	case pipe.FormatRGB565, pipe.FormatRGBA4, pipe.FormatRGB5A1:
		s8, d8 := make([]byte, sw*sh*4), make([]byte, dw*dh*4)
		f.ToRGBA8(s8, src, sw*sh)
		boxFilterRGBA8(d8, s8, dw, dh, sw, sh)
		f.FromRGBA8(dst, d8, dw*dh)
		return true
	}
	return false
}

func boxFilterRGBA8(dst, src []byte, dw, dh, sw, sh int) {
	for y := 0; y < dh; y++ {
		y0, y1 := min(2*y, sh-1), min(2*y+1, sh-1)
		for x := 0; x < dw; x++ {
			x0, x1 := min(2*x, sw-1), min(2*x+1, sw-1)
			for ch := 0; ch < 4; ch++ {
				s := int(src[(y0*sw+x0)*4+ch]) + int(src[(y0*sw+x1)*4+ch]) +
					int(src[(y1*sw+x0)*4+ch]) + int(src[(y1*sw+x1)*4+ch])
				dst[(y*dw+x)*4+ch] = byte((s + 2) / 4)
			}
		}
	}
}

// packClearColor is CLEAR_COLORS's RGBA8 word for a colour target: for
// formats with fewer bits each channel is rounded once, from the float,
// to the format's bits and given as that level's 8-bit expansion (which
// the hardware keeps as it is), not rounded to 8 bits and again to the
// format's bits (0.7 in 4 bits is 11, not round(178·15/255) = 10).
func packClearColor(target *Resource, col [4]float32) uint32 {
	if target == nil {
		return packColor(col)
	}
	bits := target.tmpl.Format.ColorBits()
	if bits == [4]int{8, 8, 8, 8} || bits == [4]int{} {
		return packColor(col)
	}
	var v uint32
	for i, x := range col {
		n := bits[i]
		var e uint32 = 255
		if n > 0 && n < 8 {
			m := float64(int(1)<<n - 1)
			level := math.Round(float64(min(max(x, 0), 1)) * m)
			e = uint32(math.Round(level * 255 / m))
		} else if n == 8 {
			e = uint32(math.Round(float64(min(max(x, 0), 1)) * 255))
		}
		v |= e << (8 * i)
	}
	return v
}
