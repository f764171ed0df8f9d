package gles

import (
	"encoding/binary"

	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/pipe"
)

// Storage formats of textures and renderbuffers (issue 8). Colour
// buffers store their real bits: RGB565, RGBA4 and RGB5_A1 renderbuffers
// and textures of the packed 16-bit types are 16-bit resources the tile
// buffer renders at that precision (hardware.md §4.4.1); RGB8 and RGB
// textures are RGBX8 (no alpha). OES_depth_texture and
// OES_packed_depth_stencil textures are Z24S8 resources, the layout the
// tile buffer stores depth/stencil in, sampled as depth (DEPTH24).
// OES_texture_half_float textures are RGBA16F (sampled only; linear
// filtering too, OES_texture_half_float_linear).
//
// The texels gles handles on the CPU (pending images, uploads, copies)
// are in one of three intermediate forms, by the storage class of the
// image: RGBA8 for every 8-bit-or-less colour format (converted to the
// resource's format when written), RGBA16F, or Z24S8.

const (
	halfFloatOES gl.Enum = 0x8D61 // GL_HALF_FLOAT_OES
)

// texClass is the intermediate form of an image's texels.
type texClass uint8

const (
	classRGBA8 texClass = iota
	classHalf
	classDepth
)

func classOf(sf pipe.Format) texClass {
	switch sf {
	case pipe.FormatRGBA16F:
		return classHalf
	case pipe.FormatZ24S8:
		return classDepth
	}
	return classRGBA8
}

// compatibleClass reports whether images of classes a and b can share a
// resource: every colour class converts to every other (a mip chain may
// mix half-float and 8-bit types of one format; the resource keeps level
// 0's format and the other levels are converted into it), depth only to
// depth.
func compatibleClass(a, b texClass) bool {
	return a == b || (a != classDepth && b != classDepth)
}

// texelSize is the bytes per texel of a class's intermediate form.
func (k texClass) texelSize() int {
	if k == classHalf {
		return 8
	}
	return 4
}

// texStoreFormat is the resource format of a texture image specified
// with format and ty (already validated).
func texStoreFormat(format, ty gl.Enum) pipe.Format {
	switch {
	case format == gl.DEPTH_COMPONENT || format == gl.DEPTH_STENCIL_OES:
		return pipe.FormatZ24S8
	case ty == halfFloatOES:
		return pipe.FormatRGBA16F
	case ty == gl.UNSIGNED_SHORT_5_6_5:
		return pipe.FormatRGB565
	case ty == gl.UNSIGNED_SHORT_4_4_4_4:
		return pipe.FormatRGBA4
	case ty == gl.UNSIGNED_SHORT_5_5_5_1:
		return pipe.FormatRGB5A1
	case format == gl.RGB:
		return pipe.FormatRGBX8
	}
	return pipe.FormatRGBA8
}

// rbStoreFormat is the resource format of a renderbuffer's internal format.
func rbStoreFormat(f gl.Enum) pipe.Format {
	switch f {
	case gl.RGB565:
		return pipe.FormatRGB565
	case gl.RGBA4:
		return pipe.FormatRGBA4
	case gl.RGB5_A1:
		return pipe.FormatRGB5A1
	case gl.RGB8_OES:
		return pipe.FormatRGBX8
	case gl.RGBA8_OES, bgraEXT, bgra8EXT:
		return pipe.FormatRGBA8
	}
	return pipe.FormatZ24S8
}

func isDepthFormat(f gl.Enum) bool { return f == gl.DEPTH_COMPONENT || f == gl.DEPTH_STENCIL_OES }

// checkExtFormatType validates the format/type pairs of OES_depth_texture,
// OES_packed_depth_stencil and OES_texture_half_float; handled is false
// for pairs these extensions do not involve.
func (c *Context) checkExtFormatType(format, ty gl.Enum) (ok, handled bool) {
	switch {
	case isDepthFormat(format):
		if ty != gl.UNSIGNED_SHORT && ty != gl.UNSIGNED_INT && ty != gl.UNSIGNED_INT_24_8_OES {
			if ty == halfFloatOES || ty == gl.UNSIGNED_BYTE || ty == gl.UNSIGNED_SHORT_5_6_5 || ty == gl.UNSIGNED_SHORT_4_4_4_4 || ty == gl.UNSIGNED_SHORT_5_5_5_1 {
				c.recordError(gl.INVALID_OPERATION)
			} else {
				c.recordError(gl.INVALID_ENUM)
			}
			return false, true
		}
		if (format == gl.DEPTH_STENCIL_OES) != (ty == gl.UNSIGNED_INT_24_8_OES) {
			c.recordError(gl.INVALID_OPERATION)
			return false, true
		}
		return true, true
	case ty == gl.UNSIGNED_SHORT || ty == gl.UNSIGNED_INT || ty == gl.UNSIGNED_INT_24_8_OES:
		if isBaseFormat(format) {
			c.recordError(gl.INVALID_OPERATION)
		} else {
			c.recordError(gl.INVALID_ENUM)
		}
		return false, true
	case ty == halfFloatOES:
		if format == bgraEXT {
			c.recordError(gl.INVALID_OPERATION)
			return false, true
		}
		if !isBaseFormat(format) {
			c.recordError(gl.INVALID_ENUM)
			return false, true
		}
		return true, true
	}
	return false, false
}

