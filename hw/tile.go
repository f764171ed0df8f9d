package hw

import (
	"encoding/binary"
	"math"
	"sync/atomic"

	"github.com/tilegpu/tilegpu/hw/qpu"
)

// Per-tile work of one render worker: walk the tile list, shade the
// vertices of each run of primitives that share state, rasterise, shade
// fragments and resolve them in the tile buffer.

const (
	maxTileSize = 64
	tilePixels  = maxTileSize * maxTileSize

	// segment limits: the vertex shader runs once per unique vertex of a
	// segment, so a vertex shared by triangles of two segments is shaded
	// twice. 4096 rather than 1024: a 1080p tile of a dense mesh holds
	// several thousand triangles of a few neighbouring strips, and with
	// 1024 the strips' shared vertices were shaded again in every segment.
	// 4096 vertices keep the dedupe table at ≤25% load.
	segMaxVerts = 4096
	segMaxPrims = 4096
	dedupeSize  = 16384
	dedupeBits  = 14 // log2(dedupeSize)

	// maxTileRecords bounds one tile's list walk so a BRANCH loop ends in
	// CL_ERROR instead of a hang.
	maxTileRecords = 1 << 24
)

type stencilFace struct {
	fn, ref, vmask, wmask uint32
	sfail, zfail, zpass   uint32
}

// renderState is the decoded tile-list state.
type renderState struct {
	shaderVA   uint32
	attrCount  int
	haveShader bool

	cfgForward, cfgReverse, cfgCW bool
	depthOffset, depthTest        bool
	depthFunc                     uint32
	zUpdates, earlyZ, stencil     bool
	// multisample coverage (CONFIGURATION_BITS, msaa.go)
	a2c, covEnable bool
	covMask        uint32

	flat                 uint32
	pointSize, lineWidth float32
	offFactor, offUnits  float32

	clipL, clipB, clipR, clipT int
	vpX, vpY                   float32
	zScale, zOffset            float32
	scaleX, scaleY             float32

	blend          bool
	eqRGB, eqA     uint32
	srcRGB, dstRGB uint32
	srcA, dstA     uint32
	blendConst     [4]float32
	colorMask      [4]bool
	stencilFaces   [2]stencilFace

	clipHalfZ bool // CONFIGURATION_BITS ClipHalfZ: near plane at z = 0

	// occlusionVA is OCCLUSION_QUERY_COUNTER's address (0: no counter).
	occlusionVA uint32
}

func defaultRenderState() renderState {
	return renderState{
		cfgForward: true, cfgReverse: true,
		depthFunc: 7, pointSize: 1, lineWidth: 1,
		clipL: 0, clipB: 0, clipR: 1 << 30, clipT: 1 << 30,
		zScale: 0.5, zOffset: 0.5,
		srcRGB: 1, srcA: 1,
		colorMask:    [4]bool{true, true, true, true},
		stencilFaces: [2]stencilFace{{fn: 7, vmask: 0xFF, wmask: 0xFF}, {fn: 7, vmask: 0xFF, wmask: 0xFF}},
	}
}

// segPrim is a primitive waiting in the current segment.
type segPrim struct {
	kind uint8
	slot [3]uint16
}

