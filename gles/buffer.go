package gles

import (
	"github.com/tilegpu/tilegpu/gl"

	"github.com/tilegpu/tilegpu/pipe"
)

// buffer is a GL buffer object.
type buffer struct {
	name    uint32
	bound   bool // ever bound: IsBuffer is true only then (ES 2.0 §2.9)
	res     pipe.Resource
	size    int
	usage   gl.Enum
	data    []byte // CPU copy of the store: index ranges for client-side vertex arrays (native.go)
	mapping        // OES_mapbuffer (mapbuffer.go)
}

func (b *buffer) release(c *Context) {
	b.unmapDiscard()
	if b.res != nil {
		c.screen.ResourceDestroy(b.res)
		b.res = nil
	}
}

// CreateBuffer returns a new buffer name.
func (c *Context) CreateBuffer() gl.Buffer {
	n := c.genName()
	c.buffers[n] = &buffer{name: n, usage: gl.STATIC_DRAW}
	return gl.Buffer{Value: n}
}

// IsBuffer reports whether b names a buffer that has been bound.
func (c *Context) IsBuffer(b gl.Buffer) bool {
	x := c.buffers[b.Value]
	return x != nil && x.bound
}

// bufferBinding returns the binding point of a buffer target.
func (c *Context) bufferBinding(target gl.Enum) (**buffer, bool) {
	switch target {
	case gl.ARRAY_BUFFER:
		return &c.arrayBuffer, true
	case gl.ELEMENT_ARRAY_BUFFER:
		return &c.elementBuffer, true
	}
	return nil, false
}

// BindBuffer binds a buffer (creating it if the name is new) or unbinds with 0.
func (c *Context) BindBuffer(target gl.Enum, b gl.Buffer) {
	slot, ok := c.bufferBinding(target)
	if !ok {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	if b.Value == 0 {
		*slot = nil
		return
	}
	x := c.buffers[b.Value]
	if x == nil {
		x = &buffer{name: b.Value, usage: gl.STATIC_DRAW}
		c.buffers[b.Value] = x
		c.nextName = max(c.nextName, b.Value+1)
	}
	x.bound = true
	*slot = x
}

// DeleteBuffer deletes a buffer; every binding of it reverts to 0.
func (c *Context) DeleteBuffer(v gl.Buffer) {
	x := c.buffers[v.Value]
	if x == nil || v.Value == 0 {
		return
	}
	if c.arrayBuffer == x {
		c.arrayBuffer = nil
	}
	if c.elementBuffer == x {
		c.elementBuffer = nil
	}
	for i := range c.attribs {
		if c.attribs[i].buffer == x {
			c.attribs[i].buffer = nil
		}
	}
	c.detachFromVertexArrays(x) // vao.go
	x.release(c)
	delete(c.buffers, v.Value)
}

func isBufferUsage(u gl.Enum) bool {
	return u == gl.STREAM_DRAW || u == gl.STATIC_DRAW || u == gl.DYNAMIC_DRAW
}

// boundBuffer validates target and returns the bound buffer, recording errors.
func (c *Context) boundBuffer(target gl.Enum) *buffer {
	slot, ok := c.bufferBinding(target)
	if !ok {
		c.recordError(gl.INVALID_ENUM)
		return nil
	}
	if *slot == nil {
		c.recordError(gl.INVALID_OPERATION)
		return nil
	}
	return *slot
}

// BufferData replaces the bound buffer's store with a copy of src.
func (c *Context) BufferData(target gl.Enum, src []byte, usage gl.Enum) {
	c.bufferStore(target, len(src), src, usage)
}

// BufferInit replaces the bound buffer's store with size zero bytes.
func (c *Context) BufferInit(target gl.Enum, size int, usage gl.Enum) {
	if size < 0 {
		if _, ok := c.bufferBinding(target); ok && isBufferUsage(usage) {
			c.recordError(gl.INVALID_VALUE)
			return
		}
	}
	c.bufferStore(target, size, nil, usage)
}

func (c *Context) bufferStore(target gl.Enum, size int, src []byte, usage gl.Enum) {
	if _, ok := c.bufferBinding(target); !ok || !isBufferUsage(usage) {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	if size < 0 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	b := c.boundBuffer(target)
	if b == nil {
		return
	}
	b.unmapDiscard() // a new store ends the mapping of the old one
	if b.res == nil || b.size != size {
		res, err := c.screen.ResourceCreate(pipe.ResourceTemplate{Target: pipe.TargetBuffer, Width: size, Height: 1, Levels: 1,
			Bind: pipe.BindVertexBuffer | pipe.BindIndexBuffer})
		if err != nil {
			c.recordError(gl.OUT_OF_MEMORY)
			return
		}
		b.release(c)
		b.res, b.size = res, size
		b.data = make([]byte, size)
		if src == nil {
			b.usage = usage
			return
		}
	} else if src == nil {
		src = make([]byte, size)
	}
	b.usage = usage
	copy(b.data, src)
	if len(src) > 0 {
		if err := c.pipe.BufferWrite(b.res, 0, src); err != nil {
			c.recordError(gl.OUT_OF_MEMORY)
		}
	}
}

// BufferSubData writes data into the bound buffer at offset.
func (c *Context) BufferSubData(target gl.Enum, offset int, data []byte) {
	b := c.boundBuffer(target)
	if b == nil {
		return
	}
	if offset < 0 || offset+len(data) > b.size {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	if len(data) == 0 {
		return
	}
	copy(b.data[offset:], data)
	if err := c.pipe.BufferWrite(b.res, offset, data); err != nil {
		c.recordError(gl.OUT_OF_MEMORY)
	}
}

// GetBufferParameteri returns BUFFER_SIZE or BUFFER_USAGE of the bound buffer.
func (c *Context) GetBufferParameteri(target, value gl.Enum) int {
	if value == bufferMappedOES || value == bufferAccessOES {
		return c.mappingParameter(target, value) // mapbuffer.go
	}
	if _, ok := c.bufferBinding(target); !ok || (value != gl.BUFFER_SIZE && value != gl.BUFFER_USAGE) {
		c.recordError(gl.INVALID_ENUM)
		return 0
	}
	b := c.boundBuffer(target)
	if b == nil {
		return 0
	}
	if value == gl.BUFFER_SIZE {
		return b.size
	}
	return int(b.usage)
}
