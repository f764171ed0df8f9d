package hw

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tilegpu/tilegpu/hw/qpu"
)

// Config fixes a GPU's shape at construction; it is read-only afterwards.
type Config struct {
	// MemorySize is the bytes of physical memory, a multiple of 4096 in
	// MinMemorySize..MaxMemorySize; 0 means DefaultMemorySize. Only the
	// pages the GPU touches are committed (see arena.go).
	MemorySize int
	Cores      int // render worker goroutines; default runtime.GOMAXPROCS(0)
	// NoNativeShaders runs translated shaders without native amd64 code
	// (hw/qpu native_amd64.go), for comparison; the results are the same.
	NoNativeShaders bool
}

// DefaultMemorySize is the arena size used when Config.MemorySize is 0:
// a 4096² colour and depth/stencil buffer (128 MiB) with room to spare for
// textures, buffers and binning memory.
const DefaultMemorySize = 256 << 20

// GPU is one virtual TG GPU. All methods are safe for concurrent use.
type GPU struct {
	mem   []byte
	arena *arena
	cores int
	start time.Time
	// noNative: Config.NoNativeShaders
	noNative bool

	mu         sync.Mutex // guards the register state below
	intrStatus uint32
	intrEnable uint32
	// faults is the MMU fault queue, oldest first, at most one entry per
	// context and FaultQueueDepth in all; faultsLost is set when a fault
	// of a context not yet queued found the queue full.
	faults      []pageFault
	faultsLost  bool
	clErrCtx    uint32 // CL_ERROR_CTX
	clErrStatus uint32 // CL_ERROR_STATUS
	clErrIB     uint32 // CL_ERROR_IB
	overflow    struct {
		addr, size uint32
		gen        uint64 // bumped by each BIN_OVERFLOW_SIZE write
	}
	overflowCond *sync.Cond

	handler  atomic.Pointer[func()]
	intrWake chan struct{}

	// memChanged is closed (and replaced) whenever memory that a WAIT_MEM
	// may watch could have changed; waiters select on it.
	memMu      sync.Mutex
	memChanged chan struct{}
	memWaiters int // WAIT_MEMs in progress; no channel churn without them

	engines [numEngines]*engine

	// tlbEpoch counts TLB shootdowns (MMU_TLB_INVALIDATE); every MMU
	// compares it on each translation and shader cores on each batch and
	// taken branch.
	tlbEpoch atomic.Uint64

	perf struct {
		qpuInstructions, triangles, tiles, fragments, vertices atomic.Uint64
		// Instructions run as translated and as native code: how shader
		// instructions ran, a subset of cs/vs/fs.instructions of the
		// counter block, so they stay outside it (docs/hardware.md §8).
		xlatInstructions, nativeInstructions atomic.Uint64
	}
	// noHSR turns hidden-surface removal off and noBlocks the 4×4 block
	// rasteriser (tests compare both paths).
	noHSR, noBlocks bool
	// noInvariant runs every batch of a batch-invariant fragment program
	// (invariant.go; tests compare both paths).
	noInvariant bool
	// noLaneBatch makes resolve test and write lane by lane even when the
	// lanes lie on different pixels (tests compare with depthBatch and
	// colorBatch).
	noLaneBatch bool
	// noParallelBin makes the binner shade every vertex itself (tests
	// compare with shadeParallel).
	noParallelBin bool
	// noVertexStore makes the binner run only the coordinate shader and
	// the tiles re-shade every vertex (tests compare both paths).
	noVertexStore bool

	// xlat shares translated shader programs between jobs and engines,
	// keyed by address and content (qpu.TranslationCache).
	xlat qpu.TranslationCache

	// counters is the counter block (perf.go), PERF_COUNTER(c).
	counters  [NumCounters]atomic.Uint64
	tileTrace tileTrace
	markers   markerRegs
	debugMode atomic.Uint32

	render *renderer

	quit   chan struct{}
	closed atomic.Bool
	wg     sync.WaitGroup
}

// New builds a GPU and starts its command processors. It panics where Open
// returns an error; it is for tests and tools with a known-good Config.
func New(cfg Config) *GPU {
	g, err := Open(cfg)
	if err != nil {
		panic(err)
	}
	return g
}

// maxCores bounds Config.Cores: each core is a goroutine with its own tile
// buffer and shader state.
const maxCores = 256

