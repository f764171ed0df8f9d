package hw

import (
	"math"
	mbits "math/bits"

	"github.com/tilegpu/tilegpu/hw/qpu"
)

// Rasterisation. Window coordinates are snapped to 8-bit sub-pixel fixed
// point (1/256 pixel, as llvmpipe does); coverage is decided exactly with
// integer edge functions evaluated at pixel centres (x+0.5, y+0.5), so two
// triangles sharing an edge cover each pixel exactly once. A centre lying
// exactly on an edge belongs to the triangle when the edge is a left or a
// bottom edge in GL window coordinates (y up). That is Gallium's top-left
// rule seen through a y-up render target, which is what Mesa's llvmpipe
// applies to framebuffer objects, so edge pixels match the reference. For a
// counter-clockwise triangle a left edge runs downwards and a bottom edge
// runs left to right. Interpolation uses float64 plane equations built
// from the snapped vertices; varyings are perspective-correct (v/w and 1/w
// are affine in screen space).
//
// Coordinates are bounded by the clipper's guard band (2^20 pixels, so
// |X| < 2^29 in fixed point) which keeps every edge-function product below
// 2^59 and inside int64.

const subPixelBits = 8
const subPixelOne = 1 << subPixelBits

// winVert is a vertex in window space ready for setup.
type winVert struct {
	x, y float64 // window position (snapped)
	X, Y int64   // fixed point
	z    float64 // window depth
	iw   float64 // 1/w_clip
	vary []float32
}

// interp holds the plane equations of the primitive being rasterised.
type interp struct {
	ax, ay         float64
	z, zdx, zdy    float64
	iw, iwdx, iwdy float64
	// affine: 1/w does not vary (iwdx = iwdy = 0, iw finite and non-zero),
	// so every lane's plane value is exactly iw (iw + 0·f is iw) and its
	// reciprocal rw is computed once per primitive instead of four
	// divisions per quad (a tenth of emitQuad in the 1080p scenes).
	affine         bool
	rw             float64
	v, vdx, vdy    [maxVaryings]float64
	zoff           float64
	front          bool
	frontBit       uint32 // FRONT_FACING: 1 front, 0 back
	point          bool
	pcx, pcy, pinv float64 // point centre and 1/size
}

func (I *interp) setAffine() {
	I.affine = I.iwdx == 0 && I.iwdy == 0 && I.iw != 0 && !math.IsInf(I.iw, 0) && !math.IsNaN(I.iw)
	I.rw = 1 / I.iw
}

// rasterState is per-segment derived state.
type rasterState struct {
	// scissor ∩ tile ∩ framebuffer, window pixels, [x0,x1)×[y0,y1)
	x0, y0, x1, y1 int
	nvary          int
	// fillVary is how many varyings fillQuad interpolates: none for a
	// batch-invariant fragment program, which reads none.
	fillVary int
	flat     uint32
	earlyZ   bool
	I        interp
	verts    [4]winVert
	// clipping scratch, kept here so nothing escapes per primitive
	poly     [3]clipVert
	lineA    clipVert
	lineB    clipVert
	flatCopy [maxVaryings]float32
	// lineVary holds the varyings of a wide line's four corners (drawLine).
	lineVary [4][maxVaryings]float32
}

func (w *worker) setupRaster() {
	s := &w.st
	r := &w.ras
	r.x0, r.y0 = max(w.x0, s.clipL), max(w.y0, s.clipB)
	r.x1, r.y1 = min(w.x1, s.clipR), min(w.y1, s.clipT)
	r.nvary = w.sr.numVaryings
	r.fillVary = r.nvary
	if w.fsInvariant() {
		r.fillVary = 0
	}
	r.flat = s.flat
	w.clip.guardX = guardBandPixels / max(float32(math.Abs(float64(s.scaleX))), 1)
	w.clip.guardY = guardBandPixels / max(float32(math.Abs(float64(s.scaleY))), 1)
	w.clip.nvary = r.nvary
	w.clip.halfZ = s.clipHalfZ
	// Early Z only rejects, and only for monotonic functions without
	// stencil: a fragment failing now fails at its late test too, whatever
	// the fragments resolved in between write (same function, so they only
	// make the test stricter, and a discarded one writes nothing). So a
	// shader that discards may use it; one that writes TLB_Z may not (its
	// depth is not the interpolated one), which the program's code decides.
	// (Not with samples: earlyDepth tests pixel centres.)
	r.earlyZ = s.earlyZ && s.depthTest && !s.stencil && !w.cfg.msaa && !w.fsWritesZ() &&
		(s.depthFunc == 0 || s.depthFunc == 1 || s.depthFunc == 3 || s.depthFunc == 4 || s.depthFunc == 6)
}

