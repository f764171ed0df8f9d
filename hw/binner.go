package hw

import (
	"encoding/binary"
	"math"
	"sync"

	"github.com/tilegpu/tilegpu/hw/isa"
	"github.com/tilegpu/tilegpu/hw/qpu"
)

// Binning (docs/hardware.md §4.2): walk the bin CL, run the coordinate
// shader on the vertices each primitive record uses, assemble, clip-test,
// cull and append every primitive to the list of each tile it touches.

const (
	tileSize       = 64 // pixels; 32 with Multisample4x
	tileSizeMSAA   = 32
	tileBlockFirst = 256  // initial block of every tile list
	tileBlockSize  = 4096 // blocks chained from the pool
	// tileBlockReserve is kept free at the end of every block so the
	// chaining BRANCH and a following primitive always fit (the "5+14"
	// of §4.2).
	tileBlockReserve = 5 + 14

	// maxTilesPerSide bounds WidthInTiles/HeightInTiles: 65535 pixels.
	maxTilesPerSide = 2048
	// maxIndices bounds one primitive record's Length; the tris scene's
	// 3,000,000 is well below it.
	maxIndices = 1 << 26
	// maxCLBytes bounds an indirect buffer.
	maxCLBytes = 64 << 20
)

// binTile is the binner's write position in one tile list.
type binTile struct {
	next, end uint32 // VA of the next byte and of the end of the current block
	version   uint32 // state version last copied into the list
	marker    uint32 // markerVer of the last MARKER copied into the list
}

// binState is the decoded rendering state the binner needs.
type binState struct {
	cfgForward, cfgReverse, cfgCW bool
	pointSize, lineWidth          float32
	clipL, clipB, clipW, clipH    int
	clipSet                       bool
	vpX, vpY                      float32
	scaleX, scaleY                float32
	shaderVA                      uint32
	attrCount                     int
	haveShader                    bool
}

type binner struct {
	g    *GPU
	e    *engine
	m    *mmu
	perf perfCounts // added to GPU.perf when a bin job ends

	cl   []byte
	st   binState
	raw  [256][maxRecordSize]byte
	have [256]bool
	// STENCIL_CONFIG is kept per face: front and back may differ.
	rawStencil  [2][8]byte
	haveStencil [2]bool
	stVer       uint32
	// opVer[op] and stencilVer[face] are the state versions at which each
	// record last changed; flushAllVer is that of the last FLUSH_ALL_STATE.
	// copyState sends a tile only what changed since its last copy.
	opVer       [256]uint32
	stencilVer  [2]uint32
	flushAllVer uint32

	configured   bool
	tilesW       int
	tilesH       int
	tsize        int
	tiles        []binTile
	tileBase     uint32
	poolNext     uint32
	poolEnd      uint32
	initialPool  bool   // the lists still take blocks from TILE_BINNING_MODE_CONFIGURATION's pool
	listReserve  uint32 // end of the initial pool's part kept for tile lists (vstore.go)
	overflowSeen uint64
	gen          uint64

	sr       shaderRecord
	programs programCache
	core     *qpu.Core
	batch    qpu.Batch
	helpers  []*vertexHelper // shadeParallel's threads

	indices []uint32
	valid   []bool
	pos     []float32 // per shaded slot: x, y, z, w, point size
	dense   bool
	minIdx  uint32
	// arrayMaxIndex bounds the vertices a VERTEX_ARRAY_PRIMITIVES may
	// fetch: no bound for the direct record (the kernel validated its
	// range), the record's MaxIndex while an indirect one runs.
	arrayMaxIndex uint32

	clip      clipper
	primCount uint32

	vs vertexStore

	// parallel binning: the helpers' clippers and a window of classified
	// primitives
	classifiers []clipper
	res         []binResult
	// per shaded slot: outcode and window position (prepareVertices)
	vcode []uint8
	vwin  []float32
	// storesMem remembers programStoresMemory of the last programs asked
	// about in this job (a draw per uniform change asks for the same ones).
	storesMem     [4]storesMemEntry
	storesMemNext int

	// The last MARKER record and its version (1 + markers seen in this
	// job; 0 means none yet).
	marker    [5]byte
	markerVer uint32
}

func newBinner(g *GPU, e *engine) *binner {
	b := &binner{g: g, e: e, m: e.mmu, arrayMaxIndex: math.MaxUint32}
	b.programs.xlat = &g.xlat
	b.core = qpu.NewCore(e.mmu)
	b.core.NoNative = g.noNative
	b.core.StepLimit = 0 // no per-batch bound: the kernel's watchdog decides what is hung
	b.core.Poll = func(uint64) error {
		// As worker.poll: publish finished batches, stop on RESET.
		b.perf.flushTo(b.g)
		if b.e.aborted(b.gen) {
			return errAborted
		}
		return nil
	}
	b.batch.VPMIn = make([]float32, vpmInWords*qpu.Lanes)
	b.batch.VPMOut = make([]float32, 256*qpu.Lanes)
	return b
}

