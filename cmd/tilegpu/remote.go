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
	// TileProgress is tilegpu.Context's: tiles rendered so far and the
	// tile size, safe to call while Image runs; (0, 0) when unknown.
	TileProgress() (tiles uint64, tileSize int)
	Close() error
}

// remoteTarget is a context on a service; the GPU's counters belong to the
// service (shared by all its clients), so Stats reports none.
type remoteTarget struct {
	*tilegpu.Remote
	width, height int
}

func (remoteTarget) Stats() tilegpu.Stats { return tilegpu.Stats{} }

// TileProgress: the service's tile counter counts every client's tiles.
func (remoteTarget) TileProgress() (uint64, int) { return 0, 0 }

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
