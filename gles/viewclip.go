package gles

import (
	"math"

	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/pipe"
)

// The hardware clips x and y against a guard band far outside the
// viewport (hw/clip.go) and rasterises whatever lands in the framebuffer,
// as real tile-based GPUs do; GL requires primitives clipped to the view
// volume, i.e. no fragments outside the viewport rectangle. Like Mesa's
// drivers for such hardware, the state tracker therefore scissors every
// triangle and line draw to the viewport (intersected with the GL scissor
// box when that is enabled). Lines keep half their width beyond it, wide
// points are left alone: GL draws the parts of both that stick out of the
// viewport (ES 2.0 §3.4, §3.5) — points are discarded by their centre only.

// clipsToViewport reports whether the draw being prepared is scissored to
// the viewport.
func (c *Context) clipsToViewport() bool {
	return c.clipPrim != nil && *c.clipPrim != pipe.PrimPoints
}

// drawScissor is the scissor rectangle of the draw being prepared (or of a
// clear: the GL scissor box).
func (c *Context) drawScissor() pipe.ScissorState {
	s := c.scissorBox
	r := pipe.ScissorState{MinX: s[0], MinY: s[1], MaxX: s[0] + s[2], MaxY: s[1] + s[3]}
	if !c.clipsToViewport() {
		return r
	}
	margin := 0
	if *c.clipPrim <= pipe.PrimLineStrip {
		margin = int(math.Ceil(float64(c.lineWidth) / 2))
	}
	v := c.viewport
	vr := pipe.ScissorState{MinX: v[0] - margin, MinY: v[1] - margin, MaxX: v[0] + v[2] + margin, MaxY: v[1] + v[3] + margin}
	if !c.enables[gl.SCISSOR_TEST] {
		return vr
	}
	r.MinX, r.MinY = max(r.MinX, vr.MinX), max(r.MinY, vr.MinY)
	r.MaxX, r.MaxY = min(r.MaxX, vr.MaxX), min(r.MaxY, vr.MaxY)
	if r.MaxX < r.MinX {
		r.MaxX = r.MinX
	}
	if r.MaxY < r.MinY {
		r.MaxY = r.MinY
	}
	return r
}