// Open builds a GPU and starts its command processors. A Config outside
// the documented ranges is an error (wrapping ErrMemorySize for the size).
func Open(cfg Config) (*GPU, error) {
	if cfg.MemorySize == 0 {
		cfg.MemorySize = DefaultMemorySize
	}
	if err := checkMemorySize(cfg.MemorySize); err != nil {
		return nil, err
	}
	if cfg.Cores < 0 || cfg.Cores > maxCores {
		return nil, fmt.Errorf("hw: %d cores not in 0..%d", cfg.Cores, maxCores)
	}
	if cfg.Cores == 0 {
		cfg.Cores = runtime.GOMAXPROCS(0)
	}
	g := &GPU{
		cores:      cfg.Cores,
		noNative:   cfg.NoNativeShaders,
		start:      time.Now(),
		intrWake:   make(chan struct{}, 1),
		memChanged: make(chan struct{}),
		quit:       make(chan struct{}),
	}
	a, err := newArena(g, cfg.MemorySize)
	if err != nil {
		return nil, err
	}
	g.arena, g.mem = a, a.mem
	g.overflowCond = sync.NewCond(&g.mu)
	g.render = newRenderer(g, cfg.Cores)
	for e := range g.engines {
		g.engines[e] = newEngine(g, e)
	}
	g.wg.Add(1)
	go g.interruptLoop()
	for _, e := range g.engines {
		g.wg.Add(1)
		go e.run()
	}
	return g, nil
}

// Memory returns the physical arena; PA = index.
func (g *GPU) Memory() []byte { return g.mem }

// SetInterruptHandler registers h, called on a GPU goroutine whenever an
// enabled interrupt bit becomes pending.
func (g *GPU) SetInterruptHandler(h func()) {
	if h == nil {
		g.handler.Store(nil)
		return
	}
	g.handler.Store(&h)
	g.kickInterrupt()
}

// ZeroMemory makes physical memory [pa, pa+n) read as zero. On the mapped
// arena whole pages are given back to the OS rather than written, so
// freshly allocated memory is committed only when the GPU uses it.
func (g *GPU) ZeroMemory(pa, n uint32) {
	if uint64(pa)+uint64(n) > uint64(len(g.mem)) {
		panic(fmt.Sprintf("BUG: hw: ZeroMemory [%#x, +%#x) outside the arena", pa, n))
	}
	g.arena.zero(int(pa), int(n))
}

// Close stops every GPU goroutine and returns the committed memory to the
// OS. The GPU must not be used afterwards (the arena then reads as zeros).
func (g *GPU) Close() {
	if g.closed.Swap(true) {
		return
	}
	close(g.quit)
	g.mu.Lock()
	g.overflowCond.Broadcast()
	g.mu.Unlock()
	g.notifyMemChanged()
	g.wg.Wait()
	g.render.close()
	g.arena.release()
}

func (g *GPU) timestamp() uint64 { return uint64(time.Since(g.start).Nanoseconds()) }

// raise latches interrupt bits and wakes the interrupt goroutine.
func (g *GPU) raise(bits uint32) {
	g.mu.Lock()
	g.intrStatus |= bits
	g.mu.Unlock()
	g.kickInterrupt()
}

func (g *GPU) kickInterrupt() {
	select {
	case g.intrWake <- struct{}{}:
	default:
	}
}

func (g *GPU) interruptLoop() {
	defer g.wg.Done()
	for {
		select {
		case <-g.quit:
			return
		case <-g.intrWake:
		}
		g.mu.Lock()
		pending := g.intrStatus & g.intrEnable
		g.mu.Unlock()
		if pending == 0 {
			continue
		}
		if h := g.handler.Load(); h != nil {
			(*h)()
		}
	}
}

// fault queues a page fault and raises INTR_MMU_FAULT. A context with a
// fault already queued keeps its first one: the kernel blames contexts,
// so one entry per context is all it needs, and two engines faulting for
// two contexts before the kernel looks are both reported.
func (g *GPU) fault(f *pageFault) {
	g.mu.Lock()
	queued := false
	for i := range g.faults {
		if g.faults[i].ctx == f.ctx {
			queued = true
			break
		}
	}
	switch {
	case queued:
	case len(g.faults) < FaultQueueDepth:
		g.faults = append(g.faults, *f)
	default:
		g.faultsLost = true
	}
	g.intrStatus |= IntrMMUFault
	g.mu.Unlock()
	g.kickInterrupt()
}

// headFault returns the oldest queued fault; g.mu is held.
func (g *GPU) headFault() pageFault {
	if len(g.faults) == 0 {
		return pageFault{}
	}
	return g.faults[0]
}

