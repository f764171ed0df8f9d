package kernel

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/hw/cl"
)

// Overflow pools handed to the binner on BIN_OOM: the first is 256 KiB, each
// next one doubles up to 4 MiB (unbounded doubling left a job holding up
// to twice what it needed, e.g. 64 MiB of pools for 33 MiB of tile lists,
// and the pools of every job not yet retired count against the context's
// quota), and a job gets at most 64 MiB in total (a quarter of the kernel
// VA range); past that the binner waits and the watchdog resets the job.
const (
	overflowFirst   = 256 << 10
	overflowMaxPool = 4 << 20
	overflowLimit   = 64 << 20
)

func (d *Device) kick() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// onInterrupt runs on a GPU goroutine. It latches and acknowledges the
// pending bits, drains the MMU fault queue (every context that faulted is
// blamed, not only the last one) and wakes the dispatcher; it never takes
// d.mu. The dispatcher calls it too, so the drain holds irqMu: two callers
// must not read one head entry and pop two.
func (d *Device) onInterrupt() {
	st := d.m.ReadReg(regIntrStatus)
	if st == 0 {
		return
	}
	d.irqMu.Lock()
	if st&intrMMUFault != 0 {
		for range maxFaultsPerInterrupt {
			n := d.m.ReadReg(regMMUFaultCount)
			if n&^faultCountOverflow == 0 {
				break
			}
			if n&faultCountOverflow != 0 {
				d.faultsLost = true
			}
			fr := faultRecord{d.m.ReadReg(regMMUFaultVA), d.m.ReadReg(regMMUFaultCtx), d.m.ReadReg(regMMUFaultStatus), d.m.ReadReg(regMMUFaultIB)}
			d.m.WriteReg(regMMUFaultPop, 1)
			d.faults = append(d.faults, fr)
		}
	}
	var ce clErrorRecord
	if st&intrCLError != 0 {
		ce = clErrorRecord{d.m.ReadReg(regCLErrorCtx), d.m.ReadReg(regCLErrorStatus), d.m.ReadReg(regCLErrorIB)}
	}
	d.m.WriteReg(regIntrAck, st)
	d.irqBits |= st
	if st&intrCLError != 0 && len(d.clErrs) < 64 {
		d.clErrs = append(d.clErrs, ce)
	}
	d.irqMu.Unlock()
	d.kick()
}

// maxFaultsPerInterrupt bounds one drain of the fault queue (the hardware
// queue holds at most 64, one per context).
const maxFaultsPerInterrupt = 64

// dispatcher is the Device's worker goroutine: it handles interrupts,
// retires jobs, moves ready jobs from context queues to the rings and runs
// the watchdog.
func (d *Device) dispatcher() {
	defer close(d.done)
	// Poll period: catches a retirement whose interrupt coalesced with an
	// earlier one, and bounds watchdog latency to a quarter of JobTimeout.
	period := min(10*time.Millisecond, max(time.Millisecond, d.opts.JobTimeout/4))
	if d.opts.pollPeriod > 0 {
		period = d.opts.pollPeriod
	}
	tick := time.NewTicker(period)
	defer tick.Stop()
	// While a job waits for memory the CPU may set (memops.go), the
	// dispatcher looks every memWaitPoll as well: nothing interrupts it
	// when the word changes.
	memPoll := time.NewTimer(memWaitPoll)
	defer memPoll.Stop()
	parked := false
	for {
		var poll <-chan time.Time
		if parked {
			memPoll.Reset(memWaitPoll)
			poll = memPoll.C
		}
		select {
		case <-d.quit:
			return
		case <-d.wake:
		case <-tick.C:
		case <-poll:
		}
		d.mu.Lock()
		d.service()
		parked = d.memParked()
		d.mu.Unlock()
	}
}

