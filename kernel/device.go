package kernel

import (
	"sync"
	"time"

	"github.com/tilegpu/tilegpu/hw"
)

// Sizes the kernel picks.
const (
	// ringBytes: a job takes 36 bytes on BIN and 52 on RENDER; 64 KiB holds
	// far more than maxInflight jobs, so ring space rarely limits dispatch
	// (dispatch checks it all the same).
	ringBytes   = 64 << 10
	maxInflight = 256 // jobs in each priority's rings
	// maxContextInflight bounds one context's jobs in the rings (KGSL's
	// per-context in-flight limit): the rest wait in the context's queue,
	// where the dispatcher's round robin applies. Without it a context
	// that submits a burst moves the whole burst into the FIFO rings at
	// once and every context that submits later waits behind all of it.
	// Two would keep bin and render busy with one context alone; the third
	// and fourth cover the dispatcher's latency between a retirement and
	// the refill, so one client alone loses no throughput.
	maxContextInflight = 4
	// defaultStarveLimit: how long a normal-priority job may head its ring
	// without retiring before the dispatcher holds back new high-priority
	// jobs (Options.starveLimit overrides it in tests). 100 ms is six
	// frames at 60 Hz: long enough that a steady high-priority client keeps
	// its latency, short enough that normal clients still move.
	defaultStarveLimit = 100 * time.Millisecond
	// maxActiveJobs bounds one context's queued + running jobs, so a
	// client cannot pin unbounded memory in exec buffers; SubmitCL says
	// EBUSY beyond it.
	maxActiveJobs = 256
	// maxContexts bounds the id space SET_CONTEXT / MMU_FAULT_CTX carry.
	maxContexts = 1 << 16
	// maxBOBytes caps one CreateBO so size arithmetic stays in uint32.
	maxBOBytes = 1 << 30
)

// Device is the kernel-mode driver instance for one GPU. Safe for
// concurrent use.
type Device struct {
	m    machine
	opts Options
	mem  []byte

	mu        sync.Mutex // guards everything below, all Files, contexts, BOs and jobs
	phys      *rangeAllocator
	limits    quotaLimits
	userPages uint32 // pages charged to all contexts' BOs (quota.go)
	rings     [numEngines][numPriorities]*ring
	contexts  map[uint32]*gpuContext
	nextCtxID uint32
	rr        uint32 // round-robin position over context ids
	seqno     uint64 // last fence issued
	pending   map[uint64]*fence
	failed    map[uint64]*fence     // signalled fences that failed (with their error and owner)
	failedLog []uint64              // insertion order of failed, to bound it
	inflight  [numPriorities][]*job // per priority, in ring order
	// Jobs and pools abandoned by a reset; freed once every ring passes
	// zombieGate (see reapZombies).
	zombies    []*job
	zombieBOs  []*bo
	zombieGate [numEngines][numPriorities]uint64
	headSince  time.Time                // when a ring's oldest job last changed
	ringHead   [numPriorities]time.Time // when inflight[p][0] became the head of its ring
	// The watchdog's progress sample: the GPU's work counters and ring read
	// pointers when they last changed, and when that was.
	progress      [3 + numEngines*numPriorities]uint32
	progressSince time.Time
	// What each engine was executing at the last watchdog sample (from
	// CP_STATUS) and since when: the hard cap applies to one packet.
	execJob   [numEngines]*job
	execSince [numEngines]time.Time
	numCores  uint32
	numQPUs   uint32
	closed    bool
	overflows int // overflow pools handed out on BIN_OOM, for tests and debugging
	tiles     tileTraceState
	dumps     int      // crash dumps written (dump.go)
	dumpPaths []string // their files

	// Interrupt state, filled by the handler on a GPU goroutine. The
	// handler never takes mu, so the kernel may hold mu while it writes
	// registers.
	irqMu      sync.Mutex
	irqBits    uint32
	faults     []faultRecord
	faultsLost bool // the hardware's fault queue overflowed at least once
	clErrs     []clErrorRecord

	wake chan struct{}
	quit chan struct{}
	done chan struct{}
}

type faultRecord struct{ va, ctx, status, ib uint32 }

// ring is one (engine, priority) ring buffer in physical memory.
type ring struct {
	engine    int
	prio      int
	pa        uint32
	size      uint32
	submitted uint64 // bytes ever written; WPTR = submitted mod size
}

