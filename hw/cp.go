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
// from RPTR to WPTR and executes them.
type engine struct {
	g  *GPU
	id int

	mu       sync.Mutex
	base     uint32
	size     uint32
	rptr     uint32
	wptr     uint32
	resetGen uint64 // bumped by RESET; work started under an older gen is abandoned
	// resetSeen mirrors resetGen for the hot loops, which poll it without
	// taking mu (a shader-heavy primitive can take milliseconds, so the
	// renderer checks often enough that RESET stops a job promptly).
	resetSeen atomic.Uint64

	doorbell  chan struct{}
	waitTimer *time.Timer // reused by WAIT_MEM
	mmu       *mmu
	bin       *binner // BIN engine only
}

func newEngine(g *GPU, id int) *engine {
	e := &engine{g: g, id: id, doorbell: make(chan struct{}, 1), mmu: newMMU(g.mem, id)}
	if id == EngineBin {
		e.bin = newBinner(g, e)
	}
	return e
}

func (e *engine) ring() {
	select {
	case e.doorbell <- struct{}{}:
	default:
	}
}

func (e *engine) writeReg(off Reg, v uint32) {
	e.mu.Lock()
	switch off {
	case 0x0:
		e.base = v &^ pageMask
	case 0x4:
		e.size = v
	case 0xC:
		e.wptr = v
	}
	e.mu.Unlock()
	if off == 0xC {
		e.ring()
	}
}

func (e *engine) readReg(off Reg) uint32 {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch off {
	case 0x0:
		return e.base
	case 0x4:
		return e.size
	case 0x8:
		return e.rptr
	case 0xC:
		return e.wptr
	}
	return 0
}

func (e *engine) reset() {
	e.mu.Lock()
	e.resetGen++
	e.resetSeen.Store(e.resetGen)
	e.rptr = e.wptr
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

// clError is a malformed ring packet or control list.
type clError struct{ msg string }

func (c *clError) Error() string { return c.msg }

func clErrorf(format string, args ...any) *clError {
	return &clError{msg: fmt.Sprintf(format, args...)}
}

// maxPacketPayload bounds how many payload words a non-NOP packet may
// carry; the largest defined packet has 3.
const maxPacketPayload = 3

func (e *engine) run() {
	defer e.g.wg.Done()
	var payload [maxPacketPayload]uint32
	for {
		select {
		case <-e.g.quit:
			return
		case <-e.doorbell:
		}
		for {
			if e.g.closed.Load() {
				return
			}
			e.mu.Lock()
			base, size, rptr, wptr, gen := e.base, e.size, e.rptr, e.wptr, e.resetGen
			e.mu.Unlock()
			if size < 4096 || size&(size-1) != 0 || uint64(base)+uint64(size) > uint64(len(e.g.mem)) {
				if rptr != wptr {
					// An unusable ring: report it and drop the contents.
					e.g.raise(IntrCLError)
					e.finish(gen, wptr)
				}
				break
			}
			rptr &= size - 1
			wptr &= size - 1
			if rptr == wptr {
				break
			}
			avail := ((wptr - rptr) & (size - 1)) / 4
			word := func(i uint32) uint32 {
				return binary.LittleEndian.Uint32(e.g.mem[base+(rptr+4*i)&(size-1):])
			}
			hdr := word(0)
			count := hdr & 0xFFFF
			op := (hdr >> 16) & 0xFF
			if hdr>>28 != 7 || (hdr>>24)&0xF != 0 {
				e.g.raise(IntrCLError)
				e.finish(gen, rptr+4)
				continue
			}
			if count+1 > avail {
				e.g.raise(IntrCLError)
				e.finish(gen, wptr)
				continue
			}
			next := rptr + 4*(count+1)
			if op != PktNOP {
				if count > maxPacketPayload {
					e.g.raise(IntrCLError)
					e.finish(gen, next)
					continue
				}
				for i := uint32(0); i < count; i++ {
					payload[i] = word(1 + i)
				}
			}
			e.execute(op, payload[:min(count, maxPacketPayload)], gen)
			e.finish(gen, next)
		}
	}
}

// finish advances RPTR unless a RESET moved it meanwhile.
func (e *engine) finish(gen uint64, next uint32) {
	e.mu.Lock()
	if e.resetGen == gen && e.size != 0 {
		e.rptr = next & (e.size - 1)
	}
	e.mu.Unlock()
}

// execute runs one packet; errors are reported through interrupts.
func (e *engine) execute(op uint32, p []uint32, gen uint64) {
	want := 0
	switch op {
	case PktNOP:
		return
	case PktSetContext, PktIndirectBuffer, PktWaitMem, PktSignal:
		want = 2
	case PktEventWrite:
		want = 3
	default:
		e.g.raise(IntrCLError)
		return
	}
	if len(p) < want {
		e.g.raise(IntrCLError)
		return
	}
	switch op {
	case PktSetContext:
		e.mmu.setContext(p[0], p[1])
	case PktIndirectBuffer:
		e.mmu.flush()
		var err error
		if e.id == EngineBin {
			err = e.bin.run(p[0], p[1], gen)
		} else {
			err = e.g.render.run(e, p[0], p[1], gen)
		}
		e.report(err)
		// Render and bin jobs write memory another engine may wait on.
		e.g.notifyMemChanged()
	case PktEventWrite:
		// Timestamp first, value last: a CPU that sees the value also
		// sees the timestamp.
		ts := e.g.timestamp()
		f := e.mmu.storeSync32(p[1]+8, uint32(ts))
		if f == nil {
			f = e.mmu.storeSync32(p[1]+12, uint32(ts>>32))
		}
		if f == nil {
			f = e.mmu.storeSync32(p[1], p[2])
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
		e.waitMem(p[0], p[1], gen)
	}
}

// report turns a job's error into the matching interrupt.
func (e *engine) report(err error) {
	if err == nil {
		return
	}
	var pf *pageFault
	var ce *clError
	switch {
	case errors.As(err, &pf):
		e.g.fault(pf)
	case errors.As(err, &ce):
		e.g.raise(IntrCLError)
	case errors.Is(err, errAborted):
	default:
		e.g.raise(IntrCLError)
	}
}

// waitMemPoll is how often a WAIT_MEM re-reads memory when nothing has
// signalled it: the CPU may write a semaphore without ringing a doorbell.
const waitMemPoll = 2 * time.Millisecond

func (e *engine) waitMem(va, ref uint32, gen uint64) {
	for {
		ch := e.g.memWaitBegin()
		v, f := e.mmu.loadSync32(va)
		if f != nil {
			e.g.memWaitEnd()
			e.g.fault(f)
			return
		}
		if int32(v-ref) >= 0 || e.aborted(gen) {
			e.g.memWaitEnd()
			return
		}
		if e.waitTimer == nil {
			e.waitTimer = time.NewTimer(waitMemPoll)
		} else {
			e.waitTimer.Reset(waitMemPoll)
		}
		quit := false
		select {
		case <-ch:
		case <-e.waitTimer.C:
		case <-e.g.quit:
			quit = true
		}
		e.waitTimer.Stop()
		e.g.memWaitEnd()
		if quit {
			return
		}
	}
}