// service is one dispatcher step; d.mu is held.
func (d *Device) service() {
	// Snapshot the render rings first, then collect pending interrupts
	// directly rather than waiting for the GPU's interrupt goroutine: a job
	// that faulted raised MMU_FAULT before its EVENT_WRITE and RPTR moved
	// on, so every fault of a job this snapshot shows finished is in hand
	// before retire decides the job's fate.
	var done [numPriorities][numEngines]uint64
	for p := range done {
		for e := range done[p] {
			done[p][e] = d.consumed(e, p)
		}
	}
	d.onInterrupt()
	d.irqMu.Lock()
	bits, faults, clErrs := d.irqBits, d.faults, d.clErrs
	d.irqBits, d.faults, d.clErrs = 0, nil, nil
	d.irqMu.Unlock()

	for _, fr := range faults {
		d.handleFault(fr)
	}
	for _, ce := range clErrs {
		d.handleCLError(ce)
	}
	if bits&intrBinOOM != 0 {
		d.handleBinOOM()
	}
	for p := range done {
		d.retire(p, &done[p])
	}
	d.reapZombies()
	d.dispatch()
	d.expireMemWaits()
	d.watchdog()
}

// consumed returns the position in engine e's priority-p ring the command
// processor has executed up to (RPTR advances past a packet once it has
// executed).
func (d *Device) consumed(e, p int) uint64 {
	r := d.rings[e][p]
	rptr := d.m.ReadReg(regRingRptr(e, p)) & (r.size - 1)
	behind := (uint32(r.submitted) - rptr) & (r.size - 1)
	return r.submitted - uint64(behind)
}

// numInflight counts the jobs in all rings.
func (d *Device) numInflight() int {
	n := 0
	for p := range d.inflight {
		n += len(d.inflight[p])
	}
	return n
}

// retire completes priority p's in-flight jobs; done[e] is the position
// of engine e's priority-p ring its command processor had executed up
// to. Graphics jobs retire in RENDER ring order, compute and DMA jobs in
// their engines' ring orders, each kind independently of the others (the
// engines run concurrently).
func (d *Device) retire(p int, done *[numEngines]uint64) {
	if len(d.inflight[p]) == 0 {
		return
	}
	n := 0
	var blocked [numJobKinds]bool // an earlier job of the kind has not finished
	keep := d.inflight[p][:0]
	for _, j := range d.inflight[p] {
		kind, e := j.kind, j.kind.engine()
		at, seqno := done[e], d.memstoreEngineSeqno(j.ctx, kind, p)
		// The command processor raises the EVENT interrupt while executing
		// EVENT_WRITE and advances RPTR past it only afterwards. RPTR at the
		// EVENT_WRITE already proves the IB finished; the memstore then
		// tells whether EVENT_WRITE has run. Requiring RPTR means a shader
		// that forges its memstore cannot retire a running job.
		ibDone := at >= j.ringEnd[e]-4*cl.RingWordsEventWrite
		err := j.err
		if ibDone && !blocked[kind] && int32(seqno-uint32(j.fence.seqno)) < 0 {
			if at < j.ringEnd[e] {
				ibDone = false // EVENT_WRITE still executing
			} else if err == nil {
				// The ring passed EVENT_WRITE but the memstore disagrees: the
				// context's own shaders overwrote its memstore page.
				err = errorf(EIO, "context %d corrupted its memstore (fence %d)", j.ctx.id, j.fence.seqno)
				d.markGuilty(j.ctx, err)
			}
		}
		if !ibDone || blocked[kind] {
			blocked[kind] = true
			keep = append(keep, j)
			continue
		}
		d.finishJob(j, err)
		n++
	}
	if n > 0 {
		clear(d.inflight[p][len(keep):])
		d.inflight[p] = keep
		d.headSince = time.Now()
		d.ringHead[p] = d.headSince
	}
}

// finishJob signals j's fence and releases what it holds.
func (d *Device) finishJob(j *job, err *Error) {
	d.signalJob(j, err)
	d.releaseJob(j)
}