// run executes the bin CL of size bytes at va.
func (b *binner) run(va, size uint32, gen uint64) error {
	if size > maxCLBytes {
		return clErrorf("bin CL of %d bytes exceeds %d", size, maxCLBytes)
	}
	b.gen = gen
	defer b.perf.flushTo(b.g)
	b.cl = growBytes(b.cl, int(size))
	if f := b.m.read(va, b.cl); f != nil {
		return f
	}
	b.programs.reset()
	b.st = binState{pointSize: 1, lineWidth: 1}
	b.clip.halfZ = false
	b.have = [256]bool{}
	b.haveStencil = [2]bool{}
	b.stVer = 1
	b.opVer = [256]uint32{}
	b.stencilVer = [2]uint32{}
	b.flushAllVer = 0
	b.markerVer = 0
	b.configured = false
	b.vs.startJob()
	b.storesMem = [4]storesMemEntry{}
	g := b.g
	g.mu.Lock()
	b.overflowSeen = g.overflow.gen
	g.mu.Unlock()

	cl := b.cl
	for off, count := 0, 0; off < len(cl); count++ {
		op := cl[off]
		n := int(recordSize[op])
		if n == 0 {
			return clErrorf("bin CL offset %d: unknown opcode %d", off, op)
		}
		if off+n > len(cl) {
			return clErrorf("bin CL offset %d: record %d truncated", off, op)
		}
		if count&63 == 0 && b.e.aborted(gen) {
			return errAborted
		}
		r := cl[off : off+n]
		off += n
		switch op {
		case opNOP, opStartTileBinning:
		case opMarker:
			copy(b.marker[:], r)
			b.markerVer++
			b.g.markers.bin.Store(u32(r, 1))
		case opTileBinningMode:
			if err := b.configure(r); err != nil {
				return err
			}
		case opFlush:
			return b.flush()
		case opFlushAllState:
			b.stVer++
			b.flushAllVer = b.stVer
		case opIndexedPrimitiveList, opVertexArrayPrimitives:
			if err := b.primitives(r); err != nil {
				return err
			}
		case opVertexArrayIndirect:
			if err := b.indirect(r); err != nil {
				return err
			}
		default:
			if !isTileState(op) {
				return clErrorf("bin CL offset %d: record %d not allowed in a bin list", off-n, op)
			}
			b.setState(r)
		}
	}
	// A list without FLUSH still closes its tile lists.
	if b.configured {
		return b.flush()
	}
	return nil
}

func isTileState(op uint8) bool {
	for _, s := range tileStateOps {
		if s == op {
			return true
		}
	}
	return false
}