// gpuContext is a File's GPU context: its address space, memstore page,
// queue of jobs waiting for dependencies, and guilt.
type gpuContext struct {
	id         uint32
	prio       int // priority of the jobs it submits next (SetPriority)
	as         *addressSpace
	memstorePA uint32
	queue      []*job
	active     int    // jobs queued or in flight
	guilty     *Error // set when the context is lost: it caused a fault or hang (or innocent is set)
	innocent   bool   // lost through another context's reset (FaultNoReplay)
	skipping   *Error // FaultSkipFrame: submissions fail until the end of the faulting frame
	closed     bool
	// unfinished holds the fences of the jobs counted by active, oldest
	// first; deferred is the memory unmapped while some of them might
	// still reach it (see releaseLocked).
	unfinished []uint64
	deferred   []deferredFree
	fenceRuns  []fenceRun // the fence numbers issued to it (fences.go)
	charged    uint32     // pages charged to it (quota.go)
	// Observability (perf.go): perf monitors by id, and the JobInfo of
	// its last jobHistory retired jobs.
	perfMons    map[uint32]*perfMon
	nextPerfMon uint32
	history     [jobHistory]JobInfo
	historyNext int
}

// deferredFree is physical memory and GPU VA of a context that was
// unmapped while jobs of the context were unfinished. Uniforms are not
// validated, so a running shader can reach any VA of its own context, and
// a micro-TLB or shader page cache may still hold the old translation: the
// pages go back to the allocator only when every job that was unfinished
// at unmap time has retired (until is the newest of them), so no other
// client can receive them while the context's work might still touch them.
type deferredFree struct {
	until       uint64
	pg, pages   uint32 // physical pages (pages 0: none)
	va, vaPages uint32 // GPU VA pages in the context (vaPages 0: none)
	charged     bool   // pages are charged to the context (user: as a BO)
	user        bool
}

func newDevice(m machine, opts Options) *Device {
	if opts.JobTimeout <= 0 {
		opts.JobTimeout = DefaultJobTimeout
	}
	if opts.hardCap <= 0 {
		opts.hardCap = hardCapFactor * opts.JobTimeout
	}
	if opts.FaultPolicy >= numFaultPolicies {
		opts.FaultPolicy = FaultReplayInnocent
	}
	mem := m.Memory()
	d := &Device{
		m:         m,
		opts:      opts,
		mem:       mem,
		phys:      newRangeAllocator(1, uint32(len(mem)>>pageShift)), // PA page 0 is kept as "no table"
		contexts:  map[uint32]*gpuContext{},
		nextCtxID: 1,
		pending:   map[uint64]*fence{},
		failed:    map[uint64]*fence{},
		numCores:  m.ReadReg(regNumCores),
		numQPUs:   m.ReadReg(regNumQPUs),
		wake:      make(chan struct{}, 1),
		quit:      make(chan struct{}),
		done:      make(chan struct{}),
	}
	if d.numQPUs == 0 {
		d.numQPUs = 1
	}
	d.limits = newQuotaLimits(d.phys.total, opts.MemoryQuota)
	if d.opts.starveLimit <= 0 {
		d.opts.starveLimit = defaultStarveLimit
	}
	if d.opts.ringBytes < pageSize || d.opts.ringBytes&(d.opts.ringBytes-1) != 0 {
		d.opts.ringBytes = ringBytes
	}
	for e := range d.rings {
		for p := range d.rings[e] {
			pg, ok := d.phys.alloc(d.opts.ringBytes>>pageShift, 1)
			if !ok {
				panic("BUG: kernel: GPU memory too small for the rings")
			}
			r := &ring{engine: e, prio: p, pa: pg << pageShift, size: d.opts.ringBytes}
			clear(mem[r.pa : r.pa+r.size])
			d.rings[e][p] = r
			// Start where the command processor is, so a reused GPU does
			// not replay stale words.
			d.m.WriteReg(regRingBase(e, p), r.pa)
			d.m.WriteReg(regRingSize(e, p), r.size)
			d.m.WriteReg(regRingWptr(e, p), 0)
			r.submitted = uint64(d.m.ReadReg(regRingRptr(e, p)) & (r.size - 1))
			d.m.WriteReg(regRingWptr(e, p), uint32(r.submitted))
		}
	}
	if opts.TileTrace {
		d.startTileTrace()
	}
	if opts.DebugOverdraw {
		d.m.WriteReg(reg(hw.RegDebugMode), hw.DebugOverdraw)
	} else {
		d.m.WriteReg(reg(hw.RegDebugMode), 0)
	}
	d.m.SetInterruptHandler(d.onInterrupt)
	d.m.WriteReg(regIntrEnable, intrAll)
	go d.dispatcher()
	return d
}