// signalJob completes j's fence with err (nil for success).
func (d *Device) signalJob(j *job, err *Error) {
	d.recordJob(j, err)
	fc := j.fence
	fc.job = nil
	fc.err = err
	close(fc.done)
	delete(d.pending, fc.seqno)
	if err != nil {
		d.failed[fc.seqno] = fc
		d.failedLog = append(d.failedLog, fc.seqno)
		if len(d.failedLog) > 4096 {
			delete(d.failed, d.failedLog[0])
			d.failedLog = d.failedLog[1:]
		}
	}
}

// releaseJob drops j's BO references and frees its kernel memory; the
// GPU no longer touches any of it.
func (d *Device) releaseJob(j *job) {
	c := j.ctx
	if i := slices.Index(c.unfinished, j.fence.seqno); i >= 0 {
		c.unfinished = slices.Delete(c.unfinished, i, i+1)
	}
	for _, b := range j.bos {
		b.busy--
		d.releaseBOLocked(b)
	}
	for _, b := range append([]*bo{j.exec, j.tile}, j.overflow...) {
		d.freeBOLocked(b)
	}
	j.bos, j.overflow = nil, nil
	c.active--
	d.releaseDeferredLocked(c)
	d.destroyContextLocked(c)
}

// reapZombies releases the memory of jobs abandoned by a reset once every
// ring has executed the marker written after the reset: RESET only tells
// an engine to stop, and it may still be inside the abandoned indirect
// buffer, reading and writing that memory, until it notices. A command
// processor executes one packet at a time over all its rings, so RPTR
// passing the marker proves the abandoned work has returned.
func (d *Device) reapZombies() {
	if len(d.zombies) == 0 && len(d.zombieBOs) == 0 {
		return
	}
	for e := range d.rings {
		for p := range d.rings[e] {
			if d.consumed(e, p) < d.zombieGate[e][p] {
				return
			}
		}
	}
	for _, j := range d.zombies {
		d.releaseJob(j)
	}
	for _, b := range d.zombieBOs {
		d.freeBOLocked(b)
	}
	d.zombies, d.zombieBOs = nil, nil
}

// markGuilty makes c unusable: queued jobs fail now, in-flight ones fail
// when they leave the rings, later submissions get EIO.
func (d *Device) markGuilty(c *gpuContext, err *Error) {
	if c.guilty == nil {
		c.guilty = err
	}
	for _, j := range c.queue {
		d.finishJob(j, err)
	}
	c.queue = nil
	for p := range d.inflight {
		for _, j := range d.inflight[p] {
			if j.ctx == c && j.err == nil {
				j.err = err
			}
		}
	}
}

func (d *Device) handleFault(fr faultRecord) {
	c := d.contexts[fr.ctx]
	if c == nil {
		return
	}
	kind := "read"
	if fr.status&faultStatusWrite != 0 {
		kind = "write"
	}
	eng := int(fr.status>>faultStatusEngineShift) & 0xF
	ename := fmt.Sprint(eng)
	if eng < numEngines {
		ename = engineNames[eng]
	}
	err := errorf(EIO, "context %d: GPU page fault: %s of VA %#08x on %s", c.id, kind, fr.va, ename)
	j := d.faultingJob(c, eng, fr.ib)
	if c.guilty == nil {
		d.crashDump("page fault", err.Msg, j, &fr)
	}
	d.blame(c, j, err)
}

// handleBinOOM gives the job that is binning a new tile-allocation pool.
// CP_STATUS names the ring whose IB the binner is in (it waits inside the
// IB until the pool arrives); the job is the first one of that ring whose
// bin packets the command processor has not passed.
func (d *Device) handleBinOOM() {
	j := d.executing(engineBin)
	if j == nil {
		return
	}
	size := uint64(overflowFirst)
	if j.overBytes > 0 {
		size = min(j.overBytes, overflowMaxPool)
	}
	if j.overBytes+size > overflowLimit {
		size = overflowLimit - j.overBytes // the last pool fills the limit
	}
	if size < overflowFirst {
		return // the watchdog will reset it
	}
	b, err := d.allocBOLocked(j.ctx, uint32(size), true, true)
	if err != nil {
		return
	}
	j.overflow = append(j.overflow, b)
	j.overBytes += size
	d.overflows++
	d.m.WriteReg(regBinOverflowAddr, b.va)
	d.m.WriteReg(regBinOverflowSize, b.size())
}

