package gles

import (
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/pipe"
)

// Separate depth and stencil renderbuffers (a DEPTH_COMPONENT16 and a
// STENCIL_INDEX8 attachment, ES 2.0's usual pair). The TG hardware, like
// other tile-based GPUs, keeps depth and stencil together in one Z24S8
// surface of the tile buffer, so the state tracker combines them: while
// such a framebuffer is bound it renders into a Z24S8 surface of its own,
// filled from the two renderbuffers at its first use and written back to
// both when the framebuffer is unbound, deleted or re-attached. Depth and
// stencil renderbuffers are stored as Z24S8 themselves, so the write-back
// copies whole words (each keeps the bits of its own format). The copies
// run on the CPU: a slow path that only split depth/stencil pays.

// zsCombined is the combined surface of a framebuffer with split depth
// and stencil.
type zsCombined struct {
	res            pipe.Resource
	w, h           int
	depth, stencil pipe.Resource // the sources merged into res; nil: not merged
}

// splitZS returns the depth and stencil renderbuffers of fb when they are
// two different ones.
func splitZS(fb *framebuffer) (d, s *renderbuffer, ok bool) {
	d, s = fb.att[attDepth].rb, fb.att[attStencil].rb
	if d == nil || s == nil || d == s || d.res == nil || s.res == nil {
		return nil, nil, false
	}
	return d, s, true
}

// combinedZS returns the Z24S8 surface fb renders with, merging the two
// renderbuffers into it at its first use since fb was bound.
func (c *Context) combinedZS(fb *framebuffer, d, s *renderbuffer) pipe.Resource {
	z := fb.zs
	if z != nil && z.depth == d.res && z.stencil == s.res && z.w == d.w && z.h == d.h {
		return z.res
	}
	c.writeBackZS(fb)
	if z == nil {
		z = &zsCombined{}
		fb.zs = z
	}
	if z.res == nil || z.w != d.w || z.h != d.h {
		if z.res != nil {
			c.screen.ResourceDestroy(z.res)
			z.res = nil
		}
		res, err := c.screen.ResourceCreate(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: pipe.FormatZ24S8,
			Width: d.w, Height: d.h, Levels: 1, Bind: pipe.BindDepthStencil, Samples: d.samples})
		if err != nil {
			c.recordError(gl.OUT_OF_MEMORY)
			return nil
		}
		z.res, z.w, z.h = res, d.w, d.h
	}
	n := d.w * d.h * 4
	dz, sz := make([]byte, n), make([]byte, n)
	if c.pipe.ResourceRead(d.res, 0, 0, 0, 0, d.w, d.h, dz) != nil || c.pipe.ResourceRead(s.res, 0, 0, 0, 0, d.w, d.h, sz) != nil {
		c.recordError(gl.OUT_OF_MEMORY)
		return z.res
	}
	for i := 3; i < n; i += 4 {
		dz[i] = sz[i] // little-endian: byte 3 of each word is the stencil
	}
	if c.pipe.TextureWrite(z.res, 0, 0, 0, 0, d.w, d.h, dz) != nil {
		c.recordError(gl.OUT_OF_MEMORY)
	}
	z.depth, z.stencil = d.res, s.res
	return z.res
}

// writeBackZS copies fb's combined surface back into the renderbuffers it
// was merged from, and forgets the merge (the next use merges again).
func (c *Context) writeBackZS(fb *framebuffer) {
	if fb == nil || fb.zs == nil || fb.zs.depth == nil {
		return
	}
	z := fb.zs
	buf := make([]byte, z.w*z.h*4)
	if c.pipe.ResourceRead(z.res, 0, 0, 0, 0, z.w, z.h, buf) == nil {
		for _, dst := range []pipe.Resource{z.depth, z.stencil} {
			// A source replaced (RenderbufferStorage) or freed meanwhile
			// refuses the write; its contents are undefined anyway.
			_ = c.pipe.TextureWrite(dst, 0, 0, 0, 0, z.w, z.h, buf)
		}
	}
	z.depth, z.stencil = nil, nil
}

// releaseZS frees fb's combined surface (fb deleted or context destroyed).
func (c *Context) releaseZS(fb *framebuffer) {
	if fb == nil || fb.zs == nil {
		return
	}
	c.writeBackZS(fb)
	if fb.zs.res != nil {
		c.screen.ResourceDestroy(fb.zs.res)
	}
	fb.zs = nil
}
