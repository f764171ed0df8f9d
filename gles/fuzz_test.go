package gles

import (
	"encoding/binary"
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// FuzzGLCalls drives the GL entry points with arbitrary arguments in
// arbitrary order: every call must either work or record a GL error, never
// panic. The bytes are read as a stream of (operation, arguments).
func FuzzGLCalls(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add([]byte{3, 0, 4, 0, 0, 0, 0, 9, 2, 2, 10, 4, 0, 0, 0, 6, 3, 12, 4, 0})
	f.Add([]byte{14, 1, 1, 1, 15, 2, 8, 8, 16, 0, 17, 1, 9, 0, 0, 4, 0})
	f.Fuzz(func(t *testing.T, data []byte) { runFuzzBody(t, data) })
}

var fuzzEnums = []gl.Enum{gl.TEXTURE_2D, gl.TEXTURE_CUBE_MAP, gl.TEXTURE_CUBE_MAP_NEGATIVE_Y, gl.ARRAY_BUFFER,
	gl.ELEMENT_ARRAY_BUFFER, gl.RGBA, gl.RGB, gl.LUMINANCE, gl.ALPHA, gl.LUMINANCE_ALPHA, gl.UNSIGNED_BYTE,
	gl.UNSIGNED_SHORT, gl.UNSIGNED_INT, gl.FLOAT, gl.TRIANGLES, gl.POINTS, gl.LINE_LOOP, gl.TRIANGLE_FAN,
	gl.FRAMEBUFFER, gl.RENDERBUFFER, gl.COLOR_ATTACHMENT0, gl.DEPTH_ATTACHMENT, gl.STENCIL_ATTACHMENT,
	gl.DEPTH_COMPONENT16, gl.DEPTH24_STENCIL8_OES, gl.RGBA4, gl.STENCIL_INDEX8, gl.NEAREST, gl.LINEAR_MIPMAP_LINEAR,
	gl.TEXTURE_MIN_FILTER, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE, gl.DEPTH_TEST, gl.BLEND, gl.SCISSOR_TEST,
	gl.STENCIL_TEST, gl.CULL_FACE, gl.UNSIGNED_SHORT_5_6_5, gl.UNSIGNED_SHORT_4_4_4_4, 0, 0xffff,
	// issue 8 formats (formats.go)
	gl.DEPTH_COMPONENT, gl.DEPTH_STENCIL_OES, gl.UNSIGNED_INT_24_8_OES, halfFloatOES, gl.RGB565, gl.RGB5_A1,
	gl.RGB8_OES, bgraEXT, bgra8EXT, gl.UNSIGNED_SHORT_5_5_5_1}

// runFuzzBody interprets data as GL calls (see FuzzGLCalls).
func runFuzzBody(t *testing.T, data []byte) {
	{
		enums := fuzzEnums
		c, _ := newTestContext(t)
		p := linkTestProgram(t, c)
		pos := 0
		next := func() int {
			if pos >= len(data) {
				return 0
			}
			pos++
			return int(data[pos-1])
		}
		enum := func() gl.Enum { return enums[next()%len(enums)] }
		small := func() int { return next()%20 - 2 }
		names := func() uint32 { return uint32(next() % 8) }
		for steps := 0; pos < len(data) && steps < 200; steps++ {
			switch next() % 28 {
			case 0:
				c.BindBuffer(enum(), gl.Buffer{Value: names()})
			case 1:
				c.BufferData(enum(), make([]byte, next()), enum())
			case 2:
				c.BufferSubData(enum(), small(), make([]byte, small()&15))
			case 3:
				c.BindTexture(enum(), gl.Texture{Value: names()})
			case 4:
				w, h := small(), small()
				n := max(w*h*4, 0)
				c.TexImage2D(enum(), small()%3, int(enum()), w, h, enum(), enum(), make([]byte, n))
			case 5:
				c.TexSubImage2D(enum(), small()%3, small(), small(), small(), small(), enum(), enum(), make([]byte, 64))
			case 6:
				c.TexParameteri(enum(), enum(), int(enum()))
			case 7:
				c.GenerateMipmap(enum())
			case 8:
				c.VertexAttribPointer(gl.Attrib{Value: uint(next() % 18)}, small(), enum(), next()&1 == 1, small(), small())
			case 9:
				c.EnableVertexAttribArray(gl.Attrib{Value: uint(next() % 18)})
			case 10:
				c.DrawArrays(enum(), small(), small())
			case 11:
				c.DrawElements(enum(), small(), enum(), small())
			case 12:
				c.Clear(gl.Enum(next()) << 8)
			case 13:
				c.Enable(enum())
			case 14:
				c.BindFramebuffer(enum(), gl.Framebuffer{Value: names()})
			case 15:
				c.BindRenderbuffer(enum(), gl.Renderbuffer{Value: names()})
				c.RenderbufferStorage(enum(), enum(), small(), small())
			case 16:
				c.FramebufferRenderbuffer(enum(), enum(), enum(), gl.Renderbuffer{Value: names()})
			case 17:
				c.FramebufferTexture2D(enum(), enum(), enum(), gl.Texture{Value: names()}, small()%2)
			case 18:
				dst := make([]byte, 256)
				c.ReadPixels(dst, small(), small(), small(), small(), enum(), enum())
			case 19:
				var buf [16]float32
				c.Uniform4fv(gl.Uniform{Value: int32(small())}, buf[:next()%17])
			case 20:
				c.Uniform1i(gl.Uniform{Value: int32(small())}, small())
			case 21:
				c.Scissor(int32(small()), int32(small()), int32(small()), int32(small()))
				c.Viewport(small(), small(), small(), small())
			case 22:
				var b [4]byte
				binary.LittleEndian.PutUint32(b[:], uint32(next()))
				c.CopyTexImage2D(enum(), small()%2, enum(), small(), small(), small(), small(), 0)
			case 23:
				c.UseProgram(p)
				c.Flush()
			case 24:
				c.DeleteTexture(gl.Texture{Value: names()})
			case 25:
				c.DeleteRenderbuffer(gl.Renderbuffer{Value: names()})
			case 26:
				c.DeleteBuffer(gl.Buffer{Value: names()})
			case 27:
				c.DeleteFramebuffer(gl.Framebuffer{Value: names()})
			}
			c.GetError()
		}
		c.Finish()
	}
}
