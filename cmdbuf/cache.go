package cmdbuf

import "github.com/tilegpu/tilegpu/gl"

// The client's cache of GL state it can know without asking (as Chromium's
// GLES2Implementation keeps bindings and capabilities): a value is cached
// only once the client knows it exactly — from a query answer, or from a
// call whose outcome it can predict (a valid target or capability; GL
// leaves state unchanged on an error). Anything it cannot predict drops
// the entry, and the next query asks the service.

// esCap reports whether cap is one of GL ES 2.0's Enable capabilities.
func esCap(cap gl.Enum) bool {
	switch cap {
	case gl.BLEND, gl.CULL_FACE, gl.DEPTH_TEST, gl.DITHER, gl.POLYGON_OFFSET_FILL,
		gl.SAMPLE_ALPHA_TO_COVERAGE, gl.SAMPLE_COVERAGE, gl.SCISSOR_TEST, gl.STENCIL_TEST:
		return true
	}
	return false
}

// cachedPname reports whether GetIntegerv(pname) may be answered from the
// state cache.
func cachedPname(pname gl.Enum) bool {
	switch pname {
	case gl.ARRAY_BUFFER_BINDING, gl.ELEMENT_ARRAY_BUFFER_BINDING, gl.FRAMEBUFFER_BINDING,
		gl.RENDERBUFFER_BINDING, gl.ACTIVE_TEXTURE:
		return true
	}
	return esCap(pname)
}

func (c *Client) setKnown(pname gl.Enum, v int32) { c.known[pname] = v }

// unbindDeleted zeroes a cached binding equal to name (the object was deleted:
// GL unbinds it) — a binding not cached stays unknown.
func (c *Client) unbindDeleted(pname gl.Enum, name uint32) {
	if v, ok := c.known[pname]; ok && name != 0 && uint32(v) == name {
		c.known[pname] = 0
	}
}

// ActiveTexture selects the texture unit (cached when the unit is valid).
func (c *Client) ActiveTexture(texture gl.Enum) {
	units, ok := c.limits[gl.MAX_COMBINED_TEXTURE_IMAGE_UNITS]
	if ok && texture >= gl.TEXTURE0 && int(texture-gl.TEXTURE0) < int(units[0]) {
		c.setKnown(gl.ACTIVE_TEXTURE, int32(texture))
	} else if !ok {
		delete(c.known, gl.ACTIVE_TEXTURE)
	}
	c.cmdActiveTexture(texture)
}

// BindBuffer binds a buffer (cached for the two ES 2.0 targets).
func (c *Client) BindBuffer(target gl.Enum, b gl.Buffer) {
	switch target {
	case gl.ARRAY_BUFFER:
		c.setKnown(gl.ARRAY_BUFFER_BINDING, int32(b.Value))
	case gl.ELEMENT_ARRAY_BUFFER:
		c.setKnown(gl.ELEMENT_ARRAY_BUFFER_BINDING, int32(b.Value))
	}
	c.cmdBindBuffer(target, b)
}

// BindRenderbuffer binds a renderbuffer (cached for GL_RENDERBUFFER).
func (c *Client) BindRenderbuffer(target gl.Enum, rb gl.Renderbuffer) {
	if target == gl.RENDERBUFFER {
		c.setKnown(gl.RENDERBUFFER_BINDING, int32(rb.Value))
	}
	c.cmdBindRenderbuffer(target, rb)
}

// Enable enables a capability (cached for the ES 2.0 capabilities).
func (c *Client) Enable(cap gl.Enum) {
	if esCap(cap) {
		c.setKnown(cap, 1)
	}
	c.cmdEnable(cap)
}

// Disable disables a capability (cached for the ES 2.0 capabilities).
func (c *Client) Disable(cap gl.Enum) {
	if esCap(cap) {
		c.setKnown(cap, 0)
	}
	c.cmdDisable(cap)
}

// IsEnabled answers from the cache when it can, else asks once.
func (c *Client) IsEnabled(cap gl.Enum) bool {
	if v, ok := c.known[cap]; ok && esCap(cap) {
		return v != 0
	}
	v := isBool(c.query1(func() { c.cmdIsEnabled(cap, resultID, 0) }))
	if esCap(cap) && !c.lost {
		c.setKnown(cap, int32(b2u(v)))
	}
	return v
}