type worker struct {
	g  *GPU
	r  *renderer
	id int
	m  *mmu

	core  *qpu.Core
	batch qpu.Batch
	cfg   renderConfig

	color [tilePixels]uint32
	zs    [tilePixels]uint32
	// samplesPassed counts the samples that passed the stencil and depth
	// tests since the tile or the occlusion counter began (occlusion.go).
	samplesPassed uint32
	// tile rectangle in window pixels, clipped to the framebuffer
	x0, y0, x1, y1 int

	st       renderState
	sr       shaderRecord
	srVA     uint32
	srCount  int
	srValid  bool
	vsProg   *qpu.Program
	fsProg   *qpu.Program
	fsIn     qpu.FragmentInputs // what fsProg reads: emitQuad fills only those
	zProg    *qpu.Program       // the program zWrites is about (fsWritesZ)
	zWrites  bool
	programs map[uint32]*qpu.Program

	prims []segPrim
	// segStored: the segment's vertex keys are addresses of stored
	// vertices (TILE_PRIMITIVE_STORED), read instead of shaded.
	segStored bool
	hkey      [dedupeSize]uint32
	hstamp    [dedupeSize]uint32
	hslot     [dedupeSize]uint16
	stamp     uint32
	uniq      []uint32
	vout      []float32 // per unique vertex: x y z w psize varyings...
	vstride   int

	// win[slot] is the window position of the segment's vertex slot, valid
	// when winStamp[slot] == winSeg (bumped for every shaded segment).
	win      [segMaxVerts]winVert
	winStamp [segMaxVerts]uint32
	winSeg   uint32

	clip clipper
	ras  rasterState
	frag fragBatch
	perf perfCounts   // added to GPU.perf at the end of each tile
	stop *atomic.Bool // set when another tile of the job failed
	cost tileCost     // this tile's, for the tile trace
	// overdraw is DebugOverdraw, sampled at each tile's start.
	overdraw bool
	memo     blendMemo
	hsr      hsrScan

	// Batch-invariant fragment programs (invariant.go): the results of
	// the last real batch, whether the last program asked about is
	// invariant, whether the batch being resolved came from the memo,
	// and whether the last vertex program asked about may store.
	fsMemo    fsMemo
	invProg   *qpu.Program
	invOK     bool
	fromMemo  bool
	storeProg *qpu.Program
	vsStores  bool
	blend16   blendLanes         // colorBatch's scratch
	depthZ    [qpu.Lanes]float64 // depthBatch's TLB_Z depths

	rec [maxRecordSize]byte

	ms msaaTile // samples 1..3 with Multisample4x
}

func newWorker(g *GPU, r *renderer, id int) *worker {
	w := &worker{g: g, r: r, id: id, m: newMMU(g.mem, EngineRender)}
	w.m.useEpoch(&g.tlbEpoch)
	w.core = qpu.NewCore(w.m)
	w.core.NoNative = g.noNative
	w.core.StepLimit = 0 // no per-batch bound: the kernel's watchdog decides what is hung
	w.core.Poll = w.poll
	// Pages live until the next job start (renderer.run flushes them with
	// the MMU's TLB) or the next TLB shootdown, which the core notices
	// through the MMU's PageEpoch.
	w.core.RetainPages(true)
	w.batch.VPMIn = make([]float32, vpmInWords*qpu.Lanes)
	w.batch.VPMOut = make([]float32, 256*qpu.Lanes)
	w.batch.Varyings = make([]float32, maxVaryings*qpu.Lanes)
	w.prims = make([]segPrim, 0, segMaxPrims)
	w.uniq = make([]uint32, 0, segMaxVerts)
	w.programs = make(map[uint32]*qpu.Program)
	return w
}

// poll is the shader core's Poll: a long shader publishes the counts of
// the batches finished so far (the watchdog's progress signal counts
// finished work, not instructions of a batch that may never end) and
// stops when RESET abandons the job or another tile failed.
func (w *worker) poll(uint64) error {
	w.perf.flushTo(w.g)
	if (w.stop != nil && w.stop.Load()) || w.r.e.aborted(w.r.gen) {
		return errAborted
	}
	return nil
}

