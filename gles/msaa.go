package gles

import (
	"github.com/tilegpu/tilegpu/gl"
)

// Multisampling the tile-based way (hardware.md §5.2): a multisampled
// framebuffer is rendered with four samples per pixel in the tile buffer
// and resolved when each tile is stored, so its colour buffer holds one
// resolved value per pixel. That is exactly
// EXT_multisampled_render_to_texture's model (the samples are never in
// memory; the contents after a flush are the resolved image), and the
// default framebuffer of a 4-sample EGL config works the same way.

// EXT_multisampled_render_to_texture enums.
const (
	renderbufferSamplesEXT                 gl.Enum = 0x8CAB
	framebufferIncompleteMultisampleEXT    gl.Enum = 0x8D56
	maxSamplesEXT                          gl.Enum = 0x8D57
	framebufferAttachmentTextureSamplesEXT gl.Enum = 0x8D6C
)

// hwSamples is the sample count a request of n samples gets: the
// hardware has one and four (EXT_multisampled_render_to_texture: at least
// n, 0 stays single-sampled).
func hwSamples(n int) int {
	if n == 0 {
		return 0
	}
	return 4
}

// RenderbufferStorageMultisampleEXT is glRenderbufferStorageMultisampleEXT.
func (c *Context) RenderbufferStorageMultisampleEXT(target gl.Enum, samples int, internalFormat gl.Enum, width, height int) {
	if samples < 0 || samples > 4 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	c.renderbufferStorage(target, hwSamples(samples), internalFormat, width, height)
}

// FramebufferTexture2DMultisampleEXT is glFramebufferTexture2DMultisampleEXT:
// FramebufferTexture2D, the texture rendered with samples per pixel and
// resolved into it when stored.
func (c *Context) FramebufferTexture2DMultisampleEXT(target, attachment, texTarget gl.Enum, t gl.Texture, level, samples int) {
	if samples < 0 || samples > 4 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	if ai := attachmentIndex(attachment); ai != attColor && target == gl.FRAMEBUFFER && ai >= 0 {
		// The extension allows COLOR_ATTACHMENT0 only.
		c.recordError(gl.INVALID_ENUM)
		return
	}
	before := c.err
	c.FramebufferTexture2D(target, attachment, texTarget, t, level)
	if c.err != before || c.drawFB == nil {
		return
	}
	if a := &c.drawFB.att[attColor]; a.tex != nil {
		a.samples = hwSamples(samples)
	}
}

// samples is the framebuffer's sample count, and false when attachments
// disagree (FRAMEBUFFER_INCOMPLETE_MULTISAMPLE_EXT). Textures attached
// without FramebufferTexture2DMultisampleEXT have 0 samples.
func (fb *framebuffer) samples() (int, bool) {
	n := -1
	for _, a := range fb.att {
		if a.empty() {
			continue
		}
		s := a.samples
		if a.rb != nil {
			s = a.rb.samples
		}
		if n >= 0 && s != n {
			return 0, false
		}
		n = s
	}
	return max(n, 0), true
}

// drawSamples is GL_SAMPLES of the bound draw framebuffer.
func (c *Context) drawSamples() int {
	if c.drawFB == nil {
		return c.dfb.Samples
	}
	if c.drawFB.status() != gl.FRAMEBUFFER_COMPLETE {
		return 0
	}
	n, _ := c.drawFB.samples()
	return n
}
