package hw

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Config fixes a GPU's shape at construction; it is read-only afterwards.
type Config struct {
	MemorySize int // bytes of physical memory; default 1 GiB
	Cores      int // render worker goroutines; default runtime.GOMAXPROCS(0)
}

// DefaultMemorySize is the arena size used when Config.MemorySize is 0.
const DefaultMemorySize = 1 << 30

// GPU is one virtual TG GPU. All methods are safe for concurrent use.
type GPU struct {
	mem   []byte
	cores int
	start time.Time

	mu         sync.Mutex // guards the register state below
	intrStatus uint32
	intrEnable uint32
	// faults is the MMU fault queue, oldest first, at most one entry per
	// context and FaultQueueDepth in all; faultsLost is set when a fault
	// of a context not yet queued found the queue full.
	faults     []pageFault
	faultsLost bool
	overflow   struct {
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
	}
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

// New builds a GPU and starts its command processors.
func New(cfg Config) *GPU {
	if cfg.MemorySize <= 0 {
		cfg.MemorySize = DefaultMemorySize
	}
	if cfg.Cores <= 0 {
		cfg.Cores = runtime.GOMAXPROCS(0)
	}
	g := &GPU{
		mem:        make([]byte, cfg.MemorySize),
		cores:      cfg.Cores,
		start:      time.Now(),
		intrWake:   make(chan struct{}, 1),
		memChanged: make(chan struct{}),
		quit:       make(chan struct{}),
	}
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
	return g
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

// Close stops every GPU goroutine. The GPU must not be used afterwards.
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
	if r >= regPerfCounterBase && r < regPerfCounterBase+8*Reg(NumCounters) && r%4 == 0 {
		v := g.counters[(r-regPerfCounterBase)/8].Load()
		if r%8 != 0 {
			return uint32(v >> 32)
		}
		return uint32(v)
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
	ctr                                             [NumCounters]uint64
}

func (p *perfCounts) flushTo(g *GPU) {
	for i, v := range p.ctr {
		if v != 0 {
			g.counters[i].Add(v)
		}
	}
	p.ctr = [NumCounters]uint64{}
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