func growBytes(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

func (b *binner) setState(r []byte) {
	op := r[0]
	b.stVer++
	if op == opStencilConfig {
		face := r[1] & 3
		// Each slot keeps its face's configuration as a record for that
		// face alone: a BOTH record copied into a tile list after a later
		// FRONT one would otherwise undo it.
		if face != 1 {
			copy(b.rawStencil[0][:], r)
			b.rawStencil[0][1] = r[1]&^3 | 0
			b.haveStencil[0] = true
			b.stencilVer[0] = b.stVer
		}
		if face != 0 {
			copy(b.rawStencil[1][:], r)
			b.rawStencil[1][1] = r[1]&^3 | 1
			b.haveStencil[1] = true
			b.stencilVer[1] = b.stVer
		}
	} else {
		copy(b.raw[op][:], r)
		b.have[op] = true
		b.opVer[op] = b.stVer
	}
	s := &b.st
	switch op {
	case opGLShaderState:
		s.shaderVA = u32(r, 1)
		s.attrCount = int(r[5])
		s.haveShader = true
	case opConfigurationBits:
		s.cfgForward, s.cfgReverse, s.cfgCW = bit(r, 8), bit(r, 9), bit(r, 10)
		b.clip.halfZ = bit(r, 22)
	case opPointSize:
		s.pointSize = f32(r, 1)
	case opLineWidth:
		s.lineWidth = f32(r, 1)
	case opClipWindow:
		s.clipL, s.clipB, s.clipW, s.clipH = int(u16(r, 1)), int(u16(r, 3)), int(u16(r, 5)), int(u16(r, 7))
		s.clipSet = true
	case opViewportOffset:
		s.vpX, s.vpY = f32(r, 1), f32(r, 5)
	case opClipperXY:
		s.scaleX, s.scaleY = f32(r, 1), f32(r, 5)
	}
}

func (b *binner) configure(r []byte) error {
	addr, size := u32(r, 1), u32(r, 5)
	w, h := int(u16(r, 9)), int(u16(r, 11))
	msaa := bit(r, 104)
	if w == 0 || h == 0 || w > maxTilesPerSide || h > maxTilesPerSide {
		return clErrorf("TILE_BINNING_MODE_CONFIGURATION: %d×%d tiles", w, h)
	}
	first := uint64(w) * uint64(h) * tileBlockFirst
	if first > uint64(size) || uint64(addr)+uint64(size) > 1<<32 {
		return clErrorf("TILE_BINNING_MODE_CONFIGURATION: pool of %d bytes too small for %d tiles", size, w*h)
	}
	b.tilesW, b.tilesH = w, h
	b.tsize = tileSize
	if msaa {
		b.tsize = tileSizeMSAA
	}
	n := w * h
	if cap(b.tiles) < n {
		b.tiles = make([]binTile, n)
	}
	b.tiles = b.tiles[:n]
	for i := range b.tiles {
		start := addr + uint32(i)*tileBlockFirst
		b.tiles[i] = binTile{next: start, end: start + tileBlockFirst}
	}
	b.tileBase = addr
	b.poolNext = addr + uint32(first)
	b.poolEnd = addr + size
	b.initialPool = true
	b.listReserve = uint32(min(uint64(b.poolNext)+listReserveBytes(n), uint64(b.poolEnd)))
	b.configured = true
	return nil
}

// flush closes every tile list with RETURN_FROM_SUB_LIST.
func (b *binner) flush() error {
	if !b.configured {
		return clErrorf("FLUSH before TILE_BINNING_MODE_CONFIGURATION")
	}
	ret := [1]byte{opReturnFromSubList}
	for i := range b.tiles {
		if err := b.emit(&b.tiles[i], ret[:]); err != nil {
			return err
		}
	}
	b.configured = false
	return nil
}

// emit appends one record to a tile list, chaining a new block when the
// current one is nearly full.
func (b *binner) emit(t *binTile, rec []byte) error {
	if t.end-t.next < uint32(tileBlockReserve+len(rec)) {
		blk, err := b.allocBlock()
		if err != nil {
			return err
		}
		var br [5]byte
		br[0] = opBranch
		binary.LittleEndian.PutUint32(br[1:], blk)
		if f := b.m.write(t.next, br[:]); f != nil {
			return f
		}
		t.next, t.end = blk, blk+tileBlockSize
	}
	// Fast path: the record lies in one page.
	if t.next&pageMask+uint32(len(rec)) <= pageSize {
		pa, f := b.m.translate(t.next, true)
		if f != nil {
			return f
		}
		copy(b.m.mem[pa:], rec)
	} else if f := b.m.write(t.next, rec); f != nil {
		return f
	}
	t.next += uint32(len(rec))
	b.perf.ctr[CtrBinBytesWritten] += uint64(len(rec))
	return nil
}

// allocBlock takes a 4 KiB block from the pool, waiting for the kernel to
// provide an overflow pool when it is exhausted.
func (b *binner) allocBlock() (uint32, error) {
	for uint64(b.poolNext)+tileBlockSize > uint64(b.poolEnd) {
		g := b.g
		g.raise(IntrBinOOM)
		g.mu.Lock() // lock order: g.mu, then e.mu (inside aborted)
		for g.overflow.gen == b.overflowSeen && !g.closed.Load() && !b.e.aborted(b.gen) {
			g.overflowCond.Wait()
		}
		b.overflowSeen = g.overflow.gen
		addr, size := g.overflow.addr, g.overflow.size
		g.mu.Unlock()
		if g.closed.Load() || b.e.aborted(b.gen) {
			return 0, errAborted
		}
		b.poolNext, b.poolEnd = addr, addr+size
		b.initialPool = false
		if uint64(addr)+uint64(size) > 1<<32 {
			b.poolEnd = math.MaxUint32
		}
	}
	blk := b.poolNext
	b.poolNext += tileBlockSize
	return blk, nil
}

// primitives handles INDEXED_PRIMITIVE_LIST and VERTEX_ARRAY_PRIMITIVES.
func (b *binner) primitives(r []byte) error {
	if !b.configured {
		return clErrorf("primitive record before TILE_BINNING_MODE_CONFIGURATION")
	}
	if !b.st.haveShader {
		return clErrorf("primitive record before GL_SHADER_STATE")
	}
	var mode, length uint32
	if r[0] == opIndexedPrimitiveList {
		mode, length = uint32(r[1]&0xF), u32(r, 2)
	} else {
		mode, length = uint32(r[1]), u32(r, 2)
	}
	if mode > primTriangleFan {
		return clErrorf("primitive mode %d", mode)
	}
	if length > maxIndices {
		return clErrorf("primitive record with %d indices (max %d)", length, maxIndices)
	}
	if err := loadShaderRecord(b.m, b.st.shaderVA, b.st.attrCount, &b.sr); err != nil {
		return err
	}
	if err := b.fetchIndices(r, int(length)); err != nil {
		return err
	}
	if err := b.shadeVertices(); err != nil {
		return err
	}
	b.clip.guardX = guardBandPixels / max(float32(math.Abs(float64(b.st.scaleX))), 1)
	b.clip.guardY = guardBandPixels / max(float32(math.Abs(float64(b.st.scaleY))), 1)
	b.prepareVertices()
	assembled, dropped := b.perf.ctr[CtrBinPrimitives], b.perf.ctr[CtrBinRejected]+b.perf.ctr[CtrBinCulled]
	err := b.assemble(mode)
	b.vs.recordOutcome(b.perf.ctr[CtrBinPrimitives]-assembled, b.perf.ctr[CtrBinRejected]+b.perf.ctr[CtrBinCulled]-dropped)
	return err
}

// Primitive modes (GL order).
const (
	primPoints = iota
	primLines
	primLineLoop
	primLineStrip
	primTriangles
	primTriangleStrip
	primTriangleFan
)

func (b *binner) fetchIndices(r []byte, n int) error {
	b.indices = b.indices[:0]
	b.valid = b.valid[:0]
	if r[0] == opVertexArrayPrimitives {
		first := u32(r, 6)
		if uint64(first)+uint64(n) > 1<<32 {
			return clErrorf("VERTEX_ARRAY_PRIMITIVES FirstIndex %d + Length %d overflows", first, n)
		}
		for i := 0; i < n; i++ {
			b.indices = append(b.indices, first+uint32(i))
			b.valid = append(b.valid, first+uint32(i) <= b.arrayMaxIndex)
		}
		return nil
	}
	typ := r[1] >> 4
	if typ > 2 {
		return clErrorf("INDEXED_PRIMITIVE_LIST index type %d", typ)
	}
	addr, maxIdx := u32(r, 6), u32(r, 10)
	esize := uint32(1) << typ
	b.perf.ctr[CtrBinBytesRead] += uint64(n) * uint64(esize)
	for i := 0; i < n; {
		va := addr + uint32(i)*esize
		p, f := b.m.page(va, false)
		if f != nil {
			return f
		}
		if len(p) < int(esize) { // an index straddling pages
			var tmp [4]byte
			if f := b.m.read(va, tmp[:esize]); f != nil {
				return f
			}
			p = tmp[:esize]
		}
		for ; len(p) >= int(esize) && i < n; i++ {
			var v uint32
			switch typ {
			case 0:
				v = uint32(p[0])
			case 1:
				v = uint32(binary.LittleEndian.Uint16(p))
			default:
				v = binary.LittleEndian.Uint32(p)
			}
			p = p[esize:]
			b.indices = append(b.indices, v)
			b.valid = append(b.valid, v <= maxIdx)
		}
	}
	return nil
}

// posWords is the per-vertex stride of b.pos.
const posWords = 5

// shadeVertices runs the coordinate shader on every vertex the indices
// name. When the index range is compact, vertex v lives in slot v−min and
// each is shaded once; otherwise slot k belongs to index position k.
func (b *binner) shadeVertices() error {
	n := len(b.indices)
	b.pos = b.pos[:0]
	if n == 0 {
		return nil
	}
	lo, hi := uint32(math.MaxUint32), uint32(0)
	for i, v := range b.indices {
		if b.valid[i] {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if lo > hi {
		return nil
	}
	span := uint64(hi-lo) + 1
	b.dense = span <= 2*uint64(n)+64
	b.minIdx = lo
	slots := n
	if b.dense {
		slots = int(span)
	}
	if cap(b.pos) < slots*posWords {
		b.pos = make([]float32, slots*posWords)
	}
	b.pos = b.pos[:slots*posWords]

	prog, err := b.programs.get(b.m, b.sr.csCode)
	if err != nil {
		return err
	}
	b.vs.slots = 0
	if vsProg := b.storeCandidate(prog, slots); vsProg != nil {
		b.vs.reserve(b, slots)
		if b.vs.slots > 0 {
			err := b.shade(vsProg, b.vs.slots)
			if err == nil {
				if b.vs.slots == slots {
					return nil
				}
				// The rest of the slots beyond the store's budget: positions only.
				return b.shadeFrom(prog, b.vs.slots, slots)
			}
			if err == errAborted {
				return err
			}
			// The vertex shader fails here: bin with the coordinate
			// shader and let the tiles run the vertex shader, so the
			// failure is reported where it always was.
			b.vs.slots = 0
		}
	}
	return b.shade(prog, slots)
}

// shade runs prog on slots [0, slots), on helper threads when it pays.
func (b *binner) shade(prog *qpu.Program, slots int) error {
	if n := b.shadeHelpers(prog, slots); n > 0 {
		return b.shadeParallel(prog, slots, n)
	}
	return b.shadeRange(b.core, b.m, prog, &b.batch, 0, slots, &b.perf)
}

// shadeFrom runs the coordinate shader prog on slots [s0, s1).
func (b *binner) shadeFrom(prog *qpu.Program, s0, s1 int) error {
	return b.shadeRange(b.core, b.m, prog, &b.batch, s0, s1, &b.perf)
}

// shadeRange runs the coordinate shader on slots [s0, s1) of b.pos (s0 a
// multiple of 16) with core, m and bt, counting into perf. It stops at the
// first batch that fails, as the hardware's single binner thread would.
func (b *binner) shadeRange(core *qpu.Core, m *mmu, prog *qpu.Program, bt *qpu.Batch, s0, s1 int, perf *perfCounts) error {
	writesPS := b.sr.flags&shaderFlagWritesPointSize != 0
	// Slots below vs.slots run the full vertex shader and are stored.
	store := s0 < b.vs.slots
	stage, uniforms := qpu.StageCoordinate, b.sr.csUniforms
	if store {
		stage, uniforms = qpu.StageVertex, b.sr.vsUniforms
		s1 = min(s1, b.vs.slots)
	}
	var idx [qpu.Lanes]uint32
	lo := b.minIdx
	for s := s0; s < s1; s += qpu.Lanes {
		cnt := min(qpu.Lanes, s1-s)
		for l := 0; l < qpu.Lanes; l++ {
			k := s + min(l, cnt-1)
			if b.dense {
				idx[l] = lo + uint32(k)
			} else {
				idx[l] = b.indices[k]
				if !b.valid[k] {
					idx[l] = lo
				}
			}
		}
		if err := loadAttributes(m, &b.sr, idx[:cnt], bt.VPMIn); err != nil {
			return err
		}
		bt.Stage = stage
		bt.UniformsVA = uniforms
		bt.QPUNumber = 0
		bt.LaneMask = uint16(1<<cnt - 1)
		if err := runShader(b.g, core, m, prog, bt); err != nil {
			return err
		}
		perf.qpuInstructions += bt.Instructions
		perf.takeCore(core, EngineBin)
		perf.vertices += uint64(cnt)
		perf.ctr[CtrCSInstructions] += bt.Instructions
		perf.ctr[CtrCSVertices] += uint64(cnt)
		perf.ctr[CtrBinBytesRead] += uint64(cnt) * attributeBytes(&b.sr)
		for l := 0; l < cnt; l++ {
			p := b.pos[(s+l)*posWords:]
			p[0], p[1], p[2], p[3] = bt.VPMOut[0*16+l], bt.VPMOut[1*16+l], bt.VPMOut[2*16+l], bt.VPMOut[3*16+l]
			p[4] = b.st.pointSize
			if writesPS {
				p[4] = bt.VPMOut[4*16+l]
			}
		}
		if store {
			if err := b.vs.write(m, bt, b.pos, s, cnt, p4(writesPS), b.sr.numVaryings); err != nil {
				return err
			}
			perf.ctr[CtrBinStoredVertices] += uint64(cnt)
		}
	}
	return nil
}

// p4 is the VPM row of the first varying: after the point size when the
// shader writes one.
func p4(writesPS bool) int {
	if writesPS {
		return 5
	}
	return 4
}

// Parallel binning (vertex work). A coordinate shader that writes no
// memory computes each vertex's output from that vertex's attributes and
// the uniforms alone, so the slots of one primitive record can be shaded
// on several host threads and b.pos comes out the same. The binner stays
// one engine: each helper has its own shader core and a private MMU with
// the binner's address space, and the outcome is merged in slot order —
// counters of the ranges before the first failing one, that range's counts
// up to its failing batch, and its error — which is what shading the slots
// in order reports. Assembly, clipping and binning stay serial, so tile
// lists are written in submission order. Counter
// PERF_BIN_PARALLEL_VERTICES counts the vertices shaded by helpers.
const (
	// minParallelSlots is the smallest vertex count shaded in parallel:
	// below it, starting helpers costs more than it saves.
	minParallelSlots = 4096
	// maxVertexHelpers bounds the helper threads (and their cores).
	maxVertexHelpers = maxCores
)

// vertexHelper is one extra thread's state for shadeParallel.
type vertexHelper struct {
	m     *mmu
	core  *qpu.Core
	batch qpu.Batch
	perf  perfCounts
	err   error
}

// shadeHelpers is how many helper threads shade slots vertices: one per
// render core beyond the first, none for small records, and none when
// the shader may write memory (scratch, or a direct store through
// TMU_STORE_ADDR anywhere in its code): vertices could then see each
// other's stores in another order.
func (b *binner) shadeHelpers(prog *qpu.Program, slots int) int {
	if b.g.noParallelBin || b.g.cores < 2 || slots < minParallelSlots || b.sr.scratchSize != 0 || b.storesMemory(prog) {
		return 0
	}
	return min(b.g.cores-1, maxVertexHelpers, slots/minParallelSlots*2)
}

type storesMemEntry struct {
	p      *qpu.Program
	stores bool
}

// storesMemory is programStoresMemory(p), remembered for the job's last
// few programs (the program cache, and so p, lives for one job).
func (b *binner) storesMemory(p *qpu.Program) bool {
	for _, e := range b.storesMem {
		if e.p == p {
			return e.stores
		}
	}
	e := &b.storesMem[b.storesMemNext%len(b.storesMem)]
	b.storesMemNext++
	e.p, e.stores = p, programStoresMemory(p)
	return e.stores
}

// programStoresMemory reports whether some instruction of p (reached or
// not) writes TMU_STORE_ADDR, or p cannot be decoded.
func programStoresMemory(p *qpu.Program) bool {
	for _, word := range p.Code() {
		in, err := isa.Decode(word)
		if err != nil {
			return true
		}
		if in.WaddrAdd == isa.WaddrTMUStoreAddr || in.WaddrMul == isa.WaddrTMUStoreAddr {
			return true
		}
	}
	return false
}

func (b *binner) shadeParallel(prog *qpu.Program, slots, n int) error {
	for len(b.helpers) < n {
		h := &vertexHelper{m: newMMU(b.g.mem, b.m.engine)}
		h.m.useEpoch(&b.g.tlbEpoch)
		h.core = qpu.NewCore(h.m)
		h.core.StepLimit = 0 // as the binner's core: the watchdog decides
		h.core.Poll = func(uint64) error {
			if b.e.aborted(b.gen) {
				return errAborted
			}
			return nil
		}
		h.batch.VPMIn = make([]float32, vpmInWords*qpu.Lanes)
		h.batch.VPMOut = make([]float32, 256*qpu.Lanes)
		b.helpers = append(b.helpers, h)
	}
	// Ranges of whole 16-lane batches, the binner's own first.
	per := (slots/qpu.Lanes + n) / (n + 1) * qpu.Lanes
	var wg sync.WaitGroup
	for i, h := range b.helpers[:n] {
		s0, s1 := min((i+1)*per, slots), min((i+2)*per, slots)
		if i == n-1 {
			s1 = slots
		}
		h.m.copyContext(b.m)
		h.perf, h.err = perfCounts{}, nil
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.err = b.shadeRange(h.core, h.m, prog, &h.batch, s0, s1, &h.perf)
		}()
	}
	err := b.shadeRange(b.core, b.m, prog, &b.batch, 0, min(per, slots), &b.perf)
	wg.Wait()
	if err != nil {
		return err
	}
	for _, h := range b.helpers[:n] {
		b.perf.add(&h.perf)
		b.perf.ctr[CtrBinParallelVertices] += h.perf.ctr[CtrCSVertices]
		if h.err != nil {
			return h.err
		}
	}
	return nil
}

// slotIndex is the shaded slot of index position k.
func (b *binner) slotIndex(k int) int {
	if b.dense {
		return int(b.indices[k] - b.minIdx)
	}
	return k
}

// slot returns b.pos offset of index position k.
func (b *binner) slot(k int) []float32 {
	if b.dense {
		o := int(b.indices[k]-b.minIdx) * posWords
		return b.pos[o : o+posWords]
	}
	return b.pos[k*posWords : k*posWords+posWords]
}

// assemble decomposes the primitive record into points, lines and
// triangles in GL order and bins each.
func (b *binner) assemble(mode uint32) error {
	n := len(b.indices)
	count := primitiveCount(mode, n)
	if h := b.binHelpers(count); h > 0 {
		return b.assembleParallel(mode, n, count, h)
	}
	for p := 0; p < count; p++ {
		kind, i0, i1, i2 := primitiveAt(mode, p, n)
		if err := b.bin(kind, i0, i1, i2); err != nil {
			return err
		}
	}
	return nil
}

// primitiveCount is how many primitives mode makes of n vertices.
func primitiveCount(mode uint32, n int) int {
	switch mode {
	case primPoints:
		return n
	case primLines:
		return n / 2
	case primLineStrip:
		return max(n-1, 0)
	case primLineLoop:
		if n < 2 {
			return 0
		}
		return n
	case primTriangles:
		return n / 3
	case primTriangleStrip, primTriangleFan:
		return max(n-2, 0)
	}
	return 0
}

// primitiveAt is primitive p of mode over n index positions: its kind and
// the index positions of its vertices, provoking vertex last. Odd
// triangles of a strip swap their first two vertices so every triangle
// keeps the strip's winding.
func primitiveAt(mode uint32, p, n int) (kind uint8, i0, i1, i2 int) {
	switch mode {
	case primPoints:
		return tilePrimPoint, p, p, p
	case primLines:
		return tilePrimLine, 2 * p, 2*p + 1, 2*p + 1
	case primLineStrip, primLineLoop:
		if p == n-1 { // the loop's closing line
			return tilePrimLine, n - 1, 0, 0
		}
		return tilePrimLine, p, p + 1, p + 1
	case primTriangles:
		return tilePrimTriangle, 3 * p, 3*p + 1, 3*p + 2
	case primTriangleStrip:
		if p&1 == 0 {
			return tilePrimTriangle, p, p + 1, p + 2
		}
		return tilePrimTriangle, p + 1, p, p + 2
	default: // primTriangleFan
		return tilePrimTriangle, 0, p + 1, p + 2
	}
}

// Parallel binning (tile lists). Classifying a primitive (clip test,
// culling, tile range) reads only the state and the shaded positions, so
// a large record's primitives are classified in windows of binWindow on
// the binner's thread and its helpers, each taking a contiguous range;
// the binner then commits each window's primitives in order — counters
// and tile-list writes exactly as serial binning makes them, so the lists
// do not depend on the number of threads. Counter
// bin.parallel_primitives counts the primitives helpers classified.
const (
	// minParallelPrims is the smallest record classified in parallel.
	minParallelPrims = 8192
	// binWindow bounds the classified primitives waiting to be committed.
	binWindow = 16384
)

// binHelpers is how many helper threads classify count primitives.
func (b *binner) binHelpers(count int) int {
	if b.g.noParallelBin || b.g.cores < 2 || count < minParallelPrims {
		return 0
	}
	return min(b.g.cores-1, maxVertexHelpers)
}

func (b *binner) assembleParallel(mode uint32, n, count, h int) error {
	if len(b.classifiers) < h {
		b.classifiers = make([]clipper, h)
	}
	if cap(b.res) < binWindow {
		b.res = make([]binResult, binWindow)
	}
	var wg sync.WaitGroup
	for w0 := 0; w0 < count; w0 += binWindow {
		w1 := min(w0+binWindow, count)
		res := b.res[:w1-w0]
		classify := func(clip *clipper, p0, p1 int) {
			for p := p0; p < p1; p++ {
				kind, i0, i1, i2 := primitiveAt(mode, p, n)
				res[p-w0] = b.classify(clip, kind, i0, i1, i2)
			}
		}
		per := (w1 - w0 + h) / (h + 1)
		for k := 0; k < h; k++ {
			p0, p1 := min(w0+(k+1)*per, w1), min(w0+(k+2)*per, w1)
			if p0 >= p1 {
				break
			}
			clip := &b.classifiers[k]
			clip.guardX, clip.guardY = b.clip.guardX, b.clip.guardY
			b.perf.ctr[CtrBinParallelPrimitives] += uint64(p1 - p0)
			wg.Add(1)
			go func() {
				defer wg.Done()
				classify(clip, p0, p1)
			}()
		}
		classify(&b.clip, w0, min(w0+per, w1))
		wg.Wait()
		for i := range res {
			if err := b.commit(&res[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Tile primitive modes.
const (
	tilePrimPoint    = 0
	tilePrimLine     = 1
	tilePrimTriangle = 2
)

// Outcome of classifying one primitive (binResult.status).
const (
	binSkip     = iota // an index beyond MaxIndex: not a primitive
	binRejected        // outside the view volume or the clip window, NaN, or clipped away
	binCulled          // dropped by facing
	binBinned          // reaches the tiles tx0..tx1 × ty0..ty1
)

// binResult is what classify found for one primitive: the part of binning
// that depends on nothing but the primitive and the state, and so can be
// computed for many primitives at once (parallel binning, below).
type binResult struct {
	status, kind       uint8
	clipped            bool
	triangle           bool // a triangle that passed culling (PERF_TRIANGLES)
	tx0, ty0, tx1, ty1 uint16
	i0, i1, i2         int32
}

// bin clip-tests, culls and bins one primitive given by index positions.
func (b *binner) bin(kind uint8, i0, i1, i2 int) error {
	r := b.classify(&b.clip, kind, i0, i1, i2)
	return b.commit(&r)
}

// codeNaN marks a vertex with a NaN position in binner.vcode.
const codeNaN = 1 << 7

// prepareVertices computes, once per shaded slot, what classifying the
// primitives using it needs: its outcode against the view volume and
// near/far/w planes (codeNaN for a NaN position) and, when it is in front
// of those planes, its window position — the same expressions classify
// used per primitive, so the results are the same bits.
func (b *binner) prepareVertices() {
	slots := len(b.pos) / posWords
	if cap(b.vcode) < slots {
		b.vcode = make([]uint8, slots)
		b.vwin = make([]float32, 2*slots)
	}
	b.vcode, b.vwin = b.vcode[:slots], b.vwin[:2*slots]
	s := &b.st
	for k := 0; k < slots; k++ {
		p := (*[4]float32)(b.pos[k*posWords : k*posWords+4])
		x, y, z, w := p[0], p[1], p[2], p[3]
		var o uint8
		if z < -w {
			o |= outNear
		}
		if z > w {
			o |= outFar
		}
		if w < wEpsilon {
			o |= outW
		}
		if x < -w {
			o |= outLeft
		}
		if x > w {
			o |= outRight
		}
		if y < -w {
			o |= outBottom
		}
		if y > w {
			o |= outTop
		}
		if x != x || y != y || z != z || w != w {
			o |= codeNaN
		}
		b.vcode[k] = o
		if o&(outNear|outFar|outW|codeNaN) == 0 {
			inv := 1 / w
			b.vwin[2*k] = x*inv*s.scaleX + s.vpX
			b.vwin[2*k+1] = y*inv*s.scaleY + s.vpY
		}
	}
}

// widenedXY is the x/y outcode of position p against the view volume's
// x/y planes moved out by halfX and halfY (NDC units, scaled by w).
func widenedXY(p *[4]float32, halfX, halfY float32) uint32 {
	x, y, w := p[0], p[1], p[3]
	wx, wy := w+halfX*max(w, 0), w+halfY*max(w, 0)
	var o uint32
	if x < -wx {
		o |= outLeft
	}
	if x > wx {
		o |= outRight
	}
	if y < -wy {
		o |= outBottom
	}
	if y > wy {
		o |= outTop
	}
	return o
}

// commit counts a classified primitive and appends it to the tile list of
// every tile it touches, in submission order.
func (b *binner) commit(r *binResult) error {
	if r.status == binSkip {
		return nil
	}
	b.primCount++
	b.perf.ctr[CtrBinPrimitives]++
	if b.primCount&1023 == 0 {
		if b.e.aborted(b.gen) {
			return errAborted
		}
		// Publish the counts as the work goes, not only at the end: the
		// kernel's watchdog judges a hang by these counters not moving.
		b.perf.flushProgress(b.g)
	}
	if r.clipped {
		b.perf.ctr[CtrBinClipped]++
	}
	if r.triangle {
		b.perf.triangles++
	}
	switch r.status {
	case binRejected:
		b.perf.ctr[CtrBinRejected]++
		return nil
	case binCulled:
		b.perf.ctr[CtrBinCulled]++
		return nil
	}
	b.perf.ctr[CtrBinBinned]++
	i0, i1, i2 := int(r.i0), int(r.i1), int(r.i2)
	var rec [14]byte
	rec[0] = opTilePrimitive
	rec[1] = r.kind
	if k0, k1, k2 := b.slotIndex(i0), b.slotIndex(i1), b.slotIndex(i2); max(k0, k1, k2) < b.vs.slots {
		rec[0] = opTilePrimitiveStored
		binary.LittleEndian.PutUint32(rec[2:], b.vs.addr(k0))
		binary.LittleEndian.PutUint32(rec[6:], b.vs.addr(k1))
		binary.LittleEndian.PutUint32(rec[10:], b.vs.addr(k2))
	} else {
		binary.LittleEndian.PutUint32(rec[2:], b.indices[i0])
		binary.LittleEndian.PutUint32(rec[6:], b.indices[i1])
		binary.LittleEndian.PutUint32(rec[10:], b.indices[i2])
	}
	for ty := int(r.ty0); ty <= int(r.ty1); ty++ {
		for tx := int(r.tx0); tx <= int(r.tx1); tx++ {
			t := &b.tiles[ty*b.tilesW+tx]
			if t.marker != b.markerVer {
				if err := b.emit(t, b.marker[:]); err != nil {
					return err
				}
				t.marker = b.markerVer
			}
			if t.version != b.stVer {
				if err := b.copyState(t); err != nil {
					return err
				}
			}
			if err := b.emit(t, rec[:]); err != nil {
				return err
			}
			b.perf.ctr[CtrBinTileRefs]++
		}
	}
	return nil
}

// classify clip-tests and culls one primitive and finds the tiles it
// touches. It reads the binner's state, positions and indices and writes
// only clip's scratch, so helpers may classify primitives concurrently.
func (b *binner) classify(clip *clipper, kind uint8, i0, i1, i2 int) binResult {
	res := binResult{kind: kind, i0: int32(i0), i1: int32(i1), i2: int32(i2)}
	if !b.valid[i0] || !b.valid[i1] || !b.valid[i2] {
		return res // binSkip
	}
	res.status = binRejected
	s := &b.st
	p0, p1, p2 := b.slot(i0), b.slot(i1), b.slot(i2)
	var pts [3]*[4]float32
	pts[0], pts[1], pts[2] = (*[4]float32)(p0[:4]), (*[4]float32)(p1[:4]), (*[4]float32)(p2[:4])
	k3 := [3]int{b.slotIndex(i0), b.slotIndex(i1), b.slotIndex(i2)}
	nv := int(kind) + 1
	// Outcodes against the view volume and window positions were computed
	// once per vertex (prepareVertices). Points and lines are rejected
	// against the x/y planes moved out by half their width instead: a
	// wide point or line whose centre (line) lies just outside the view
	// volume still has fragments inside the viewport (the clip window
	// bounds them), as dEQP's reference rasteriser and llvmpipe draw them
	// (dEQP clipping.point.wide_point_clip*).
	var halfX, halfY float32 // half width in NDC units
	switch kind {
	case tilePrimPoint:
		halfX, halfY = max(p0[4], 1)/2, max(p0[4], 1)/2
	case tilePrimLine:
		halfX, halfY = max(s.lineWidth, 1)/2, max(s.lineWidth, 1)/2
	}
	if halfX != 0 {
		halfX /= max(float32(math.Abs(float64(s.scaleX))), 1)
		halfY /= max(float32(math.Abs(float64(s.scaleY))), 1)
	}
	and, or := uint32(0xFF), uint32(0)
	for k := 0; k < nv; k++ {
		o := uint32(b.vcode[k3[k]])
		if halfX != 0 {
			o = o&^(outLeft|outRight|outBottom|outTop) | widenedXY(pts[k], halfX, halfY)
		}
		and &= o
		or |= o
	}
	// NaN positions are dropped.
	if or&codeNaN != 0 || and != 0 {
		return res
	}
	var minX, minY, maxX, maxY float32
	var area float32
	if or&(outNear|outFar|outW) == 0 {
		var wx, wy [3]float32
		for k := 0; k < nv; k++ {
			wx[k], wy[k] = b.vwin[2*k3[k]], b.vwin[2*k3[k]+1]
		}
		minX, maxX, minY, maxY = wx[0], wx[0], wy[0], wy[0]
		for k := 1; k < nv; k++ {
			minX, maxX = min(minX, wx[k]), max(maxX, wx[k])
			minY, maxY = min(minY, wy[k]), max(maxY, wy[k])
		}
		if kind == tilePrimTriangle {
			area = (wx[1]-wx[0])*(wy[2]-wy[0]) - (wx[2]-wx[0])*(wy[1]-wy[0])
		}
	} else {
		// Clip against near/far/w to bound the visible part.
		res.clipped = true
		var poly [3]clipVert
		for k := 0; k < nv; k++ {
			poly[k].pos = *pts[k]
		}
		clip.nvary = 0
		out := clip.clip(poly[:nv], outNear|outFar|outW)
		if len(out) == 0 && kind == tilePrimTriangle {
			return res
		}
		if kind != tilePrimTriangle && len(out) == 0 {
			// Points and lines: keep those with any vertex in front.
			if or&outW != 0 && and&outW != 0 {
				return res
			}
			for k := 0; k < nv; k++ {
				poly[k].pos = *pts[k]
			}
			out = poly[:nv]
		}
		first := true
		var px0, py0 float32
		for k := range out {
			p := &out[k].pos
			w := max(p[3], wEpsilon)
			x := p[0]/w*s.scaleX + s.vpX
			y := p[1]/w*s.scaleY + s.vpY
			if first {
				minX, maxX, minY, maxY, px0, py0 = x, x, y, y, x, y
				first = false
			} else {
				minX, maxX = min(minX, x), max(maxX, x)
				minY, maxY = min(minY, y), max(maxY, y)
			}
			if kind == tilePrimTriangle && k >= 2 {
				q := &out[k-1].pos
				wq := max(q[3], wEpsilon)
				x1 := q[0]/wq*s.scaleX + s.vpX
				y1 := q[1]/wq*s.scaleY + s.vpY
				area += (x1-px0)*(y-py0) - (x-px0)*(y1-py0)
			}
		}
	}
	switch kind {
	case tilePrimTriangle:
		if area != 0 {
			front := area > 0
			if s.cfgCW {
				front = !front
			}
			if (front && !s.cfgForward) || (!front && !s.cfgReverse) {
				res.status = binCulled
				return res
			}
		} else if !s.cfgForward && !s.cfgReverse {
			res.status = binCulled
			return res
		}
		res.triangle = true
	case tilePrimPoint:
		r := max(p0[4], 1)/2 + 1
		minX, maxX, minY, maxY = minX-r, maxX+r, minY-r, maxY+r
	case tilePrimLine:
		r := max(s.lineWidth, 1)/2 + 1
		minX, maxX, minY, maxY = minX-r, maxX+r, minY-r, maxY+r
	}
	// Pixel range whose centres may be covered, clipped to the clip window.
	fx0, fx1 := float64(minX)-1, float64(maxX)+1
	fy0, fy1 := float64(minY)-1, float64(maxY)+1
	cl, cb := 0, 0
	cr, ct := b.tilesW*b.tsize, b.tilesH*b.tsize
	if s.clipSet {
		cl, cb = max(cl, s.clipL), max(cb, s.clipB)
		cr, ct = min(cr, s.clipL+s.clipW), min(ct, s.clipB+s.clipH)
	}
	if !(fx1 >= float64(cl) && fx0 < float64(cr) && fy1 >= float64(cb) && fy0 < float64(ct)) {
		return res // also rejects NaN bounds
	}
	x0, x1 := max(int(math.Max(fx0, float64(cl))), cl), min(int(math.Min(fx1, float64(cr-1))), cr-1)
	y0, y1 := max(int(math.Max(fy0, float64(cb))), cb), min(int(math.Min(fy1, float64(ct-1))), ct-1)
	if x0 > x1 || y0 > y1 {
		return res
	}
	res.status = binBinned
	res.tx0, res.tx1 = uint16(x0/b.tsize), uint16(x1/b.tsize)
	res.ty0, res.ty1 = uint16(y0/b.tsize), uint16(y1/b.tsize)
	return res
}

// copyState brings a tile list's state up to date: it writes the state
// records set or changed since the tile's last copy (all of them after a
// FLUSH_ALL_STATE). By induction every record set so far then holds its
// current value in the list; a list starts from the default state, as the
// binner's does. A run of draws that changes one uniform address costs one
// GL_SHADER_STATE per tile and draw instead of every state record.
func (b *binner) copyState(t *binTile) error {
	since := t.version
	if since < b.flushAllVer {
		since = 0
	}
	for f := 0; f < 2; f++ {
		if b.haveStencil[f] && b.stencilVer[f] > since {
			if err := b.emit(t, b.rawStencil[f][:]); err != nil {
				return err
			}
		}
	}
	for _, op := range tileStateOps {
		if b.have[op] && b.opVer[op] > since {
			if err := b.emit(t, b.raw[op][:recordSize[op]]); err != nil {
				return err
			}
		}
	}
	t.version = b.stVer
	return nil
}