// unpackTexels converts client pixels to the intermediate form of the
// class texStoreFormat(format, ty) gives (rows padded to the unpack
// alignment); false when data is too short.
func (c *Context) unpackTexels(data []byte, w, h int, format, ty gl.Enum) ([]byte, bool) {
	switch {
	case isDepthFormat(format):
		return unpackDepth(data, w, h, ty, c.unpackAlign)
	case ty == halfFloatOES:
		return unpackHalf(data, w, h, format, c.unpackAlign)
	}
	return c.unpackToRGBA(data, w, h, format, ty)
}

// rows returns the padded row length of w pixels of bpp bytes and checks
// that data holds h such rows.
func rows(data []byte, w, h, bpp, align int) (stride int, ok bool) {
	if w < 0 || h < 0 || align < 1 {
		return 0, false
	}
	rowBytes := w * bpp
	stride = (rowBytes + align - 1) / align * align
	if h > 0 && len(data) < stride*(h-1)+rowBytes {
		return 0, false
	}
	return stride, true
}

// unpackDepth converts DEPTH_COMPONENT (UNSIGNED_SHORT, UNSIGNED_INT) or
// DEPTH_STENCIL_OES (UNSIGNED_INT_24_8_OES) pixels to Z24S8 words.
func unpackDepth(data []byte, w, h int, ty gl.Enum, align int) ([]byte, bool) {
	bpp := 4
	if ty == gl.UNSIGNED_SHORT {
		bpp = 2
	}
	stride, ok := rows(data, w, h, bpp, align)
	if !ok {
		return nil, false
	}
	out := make([]byte, w*h*4)
	for y := 0; y < h; y++ {
		src := data[y*stride:]
		for x := 0; x < w; x++ {
			var v uint32
			switch ty {
			case gl.UNSIGNED_SHORT: // d/65535 to 24 bits, rounded
				d := uint64(binary.LittleEndian.Uint16(src[2*x:]))
				v = uint32((d*0xFFFFFF + 0x7FFF) / 0xFFFF)
			case gl.UNSIGNED_INT: // the top 24 bits, rounded
				d := uint64(binary.LittleEndian.Uint32(src[4*x:]))
				v = uint32(min((d*0xFFFFFF+0x7FFFFFFF)/0xFFFFFFFF, 0xFFFFFF))
			default: // UNSIGNED_INT_24_8: depth in bits 31..8, stencil in 7..0
				p := binary.LittleEndian.Uint32(src[4*x:])
				v = p>>8 | p<<24
			}
			binary.LittleEndian.PutUint32(out[(y*w+x)*4:], v)
		}
	}
	return out, true
}

// unpackHalf converts HALF_FLOAT_OES pixels of a base format to RGBA16F
// (LUMINANCE → L, L, L, 1; ALPHA → 0, 0, 0, A; RGB → alpha 1).
func unpackHalf(data []byte, w, h int, format gl.Enum, align int) ([]byte, bool) {
	n := map[gl.Enum]int{gl.ALPHA: 1, gl.LUMINANCE: 1, gl.LUMINANCE_ALPHA: 2, gl.RGB: 3, gl.RGBA: 4}[format]
	stride, ok := rows(data, w, h, 2*n, align)
	if !ok || n == 0 {
		return nil, false
	}
	const one, zero = 0x3C00, 0
	out := make([]byte, w*h*8)
	for y := 0; y < h; y++ {
		src := data[y*stride:]
		for x := 0; x < w; x++ {
			var in [4]uint16
			for k := 0; k < n; k++ {
				in[k] = binary.LittleEndian.Uint16(src[(x*n+k)*2:])
			}
			var px [4]uint16
			switch format {
			case gl.ALPHA:
				px = [4]uint16{zero, zero, zero, in[0]}
			case gl.LUMINANCE:
				px = [4]uint16{in[0], in[0], in[0], one}
			case gl.LUMINANCE_ALPHA:
				px = [4]uint16{in[0], in[0], in[0], in[1]}
			case gl.RGB:
				px = [4]uint16{in[0], in[1], in[2], one}
			default:
				px = in
			}
			d := out[(y*w+x)*8:]
			for k, v := range px {
				binary.LittleEndian.PutUint16(d[2*k:], v)
			}
		}
	}
	return out, true
}

