package main

/*
#include <stdlib.h>
#include "tg.h"
*/
import "C"

import (
	"unsafe"

	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/gles"
)

// Entry points of the GL ES 2.0 extensions gles implements beyond the core
// (GL_EXTENSIONS lists them); programs reach them with eglGetProcAddress.

// OES_vertex_array_object

//export glGenVertexArraysOES
func glGenVertexArraysOES(n C.GLsizei, p *C.GLuint) {
	gen(n, p, func(g gles.Native) uint32 { return g.CreateVertexArray().Value })
}

//export glBindVertexArrayOES
func glBindVertexArrayOES(v C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.BindVertexArray(gl.VertexArray{Value: uint32(v)})
	}
}

//export glDeleteVertexArraysOES
func glDeleteVertexArraysOES(n C.GLsizei, p *C.GLuint) {
	g := lock()
	defer unlock()
	if g == nil || negative(g, n) {
		return
	}
	for _, v := range names(n, p) {
		g.DeleteVertexArray(gl.VertexArray{Value: uint32(v)})
	}
}

//export glIsVertexArrayOES
func glIsVertexArrayOES(v C.GLuint) C.GLboolean {
	g := lock()
	defer unlock()
	if g == nil {
		return 0
	}
	return cbool(g.IsVertexArray(gl.VertexArray{Value: uint32(v)}))
}

// ANGLE_instanced_arrays

//export glVertexAttribDivisorANGLE
func glVertexAttribDivisorANGLE(index, divisor C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.VertexAttribDivisor(gl.Attrib{Value: uint(index)}, int(divisor))
	}
}

//export glDrawArraysInstancedANGLE
func glDrawArraysInstancedANGLE(mode C.GLenum, first C.GLint, count, instances C.GLsizei) {
	g := lock()
	defer unlock()
	if g != nil {
		g.DrawArraysInstancedNative(gl.Enum(mode), int(first), int(count), int(instances))
	}
}

//export glDrawElementsInstancedANGLE
func glDrawElementsInstancedANGLE(mode C.GLenum, count C.GLsizei, ty C.GLenum, indices unsafe.Pointer, instances C.GLsizei) {
	g := lock()
	defer unlock()
	if g != nil {
		g.DrawElementsInstancedNative(gl.Enum(mode), int(count), gl.Enum(ty), indices, int(instances))
	}
}

// OES_mapbuffer: the mapping is C memory (malloc), which a C program may
// keep; gles copies it into the buffer at glUnmapBufferOES.

func cAlloc(n int) unsafe.Pointer { return C.malloc(C.size_t(n)) }
func cFree(p unsafe.Pointer)      { C.free(p) }

//export glMapBufferOES
func glMapBufferOES(target, access C.GLenum) unsafe.Pointer {
	g := lock()
	defer unlock()
	if g == nil {
		return nil
	}
	return g.MapBufferNative(gl.Enum(target), gl.Enum(access), cAlloc, cFree)
}

//export glUnmapBufferOES
func glUnmapBufferOES(target C.GLenum) C.GLboolean {
	g := lock()
	defer unlock()
	if g == nil {
		return 0
	}
	return cbool(g.UnmapBuffer(gl.Enum(target)))
}

//export glGetBufferPointervOES
func glGetBufferPointervOES(target, pname C.GLenum, params *unsafe.Pointer) {
	g := lock()
	defer unlock()
	if g == nil {
		return
	}
	p := g.BufferPointer(gl.Enum(target), gl.Enum(pname))
	if params != nil {
		*params = p
	}
}

// EXT_discard_framebuffer

//export glDiscardFramebufferEXT
func glDiscardFramebufferEXT(target C.GLenum, n C.GLsizei, attachments *C.GLenum) {
	g := lock()
	defer unlock()
	if g == nil || negative(g, n) {
		return
	}
	var list []gl.Enum
	if n > 0 && attachments != nil {
		for _, a := range unsafe.Slice(attachments, int(n)) {
			list = append(list, gl.Enum(a))
		}
	}
	g.DiscardFramebuffer(gl.Enum(target), list)
}

// EXT_occlusion_query_boolean

//export glGenQueriesEXT
func glGenQueriesEXT(n C.GLsizei, p *C.GLuint) {
	g := lock()
	defer unlock()
	if g == nil || negative(g, n) {
		return
	}
	for i := range names(n, p) {
		unsafe.Slice(p, int(n))[i] = C.GLuint(g.CreateQuery())
	}
}

//export glDeleteQueriesEXT
func glDeleteQueriesEXT(n C.GLsizei, p *C.GLuint) {
	g := lock()
	defer unlock()
	if g == nil || negative(g, n) {
		return
	}
	for _, v := range names(n, p) {
		g.DeleteQuery(uint32(v))
	}
}

//export glIsQueryEXT
func glIsQueryEXT(id C.GLuint) C.GLboolean {
	g := lock()
	defer unlock()
	if g == nil {
		return 0
	}
	return cbool(g.IsQuery(uint32(id)))
}

//export glBeginQueryEXT
func glBeginQueryEXT(target C.GLenum, id C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.BeginQuery(gl.Enum(target), uint32(id))
	}
}

//export glEndQueryEXT
func glEndQueryEXT(target C.GLenum) {
	g := lock()
	defer unlock()
	if g != nil {
		g.EndQuery(gl.Enum(target))
	}
}

//export glGetQueryivEXT
func glGetQueryivEXT(target, pname C.GLenum, params *C.GLint) {
	g := lock()
	defer unlock()
	if g == nil {
		return
	}
	if v, ok := g.GetQueryiv(gl.Enum(target), gl.Enum(pname)); ok && params != nil {
		*params = C.GLint(v)
	}
}

//export glGetQueryObjectuivEXT
func glGetQueryObjectuivEXT(id C.GLuint, pname C.GLenum, params *C.GLuint) {
	g := lock()
	defer unlock()
	if g == nil {
		return
	}
	if v, ok := g.GetQueryObjectuiv(uint32(id), gl.Enum(pname)); ok && params != nil {
		*params = C.GLuint(v)
	}
}

// EXT_clip_control

//export glClipControlEXT
func glClipControlEXT(origin, depth C.GLenum) {
	g := lock()
	defer unlock()
	if g != nil {
		g.ClipControl(gl.Enum(origin), gl.Enum(depth))
	}
}
