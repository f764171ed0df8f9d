package hw

import (
	"encoding/binary"
	"math"
	mbits "math/bits"
	"sync/atomic"
	"unsafe"
)

// Performance counters of the counter block (docs/hardware.md §8). Each
// counter belongs to one engine: the BIN engine's counters are counted only
// by the binner, the RENDER engine's only by the render workers. An engine
// runs one indirect buffer at a time, so the difference of its counters
// across an IB is that job's count; EVENT_WRITE with EventCounters dumps an
// engine's counters into memory for exactly that purpose.
//
// Counting costs no atomics in the inner loops: each binner and render
// worker accumulates into its own perfCounts and adds them to the shared
// block at the end of each segment, tile and bin job.

// Counter identifies one performance counter.
type Counter uint8

// BIN engine counters (CounterBinFirst ≤ c < CounterRenderFirst).
const (
	CtrBinPrimitives         Counter = iota // primitives assembled from the primitive records
	CtrBinRejected                          // dropped: outside the view volume or the clip window, NaN, or clipped away
	CtrBinClipped                           // crossing the near/far/w planes (bounded by clipping)
	CtrBinCulled                            // dropped by facing (CONFIGURATION_BITS)
	CtrBinBinned                            // reached at least one tile list
	CtrBinTileRefs                          // TILE_PRIMITIVE records written (one per tile a primitive touches)
	CtrBinBytesWritten                      // tile-list bytes written (records and state copies)
	CtrCSVertices                           // vertices shaded by the coordinate shader
	CtrCSInstructions                       // coordinate-shader instructions (per 16-lane instruction)
	CtrBinBytesRead                         // index and vertex-attribute bytes the binner fetched
	CtrBinParallelVertices                  // of cs.vertices, those shaded by the binner's helper threads (parallel binning)
	CtrCSDualIssued                         // coordinate-shader instructions that ran an op on both ALUs
	CtrCSSFUOps                             // coordinate-shader SFU writes (16-lane)
	CtrCSTMULanes                           // lanes of coordinate-shader texture fetches
	CtrCSTMUTexels                          // texel words the binner's TMUs read for them
	CtrCSTMUPageMisses                      // binner TMU accesses that missed the TMU's page cache
	CtrBinStoredVertices                    // vertices the binner shaded with the full vertex shader and stored (vertex store)
	CtrBinParallelPrimitives                // of bin.primitives, those classified (clip test, culling, tiles) by the binner's helper threads

	// RENDER engine counters.
	CtrTiles                 // tiles rendered
	CtrTileLoads             // LOAD_TILE_BUFFER_GENERAL executed (colour or depth/stencil)
	CtrTileStores            // STORE_TILE_BUFFER_GENERAL executed
	CtrRenderBytesRead       // bytes read by tile loads
	CtrRenderBytesWritten    // bytes written by tile stores
	CtrPrimitives            // primitives rasterised (per tile they appear in)
	CtrQuads                 // 2×2 quads with coverage produced by the rasteriser
	CtrQuadsEarlyZKilled     // quads whose every lane failed the early depth test (never shaded)
	CtrFragmentsEarlyZKilled // covered lanes that failed the early depth test
	CtrFSBatches             // fragment-shader batches (16 lanes)
	CtrFragmentsShaded       // covered lanes that ran the fragment shader
	CtrFragmentsDiscarded    // shaded fragments the shader discarded (TLB_KILL)
	CtrFragmentsDepthFailed  // fragments that failed the late stencil or depth test
	CtrFragmentsWritten      // fragments that reached the colour write
	CtrFragmentsBlended      // of those, fragments written with blending on
	CtrVSVertices            // vertices shaded by the vertex shader (per tile segment)
	CtrVSInstructions        // vertex-shader instructions
	CtrVSBytesRead           // vertex-attribute bytes fetched for the vertex shader
	CtrFSInstructions        // fragment-shader instructions
	CtrHSRPrimitives         // primitives hidden-surface removal skipped (never rasterised)
	CtrRasterBlocks          // 4×4 blocks the block rasteriser found fully covered
	CtrVSDualIssued          // vertex-shader instructions that ran an op on both ALUs
	CtrFSDualIssued          // fragment-shader instructions that ran an op on both ALUs
	CtrVSSFUOps              // vertex-shader SFU writes (16-lane)
	CtrFSSFUOps              // fragment-shader SFU writes (16-lane)
	CtrTMULanes              // lanes of vertex- and fragment-shader texture fetches
	CtrTMUTexels             // texel words the render cores' TMUs read for them (1 nearest, 4 bilinear)
	CtrTMUPageMisses         // render TMU accesses that missed the TMU's page cache (1 − misses/texels ≈ hit rate)
	CtrFSBatchesReused       // of fs.batches, those a batch-invariant program's earlier batch served (invariant.go)
	CtrVSStoredVertices      // stored vertices tiles read instead of running the vertex shader

	// COMPUTE engine counters (csd.go).
	CtrComputeDispatches     // COMPUTE_DISPATCH descriptors run
	CtrComputeWorkgroups     // workgroups run
	CtrComputeBatches        // 16-lane compute batches run
	CtrComputeInvocations    // invocations run (lanes inside their workgroup)
	CtrComputeInstructions   // compute-shader instructions (per 16-lane instruction)
	CtrComputeBarriers       // BARRIER signals executed (per batch)
	CtrComputeSharedAccesses // shared-memory loads, stores and atomics (per lane)

	// DMA engine counters (dma.go).
	CtrDMACommands     // DMA_COMMAND descriptors executed
	CtrDMABytesRead    // bytes the copies read
	CtrDMABytesWritten // bytes the copies and fills wrote

	NumCounters
)