// convertClass converts texels between the RGBA8 and RGBA16F
// intermediate forms (a TexSubImage2D or copy whose type differs from
// the image's); depth data is never converted.
func convertClass(data []byte, from, to texClass, n int) []byte {
	if from == to {
		return data
	}
	switch {
	case from == classRGBA8 && to == classHalf:
		out := make([]byte, n*8)
		pipe.FormatRGBA16F.FromRGBA8(out, data, n)
		return out
	case from == classHalf && to == classRGBA8:
		out := make([]byte, n*4)
		pipe.FormatRGBA16F.ToRGBA8(out, data, n)
		return out
	}
	return nil
}

// writeTexels stores intermediate texels of class classOf(sf) into a
// rectangle of a resource of format sf.
func (c *Context) writeTexels(res pipe.Resource, sf pipe.Format, face, level, x, y, w, h int, data []byte) error {
	if classOf(sf) == classRGBA8 && sf != pipe.FormatRGBA8 {
		packed := make([]byte, w*h*sf.BytesPerPixel())
		sf.FromRGBA8(packed, data, w*h)
		data = packed
	}
	return c.pipe.TextureWrite(res, face, level, x, y, w, h, data)
}

// readTexels reads a rectangle of a resource of format sf as
// intermediate texels.
func (c *Context) readTexels(res pipe.Resource, sf pipe.Format, face, level, x, y, w, h int) ([]byte, error) {
	raw := make([]byte, w*h*sf.BytesPerPixel())
	if err := c.pipe.ResourceRead(res, face, level, x, y, w, h, raw); err != nil {
		return nil, err
	}
	if classOf(sf) == classRGBA8 && sf != pipe.FormatRGBA8 {
		out := make([]byte, w*h*4)
		sf.ToRGBA8(out, raw, w*h)
		return out, nil
	}
	return raw, nil
}

// colorBits returns RED_BITS ... ALPHA_BITS of the bound framebuffer's
// colour buffer.
func (c *Context) colorBits() [4]int {
	if c.drawFB == nil {
		if c.dfb.Color == nil {
			return [4]int{}
		}
		return c.dfb.Color.Template().Format.ColorBits()
	}
	a := c.drawFB.att[attColor]
	res, _, _, color, _, _ := a.image()
	if res == nil || !color {
		return [4]int{}
	}
	return res.Template().Format.ColorBits()
}

// implReadFormat is IMPLEMENTATION_COLOR_READ_FORMAT/TYPE: the colour
// buffer's own layout for the 16-bit formats (as Mesa reports them),
// RGBA/UNSIGNED_BYTE otherwise.
func (c *Context) implReadFormat() (format, ty gl.Enum) {
	var f pipe.Format
	if c.drawFB == nil {
		if c.dfb.Color != nil {
			f = c.dfb.Color.Template().Format
		}
	} else if res, _, _, color, _, _ := c.drawFB.att[attColor].image(); res != nil && color {
		f = res.Template().Format
	}
	switch f {
	case pipe.FormatRGB565:
		return gl.RGB, gl.UNSIGNED_SHORT_5_6_5
	case pipe.FormatRGBA4:
		return gl.RGBA, gl.UNSIGNED_SHORT_4_4_4_4
	case pipe.FormatRGB5A1:
		return gl.RGBA, gl.UNSIGNED_SHORT_5_5_5_1
	}
	return gl.RGBA, gl.UNSIGNED_BYTE
}

// readPixelsPacked is ReadPixels in the implementation read format of a
// 16-bit colour buffer: its pixels exactly as stored.
func (c *Context) readPixelsPacked(dst []byte, x, y, width, height int, ty gl.Enum) {
	if width < 0 || height < 0 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	stride, ok := c.readPixelsDest(dst, width, height, 2)
	if !ok {
		return
	}
	f := pipe.FormatRGB565
	switch ty {
	case gl.UNSIGNED_SHORT_4_4_4_4:
		f = pipe.FormatRGBA4
	case gl.UNSIGNED_SHORT_5_5_5_1:
		f = pipe.FormatRGB5A1
	}
	px := c.readFramebufferRGBA(x, y, width, height) // exact expansions of the stored levels
	for row := 0; row < height; row++ {
		f.FromRGBA8(dst[row*stride:], px[row*width*4:], width)
	}
}
