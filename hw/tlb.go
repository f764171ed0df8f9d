package hw

import (
	"encoding/binary"
	"math"
	mbits "math/bits"
	"unsafe"

	"github.com/tilegpu/tilegpu/hw/qpu"
)

// The tile buffer and the TLB pipeline (docs/hardware.md §5): per covered,
// non-discarded lane in lane order: scissor (done by the rasteriser) →
// stencil test → depth test → stencil ops → blend → colour mask → write.

// fragBatch is the fragment batch being filled: up to four quads.
type fragBatch struct {
	n      int
	mask   uint16
	points bool // some quad is a point's: PointS/T need clearing after
	// quad[q] is the tile-buffer index of quad q's lane 0; lane l of the
	// quad is at quad[q] + laneOffset[l&3] (docs/hardware.md §7.3 layout).
	quad [4]int
	z    [qpu.Lanes]float64 // window depth + depth offset
}

// laneOffset is the tile-buffer offset of a quad's lanes from its lane 0:
// (x, y), (x+1, y), (x, y+1), (x+1, y+1).
var laneOffset = [4]int{0, 1, maxTileSize, maxTileSize + 1}

const depthMax = 1<<24 - 1

func depthTo24(z float64) uint32 {
	if !(z > 0) { // also NaN
		return 0
	}
	if z >= 1 {
		return depthMax
	}
	return uint32(z*depthMax + 0.5)
}

func compare(fn, a, b uint32) bool {
	switch fn {
	case 0:
		return false
	case 1:
		return a < b
	case 2:
		return a == b
	case 3:
		return a <= b
	case 4:
		return a > b
	case 5:
		return a != b
	case 6:
		return a >= b
	}
	return true
}

// earlyDepth drops the lanes of a quad whose depth test already fails
// against the tile buffer. Only monotonic functions use it (see
// setupRaster): a later write can only make the test stricter, and the
// late test repeats it, so the result is exact.
//
// The depth of each lane is computed with emitQuad's expressions (lane 0's
// plane value, then steps of zdx and zdy, plus the offset), so the early
// test sees exactly the value the late test will see.
func (w *worker) earlyDepth(x, y int, mask uint16) uint16 {
	I := &w.ras.I
	fn := w.st.depthFunc
	fx := float64(x) + 0.5 - I.ax
	fy := float64(y) + 0.5 - I.ay
	z0 := I.z + I.zdx*fx + I.zdy*fy
	zs := [4]float64{z0 + I.zoff, z0 + I.zdx + I.zoff, z0 + I.zdy + I.zoff, z0 + I.zdx + I.zdy + I.zoff}
	i0 := (y-w.y0)*maxTileSize + (x - w.x0)
	for l := 0; l < 4; l++ {
		if mask&(1<<l) == 0 {
			continue
		}
		if !compare(fn, depthTo24(zs[l]), w.zs[i0+laneOffset[l]]&depthMax) {
			mask &^= 1 << l
		}
	}
	return mask
}

