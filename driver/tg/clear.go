package tg

import (
	"math"

	"github.com/tilegpu/tilegpu/pipe"
)

// ErrPartialClear is pipe.ErrPartialClear: returned by Clear for clears the
// tile buffer's whole-surface clear cannot express (scissored or
// colour-masked clears, and depth-only or stencil-only clears of a
// depth/stencil surface whose other half holds data).
var ErrPartialClear = pipe.ErrPartialClear

// Clear implements pipe.Context. A clear of whole surfaces becomes the
// job's clear values (the tile buffer starts cleared instead of loaded); if
// the job already has draws, a clear that covers every surface of the job
// discards them, otherwise the job is flushed first.
func (c *Context) Clear(buffers pipe.ClearMask, color [4]float32, depth float32, stencil uint8) error {
	if c.destroyed {
		return ErrContextDestroyed
	}
	j, err := c.currentJob()
	if err != nil {
		return err
	}
	hasColor := j.key.color.res != nil
	zs := j.key.zs.res
	if !hasColor {
		buffers &^= pipe.ClearColor
	}
	if zs == nil {
		buffers &^= pipe.ClearDepth | pipe.ClearStencil
	}
	if buffers == 0 {
		return nil
	}
	if !c.wholeSurfaceClear(buffers) {
		return ErrPartialClear
	}
	// Depth and stencil share one surface and one clear: clearing one half
	// is only possible when the other half holds nothing worth keeping.
	zsBoth := buffers&(pipe.ClearDepth|pipe.ClearStencil) == pipe.ClearDepth|pipe.ClearStencil
	if buffers&pipe.ClearDepth != 0 && !zsBoth {
		if zs.stencilWritten {
			return ErrPartialClear
		}
		buffers |= pipe.ClearStencil
		stencil = 0
	} else if buffers&pipe.ClearStencil != 0 && !zsBoth {
		// The depth half may hold anything a draw left there.
		return ErrPartialClear
	}

	full := (!hasColor || buffers&pipe.ClearColor != 0) && (zs == nil || buffers&pipe.ClearDepth != 0)
	if j.draws > 0 {
		if full {
			c.discardJob(j)
		} else if err := c.flushJob(j); err != nil {
			return err
		}
		if j, err = c.currentJob(); err != nil {
			return err
		}
	}
	if buffers&pipe.ClearColor != 0 {
		j.clearMask |= pipe.ClearColor
		j.clearColor = packClearColor(j.key.color.res, color)
	}
	if buffers&(pipe.ClearDepth|pipe.ClearStencil) != 0 {
		j.clearMask |= buffers & (pipe.ClearDepth | pipe.ClearStencil)
		d := min(max(float64(depth), 0), 1)
		j.clearDepth = uint32(math.Round(d * 0xffffff))
		j.clearStencil = stencil
		j.usesZS = true
		zs.stencilWritten = stencil != 0
	}
	return nil
}

// wholeSurfaceClear reports whether the clear covers every pixel and every
// channel of the buffers it writes.
func (c *Context) wholeSurfaceClear(buffers pipe.ClearMask) bool {
	if c.rast.s.ScissorEnable {
		s := c.scissor
		if s.MinX > 0 || s.MinY > 0 || s.MaxX < c.fb.Width || s.MaxY < c.fb.Height {
			return false
		}
	}
	if buffers&pipe.ClearColor != 0 && c.blend.s.ColorMask != [4]bool{true, true, true, true} {
		return false
	}
	if buffers&pipe.ClearStencil != 0 && c.dsa.s.Stencil[0].WriteMask != 0xff {
		return false
	}
	return true
}

// discardJob forgets a job's queued work without submitting it: a clear of
// every surface makes it invisible.
func (c *Context) discardJob(j *job) {
	j.draws, j.clearMask = 0, 0
	_ = c.flushJob(j) // a job without work is dropped, never submitted
	c.stats.JobsDropped--
}
