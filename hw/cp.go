package hw

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// engine is one command processor: a goroutine that reads ring packets
// from RPTR to WPTR of its rings and executes them. It arbitrates between
// its rings at packet boundaries: before each packet it takes the
// highest-priority ring with a packet it can execute now. An indirect
// buffer, once started, runs to its end (no preemption inside an IB).
type engine struct {
	g  *GPU
	id int

	mu       sync.Mutex
	rings    [NumPriorities]cpRing
	resetGen uint64 // bumped by RESET; work started under an older gen is abandoned
	// resetSeen mirrors resetGen for the hot loops, which poll it without
	// taking mu (a shader-heavy primitive can take milliseconds, so the
	// renderer checks often enough that RESET stops a job promptly).
	resetSeen atomic.Uint64
	// status is CP_STATUS: CPStatusBusy | ring priority while a packet runs.
	status atomic.Uint32

	doorbell  chan struct{}
	waitTimer *time.Timer // reused while rings stall on WAIT_MEM
	mmu       *mmu
	mmuRing   int     // the ring whose SET_CONTEXT e.mmu holds; -1 none
	bin       *binner // BIN engine only
	csd       *csd    // COMPUTE engine only
}

// cpRing is one ring's registers and the context its SET_CONTEXT selected.
// Each ring keeps its own context so that switching rings between packets
// cannot run one ring's IB in another ring's address space.
type cpRing struct {
	base, size, rptr, wptr uint32
	ctx, l1                uint32
	hasCtx                 bool
}

func newEngine(g *GPU, id int) *engine {
	e := &engine{g: g, id: id, doorbell: make(chan struct{}, 1), mmu: newMMU(g.mem, id), mmuRing: -1}
	e.mmu.useEpoch(&g.tlbEpoch)
	switch id {
	case EngineBin:
		e.bin = newBinner(g, e)
	case EngineCompute:
		e.csd = newCSD(g, e)
	}
	return e
}

func (e *engine) ring() {
	select {
	case e.doorbell <- struct{}{}:
	default:
	}
}

func (e *engine) writeReg(p int, off Reg, v uint32) {
	e.mu.Lock()
	r := &e.rings[p]
	switch off {
	case ringRegBaseOff:
		r.base = v &^ pageMask
	case ringRegSizeOff:
		r.size = v
	case ringRegWptrOff:
		r.wptr = v
	}
	e.mu.Unlock()
	if off == ringRegWptrOff {
		e.ring()
	}
}

func (e *engine) readReg(p int, off Reg) uint32 {
	e.mu.Lock()
	defer e.mu.Unlock()
	r := &e.rings[p]
	switch off {
	case ringRegBaseOff:
		return r.base
	case ringRegSizeOff:
		return r.size
	case ringRegRptrOff:
		return r.rptr
	case ringRegWptrOff:
		return r.wptr
	}
	return 0
}

// reset abandons the work of every ring of the engine.
func (e *engine) reset() {
	e.mu.Lock()
	e.resetGen++
	e.resetSeen.Store(e.resetGen)
	for p := range e.rings {
		e.rings[p].rptr = e.rings[p].wptr
	}
	e.mu.Unlock()
	e.ring()
}

// aborted reports whether a RESET arrived since gen was sampled, or the GPU closed.
func (e *engine) aborted(gen uint64) bool {
	if e.g.closed.Load() {
		return true
	}
	return e.resetSeen.Load() != gen
}

// errAborted unwinds a job abandoned by RESET or Close.
var errAborted = errors.New("job abandoned by reset")

// clError is a malformed ring packet or control list, or a shader that
// misbehaved (cause CLErrorCauseShader).
type clError struct {
	msg   string
	cause uint32 // CLErrorCause*; 0 means CLErrorCauseList
}

func (c *clError) Error() string { return c.msg }

func clErrorf(format string, args ...any) *clError {
	return &clError{msg: fmt.Sprintf(format, args...)}
}

// maxPacketPayload bounds how many payload words a non-NOP packet may
// carry; the largest defined packet has 3.
const maxPacketPayload = 3

func (e *engine) run() {
	defer e.g.wg.Done()
	for {
		if e.g.closed.Load() {
			return
		}
		ran, stalled := e.step()
		if ran {
			continue
		}
		if !stalled {
			select {
			case <-e.g.quit:
				return
			case <-e.doorbell:
			}
			continue
		}
		// Some ring waits on a semaphore. Register as a memory waiter
		// first, then look again, so a SIGNAL between the two is not lost.
		ch := e.g.memWaitBegin()
		if ran, _ = e.step(); ran {
			e.g.memWaitEnd()
			continue
		}
		if e.waitTimer == nil {
			e.waitTimer = time.NewTimer(waitMemPoll)
		} else {
			e.waitTimer.Reset(waitMemPoll)
		}
		select {
		case <-ch:
		case <-e.doorbell:
		case <-e.waitTimer.C:
		case <-e.g.quit:
		}
		e.waitTimer.Stop()
		e.g.memWaitEnd()
	}
}

