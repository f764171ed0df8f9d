package gles

import (
	"testing"
	"unsafe"

	"github.com/tilegpu/tilegpu/gl"
)

// Vertex array objects hold the attribute arrays and the element buffer;
// current attribute values stay context state.
func TestVertexArrayObjectState(t *testing.T) {
	c, _ := newTestContext(t)
	defer c.Destroy()
	buf := c.CreateBuffer()
	c.BindBuffer(gl.ARRAY_BUFFER, buf)
	c.BufferInit(gl.ARRAY_BUFFER, 64, gl.STATIC_DRAW)
	va := c.CreateVertexArray()
	if c.IsVertexArray(va) {
		t.Error("a generated name is a vertex array before it is bound")
	}
	c.BindVertexArray(va)
	c.VertexAttribPointer(gl.Attrib{Value: 2}, 3, gl.FLOAT, false, 0, 8)
	c.EnableVertexAttribArray(gl.Attrib{Value: 2})
	c.VertexAttribDivisor(gl.Attrib{Value: 2}, 3)
	c.VertexAttrib4f(gl.Attrib{Value: 5}, 1, 2, 3, 4)
	c.BindVertexArray(gl.VertexArray{})
	if got := c.GetVertexAttribi(gl.Attrib{Value: 2}, gl.VERTEX_ATTRIB_ARRAY_ENABLED); got != 0 {
		t.Errorf("default array: attribute 2 enabled = %d", got)
	}
	if got := c.GetVertexAttribf(gl.Attrib{Value: 5}, gl.CURRENT_VERTEX_ATTRIB); got != 1 {
		t.Errorf("current value lost across vertex arrays: %v", got)
	}
	c.BindVertexArray(va)
	for _, tc := range []struct {
		pname gl.Enum
		want  int32
	}{
		{gl.VERTEX_ATTRIB_ARRAY_ENABLED, 1},
		{gl.VERTEX_ATTRIB_ARRAY_SIZE, 3},
		{gl.VERTEX_ATTRIB_ARRAY_BUFFER_BINDING, int32(buf.Value)},
		{vertexAttribArrayDivisorANGLE, 3},
	} {
		if got := c.GetVertexAttribi(gl.Attrib{Value: 2}, tc.pname); got != tc.want {
			t.Errorf("vertex array attribute 2 %#x = %d, want %d", tc.pname, got, tc.want)
		}
	}
	if got := c.GetInteger(vertexArrayBindingOES); got != int(va.Value) {
		t.Errorf("VERTEX_ARRAY_BINDING_OES %d, want %d", got, va.Value)
	}
	c.DeleteBuffer(buf)
	c.DeleteVertexArray(va)
	if got := c.GetInteger(vertexArrayBindingOES); got != 0 || c.IsVertexArray(va) {
		t.Errorf("after deleting the bound array: binding %d, IsVertexArray %v", got, c.IsVertexArray(va))
	}
	c.BindVertexArray(va)
	if e := c.GetError(); e != gl.INVALID_OPERATION {
		t.Errorf("binding a deleted vertex array: error %#x", e)
	}
}

func TestExtensionErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		call func(c *Context)
		want gl.Enum
	}{
		{"divisor of attribute 16", func(c *Context) { c.VertexAttribDivisor(gl.Attrib{Value: maxVertexAttribs}, 1) }, gl.INVALID_VALUE},
		{"negative instance count", func(c *Context) { c.DrawArraysInstanced(gl.TRIANGLES, 0, 3, -1) }, gl.INVALID_VALUE},
		{"discard on framebuffer 0 with an FBO name", func(c *Context) { c.DiscardFramebuffer(gl.FRAMEBUFFER, []gl.Enum{gl.COLOR_ATTACHMENT0}) }, gl.INVALID_ENUM},
		{"discard with a bad target", func(c *Context) { c.DiscardFramebuffer(gl.RENDERBUFFER, nil) }, gl.INVALID_ENUM},
		{"discard of framebuffer 0", func(c *Context) { c.DiscardFramebuffer(gl.FRAMEBUFFER, []gl.Enum{colorEXT, depthEXT, stencilEXT}) }, gl.NO_ERROR},
		{"blend equation MIN_EXT", func(c *Context) { c.BlendEquation(minEXT) }, gl.NO_ERROR},
		{"blend equation MAX_EXT", func(c *Context) { c.BlendEquationSeparate(gl.FUNC_ADD, maxEXT) }, gl.NO_ERROR},
		{"BGRA read with 565", func(c *Context) { c.ReadPixels(make([]byte, 8), 0, 0, 1, 1, bgraEXT, gl.UNSIGNED_SHORT_5_6_5) }, gl.INVALID_OPERATION},
		{"unmap without a mapping", func(c *Context) {
			c.BindBuffer(gl.ARRAY_BUFFER, c.CreateBuffer())
			c.UnmapBuffer(gl.ARRAY_BUFFER)
		}, gl.INVALID_OPERATION},
		{"map read-only", func(c *Context) {
			c.BindBuffer(gl.ARRAY_BUFFER, c.CreateBuffer())
			c.MapBufferNative(gl.ARRAY_BUFFER, 0x88B8, nil, nil)
		}, gl.INVALID_ENUM},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestContext(t)
			defer c.Destroy()
			tc.call(c)
			if e := c.GetError(); e != tc.want {
				t.Errorf("error %#x, want %#x", e, tc.want)
			}
		})
	}
}

// A mapping holds the buffer's contents and is written back at unmap; a
// second map while mapped fails; deleting a mapped buffer frees it.
func TestMapBuffer(t *testing.T) {
	c, _ := newTestContext(t)
	defer c.Destroy()
	b := c.CreateBuffer()
	c.BindBuffer(gl.ARRAY_BUFFER, b)
	c.BufferData(gl.ARRAY_BUFFER, []byte{1, 2, 3, 4}, gl.STATIC_DRAW)
	var mem [][]byte
	freed := 0
	alloc := func(n int) unsafe.Pointer { m := make([]byte, n); mem = append(mem, m); return unsafe.Pointer(&m[0]) }
	free := func(unsafe.Pointer) { freed++ }
	p := c.MapBufferNative(gl.ARRAY_BUFFER, writeOnlyOES, alloc, free)
	if p == nil || string(mem[0]) != "\x01\x02\x03\x04" {
		t.Fatalf("mapping %v holds %v", p, mem)
	}
	if c.GetBufferParameteri(gl.ARRAY_BUFFER, bufferMappedOES) != 1 || c.BufferPointer(gl.ARRAY_BUFFER, bufferMapPointer) != p {
		t.Error("BUFFER_MAPPED_OES / map pointer not reported")
	}
	if c.MapBufferNative(gl.ARRAY_BUFFER, writeOnlyOES, alloc, free) != nil || c.GetError() != gl.INVALID_OPERATION {
		t.Error("a second mapping was allowed")
	}
	mem[0][2] = 9
	if !c.UnmapBuffer(gl.ARRAY_BUFFER) || freed != 1 {
		t.Fatalf("unmap failed or did not free (%d)", freed)
	}
	if got := c.buffers[b.Value].data; string(got) != "\x01\x02\x09\x04" {
		t.Errorf("buffer after unmap %v", got)
	}
	c.MapBufferNative(gl.ARRAY_BUFFER, writeOnlyOES, alloc, free)
	c.DeleteBuffer(b)
	if freed != 2 {
		t.Errorf("deleting a mapped buffer did not free the mapping (%d frees)", freed)
	}
}