// toWindow projects a clip-space position.
func (w *worker) toWindow(p *[4]float32, vary []float32, out *winVert) {
	s := &w.st
	iw := 1 / float64(p[3])
	x := float64(p[0])*iw*float64(s.scaleX) + float64(s.vpX)
	y := float64(p[1])*iw*float64(s.scaleY) + float64(s.vpY)
	out.X = int64(math.Round(x * subPixelOne))
	out.Y = int64(math.Round(y * subPixelOne))
	out.x = float64(out.X) / subPixelOne
	out.y = float64(out.Y) / subPixelOne
	out.z = float64(p[2])*iw*float64(s.zScale) + float64(s.zOffset)
	out.iw = iw
	out.vary = vary
}

func (w *worker) vertex(slot uint16) ([]float32, *[4]float32) {
	o := w.vout[int(slot)*w.vstride : int(slot+1)*w.vstride]
	return o, (*[4]float32)(o[:4])
}

func hasNaN(p *[4]float32) bool {
	return p[0] != p[0] || p[1] != p[1] || p[2] != p[2] || p[3] != p[3]
}

func (w *worker) drawPrim(p *segPrim) error {
	r := &w.ras
	if r.x0 >= r.x1 || r.y0 >= r.y1 {
		return nil
	}
	if !w.hsr.covering {
		// HSR's coverage test rasterises candidates too (hsr.go): they
		// are counted when the walk rasterises them, or as
		// render.hsr_primitives when it skips them.
		w.perf.ctr[CtrPrimitives]++
	}
	switch p.kind {
	case tilePrimTriangle:
		return w.drawTriangle(p)
	case tilePrimLine:
		return w.drawLine(p)
	default:
		return w.drawPoint(p)
	}
}

func (w *worker) drawTriangle(p *segPrim) error {
	r := &w.ras
	var o [3][]float32
	var pos [3]*[4]float32
	and, or := ^uint32(0), uint32(0)
	for k := 0; k < 3; k++ {
		o[k], pos[k] = w.vertex(p.slot[k])
		if hasNaN(pos[k]) {
			return nil
		}
		c := w.clip.outcode(pos[k])
		and &= c
		or |= c
	}
	if and != 0 {
		return nil
	}
	nv := r.nvary
	flat := o[2][5 : 5+nv] // provoking vertex: the last
	if or == 0 {
		// Window positions are computed once per vertex of the segment: in a
		// mesh each vertex is shared by about six triangles.
		var v [3]*winVert
		for k := 0; k < 3; k++ {
			slot := p.slot[k]
			v[k] = &w.win[slot]
			if w.winStamp[slot] != w.winSeg {
				w.winStamp[slot] = w.winSeg
				w.toWindow(pos[k], o[k][5:5+nv], v[k])
			}
		}
		return w.rasterTri(v[0], v[1], v[2], flat, false)
	}
	poly := &r.poly
	for k := 0; k < 3; k++ {
		poly[k].pos = *pos[k]
		copy(poly[k].v[:nv], o[k][5:5+nv])
	}
	out := w.clip.clip(poly[:], or)
	if len(out) < 3 {
		return nil
	}
	// Keep flat values: the clipper may overwrite its own buffers.
	flatCopy := &r.flatCopy
	copy(flatCopy[:nv], flat)
	w.toWindow(&out[0].pos, out[0].v[:nv], &r.verts[0])
	for k := 1; k+1 < len(out); k++ {
		w.toWindow(&out[k].pos, out[k].v[:nv], &r.verts[1])
		w.toWindow(&out[k+1].pos, out[k+1].v[:nv], &r.verts[2])
		if err := w.rasterTri(&r.verts[0], &r.verts[1], &r.verts[2], flatCopy[:nv], false); err != nil {
			return err
		}
	}
	return nil
}