// flushFragments shades the pending batch and resolves it.
func (w *worker) flushFragments() error {
	fb := &w.frag
	if fb.n == 0 {
		return nil
	}
	bt := &w.batch
	// A batch-invariant program's results for this uniform stream are
	// known after its first batch (invariant.go).
	invariant := w.fsInvariant()
	w.fromMemo = invariant && w.memoHit()
	if w.fromMemo {
		fb.points = false
		w.loadMemo(bt)
		w.perf.ctr[CtrFSBatchesReused]++
	} else {
		for lane := fb.n * 4; lane < qpu.Lanes; lane++ {
			bt.FragX[lane], bt.FragY[lane], bt.FragZ[lane], bt.FragW[lane] = 0, 0, 0, 1
			bt.FrontFacing[lane] = 0
			bt.PointS[lane], bt.PointT[lane] = 0, 0
			for k := 0; k < w.ras.nvary; k++ {
				bt.Varyings[k*qpu.Lanes+lane] = 0
			}
		}
		hadPoints := fb.points
		fb.points = false
		bt.Stage = qpu.StageFragment
		bt.UniformsVA = w.sr.fsUniforms
		bt.QPUNumber = uint32(w.id + 1)
		bt.LaneMask = fb.mask
		bt.Kill = 0
		bt.ZWritten = false
		err := runShader(w.g, w.core, w.m, w.fsProg, bt)
		if hadPoints {
			bt.PointS, bt.PointT = [qpu.Lanes]float32{}, [qpu.Lanes]float32{}
		}
		if err != nil {
			fb.n, fb.mask = 0, 0
			return err
		}
		if invariant {
			w.storeMemo(bt)
		}
		w.perf.qpuInstructions += bt.Instructions
		w.perf.takeCore(w.core, EngineRender)
		w.perf.ctr[CtrFSInstructions] += bt.Instructions
	}
	mask := fb.mask
	fb.n, fb.mask = 0, 0
	w.perf.ctr[CtrFSBatches]++
	shaded := uint64(mbits.OnesCount16(mask))
	w.perf.ctr[CtrFragmentsShaded] += shaded
	w.cost.instructions += bt.Instructions
	w.cost.fragments += shaded
	w.perf.ctr[CtrFragmentsDiscarded] += uint64(mbits.OnesCount16(mask & bt.Kill))
	if w.overdraw {
		w.countOverdraw(mask, mask&^bt.Kill)
		return nil
	}
	mask &^= bt.Kill
	if w.cfg.msaa {
		w.resolveSamples(mask)
		return nil
	}
	w.resolve(mask)
	return nil
}