// executing returns the job whose packet engine e is executing, or nil when
// it is idle or only waiting on a semaphore.
func (d *Device) executing(e int) *job {
	st := d.m.ReadReg(regCPStatus(e))
	if st&cpStatusBusy == 0 {
		return nil
	}
	p := int(st & cpStatusPrioMask)
	if p >= numPriorities {
		return nil
	}
	done := d.consumed(e, p)
	for _, j := range d.inflight[p] {
		if done < j.ringEnd[e] {
			return j
		}
	}
	return nil
}

// dispatch moves ready jobs to the rings of their priority, one per
// context per round, high priority first, as KGSL's dispatcher does: jobs
// wait in their contexts' queues and a context has at most
// maxContextInflight jobs in the rings, so a retirement frees a slot that
// the round robin hands out among every context with work, and a context
// that submitted a long burst first cannot push a later context's jobs
// behind the whole burst (the rings are FIFO per priority). The bound
// TestContextsShareTheRings asserts: among contexts of one priority that
// keep work queued, no context's k-th job enters the ring, and so retires,
// after another's (k+2·maxContextInflight)-th (a context leads by at most
// its maxContextInflight jobs in the rings plus what one dispatch pass's
// rounds hand it; measured leads are at most 3). A context's jobs enter the rings
// in submission order and are never in both priorities' rings at once: a
// job whose priority differs from its context's jobs still in flight waits
// for them to retire. Implicit synchronisation relies on each ring running
// a context's jobs in order (see SubmitCL), so two rings must not hold them
// concurrently.
//
// Starvation: the command processors always prefer the high rings, so a
// steady stream of high-priority work could hold normal work back forever.
// When the oldest normal job has headed its ring for starveLimit without
// retiring, no further high-priority job enters the rings until it
// retires: a normal job waits at most starveLimit plus the high-priority
// work already in the rings.
func (d *Device) dispatch() {
	ids := make([]uint32, 0, len(d.contexts))
	for id, c := range d.contexts {
		if len(c.queue) > 0 {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return
	}
	sort.Slice(ids, func(a, b int) bool { return ids[a] < ids[b] })
	holdHigh := len(d.inflight[prioNormal]) > 0 && time.Since(d.ringHead[prioNormal]) >= d.opts.starveLimit
	wrote := false
	for p := numPriorities - 1; p >= 0; p-- {
		if p == prioHigh && holdHigh {
			continue
		}
		// Start after the context served last, round robin.
		start := sort.Search(len(ids), func(i int) bool { return ids[i] > d.rr })
		for progress := true; progress && len(d.inflight[p]) < maxInflight; {
			progress = false
			for k := range ids {
				c := d.contexts[ids[(start+k)%len(ids)]]
				if c == nil || len(c.queue) == 0 || len(d.inflight[p]) >= maxInflight {
					continue
				}
				j := c.queue[0]
				if j.prio != p || !d.ringRoom(p, j.kind) {
					continue
				}
				if n, other := d.inRings(c, p); other || n >= maxContextInflight || !depsDone(j) || !d.memOpsRoom(j) || !d.memWaitsPass(j) {
					continue
				}
				c.queue = c.queue[1:]
				d.emit(j)
				d.rr = c.id
				progress, wrote = true, true
			}
		}
	}
	if wrote {
		d.doorbell()
	}
}

// Bytes one job takes in each engine's ring (emit), and the room a ring
// keeps free besides: the marker NOP a reset writes, and one word so that
// a full ring never looks empty (RPTR = WPTR).
var jobRingBytes = [numEngines]uint64{
	engineBin:     4 * (cl.RingWordsSetContext + 2*cl.RingWordsEventWrite + cl.RingWordsIndirectBuffer + cl.RingWordsSignal),
	engineRender:  4 * (cl.RingWordsSetContext + cl.RingWordsWaitMem + 2*cl.RingWordsEventWrite + cl.RingWordsIndirectBuffer + cl.RingWordsEventWrite),
	engineCompute: singleJobRingBytes,
	engineDMA:     singleJobRingBytes,
}

// singleJobRingBytes: emitSingle's packets.
const singleJobRingBytes = 4 * (cl.RingWordsSetContext + 2*cl.RingWordsEventWrite + cl.RingWordsIndirectBuffer + cl.RingWordsEventWrite)

const ringReserve = 4*cl.RingWordsNop + 4

// ringRoom reports whether the priority-p rings of the engines a job of
// kind k uses have room for one more job.
func (d *Device) ringRoom(p int, k jobKind) bool {
	for e := range d.rings {
		if !k.uses(e) {
			continue
		}
		r := d.rings[e][p]
		if r.submitted-d.consumed(e, p)+jobRingBytes[e]+ringReserve > uint64(r.size) {
			return false
		}
	}
	return true
}

// inRings counts c's jobs in the rings and reports whether any of them is
// in a ring of a priority other than p.
func (d *Device) inRings(c *gpuContext, p int) (n int, other bool) {
	for q := range d.inflight {
		for _, j := range d.inflight[q] {
			if j.ctx == c {
				n++
				other = other || q != p
			}
		}
	}
	return n, other
}

func depsDone(j *job) bool {
	for _, f := range j.deps {
		if !f.signalled() {
			return false
		}
	}
	j.deps = nil
	return true
}

// emit writes j's packets to both engines' rings of its priority
// (hardware.md §3).
func (d *Device) emit(j *job) {
	p := j.prio
	now := time.Now()
	if d.numInflight() == 0 {
		d.headSince = now
	}
	if len(d.inflight[p]) == 0 {
		d.ringHead[p] = now
	}
	if j.kind != kindGraphics {
		d.emitSingle(j)
		return
	}
	c := j.ctx
	seq := uint32(j.fence.seqno)
	var w [4]uint32
	var captured map[int][]uint32
	if d.opts.Capture != nil {
		captured = map[int][]uint32{}
	}
	put := func(e int, pkt cl.RingPacket) {
		pkt.Pack(w[:pkt.Words()])
		d.ringWrite(e, p, w[:pkt.Words()])
		if captured != nil {
			captured[e] = append(captured[e], w[:pkt.Words()]...)
		}
	}
	sem := MemstoreVA + memstoreBinSemAt(p)
	setCtx := cl.RingSetContext{CtxID: c.id, PageTable: c.as.l1}
	// Start- and end-of-pipe records around each IB (perf.go).
	rep := j.tile.va + j.reportOff
	sop := func(e int) cl.RingEventWrite {
		return cl.RingEventWrite{Flags: eventTimestampCounters, Address: rep + reportOff(e, false)}
	}
	eop := func(e int) cl.RingEventWrite {
		return cl.RingEventWrite{Flags: eventTimestampCounters, Address: rep + reportOff(e, true)}
	}
	j.submittedAt = d.gpuTime()
	put(engineBin, setCtx)
	d.emitTop(j, put)
	put(engineBin, sop(engineBin))
	put(engineBin, cl.RingIndirectBuffer{Address: j.binVA, Size: j.binSize})
	put(engineBin, eop(engineBin))
	put(engineBin, cl.RingSignal{Address: sem, Value: seq})
	put(engineRender, setCtx)
	put(engineRender, cl.RingWaitMem{Address: sem, Reference: seq})
	put(engineRender, sop(engineRender))
	put(engineRender, cl.RingIndirectBuffer{Address: j.rclVA, Size: j.rclSize})
	put(engineRender, eop(engineRender))
	j.emitBottom(put)
	put(engineRender, cl.RingEventWrite{Flags: cl.EventIRQ, Address: MemstoreVA + memstoreSeqnoAt(p), Value: seq})
	for e := range j.ringEnd {
		j.ringEnd[e] = d.rings[e][p].submitted
	}
	d.inflight[p] = append(d.inflight[p], j)
	if captured != nil {
		d.opts.Capture(d.capture(j, captured))
	}
}

// capture describes j for Options.Capture.
func (d *Device) capture(j *job, rings map[int][]uint32) *Capture {
	exec := func(va, n uint32) []byte {
		off := j.exec.pa + (va - j.exec.va)
		return d.mem[off : off+n]
	}
	return &Capture{
		Context: j.ctx.id, Fence: j.fence.seqno, Priority: Priority(j.prio), Rings: rings,
		BinCL: exec(j.binVA, j.binSize), BinCLAddress: j.binVA,
		RenderCL: exec(j.rclVA, j.rclSize), RenderCLAddress: j.rclVA,
		ShaderRecords: exec(j.srVA, j.srSize), ShaderRecordsAddress: j.srVA,
		Uniforms: exec(j.uniVA, j.uniSize), UniformsAddress: j.uniVA,
		Read: d.captureReader(j),
	}
}

// captureReader reads j's context's memory for a Capture.
func (d *Device) captureReader(j *job) func(va uint32, n int) ([]byte, error) {
	as := j.ctx.as
	return func(va uint32, n int) ([]byte, error) {
		out := make([]byte, 0, n)
		for len(out) < n {
			pa, _, ok := as.translate(va + uint32(len(out)))
			if !ok {
				return out, fmt.Errorf("VA %#08x is not mapped in context %d", va+uint32(len(out)), j.ctx.id)
			}
			chunk := min(n-len(out), int(pageSize-(pa&(pageSize-1))))
			out = append(out, d.mem[pa:pa+uint32(chunk)]...)
		}
		return out, nil
	}
}

func (d *Device) ringWrite(e, p int, words []uint32) {
	r := d.rings[e][p]
	for _, w := range words {
		binary.LittleEndian.PutUint32(d.mem[r.pa+uint32(r.submitted)&(r.size-1):], w)
		r.submitted += 4
	}
}

func (d *Device) doorbell() {
	for e := range d.rings {
		for p, r := range d.rings[e] {
			d.m.WriteReg(regRingWptr(e, p), uint32(r.submitted)&(r.size-1))
		}
	}
}

// watchdog resets the engines when the GPU has stopped making progress or
// one packet has run too long, marks the guilty job's context guilty and
// replays the innocent jobs of every priority that were in the rings.
//
// A hang is a lack of progress, not a long job (as i915's hangcheck judges
// it): the GPU is declared hung when its work counters and ring read
// pointers have not moved for JobTimeout, or, as a backstop against a job
// that is merely enormous, when an engine has been executing the same
// job's packet for hardCapFactor·JobTimeout while other contexts wait. Judging by elapsed time alone
// killed legitimate frames half-rendered on a loaded machine. The guilty
// job is the one an engine is executing (CP_STATUS), the older of two;
// when no engine is executing (a render stalled on a semaphore that never
// comes) it is the oldest job in the rings. A normal job waiting behind
// high-priority work is neither.
func (d *Device) watchdog() {
	if d.numInflight() == 0 {
		d.execJob = [numEngines]*job{}
		return
	}
	now := time.Now()
	if p := d.sampleProgress(); p != d.progress || d.progressSince.Before(d.headSince) {
		d.progress, d.progressSince = p, now
	}
	var running, capped *job
	for e := range d.execJob {
		j := d.executing(e)
		if j != d.execJob[e] {
			d.execJob[e], d.execSince[e] = j, now
		}
		if j == nil {
			continue
		}
		if running == nil || j.fence.seqno < running.fence.seqno {
			running = j
		}
		if now.Sub(d.execSince[e]) >= d.opts.hardCap && (capped == nil || j.fence.seqno < capped.fence.seqno) {
			capped = j
		}
	}
	// The hard cap is a fairness bound, like i915's preemption timeout:
	// it cuts a job that keeps progressing only while another context's
	// work waits behind it. Alone on the GPU, a heavy frame may take as
	// long as it takes (on a loaded host a legitimate frame can run for
	// minutes); a job that stops progressing is still reset after
	// JobTimeout.
	tooLong := capped != nil && d.othersWaiting(capped.ctx)
	stalled := now.Sub(d.progressSince) >= d.opts.JobTimeout
	if !stalled && !tooLong {
		return
	}
	var all []*job
	for p := range d.inflight {
		all = append(all, d.inflight[p]...)
		d.inflight[p] = nil
	}
	sort.Slice(all, func(a, b int) bool { return all[a].fence.seqno < all[b].fence.seqno })
	head := running
	var memStall *job
	if tooLong {
		head = capped
	} else if head == nil {
		// Nothing executing: a ring stalled on a job's own WAIT_MEM is
		// that job's hang; otherwise the oldest job is blamed.
		if memStall = d.stalledOnMemWait(all); memStall != nil {
			head = memStall
		} else {
			head = all[0]
		}
	}
	if d.opts.DumpDir != "" {
		why := fmt.Sprintf("made no progress for %v", d.opts.JobTimeout)
		if !stalled {
			why = fmt.Sprintf("ran longer than %v", hardCapFactor*d.opts.JobTimeout)
		} else if memStall != nil {
			why = fmt.Sprintf("stalled its rings for %v on its own WAIT_MEM", d.opts.JobTimeout)
		}
		d.crashDump("hang", fmt.Sprintf("context %d: job (fence %d) %s", head.ctx.id, head.fence.seqno, why), head, nil)
	}
	// Where each engine was before the reset: a compute or DMA job its
	// engine had started is not replayed (below).
	var before [numEngines][numPriorities]uint64
	for e := range before {
		for p := range before[e] {
			before[e][p] = d.consumed(e, p)
		}
	}
	d.m.WriteReg(regReset, allEngines)
	// RESET made RPTR = WPTR on every ring; nothing of the old contents
	// runs any more, but the engines may still be finishing the packet
	// they were in. A marker NOP on each ring tells when they are out.
	for e := range d.rings {
		for p := range d.rings[e] {
			var w [cl.RingWordsNop]uint32
			cl.RingNop{Tag: 0x5E5E7}.Pack(w[:])
			d.ringWrite(e, p, w[:])
			d.zombieGate[e][p] = d.rings[e][p].submitted
		}
	}
	where := "waiting in the rings"
	for e, j := range d.execJob {
		if j == head {
			where = "executing on " + engineNames[e]
			break
		}
	}
	d.execJob = [numEngines]*job{}
	why := fmt.Sprintf("made no progress for %v (GPU watchdog timeout: no shader batch, vertex or tile finished; a shader that never ends?)", d.opts.JobTimeout)
	if !stalled {
		why = fmt.Sprintf("ran longer than %v while other contexts waited (GPU watchdog hard cap)", d.opts.hardCap)
	} else if memStall != nil {
		why = fmt.Sprintf("stalled its rings for %v on its own WAIT_MEM (a word it waits for changed back after the kernel saw it pass)", d.opts.JobTimeout)
	}
	err := errorf(EIO, "context %d: job (fence %d) %s %s; engines reset", head.ctx.id, head.fence.seqno, where, why)
	policy := d.opts.FaultPolicy
	headGuilty := policy == FaultReplayInnocent || policy == FaultNoReplay
	if headGuilty && head.ctx.guilty == nil {
		head.ctx.guilty = err
	}
	d.signalJob(head, err)
	d.zombies = append(d.zombies, head)
	// FaultSkipFrame: the head's frame-mates that follow it fail with it.
	var frameSkip *Error
	frameOpen := policy == FaultSkipFrame && !head.endOfFrame
	if frameOpen {
		frameSkip = &Error{Errno: EIO, Msg: fmt.Sprintf("context %d: job skipped with the rest of its frame after: %s", head.ctx.id, err.Msg)}
	}
	lost := &Error{Errno: EIO, Msg: fmt.Sprintf("job lost in a GPU reset caused by context %d (fault policy %v replays nothing): %s", head.ctx.id, policy, err.Msg)}
	type ctxRing struct {
		c *gpuContext
		p int
	}
	replayed := map[ctxRing]bool{}
	// Innocent jobs go back to the front of their contexts' queues, in
	// fence order, and dispatch writes them to the rings again as room
	// allows (a ring's jobs in flight may together exceed its size: a
	// ring's space is reused as soon as the engine has read a job's
	// packets).
	requeue := map[*gpuContext][]*job{}
	for _, j := range all {
		if j == head {
			continue
		}
		var e *Error
		switch {
		case j.err != nil:
			e = j.err // failed already (a fault, or a skipped frame)
		case j.ctx.guilty != nil:
			e = j.ctx.guilty
		case frameOpen && j.ctx == head.ctx && j.fence.seqno > head.fence.seqno:
			e = frameSkip
			frameOpen = !j.endOfFrame
		case policy == FaultNoReplay:
			e = lost
			j.ctx.guilty, j.ctx.innocent = lost, true
		case j.kind != kindGraphics && before[j.kind.engine()][j.prio] >= j.listStart:
			// A compute job may read what it writes (a prefix sum in
			// place, atomics), a DMA job copy what it copied: running part
			// of one twice could give wrong results, so a started one
			// fails instead of replaying.
			e = &Error{Errno: EIO, Msg: fmt.Sprintf("%s job (fence %d) was running when a GPU reset caused by context %d stopped it; started compute and DMA work is not replayed: %s", engineNames[j.kind.engine()], j.fence.seqno, head.ctx.id, err.Msg)}
		}
		if e != nil {
			d.signalJob(j, e)
			d.zombies = append(d.zombies, j)
			continue
		}
		if k := (ctxRing{j.ctx, j.prio}); j.kind == kindGraphics && !replayed[k] {
			// The abandoned bin may have signalled this job's semaphore
			// already; rewind it so the replayed render waits for the
			// replayed bin.
			replayed[k] = true
			storeSync32(d.mem, j.ctx.memstorePA+memstoreBinSemAt(j.prio), uint32(j.fence.seqno)-1)
		}
		d.zombieBOs = append(d.zombieBOs, j.overflow...)
		j.overflow, j.overBytes = nil, 0
		requeue[j.ctx] = append(requeue[j.ctx], j)
	}
	for c, js := range requeue {
		c.queue = append(js, c.queue...)
	}
	switch {
	case headGuilty:
		// The guilty context's queued work fails too.
		d.markGuilty(head.ctx, head.ctx.guilty)
	case frameOpen:
		// The frame goes on in the context's queue, or is not submitted yet.
		for i, k := range head.ctx.queue {
			d.finishJob(k, frameSkip)
			if k.endOfFrame {
				head.ctx.queue = head.ctx.queue[i+1:]
				frameOpen = false
				break
			}
		}
		if frameOpen {
			head.ctx.queue = nil
			head.ctx.skipping = frameSkip
		}
	}
	for _, c := range d.contexts {
		if c.innocent {
			d.markGuilty(c, c.guilty)
		}
	}
	d.headSince = time.Now()
	d.doorbell()
	d.dispatch()
}

// hardCapFactor bounds a job that keeps making progress: it may run for
// this many JobTimeouts in all.
const hardCapFactor = 12

// sampleProgress reads what moves while the GPU works: the QPU instruction,
// tile and vertex counters and every ring's read pointer.
func (d *Device) sampleProgress() (s [3 + numEngines*numPriorities]uint32) {
	s[0] = d.m.ReadReg(reg(hw.RegPerfQPUInstructions))
	s[1] = d.m.ReadReg(reg(hw.RegPerfTiles))
	s[2] = d.m.ReadReg(reg(hw.RegPerfVertices))
	for e := 0; e < numEngines; e++ {
		for p := 0; p < numPriorities; p++ {
			s[3+e*numPriorities+p] = d.m.ReadReg(regRingRptr(e, p))
		}
	}
	return s
}
