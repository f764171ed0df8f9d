package gles

import "github.com/tilegpu/tilegpu/gl"

// Entry points of gl.Context that this implementation does not provide.
// Each records GL_INVALID_OPERATION (or the error ES 2.0 requires for its
// arguments first) so a caller can tell the call had no effect.

// CompressedTexImage2D is not implemented: no compressed formats are
// exposed (NUM_COMPRESSED_TEXTURE_FORMATS is 0), so every format is
// GL_INVALID_ENUM as ES 2.0 requires.
func (c *Context) CompressedTexImage2D(target gl.Enum, level int, internalformat gl.Enum, width, height, border int, data []byte) {
	c.recordError(gl.INVALID_ENUM)
}

// CompressedTexSubImage2D is not implemented (see CompressedTexImage2D).
func (c *Context) CompressedTexSubImage2D(target gl.Enum, level, xoffset, yoffset, width, height int, format gl.Enum, data []byte) {
	c.recordError(gl.INVALID_ENUM)
}

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
