package gles

import (
	"unsafe"

	"github.com/tilegpu/tilegpu/gl"
)

// ANGLE_instanced_arrays. The TG hardware has no instance counter, so an
// instanced draw is one draw per instance, each with the instanced arrays
// (divisor > 0) pointing at their element for that instance and a stride of
// 0, so every vertex of the instance reads it (sendVertexState). A draw of
// N instances therefore costs N draws; ESSL 1.00 has no gl_InstanceID, so
// nothing else distinguishes the instances. A non-instanced draw reads
// element 0 of an instanced array, as the extension specifies.

// VertexAttribDivisor sets how many instances share one element of
// attribute index's array (glVertexAttribDivisorANGLE; 0: per vertex).
func (c *Context) VertexAttribDivisor(index gl.Attrib, divisor int) {
	if int(index.Value) >= maxVertexAttribs || divisor < 0 {
		c.recordError(gl.INVALID_VALUE)
		return
	}
	c.attribs[index.Value].divisor = divisor
}

// instancedOK validates an instanced draw: INVALID_VALUE for a negative
// instance count, INVALID_OPERATION when every enabled array is instanced
// (the extension requires one array with divisor 0).
func (c *Context) instancedOK(instances int) bool {
	if instances < 0 {
		c.recordError(gl.INVALID_VALUE)
		return false
	}
	perVertex, enabled := false, false
	for i := range c.attribs {
		if c.attribs[i].enabled {
			enabled = true
			perVertex = perVertex || c.attribs[i].divisor == 0
		}
	}
	if enabled && !perVertex {
		c.recordError(gl.INVALID_OPERATION)
		return false
	}
	return true
}

// eachInstance runs draw once per instance, stopping at the first error.
func (c *Context) eachInstance(instances int, draw func()) {
	before := c.err
	defer func() { c.ext.instances, c.ext.instance = 0, 0 }()
	c.ext.instances = instances
	for i := 0; i < instances; i++ {
		c.ext.instance = i
		draw()
		if c.err != before {
			return
		}
	}
}

// DrawArraysInstanced draws count vertices from first, instances times
// (glDrawArraysInstancedANGLE).
func (c *Context) DrawArraysInstanced(mode gl.Enum, first, count, instances int) {
	if !c.instancedOK(instances) {
		return
	}
	if instances == 0 {
		c.DrawArrays(mode, first, min(count, 0)) // validates mode, first and count; draws nothing
		return
	}
	c.eachInstance(instances, func() { c.DrawArrays(mode, first, count) })
}

// DrawElementsInstanced draws count indices at offset of the element
// buffer, instances times (glDrawElementsInstancedANGLE).
func (c *Context) DrawElementsInstanced(mode gl.Enum, count int, ty gl.Enum, offset, instances int) {
	if !c.instancedOK(instances) {
		return
	}
	if instances == 0 {
		c.DrawElements(mode, min(count, 0), ty, offset)
		return
	}
	c.eachInstance(instances, func() { c.DrawElements(mode, count, ty, offset) })
}

// DrawArraysInstancedNative is DrawArraysInstanced with client-side arrays
// (the C ABI).
func (c *Context) DrawArraysInstancedNative(mode gl.Enum, first, count, instances int) {
	if !c.instancedOK(instances) {
		return
	}
	if instances == 0 {
		c.DrawArrays(mode, first, min(count, 0))
		return
	}
	c.eachInstance(instances, func() { c.DrawArraysNative(mode, first, count) })
}

// DrawElementsInstancedNative is DrawElementsInstanced with client-side
// arrays and indices (the C ABI).
func (c *Context) DrawElementsInstancedNative(mode gl.Enum, count int, ty gl.Enum, indices unsafe.Pointer, instances int) {
	if !c.instancedOK(instances) {
		return
	}
	if instances == 0 {
		c.DrawElements(mode, min(count, 0), ty, int(uintptr(indices)))
		return
	}
	c.eachInstance(instances, func() { c.DrawElementsNative(mode, count, ty, indices) })
}