// renderTile renders one tile job.
func (w *worker) renderTile(j *tileJob, stop *atomic.Bool) error {
	defer w.perf.flushTo(w.g)
	w.stop = stop
	w.cost = tileCost{start: w.g.timestamp()}
	if w.id < MaxMarkerCores {
		w.g.markers.tile[w.id].Store(uint32(j.col) | uint32(j.row)<<8 | TileValid)
	}
	ts := w.cfg.tsize
	w.x0, w.y0 = j.col*ts, j.row*ts
	w.x1, w.y1 = min(w.x0+ts, w.cfg.width), min(w.y0+ts, w.cfg.height)
	w.overdraw = w.g.debugMode.Load()&DebugOverdraw != 0
	clearColor := j.clear.color
	if w.overdraw {
		clearColor = overdrawBase
	}
	for i := range w.color {
		w.color[i] = clearColor
		w.zs[i] = j.clear.zs
	}
	if w.cfg.msaa {
		w.clearSamples(j.clear.color, j.clear.zs)
	}
	clear(w.programs)
	cl := w.r.cl[j.start:j.end]
	for off := 0; off < len(cl); {
		op := cl[off]
		n := int(recordSize[op])
		rec := cl[off : off+n]
		off += n
		var err error
		switch op {
		case opLoadTileBuffer:
			err = w.loadStore(rec, false)
		case opStoreTileBuffer:
			err = w.loadStore(rec, true)
		case opBranchToSubList:
			skip := 0
			// HSR decides coverage at pixel centres: not with samples.
			if !w.g.noHSR && !w.cfg.msaa && !w.cfg.noHSR {
				// A list the scan cannot get through is rendered in order,
				// so it fails exactly where it always did.
				if skip, err = w.scanTile(u32(rec, 1), stop); err == errAborted {
					return err
				}
			}
			err = w.walk(u32(rec, 1), skip, stop)
		}
		if err != nil {
			return err
		}
	}
	w.perf.ctr[CtrTiles]++
	w.traceTile(j.col, j.row)
	return nil
}

// walk executes a tile list until RETURN_FROM_SUB_LIST. TILE_PRIMITIVEs
// whose ordinal in the walk is below skip are hidden (hsr.go) and dropped;
// every state record is still applied.
func (w *worker) walk(va uint32, skip int, stop *atomic.Bool) error {
	w.st = defaultRenderState()
	w.memo.valid = false
	w.fsMemo.valid = false // the uniform stream is read again in every tile
	w.srValid = false
	// A segment a RESET or a failing tile abandoned leaves its vertices
	// behind: they belong to another job, maybe another context.
	w.prims = w.prims[:0]
	w.uniq = w.uniq[:0]
	w.frag.n = 0
	w.samplesPassed = 0
	var rd listReader
	rd.init(w.m)
	for count := 0; ; count++ {
		if count >= maxTileRecords {
			return clErrorf("tile list at %#x: more than %d records", va, maxTileRecords)
		}
		if count&63 == 63 && (stop.Load() || w.r.e.aborted(w.r.gen)) {
			return errAborted
		}
		rec, err := rd.next(va, &w.rec)
		if err != nil {
			return err
		}
		op := rec[0]
		n := len(rec)
		va += uint32(n)
		switch op {
		case opNOP:
		case opMarker:
			// Shade what came before under the previous marker, so the
			// core's MARKER register names the draw it is working on.
			if err := w.flushSegment(); err != nil {
				return err
			}
			if w.id < MaxMarkerCores {
				w.g.markers.core[w.id].Store(u32(rec, 1))
			}
		case opBranch:
			va = u32(rec, 1)
		case opReturnFromSubList:
			if err := w.flushSegment(); err != nil {
				return err
			}
			return w.flushOcclusion()
		case opTilePrimitive, opTilePrimitiveStored:
			if count < skip {
				if rec[1] > tilePrimTriangle {
					return clErrorf("TILE_PRIMITIVE mode %d", rec[1])
				}
				w.perf.ctr[CtrHSRPrimitives]++
				continue
			}
			if err := w.addPrim(rec); err != nil {
				return err
			}
		default:
			if !isTileState(op) {
				return clErrorf("tile list at %#x: record %d not allowed in a tile list", va-uint32(n), op)
			}
			if err := w.flushSegment(); err != nil {
				return err
			}
			if op == opOcclusionCounter {
				if err := w.flushOcclusion(); err != nil {
					return err
				}
			}
			w.setState(rec)
		}
	}
}