// The counter ranges of the engines: each engine's counters are
// contiguous (new counters go at the end of their engine's range).
const (
	CounterBinFirst     = CtrBinPrimitives
	CounterRenderFirst  = CtrTiles
	CounterComputeFirst = CtrComputeDispatches
	CounterDMAFirst     = CtrDMACommands
	NumBinCounters      = int(CounterRenderFirst - CounterBinFirst)
	NumRenderCounters   = int(CounterComputeFirst - CounterRenderFirst)
	NumComputeCounters  = int(CounterDMAFirst - CounterComputeFirst)
	NumDMACounters      = int(NumCounters - CounterDMAFirst)
)

// engineCounterList[e] is engine e's counters in counter order (one
// contiguous range per engine): the order of EVENT_WRITE's counter dump.
var engineCounterList = func() (l [numEngines][]Counter) {
	for c := Counter(0); c < NumCounters; c++ {
		l[c.Engine()] = append(l[c.Engine()], c)
	}
	return l
}()

// EngineCounters returns engine e's counters in counter order, the order
// EVENT_WRITE dumps them in. The slice is shared: callers must not modify
// it.
func EngineCounters(e int) []Counter {
	if e < 0 || e >= numEngines {
		return nil
	}
	return engineCounterList[e]
}

var counterNames = [NumCounters]string{
	CtrBinPrimitives:         "bin.primitives",
	CtrBinRejected:           "bin.rejected",
	CtrBinClipped:            "bin.clipped",
	CtrBinCulled:             "bin.culled",
	CtrBinBinned:             "bin.binned",
	CtrBinTileRefs:           "bin.tile_refs",
	CtrBinBytesWritten:       "bin.bytes_written",
	CtrCSVertices:            "cs.vertices",
	CtrCSInstructions:        "cs.instructions",
	CtrBinBytesRead:          "bin.bytes_read",
	CtrBinParallelVertices:   "bin.parallel_vertices",
	CtrCSDualIssued:          "cs.dual_issued",
	CtrCSSFUOps:              "cs.sfu_ops",
	CtrCSTMULanes:            "cs.tmu_lanes",
	CtrCSTMUTexels:           "cs.tmu_texels",
	CtrCSTMUPageMisses:       "cs.tmu_page_misses",
	CtrTiles:                 "render.tiles",
	CtrTileLoads:             "render.tile_loads",
	CtrTileStores:            "render.tile_stores",
	CtrRenderBytesRead:       "render.bytes_read",
	CtrRenderBytesWritten:    "render.bytes_written",
	CtrPrimitives:            "render.primitives",
	CtrQuads:                 "render.quads",
	CtrQuadsEarlyZKilled:     "render.quads_early_z_killed",
	CtrFragmentsEarlyZKilled: "render.fragments_early_z_killed",
	CtrFSBatches:             "fs.batches",
	CtrFragmentsShaded:       "fs.fragments_shaded",
	CtrFragmentsDiscarded:    "fs.fragments_discarded",
	CtrFragmentsDepthFailed:  "tlb.fragments_depth_failed",
	CtrFragmentsWritten:      "tlb.fragments_written",
	CtrFragmentsBlended:      "tlb.fragments_blended",
	CtrVSVertices:            "vs.vertices",
	CtrVSInstructions:        "vs.instructions",
	CtrVSBytesRead:           "vs.bytes_read",
	CtrFSInstructions:        "fs.instructions",
	CtrHSRPrimitives:         "render.hsr_primitives",
	CtrRasterBlocks:          "render.raster_blocks",
	CtrVSDualIssued:          "vs.dual_issued",
	CtrFSDualIssued:          "fs.dual_issued",
	CtrVSSFUOps:              "vs.sfu_ops",
	CtrFSSFUOps:              "fs.sfu_ops",
	CtrTMULanes:              "tmu.lanes",
	CtrTMUTexels:             "tmu.texels",
	CtrTMUPageMisses:         "tmu.page_misses",
	CtrFSBatchesReused:       "fs.batches_reused",
	CtrComputeDispatches:     "compute.dispatches",
	CtrComputeWorkgroups:     "compute.workgroups",
	CtrComputeBatches:        "compute.batches",
	CtrComputeInvocations:    "compute.invocations",
	CtrComputeInstructions:   "compute.instructions",
	CtrComputeBarriers:       "compute.barriers",
	CtrComputeSharedAccesses: "compute.shared_accesses",
	CtrDMACommands:           "dma.commands",
	CtrDMABytesRead:          "dma.bytes_read",
	CtrDMABytesWritten:       "dma.bytes_written",
	CtrBinStoredVertices:     "bin.stored_vertices",
	CtrVSStoredVertices:      "vs.stored_vertices",
	CtrBinParallelPrimitives: "bin.parallel_primitives",
}

