package gles

import "github.com/tilegpu/tilegpu/gl"

// OES_required_internalformat: TexImage2D takes sized internal formats
// (RGBA8_OES, RGB565_OES, DEPTH_COMPONENT16_OES, ...) as well as the base
// formats. A sized format names its base format and the format/type
// combinations it may be specified from (the extension's table 3.3); the
// image is then stored as the unsized base format with that type would be
// — never with fewer bits than the sized format asks for (a RGBA4 image
// given as UNSIGNED_BYTE is kept as RGBA8), which the extension allows.
// DEPTH_COMPONENT32_OES belongs to the table only with OES_depth32, which
// is not offered (depth is stored with 24 bits), so it stays INVALID_VALUE.

// Sized internal formats of OES_required_internalformat without a name in
// package gl.
const (
	alpha8OES           gl.Enum = 0x803C
	luminance8OES       gl.Enum = 0x8040
	luminance8Alpha8OES gl.Enum = 0x8045
)

// sizedFormat is a sized internal format's base format and the types it
// may be specified with.
type sizedFormat struct {
	base  gl.Enum
	types []gl.Enum
}

var sizedFormats = map[gl.Enum]sizedFormat{
	alpha8OES:                {gl.ALPHA, []gl.Enum{gl.UNSIGNED_BYTE}},
	luminance8OES:            {gl.LUMINANCE, []gl.Enum{gl.UNSIGNED_BYTE}},
	luminance8Alpha8OES:      {gl.LUMINANCE_ALPHA, []gl.Enum{gl.UNSIGNED_BYTE}},
	gl.RGB8_OES:              {gl.RGB, []gl.Enum{gl.UNSIGNED_BYTE}},
	gl.RGB565:                {gl.RGB, []gl.Enum{gl.UNSIGNED_SHORT_5_6_5, gl.UNSIGNED_BYTE}},
	gl.RGBA8_OES:             {gl.RGBA, []gl.Enum{gl.UNSIGNED_BYTE}},
	gl.RGBA4:                 {gl.RGBA, []gl.Enum{gl.UNSIGNED_SHORT_4_4_4_4, gl.UNSIGNED_BYTE}},
	gl.RGB5_A1:               {gl.RGBA, []gl.Enum{gl.UNSIGNED_SHORT_5_5_5_1, gl.UNSIGNED_BYTE}},
	gl.DEPTH_COMPONENT16:     {gl.DEPTH_COMPONENT, []gl.Enum{gl.UNSIGNED_SHORT, gl.UNSIGNED_INT}},
	gl.DEPTH_COMPONENT24_OES: {gl.DEPTH_COMPONENT, []gl.Enum{gl.UNSIGNED_INT}},
	gl.DEPTH24_STENCIL8_OES:  {gl.DEPTH_STENCIL_OES, []gl.Enum{gl.UNSIGNED_INT_24_8_OES}},
}

// unsizedFormat returns the base format a sized internal format stands
// for when format and ty may specify it (ok false: not a sized format;
// match false: a sized format that format/ty may not specify, which is
// INVALID_OPERATION).
func unsizedFormat(ifmt, format, ty gl.Enum) (base gl.Enum, ok, match bool) {
	sf, ok := sizedFormats[ifmt]
	if !ok {
		return 0, false, false
	}
	if sf.base != format {
		return sf.base, true, false
	}
	for _, t := range sf.types {
		if t == ty {
			return sf.base, true, true
		}
	}
	return sf.base, true, false
}
