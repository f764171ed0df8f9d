package gles

import "github.com/tilegpu/tilegpu/gl"

// EXT_clip_control: the clip-space origin (window y flipped with
// UPPER_LEFT) and depth mode (ZERO_TO_ONE: z clipped to [0, w] and mapped
// to the depth range as n + z·(f−n)). The origin flips the viewport's y
// scale; since that flips the winding the hardware sees, the front face
// given to the driver is flipped too, so facing and culling do not depend
// on the origin (as the extension requires). The depth mode sets the
// rasterizer's ClipHalfZ (the hardware's near plane at z = 0) and the
// viewport's z scale and offset.

const (
	lowerLeftEXT        gl.Enum = 0x8CA1
	upperLeftEXT        gl.Enum = 0x8CA2
	negativeOneToOneEXT gl.Enum = 0x935E
	zeroToOneEXT        gl.Enum = 0x935F
	clipOriginEXT       gl.Enum = 0x935C
	clipDepthModeEXT    gl.Enum = 0x935D
)

// clipControl is the state of EXT_clip_control; the zero value is GL's
// default (LOWER_LEFT, NEGATIVE_ONE_TO_ONE).
type clipControl struct {
	upperLeft bool
	zeroToOne bool
}

// ClipControl is glClipControlEXT.
func (c *Context) ClipControl(origin, depth gl.Enum) {
	if (origin != lowerLeftEXT && origin != upperLeftEXT) || (depth != negativeOneToOneEXT && depth != zeroToOneEXT) {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	c.clipCtl = clipControl{upperLeft: origin == upperLeftEXT, zeroToOne: depth == zeroToOneEXT}
}

// clipControlState answers glGet for CLIP_ORIGIN_EXT and CLIP_DEPTH_MODE_EXT.
func (c *Context) clipControlState(pname gl.Enum) (gl.Enum, bool) {
	switch pname {
	case clipOriginEXT:
		if c.clipCtl.upperLeft {
			return upperLeftEXT, true
		}
		return lowerLeftEXT, true
	case clipDepthModeEXT:
		if c.clipCtl.zeroToOne {
			return zeroToOneEXT, true
		}
		return negativeOneToOneEXT, true
	}
	return 0, false
}
