package gles

import "github.com/tilegpu/tilegpu/gl"

// EXT_discard_framebuffer: the application says it no longer needs the
// contents of some attachments. The arguments are validated as the
// extension specifies; the contents are then left as they are, which the
// extension allows (they become undefined). The TG driver does not yet use
// the hint to skip storing or loading those tiles.

const (
	colorEXT   gl.Enum = 0x1800
	depthEXT   gl.Enum = 0x1801
	stencilEXT gl.Enum = 0x1802
)

// DiscardFramebuffer is glDiscardFramebufferEXT.
func (c *Context) DiscardFramebuffer(target gl.Enum, attachments []gl.Enum) {
	if target != gl.FRAMEBUFFER {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	for _, a := range attachments {
		ok := false
		if c.drawFB == nil {
			ok = a == colorEXT || a == depthEXT || a == stencilEXT
		} else {
			ok = a == gl.COLOR_ATTACHMENT0 || a == gl.DEPTH_ATTACHMENT || a == gl.STENCIL_ATTACHMENT
		}
		if !ok {
			c.recordError(gl.INVALID_ENUM)
			return
		}
	}
}