// Close stops the dispatcher, fails every unfinished fence with EIO and
// releases the interrupt line. Files must not be used afterwards.
func (d *Device) Close() {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return
	}
	d.closed = true
	d.mu.Unlock()
	close(d.quit)
	<-d.done
	d.m.WriteReg(regIntrEnable, 0)
	d.m.SetInterruptHandler(nil)
	d.m.WriteReg(regReset, allEngines)
	d.m.WriteReg(reg(hw.RegTileTraceSize), 0)
	d.mu.Lock()
	defer d.mu.Unlock()
	err := errorf(EIO, "device closed")
	for p := range d.inflight {
		for _, j := range d.inflight[p] {
			d.finishJob(j, err)
		}
		d.inflight[p] = nil
	}
	for _, c := range d.contexts {
		for _, j := range c.queue {
			d.finishJob(j, err)
		}
		c.queue = nil
	}
}

// Open returns a new File: a client with its own handle table and GPU
// context.
func (d *Device) Open() (*File, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, errorf(EIO, "device closed")
	}
	if len(d.contexts) >= maxContexts-1 {
		return nil, errorf(ENOMEM, "too many open files (%d)", len(d.contexts))
	}
	// A context's own pages count with buffers against the reserve for
	// job memory, so opening Files by the thousand cannot eat it either.
	if uint64(d.userPages)+contextPages+uint64(d.limits.reserve) > uint64(d.phys.total) {
		return nil, errorf(ENOMEM, "GPU memory for buffers and contexts exhausted: cannot open another file (%d open)", len(d.contexts))
	}
	for d.contexts[d.nextCtxID] != nil || d.nextCtxID == 0 {
		d.nextCtxID++
	}
	c := &gpuContext{id: d.nextCtxID}
	d.nextCtxID++
	as, err := newAddressSpace(d.mem, d.phys)
	if err != nil {
		return nil, err
	}
	c.as = as
	as.releaseTable = func(pg uint32) { d.releaseLocked(c, deferredFree{pg: pg, pages: 1}) }
	pg, ok := d.phys.alloc(1, 1)
	if !ok {
		as.destroy()
		return nil, errorf(ENOMEM, "no physical page for the memstore")
	}
	c.memstorePA = pg << pageShift
	clear(d.mem[c.memstorePA : c.memstorePA+pageSize])
	if err := as.mapPages(MemstoreVA, c.memstorePA, 1, true); err != nil {
		d.phys.release(pg, 1)
		as.destroy()
		return nil, err
	}
	d.contexts[c.id] = c
	d.userPages += contextPages
	return &File{d: d, ctx: c, handles: map[uint32]*bo{}}, nil
}

// contextPages is what a context holds from Open to its destruction: its
// L1 table, its memstore page and the L2 table that maps it.
const contextPages = 3

// destroyContextLocked frees a closed context once no job needs it.
func (d *Device) destroyContextLocked(c *gpuContext) {
	if !c.closed || c.active > 0 || d.contexts[c.id] != c {
		return
	}
	d.releaseDeferredLocked(c)
	d.userPages -= contextPages
	c.as.unmapPages(MemstoreVA, 1)
	d.phys.release(c.memstorePA>>pageShift, 1)
	c.as.destroy()
	delete(d.contexts, c.id)
}

// memstoreSeqno reads the fence word EVENT_WRITE updates for c's jobs on
// the priority-p rings.
func (d *Device) memstoreSeqno(c *gpuContext, p int) uint32 {
	return loadSync32(d.mem, c.memstorePA+memstoreSeqnoAt(p))
}

