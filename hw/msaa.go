package hw

import (
	"encoding/binary"
	mbits "math/bits"

	"github.com/tilegpu/tilegpu/hw/qpu"
)

// 4× multisampling in the tile buffer (docs/hardware.md §5.2). With
// Multisample4x a tile is 32×32 pixels of four samples each: sample 0 lives
// in worker.color/zs (so every single-sample path is unchanged) and samples
// 1..3 in msaaTile. Coverage is computed per sample at the standard 4×
// positions, the fragment shader runs once per pixel (at the pixel centre)
// and its colour is written to the covered samples, each with its own
// depth/stencil test; the colour store resolves the four samples with a box
// filter, the way a tiler resolves on the way out of GMEM.

// samplePos are the 4× sample positions in 1/256 pixel from the pixel's
// lower-left corner (x, y): (0.375, 0.125), (0.875, 0.375), (0.125, 0.625),
// (0.625, 0.875) — the rotated grid D3D and Mesa use.
var samplePos = [4][2]int64{{96, 32}, {224, 96}, {32, 160}, {160, 224}}

// sampleOff is samplePos relative to the pixel centre, in pixels.
var sampleOff = [4][2]float64{{-0.125, -0.375}, {0.375, -0.125}, {-0.375, 0.125}, {0.125, 0.375}}

// msaaTile is the multisample part of a worker's tile buffer and batch.
type msaaTile struct {
	color, zs [3][tilePixels]uint32 // samples 1..3 (index as worker.color)
	cov       [qpu.Lanes]uint8      // per batch lane: covered samples
	zdx, zdy  [4]float64            // per batch quad: depth slope of its primitive
	// quadCov is the sample coverage of the quad emitQuad is given next,
	// per lane; 0xF (all samples of a covered pixel) outside rasterTriMS,
	// which is what points get.
	quadCov [4]uint8
}

// fullQuadCov is quadCov outside rasterTriMS.
var fullQuadCov = [4]uint8{0xF, 0xF, 0xF, 0xF}

// clearSamples sets samples 1..3 of the tile to the clear values.
func (w *worker) clearSamples(color, zs uint32) {
	ms := &w.ms
	for s := range ms.color {
		for y := 0; y < tileSizeMSAA; y++ {
			c := ms.color[s][y*maxTileSize : y*maxTileSize+tileSizeMSAA]
			z := ms.zs[s][y*maxTileSize : y*maxTileSize+tileSizeMSAA]
			for i := range c {
				c[i], z[i] = color, zs
			}
		}
	}
	ms.quadCov = fullQuadCov
}

// sampleWord is the tile-buffer word of sample s of pixel i in buffer
// colour (depth false) or depth/stencil.
func (w *worker) sampleWord(depth bool, s, i int) *uint32 {
	switch {
	case s == 0 && depth:
		return &w.zs[i]
	case s == 0:
		return &w.color[i]
	case depth:
		return &w.ms.zs[s-1][i]
	}
	return &w.ms.color[s-1][i]
}

