package kernel

import (
	"github.com/tilegpu/tilegpu/hw/cl"
)

// Job kinds. A graphics job (SubmitCL) runs on BIN and RENDER; a compute
// job (SubmitCompute) only on COMPUTE and a DMA job (SubmitDMA) only on
// DMA: a single-engine job is one indirect buffer on its engine's ring of
// its priority. All kinds share the contexts' queues, the per-context
// in-flight limit, priorities, fences and fault handling; each engine
// retires its jobs in its own ring order, independently of the others
// (hardware engines run concurrently), with its own fence word in the
// context's memstore.
type jobKind uint8

const (
	kindGraphics jobKind = iota
	kindCompute
	kindDMA
	numJobKinds
)

// engine is the engine whose ring retires jobs of kind k (RENDER for
// graphics jobs, whose BIN part precedes it).
func (k jobKind) engine() int {
	switch k {
	case kindCompute:
		return engineCompute
	case kindDMA:
		return engineDMA
	}
	return engineRender
}

// uses reports whether jobs of kind k have packets on engine e.
func (k jobKind) uses(e int) bool {
	if k == kindGraphics {
		return e == engineBin || e == engineRender
	}
	return e == k.engine()
}

// memstoreEngineSeqnoAt is the memstore offset of the fence word engine e
// (COMPUTE or DMA) writes for priority p: single-engine jobs complete
// independently of graphics jobs and of each other's engines, so each
// engine has its own (the graphics words are at 0 and 16).
func memstoreEngineSeqnoAt(e, p int) uint32 {
	return 96 + 32*uint32(e-engineCompute) + 16*uint32(p)
}

// memstoreEngineSeqno reads the fence word of c's jobs of kind k on the
// priority-p rings.
func (d *Device) memstoreEngineSeqno(c *gpuContext, k jobKind, p int) uint32 {
	if k == kindGraphics {
		return d.memstoreSeqno(c, p)
	}
	return loadSync32(d.mem, c.memstorePA+memstoreEngineSeqnoAt(k.engine(), p))
}

// pendingKind returns the kind of fc's job while it is pending.
// d.mu is held.
func (fc *fence) pendingKind() (jobKind, bool) {
	if fc.job == nil {
		return 0, false
	}
	return fc.job.kind, true
}

// onOtherEngine reports whether fc is pending for a job of a kind other
// than graphics jobs (whose rings do not order it against graphics work).
func (fc *fence) onOtherEngine() bool {
	k, ok := fc.pendingKind()
	return ok && k != kindGraphics
}

// queueSingle issues single-engine job j's fence and queues it behind its
// dependencies: its in-fences and, for implicit synchronisation, the
// unsignalled jobs of other kinds that write a BO it uses or read a BO it
// writes (jobs of its own kind are ordered by its engine's ring). It
// takes over the BO references (b.busy) j holds. d.mu is held.
func (d *Device) queueSingle(f *File, j *job, refs []BORef, inFences []uint64, pm *perfMon) {
	c := j.ctx
	if pm != nil {
		pm.pending++
	}
	d.seqno++
	j.fence = &fence{seqno: d.seqno, done: make(chan struct{}), owner: c, job: j}
	c.issued(d.seqno)
	d.pending[d.seqno] = j.fence
	for _, fn := range inFences {
		if fc := d.pending[fn]; fc != nil {
			j.deps = append(j.deps, fc)
		}
	}
	otherKind := func(fc *fence) bool {
		k, ok := fc.pendingKind()
		return ok && k != j.kind
	}
	for i, b := range j.bos {
		j.writes[i] = refs[i].Flags&BOWrite != 0
		j.syncBO(b, j.writes[i], otherKind)
	}
	c.queue = append(c.queue, j)
	c.active++
	c.unfinished = append(c.unfinished, j.fence.seqno)
	d.kick()
}

