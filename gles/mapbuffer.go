package gles

import (
	"unsafe"

	"github.com/tilegpu/tilegpu/gl"
)

// OES_mapbuffer for the C ABI: glMapBufferOES hands the application memory
// it allocated (C memory: a C program keeps the pointer), holding a copy of
// the buffer's contents; glUnmapBufferOES writes it into the buffer, which
// is when the GPU sees the writes. The buffer object keeps the pointer and
// the function that frees it, so deleting or respecifying a mapped buffer
// frees the mapping.

const (
	writeOnlyOES     gl.Enum = 0x88B9
	bufferAccessOES  gl.Enum = 0x88BB
	bufferMappedOES  gl.Enum = 0x88BC
	bufferMapPointer gl.Enum = 0x88BD // BUFFER_MAP_POINTER_OES
)

// mapping is a buffer's OES_mapbuffer state.
type mapping struct {
	mapped unsafe.Pointer       // nil: not mapped
	free   func(unsafe.Pointer) // releases mapped
}

// unmapDiscard ends a mapping without writing it back.
func (m *mapping) unmapDiscard() {
	if m.mapped != nil {
		m.free(m.mapped)
		m.mapped, m.free = nil, nil
	}
}

// MapBufferNative maps the buffer bound to target for writing
// (glMapBufferOES): alloc returns size bytes of memory that stays put
// until free is called with it. It returns nil and records an error for a
// bad target or access (INVALID_ENUM), no buffer or a buffer already mapped
// (INVALID_OPERATION), or when alloc fails (OUT_OF_MEMORY).
func (c *Context) MapBufferNative(target, access gl.Enum, alloc func(size int) unsafe.Pointer, free func(unsafe.Pointer)) unsafe.Pointer {
	if _, ok := c.bufferBinding(target); !ok || access != writeOnlyOES {
		c.recordError(gl.INVALID_ENUM)
		return nil
	}
	b := c.boundBuffer(target)
	if b == nil {
		return nil
	}
	if b.mapped != nil {
		c.recordError(gl.INVALID_OPERATION)
		return nil
	}
	p := alloc(max(b.size, 1))
	if p == nil {
		c.recordError(gl.OUT_OF_MEMORY)
		return nil
	}
	copy(unsafe.Slice((*byte)(p), b.size), b.data)
	b.mapped, b.free = p, free
	return p
}

// UnmapBuffer writes the mapping of the buffer bound to target into it and
// frees it (glUnmapBufferOES); INVALID_OPERATION when it is not mapped.
// The contents are never lost, so it reports true unless it fails.
func (c *Context) UnmapBuffer(target gl.Enum) bool {
	if _, ok := c.bufferBinding(target); !ok {
		c.recordError(gl.INVALID_ENUM)
		return false
	}
	b := c.boundBuffer(target)
	if b == nil {
		return false
	}
	if b.mapped == nil {
		c.recordError(gl.INVALID_OPERATION)
		return false
	}
	src := unsafe.Slice((*byte)(b.mapped), b.size)
	defer b.unmapDiscard()
	if b.size == 0 {
		return true
	}
	copy(b.data, src)
	if err := c.pipe.BufferWrite(b.res, 0, b.data); err != nil {
		c.recordError(gl.OUT_OF_MEMORY)
		return false
	}
	return true
}

// BufferPointer returns the mapping of the buffer bound to target
// (glGetBufferPointervOES with BUFFER_MAP_POINTER_OES; nil: not mapped).
func (c *Context) BufferPointer(target, pname gl.Enum) unsafe.Pointer {
	if _, ok := c.bufferBinding(target); !ok || pname != bufferMapPointer {
		c.recordError(gl.INVALID_ENUM)
		return nil
	}
	b := c.boundBuffer(target)
	if b == nil {
		return nil
	}
	return b.mapped
}

// mappingParameter answers GetBufferParameteri for BUFFER_MAPPED_OES and
// BUFFER_ACCESS_OES.
func (c *Context) mappingParameter(target, value gl.Enum) int {
	if _, ok := c.bufferBinding(target); !ok {
		c.recordError(gl.INVALID_ENUM)
		return 0
	}
	b := c.boundBuffer(target)
	if b == nil {
		return 0
	}
	if value == bufferAccessOES {
		return int(writeOnlyOES)
	}
	return int(glBool(b.mapped != nil))
}
