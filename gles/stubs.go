package gles

import "github.com/tilegpu/tilegpu/gl"

// Entry points of gl.Context that this implementation does not provide.
// Each records GL_INVALID_OPERATION (or the error ES 2.0 requires for its
// arguments first) so a caller can tell the call had no effect.

// BlitFramebuffer (gl.Context3, GL ES 3.0) is not implemented: it records
// GL_INVALID_OPERATION.
func (c *Context) BlitFramebuffer(srcX0, srcY0, srcX1, srcY1, dstX0, dstY0, dstX1, dstY1 int, mask uint, filter gl.Enum) {
	c.recordError(gl.INVALID_OPERATION)
}
