package kernel

import (
	"encoding/binary"
	"fmt"
	"sort"
	"time"

	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/hw/cl"
)

// Overflow pools handed to the binner on BIN_OOM: the first is 256 KiB, each
// next one doubles, and a job gets at most 64 MiB in total (a quarter of
// the kernel VA range); past that the binner waits and the watchdog resets
// the job.
const (
	overflowFirst = 256 << 10
	overflowLimit = 64 << 20
)

func (d *Device) kick() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// onInterrupt runs on a GPU goroutine. It latches and acknowledges the
// pending bits and wakes the dispatcher; it never takes d.mu.
func (d *Device) onInterrupt() {
	st := d.m.ReadReg(regIntrStatus)
	if st == 0 {
		return
	}
	var fr faultRecord
	if st&intrMMUFault != 0 {
		fr = faultRecord{d.m.ReadReg(regMMUFaultVA), d.m.ReadReg(regMMUFaultCtx), d.m.ReadReg(regMMUFaultStatus)}
	}
	d.m.WriteReg(regIntrAck, st)
	d.irqMu.Lock()
	d.irqBits |= st
	if st&intrMMUFault != 0 && len(d.faults) < 64 {
		d.faults = append(d.faults, fr)
	}
	d.irqMu.Unlock()
	d.kick()
}

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
	for {
		select {
		case <-d.quit:
			return
		case <-d.wake:
		case <-tick.C:
		}
		d.mu.Lock()
		d.service()
		d.mu.Unlock()
	}
}

// service is one dispatcher step; d.mu is held.
func (d *Device) service() {
	// Snapshot the render ring first, then collect pending interrupts
	// directly rather than waiting for the GPU's interrupt goroutine: a job
	// that faulted raised MMU_FAULT before its EVENT_WRITE and RPTR moved
	// on, so every fault of a job this snapshot shows finished is in hand
	// before retire decides the job's fate.
	renderDone := d.consumed(engineRender)
	d.onInterrupt()
	d.irqMu.Lock()
	bits, faults := d.irqBits, d.faults
	d.irqBits, d.faults = 0, nil
	d.irqMu.Unlock()

	for _, fr := range faults {
		d.handleFault(fr)
	}
	if bits&intrBinOOM != 0 {
		d.handleBinOOM()
	}
	d.retire(renderDone)
	d.reapZombies()
	d.dispatch()
	d.watchdog()
}

// consumed returns the ring position the command processor has executed up
// to (RPTR advances past a packet once it has executed).
func (d *Device) consumed(e int) uint64 {
	r := d.rings[e]
	rptr := d.m.ReadReg(regRingRptr(e)) & (r.size - 1)
	behind := (uint32(r.submitted) - rptr) & (r.size - 1)
	return r.submitted - uint64(behind)
}

// retire completes in-flight jobs in ring order; done is the render ring
// position the command processor had executed up to.
func (d *Device) retire(done uint64) {
	if len(d.inflight) == 0 {
		return
	}
	n := 0
	for _, j := range d.inflight {
		// The command processor raises the EVENT interrupt while executing
		// EVENT_WRITE and advances RPTR past it only afterwards. RPTR at the
		// EVENT_WRITE already proves the render IB finished; the memstore
		// then tells whether EVENT_WRITE has run. Requiring RPTR means a
		// shader that forges its memstore cannot retire a running job.
		ibDone := done >= j.ringEnd[engineRender]-4*cl.RingWordsEventWrite
		if !ibDone {
			break
		}
		err := j.err
		if int32(d.memstoreSeqno(j.ctx)-uint32(j.fence.seqno)) < 0 {
			if done < j.ringEnd[engineRender] {
				break // EVENT_WRITE still executing
			}
			if err == nil {
				// The ring passed EVENT_WRITE but the memstore disagrees: the
				// context's own shaders overwrote its memstore page.
				err = errorf(EIO, "context %d corrupted its memstore (fence %d)", j.ctx.id, j.fence.seqno)
				d.markGuilty(j.ctx, err)
			}
		}
		d.finishJob(j, err)
		n++
	}
	if n > 0 {
		d.inflight = append(d.inflight[:0], d.inflight[n:]...)
		d.headSince = time.Now()
	}
}

// finishJob signals j's fence and releases what it holds.
func (d *Device) finishJob(j *job, err *Error) {
	d.signalJob(j, err)
	d.releaseJob(j)
}