// bo is a buffer object: physically contiguous pages mapped at va in one
// context. User BOs are reachable through a handle; kernel BOs (exec
// buffers, tile allocation, overflow pools) belong to a job.
type bo struct {
	ctx        *gpuContext
	pa, va     uint32
	pages      uint32
	handleOpen bool
	busy       int      // unretired jobs using it
	lastWrite  *fence   // the last job that writes it
	reads      []*fence // jobs reading it since lastWrite
}

func (b *bo) size() uint32 { return b.pages << pageShift }

// allocBOLocked allocates zeroed, contiguous physical pages and maps them in
// c's user or kernel VA range.
func (d *Device) allocBOLocked(c *gpuContext, bytes uint32, writable, kernel bool) (*bo, error) {
	pages := (bytes + pageSize - 1) >> pageShift
	if pages == 0 {
		pages = 1
	}
	user := !kernel
	if err := d.chargeLocked(c, pages, user); err != nil {
		return nil, err
	}
	pg, ok := d.phys.alloc(pages, 1)
	if !ok {
		d.unchargeLocked(c, pages, user)
		return nil, errorf(ENOMEM, "out of GPU memory: %d contiguous pages requested, largest free run %d of %d free", pages, d.phys.largestFree(), d.phys.total-d.phys.used)
	}
	b := &bo{ctx: c, pa: pg << pageShift, pages: pages}
	d.zeroMemory(b.pa, b.size())
	va, err := c.as.allocVA(pages, kernel)
	if err != nil {
		d.phys.release(pg, pages)
		d.unchargeLocked(c, pages, user)
		return nil, err
	}
	if err := c.as.mapPages(va, b.pa, pages, writable); err != nil {
		// Part of it was mapped for a moment: release it like any
		// unmapped BO (mapPages has unmapped it).
		if len(c.unfinished) > 0 {
			d.m.WriteReg(regMMUTLBInvalidate, c.id)
		}
		d.releaseLocked(c, deferredFree{pg: pg, pages: pages, va: va, vaPages: pages, charged: true, user: user})
		return nil, err
	}
	b.va = va
	return b, nil
}

// freeBOLocked unmaps and frees b; the caller knows no job that declared
// b uses it. Other jobs of the context may still reach it through an
// address in their uniforms: while the context has unfinished jobs the
// kernel shoots down every TLB (so a running shader faults on its next
// access instead of using the old translation) and defers the release.
func (d *Device) freeBOLocked(b *bo) {
	c := b.ctx
	c.as.unmapPages(b.va, b.pages)
	if len(c.unfinished) > 0 {
		d.m.WriteReg(regMMUTLBInvalidate, c.id)
	}
	d.releaseLocked(c, deferredFree{pg: b.pa >> pageShift, pages: b.pages, va: b.va, vaPages: b.pages, charged: true, user: b.va < reservedVA})
	b.pages = 0
}

// releaseLocked gives f back to the allocators now when c has no
// unfinished job, else when the newest of them has retired.
func (d *Device) releaseLocked(c *gpuContext, f deferredFree) {
	if n := len(c.unfinished); n > 0 {
		f.until = c.unfinished[n-1]
		c.deferred = append(c.deferred, f)
		return
	}
	d.releaseNowLocked(c, f)
}

func (d *Device) releaseNowLocked(c *gpuContext, f deferredFree) {
	if f.vaPages > 0 {
		c.as.freeVA(f.va, f.vaPages)
	}
	if f.pages > 0 {
		d.phys.release(f.pg, f.pages)
		if f.charged {
			d.unchargeLocked(c, f.pages, f.user)
		}
	}
}

// releaseDeferredLocked releases what c deferred and no unfinished job of
// c can reach any more.
func (d *Device) releaseDeferredLocked(c *gpuContext) {
	if len(c.deferred) == 0 {
		return
	}
	keep := c.deferred[:0]
	for _, f := range c.deferred {
		if len(c.unfinished) == 0 || c.unfinished[0] > f.until {
			d.releaseNowLocked(c, f)
		} else {
			keep = append(keep, f)
		}
	}
	c.deferred = keep
}

// releaseBOLocked frees b if neither a handle nor a job holds it.
func (d *Device) releaseBOLocked(b *bo) {
	if !b.handleOpen && b.busy == 0 && b.pages != 0 {
		d.freeBOLocked(b)
	}
}