// clError latches CL_ERROR_CTX/STATUS/IB and raises INTR_CL_ERROR: engine
// abandoned the indirect buffer at VA ib (0: a ring packet) of context ctx
// for cause (CLErrorCause*).
func (g *GPU) clError(engine int, ctx, ib, cause uint32) {
	g.mu.Lock()
	g.clErrCtx = ctx
	g.clErrIB = ib
	g.clErrStatus = cause&0xFF | uint32(engine&0xF)<<CLErrorEngineShift
	g.intrStatus |= IntrCLError
	g.mu.Unlock()
	g.kickInterrupt()
}

// notifyMemChanged wakes every WAIT_MEM waiter so it re-reads memory.
func (g *GPU) notifyMemChanged() {
	g.memMu.Lock()
	if g.memWaiters > 0 {
		close(g.memChanged)
		g.memChanged = make(chan struct{})
	}
	g.memMu.Unlock()
}

// memWaitBegin registers a WAIT_MEM waiter and returns the channel that
// the next notifyMemChanged closes; memWaitEnd unregisters it.
func (g *GPU) memWaitBegin() <-chan struct{} {
	g.memMu.Lock()
	g.memWaiters++
	c := g.memChanged
	g.memMu.Unlock()
	return c
}

func (g *GPU) memWaitEnd() {
	g.memMu.Lock()
	g.memWaiters--
	g.memMu.Unlock()
}

// WriteReg writes a register. Writes to read-only registers are ignored.
func (g *GPU) WriteReg(r Reg, v uint32) {
	if e, p, off, ok := decodeRingReg(r); ok {
		g.engines[e].writeReg(p, off, v)
		// The kernel often updates a semaphore from the CPU and then rings
		// a doorbell; let waiters look again.
		g.notifyMemChanged()
		return
	}
	switch r {
	case RegIntrAck:
		g.mu.Lock()
		g.intrStatus &^= v
		if len(g.faults) > 0 {
			g.intrStatus |= IntrMMUFault // pending while faults are queued
		}
		g.mu.Unlock()
	case RegMMUFaultPop:
		g.mu.Lock()
		if len(g.faults) > 0 {
			g.faults = append(g.faults[:0], g.faults[1:]...)
		}
		if len(g.faults) == 0 {
			g.faultsLost = false
		}
		g.mu.Unlock()
	case RegMMUTLBInvalidate:
		g.tlbEpoch.Add(1)
	case RegShaderFaultInfo:
		g.markers.faultInfo.Store(0) // any write clears the record
	case RegDebugMode:
		g.debugMode.Store(v)
	case RegTileTraceBase:
		g.tileTrace.base.Store(v)
	case RegTileTraceSize:
		g.tileTrace.size.Store(v)
		g.tileTrace.count.Store(0)
	case RegIntrEnable:
		g.mu.Lock()
		g.intrEnable = v
		g.mu.Unlock()
		g.kickInterrupt()
	case RegBinOverflowAddr:
		g.mu.Lock()
		g.overflow.addr = v
		g.mu.Unlock()
	case RegBinOverflowSize:
		g.mu.Lock()
		g.overflow.size = v
		g.overflow.gen++
		g.overflowCond.Broadcast()
		g.mu.Unlock()
	case RegReset:
		for e := range g.engines {
			if v&(1<<e) != 0 {
				g.engines[e].reset()
			}
		}
		g.mu.Lock()
		g.overflowCond.Broadcast()
		g.mu.Unlock()
		g.notifyMemChanged()
	}
}

