package hw

import (
	"sync/atomic"

	"github.com/tilegpu/tilegpu/hw/isa"
	"github.com/tilegpu/tilegpu/hw/qpu"
)

// Hidden-surface removal inside the tile (docs/hardware.md §5.1), the
// PowerVR / Mali forward-pixel-kill idea applied to whole primitive runs.
//
// Before rendering a tile the worker scans its list once without drawing
// (scanTile). A run — consecutive TILE_PRIMITIVEs with no state record
// between them — is an occluder candidate when its state makes every
// fragment it covers replace the pixel outright:
//
//   - no blending and all four colour channels written;
//   - a fragment shader that neither writes TLB_KILL nor TLB_Z (checked in
//     the program's code, not only in the shader record's flag);
//   - depth test off or ALWAYS, stencil test off or ALWAYS on both faces,
//     so every covered fragment reaches the colour buffer whatever the
//     depth/stencil buffer holds.
//
// Skipping everything before a primitive P of such a run changes nothing
// visible when P and the run's primitives after it cover every pixel of the
// tile (inside the framebuffer) and the skipped work leaves depth and
// stencil as they were, or the run overwrites them completely (depth
// written with ALWAYS; stencil set by ZERO/REPLACE through a full write
// mask). The scan keeps whether any primitive so far may have written depth
// (depth test on with ZUpdatesEnable) or stencil (stencil test on with an op
// other than KEEP under a non-zero write mask) and records a candidate run
// only where those conditions hold for every primitive of the run.
//
// Coverage needs window positions, so a candidate is checked by shading the
// vertices of its newest primitives (at most hsrMaxPrims primitives and
// hsrMaxVerts vertices) and running the exact rasteriser (clipping,
// snapping, culling, fill rule) in coverage-only mode, newest primitive
// first, into a 64×64 bit mask; the skip point is the primitive at which
// the mask becomes full. The newest candidates are checked first, at most
// hsrMaxChecks of them: the cost a tile can add is bounded by that many
// segments of vertex shading and coverage rasterisation. The render pass
// then walks the list again, applies every state record and drops the
// TILE_PRIMITIVEs before the skip point (PERF_HSR_PRIMITIVES counts them).
// A list the scan cannot get through (a fault, a malformed record) is
// rendered in order, so it fails exactly where it always did.
//
// Work that is skipped is never executed, as on the hardware this models:
// a page fault or a watchdog-length shader inside hidden work is not
// reported.

// tilePrimSize is the size of a TILE_PRIMITIVE record.
const tilePrimSize = 14

const (
	// hsrMaxPrims and hsrMaxVerts bound the primitives and vertices of a
	// candidate whose coverage is computed.
	hsrMaxPrims = 1024
	hsrMaxVerts = 1024
	// hsrKeep is how many of the newest candidates the scan remembers.
	hsrKeep = 4
	// hsrMaxChecks bounds the candidates whose coverage is computed.
	hsrMaxChecks = 4
)

// hsrPrim is one TILE_PRIMITIVE of a candidate run.
type hsrPrim struct {
	ord    int // ordinal of its record in the tile-list walk
	kind   uint8
	stored bool // TILE_PRIMITIVE_STORED: v are vertex-store addresses
	v      [3]uint32
}

// hsrCandidate is an occluder candidate run found by scanTile; prims is a
// ring of its newest hsrMaxPrims primitives.
type hsrCandidate struct {
	n     int // TILE_PRIMITIVEs in the run
	st    renderState
	prims [hsrMaxPrims]hsrPrim
}

// hsrScan is the scan's state, kept in the worker so nothing is allocated
// per tile.
type hsrScan struct {
	cands [hsrKeep]hsrCandidate
	n     int // candidates recorded (the newest hsrKeep are kept)
	cov   [maxTileSize]uint64
	// covering: rasterTri records coverage in cov instead of shading.
	covering bool
	rec      [maxRecordSize]byte
}

