package gles

import (
	"errors"

	"github.com/tilegpu/tilegpu/pipe"
)

// objects is the part of a context's state that EGL share groups share
// (ES 2.0 appendix C): the name counter and the buffer, texture, shader,
// program and renderbuffer objects. Framebuffer objects stay per context
// (ES 3.0 made that explicit; no ES 2.0 program depends on sharing them).
// Contexts of one share group must draw through one pipe.Screen, and the
// caller serialises their calls (the C ABI holds one lock per display).
type objects struct {
	nextName uint32
	buffers  map[uint32]*buffer
	textures map[uint32]*texture
	shaders  map[uint32]*shader
	programs map[uint32]*program
	rbs      map[uint32]*renderbuffer
	refs     int // contexts using these objects
}

func newObjects() *objects {
	return &objects{
		nextName: 1,
		buffers:  map[uint32]*buffer{},
		textures: map[uint32]*texture{},
		shaders:  map[uint32]*shader{},
		programs: map[uint32]*program{},
		rbs:      map[uint32]*renderbuffer{},
		refs:     1,
	}
}

// unref drops one context's reference and reports whether it was the last.
func (o *objects) unref() bool {
	o.refs--
	return o.refs <= 0
}

// releaseShared frees the shared objects' driver resources (the last
// context of a share group is being destroyed).
func (c *Context) releaseShared() {
	for _, b := range c.buffers {
		b.release(c)
	}
	for _, t := range c.textures {
		t.release(c)
	}
	for _, r := range c.rbs {
		r.release(c)
	}
	for _, p := range c.programs {
		p.release(c)
	}
}

// NewShared creates a context like New that shares share's buffers,
// textures, shaders, programs and renderbuffers (an EGL share group);
// share may be nil. p must come from the same pipe.Screen as share's
// context. dfb may be the zero DefaultFramebuffer: a context without a
// default framebuffer (EGL_KHR_surfaceless_context), where framebuffer 0 is
// incomplete (FRAMEBUFFER_UNDEFINED_OES) until SetDefaultFramebuffer.
func NewShared(p pipe.Context, dfb DefaultFramebuffer, share *Context) (*Context, error) {
	if p == nil {
		return nil, errors.New("gles: NewShared needs a pipe context")
	}
	if share != nil && share.screen != p.Screen() {
		return nil, errors.New("gles: a share group's contexts must use one pipe.Screen")
	}
	probe := dfb
	if probe.Color == nil {
		// New requires a default framebuffer; a surfaceless context gets
		// one below, after construction.
		probe = DefaultFramebuffer{Width: 1, Height: 1, Color: surfacelessColor{}}
	}
	c, err := New(p, probe)
	if err != nil {
		return nil, err
	}
	c.dfb, c.hadSurface = DefaultFramebuffer{}, false
	c.viewport, c.scissorBox = [4]int{}, [4]int{}
	if share != nil {
		c.objects = share.objects
		c.objects.refs++
		c.nextName = max(c.nextName, 1)
	}
	if dfb.Color != nil {
		c.SetDefaultFramebuffer(dfb)
	}
	return c, nil
}

// surfacelessColor only satisfies New's argument check for a context
// created without a default framebuffer; it is never drawn to.
type surfacelessColor struct{ pipe.Resource }

// SetDefaultFramebuffer makes dfb framebuffer 0 (eglMakeCurrent with a new
// draw surface). The first surface a context gets also sets the viewport
// and scissor box to its size, as EGL specifies; the zero
// DefaultFramebuffer removes it (surfaceless).
func (c *Context) SetDefaultFramebuffer(dfb DefaultFramebuffer) {
	if dfb.Color == nil || dfb.Width < 1 || dfb.Height < 1 {
		c.dfb = DefaultFramebuffer{}
		return
	}
	first := !c.hadSurface
	c.dfb, c.hadSurface = dfb, true
	if first {
		c.viewport = [4]int{0, 0, dfb.Width, dfb.Height}
		c.scissorBox = c.viewport
	}
}

// HasDefaultFramebuffer reports whether framebuffer 0 exists.
func (c *Context) HasDefaultFramebuffer() bool { return c.dfb.Color != nil }