// resolve runs the per-fragment operations for the covered lanes.
func (w *worker) resolve(mask uint16) {
	s := &w.st
	bt := &w.batch
	fb := &w.frag
	var frags uint64
	if !s.stencil && !s.depthTest {
		n := uint64(mbits.OnesCount16(mask))
		w.perf.fragments += n
		w.perf.ctr[CtrFragmentsWritten] += n
		w.samplesPassed += uint32(n)
		if s.blend {
			w.perf.ctr[CtrFragmentsBlended] += n
		}
		if !s.blend && s.colorMask == [4]bool{true, true, true, true} && w.cfg.format.quant == nil {
			// Straight RGBA8 store: the "fill" and "tex" scenes. A batch
			// whose lanes all hold one colour (a flat-shaded primitive)
			// converts it once; the check costs about 12 ns per batch when
			// the colours vary. (A memo of the previous lane's colour
			// measured slower than plain conversion for the "tex" scene.)
			if w.batchUniform() {
				packed := unorm8(bt.Color[0][0]) | unorm8(bt.Color[1][0])<<8 |
					unorm8(bt.Color[2][0])<<16 | unorm8(bt.Color[3][0])<<24
				for m := mask; m != 0; m &= m - 1 {
					lane := mbits.TrailingZeros16(m)
					w.color[fb.quad[lane>>2]+laneOffset[lane&3]] = packed
				}
				return
			}
			w.storeBatch(mask)
			return
		}
		if w.batchUniform() {
			// One source colour for the batch (the "blend" scene): the memo
			// is keyed by the destination alone.
			bm := &w.memo
			src := [4]uint32{math.Float32bits(bt.Color[0][0]), math.Float32bits(bt.Color[1][0]),
				math.Float32bits(bt.Color[2][0]), math.Float32bits(bt.Color[3][0])}
			if bm.src != src {
				bm.valid = false
			}
			if mask == 0xFFFF {
				// A full batch (a 4×4 block): quad by quad, lanes in
				// order, without per-lane index arithmetic.
				for q := 0; q < 4; q++ {
					b := fb.quad[q]
					for l, off := range laneOffset {
						i := b + off
						dst := w.color[i]
						if !bm.valid || bm.dst != dst {
							*bm = blendMemo{valid: true, src: src, dst: dst, out: w.blendPixel(4*q+l, dst)}
						}
						w.color[i] = bm.out
					}
				}
				return
			}
			for m := mask; m != 0; m &= m - 1 {
				lane := mbits.TrailingZeros16(m)
				i := fb.quad[lane>>2] + laneOffset[lane&3]
				dst := w.color[i]
				if !bm.valid || bm.dst != dst {
					*bm = blendMemo{valid: true, src: src, dst: dst, out: w.blendPixel(lane, dst)}
				}
				w.color[i] = bm.out
			}
			return
		}
		if w.cfg.format.quant == nil && w.quadsDistinct(mask) { // colorLanes packs RGBA8
			w.colorBatch(mask)
			return
		}
		for m := mask; m != 0; m &= m - 1 {
			lane := mbits.TrailingZeros16(m)
			i := fb.quad[lane>>2] + laneOffset[lane&3]
			w.color[i] = w.blendMemo(lane, w.color[i])
		}
		return
	}
	// With no two lanes on one pixel the colour writes of the lanes that
	// pass do not depend on each other: they are made after the tests, 16
	// at a time (colorBatch). Otherwise each is made in lane order.
	batched := w.cfg.format.quant == nil && w.quadsDistinct(mask) // colorLanes packs RGBA8
	var write uint16
	if batched && !s.stencil {
		// Depth test alone, lanes on different pixels: each lane's test
		// and depth write touch only its own pixel (depth.go).
		write = w.depthBatch(mask)
		frags = uint64(mbits.OnesCount16(mask))
		passed := uint64(mbits.OnesCount16(write))
		w.perf.ctr[CtrFragmentsDepthFailed] += frags - passed
		w.perf.ctr[CtrFragmentsWritten] += passed
		w.samplesPassed += uint32(passed) // the occlusion counter (occlusion.go)
		if s.blend {
			w.perf.ctr[CtrFragmentsBlended] += passed
		}
		mask = 0 // the lane loop below has nothing left to do
	}
	for lane := 0; lane < qpu.Lanes; lane++ {
		if mask&(1<<lane) == 0 {
			continue
		}
		frags++
		i := fb.quad[lane>>2] + laneOffset[lane&3]
		zs := w.zs[i]
		stencil := zs >> 24
		face := &s.stencilFaces[0]
		if bt.FrontFacing[lane] == 0 {
			face = &s.stencilFaces[1]
		}
		if s.stencil && !compare(face.fn, face.ref&face.vmask, stencil&face.vmask) {
			w.zs[i] = zs&depthMax | stencilOp(face, face.sfail, stencil)<<24
			w.perf.ctr[CtrFragmentsDepthFailed]++
			continue
		}
		z := fb.z[lane]
		if bt.ZWritten {
			z = float64(bt.Z[lane])
		}
		if s.depthTest {
			z24 := depthTo24(z)
			if !compare(s.depthFunc, z24, zs&depthMax) {
				if s.stencil {
					w.zs[i] = zs&depthMax | stencilOp(face, face.zfail, stencil)<<24
				}
				w.perf.ctr[CtrFragmentsDepthFailed]++
				continue
			}
			if s.zUpdates {
				zs = zs&^depthMax | z24
			}
		}
		if s.stencil {
			zs = zs&depthMax | stencilOp(face, face.zpass, stencil)<<24
		}
		w.zs[i] = zs
		if batched {
			write |= 1 << lane
		} else {
			w.color[i] = w.blendMemo(lane, w.color[i])
		}
		w.perf.ctr[CtrFragmentsWritten]++
		w.samplesPassed++
		if s.blend {
			w.perf.ctr[CtrFragmentsBlended]++
		}
	}
	w.perf.fragments += frags
	if write != 0 {
		if !s.blend && s.colorMask == [4]bool{true, true, true, true} {
			w.storeBatch(write)
			return
		}
		w.colorBatch(write)
	}
}

// quadsDistinct reports whether the quads holding the lanes of mask lie
// on different pixels (a batch may hold quads of several primitives at
// one place).
func (w *worker) quadsDistinct(mask uint16) bool {
	if w.g.noLaneBatch {
		return false
	}
	q := &w.frag.quad
	u0, u1, u2, u3 := mask&0xF != 0, mask&0xF0 != 0, mask&0xF00 != 0, mask&0xF000 != 0
	return !(u0 && u1 && q[0] == q[1] || u0 && u2 && q[0] == q[2] || u0 && u3 && q[0] == q[3] ||
		u1 && u2 && q[1] == q[2] || u1 && u3 && q[1] == q[3] || u2 && u3 && q[2] == q[3])
}