// ReadReg reads a register; unknown registers read as 0.
func (g *GPU) ReadReg(r Reg) uint32 {
	if e, p, off, ok := decodeRingReg(r); ok {
		return g.engines[e].readReg(p, off)
	}
	if v, ok := g.readMarkerReg(r); ok {
		return v
	}
	if c, hi, ok := perfCounterIndex(r); ok {
		v := g.counters[c].Load()
		if hi {
			return uint32(v >> 32)
		}
		return uint32(v)
	}
	if v, ok := g.readCSDReg(r); ok {
		return v
	}
	if r >= cpStatusRegBase && r < cpStatusRegBase+4*numEngines && r%4 == 0 {
		return g.engines[(r-cpStatusRegBase)/4].status.Load()
	}
	lo := func(c *atomic.Uint64) uint32 { return uint32(c.Load()) }
	hi := func(c *atomic.Uint64) uint32 { return uint32(c.Load() >> 32) }
	switch r {
	case RegIntrStatus:
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.intrStatus
	case RegIntrEnable:
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.intrEnable
	case RegMMUFaultVA:
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.headFault().va
	case RegMMUFaultCtx:
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.headFault().ctx
	case RegMMUFaultIB:
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.headFault().ib
	case RegMMUFaultStatus:
		g.mu.Lock()
		defer g.mu.Unlock()
		if len(g.faults) == 0 {
			return 0
		}
		f := g.faults[0]
		st := uint32(f.engine&0xF) << FaultStatusEngineShift
		if f.write {
			st |= FaultStatusWrite
		}
		return st
	case RegMMUFaultCount:
		g.mu.Lock()
		defer g.mu.Unlock()
		n := uint32(len(g.faults))
		if g.faultsLost {
			n |= FaultCountOverflow
		}
		return n
	case RegCLErrorCtx:
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.clErrCtx
	case RegCLErrorStatus:
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.clErrStatus
	case RegCLErrorIB:
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.clErrIB
	case RegTimestampLo:
		return uint32(g.timestamp())
	case RegTimestampHi:
		return uint32(g.timestamp() >> 32)
	case RegPerfQPUInstructions:
		return lo(&g.perf.qpuInstructions)
	case RegPerfQPUInstructionsHi:
		return hi(&g.perf.qpuInstructions)
	case RegPerfTriangles:
		return lo(&g.perf.triangles)
	case RegPerfTrianglesHi:
		return hi(&g.perf.triangles)
	case RegPerfTiles:
		return lo(&g.perf.tiles)
	case RegPerfTilesHi:
		return hi(&g.perf.tiles)
	case RegPerfFragments:
		return lo(&g.perf.fragments)
	case RegPerfFragmentsHi:
		return hi(&g.perf.fragments)
	case RegPerfVertices:
		return lo(&g.perf.vertices)
	case RegPerfVerticesHi:
		return hi(&g.perf.vertices)
	case RegPerfXlatInstructions:
		return lo(&g.perf.xlatInstructions)
	case RegPerfXlatInstructionsHi:
		return hi(&g.perf.xlatInstructions)
	case RegPerfNativeInstructions:
		return lo(&g.perf.nativeInstructions)
	case RegPerfNativeInstructionsHi:
		return hi(&g.perf.nativeInstructions)
	case RegPerfNativeRuns:
		return uint32(g.xlat.Stats().NativeRuns)
	case RegPerfNativeRunsHi:
		return uint32(g.xlat.Stats().NativeRuns >> 32)
	case RegPerfXlatPrograms, RegPerfXlatProgramsHi, RegPerfXlatHits, RegPerfXlatHitsHi,
		RegPerfXlatMisses, RegPerfXlatMissesHi:
		st := g.xlat.Stats()
		v := [3]uint64{st.Translated, st.Hits, st.Misses}[(r-RegPerfXlatPrograms)/8]
		if (r-RegPerfXlatPrograms)%8 != 0 {
			return uint32(v >> 32)
		}
		return uint32(v)
	// pix's and pix2's registers read the counters of the block that
	// count the same events (PERF_EARLYZ_REJECTED is
	// render.fragments_early_z_killed).
	case RegPerfHSRPrimitives:
		return lo(&g.counters[CtrHSRPrimitives])
	case RegPerfHSRPrimitivesHi:
		return hi(&g.counters[CtrHSRPrimitives])
	case RegPerfRasterBlocks:
		return lo(&g.counters[CtrRasterBlocks])
	case RegPerfRasterBlocksHi:
		return hi(&g.counters[CtrRasterBlocks])
	case RegPerfEarlyZRejected:
		return lo(&g.counters[CtrFragmentsEarlyZKilled])
	case RegPerfEarlyZRejectedHi:
		return hi(&g.counters[CtrFragmentsEarlyZKilled])
	case RegPerfBinParallelVertices:
		return lo(&g.counters[CtrBinParallelVertices])
	case RegPerfBinParallelVerticesHi:
		return hi(&g.counters[CtrBinParallelVertices])
	case RegNumCores:
		return uint32(g.cores)
	case RegNumCounters:
		return uint32(NumCounters)
	case RegDebugMode:
		return g.debugMode.Load()
	case RegTileTraceBase:
		return g.tileTrace.base.Load()
	case RegTileTraceSize:
		return g.tileTrace.size.Load()
	case RegTileTraceCount:
		return g.tileTrace.count.Load()
	case RegNumQPUs:
		return uint32(g.numQPUs())
	}
	return 0
}

// numQPUs: one binner thread slot plus one per render worker.
func (g *GPU) numQPUs() int { return g.cores + 1 }