func (w *worker) setState(r []byte) {
	w.memo.valid = false
	s := &w.st
	switch r[0] {
	case opGLShaderState:
		va, cnt := u32(r, 1), int(r[5])
		if !w.srValid || va != w.srVA || cnt != w.srCount {
			w.srValid = false
		}
		s.shaderVA, s.attrCount, s.haveShader = va, cnt, true
	case opConfigurationBits:
		s.cfgForward, s.cfgReverse, s.cfgCW = bit(r, 8), bit(r, 9), bit(r, 10)
		s.depthOffset, s.depthTest = bit(r, 11), bit(r, 12)
		s.depthFunc = bits(r, 16, 3)
		s.zUpdates, s.earlyZ, s.stencil = bit(r, 19), bit(r, 20), bit(r, 21)
		s.clipHalfZ = bit(r, 22)
		s.a2c, s.covEnable, s.covMask = bit(r, 25), bit(r, 26), bits(r, 28, 4)
	case opFlatShadeFlags:
		s.flat = u32(r, 1)
	case opPointSize:
		s.pointSize = f32(r, 1)
	case opLineWidth:
		s.lineWidth = f32(r, 1)
	case opDepthOffset:
		s.offFactor, s.offUnits = f32(r, 1), f32(r, 5)
	case opClipWindow:
		l, b := int(u16(r, 1)), int(u16(r, 3))
		s.clipL, s.clipB, s.clipR, s.clipT = l, b, l+int(u16(r, 5)), b+int(u16(r, 7))
	case opViewportOffset:
		s.vpX, s.vpY = f32(r, 1), f32(r, 5)
	case opClipperZ:
		s.zScale, s.zOffset = f32(r, 1), f32(r, 5)
	case opClipperXY:
		s.scaleX, s.scaleY = f32(r, 1), f32(r, 5)
	case opBlendConfig:
		s.blend = bit(r, 8)
		s.eqRGB, s.eqA = bits(r, 12, 4), bits(r, 16, 4)
		s.srcRGB, s.dstRGB = bits(r, 20, 4), bits(r, 24, 4)
		s.srcA, s.dstA = bits(r, 28, 4), bits(r, 32, 4)
	case opBlendConstant:
		for i := range s.blendConst {
			s.blendConst[i] = f32(r, 1+4*i)
		}
	case opColorMask:
		for i := range s.colorMask {
			s.colorMask[i] = bit(r, 8+i)
		}
	case opStencilConfig:
		f := stencilFace{
			fn: bits(r, 12, 3), ref: uint32(r[2]), vmask: uint32(r[3]), wmask: uint32(r[4]),
			sfail: bits(r, 40, 3), zfail: bits(r, 44, 3), zpass: bits(r, 48, 3),
		}
		face := r[1] & 3
		if face != 1 {
			s.stencilFaces[0] = f
		}
		if face != 0 {
			s.stencilFaces[1] = f
		}
	case opOcclusionCounter:
		s.occlusionVA = u32(r, 1)
	}
}

// prepareShaders loads the shader record and programs of the current state.
func (w *worker) prepareShaders() error {
	if w.srValid {
		return nil
	}
	s := &w.st
	if !s.haveShader {
		return clErrorf("tile primitive before GL_SHADER_STATE")
	}
	if err := loadShaderRecord(w.m, s.shaderVA, s.attrCount, &w.sr); err != nil {
		return err
	}
	if w.sr.numVaryings > maxVaryings {
		return clErrorf("shader record with %d varyings (max %d)", w.sr.numVaryings, maxVaryings)
	}
	var err error
	if w.vsProg, err = w.program(w.sr.vsCode); err != nil {
		return err
	}
	if w.fsProg, err = w.program(w.sr.fsCode); err != nil {
		return err
	}
	w.fsIn = w.fsProg.ReadsFragmentInputs()
	w.srVA, w.srCount, w.srValid = s.shaderVA, s.attrCount, true
	w.vstride = 5 + w.sr.numVaryings
	return nil
}