// storeBatch writes the colour of the lanes of mask as RGBA8 without
// blending, all channels: the 16 lanes are converted at once (packLanes),
// then written in lane order (a pixel two lanes share gets the later one,
// as lane-by-lane writes leave it).
func (w *worker) storeBatch(mask uint16) {
	fb := &w.frag
	bl := &w.blend16
	packLanes(&w.batch.Color, &bl.out)
	for m := mask; m != 0; m &= m - 1 {
		lane := mbits.TrailingZeros16(m)
		w.color[fb.quad[lane>>2]+laneOffset[lane&3]] = bl.out[lane]
	}
}

// colorBatch blends and writes the colour of the lanes of mask, which lie
// on different pixels, 16 lanes at a time (blend16.go).
func (w *worker) colorBatch(mask uint16) {
	fb := &w.frag
	bl := &w.blend16
	for l := range qpu.Lanes {
		if mask&(1<<l) != 0 {
			bl.px[l] = w.color[fb.quad[l>>2]+laneOffset[l&3]]
		} else {
			bl.px[l] = 0
		}
	}
	w.colorLanes(bl)
	for m := mask; m != 0; m &= m - 1 {
		lane := mbits.TrailingZeros16(m)
		w.color[fb.quad[lane>>2]+laneOffset[lane&3]] = bl.px[lane]
	}
}

func stencilOp(f *stencilFace, op, s uint32) uint32 {
	var v uint32
	switch op {
	case 0:
		v = s
	case 1:
		v = 0
	case 2:
		v = f.ref
	case 3:
		v = min(s+1, 255)
	case 4:
		if s > 0 {
			v = s - 1
		}
	case 5:
		v = ^s
	case 6:
		v = s + 1
	case 7:
		v = s - 1
	}
	return (s&^f.wmask | v&f.wmask) & 0xFF
}

func clamp01(x float32) float32 {
	if !(x > 0) {
		return 0
	}
	if x > 1 {
		return 1
	}
	return x
}

// unorm8 converts to 8 bits with round(x·255); for x in [0,1] adding 0.5
// and truncating is that rounding.
func unorm8(x float32) uint32 { return uint32(clamp01(x)*255 + 0.5) }

// uniformColor reports whether every lane's colour has lane 0's bits. It
// compares 64-bit pairs of lanes without branching: a per-lane loop with an
// early exit took 78 ns per batch in the 1080p "fill" scene, more than the
// conversions it saves (profile of 2026-11-21).
func uniformColor(bt *qpu.Batch) bool {
	var diff uint64
	for c := range bt.Color {
		v := uint64(math.Float32bits(bt.Color[c][0]))
		v |= v << 32
		w := (*[qpu.Lanes / 2]uint64)(unsafe.Pointer(&bt.Color[c]))
		diff |= (w[0] ^ v) | (w[1] ^ v) | (w[2] ^ v) | (w[3] ^ v) | (w[4] ^ v) | (w[5] ^ v) | (w[6] ^ v) | (w[7] ^ v)
	}
	return diff == 0
}

// batchUniform is uniformColor of the batch, known without looking when
// its results came from the memo of a batch-invariant program.
func (w *worker) batchUniform() bool {
	if w.fromMemo {
		return w.fsMemo.uniform
	}
	return uniformColor(&w.batch)
}

// blendMemo is blendPixel through a one-entry memo of (source colour bits,
// destination pixel) → result, valid for the current blend state (setState
// and walk invalidate it). blendPixel is a pure function of those, so the
// result is the same bits; flat-coloured primitives over a uniform
// background hit almost always (the "blend" scene: 100 layers of one
// colour each, so one miss per tile and layer), and a miss costs five
// compares.
func (w *worker) blendMemo(lane int, dst uint32) uint32 {
	bt := &w.batch
	src := [4]uint32{math.Float32bits(bt.Color[0][lane]), math.Float32bits(bt.Color[1][lane]),
		math.Float32bits(bt.Color[2][lane]), math.Float32bits(bt.Color[3][lane])}
	bm := &w.memo
	if bm.valid && bm.dst == dst && bm.src == src {
		return bm.out
	}
	out := w.blendPixel(lane, dst)
	*bm = blendMemo{valid: true, src: src, dst: dst, out: out}
	return out
}