// rasterTri rasterises one window-space triangle. line is set for the
// halves of a wide line: never culled, always front facing.
func (w *worker) rasterTri(a, b, c *winVert, flat []float32, line bool) error {
	s := &w.st
	r := &w.ras
	area := (b.X-a.X)*(c.Y-a.Y) - (c.X-a.X)*(b.Y-a.Y)
	if area == 0 {
		return nil
	}
	front := true
	if !line {
		front = area > 0
		if s.cfgCW {
			front = !front
		}
		if (front && !s.cfgForward) || (!front && !s.cfgReverse) {
			return nil
		}
	}
	if area < 0 {
		b, c = c, b
		area = -area
	}
	// Pixel bounds: centres px*256+128 within the vertex bounds.
	minX, maxX := min(a.X, b.X, c.X), max(a.X, b.X, c.X)
	minY, maxY := min(a.Y, b.Y, c.Y), max(a.Y, b.Y, c.Y)
	px0 := max(int(ceilDiv(minX-subPixelOne/2, subPixelOne)), r.x0)
	px1 := min(int(floorDiv(maxX-subPixelOne/2, subPixelOne))+1, r.x1)
	py0 := max(int(ceilDiv(minY-subPixelOne/2, subPixelOne)), r.y0)
	py1 := min(int(floorDiv(maxY-subPixelOne/2, subPixelOne))+1, r.y1)
	if px0 >= px1 || py0 >= py1 {
		return nil
	}

	// Edge functions, biased so "inside" is E >= 0 under the fill rule.
	var e0, e1, e2 edge
	e0.setup(b, c)
	e1.setup(c, a)
	e2.setup(a, b)
	if w.hsr.covering {
		w.cover(&e0, &e1, &e2, px0, py0, px1, py1)
		return nil
	}
	if w.cfg.msaa {
		return w.rasterTriMS(&e0, &e1, &e2, a, b, c, flat, line, front)
	}
	// The plane equations are set up when the first quad is found covered:
	// most triangles of a dense mesh cover no pixel centre at all.
	planes := false

	// Walk 2×2 quads from the even-aligned corner.
	qx0, qy0 := px0&^1, py0&^1
	if px1-px0 >= 8 && py1-py0 >= 8 && !w.g.noBlocks {
		// Large triangles go 4×4 pixels at a time: a block whose corner
		// centres are inside all three edges is inside entirely (the
		// edge functions are linear), and its four quads are emitted
		// without per-pixel tests; a block outside one edge at all four
		// corners is skipped.
		return w.rasterBlocks(&e0, &e1, &e2, a, b, c, flat, line, front, px0, py0, px1, py1)
	}
	cx := int64(qx0)*subPixelOne + subPixelOne/2
	cy := int64(qy0)*subPixelOne + subPixelOne/2
	r0, r1, r2 := e0.at(cx, cy), e1.at(cx, cy), e2.at(cx, cy)
	for y := qy0; y < py1; y += 2 {
		f0, f1, f2 := r0, r1, r2
		for x := qx0; x < px1; x += 2 {
			var mask uint16
			// lane 0 (x,y) 1 (x+1,y) 2 (x,y+1) 3 (x+1,y+1)
			if f0|f1|f2 >= 0 {
				mask |= 1
			}
			g0, g1, g2 := f0+e0.sx, f1+e1.sx, f2+e2.sx
			if g0|g1|g2 >= 0 {
				mask |= 2
			}
			if (f0+e0.sy)|(f1+e1.sy)|(f2+e2.sy) >= 0 {
				mask |= 4
			}
			if (g0+e0.sy)|(g1+e1.sy)|(g2+e2.sy) >= 0 {
				mask |= 8
			}
			if mask != 0 {
				mask &= rectMask(x, y, px0, py0, px1, py1)
				if mask != 0 {
					if !planes {
						w.setupPlanes(a, b, c, flat, line, front)
						planes = true
					}
					if err := w.emitQuad(x, y, mask); err != nil {
						return err
					}
				}
			}
			f0, f1, f2 = g0+e0.sx, g1+e1.sx, g2+e2.sx
		}
		r0, r1, r2 = r0+2*e0.sy, r1+2*e1.sy, r2+2*e2.sy
	}
	return nil
}

