package main

/*
#include "tg.h"
*/
import "C"

import (
	"github.com/tilegpu/tilegpu/gl"
)

// EXT_multisampled_render_to_texture: the framebuffer is rendered with
// four samples per pixel in the tile buffer and resolved into the
// renderbuffer or texture as tiles are stored (gles/msaa.go).

//export glRenderbufferStorageMultisampleEXT
func glRenderbufferStorageMultisampleEXT(target C.GLenum, samples C.GLsizei, internalformat C.GLenum, width, height C.GLsizei) {
	g := lock()
	defer unlock()
	if g != nil {
		g.RenderbufferStorageMultisampleEXT(gl.Enum(target), int(samples), gl.Enum(internalformat), int(width), int(height))
	}
}

//export glFramebufferTexture2DMultisampleEXT
func glFramebufferTexture2DMultisampleEXT(target, attachment, texTarget C.GLenum, t C.GLuint, level C.GLint, samples C.GLsizei) {
	g := lock()
	defer unlock()
	if g != nil {
		g.FramebufferTexture2DMultisampleEXT(gl.Enum(target), gl.Enum(attachment), gl.Enum(texTarget), gl.Texture{Value: uint32(t)}, int(level), int(samples))
	}
}