// stateOccludes reports whether fragments drawn with s always replace the
// pixel's colour (the shader check comes later, with the program).
func stateOccludes(s *renderState) bool {
	if s.blend || s.colorMask != [4]bool{true, true, true, true} {
		return false
	}
	if s.depthTest && s.depthFunc != 7 {
		return false
	}
	if s.stencil && (s.stencilFaces[0].fn != 7 || s.stencilFaces[1].fn != 7) {
		return false
	}
	return true
}

// writesDepth: a primitive drawn with s may change the depth buffer.
func writesDepth(s *renderState) bool { return s.depthTest && s.zUpdates && s.depthFunc != 0 }

// writesStencil: a primitive drawn with s may change the stencil buffer.
func writesStencil(s *renderState) bool {
	if !s.stencil {
		return false
	}
	for _, f := range s.stencilFaces {
		if f.wmask&0xFF != 0 && (f.sfail != 0 || f.zfail != 0 || f.zpass != 0) {
			return true
		}
	}
	return false
}

// overwritesDepth: an occluding primitive drawn with s sets the depth of
// every pixel it covers, whatever was there.
func overwritesDepth(s *renderState) bool { return s.depthTest && s.zUpdates && s.depthFunc == 7 }

// overwritesStencil: an occluding primitive drawn with s sets the stencil
// of every pixel it covers to a value that does not depend on the old one.
func overwritesStencil(s *renderState) bool {
	if !s.stencil {
		return false
	}
	for _, f := range s.stencilFaces {
		if f.wmask&0xFF != 0xFF || (f.zpass != 1 && f.zpass != 2) {
			return false
		}
	}
	return true
}

// programReplacesPixels reports whether p writes neither TLB_KILL nor
// TLB_Z in any instruction (reached or not).
func programReplacesPixels(p *qpu.Program) bool {
	for _, word := range p.Code() {
		in, err := isa.Decode(word)
		if err != nil {
			return false
		}
		for _, wa := range [2]isa.Waddr{in.WaddrAdd, in.WaddrMul} {
			if wa == isa.WaddrTLBKill || wa == isa.WaddrTLBZ {
				return false
			}
		}
	}
	return true
}

// programWritesZ reports whether some instruction of p (reached or not)
// writes TLB_Z.
func programWritesZ(p *qpu.Program) bool {
	for _, word := range p.Code() {
		in, err := isa.Decode(word)
		if err != nil {
			return true
		}
		if in.WaddrAdd == isa.WaddrTLBZ || in.WaddrMul == isa.WaddrTLBZ {
			return true
		}
	}
	return false
}

// fsWritesZ is programWritesZ of the current fragment program, remembered
// for the last program asked about.
func (w *worker) fsWritesZ() bool {
	if w.zProg != w.fsProg {
		w.zProg, w.zWrites = w.fsProg, programWritesZ(w.fsProg)
	}
	return w.zWrites
}

