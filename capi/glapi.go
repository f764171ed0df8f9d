package main

/*
#include "tg.h"
*/
import "C"

import (
	"unsafe"

	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/gles"
)

// Every GL ES 2.0 entry point: lock the display, find the calling thread's
// current context (none: the call is ignored, as GL specifies), convert C
// arguments to gles.Native's and call it. Pointer arguments are C memory;
// the sizes they stand for come from gles (PixelDataSize, StateSize, ...).

func cbool(b bool) C.GLboolean {
	if b {
		return 1
	}
	return 0
}

// cstr reads a NUL-terminated C string (nil: "").
func cstr(p *C.GLchar) string {
	if p == nil {
		return ""
	}
	return C.GoString((*C.char)(unsafe.Pointer(p)))
}

// putString copies s into the caller's buffer of bufSize bytes, NUL
// terminated and truncated as GL specifies; length (may be nil) gets the
// number of characters written without the NUL.
func putString(s string, bufSize C.GLsizei, length *C.GLsizei, dst *C.GLchar) {
	n := 0
	if bufSize > 0 && dst != nil {
		n = min(len(s), int(bufSize)-1)
		out := unsafe.Slice((*byte)(unsafe.Pointer(dst)), n+1)
		copy(out, s[:n])
		out[n] = 0
	}
	if length != nil {
		*length = C.GLsizei(n)
	}
}

// query runs f and reports whether it raised no GL error, keeping the
// error GetError will report (the older one wins, as GL specifies).
// Query results are written to the caller's memory only then: GL leaves
// them untouched on error.
func query(g gles.Native, f func()) bool {
	old := g.GetError()
	f()
	e := g.GetError()
	if old != gl.NO_ERROR {
		g.RecordError(old)
	} else if e != gl.NO_ERROR {
		g.RecordError(e)
	}
	return e == gl.NO_ERROR
}

func negative(g gles.Native, n C.GLsizei) bool {
	if n < 0 {
		g.RecordError(gl.INVALID_VALUE)
		return true
	}
	return false
}

//export glActiveTexture
func glActiveTexture(texture C.GLenum) {
	g := lock()
	defer unlock()
	if g != nil {
		g.ActiveTexture(gl.Enum(texture))
	}
}

//export glAttachShader
func glAttachShader(program, shader C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.AttachShader(gl.Program{Init: true, Value: uint32(program)}, gl.Shader{Value: uint32(shader)})
	}
}

//export glBindAttribLocation
func glBindAttribLocation(program, index C.GLuint, name *C.GLchar) {
	g := lock()
	defer unlock()
	if g != nil {
		g.BindAttribLocation(prog(program), gl.Attrib{Value: uint(index)}, cstr(name))
	}
}

func prog(p C.GLuint) gl.Program { return gl.Program{Init: true, Value: uint32(p)} }

//export glBindBuffer
func glBindBuffer(target C.GLenum, buffer C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.BindBuffer(gl.Enum(target), gl.Buffer{Value: uint32(buffer)})
	}
}

//export glBindFramebuffer
func glBindFramebuffer(target C.GLenum, fb C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.BindFramebuffer(gl.Enum(target), gl.Framebuffer{Value: uint32(fb)})
	}
}

//export glBindRenderbuffer
func glBindRenderbuffer(target C.GLenum, rb C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.BindRenderbuffer(gl.Enum(target), gl.Renderbuffer{Value: uint32(rb)})
	}
}

//export glBindTexture
func glBindTexture(target C.GLenum, t C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.BindTexture(gl.Enum(target), gl.Texture{Value: uint32(t)})
	}
}

//export glBlendColor
func glBlendColor(r, gr, b, a C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil {
		g.BlendColor(float32(r), float32(gr), float32(b), float32(a))
	}
}

//export glBlendEquation
func glBlendEquation(mode C.GLenum) {
	g := lock()
	defer unlock()
	if g != nil {
		g.BlendEquation(gl.Enum(mode))
	}
}

//export glBlendEquationSeparate
func glBlendEquationSeparate(rgb, alpha C.GLenum) {
	g := lock()
	defer unlock()
	if g != nil {
		g.BlendEquationSeparate(gl.Enum(rgb), gl.Enum(alpha))
	}
}

//export glBlendFunc
func glBlendFunc(s, d C.GLenum) {
	g := lock()
	defer unlock()
	if g != nil {
		g.BlendFunc(gl.Enum(s), gl.Enum(d))
	}
}

//export glBlendFuncSeparate
func glBlendFuncSeparate(sRGB, dRGB, sA, dA C.GLenum) {
	g := lock()
	defer unlock()
	if g != nil {
		g.BlendFuncSeparate(gl.Enum(sRGB), gl.Enum(dRGB), gl.Enum(sA), gl.Enum(dA))
	}
}

//export glBufferData
func glBufferData(target C.GLenum, size C.GLsizeiptr, data unsafe.Pointer, usage C.GLenum) {
	g := lock()
	defer unlock()
	if g == nil {
		return
	}
	if data == nil || size <= 0 {
		g.BufferInit(gl.Enum(target), int(size), gl.Enum(usage))
		return
	}
	g.BufferData(gl.Enum(target), unsafe.Slice((*byte)(data), int(size)), gl.Enum(usage))
}

//export glBufferSubData
func glBufferSubData(target C.GLenum, offset C.GLintptr, size C.GLsizeiptr, data unsafe.Pointer) {
	g := lock()
	defer unlock()
	if g == nil {
		return
	}
	g.BufferSubDataNative(gl.Enum(target), int(offset), int(size), data)
}

//export glCheckFramebufferStatus
func glCheckFramebufferStatus(target C.GLenum) C.GLenum {
	g := lock()
	defer unlock()
	if g == nil {
		return 0
	}
	return C.GLenum(g.CheckFramebufferStatus(gl.Enum(target)))
}