type blendMemo struct {
	valid bool
	src   [4]uint32
	dst   uint32
	out   uint32
}

// blendPixel blends the lane's colour over dst (packed RGBA8) and applies
// the colour mask.
func (w *worker) blendPixel(lane int, dst uint32) uint32 {
	s := &w.st
	bt := &w.batch
	if !s.blend && s.colorMask == [4]bool{true, true, true, true} && w.cfg.format.quant == nil {
		return unorm8(bt.Color[0][lane]) | unorm8(bt.Color[1][lane])<<8 |
			unorm8(bt.Color[2][lane])<<16 | unorm8(bt.Color[3][lane])<<24
	}
	src := [4]float32{clamp01(bt.Color[0][lane]), clamp01(bt.Color[1][lane]), clamp01(bt.Color[2][lane]), clamp01(bt.Color[3][lane])}
	return w.blendColor(&src, dst)
}

func blendFactor(f uint32, c int, src, dst *[4]float32, k *[4]float32) float32 {
	switch f {
	case 0:
		return 0
	case 1:
		return 1
	case 2:
		return src[c]
	case 3:
		return 1 - src[c]
	case 4:
		return dst[c]
	case 5:
		return 1 - dst[c]
	case 6:
		return src[3]
	case 7:
		return 1 - src[3]
	case 8:
		return dst[3]
	case 9:
		return 1 - dst[3]
	case 10:
		return clamp01(k[c])
	case 11:
		return 1 - clamp01(k[c])
	case 12:
		return clamp01(k[3])
	case 13:
		return 1 - clamp01(k[3])
	case 14:
		if c == 3 {
			return 1
		}
		return min(src[3], 1-dst[3])
	}
	return 0
}

// loadStore copies the tile's pixels inside the framebuffer between memory
// and the tile buffer (LOAD/STORE_TILE_BUFFER_GENERAL).
func (w *worker) loadStore(rec []byte, store bool) error {
	if store {
		if err := w.flushSegment(); err != nil {
			return err
		}
	}
	buf := rec[1] & 3
	addr, stride := u32(rec, 2), u32(rec, 6)
	if buf == 0 || w.x0 >= w.x1 || w.y0 >= w.y1 {
		return nil
	}
	if bit(rec, 10) && w.cfg.msaa {
		return w.loadStoreSamples(buf == 2, addr, stride, store)
	}
	src := w.color[:]
	if buf == 2 {
		src = w.zs[:]
	}
	n := w.x1 - w.x0
	bpp := 4
	if buf == 1 {
		bpp = w.cfg.format.bytes // colour formats (format.go)
	}
	if store {
		w.perf.ctr[CtrTileStores]++
		w.perf.ctr[CtrRenderBytesWritten] += uint64(n * (w.y1 - w.y0) * bpp)
	} else {
		w.perf.ctr[CtrTileLoads]++
		w.perf.ctr[CtrRenderBytesRead] += uint64(n * (w.y1 - w.y0) * bpp)
	}
	var row [maxTileSize * 4]byte
	for y := w.y0; y < w.y1; y++ {
		va := addr + uint32(y)*stride + uint32(w.x0*bpp)
		lo := (y - w.y0) * maxTileSize
		line := src[lo : lo+n]
		if buf == 1 && w.cfg.format.quant != nil {
			if err := w.loadStoreFormatRow(va, lo, line, row[:n*bpp], store); err != nil {
				return err
			}
			continue
		}
		if store {
			for i, v := range line {
				if w.cfg.msaa && buf == 1 {
					v = w.resolvePixel(lo + i)
				}
				binary.LittleEndian.PutUint32(row[i*4:], v)
			}
			if f := w.m.write(va, row[:n*4]); f != nil {
				return f
			}
		} else {
			if f := w.m.read(va, row[:n*4]); f != nil {
				return f
			}
			for i := range line {
				line[i] = binary.LittleEndian.Uint32(row[i*4:])
			}
			if w.cfg.msaa {
				w.replicateSamples(buf == 2, lo, lo+n)
			}
		}
	}
	return nil
}
