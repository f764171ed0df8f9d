package gles

import "github.com/tilegpu/tilegpu/gl"

// EXT_texture_format_BGRA8888: BGRA textures (format and internal format
// GL_BGRA_EXT with UNSIGNED_BYTE) are swizzled to RGBA8 on upload; BGRA
// renderbuffers (GL_BGRA_EXT, GL_BGRA8_EXT) are RGBA8 surfaces. Both are
// colour-renderable. The stored bits are the same eight per channel.
const (
	bgraEXT  gl.Enum = 0x80E1 // GL_BGRA_EXT
	bgra8EXT gl.Enum = 0x93A1 // GL_BGRA8_EXT
)