//export glClear
func glClear(mask C.GLbitfield) {
	g := lock()
	defer unlock()
	if g != nil {
		g.Clear(gl.Enum(mask))
	}
}

//export glClearColor
func glClearColor(r, gr, b, a C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil {
		g.ClearColor(float32(r), float32(gr), float32(b), float32(a))
	}
}

//export glClearDepthf
func glClearDepthf(d C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil {
		g.ClearDepthf(float32(d))
	}
}

//export glClearStencil
func glClearStencil(s C.GLint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.ClearStencil(int(s))
	}
}

//export glColorMask
func glColorMask(r, gr, b, a C.GLboolean) {
	g := lock()
	defer unlock()
	if g != nil {
		g.ColorMask(r != 0, gr != 0, b != 0, a != 0)
	}
}

//export glCompileShader
func glCompileShader(shader C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.CompileShader(gl.Shader{Value: uint32(shader)})
	}
}

// maxCompressedImage bounds the zeros compressedData allocates: the
// largest compressed image (4096×4096 at 8 bytes per 4×4 block) is 8 MiB.
const maxCompressedImage = 16 << 20

// compressedData is the imageSize bytes at data; a NULL data specifies an
// image of undefined contents, given as zeros of the size the application
// declared (so the size is still checked against the format). ok is false
// (INVALID_VALUE recorded) for a NULL data larger than any image.
func compressedData(g *gles.Context, data unsafe.Pointer, imageSize C.GLsizei) (b []byte, ok bool) {
	if data != nil {
		return unsafe.Slice((*byte)(data), int(imageSize)), true
	}
	if imageSize > maxCompressedImage {
		g.RecordError(gl.INVALID_VALUE)
		return nil, false
	}
	return make([]byte, int(imageSize)), true
}

//export glCompressedTexImage2D
func glCompressedTexImage2D(target C.GLenum, level C.GLint, internalformat C.GLenum, width, height C.GLsizei, border C.GLint, imageSize C.GLsizei, data unsafe.Pointer) {
	g := lock()
	defer unlock()
	if g == nil || negative(g, imageSize) {
		return
	}
	b, ok := compressedData(g, data, imageSize)
	if !ok {
		return
	}
	g.CompressedTexImage2D(gl.Enum(target), int(level), gl.Enum(internalformat), int(width), int(height), int(border), b)
}

//export glCompressedTexSubImage2D
func glCompressedTexSubImage2D(target C.GLenum, level, xoffset, yoffset C.GLint, width, height C.GLsizei, format C.GLenum, imageSize C.GLsizei, data unsafe.Pointer) {
	g := lock()
	defer unlock()
	if g == nil || negative(g, imageSize) {
		return
	}
	b, ok := compressedData(g, data, imageSize)
	if !ok {
		return
	}
	g.CompressedTexSubImage2D(gl.Enum(target), int(level), int(xoffset), int(yoffset), int(width), int(height), gl.Enum(format), b)
}

//export glCopyTexImage2D
func glCopyTexImage2D(target C.GLenum, level C.GLint, internalformat C.GLenum, x, y C.GLint, width, height C.GLsizei, border C.GLint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.CopyTexImage2D(gl.Enum(target), int(level), gl.Enum(internalformat), int(x), int(y), int(width), int(height), int(border))
	}
}

//export glCopyTexSubImage2D
func glCopyTexSubImage2D(target C.GLenum, level, xoffset, yoffset, x, y C.GLint, width, height C.GLsizei) {
	g := lock()
	defer unlock()
	if g != nil {
		g.CopyTexSubImage2D(gl.Enum(target), int(level), int(xoffset), int(yoffset), int(x), int(y), int(width), int(height))
	}
}

//export glCreateProgram
func glCreateProgram() C.GLuint {
	g := lock()
	defer unlock()
	if g == nil {
		return 0
	}
	return C.GLuint(g.CreateProgram().Value)
}

//export glCreateShader
func glCreateShader(ty C.GLenum) C.GLuint {
	g := lock()
	defer unlock()
	if g == nil {
		return 0
	}
	return C.GLuint(g.CreateShader(gl.Enum(ty)).Value)
}

//export glCullFace
func glCullFace(mode C.GLenum) {
	g := lock()
	defer unlock()
	if g != nil {
		g.CullFace(gl.Enum(mode))
	}
}

// names views n GLuints at p (nil when n ≤ 0 or p is NULL).
func names(n C.GLsizei, p *C.GLuint) []C.GLuint {
	if n <= 0 || p == nil {
		return nil
	}
	return unsafe.Slice(p, int(n))
}

//export glDeleteBuffers
func glDeleteBuffers(n C.GLsizei, p *C.GLuint) {
	g := lock()
	defer unlock()
	if g == nil || negative(g, n) {
		return
	}
	for _, v := range names(n, p) {
		g.DeleteBuffer(gl.Buffer{Value: uint32(v)})
	}
}

//export glDeleteFramebuffers
func glDeleteFramebuffers(n C.GLsizei, p *C.GLuint) {
	g := lock()
	defer unlock()
	if g == nil || negative(g, n) {
		return
	}
	for _, v := range names(n, p) {
		g.DeleteFramebuffer(gl.Framebuffer{Value: uint32(v)})
	}
}

//export glDeleteRenderbuffers
func glDeleteRenderbuffers(n C.GLsizei, p *C.GLuint) {
	g := lock()
	defer unlock()
	if g == nil || negative(g, n) {
		return
	}
	for _, v := range names(n, p) {
		g.DeleteRenderbuffer(gl.Renderbuffer{Value: uint32(v)})
	}
}

//export glDeleteTextures
func glDeleteTextures(n C.GLsizei, p *C.GLuint) {
	g := lock()
	defer unlock()
	if g == nil || negative(g, n) {
		return
	}
	for _, v := range names(n, p) {
		g.DeleteTexture(gl.Texture{Value: uint32(v)})
	}
}