// scanTile walks the tile list at va without drawing and returns the
// ordinal of the first TILE_PRIMITIVE that must be drawn (0: all of them).
func (w *worker) scanTile(va uint32, stop *atomic.Bool) (int, error) {
	hs := &w.hsr
	hs.n = 0
	w.st = defaultRenderState()
	var rd listReader
	rd.init(w.m)
	modDepth, modStencil := false, false
	inRun := false     // the previous primitive-or-state record was a TILE_PRIMITIVE
	firstCounted := -1 // ordinal of the first primitive drawn under an occlusion counter
	var cur *hsrCandidate
	for count := 0; ; count++ {
		if count >= maxTileRecords {
			return 0, clErrorf("tile list at %#x: more than %d records", va, maxTileRecords)
		}
		if count&63 == 63 && (stop.Load() || w.r.e.aborted(w.r.gen)) {
			return 0, errAborted
		}
		rec, err := rd.next(va, &hs.rec)
		if err != nil {
			return 0, err
		}
		op := rec[0]
		recVA := va
		va += uint32(len(rec))
		switch op {
		case opNOP, opMarker:
			// A draw marker changes no state: primitives on both sides
			// may belong to one run (the render walk counts it as a
			// record too, so the ordinals agree).
		case opBranch:
			va = u32(rec, 1)
		case opReturnFromSubList:
			ord, err := w.chooseOccluder()
			if firstCounted >= 0 {
				// A primitive drawn under an occlusion counter must be
				// drawn: its passing samples are counted even when a
				// later run hides them. Dropping fewer primitives than
				// the run allows is always correct.
				ord = min(ord, firstCounted)
			}
			return ord, err
		case opTilePrimitive, opTilePrimitiveStored:
			if rec[1] > tilePrimTriangle {
				return 0, clErrorf("TILE_PRIMITIVE mode %d", rec[1])
			}
			if firstCounted < 0 && w.st.occlusionVA != 0 {
				firstCounted = count
			}
			if !inRun {
				inRun = true
				cur = nil
				s := &w.st
				modDepth = modDepth || writesDepth(s)
				modStencil = modStencil || writesStencil(s)
				if s.haveShader && stateOccludes(s) &&
					(!modDepth || overwritesDepth(s)) && (!modStencil || overwritesStencil(s)) {
					cur = &hs.cands[hs.n%hsrKeep]
					cur.n, cur.st = 0, *s
					hs.n++
				}
			}
			if cur != nil {
				cur.prims[cur.n%hsrMaxPrims] = hsrPrim{ord: count, kind: rec[1], stored: op == opTilePrimitiveStored,
					v: [3]uint32{u32(rec, 2), u32(rec, 6), u32(rec, 10)}}
				cur.n++
			} else {
				// Outside a candidate run the scan only counts primitives:
				// step over the ones that follow in this page at once (a
				// dense mesh's tile list is almost all TILE_PRIMITIVEs).
				// Stopping 63 short of the next multiple of 64 keeps the
				// abort check below on its schedule.
				n := rd.skipPrims(va, min(maxTileRecords-1-count, 62-count&63))
				va += uint32(n * tilePrimSize)
				count += n
			}
		default:
			if !isTileState(op) {
				return 0, clErrorf("tile list at %#x: record %d not allowed in a tile list", recVA, op)
			}
			inRun = false
			w.setState(rec)
		}
	}
}

// chooseOccluder checks the newest candidates' coverage and returns the
// ordinal of the newest skip point found (0: none).
func (w *worker) chooseOccluder() (int, error) {
	hs := &w.hsr
	for k, checks := hs.n-1, 0; k >= 0 && k >= hs.n-hsrKeep && checks < hsrMaxChecks; k, checks = k-1, checks+1 {
		ord, err := w.covers(&hs.cands[k%hsrKeep])
		if err != nil || ord > 0 {
			return ord, err
		}
	}
	return 0, nil
}

// covers shades the vertices of the candidate's newest primitives and
// returns the ordinal of the primitive from which the run covers every
// pixel of the tile inside the framebuffer (0: it does not).
func (w *worker) covers(c *hsrCandidate) (int, error) {
	w.st = c.st
	w.srValid = false
	w.prims = w.prims[:0]
	w.uniq = w.uniq[:0]
	defer func() {
		w.prims = w.prims[:0]
		w.uniq = w.uniq[:0]
	}()
	if err := w.prepareShaders(); err != nil {
		return 0, err
	}
	if w.sr.flags&shaderFlagDiscardsOrZ != 0 || !programReplacesPixels(w.fsProg) {
		return 0, nil
	}
	// Newest first, triangles only, within one segment's limits; ords[i]
	// is the ordinal of w.prims[i].
	var ords [hsrMaxPrims]int
	for i := c.n - 1; i >= 0 && i >= c.n-hsrMaxPrims; i-- {
		p := &c.prims[i%hsrMaxPrims]
		if p.kind != tilePrimTriangle {
			continue
		}
		if len(w.uniq)+3 > hsrMaxVerts {
			break
		}
		// One segment holds one kind of vertex reference.
		if len(w.prims) == 0 {
			w.segStored = p.stored
		} else if p.stored != w.segStored {
			break
		}
		ords[len(w.prims)] = p.ord
		w.queuePrim(p.kind, &p.v)
	}
	if len(w.prims) == 0 {
		return 0, nil
	}
	if err := w.segmentVertices(); err != nil {
		return 0, err
	}
	w.setupRaster()
	w.newWindowSegment()
	r := &w.ras
	// A scissor that cuts the tile leaves pixels uncovered: no need to look.
	if r.x0 != w.x0 || r.y0 != w.y0 || r.x1 != w.x1 || r.y1 != w.y1 {
		return 0, nil
	}
	hs := &w.hsr
	hs.cov = [maxTileSize]uint64{}
	hs.covering = true
	defer func() { hs.covering = false }()
	full := uint64(1)<<(w.x1-w.x0) - 1
	if w.x1-w.x0 == 64 {
		full = ^uint64(0)
	}
	rows := hs.cov[:w.y1-w.y0]
	for i := range w.prims {
		if err := w.drawPrim(&w.prims[i]); err != nil {
			return 0, err
		}
		covered := true
		for _, row := range rows {
			if row&full != full {
				covered = false
				break
			}
		}
		if covered {
			return ords[i], nil
		}
	}
	return 0, nil
}