func (w *worker) program(pc uint32) (*qpu.Program, error) {
	if p, ok := w.programs[pc]; ok {
		return p, nil
	}
	p, err := w.r.programs.get(w.m, pc)
	if err != nil {
		return nil, err
	}
	w.programs[pc] = p
	return p, nil
}

// addPrim queues a TILE_PRIMITIVE or TILE_PRIMITIVE_STORED, giving each
// vertex a slot in the segment's dedupe table. A segment holds one kind:
// its vertices are either shaded or read from the vertex store.
func (w *worker) addPrim(r []byte) error {
	kind := r[1]
	if kind > tilePrimTriangle {
		return clErrorf("TILE_PRIMITIVE mode %d", kind)
	}
	stored := r[0] == opTilePrimitiveStored
	if len(w.prims) > 0 && (len(w.prims) >= segMaxPrims || len(w.uniq)+3 > segMaxVerts || stored != w.segStored) {
		if err := w.flushSegment(); err != nil {
			return err
		}
	}
	if len(w.prims) == 0 {
		if err := w.prepareShaders(); err != nil {
			return err
		}
		w.segStored = stored
	}
	v := [3]uint32{u32(r, 2), u32(r, 6), u32(r, 10)}
	w.queuePrim(kind, &v)
	return nil
}

// queuePrim appends a primitive to the segment, giving each vertex a slot
// in the segment's dedupe table; the segment has room for it.
func (w *worker) queuePrim(kind uint8, vs *[3]uint32) {
	if len(w.prims) == 0 && len(w.uniq) == 0 {
		w.stamp++
		if w.stamp == 0 { // wrapped: forget every old stamp
			w.hstamp = [dedupeSize]uint32{}
			w.stamp = 1
		}
	}
	p := segPrim{kind: kind}
	for k := 0; k <= int(kind); k++ {
		v := vs[k]
		h := (v * 0x9E3779B1) >> (32 - dedupeBits)
		for {
			if w.hstamp[h] != w.stamp {
				w.hstamp[h], w.hkey[h] = w.stamp, v
				w.hslot[h] = uint16(len(w.uniq))
				w.uniq = append(w.uniq, v)
				break
			}
			if w.hkey[h] == v {
				break
			}
			h = (h + 1) & (dedupeSize - 1)
		}
		p.slot[k] = w.hslot[h]
	}
	w.prims = append(w.prims, p)
}

// flushSegment shades the segment's vertices and rasterises its primitives.
func (w *worker) flushSegment() error {
	if len(w.prims) == 0 {
		return w.flushFragments()
	}
	if err := w.segmentVertices(); err != nil {
		return err
	}
	w.setupRaster()
	w.newWindowSegment()
	for i := range w.prims {
		if i&15 == 15 && w.r.e.aborted(w.r.gen) {
			return errAborted
		}
		if err := w.drawPrim(&w.prims[i]); err != nil {
			return err
		}
	}
	w.prims = w.prims[:0]
	w.uniq = w.uniq[:0]
	err := w.flushFragments()
	// A segment is up to segMaxPrims primitives: publish its counts now so
	// the kernel's watchdog sees a long tile making progress.
	w.perf.flushProgress(w.g)
	return err
}

// newWindowSegment forgets the cached window positions (the vertex slots
// now hold another segment's vertices, or the viewport changed).
func (w *worker) newWindowSegment() {
	w.winSeg++
	if w.winSeg == 0 { // wrapped: forget every old stamp
		w.winStamp = [segMaxVerts]uint32{}
		w.winSeg = 1
	}
}

// segmentVertices fills w.vout for the segment's unique vertices: read
// from the vertex store or shaded.
func (w *worker) segmentVertices() error {
	if w.segStored {
		return w.loadStored()
	}
	return w.shadeVertices()
}

