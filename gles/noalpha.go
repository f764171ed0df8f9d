package gles

import (
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/pipe"
)

// Colour buffers without alpha (RGB565 and RGB8 renderbuffers, RGB
// textures, RGB565/RGB888 EGL surfaces): GL requires their alpha to read as
// one whatever was written (ES 2.0 §4.3.1, §4.1.6: a missing destination
// alpha is one). The hardware formats without alpha bits (RGB565,
// RGBX8888) already hold alpha as 1; RGB textures of other types do not,
// so, as Mesa does for RGBX formats, reads return alpha 1 and blending
// sees a destination alpha of 1.

// colorHasAlpha reports whether the bound framebuffer's colour buffer has
// an alpha channel.
func (c *Context) colorHasAlpha() bool {
	if c.drawFB == nil {
		return c.dfb.Color == nil || c.dfb.Color.Template().Format.ColorBits()[3] > 0
	}
	a := c.drawFB.att[attColor]
	switch {
	case a.rb != nil:
		return a.rb.format != gl.RGB565 && a.rb.format != gl.RGB8_OES
	case a.tex != nil:
		lv := a.tex.levels[a.face]
		return len(lv) == 0 || lv[0].format != gl.RGB
	}
	return true
}

// dstAlphaOne rewrites blend factors that read the destination alpha for
// a colour buffer whose alpha is one.
func dstAlphaOne(f pipe.BlendFactor) pipe.BlendFactor {
	switch f {
	case pipe.FactorDstAlpha:
		return pipe.FactorOne
	case pipe.FactorOneMinusDstAlpha:
		return pipe.FactorZero
	}
	return f
}
