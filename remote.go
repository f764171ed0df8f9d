package tilegpu

import (
	"errors"
	"image"

	"github.com/tilegpu/tilegpu/cmdbuf"
	"github.com/tilegpu/tilegpu/gl"
)

// Remote is a GL ES 2.0 context on a tilegpu service (`tilegpu serve`,
// package cmdbuf): every GL call is encoded into a command buffer that the
// service decodes, validates and runs on the GPU it shares among its
// clients.
type Remote struct {
	c *cmdbuf.Client
}

// Dial connects to the service at addr — "unix:PATH" (shared memory on this
// host) or "tcp:HOST:PORT" — and creates a context whose default
// framebuffer is cfg.Width×cfg.Height. The other Config fields describe a
// GPU, which the service owns, and must be zero.
func Dial(addr string, cfg Config) (*Remote, error) {
	if cfg.Cores != 0 || cfg.MemorySize != 0 || cfg.JobTimeout != 0 || cfg.Capture != nil {
		return nil, errors.New("tilegpu: Dial: Cores, MemorySize, JobTimeout and Capture belong to the service (tilegpu serve flags)")
	}
	t, err := cmdbuf.Dial(addr)
	if err != nil {
		return nil, err
	}
	c, err := cmdbuf.NewClient(t, cmdbuf.Options{Width: cfg.Width, Height: cfg.Height})
	if err != nil {
		t.Close()
		return nil, err
	}
	return &Remote{c: c}, nil
}

// GL returns the GL ES 2.0 context.
func (r *Remote) GL() gl.Context { return r.c }

// Image reads the default framebuffer after all queued rendering, top row first.
func (r *Remote) Image() (*image.NRGBA, error) { return r.c.Image() }

// Err is nil while the context is usable and wraps cmdbuf.ErrContextLost
// (with the service's reason) once the service has dropped it.
func (r *Remote) Err() error { return r.c.Err() }

// Close disconnects; the service releases everything the context held.
func (r *Remote) Close() error { return r.c.Close() }