// loadStored reads the segment's unique vertices from the binner's vertex
// store (vstore.go): at each address, vstride words in w.vout's layout.
// Neighbouring vertices of a mesh share pages: the last page is kept.
func (w *worker) loadStored() error {
	n := len(w.uniq)
	need := n * w.vstride
	if cap(w.vout) < need {
		w.vout = make([]float32, need, segMaxVerts*(5+maxVaryings))
	}
	w.vout = w.vout[:need]
	size := uint32(4 * w.vstride)
	var tmp [4 * storeWordsMax]byte
	var page []byte
	pageVA := uint32(1)
	for i, va := range w.uniq {
		var src []byte
		if off := va & pageMask; off+size <= pageSize {
			if va&^pageMask != pageVA {
				p, f := w.m.page(va&^pageMask, false)
				if f != nil {
					return f
				}
				page, pageVA = p, va&^pageMask
			}
			src = page[off : off+size]
		} else {
			if f := w.m.read(va, tmp[:size]); f != nil {
				return f
			}
			src = tmp[:size]
		}
		o := w.vout[i*w.vstride : (i+1)*w.vstride]
		if hostLittleEndian {
			copy(floatBytes(o), src)
			continue
		}
		for k := range o {
			o[k] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*k:]))
		}
	}
	w.perf.ctr[CtrVSStoredVertices] += uint64(n)
	return nil
}

// shadeVertices runs the vertex shader on the segment's unique vertices.
func (w *worker) shadeVertices() error {
	n := len(w.uniq)
	need := n * w.vstride
	if cap(w.vout) < need {
		w.vout = make([]float32, need, segMaxVerts*(5+maxVaryings))
	}
	w.vout = w.vout[:need]
	sr := &w.sr
	bt := &w.batch
	writesPS := sr.flags&shaderFlagWritesPointSize != 0
	vbase := 4
	if writesPS {
		vbase = 5
	}
	var idx [qpu.Lanes]uint32
	for s := 0; s < n; s += qpu.Lanes {
		cnt := min(qpu.Lanes, n-s)
		copy(idx[:], w.uniq[s:s+cnt])
		if err := loadAttributes(w.m, sr, idx[:cnt], bt.VPMIn); err != nil {
			return err
		}
		bt.Stage = qpu.StageVertex
		bt.UniformsVA = sr.vsUniforms
		bt.QPUNumber = uint32(w.id + 1)
		bt.LaneMask = uint16(1<<cnt - 1)
		if err := runShader(w.g, w.core, w.m, w.vsProg, bt); err != nil {
			return err
		}
		w.perf.qpuInstructions += bt.Instructions
		w.perf.takeCore(w.core, EngineRender)
		w.perf.vertices += uint64(cnt)
		w.perf.ctr[CtrVSInstructions] += bt.Instructions
		w.perf.ctr[CtrVSBytesRead] += uint64(cnt) * attributeBytes(sr)
		w.cost.instructions += bt.Instructions
		w.perf.ctr[CtrVSVertices] += uint64(cnt)
		for l := 0; l < cnt; l++ {
			o := w.vout[(s+l)*w.vstride:]
			o[0], o[1], o[2], o[3] = bt.VPMOut[l], bt.VPMOut[16+l], bt.VPMOut[32+l], bt.VPMOut[48+l]
			o[4] = w.st.pointSize
			if writesPS {
				o[4] = bt.VPMOut[64+l]
			}
			for k := 0; k < sr.numVaryings; k++ {
				o[5+k] = bt.VPMOut[(vbase+k)*16+l]
			}
		}
	}
	if w.storeProg != w.vsProg {
		w.storeProg, w.vsStores = w.vsProg, programStoresMemory(w.vsProg)
	}
	if w.vsStores {
		// It may have stored into a uniform stream (invariant.go).
		w.fsMemo.valid = false
	}
	return nil
}