//export glDeleteProgram
func glDeleteProgram(p C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.DeleteProgram(prog(p))
	}
}

//export glDeleteShader
func glDeleteShader(s C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.DeleteShader(gl.Shader{Value: uint32(s)})
	}
}

//export glDepthFunc
func glDepthFunc(f C.GLenum) {
	g := lock()
	defer unlock()
	if g != nil {
		g.DepthFunc(gl.Enum(f))
	}
}

//export glDepthMask
func glDepthMask(flag C.GLboolean) {
	g := lock()
	defer unlock()
	if g != nil {
		g.DepthMask(flag != 0)
	}
}

//export glDepthRangef
func glDepthRangef(n, f C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil {
		g.DepthRangef(float32(n), float32(f))
	}
}

//export glDetachShader
func glDetachShader(p, s C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.DetachShader(prog(p), gl.Shader{Value: uint32(s)})
	}
}

//export glDisable
func glDisable(c C.GLenum) {
	g := lock()
	defer unlock()
	if g != nil {
		g.Disable(gl.Enum(c))
	}
}

//export glDisableVertexAttribArray
func glDisableVertexAttribArray(i C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.DisableVertexAttribArray(gl.Attrib{Value: uint(i)})
	}
}

//export glDrawArrays
func glDrawArrays(mode C.GLenum, first C.GLint, count C.GLsizei) {
	g := lock()
	defer unlock()
	if g != nil {
		g.DrawArraysNative(gl.Enum(mode), int(first), int(count))
	}
}

//export glDrawElements
func glDrawElements(mode C.GLenum, count C.GLsizei, ty C.GLenum, indices unsafe.Pointer) {
	g := lock()
	defer unlock()
	if g != nil {
		g.DrawElementsNative(gl.Enum(mode), int(count), gl.Enum(ty), indices)
	}
}

//export glEnable
func glEnable(c C.GLenum) {
	g := lock()
	defer unlock()
	if g != nil {
		g.Enable(gl.Enum(c))
	}
}

//export glEnableVertexAttribArray
func glEnableVertexAttribArray(i C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.EnableVertexAttribArray(gl.Attrib{Value: uint(i)})
	}
}

//export glFinish
func glFinish() {
	g := lock()
	defer unlock()
	if g != nil {
		g.Finish()
	}
}

//export glFlush
func glFlush() {
	g := lock()
	defer unlock()
	if g != nil {
		g.Flush()
	}
}

//export glFramebufferRenderbuffer
func glFramebufferRenderbuffer(target, attachment, rbTarget C.GLenum, rb C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.FramebufferRenderbuffer(gl.Enum(target), gl.Enum(attachment), gl.Enum(rbTarget), gl.Renderbuffer{Value: uint32(rb)})
	}
}

//export glFramebufferTexture2D
func glFramebufferTexture2D(target, attachment, texTarget C.GLenum, t C.GLuint, level C.GLint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.FramebufferTexture2D(gl.Enum(target), gl.Enum(attachment), gl.Enum(texTarget), gl.Texture{Value: uint32(t)}, int(level))
	}
}

//export glFrontFace
func glFrontFace(mode C.GLenum) {
	g := lock()
	defer unlock()
	if g != nil {
		g.FrontFace(gl.Enum(mode))
	}
}

// gen fills n names from create (glGen*: names reserved, objects not yet
// created — gles creates them on first bind).
func gen(n C.GLsizei, p *C.GLuint, create func(g gles.Native) uint32) {
	g := lock()
	defer unlock()
	if g == nil || negative(g, n) {
		return
	}
	for i := range names(n, p) {
		unsafe.Slice(p, int(n))[i] = C.GLuint(create(g))
	}
}

//export glGenBuffers
func glGenBuffers(n C.GLsizei, p *C.GLuint) {
	gen(n, p, func(g gles.Native) uint32 { return g.CreateBuffer().Value })
}

//export glGenFramebuffers
func glGenFramebuffers(n C.GLsizei, p *C.GLuint) {
	gen(n, p, func(g gles.Native) uint32 { return g.CreateFramebuffer().Value })
}

//export glGenRenderbuffers
func glGenRenderbuffers(n C.GLsizei, p *C.GLuint) {
	gen(n, p, func(g gles.Native) uint32 { return g.CreateRenderbuffer().Value })
}

//export glGenTextures
func glGenTextures(n C.GLsizei, p *C.GLuint) {
	gen(n, p, func(g gles.Native) uint32 { return g.CreateTexture().Value })
}

//export glGenerateMipmap
func glGenerateMipmap(target C.GLenum) {
	g := lock()
	defer unlock()
	if g != nil {
		g.GenerateMipmap(gl.Enum(target))
	}
}

// activeVariable is glGetActiveAttrib / glGetActiveUniform.
func activeVariable(program, index C.GLuint, bufSize C.GLsizei, length *C.GLsizei, size *C.GLint, ty *C.GLenum, name *C.GLchar,
	get func(g gles.Native, p gl.Program, i uint32) (string, int, gl.Enum)) {
	g := lock()
	defer unlock()
	if g == nil || negative(g, bufSize) {
		return
	}
	var n string
	var sz int
	var t gl.Enum
	if !query(g, func() { n, sz, t = get(g, prog(program), uint32(index)) }) {
		return
	}
	putString(n, bufSize, length, name)
	if size != nil {
		*size = C.GLint(sz)
	}
	if ty != nil {
		*ty = C.GLenum(t)
	}
}

//export glGetActiveAttrib
func glGetActiveAttrib(program, index C.GLuint, bufSize C.GLsizei, length *C.GLsizei, size *C.GLint, ty *C.GLenum, name *C.GLchar) {
	activeVariable(program, index, bufSize, length, size, ty, name, func(g gles.Native, p gl.Program, i uint32) (string, int, gl.Enum) {
		return g.GetActiveAttrib(p, i)
	})
}

