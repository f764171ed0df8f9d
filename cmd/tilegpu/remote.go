package main

import (
	"errors"
	"image"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/gl"
)

// drawTarget is what render and bench draw on: a private local GPU
// (tilegpu.NewContext) or a context on a `tilegpu serve` service.
type drawTarget interface {
	GL() gl.Context
	Image() (*image.NRGBA, error)
	Stats() tilegpu.Stats
	Size() (width, height int)
	Close() error
}

// remoteTarget is a context on a service; the GPU's counters belong to the
// service (shared by all its clients), so Stats reports none.
type remoteTarget struct {
	*tilegpu.Remote
	width, height int
}

func (remoteTarget) Stats() tilegpu.Stats { return tilegpu.Stats{} }

func (r remoteTarget) Size() (width, height int) { return r.width, r.height }

// openTarget creates the local context, or dials remote when it is set
// (unix:PATH or tcp:HOST:PORT).
func openTarget(remote string, cfg tilegpu.Config) (drawTarget, error) {
	if remote == "" {
		return tilegpu.NewContext(cfg)
	}
	if cfg.Cores != 0 || cfg.Capture != nil {
		return nil, errors.New("-cores and -decode apply to a local GPU; with -remote the service owns the GPU")
	}
	r, err := tilegpu.Dial(remote, tilegpu.Config{Width: cfg.Width, Height: cfg.Height})
	if err != nil {
		return nil, err
	}
	return remoteTarget{r, cfg.Width, cfg.Height}, nil
}
