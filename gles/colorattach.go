package gles

import "github.com/tilegpu/tilegpu/gl"

// NV_fbo_color_attachments: framebuffer objects have COLOR_ATTACHMENT0..3
// (MAX_COLOR_ATTACHMENTS_NV 4). Images attached to 1..3 take part in
// completeness (colour-renderable, same size as the others) and in every
// attachment query, but are never rendered to: without NV_draw_buffers
// (not exposed) ES 2.0's fragment colour goes to COLOR_ATTACHMENT0 only,
// so the hardware's single colour target is enough.

const (
	maxColorAttachmentsNV gl.Enum = 0x8CDF // GL_MAX_COLOR_ATTACHMENTS_NV
	colorAttachment1NV    gl.Enum = 0x8CE1 // GL_COLOR_ATTACHMENT1_NV
)

// numColorAttachments is MAX_COLOR_ATTACHMENTS_NV.
const numColorAttachments = 4

// isColorAttachment reports whether attachment index i is a colour one.
func isColorAttachment(i int) bool {
	return i == attColor || (i >= attColor1 && i <= attColor3)
}