// cover records the pixels of [px0,px1)×[py0,py1) inside the three edge
// functions in hsr.cov (rows relative to the tile).
func (w *worker) cover(e0, e1, e2 *edge, px0, py0, px1, py1 int) {
	cx := int64(px0)*subPixelOne + subPixelOne/2
	cy := int64(py0)*subPixelOne + subPixelOne/2
	r0, r1, r2 := e0.at(cx, cy), e1.at(cx, cy), e2.at(cx, cy)
	for y := py0; y < py1; y++ {
		f0, f1, f2 := r0, r1, r2
		var bitsRow uint64
		for x := px0; x < px1; x++ {
			if f0|f1|f2 >= 0 {
				bitsRow |= 1 << (x - w.x0)
			}
			f0, f1, f2 = f0+e0.sx, f1+e1.sx, f2+e2.sx
		}
		w.hsr.cov[y-w.y0] |= bitsRow
		r0, r1, r2 = r0+e0.sy, r1+e1.sy, r2+e2.sy
	}
}

// listReader reads tile-list records through the MMU, keeping the rest of
// the current page so a record inside it costs no translation.
type listReader struct {
	m    *mmu
	base uint32 // VA of page[0]
	page []byte // from base to the end of its page; nil = none
}

func (r *listReader) init(m *mmu) { r.m, r.base, r.page = m, 0, nil }

// skipPrims returns how many consecutive TILE_PRIMITIVE records with a
// valid mode start at va inside the cached page, at most max.
func (r *listReader) skipPrims(va uint32, max int) int {
	if va-r.base >= uint32(len(r.page)) {
		return 0
	}
	page := r.page[va-r.base:]
	n := 0
	for n < max && len(page) >= tilePrimSize && (page[0] == opTilePrimitive || page[0] == opTilePrimitiveStored) && page[1] <= tilePrimTriangle {
		page = page[tilePrimSize:]
		n++
	}
	return n
}

// next returns the record at va (a slice of the page or of buf), faulting
// exactly where mmu.read would.
func (r *listReader) next(va uint32, buf *[maxRecordSize]byte) ([]byte, error) {
	if va-r.base >= uint32(len(r.page)) {
		p, f := r.m.page(va, false)
		if f != nil {
			return nil, f
		}
		r.page, r.base = p, va
	}
	off := int(va - r.base)
	op := r.page[off]
	n := int(recordSize[op])
	if n == 0 {
		return nil, clErrorf("tile list at %#x: unknown opcode %d", va, op)
	}
	if off+n <= len(r.page) {
		return r.page[off : off+n], nil
	}
	buf[0] = op
	if f := r.m.read(va+1, buf[1:n]); f != nil {
		return nil, f
	}
	return buf[:n], nil
}