// rasterTriMS is rasterTri's walk with Multisample4x: a pixel is emitted
// when any of its four samples is inside all three edges (the same edge
// functions and fill rule as pixel centres), with its sample mask.
func (w *worker) rasterTriMS(e0, e1, e2 *edge, a, b, c *winVert, flat []float32, line, front bool) error {
	r := &w.ras
	minX, maxX := min(a.X, b.X, c.X), max(a.X, b.X, c.X)
	minY, maxY := min(a.Y, b.Y, c.Y), max(a.Y, b.Y, c.Y)
	px0 := max(int(floorDiv(minX, subPixelOne)), r.x0)
	px1 := min(int(floorDiv(maxX, subPixelOne))+1, r.x1)
	py0 := max(int(floorDiv(minY, subPixelOne)), r.y0)
	py1 := min(int(floorDiv(maxY, subPixelOne))+1, r.y1)
	if px0 >= px1 || py0 >= py1 {
		return nil
	}
	planes := false
	defer func() { w.ms.quadCov = fullQuadCov }()
	for y := py0 &^ 1; y < py1; y += 2 {
		for x := px0 &^ 1; x < px1; x += 2 {
			rect := rectMask(x, y, px0, py0, px1, py1)
			var mask uint16
			for l := 0; l < 4; l++ {
				var cov uint8
				if rect&(1<<l) != 0 {
					bx := int64(x+l&1) * subPixelOne
					by := int64(y+l>>1) * subPixelOne
					for s, p := range samplePos {
						sx, sy := bx+p[0], by+p[1]
						if e0.at(sx, sy)|e1.at(sx, sy)|e2.at(sx, sy) >= 0 {
							cov |= 1 << s
						}
					}
				}
				w.ms.quadCov[l] = cov
				if cov != 0 {
					mask |= 1 << l
				}
			}
			if mask == 0 {
				continue
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
	return nil
}

// msQuad records the sample coverage and depth slope of batch quad q
// (emitQuad calls it after fillQuad when Multisample4x is on).
func (w *worker) msQuad(q int) {
	ms := &w.ms
	copy(ms.cov[q*4:q*4+4], ms.quadCov[:])
	ms.zdx[q], ms.zdy[q] = w.ras.I.zdx, w.ras.I.zdy
}

// alphaCoverage is SAMPLE_ALPHA_TO_COVERAGE's mask: round(alpha·4) samples.
func alphaCoverage(alpha float32) uint8 {
	n := int(clamp01(alpha)*4 + 0.5)
	return uint8(1<<n - 1)
}

// resolveSamples is resolve (tlb.go) for Multisample4x: the per-fragment
// operations run once per covered sample, with the sample's own depth
// (the primitive's plane at the sample position) and stencil, and the
// fragment's one colour blended into each covered sample.
func (w *worker) resolveSamples(mask uint16) {
	s := &w.st
	bt := &w.batch
	fb := &w.frag
	ms := &w.ms
	var frags uint64
	for m := mask; m != 0; m &= m - 1 {
		lane := mbits.TrailingZeros16(m)
		cov := ms.cov[lane]
		if s.a2c {
			cov &= alphaCoverage(bt.Color[3][lane])
		}
		if s.covEnable {
			cov &= uint8(s.covMask)
		}
		if cov == 0 {
			continue
		}
		frags++
		q := lane >> 2
		i := fb.quad[q] + laneOffset[lane&3]
		face := &s.stencilFaces[0]
		if bt.FrontFacing[lane] == 0 {
			face = &s.stencilFaces[1]
		}
		for smp := 0; smp < 4; smp++ {
			if cov&(1<<smp) == 0 {
				continue
			}
			cp := w.sampleWord(false, smp, i)
			if !s.stencil && !s.depthTest {
				*cp = w.blendMemo(lane, *cp)
				w.samplesPassed++
				continue
			}
			zp := w.sampleWord(true, smp, i)
			zs := *zp
			stencil := zs >> 24
			if s.stencil && !compare(face.fn, face.ref&face.vmask, stencil&face.vmask) {
				*zp = zs&depthMax | stencilOp(face, face.sfail, stencil)<<24
				continue
			}
			if s.depthTest {
				z := fb.z[lane] + ms.zdx[q]*sampleOff[smp][0] + ms.zdy[q]*sampleOff[smp][1]
				if bt.ZWritten {
					z = float64(bt.Z[lane])
				}
				z24 := depthTo24(z)
				if !compare(s.depthFunc, z24, zs&depthMax) {
					if s.stencil {
						*zp = zs&depthMax | stencilOp(face, face.zfail, stencil)<<24
					}
					continue
				}
				if s.zUpdates {
					zs = zs&^depthMax | z24
				}
			}
			if s.stencil {
				zs = zs&depthMax | stencilOp(face, face.zpass, stencil)<<24
			}
			*zp = zs
			*cp = w.blendMemo(lane, *cp)
			w.samplesPassed++
		}
	}
	w.perf.fragments += frags
}

// resolvePixel is the box filter of the colour store: each channel the
// rounded mean of the pixel's four samples.
func (w *worker) resolvePixel(i int) uint32 {
	c0, c1, c2, c3 := w.color[i], w.ms.color[0][i], w.ms.color[1][i], w.ms.color[2][i]
	if c0 == c1 && c0 == c2 && c0 == c3 {
		return c0
	}
	var out uint32
	for sh := 0; sh < 32; sh += 8 {
		sum := c0>>sh&0xFF + c1>>sh&0xFF + c2>>sh&0xFF + c3>>sh&0xFF
		out |= (sum + 2) / 4 << sh
	}
	return out
}

// replicateSamples copies sample 0 of a loaded row to samples 1..3: a
// loaded surface has one value per pixel.
func (w *worker) replicateSamples(depth bool, lo, hi int) {
	src, dst := &w.color, &w.ms.color
	if depth {
		src, dst = &w.zs, &w.ms.zs
	}
	for s := range dst {
		copy(dst[s][lo:hi], src[lo:hi])
	}
}

// loadStoreSamples is LOAD/STORE_TILE_BUFFER_GENERAL with AllSamples: the
// surface keeps the four samples of each pixel (16 bytes per pixel,
// sample s at +4s), so a job split mid-frame (a read-back between draws)
// resumes with every sample's colour or depth/stencil, not one value per
// pixel.
func (w *worker) loadStoreSamples(depth bool, addr, stride uint32, store bool) error {
	n := w.x1 - w.x0
	bytes := uint64(n*(w.y1-w.y0)) * 16
	if store {
		w.perf.ctr[CtrTileStores]++
		w.perf.ctr[CtrRenderBytesWritten] += bytes
	} else {
		w.perf.ctr[CtrTileLoads]++
		w.perf.ctr[CtrRenderBytesRead] += bytes
	}
	var row [maxTileSize * 16]byte
	for y := w.y0; y < w.y1; y++ {
		va := addr + uint32(y)*stride + uint32(w.x0)*16
		lo := (y - w.y0) * maxTileSize
		if store {
			for i := 0; i < n; i++ {
				for s := 0; s < 4; s++ {
					binary.LittleEndian.PutUint32(row[i*16+s*4:], *w.sampleWord(depth, s, lo+i))
				}
			}
			if f := w.m.write(va, row[:n*16]); f != nil {
				return f
			}
			continue
		}
		if f := w.m.read(va, row[:n*16]); f != nil {
			return f
		}
		for i := 0; i < n; i++ {
			for s := 0; s < 4; s++ {
				*w.sampleWord(depth, s, lo+i) = binary.LittleEndian.Uint32(row[i*16+s*4:])
			}
		}
	}
	return nil
}