// step executes at most one packet: the head packet of the highest-priority
// ring that can run now. A WAIT_MEM whose condition does not hold leaves its
// ring stalled (RPTR stays at it) and lets lower rings run; it is
// re-evaluated before every later packet. step reports whether it executed
// or consumed anything, and whether a ring is stalled.
func (e *engine) step() (ran, stalled bool) {
	var payload [maxPacketPayload]uint32
	for p := NumPriorities - 1; p >= 0; p-- {
		e.mu.Lock()
		r := e.rings[p]
		gen := e.resetGen
		e.mu.Unlock()
		base, size, rptr, wptr := r.base, r.size, r.rptr, r.wptr
		if size < 4096 || size&(size-1) != 0 || uint64(base)+uint64(size) > uint64(len(e.g.mem)) {
			if rptr != wptr {
				// An unusable ring: report it and drop the contents.
				e.ringError(p)
				e.finish(p, gen, wptr)
				return true, false
			}
			continue
		}
		rptr &= size - 1
		wptr &= size - 1
		if rptr == wptr {
			continue
		}
		avail := ((wptr - rptr) & (size - 1)) / 4
		word := func(i uint32) uint32 {
			return binary.LittleEndian.Uint32(e.g.mem[base+(rptr+4*i)&(size-1):])
		}
		hdr := word(0)
		count := hdr & 0xFFFF
		op := (hdr >> 16) & 0xFF
		if hdr>>28 != 7 || (hdr>>24)&0xF != 0 {
			e.ringError(p)
			e.finish(p, gen, rptr+4)
			return true, false
		}
		if count+1 > avail {
			e.ringError(p)
			e.finish(p, gen, wptr)
			return true, false
		}
		next := rptr + 4*(count+1)
		if op != PktNOP {
			if count > maxPacketPayload {
				e.ringError(p)
				e.finish(p, gen, next)
				return true, false
			}
			for i := uint32(0); i < count; i++ {
				payload[i] = word(1 + i)
			}
		}
		args := payload[:min(count, maxPacketPayload)]
		e.useRing(p)
		if op == PktWaitMem && len(args) >= 2 && !e.waitMemPassed(args[0], args[1]) {
			stalled = true
			continue
		}
		e.status.Store(CPStatusBusy | uint32(p))
		e.execute(p, op, args, gen)
		e.status.Store(0)
		e.finish(p, gen, next)
		return true, false
	}
	return false, stalled
}

// useRing points the engine's MMU at ring p's context.
func (e *engine) useRing(p int) {
	if e.mmuRing == p {
		return
	}
	e.mu.Lock()
	r := e.rings[p]
	e.mu.Unlock()
	if r.hasCtx {
		e.mmu.setContext(r.ctx, r.l1)
	} else {
		e.mmu.ctx, e.mmu.l1, e.mmu.hasTable = 0, 0, false
		e.mmu.flush()
	}
	e.mmuRing = p
}

// finish advances ring p's RPTR unless a RESET moved it meanwhile.
func (e *engine) finish(p int, gen uint64, next uint32) {
	e.mu.Lock()
	r := &e.rings[p]
	if e.resetGen == gen && r.size != 0 {
		r.rptr = next & (r.size - 1)
	}
	e.mu.Unlock()
}