//export glGetActiveUniform
func glGetActiveUniform(program, index C.GLuint, bufSize C.GLsizei, length *C.GLsizei, size *C.GLint, ty *C.GLenum, name *C.GLchar) {
	activeVariable(program, index, bufSize, length, size, ty, name, func(g gles.Native, p gl.Program, i uint32) (string, int, gl.Enum) {
		return g.GetActiveUniform(p, i)
	})
}

//export glGetAttachedShaders
func glGetAttachedShaders(program C.GLuint, maxCount C.GLsizei, count *C.GLsizei, shaders *C.GLuint) {
	g := lock()
	defer unlock()
	if g == nil || negative(g, maxCount) {
		return
	}
	var ss []gl.Shader
	if !query(g, func() { ss = g.GetAttachedShaders(prog(program)) }) {
		return
	}
	n := min(len(ss), int(maxCount))
	out := names(C.GLsizei(n), shaders)
	for i := range out {
		out[i] = C.GLuint(ss[i].Value)
	}
	if count != nil {
		*count = C.GLsizei(len(out))
	}
}

//export glGetAttribLocation
func glGetAttribLocation(program C.GLuint, name *C.GLchar) C.GLint {
	g := lock()
	defer unlock()
	if g == nil {
		return -1
	}
	a := g.GetAttribLocation(prog(program), cstr(name))
	return C.GLint(int32(a.Value))
}

//export glGetBooleanv
func glGetBooleanv(pname C.GLenum, data *C.GLboolean) {
	g := lock()
	defer unlock()
	if g == nil {
		return
	}
	n := g.StateSize(gl.Enum(pname))
	v := make([]bool, n)
	if !query(g, func() { g.GetBooleanv(v, gl.Enum(pname)) }) || data == nil {
		return
	}
	out := unsafe.Slice(data, n)
	for i := range v {
		out[i] = cbool(v[i])
	}
}

//export glGetFloatv
func glGetFloatv(pname C.GLenum, data *C.GLfloat) {
	g := lock()
	defer unlock()
	if g == nil {
		return
	}
	n := g.StateSize(gl.Enum(pname))
	v := make([]float32, n)
	if !query(g, func() { g.GetFloatv(v, gl.Enum(pname)) }) || data == nil {
		return
	}
	out := unsafe.Slice(data, n)
	for i := range v {
		out[i] = C.GLfloat(v[i])
	}
}

//export glGetIntegerv
func glGetIntegerv(pname C.GLenum, data *C.GLint) {
	g := lock()
	defer unlock()
	if g == nil {
		return
	}
	n := g.StateSize(gl.Enum(pname))
	v := make([]int32, n)
	if !query(g, func() { g.GetIntegerv(v, gl.Enum(pname)) }) || data == nil {
		return
	}
	out := unsafe.Slice(data, n)
	for i := range v {
		out[i] = C.GLint(v[i])
	}
}

// getInt is the glGet*iv shape that writes one integer.
func getInt(params *C.GLint, f func(g gles.Native) int) {
	g := lock()
	defer unlock()
	if g == nil {
		return
	}
	var v int
	if query(g, func() { v = f(g) }) && params != nil {
		*params = C.GLint(v)
	}
}

//export glGetBufferParameteriv
func glGetBufferParameteriv(target, pname C.GLenum, params *C.GLint) {
	getInt(params, func(g gles.Native) int { return g.GetBufferParameteri(gl.Enum(target), gl.Enum(pname)) })
}

//export glGetError
func glGetError() C.GLenum {
	g := lock()
	defer unlock()
	if g == nil {
		return 0
	}
	return C.GLenum(g.GetError())
}

//export glGetFramebufferAttachmentParameteriv
func glGetFramebufferAttachmentParameteriv(target, attachment, pname C.GLenum, params *C.GLint) {
	getInt(params, func(g gles.Native) int {
		return g.GetFramebufferAttachmentParameteri(gl.Enum(target), gl.Enum(attachment), gl.Enum(pname))
	})
}

//export glGetProgramiv
func glGetProgramiv(program C.GLuint, pname C.GLenum, params *C.GLint) {
	getInt(params, func(g gles.Native) int { return g.GetProgrami(prog(program), gl.Enum(pname)) })
}

//export glGetProgramInfoLog
func glGetProgramInfoLog(program C.GLuint, bufSize C.GLsizei, length *C.GLsizei, log *C.GLchar) {
	g := lock()
	defer unlock()
	if g == nil || negative(g, bufSize) {
		return
	}
	var s string
	if query(g, func() { s = g.GetProgramInfoLog(prog(program)) }) {
		putString(s, bufSize, length, log)
	}
}

//export glGetRenderbufferParameteriv
func glGetRenderbufferParameteriv(target, pname C.GLenum, params *C.GLint) {
	getInt(params, func(g gles.Native) int { return g.GetRenderbufferParameteri(gl.Enum(target), gl.Enum(pname)) })
}

//export glGetShaderiv
func glGetShaderiv(shader C.GLuint, pname C.GLenum, params *C.GLint) {
	getInt(params, func(g gles.Native) int { return g.GetShaderi(gl.Shader{Value: uint32(shader)}, gl.Enum(pname)) })
}

//export glGetShaderInfoLog
func glGetShaderInfoLog(shader C.GLuint, bufSize C.GLsizei, length *C.GLsizei, log *C.GLchar) {
	g := lock()
	defer unlock()
	if g == nil || negative(g, bufSize) {
		return
	}
	var s string
	if query(g, func() { s = g.GetShaderInfoLog(gl.Shader{Value: uint32(shader)}) }) {
		putString(s, bufSize, length, log)
	}
}