// rasterBlocks is rasterTri's walk for large triangles: 4×4 blocks aligned
// to even pixels, whole blocks accepted or rejected by their corner
// centres, the rest quad by quad as rasterTri does. The edge values at a
// block's first centre are stepped from block to block; the corner values
// differ from it by constants, so "inside at all four corners" is the
// first value plus the smallest corner offset being >= 0, "outside at all
// four" the first value plus the largest being < 0 (the same integers the
// corners would give).
//
// Fully covered blocks of a batch-invariant fragment program whose
// results are known (spanReady) are written as one span per block row
// (spanBlocks): the row's fully covered blocks are found by solving the
// three edge inequalities for the block index (fullBlocks) instead of
// testing block by block.
func (w *worker) rasterBlocks(e0, e1, e2 *edge, a, b, c *winVert, flat []float32, line, front bool, px0, py0, px1, py1 int) error {
	planes := false
	// span: spanReady, which cannot turn false within a primitive. The
	// pending batch may hold an earlier primitive's quads on the pixels
	// written directly, so it is shaded first.
	span := w.spanReady()
	if span && w.frag.n != 0 {
		if err := w.flushFragments(); err != nil {
			return err
		}
	}
	qx0, qy0 := px0&^1, py0&^1
	const three = 3 * subPixelOne
	var lo, hi, stepX, stepY, rowV [3]int64
	cx0 := int64(qx0)*subPixelOne + subPixelOne/2
	cy0 := int64(qy0)*subPixelOne + subPixelOne/2
	for k, e := range [3]*edge{e0, e1, e2} {
		ox, oy := -e.dy*three, e.dx*three
		lo[k] = min(ox, 0) + min(oy, 0)
		hi[k] = max(ox, 0) + max(oy, 0)
		stepX[k], stepY[k] = 4*e.sx, 4*e.sy
		rowV[k] = e.at(cx0, cy0)
	}
	doneFirst := false // block (px0, py0) was emitted below
	if !w.ras.earlyZ && w.spanCandidate() && w.coversRect(e0, e1, e2, px0, py0, px1, py1) {
		// The whole (block-aligned) rectangle — typically the whole tile
		// under a large primitive — is inside: one span per block row
		// without looking at the edges row by row. If the program's
		// result is not known yet, the first block runs it.
		if !span {
			if w.frag.n != 0 {
				if err := w.flushFragments(); err != nil {
					return err
				}
			}
			w.perf.ctr[CtrRasterBlocks]++
			w.setupPlanes(a, b, c, flat, line, front)
			planes = true
			if err := w.emitBlock(px0, py0); err != nil {
				return err
			}
			doneFirst = true
			span = w.spanReady()
		}
		if span {
			by := py0
			if doneFirst {
				if n := (px1-px0)/4 - 1; n > 0 {
					w.spanBlocks(px0+4, py0, n)
				}
				by += 4
			}
			for ; by < py1; by += 4 {
				w.spanBlocks(px0, by, (px1-px0)/4)
			}
			return nil
		}
	}
	// Blocks whose four columns lie inside [px0, px1): kRect0 ≤ k < kRect1.
	kRect0 := (px0 - qx0 + 3) / 4
	kRect1 := (px1 - qx0) / 4
	kBlocks := (px1 - qx0 + 3) / 4 // blocks per row
	for by := qy0; by < py1; by += 4 {
		rowFull := by >= py0 && by+4 <= py1
		rv := rowV
		v0, v1, v2 := rv[0], rv[1], rv[2]
		rowV[0], rowV[1], rowV[2] = v0+stepY[0], v1+stepY[1], v2+stepY[2]
		// Blocks outside no edge (kAny0 ≤ k < kAny1) and inside all
		// three within the rectangle (kFull0 ≤ k < kFull1).
		kAny0, kAny1 := 0, kBlocks
		kFull0, kFull1 := 0, 0
		for k := range 3 {
			kAny0, kAny1 = fullBlocks(rv[k]+hi[k], stepX[k], kAny0, kAny1)
		}
		if rowFull && !w.ras.earlyZ {
			kFull0, kFull1 = max(kRect0, kAny0), min(kRect1, kAny1)
			for k := range 3 {
				kFull0, kFull1 = fullBlocks(rv[k]+lo[k], stepX[k], kFull0, kFull1)
			}
		}
		skip := int64(kAny0)
		v0, v1, v2 = v0+skip*stepX[0], v1+skip*stepX[1], v2+skip*stepX[2]
		for bx, k := qx0+4*kAny0, kAny0; k < kAny1; bx, k, v0, v1, v2 = bx+4, k+1, v0+stepX[0], v1+stepX[1], v2+stepX[2] {
			if doneFirst && bx == px0 && by == py0 {
				continue // emitted above
			}
			if k >= kFull0 && k < kFull1 {
				// A partly filled batch is shaded first (it would be
				// anyway, lanes are independent and resolve in the
				// same order); otherwise one partial block would keep
				// every later block of the triangle off this path.
				if w.frag.n != 0 {
					if err := w.flushFragments(); err != nil {
						return err
					}
				}
				if !span {
					span = w.spanReady()
				}
				if span {
					n := kFull1 - k
					w.spanBlocks(bx, by, n)
					n64 := int64(n - 1) // the loop's step adds the last one
					bx, k = bx+4*(n-1), k+n-1
					v0, v1, v2 = v0+n64*stepX[0], v1+n64*stepX[1], v2+n64*stepX[2]
					continue
				}
				w.perf.ctr[CtrRasterBlocks]++
				if !planes {
					w.setupPlanes(a, b, c, flat, line, front)
					planes = true
				}
				if err := w.emitBlock(bx, by); err != nil {
					return err
				}
				continue
			}
			full := v0+lo[0] >= 0 && v1+lo[1] >= 0 && v2+lo[2] >= 0 && rowFull && bx >= px0 && bx+4 <= px1
			if full {
				w.perf.ctr[CtrRasterBlocks]++
				if !w.ras.earlyZ {
					// Unreachable: fullBlocks is exact, so every full
					// block without early Z took the branch above.
					if w.frag.n != 0 {
						if err := w.flushFragments(); err != nil {
							return err
						}
					}
					if !planes {
						w.setupPlanes(a, b, c, flat, line, front)
						planes = true
					}
					if err := w.emitBlock(bx, by); err != nil {
						return err
					}
					continue
				}
			}
			if span {
				// The block's covered pixels take the memo's colour
				// directly (spanBlocks for a partly covered block).
				var masks [4]uint16
				for q := 0; q < 4; q++ {
					x, y := bx+2*(q&1), by+2*(q>>1)
					if x < px1 && y < py1 {
						masks[q] = quadMask(e0, e1, e2, x, y) & rectMask(x, y, px0, py0, px1, py1)
					}
				}
				w.maskedBlock(bx, by, &masks)
				continue
			}
			for q := 0; q < 4; q++ {
				x, y := bx+2*(q&1), by+2*(q>>1)
				if x >= px1 || y >= py1 {
					continue
				}
				mask := uint16(0xF)
				if !full {
					mask = quadMask(e0, e1, e2, x, y) & rectMask(x, y, px0, py0, px1, py1)
					if mask == 0 {
						continue
					}
				}
				if !planes {
					w.setupPlanes(a, b, c, flat, line, front)
					planes = true
				}
				if err := w.emitQuad(x, y, mask); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// coversRect reports whether the rectangle [px0, px1)×[py0, py1) is made
// of whole 4×4 blocks on rasterBlocks' grid (its corner on even pixels, its
// sides multiples of 4) and every pixel centre in it is inside the three
// edges: they are at its four corner centres, and the edge functions are
// linear.
func (w *worker) coversRect(e0, e1, e2 *edge, px0, py0, px1, py1 int) bool {
	if px0&1 != 0 || py0&1 != 0 || (px1-px0)&3 != 0 || (py1-py0)&3 != 0 {
		return false
	}
	x0 := int64(px0)*subPixelOne + subPixelOne/2
	y0 := int64(py0)*subPixelOne + subPixelOne/2
	x1 := int64(px1-1)*subPixelOne + subPixelOne/2
	y1 := int64(py1-1)*subPixelOne + subPixelOne/2
	for _, e := range [3]*edge{e0, e1, e2} {
		if e.at(x0, y0)|e.at(x1, y0)|e.at(x0, y1)|e.at(x1, y1) < 0 {
			return false
		}
	}
	return true
}

// fullBlocks narrows the block range [k0, k1) of a row to the blocks k
// with v + k·step >= 0 (v: the edge value at the row's first block plus
// the smallest corner offset; step: the change per block).
func fullBlocks(v, step int64, k0, k1 int) (int, int) {
	switch {
	case step == 0:
		if v < 0 {
			return k0, k0
		}
	case step > 0: // k >= ceil(−v / step)
		if m := ceilDiv(-v, step); m > int64(k0) {
			k0 = int(min(m, int64(k1)))
		}
	default: // k <= floor(v / −step)
		if m := floorDiv(v, -step) + 1; m < int64(k1) {
			k1 = int(max(m, int64(k0)))
		}
	}
	return k0, max(k1, k0)
}

// quadMask is the coverage of quad (x, y) by three edges: lane 0 (x,y),
// 1 (x+1,y), 2 (x,y+1), 3 (x+1,y+1).
func quadMask(e0, e1, e2 *edge, x, y int) uint16 {
	cx := int64(x)*subPixelOne + subPixelOne/2
	cy := int64(y)*subPixelOne + subPixelOne/2
	f0, f1, f2 := e0.at(cx, cy), e1.at(cx, cy), e2.at(cx, cy)
	var mask uint16
	if f0|f1|f2 >= 0 {
		mask |= 1
	}
	g0, g1, g2 := f0+e0.sx, f1+e1.sx, f2+e2.sx
	if g0|g1|g2 >= 0 {
		mask |= 2
	}
	if (f0+e0.sy)|(f1+e1.sy)|(f2+e2.sy) >= 0 {
		mask |= 4
	}
	if (g0+e0.sy)|(g1+e1.sy)|(g2+e2.sy) >= 0 {
		mask |= 8
	}
	return mask
}

// setupPlanes builds the interpolation planes of triangle a, b, c (in
// rasterTri's counter-clockwise order).
func (w *worker) setupPlanes(a, b, c *winVert, flat []float32, line, front bool) {
	s := &w.st
	r := &w.ras
	// Plane equations relative to a.
	I := &r.I
	dx1, dy1 := b.x-a.x, b.y-a.y
	dx2, dy2 := c.x-a.x, c.y-a.y
	det := dx1*dy2 - dx2*dy1
	inv := 1 / det
	plane := func(qa, qb, qc float64) (float64, float64) {
		d1, d2 := qb-qa, qc-qa
		return (d1*dy2 - d2*dy1) * inv, (d2*dx1 - d1*dx2) * inv
	}
	I.ax, I.ay = a.x, a.y
	I.z = a.z
	I.zdx, I.zdy = plane(a.z, b.z, c.z)
	I.iw = a.iw
	I.iwdx, I.iwdy = plane(a.iw, b.iw, c.iw)
	I.setAffine()
	for k := 0; k < r.nvary; k++ {
		if r.flat&(1<<k) != 0 && k < 32 {
			v := float64(flat[k])
			// Flat: v·(1/w) / (1/w) = v at every pixel.
			I.v[k], I.vdx[k], I.vdy[k] = v*a.iw, v*I.iwdx, v*I.iwdy
			continue
		}
		qa, qb, qc := float64(a.vary[k])*a.iw, float64(b.vary[k])*b.iw, float64(c.vary[k])*c.iw
		I.v[k] = qa
		I.vdx[k], I.vdy[k] = plane(qa, qb, qc)
	}
	I.zoff = 0
	if s.depthOffset && !line {
		// One unit is one step of the 24-bit depth buffer (depthTo24 maps
		// [0,1] onto 0..depthMax): 2^-24 fell short of a step where z*depthMax
		// is a whole number (z = 0.5, say) and left the depth unchanged.
		I.zoff = float64(s.offFactor)*math.Max(math.Abs(I.zdx), math.Abs(I.zdy)) + float64(s.offUnits)/depthMax
	}
	I.front = front
	I.frontBit = 0
	if front {
		I.frontBit = 1
	}
	I.point = false

}

// rectMask keeps the lanes of quad (x,y) inside [x0,x1)×[y0,y1).
func rectMask(x, y, x0, y0, x1, y1 int) uint16 {
	m := uint16(0xF)
	if x < x0 {
		m &^= 0b0101
	}
	if x+1 >= x1 {
		m &^= 0b1010
	}
	if y < y0 {
		m &^= 0b0011
	}
	if y+1 >= y1 {
		m &^= 0b1100
	}
	return m
}

// edge is one integer edge function E(P) = (Xb−Xa)(Py−Ya) − (Yb−Ya)(Px−Xa),
// minus one unless the edge is a left or bottom edge, so that coverage is
// E >= 0.
type edge struct {
	xa, ya, dx, dy int64
	bias           int64
	sx, sy         int64 // change per pixel step in x and in y
}

func (e *edge) setup(a, b *winVert) {
	e.xa, e.ya = a.X, a.Y
	e.dx, e.dy = b.X-a.X, b.Y-a.Y
	owns := e.dy < 0 || (e.dy == 0 && e.dx > 0) // left or bottom edge
	e.bias = -1
	if owns {
		e.bias = 0
	}
	e.sx = -e.dy * subPixelOne
	e.sy = e.dx * subPixelOne
}

func (e *edge) at(px, py int64) int64 {
	return e.dx*(py-e.ya) - e.dy*(px-e.xa) + e.bias
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

// drawPoint rasterises a point sprite centred on its vertex.
// maxPointSize is the largest point the rasteriser draws; larger sizes are
// clamped (GL ES 2.0 §3.3: the size is clamped to the implementation's
// range, which gles reports as ALIASED_POINT_SIZE_RANGE 1..64).
const maxPointSize = 64

func (w *worker) drawPoint(p *segPrim) error {
	r := &w.ras
	o, pos := w.vertex(p.slot[0])
	if hasNaN(pos) || w.clip.outcode(pos)&(outNear|outFar|outW) != 0 {
		return nil
	}
	nv := r.nvary
	var v winVert
	w.toWindow(pos, o[5:5+nv], &v)
	size := float64(o[4])
	if !(size >= 1) {
		size = 1
	}
	size = min(size, maxPointSize)
	h := size / 2
	px0 := max(int(math.Ceil(v.x-h-0.5)), r.x0)
	px1 := min(int(math.Ceil(v.x+h-0.5)), r.x1)
	py0 := max(int(math.Ceil(v.y-h-0.5)), r.y0)
	py1 := min(int(math.Ceil(v.y+h-0.5)), r.y1)
	if px0 >= px1 || py0 >= py1 {
		return nil
	}
	I := &r.I
	I.ax, I.ay = v.x, v.y
	I.z, I.zdx, I.zdy = v.z, 0, 0
	I.iw, I.iwdx, I.iwdy = v.iw, 0, 0
	I.setAffine()
	for k := 0; k < nv; k++ {
		I.v[k], I.vdx[k], I.vdy[k] = float64(v.vary[k])*v.iw, 0, 0
	}
	I.zoff = 0
	I.front = true
	I.frontBit = 1
	I.point = true
	I.pcx, I.pcy, I.pinv = v.x, v.y, 1/size
	for y := py0 &^ 1; y < py1; y += 2 {
		for x := px0 &^ 1; x < px1; x += 2 {
			if m := rectMask(x, y, px0, py0, px1, py1); m != 0 {
				if err := w.emitQuad(x, y, m); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// drawLine rasterises a line of LINE_WIDTH as a parallelogram: the segment
// widened by width/2 along the minor axis (y for x-major lines, x for
// y-major ones), the GL "non-antialiased wide line" shape, without end
// extension. It is drawn as two triangles that share the diagonal, so
// the fill rule covers each pixel once.
func (w *worker) drawLine(p *segPrim) error {
	r := &w.ras
	nv := r.nvary
	o0, pos0 := w.vertex(p.slot[0])
	o1, pos1 := w.vertex(p.slot[1])
	if hasNaN(pos0) || hasNaN(pos1) {
		return nil
	}
	c0, c1 := w.clip.outcode(pos0), w.clip.outcode(pos1)
	if c0&c1 != 0 {
		return nil
	}
	a, b := &r.lineA, &r.lineB
	a.pos, b.pos = *pos0, *pos1
	copy(a.v[:nv], o0[5:5+nv])
	copy(b.v[:nv], o1[5:5+nv])
	if c0|c1 != 0 {
		t0, t1 := float32(0), float32(1)
		for plane := uint32(1); plane <= outTop; plane <<= 1 {
			if (c0|c1)&plane == 0 {
				continue
			}
			d0, d1 := w.clip.dist(plane, pos0), w.clip.dist(plane, pos1)
			if d0 < 0 && d1 < 0 {
				return nil
			}
			t := d0 / (d0 - d1)
			if d0 < 0 {
				t0 = max(t0, t)
			} else if d1 < 0 {
				t1 = min(t1, t)
			}
		}
		if t0 >= t1 {
			return nil
		}
		lerp := func(dst *clipVert, t float32) {
			for k := 0; k < 4; k++ {
				dst.pos[k] = pos0[k] + t*(pos1[k]-pos0[k])
			}
			for k := 0; k < nv; k++ {
				dst.v[k] = o0[5+k] + t*(o1[5+k]-o0[5+k])
			}
		}
		lerp(a, t0)
		lerp(b, t1)
	}
	flat := &r.flatCopy
	copy(flat[:nv], o1[5:5+nv]) // provoking vertex: the last
	var wa, wb winVert
	w.toWindow(&a.pos, a.v[:nv], &wa)
	w.toWindow(&b.pos, b.v[:nv], &wb)
	width := float64(w.st.lineWidth)
	if !(width >= 1) {
		width = 1
	}
	var ox, oy float64
	if math.Abs(wb.x-wa.x) >= math.Abs(wb.y-wa.y) {
		oy = width / 2
	} else {
		ox = width / 2
	}
	q := &r.verts
	mk := func(dst *winVert, src *winVert, sx, sy float64) {
		*dst = *src
		dst.X = int64(math.Round((src.x + sx) * subPixelOne))
		dst.Y = int64(math.Round((src.y + sy) * subPixelOne))
		dst.x, dst.y = float64(dst.X)/subPixelOne, float64(dst.Y)/subPixelOne
	}
	mk(&q[0], &wa, -ox, -oy)
	mk(&q[1], &wb, -ox, -oy)
	mk(&q[2], &wb, ox, oy)
	mk(&q[3], &wa, ox, oy)
	// GL interpolates a line's fragment at t = (p−a)·(b−a)/|b−a|², the
	// projection of its centre onto the segment, not along the major
	// axis: give each corner the values of the segment point at its own t
	// (perspective-correct: 1/w and v/w linear in t, z linear), so the
	// quad's planes vary along the line and not across it.
	if dx, dy := wb.x-wa.x, wb.y-wa.y; dx*dx+dy*dy > 0 {
		l2 := dx*dx + dy*dy
		for i, c := range [4]struct{ end, sx, sy float64 }{{0, -ox, -oy}, {1, -ox, -oy}, {1, ox, oy}, {0, ox, oy}} {
			w.lineCorner(&q[i], &wa, &wb, c.end+(c.sx*dx+c.sy*dy)/l2, r.lineVary[i][:nv])
		}
	}
	if err := w.rasterTri(&q[0], &q[1], &q[2], flat[:nv], true); err != nil {
		return err
	}
	return w.rasterTri(&q[0], &q[2], &q[3], flat[:nv], true)
}

// lineCorner sets corner q's depth, 1/w and varyings (into vary) to those
// of the point at parameter t on the segment from a to b.
// A corner whose extrapolated 1/w would not be positive (a line much
// shorter than wide under strong perspective) keeps its endpoint's values.
func (w *worker) lineCorner(q, a, b *winVert, t float64, vary []float32) {
	iw := a.iw + t*(b.iw-a.iw)
	if !(iw > 0) || math.IsInf(iw, 0) {
		return
	}
	q.z = a.z + t*(b.z-a.z)
	q.iw = iw
	for k := range vary {
		vw := float64(a.vary[k])*a.iw + t*(float64(b.vary[k])*b.iw-float64(a.vary[k])*a.iw)
		vary[k] = float32(vw / iw)
	}
	q.vary = vary
}

// emitQuad adds a 2×2 quad at window (x,y) with coverage mask to the
// fragment batch, computing every lane's inputs (uncovered lanes too: the
// shader's derivatives need the whole quad).
func (w *worker) emitQuad(x, y int, mask uint16) error {
	r := &w.ras
	w.perf.ctr[CtrQuads]++
	if r.earlyZ {
		in := mask
		mask = w.earlyDepth(x, y, mask)
		w.perf.ctr[CtrFragmentsEarlyZKilled] += uint64(mbits.OnesCount16(in &^ mask))
		if mask == 0 {
			w.perf.ctr[CtrQuadsEarlyZKilled]++
			return nil
		}
	}
	fb := &w.frag
	w.fillQuad(x, y, fb.n)
	if w.cfg.msaa {
		w.msQuad(fb.n)
	}
	fb.mask |= mask << (fb.n * 4)
	fb.n++
	if fb.n == 4 {
		return w.flushFragments()
	}
	return nil
}

// emitBlock emits the four quads of the 4×4 block at (x, y), all lanes
// covered, as one fragment batch: the batch must be empty and early Z off
// (the caller sees to both). The lanes hold what four emitQuad calls would put
// there.
func (w *worker) emitBlock(x, y int) error {
	fb := &w.frag
	w.fillQuad(x, y, 0)
	w.fillQuad(x+2, y, 1)
	w.fillQuad(x, y+2, 2)
	w.fillQuad(x+2, y+2, 3)
	fb.mask, fb.n = 0xFFFF, 4
	w.perf.ctr[CtrQuads] += 4
	return w.flushFragments()
}

// fillQuad computes the inputs of quad q of the batch, the 2×2 quad at
// window (x, y): every lane's, covered or not (the shader's derivatives
// need the whole quad).
func (w *worker) fillQuad(x, y, q int) {
	r := &w.ras
	fb := &w.frag
	bt := &w.batch
	I := &r.I
	base := q * 4
	// Evaluate the planes at lane 0 and step to the other three lanes.
	// The fast paths below change what is computed, never how: every value
	// that is computed comes from the same expressions, so the same
	// roundings (hw/testdata/golden.txt pins the output bits).
	fx := float64(x) + 0.5 - I.ax
	fy := float64(y) + 0.5 - I.ay
	var iws [4]float64
	if I.affine {
		iws = [4]float64{I.iw, I.iw, I.iw, I.iw}
	} else {
		iw0 := I.iw + I.iwdx*fx + I.iwdy*fy
		iws = [4]float64{iw0, iw0 + I.iwdx, iw0 + I.iwdy, iw0 + I.iwdx + I.iwdy}
	}
	// Inputs the fragment shader does not read are never observed, so
	// they are not computed (FS_FLAT reads none of them: a third of this
	// function's time in the "fill" scene).
	in := &w.fsIn
	if in.FragZ || w.st.depthTest {
		z0 := I.z + I.zdx*fx + I.zdy*fy
		zs := [4]float64{z0, z0 + I.zdx, z0 + I.zdy, z0 + I.zdx + I.zdy}
		*(*[4]float32)(bt.FragZ[base : base+4]) = [4]float32{float32(zs[0]), float32(zs[1]), float32(zs[2]), float32(zs[3])}
		*(*[4]float64)(fb.z[base : base+4]) = [4]float64{zs[0] + I.zoff, zs[1] + I.zoff, zs[2] + I.zoff, zs[3] + I.zoff}
	}
	if in.FragXY {
		cx0, cx1 := float32(x)+0.5, float32(x+1)+0.5
		cy0, cy1 := float32(y)+0.5, float32(y+1)+0.5
		*(*[4]float32)(bt.FragX[base : base+4]) = [4]float32{cx0, cx1, cx0, cx1}
		*(*[4]float32)(bt.FragY[base : base+4]) = [4]float32{cy0, cy0, cy1, cy1}
	}
	if in.FragW {
		*(*[4]float32)(bt.FragW[base : base+4]) = [4]float32{float32(iws[0]), float32(iws[1]), float32(iws[2]), float32(iws[3])}
	}
	if in.FrontFacing || w.st.stencil { // resolve picks the stencil face by it
		*(*[4]uint32)(bt.FrontFacing[base : base+4]) = [4]uint32{I.frontBit, I.frontBit, I.frontBit, I.frontBit}
	}
	fb.quad[q] = (y-w.y0)*maxTileSize + x - w.x0
	if I.point && in.PointCoord {
		// PointS/T stay 0 for other primitives; flushFragments clears
		// them after a batch that held points.
		fb.points = true
		for l := 0; l < 4; l++ {
			px, py := x+(l&1), y+(l>>1)
			bt.PointS[base+l] = float32(0.5 + (float64(px)+0.5-I.pcx)*I.pinv)
			bt.PointT[base+l] = float32(0.5 - (float64(py)+0.5-I.pcy)*I.pinv)
		}
	}
	if r.fillVary > 0 {
		var rw [4]float64
		if I.affine {
			rw = [4]float64{I.rw, I.rw, I.rw, I.rw}
		} else {
			rw = [4]float64{1 / iws[0], 1 / iws[1], 1 / iws[2], 1 / iws[3]}
		}
		for k := 0; k < r.fillVary; k++ {
			q := I.v[k] + I.vdx[k]*fx + I.vdy[k]*fy
			dx, dy := I.vdx[k], I.vdy[k]
			vb := (*[4]float32)(bt.Varyings[k*qpu.Lanes+base : k*qpu.Lanes+base+4])
			vb[0] = float32(q * rw[0])
			vb[1] = float32((q + dx) * rw[1])
			vb[2] = float32((q + dy) * rw[2])
			vb[3] = float32((q + dx + dy) * rw[3])
		}
	}
}