// execute runs one packet; errors are reported through interrupts.
func (e *engine) execute(ring int, op uint32, p []uint32, gen uint64) {
	want := 0
	switch op {
	case PktNOP:
		return
	case PktSetContext, PktIndirectBuffer, PktWaitMem, PktSignal:
		want = 2
	case PktEventWrite:
		want = 3
	default:
		e.ringError(ring)
		return
	}
	if len(p) < want {
		e.ringError(ring)
		return
	}
	switch op {
	case PktSetContext:
		e.mu.Lock()
		r := &e.rings[ring]
		r.ctx, r.l1, r.hasCtx = p[0], p[1], true
		e.mu.Unlock()
		e.mmu.setContext(p[0], p[1])
		e.mmuRing = ring
	case PktIndirectBuffer:
		e.mmu.flush()
		var err error
		switch e.id {
		case EngineBin:
			err = e.bin.run(p[0], p[1], gen)
		case EngineCompute:
			err = e.csd.run(p[0], p[1], gen)
		case EngineDMA:
			err = e.dmaRun(p[0], p[1], gen)
		default:
			err = e.g.render.run(e, p[0], p[1], gen)
		}
		e.report(err, p[0])
		// Render and bin jobs write memory another engine may wait on.
		e.g.notifyMemChanged()
	case PktEventWrite:
		var f *pageFault
		if p[0]&(eventTimestamp|eventCounters) != 0 {
			f = e.writeTimestampSource(p[0], p[1])
		} else {
			// Timestamp first, value last: a CPU that sees the value also
			// sees the timestamp.
			ts := e.g.timestamp()
			f = e.mmu.storeSync32(p[1]+8, uint32(ts))
			if f == nil {
				f = e.mmu.storeSync32(p[1]+12, uint32(ts>>32))
			}
			if f == nil {
				f = e.mmu.storeSync32(p[1], p[2])
			}
		}
		if f != nil {
			e.g.fault(f)
			return
		}
		e.g.notifyMemChanged()
		if p[0]&1 != 0 {
			e.g.raise(IntrEvent)
		}
	case PktSignal:
		if f := e.mmu.storeSync32(p[0], p[1]); f != nil {
			e.g.fault(f)
			return
		}
		e.g.notifyMemChanged()
	case PktWaitMem:
		// step runs a WAIT_MEM only once its condition holds, or when the
		// load faulted: waitMemPassed reports the fault and lets it pass.
	}
}

// report turns the error of the indirect buffer at VA ib into the
// matching interrupt.
func (e *engine) report(err error, ib uint32) {
	if err == nil {
		return
	}
	var pf *pageFault
	var ce *clError
	switch {
	case errors.As(err, &pf):
		if pf.ib == 0 {
			pf.ib = ib
		}
		e.g.fault(pf)
	case errors.As(err, &ce):
		cause := ce.cause
		if cause == 0 {
			cause = CLErrorCauseList
		}
		e.g.clError(e.id, e.mmu.ctx, ib, cause)
	case errors.Is(err, errAborted):
	default:
		e.g.clError(e.id, e.mmu.ctx, ib, CLErrorCauseList)
	}
}

// ringError reports a malformed packet on ring p, blaming the context its
// last SET_CONTEXT selected (0 when none did).
func (e *engine) ringError(p int) {
	e.mu.Lock()
	ctx := e.rings[p].ctx
	e.mu.Unlock()
	e.g.clError(e.id, ctx, 0, CLErrorCauseRing)
}

// waitMemPoll is how often a stalled WAIT_MEM re-reads memory when nothing
// has signalled it: the CPU may write a semaphore without ringing a doorbell.
const waitMemPoll = 2 * time.Millisecond

// waitMemPassed evaluates WAIT_MEM(va, ref) in the current ring's context:
// true when int32(mem[va] − ref) ≥ 0, or when the load faults (the fault is
// reported and the packet is skipped, as a faulting packet always is).
func (e *engine) waitMemPassed(va, ref uint32) bool {
	v, f := e.mmu.loadSync32(va)
	if f != nil {
		e.g.fault(f)
		return true
	}
	return int32(v-ref) >= 0
}

// EVENT_WRITE flags beyond IRQ: the timestamp source (docs/hardware.md §3).
const (
	eventTimestamp = 1 << 1
	eventCounters  = 1 << 2
)

// writeTimestampSource is EVENT_WRITE with a timestamp source: the 64-bit
// timestamp at va and, with eventCounters, this engine's performance
// counters (u64 each, in counter order) from va+8. Placed before and after
// an INDIRECT_BUFFER, these are the job's start-of-pipe and end-of-pipe
// records: the CP executes one packet at a time, so the IB's work lies
// exactly between them.
func (e *engine) writeTimestampSource(flags, va uint32) *pageFault {
	if flags&eventCounters != 0 {
		for i, c := range EngineCounters(e.id) {
			v := e.g.counters[c].Load()
			a := va + 8 + 8*uint32(i)
			if f := e.mmu.storeSync32(a, uint32(v)); f != nil {
				return f
			}
			if f := e.mmu.storeSync32(a+4, uint32(v>>32)); f != nil {
				return f
			}
		}
	}
	ts := e.g.timestamp()
	if f := e.mmu.storeSync32(va, uint32(ts)); f != nil {
		return f
	}
	return e.mmu.storeSync32(va+4, uint32(ts>>32))
}