// emitSingle writes single-engine job j's packets to its engine's ring of
// its priority: SET_CONTEXT; EVENT_WRITE(TS|CTR) start-of-pipe;
// INDIRECT_BUFFER(the list); EVENT_WRITE(TS|CTR) end-of-pipe;
// EVENT_WRITE(IRQ, the engine's fence word).
func (d *Device) emitSingle(j *job) {
	p, e := j.prio, j.kind.engine()
	var w [4]uint32
	var captured map[int][]uint32
	if d.opts.Capture != nil {
		captured = map[int][]uint32{}
	}
	put := func(pkt cl.RingPacket) {
		pkt.Pack(w[:pkt.Words()])
		d.ringWrite(e, p, w[:pkt.Words()])
		if captured != nil {
			captured[e] = append(captured[e], w[:pkt.Words()]...)
		}
	}
	rep := j.tile.va
	j.submittedAt = d.gpuTime()
	put(cl.RingSetContext{CtxID: j.ctx.id, PageTable: j.ctx.as.l1})
	put(cl.RingEventWrite{Flags: eventTimestampCounters, Address: rep + singleReportOff(e, false)})
	j.listStart = d.rings[e][p].submitted
	put(cl.RingIndirectBuffer{Address: j.listVA, Size: j.listSize})
	put(cl.RingEventWrite{Flags: eventTimestampCounters, Address: rep + singleReportOff(e, true)})
	put(cl.RingEventWrite{Flags: cl.EventIRQ, Address: MemstoreVA + memstoreEngineSeqnoAt(e, p), Value: uint32(j.fence.seqno)})
	j.ringEnd[e] = d.rings[e][p].submitted
	d.inflight[p] = append(d.inflight[p], j)
	if captured != nil {
		d.opts.Capture(d.captureSingle(j, captured))
	}
}

// singleReportOff is where engine e's start (end=false) or end record of
// a single-engine job lies in its report area.
func singleReportOff(e int, end bool) uint32 {
	if end {
		return reportRecBytes[e]
	}
	return 0
}

// singleReportBytes is a single-engine job's report area on engine e.
func singleReportBytes(e int) uint32 { return 2 * reportRecBytes[e] }

// captureSingle describes single-engine job j for Options.Capture: its
// ring packets, uniforms and its list.
func (d *Device) captureSingle(j *job, rings map[int][]uint32) *Capture {
	exec := func(va, n uint32) []byte {
		off := j.exec.pa + (va - j.exec.va)
		return d.mem[off : off+n]
	}
	return &Capture{
		Context: j.ctx.id, Fence: j.fence.seqno, Priority: Priority(j.prio), Rings: rings,
		List: exec(j.listVA, j.listSize), ListAddress: j.listVA, ListEngine: engineNames[j.kind.engine()],
		Uniforms: exec(j.uniVA, j.uniSize), UniformsAddress: j.uniVA,
		Read: d.captureReader(j),
	}
}

// dumpSingleJob fills a crash dump for single-engine job j: its list,
// uniforms, BOs and, for a compute job, each dispatch's code.
func (d *Device) dumpSingleJob(dp *Dump, j *job, exec func(va, n uint32) []byte) {
	dp.List, dp.ListAddress, dp.ListEngine = exec(j.listVA, j.listSize), j.listVA, engineNames[j.kind.engine()]
	dp.Uniforms, dp.UniformsAddress = exec(j.uniVA, j.uniSize), j.uniVA
	for i, b := range j.bos {
		dp.BOs = append(dp.BOs, DumpBO{VA: b.va, Size: b.size(), Write: i < len(j.writes) && j.writes[i]})
	}
	if j.kind == kindCompute {
		d.dumpComputeCode(dp, j)
	}
}

// syncBO is implicit synchronisation on one BO of job j (its fence
// already issued; d.mu held): j waits for the BO's unsignalled last
// writer and, if j writes, for its unsignalled readers — those that
// mustWait says the rings do not order before j already — and then
// becomes the BO's last writer, or one of its readers.
func (j *job) syncBO(b *bo, write bool, mustWait func(*fence) bool) {
	if b.lastWrite != nil && mustWait(b.lastWrite) && !b.lastWrite.signalled() {
		j.deps = append(j.deps, b.lastWrite)
	}
	if write {
		for _, r := range b.reads {
			if mustWait(r) && !r.signalled() {
				j.deps = append(j.deps, r)
			}
		}
		b.lastWrite, b.reads = j.fence, nil
		return
	}
	live := b.reads[:0]
	for _, r := range b.reads {
		if !r.signalled() {
			live = append(live, r)
		}
	}
	b.reads = append(live, j.fence)
}