// perfCounts accumulates one engine goroutine's performance counts and adds
// them to the GPU's shared counters once per tile or bin job: an atomic add
// per 16-lane batch from every render worker and per triangle from the
// binner kept one cache line bouncing between the host cores.
type perfCounts struct {
	qpuInstructions, triangles, fragments, vertices uint64
	// xlatInstructions and nativeInstructions: how the instructions ran
	// (taken from the core after each batch, takeCore).
	xlatInstructions, nativeInstructions uint64
	ctr                                  [NumCounters]uint64
}

// takeCore moves the core's counts (instructions run as translated and
// native code, and its per-stage QPU and TMU counts) into p, which
// belongs to engine: the counters a core's work feeds are those of the
// engine that ran it (the binner runs coordinate shaders, and vertex
// shaders for the vertex store, on the BIN engine).
func (p *perfCounts) takeCore(c *qpu.Core, engine int) {
	p.xlatInstructions += c.XlatInstructions
	c.XlatInstructions = 0
	p.nativeInstructions += c.NativeInstructions
	c.NativeInstructions = 0
	for st := range c.Counts {
		sc := &c.Counts[st]
		if *sc != (qpu.StageCounts{}) {
			p.takeStage(engine, qpu.Stage(st), sc)
			*sc = qpu.StageCounts{}
		}
	}
}

// takeStage adds a core's counts for one shader stage to engine's
// counters.
func (p *perfCounts) takeStage(engine int, st qpu.Stage, sc *qpu.StageCounts) {
	switch {
	case engine == EngineBin:
		p.ctr[CtrCSDualIssued] += sc.DualIssued
		p.ctr[CtrCSSFUOps] += sc.SFUOps
		p.ctr[CtrCSTMULanes] += sc.TMULanes
		p.ctr[CtrCSTMUTexels] += sc.TMUTexels
		p.ctr[CtrCSTMUPageMisses] += sc.TMUPageMisses
		return
	case engine != EngineRender:
		return // the COMPUTE engine counts its work in compute.* (csd.go)
	case st == qpu.StageFragment:
		p.ctr[CtrFSDualIssued] += sc.DualIssued
		p.ctr[CtrFSSFUOps] += sc.SFUOps
	default:
		p.ctr[CtrVSDualIssued] += sc.DualIssued
		p.ctr[CtrVSSFUOps] += sc.SFUOps
	}
	p.ctr[CtrTMULanes] += sc.TMULanes
	p.ctr[CtrTMUTexels] += sc.TMUTexels
	p.ctr[CtrTMUPageMisses] += sc.TMUPageMisses
}

// add adds o's counts to p (a parallel-binning helper's counts merged
// into the binner's).
func (p *perfCounts) add(o *perfCounts) {
	p.qpuInstructions += o.qpuInstructions
	p.triangles += o.triangles
	p.fragments += o.fragments
	p.vertices += o.vertices
	p.xlatInstructions += o.xlatInstructions
	p.nativeInstructions += o.nativeInstructions
	for i, v := range o.ctr {
		p.ctr[i] += v
	}
}

func (p *perfCounts) flushTo(g *GPU) {
	for i, v := range p.ctr {
		if v != 0 {
			g.counters[i].Add(v)
		}
	}
	p.ctr = [NumCounters]uint64{}
	if p.nativeInstructions != 0 {
		g.perf.nativeInstructions.Add(p.nativeInstructions)
	}
	if p.xlatInstructions != 0 {
		g.perf.xlatInstructions.Add(p.xlatInstructions)
	}
	p.xlatInstructions, p.nativeInstructions = 0, 0
	p.flushProgress(g)
}

// flushProgress publishes only the progress counters the kernel's
// watchdog samples (QPU instructions, triangles, fragments, vertices) —
// what a long tile or bin job must show as it goes. The counter block is
// added at the end of each tile and bin job (flushTo): adding its
// counters per segment too cost the "fill" scene about 3% CPU time in
// contended atomic adds.
func (p *perfCounts) flushProgress(g *GPU) {
	if p.qpuInstructions != 0 {
		g.perf.qpuInstructions.Add(p.qpuInstructions)
	}
	if p.triangles != 0 {
		g.perf.triangles.Add(p.triangles)
	}
	if p.fragments != 0 {
		g.perf.fragments.Add(p.fragments)
	}
	if p.vertices != 0 {
		g.perf.vertices.Add(p.vertices)
	}
	p.qpuInstructions, p.triangles, p.fragments, p.vertices = 0, 0, 0, 0
}