// signalJob completes j's fence with err (nil for success).
func (d *Device) signalJob(j *job, err *Error) {
	fc := j.fence
	fc.err = err
	close(fc.done)
	delete(d.pending, fc.seqno)
	if err != nil {
		d.failed[fc.seqno] = err
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
	for _, b := range j.bos {
		b.busy--
		d.releaseBOLocked(b)
	}
	for _, b := range append([]*bo{j.exec, j.tile}, j.overflow...) {
		d.freeBOLocked(b)
	}
	j.bos, j.overflow = nil, nil
	j.ctx.active--
	d.destroyContextLocked(j.ctx)
}

// reapZombies releases the memory of jobs abandoned by a reset once both
// command processors have executed the marker written after the reset:
// RESET only tells an engine to stop, and it may still be inside the
// abandoned indirect buffer, reading and writing that memory, until it
// notices. The command processor is sequential, so RPTR passing the marker
// proves the abandoned work has returned.
func (d *Device) reapZombies() {
	if len(d.zombies) == 0 && len(d.zombieBOs) == 0 {
		return
	}
	for e := range d.rings {
		if d.consumed(e) < d.zombieGate[e] {
			return
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
	for _, j := range d.inflight {
		if j.ctx == c && j.err == nil {
			j.err = err
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
	d.markGuilty(c, errorf(EIO, "context %d: GPU page fault: %s of VA %#08x on %s", c.id, kind, fr.va, ename))
}

// handleBinOOM gives the job that is binning a new tile-allocation pool.
func (d *Device) handleBinOOM() {
	done := d.consumed(engineBin)
	var j *job
	for _, x := range d.inflight {
		if done < x.ringEnd[engineBin] {
			j = x
			break
		}
	}
	if j == nil {
		return
	}
	size := uint64(overflowFirst)
	if j.overBytes > 0 {
		size = j.overBytes
	}
	if j.overBytes+size > overflowLimit {
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

// dispatch moves ready jobs to the rings, one per context per round.
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
	// Start after the context served last, round robin.
	start := sort.Search(len(ids), func(i int) bool { return ids[i] > d.rr })
	wrote := false
	for progress := true; progress && len(d.inflight) < maxInflight; {
		progress = false
		for k := range ids {
			c := d.contexts[ids[(start+k)%len(ids)]]
			if c == nil || len(c.queue) == 0 || len(d.inflight) >= maxInflight {
				continue
			}
			j := c.queue[0]
			if !depsDone(j) {
				continue
			}
			c.queue = c.queue[1:]
			d.emit(j)
			d.rr = c.id
			progress, wrote = true, true
		}
	}
	if wrote {
		d.doorbell()
	}
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

// emit writes j's packets to both rings (hardware.md §3).
func (d *Device) emit(j *job) {
	if len(d.inflight) == 0 {
		d.headSince = time.Now()
	}
	c := j.ctx
	seq := uint32(j.fence.seqno)
	var w [4]uint32
	var captured map[int][]uint32
	if d.opts.Capture != nil {
		captured = map[int][]uint32{}
	}
	put := func(e int, p cl.RingPacket) {
		p.Pack(w[:p.Words()])
		d.ringWrite(e, w[:p.Words()])
		if captured != nil {
			captured[e] = append(captured[e], w[:p.Words()]...)
		}
	}
	setCtx := cl.RingSetContext{CtxID: c.id, PageTable: c.as.l1}
	put(engineBin, setCtx)
	put(engineBin, cl.RingIndirectBuffer{Address: j.binVA, Size: j.binSize})
	put(engineBin, cl.RingSignal{Address: MemstoreVA + memstoreBinSem, Value: seq})
	put(engineRender, setCtx)
	put(engineRender, cl.RingWaitMem{Address: MemstoreVA + memstoreBinSem, Reference: seq})
	put(engineRender, cl.RingIndirectBuffer{Address: j.rclVA, Size: j.rclSize})
	put(engineRender, cl.RingEventWrite{Flags: cl.EventIRQ, Address: MemstoreVA + memstoreSeqno, Value: seq})
	for e := range j.ringEnd {
		j.ringEnd[e] = d.rings[e].submitted
	}
	d.inflight = append(d.inflight, j)
	if captured != nil {
		d.opts.Capture(d.capture(j, captured))
	}
}

// capture describes j for Options.Capture.
func (d *Device) capture(j *job, rings map[int][]uint32) *Capture {
	as := j.ctx.as
	exec := func(va, n uint32) []byte {
		off := j.exec.pa + (va - j.exec.va)
		return d.mem[off : off+n]
	}
	return &Capture{
		Context: j.ctx.id, Fence: j.fence.seqno, Rings: rings,
		BinCL: exec(j.binVA, j.binSize), BinCLAddress: j.binVA,
		RenderCL: exec(j.rclVA, j.rclSize), RenderCLAddress: j.rclVA,
		ShaderRecords: exec(j.srVA, j.srSize), ShaderRecordsAddress: j.srVA,
		Uniforms: exec(j.uniVA, j.uniSize), UniformsAddress: j.uniVA,
		Read: func(va uint32, n int) ([]byte, error) {
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
		},
	}
}

func (d *Device) ringWrite(e int, words []uint32) {
	r := d.rings[e]
	for _, w := range words {
		binary.LittleEndian.PutUint32(d.mem[r.pa+uint32(r.submitted)&(r.size-1):], w)
		r.submitted += 4
	}
}

func (d *Device) doorbell() {
	for e, r := range d.rings {
		d.m.WriteReg(regRingWptr(e), uint32(r.submitted)&(r.size-1))
	}
}

// watchdog resets the engines when the oldest job has run too long, marks
// its context guilty and replays the innocent jobs that were in the rings.
//
// A hang is a lack of progress, not a long job (as i915's hangcheck judges
// it): the oldest job is declared hung when the GPU's work counters and ring
// read pointers have not moved for JobTimeout, or, as a backstop against a
// job that is merely enormous, when it has run for hardCapFactor·JobTimeout.
// Judging by elapsed time alone killed legitimate frames half-rendered on a
// loaded machine.
func (d *Device) watchdog() {
	if len(d.inflight) == 0 {
		return
	}
	now := time.Now()
	if p := d.sampleProgress(); p != d.progress || d.progressSince.Before(d.headSince) {
		d.progress, d.progressSince = p, now
	}
	stalled := now.Sub(d.progressSince) >= d.opts.JobTimeout
	tooLong := now.Sub(d.headSince) >= hardCapFactor*d.opts.JobTimeout
	if !stalled && !tooLong {
		return
	}
	head := d.inflight[0]
	d.m.WriteReg(regReset, 1<<engineBin|1<<engineRender)
	// RESET made RPTR = WPTR on both rings; nothing of the old contents
	// runs any more, but the engines may still be finishing the packet
	// they were in. A marker NOP on each ring tells when they are out.
	for e := range d.rings {
		var w [cl.RingWordsNop]uint32
		cl.RingNop{Tag: 0x5E5E7}.Pack(w[:])
		d.ringWrite(e, w[:])
		d.zombieGate[e] = d.rings[e].submitted
	}
	why := fmt.Sprintf("made no progress for %v", d.opts.JobTimeout)
	if !stalled {
		why = fmt.Sprintf("ran longer than %v", hardCapFactor*d.opts.JobTimeout)
	}
	err := errorf(EIO, "context %d: job (fence %d) %s; engines reset", head.ctx.id, head.fence.seqno, why)
	rest := d.inflight[1:]
	d.inflight = nil
	if head.ctx.guilty == nil {
		head.ctx.guilty = err
	}
	d.signalJob(head, err)
	d.zombies = append(d.zombies, head)
	replayed := map[*gpuContext]bool{}
	for _, j := range rest {
		if j.ctx == head.ctx || j.ctx.guilty != nil {
			e := j.err
			if e == nil {
				e = j.ctx.guilty
			}
			d.signalJob(j, e)
			d.zombies = append(d.zombies, j)
			continue
		}
		if !replayed[j.ctx] {
			// The abandoned bin may have signalled this job's semaphore
			// already; rewind it so the replayed render waits for the
			// replayed bin.
			replayed[j.ctx] = true
			storeSync32(d.mem, j.ctx.memstorePA+memstoreBinSem, uint32(j.fence.seqno)-1)
		}
		d.zombieBOs = append(d.zombieBOs, j.overflow...)
		j.overflow, j.overBytes = nil, 0
		d.emit(j)
	}
	// The guilty context's queued work fails too.
	d.markGuilty(head.ctx, head.ctx.guilty)
	d.headSince = time.Now()
	d.doorbell()
}

// hardCapFactor bounds a job that keeps making progress: it may run for
// this many JobTimeouts in all.
const hardCapFactor = 12

// sampleProgress reads what moves while the GPU works: the QPU instruction,
// tile and vertex counters and both rings' read pointers.
func (d *Device) sampleProgress() [5]uint32 {
	return [5]uint32{
		d.m.ReadReg(reg(hw.RegPerfQPUInstructions)),
		d.m.ReadReg(reg(hw.RegPerfTiles)),
		d.m.ReadReg(reg(hw.RegPerfVertices)),
		d.m.ReadReg(regRingRptr(engineBin)),
		d.m.ReadReg(regRingRptr(engineRender)),
	}
}