// String is the counter's name, as the CLI and the kernel report it.
func (c Counter) String() string {
	if c < NumCounters {
		return counterNames[c]
	}
	return "counter?"
}

// Engine is the engine that counts c.
func (c Counter) Engine() int {
	if c < CounterRenderFirst {
		return EngineBin
	}
	if c >= CounterDMAFirst {
		return EngineDMA
	}
	if c >= CounterComputeFirst {
		return EngineCompute
	}
	return EngineRender
}

// engineCounters is the range of engine e's counters.
func engineCounters(e int) (first Counter, n int) {
	switch e {
	case EngineBin:
		return CounterBinFirst, NumBinCounters
	case EngineCompute:
		return CounterComputeFirst, NumComputeCounters
	case EngineDMA:
		return CounterDMAFirst, NumDMACounters
	}
	return CounterRenderFirst, NumRenderCounters
}

// RegPerfCounter is the low word of counter c in the counter block; the
// high word is at +4.
func RegPerfCounter(c Counter) Reg { return regPerfCounterBase + 8*Reg(c) }

// perfCounterIndex is the counter whose low (hi=false) or high word
// register r is.
func perfCounterIndex(r Reg) (c Counter, hi, ok bool) {
	if r < regPerfCounterBase || r >= regPerfCounterBase+8*Reg(NumCounters) || r%4 != 0 {
		return 0, false, false
	}
	return Counter((r - regPerfCounterBase) / 8), r%8 != 0, true
}