//export glGetShaderPrecisionFormat
func glGetShaderPrecisionFormat(shadertype, precisiontype C.GLenum, rng *C.GLint, precision *C.GLint) {
	g := lock()
	defer unlock()
	if g == nil {
		return
	}
	var lo, hi, p int
	if !query(g, func() { lo, hi, p = g.GetShaderPrecisionFormat(gl.Enum(shadertype), gl.Enum(precisiontype)) }) {
		return
	}
	if rng != nil {
		r := unsafe.Slice(rng, 2)
		r[0], r[1] = C.GLint(lo), C.GLint(hi)
	}
	if precision != nil {
		*precision = C.GLint(p)
	}
}

//export glGetShaderSource
func glGetShaderSource(shader C.GLuint, bufSize C.GLsizei, length *C.GLsizei, source *C.GLchar) {
	g := lock()
	defer unlock()
	if g == nil || negative(g, bufSize) {
		return
	}
	var s string
	if query(g, func() { s = g.GetShaderSource(gl.Shader{Value: uint32(shader)}) }) {
		putString(s, bufSize, length, source)
	}
}

//export glGetString
func glGetString(name C.GLenum) *C.GLubyte {
	g := lock()
	defer unlock()
	if g == nil {
		return nil
	}
	s := g.GetString(gl.Enum(name))
	if s == "" {
		return nil
	}
	return (*C.GLubyte)(unsafe.Pointer(internString(s)))
}

//export glGetTexParameterfv
func glGetTexParameterfv(target, pname C.GLenum, params *C.GLfloat) {
	g := lock()
	defer unlock()
	if g == nil {
		return
	}
	var v [1]float32
	if query(g, func() { g.GetTexParameterfv(v[:], gl.Enum(target), gl.Enum(pname)) }) && params != nil {
		*params = C.GLfloat(v[0])
	}
}

//export glGetTexParameteriv
func glGetTexParameteriv(target, pname C.GLenum, params *C.GLint) {
	g := lock()
	defer unlock()
	if g == nil {
		return
	}
	var v [1]int32
	if query(g, func() { g.GetTexParameteriv(v[:], gl.Enum(target), gl.Enum(pname)) }) && params != nil {
		*params = C.GLint(v[0])
	}
}

//export glGetUniformfv
func glGetUniformfv(program C.GLuint, location C.GLint, params *C.GLfloat) {
	g := lock()
	defer unlock()
	if g == nil {
		return
	}
	n := g.UniformSize(prog(program), gl.Uniform{Value: int32(location)})
	v := make([]float32, n)
	if query(g, func() { g.GetUniformfv(v, gl.Uniform{Value: int32(location)}, prog(program)) }) && params != nil {
		out := unsafe.Slice(params, n)
		for i := range v {
			out[i] = C.GLfloat(v[i])
		}
	}
}

//export glGetUniformiv
func glGetUniformiv(program C.GLuint, location C.GLint, params *C.GLint) {
	g := lock()
	defer unlock()
	if g == nil {
		return
	}
	n := g.UniformSize(prog(program), gl.Uniform{Value: int32(location)})
	v := make([]int32, n)
	if query(g, func() { g.GetUniformiv(v, gl.Uniform{Value: int32(location)}, prog(program)) }) && params != nil {
		out := unsafe.Slice(params, n)
		for i := range v {
			out[i] = C.GLint(v[i])
		}
	}
}

//export glGetUniformLocation
func glGetUniformLocation(program C.GLuint, name *C.GLchar) C.GLint {
	g := lock()
	defer unlock()
	if g == nil {
		return -1
	}
	return C.GLint(g.GetUniformLocation(prog(program), cstr(name)).Value)
}

// attribValues is how many values glGetVertexAttrib* writes for pname.
func attribValues(pname C.GLenum) int {
	if gl.Enum(pname) == gl.CURRENT_VERTEX_ATTRIB {
		return 4
	}
	return 1
}

//export glGetVertexAttribfv
func glGetVertexAttribfv(index C.GLuint, pname C.GLenum, params *C.GLfloat) {
	g := lock()
	defer unlock()
	if g == nil {
		return
	}
	v := make([]float32, attribValues(pname))
	if query(g, func() { g.GetVertexAttribfv(v, gl.Attrib{Value: uint(index)}, gl.Enum(pname)) }) && params != nil {
		out := unsafe.Slice(params, len(v))
		for i := range v {
			out[i] = C.GLfloat(v[i])
		}
	}
}

//export glGetVertexAttribiv
func glGetVertexAttribiv(index C.GLuint, pname C.GLenum, params *C.GLint) {
	g := lock()
	defer unlock()
	if g == nil {
		return
	}
	v := make([]int32, attribValues(pname))
	if query(g, func() { g.GetVertexAttribiv(v, gl.Attrib{Value: uint(index)}, gl.Enum(pname)) }) && params != nil {
		out := unsafe.Slice(params, len(v))
		for i := range v {
			out[i] = C.GLint(v[i])
		}
	}
}

//export glGetVertexAttribPointerv
func glGetVertexAttribPointerv(index C.GLuint, pname C.GLenum, pointer *unsafe.Pointer) {
	g := lock()
	defer unlock()
	if g == nil {
		return
	}
	var p unsafe.Pointer
	if query(g, func() { p = g.GetVertexAttribPointer(gl.Attrib{Value: uint(index)}, gl.Enum(pname)) }) && pointer != nil {
		*pointer = p
	}
}

//export glHint
func glHint(target, mode C.GLenum) {
	g := lock()
	defer unlock()
	if g != nil {
		g.Hint(gl.Enum(target), gl.Enum(mode))
	}
}

// is is the glIs* shape.
func is(f func(g gles.Native) bool) C.GLboolean {
	g := lock()
	defer unlock()
	if g == nil {
		return 0
	}
	return cbool(f(g))
}

//export glIsBuffer
func glIsBuffer(v C.GLuint) C.GLboolean {
	return is(func(g gles.Native) bool { return g.IsBuffer(gl.Buffer{Value: uint32(v)}) })
}

