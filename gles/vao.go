package gles

import (
	"unsafe"

	"github.com/tilegpu/tilegpu/gl"
)

// OES_vertex_array_object: a vertex array object holds every attribute
// array (pointer, type, enable, divisor, client pointer) and the element
// array buffer binding; current attribute values are context state, not
// part of it. Object 0 is the default array. Objects are per context (not
// shared), as the extension specifies.

const (
	vertexArrayBindingOES         gl.Enum = 0x85B5
	vertexAttribArrayDivisorANGLE gl.Enum = 0x88FE
)

// vertexArray is the saved state of a vertex array object that is not bound.
type vertexArray struct {
	attribs       [maxVertexAttribs]vertexAttrib
	client        [maxVertexAttribs]unsafe.Pointer
	elementBuffer *buffer
	used          bool // bound at least once: IsVertexArrayOES is true from then on
}

// extState is the state of the extensions in this file and instanced.go.
type extState struct {
	vaos    map[uint32]*vertexArray // generated names; the bound one holds stale state
	vao     uint32                  // bound vertex array (0: the default one)
	nextVAO uint32
	saved0  vertexArray // the default array while another is bound

	instances int // instance count of the instanced draw in progress (0: none)
	instance  int // its current instance
}

// extensionState answers glGet for the extensions' state.
func (c *Context) extensionState(pname gl.Enum) ([]float64, bool) {
	if pname == vertexArrayBindingOES {
		return []float64{float64(c.ext.vao)}, true
	}
	if v, ok := c.clipControlState(pname); ok { // clipcontrol.go
		return []float64{float64(v)}, true
	}
	return nil, false
}

// CreateVertexArray returns a new vertex array object name
// (glGenVertexArraysOES); it becomes an object when first bound.
func (c *Context) CreateVertexArray() gl.VertexArray {
	if c.ext.vaos == nil {
		c.ext.vaos = map[uint32]*vertexArray{}
	}
	c.ext.nextVAO++
	for c.ext.vaos[c.ext.nextVAO] != nil || c.ext.nextVAO == 0 {
		c.ext.nextVAO++
	}
	c.ext.vaos[c.ext.nextVAO] = &vertexArray{}
	return gl.VertexArray{Value: c.ext.nextVAO}
}

// BindVertexArray makes vertex array v current (glBindVertexArrayOES);
// INVALID_OPERATION for a name not generated or already deleted.
func (c *Context) BindVertexArray(va gl.VertexArray) {
	v := va.Value
	next := &c.ext.saved0
	if v != 0 {
		if next = c.ext.vaos[v]; next == nil {
			c.recordError(gl.INVALID_OPERATION)
			return
		}
	}
	if v == c.ext.vao {
		next.used = true
		return
	}
	// Save the bound array's state, then load v's (current values stay).
	cur := &c.ext.saved0
	if c.ext.vao != 0 {
		cur = c.ext.vaos[c.ext.vao]
	}
	cur.client = c.native.client
	cur.elementBuffer = c.elementBuffer
	for i := range c.attribs {
		cur.attribs[i] = c.attribs[i]
	}
	if !next.used && v != 0 {
		// A new object: every array disabled, as for a new context.
		for i := range next.attribs {
			next.attribs[i] = vertexAttrib{size: 4, typ: gl.FLOAT}
		}
	}
	for i := range c.attribs {
		current := c.attribs[i].current
		c.attribs[i] = next.attribs[i]
		c.attribs[i].current = current
	}
	c.native.client = next.client
	c.elementBuffer = next.elementBuffer
	next.used = true
	c.ext.vao = v
}

// DeleteVertexArray deletes vertex array v (glDeleteVertexArraysOES); the
// default array is bound when v was bound. Unknown names are ignored.
func (c *Context) DeleteVertexArray(va gl.VertexArray) {
	v := va.Value
	if v == 0 || c.ext.vaos[v] == nil {
		return
	}
	if c.ext.vao == v {
		c.BindVertexArray(gl.VertexArray{})
	}
	delete(c.ext.vaos, v)
}

// IsVertexArray reports whether v names a vertex array object (generated
// and bound at least once, not deleted).
func (c *Context) IsVertexArray(v gl.VertexArray) bool {
	x := c.ext.vaos[v.Value]
	return x != nil && x.used
}

// detachFromVertexArrays removes a deleted buffer from the vertex arrays
// that are not bound, so none keeps a freed buffer (the bound one is
// handled by DeleteBuffer). The extension would leave their bindings
// dangling until rebound; detaching is the safe reading of it.
func (c *Context) detachFromVertexArrays(b *buffer) {
	arrays := make([]*vertexArray, 0, len(c.ext.vaos)+1)
	arrays = append(arrays, &c.ext.saved0)
	for _, x := range c.ext.vaos {
		arrays = append(arrays, x)
	}
	for _, x := range arrays {
		if x.elementBuffer == b {
			x.elementBuffer = nil
		}
		for i := range x.attribs {
			if x.attribs[i].buffer == b {
				x.attribs[i].buffer = nil
			}
		}
	}
}