const regPerfCounterBase Reg = 0x1000

// MaxCounters is the counter block's capacity: PERF_COUNTER(c) for c <
// 128 lies in 0x1000..0x13FF. The block began at 0xA00 with room for 32,
// which the counters of the first observability work already filled; it
// moved to a range of its own so counters can be added without moving
// other registers again.
const MaxCounters = 128

var _ [MaxCounters - int(NumCounters)]struct{}

// The tile trace (docs/hardware.md §8): when the kernel gives the render
// engine a buffer in physical memory (TILE_TRACE_BASE, TILE_TRACE_SIZE),
// every render worker appends one 64-byte record per finished tile —
// which tile, which core and context, start and end timestamps and the
// tile's cost — the way a GPU's timeline/trace unit reports per-tile work.
// TILE_TRACE_COUNT counts the records claimed since the buffer was set;
// record i lies at BASE + (i mod SIZE/64)·64, so the buffer is a ring the
// kernel must read before it wraps. A record is complete when its
// sequence word (+32) holds i+1: the worker stores that word last, with
// an atomic store, so a reader that loads it atomically sees the whole
// record.
const (
	RegTileTraceBase  Reg = 0xB00 // RW: PA of the buffer (64-byte aligned)
	RegTileTraceSize  Reg = 0xB04 // RW: bytes, a power of two ≥ 64; 0 turns tracing off; writing it resets the count
	RegTileTraceCount Reg = 0xB08 // R: records claimed (wraps at 2^32)

	TileTraceRecordBytes = 64
	TileTraceSeqOffset   = 32 // the record's sequence word: index + 1 once complete
)

// tileTrace is the tile-trace unit's state.
type tileTrace struct {
	base, size atomic.Uint32
	count      atomic.Uint32
}

// tileCost is what a worker measured for the tile it is rendering.
type tileCost struct {
	start        uint64
	instructions uint64
	fragments    uint64
}

// traceTile appends worker w's record for the tile at (col, row).
func (w *worker) traceTile(col, row int) {
	g := w.g
	size := g.tileTrace.size.Load()
	if size < TileTraceRecordBytes || size&(size-1) != 0 {
		return
	}
	base := g.tileTrace.base.Load() &^ (TileTraceRecordBytes - 1)
	if uint64(base)+uint64(size) > uint64(len(g.mem)) {
		return
	}
	i := g.tileTrace.count.Add(1) - 1
	rec := g.mem[base+(i*TileTraceRecordBytes)&(size-1):][:TileTraceRecordBytes]
	rec[0], rec[1] = byte(col), byte(row)
	binary.LittleEndian.PutUint16(rec[2:], uint16(w.id))
	binary.LittleEndian.PutUint32(rec[4:], w.m.ctx)
	binary.LittleEndian.PutUint64(rec[8:], w.cost.start)
	binary.LittleEndian.PutUint64(rec[16:], g.timestamp())
	binary.LittleEndian.PutUint32(rec[24:], uint32(min(w.cost.instructions, math.MaxUint32)))
	binary.LittleEndian.PutUint32(rec[28:], uint32(min(w.cost.fragments, math.MaxUint32)))
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&rec[TileTraceSeqOffset])), toLE(i+1))
}

// Draw markers and the shader-fault record (docs/hardware.md §8): what a
// crash dump needs to name the draw, tile and instruction that failed.
const (
	RegMarkerBin Reg = 0xC00 // R: Id of the last MARKER the binner passed
	// RegShaderFaultPC (R) is the address of the instruction of the last
	// shader batch that failed (page fault, CL error in the shader),
	// RegShaderFaultEntry its program's entry and RegShaderFaultInfo
	// ShaderFaultValid | stage<<8 | QPU number.
	RegShaderFaultPC    Reg = 0xC04
	RegShaderFaultEntry Reg = 0xC08
	RegShaderFaultInfo  Reg = 0xC0C
	regMarkerCoreBase   Reg = 0xC40
	regTileCoreBase     Reg = 0xD40

	TileValid        uint32 = 1 << 31 // TILE_CORE: the core has rendered a tile since reset
	ShaderFaultValid uint32 = 1 << 31
	// MaxMarkerCores is how many cores have MARKER_CORE/TILE_CORE registers.
	MaxMarkerCores = 64
)