//export glIsEnabled
func glIsEnabled(v C.GLenum) C.GLboolean {
	return is(func(g gles.Native) bool { return g.IsEnabled(gl.Enum(v)) })
}

//export glIsFramebuffer
func glIsFramebuffer(v C.GLuint) C.GLboolean {
	return is(func(g gles.Native) bool { return g.IsFramebuffer(gl.Framebuffer{Value: uint32(v)}) })
}

//export glIsProgram
func glIsProgram(v C.GLuint) C.GLboolean {
	return is(func(g gles.Native) bool { return g.IsProgram(prog(v)) })
}

//export glIsRenderbuffer
func glIsRenderbuffer(v C.GLuint) C.GLboolean {
	return is(func(g gles.Native) bool { return g.IsRenderbuffer(gl.Renderbuffer{Value: uint32(v)}) })
}

//export glIsShader
func glIsShader(v C.GLuint) C.GLboolean {
	return is(func(g gles.Native) bool { return g.IsShader(gl.Shader{Value: uint32(v)}) })
}

//export glIsTexture
func glIsTexture(v C.GLuint) C.GLboolean {
	return is(func(g gles.Native) bool { return g.IsTexture(gl.Texture{Value: uint32(v)}) })
}

//export glLineWidth
func glLineWidth(w C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil {
		g.LineWidth(float32(w))
	}
}

//export glLinkProgram
func glLinkProgram(p C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.LinkProgram(prog(p))
	}
}

//export glPixelStorei
func glPixelStorei(pname C.GLenum, param C.GLint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.PixelStorei(gl.Enum(pname), int32(param))
	}
}

//export glPolygonOffset
func glPolygonOffset(factor, units C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil {
		g.PolygonOffset(float32(factor), float32(units))
	}
}

//export glReadPixels
func glReadPixels(x, y C.GLint, width, height C.GLsizei, format, ty C.GLenum, pixels unsafe.Pointer) {
	g := lock()
	defer unlock()
	if g == nil {
		return
	}
	n := g.PixelDataSize(int(width), int(height), gl.Enum(format), gl.Enum(ty), true)
	var dst []byte
	if pixels != nil && n > 0 {
		dst = unsafe.Slice((*byte)(pixels), n)
	}
	g.ReadPixels(dst, int(x), int(y), int(width), int(height), gl.Enum(format), gl.Enum(ty))
}

//export glReleaseShaderCompiler
func glReleaseShaderCompiler() {
	g := lock()
	defer unlock()
	if g != nil {
		g.ReleaseShaderCompiler()
	}
}

//export glRenderbufferStorage
func glRenderbufferStorage(target, internalformat C.GLenum, width, height C.GLsizei) {
	g := lock()
	defer unlock()
	if g != nil {
		g.RenderbufferStorage(gl.Enum(target), gl.Enum(internalformat), int(width), int(height))
	}
}

//export glSampleCoverage
func glSampleCoverage(value C.GLfloat, invert C.GLboolean) {
	g := lock()
	defer unlock()
	if g != nil {
		g.SampleCoverage(float32(value), invert != 0)
	}
}

//export glScissor
func glScissor(x, y C.GLint, width, height C.GLsizei) {
	g := lock()
	defer unlock()
	if g != nil {
		g.Scissor(int32(x), int32(y), int32(width), int32(height))
	}
}

//export glShaderBinary
func glShaderBinary(count C.GLsizei, shaders *C.GLuint, format C.GLenum, binary unsafe.Pointer, length C.GLsizei) {
	g := lock()
	defer unlock()
	if g == nil || negative(g, count) || negative(g, length) {
		return
	}
	var ss []gl.Shader
	for _, s := range names(count, shaders) {
		ss = append(ss, gl.Shader{Value: uint32(s)})
	}
	var b []byte
	if binary != nil {
		b = unsafe.Slice((*byte)(binary), int(length))
	}
	g.ShaderBinary(ss, gl.Enum(format), b)
}

//export glShaderSource
func glShaderSource(shader C.GLuint, count C.GLsizei, strs **C.GLchar, length *C.GLint) {
	g := lock()
	defer unlock()
	if g == nil || negative(g, count) {
		return
	}
	var src []byte
	if count > 0 && strs != nil {
		ss := unsafe.Slice(strs, int(count))
		var ls []C.GLint
		if length != nil {
			ls = unsafe.Slice(length, int(count))
		}
		for i, s := range ss {
			if s == nil {
				continue
			}
			if ls != nil && ls[i] >= 0 {
				src = append(src, unsafe.Slice((*byte)(unsafe.Pointer(s)), int(ls[i]))...)
			} else {
				src = append(src, cstr(s)...)
			}
		}
	}
	g.ShaderSource(gl.Shader{Value: uint32(shader)}, string(src))
}

//export glStencilFunc
func glStencilFunc(f C.GLenum, ref C.GLint, mask C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.StencilFunc(gl.Enum(f), int(ref), uint32(mask))
	}
}

//export glStencilFuncSeparate
func glStencilFuncSeparate(face, f C.GLenum, ref C.GLint, mask C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.StencilFuncSeparate(gl.Enum(face), gl.Enum(f), int(ref), uint32(mask))
	}
}

//export glStencilMask
func glStencilMask(mask C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.StencilMask(uint32(mask))
	}
}

//export glStencilMaskSeparate
func glStencilMaskSeparate(face C.GLenum, mask C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.StencilMaskSeparate(gl.Enum(face), uint32(mask))
	}
}

//export glStencilOp
func glStencilOp(fail, zfail, zpass C.GLenum) {
	g := lock()
	defer unlock()
	if g != nil {
		g.StencilOp(gl.Enum(fail), gl.Enum(zfail), gl.Enum(zpass))
	}
}

