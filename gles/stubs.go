package gles

import "github.com/tilegpu/tilegpu/gl"

// Entry points of gl.Context that this implementation does not provide.
// Each records GL_INVALID_OPERATION (or the error ES 2.0 requires for its
// arguments first) so a caller can tell the call had no effect.

// CreateVertexArray is not implemented: vertex array objects are GL ES 3.0.
// It records GL_INVALID_OPERATION and returns the zero object.
func (c *Context) CreateVertexArray() gl.VertexArray {
	c.recordError(gl.INVALID_OPERATION)
	return gl.VertexArray{}
}

// BindVertexArray is not implemented (GL ES 3.0); GL_INVALID_OPERATION
// unless binding the zero object, which is what ES 2.0 always has.
func (c *Context) BindVertexArray(va gl.VertexArray) {
	if va.Value != 0 {
		c.recordError(gl.INVALID_OPERATION)
	}
}

// DeleteVertexArray is not implemented (GL ES 3.0); deleting the zero
// object is a no-op, anything else records GL_INVALID_OPERATION.
func (c *Context) DeleteVertexArray(va gl.VertexArray) {
	if va.Value != 0 {
		c.recordError(gl.INVALID_OPERATION)
	}
}

// BlitFramebuffer (gl.Context3, GL ES 3.0) is not implemented: it records
// GL_INVALID_OPERATION.
func (c *Context) BlitFramebuffer(srcX0, srcY0, srcX1, srcY1, dstX0, dstY0, dstX1, dstY1 int, mask uint, filter gl.Enum) {
	c.recordError(gl.INVALID_OPERATION)
}