// RegMarkerCore is the Id of the last MARKER render core k passed.
func RegMarkerCore(k int) Reg { return regMarkerCoreBase + 4*Reg(k) }

// RegTileCore is the tile render core k works on or last worked on:
// column | row<<8 | TileValid.
func RegTileCore(k int) Reg { return regTileCoreBase + 4*Reg(k) }

type markerRegs struct {
	bin        atomic.Uint32
	core, tile [MaxMarkerCores]atomic.Uint32
	faultPC    atomic.Uint32
	faultEntry atomic.Uint32
	faultInfo  atomic.Uint32
}

// readMarkerReg serves the marker and shader-fault registers.
func (g *GPU) readMarkerReg(r Reg) (uint32, bool) {
	m := &g.markers
	switch {
	case r == RegMarkerBin:
		return m.bin.Load(), true
	case r == RegShaderFaultPC:
		return m.faultPC.Load(), true
	case r == RegShaderFaultEntry:
		return m.faultEntry.Load(), true
	case r == RegShaderFaultInfo:
		return m.faultInfo.Load(), true
	case r >= regMarkerCoreBase && r < regMarkerCoreBase+4*MaxMarkerCores && r%4 == 0:
		return m.core[(r-regMarkerCoreBase)/4].Load(), true
	case r >= regTileCoreBase && r < regTileCoreBase+4*MaxMarkerCores && r%4 == 0:
		return m.tile[(r-regTileCoreBase)/4].Load(), true
	}
	return 0, false
}

// shaderFailed records a failed batch for RegShaderFault*.
func (g *GPU) shaderFailed(pc, entry uint32, stage, qpuNumber int) {
	g.markers.faultPC.Store(pc)
	g.markers.faultEntry.Store(entry)
	g.markers.faultInfo.Store(ShaderFaultValid | uint32(stage&0xFF)<<8 | uint32(qpuNumber&0xFF))
}

// RegDebugMode (RW) selects debug views of the render engine.
// DebugOverdraw: the colour buffer counts shaded fragments instead of
// holding colours — every tile starts at 0 (alpha 255) instead of the
// clear colour, and each fragment the fragment shader runs for (covered
// lanes after early depth, discarded ones included) adds 1 to its pixel's
// red byte (saturating at 255). Depth and stencil work as always, so the
// count is what the frame really shades.
const (
	RegDebugMode  Reg    = 0xB10
	DebugOverdraw uint32 = 1 << 0
)

// overdrawBase is a tile's starting value in DebugOverdraw mode.
const overdrawBase = 0xFF000000

// countOverdraw runs resolve for the surviving lanes and then turns the
// colour of every shaded lane's pixel into its previous count plus one.
func (w *worker) countOverdraw(shaded, survive uint16) {
	var saved [16]uint32
	fb := &w.frag
	for m := shaded; m != 0; m &= m - 1 {
		l := mbits.TrailingZeros16(m)
		saved[l] = w.color[fb.quad[l>>2]+laneOffset[l&3]]
	}
	w.resolve(survive)
	// Restore in reverse lane order so that a pixel two lanes share gets
	// the first lane's (original) count, then count each lane.
	for l := 15; l >= 0; l-- {
		if shaded&(1<<l) != 0 {
			w.color[fb.quad[l>>2]+laneOffset[l&3]] = saved[l]
		}
	}
	for m := shaded; m != 0; m &= m - 1 {
		l := mbits.TrailingZeros16(m)
		i := fb.quad[l>>2] + laneOffset[l&3]
		if w.color[i]&0xFF != 0xFF {
			w.color[i]++
		}
	}
}