//export glStencilOpSeparate
func glStencilOpSeparate(face, fail, zfail, zpass C.GLenum) {
	g := lock()
	defer unlock()
	if g != nil {
		g.StencilOpSeparate(gl.Enum(face), gl.Enum(fail), gl.Enum(zfail), gl.Enum(zpass))
	}
}

// pixelData views the client image a texture upload reads (nil: none).
func pixelData(g gles.Native, width, height C.GLsizei, format, ty C.GLenum, pixels unsafe.Pointer) []byte {
	if pixels == nil {
		return nil
	}
	n := g.PixelDataSize(int(width), int(height), gl.Enum(format), gl.Enum(ty), false)
	return unsafe.Slice((*byte)(pixels), n)
}

//export glTexImage2D
func glTexImage2D(target C.GLenum, level, internalformat C.GLint, width, height C.GLsizei, border C.GLint, format, ty C.GLenum, pixels unsafe.Pointer) {
	g := lock()
	defer unlock()
	if g == nil {
		return
	}
	if border != 0 {
		g.RecordError(gl.INVALID_VALUE)
		return
	}
	g.TexImage2D(gl.Enum(target), int(level), int(internalformat), int(width), int(height), gl.Enum(format), gl.Enum(ty),
		pixelData(g, width, height, format, ty, pixels))
}

//export glTexSubImage2D
func glTexSubImage2D(target C.GLenum, level, xoffset, yoffset C.GLint, width, height C.GLsizei, format, ty C.GLenum, pixels unsafe.Pointer) {
	g := lock()
	defer unlock()
	if g != nil {
		g.TexSubImage2D(gl.Enum(target), int(level), int(xoffset), int(yoffset), int(width), int(height), gl.Enum(format), gl.Enum(ty),
			pixelData(g, width, height, format, ty, pixels))
	}
}

//export glTexParameterf
func glTexParameterf(target, pname C.GLenum, param C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil {
		g.TexParameterf(gl.Enum(target), gl.Enum(pname), float32(param))
	}
}

//export glTexParameterfv
func glTexParameterfv(target, pname C.GLenum, params *C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil && params != nil {
		g.TexParameterfv(gl.Enum(target), gl.Enum(pname), []float32{float32(*params)})
	}
}

//export glTexParameteri
func glTexParameteri(target, pname C.GLenum, param C.GLint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.TexParameteri(gl.Enum(target), gl.Enum(pname), int(param))
	}
}

//export glTexParameteriv
func glTexParameteriv(target, pname C.GLenum, params *C.GLint) {
	g := lock()
	defer unlock()
	if g != nil && params != nil {
		g.TexParameteriv(gl.Enum(target), gl.Enum(pname), []int32{int32(*params)})
	}
}

func loc(l C.GLint) gl.Uniform { return gl.Uniform{Value: int32(l)} }

//export glUniform1f
func glUniform1f(l C.GLint, x C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil {
		g.Uniform1f(loc(l), float32(x))
	}
}

//export glUniform2f
func glUniform2f(l C.GLint, x, y C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil {
		g.Uniform2f(loc(l), float32(x), float32(y))
	}
}

//export glUniform3f
func glUniform3f(l C.GLint, x, y, z C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil {
		g.Uniform3f(loc(l), float32(x), float32(y), float32(z))
	}
}

//export glUniform4f
func glUniform4f(l C.GLint, x, y, z, w C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil {
		g.Uniform4f(loc(l), float32(x), float32(y), float32(z), float32(w))
	}
}

//export glUniform1i
func glUniform1i(l C.GLint, x C.GLint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.Uniform1i(loc(l), int(x))
	}
}

//export glUniform2i
func glUniform2i(l C.GLint, x, y C.GLint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.Uniform2i(loc(l), int(x), int(y))
	}
}

//export glUniform3i
func glUniform3i(l C.GLint, x, y, z C.GLint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.Uniform3i(loc(l), int32(x), int32(y), int32(z))
	}
}

//export glUniform4i
func glUniform4i(l C.GLint, x, y, z, w C.GLint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.Uniform4i(loc(l), int32(x), int32(y), int32(z), int32(w))
	}
}

// floats views count×n floats at v (Go-typed; GLfloat is float).
func floats(count C.GLsizei, n int, v *C.GLfloat) []float32 {
	if count <= 0 || v == nil {
		return []float32{}
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(v)), int(count)*n)
}

func ints(count C.GLsizei, n int, v *C.GLint) []int32 {
	if count <= 0 || v == nil {
		return []int32{}
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(v)), int(count)*n)
}

// uniformv is the glUniform*v shape.
func uniformv(count C.GLsizei, f func(g gles.Native)) {
	g := lock()
	defer unlock()
	if g != nil && !negative(g, count) {
		f(g)
	}
}

//export glUniform1fv
func glUniform1fv(l C.GLint, count C.GLsizei, v *C.GLfloat) {
	uniformv(count, func(g gles.Native) { g.Uniform1fv(loc(l), floats(count, 1, v)) })
}

//export glUniform2fv
func glUniform2fv(l C.GLint, count C.GLsizei, v *C.GLfloat) {
	uniformv(count, func(g gles.Native) { g.Uniform2fv(loc(l), floats(count, 2, v)) })
}

//export glUniform3fv
func glUniform3fv(l C.GLint, count C.GLsizei, v *C.GLfloat) {
	uniformv(count, func(g gles.Native) { g.Uniform3fv(loc(l), floats(count, 3, v)) })
}

//export glUniform4fv
func glUniform4fv(l C.GLint, count C.GLsizei, v *C.GLfloat) {
	uniformv(count, func(g gles.Native) { g.Uniform4fv(loc(l), floats(count, 4, v)) })
}

//export glUniform1iv
func glUniform1iv(l C.GLint, count C.GLsizei, v *C.GLint) {
	uniformv(count, func(g gles.Native) { g.Uniform1iv(loc(l), ints(count, 1, v)) })
}

//export glUniform2iv
func glUniform2iv(l C.GLint, count C.GLsizei, v *C.GLint) {
	uniformv(count, func(g gles.Native) { g.Uniform2iv(loc(l), ints(count, 2, v)) })
}

//export glUniform3iv
func glUniform3iv(l C.GLint, count C.GLsizei, v *C.GLint) {
	uniformv(count, func(g gles.Native) { g.Uniform3iv(loc(l), ints(count, 3, v)) })
}

//export glUniform4iv
func glUniform4iv(l C.GLint, count C.GLsizei, v *C.GLint) {
	uniformv(count, func(g gles.Native) { g.Uniform4iv(loc(l), ints(count, 4, v)) })
}

// uniformMatrix is glUniformMatrix*fv: ES 2.0 requires transpose FALSE.
func uniformMatrix(count C.GLsizei, transpose C.GLboolean, f func(g gles.Native)) {
	g := lock()
	defer unlock()
	if g == nil || negative(g, count) {
		return
	}
	if transpose != 0 {
		g.RecordError(gl.INVALID_VALUE)
		return
	}
	f(g)
}

//export glUniformMatrix2fv
func glUniformMatrix2fv(l C.GLint, count C.GLsizei, transpose C.GLboolean, v *C.GLfloat) {
	uniformMatrix(count, transpose, func(g gles.Native) { g.UniformMatrix2fv(loc(l), floats(count, 4, v)) })
}

//export glUniformMatrix3fv
func glUniformMatrix3fv(l C.GLint, count C.GLsizei, transpose C.GLboolean, v *C.GLfloat) {
	uniformMatrix(count, transpose, func(g gles.Native) { g.UniformMatrix3fv(loc(l), floats(count, 9, v)) })
}

//export glUniformMatrix4fv
func glUniformMatrix4fv(l C.GLint, count C.GLsizei, transpose C.GLboolean, v *C.GLfloat) {
	uniformMatrix(count, transpose, func(g gles.Native) { g.UniformMatrix4fv(loc(l), floats(count, 16, v)) })
}

//export glUseProgram
func glUseProgram(p C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.UseProgram(prog(p))
	}
}

//export glValidateProgram
func glValidateProgram(p C.GLuint) {
	g := lock()
	defer unlock()
	if g != nil {
		g.ValidateProgram(prog(p))
	}
}

func attr(i C.GLuint) gl.Attrib { return gl.Attrib{Value: uint(i)} }

//export glVertexAttrib1f
func glVertexAttrib1f(i C.GLuint, x C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil {
		g.VertexAttrib1f(attr(i), float32(x))
	}
}

//export glVertexAttrib2f
func glVertexAttrib2f(i C.GLuint, x, y C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil {
		g.VertexAttrib2f(attr(i), float32(x), float32(y))
	}
}

//export glVertexAttrib3f
func glVertexAttrib3f(i C.GLuint, x, y, z C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil {
		g.VertexAttrib3f(attr(i), float32(x), float32(y), float32(z))
	}
}

//export glVertexAttrib4f
func glVertexAttrib4f(i C.GLuint, x, y, z, w C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil {
		g.VertexAttrib4f(attr(i), float32(x), float32(y), float32(z), float32(w))
	}
}

//export glVertexAttrib1fv
func glVertexAttrib1fv(i C.GLuint, v *C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil && v != nil {
		g.VertexAttrib1fv(attr(i), floats(1, 1, v))
	}
}

//export glVertexAttrib2fv
func glVertexAttrib2fv(i C.GLuint, v *C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil && v != nil {
		g.VertexAttrib2fv(attr(i), floats(1, 2, v))
	}
}

//export glVertexAttrib3fv
func glVertexAttrib3fv(i C.GLuint, v *C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil && v != nil {
		g.VertexAttrib3fv(attr(i), floats(1, 3, v))
	}
}

//export glVertexAttrib4fv
func glVertexAttrib4fv(i C.GLuint, v *C.GLfloat) {
	g := lock()
	defer unlock()
	if g != nil && v != nil {
		g.VertexAttrib4fv(attr(i), floats(1, 4, v))
	}
}

//export glVertexAttribPointer
func glVertexAttribPointer(i C.GLuint, size C.GLint, ty C.GLenum, normalized C.GLboolean, stride C.GLsizei, ptr unsafe.Pointer) {
	g := lock()
	defer unlock()
	if g != nil {
		g.VertexAttribPointerNative(attr(i), int(size), gl.Enum(ty), normalized != 0, int(stride), ptr)
	}
}

//export glViewport
func glViewport(x, y C.GLint, width, height C.GLsizei) {
	g := lock()
	defer unlock()
	if g != nil {
		g.Viewport(int(x), int(y), int(width), int(height))
	}
}

// markerString reads an EXT_debug_marker string: length characters, or up
// to the NUL when length is 0.
func markerString(length C.GLsizei, marker *C.GLchar) string {
	if marker == nil || length < 0 {
		return ""
	}
	if length == 0 {
		return cstr(marker)
	}
	return string(unsafe.Slice((*byte)(unsafe.Pointer(marker)), int(length)))
}

//export glInsertEventMarkerEXT
func glInsertEventMarkerEXT(length C.GLsizei, marker *C.GLchar) {
	g := lock()
	defer unlock()
	if g != nil {
		g.InsertEventMarker(markerString(length, marker))
	}
}

//export glPushGroupMarkerEXT
func glPushGroupMarkerEXT(length C.GLsizei, marker *C.GLchar) {
	g := lock()
	defer unlock()
	if g != nil {
		g.PushGroupMarker(markerString(length, marker))
	}
}

//export glPopGroupMarkerEXT
func glPopGroupMarkerEXT() {
	g := lock()
	defer unlock()
	if g != nil {
		g.PopGroupMarker()
	}
}
