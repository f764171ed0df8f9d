package pal

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/kernel"
)

// GpuEvent is PAL's IGpuEvent: a flag in GPU memory that the CPU sets,
// resets and reads (Set, Reset, Status) and command buffers set and reset
// on the GPU timeline (CmdSetEvent, CmdResetEvent) and wait for
// (CmdWaitEvent). Like PAL's it is IGpuMemoryBindable: the client binds
// 4 bytes of memory to it, and that memory must be resident in every
// submission that uses the event. The word holds 1 when the event is set,
// 0 when it is reset.
//
// On the GPU (docs/interfaces.md § pal, hardware.md §3): CmdSetEvent and
// CmdResetEvent are bottom-of-pipe writes (kernel.MemWrite, a SIGNAL after
// the job's render list), so the event changes once all work recorded
// before them has completed; CmdWaitEvent is a memory wait
// (kernel.MemWait, a WAIT_MEM before the next job's bin list) that keeps
// the work recorded after it from starting until the event is set. A
// set from another queue must be submitted before the wait (as Vulkan
// requires): a device's queues share one GPU context whose jobs start in
// submission order, and a wait nothing sets fails its submission with an
// error after the kernel's job timeout (the device is lost, as after a
// hang).
//
// GpuEvent is safe for concurrent use.
type GpuEvent struct {
	dev *Device
	binding
}

// GpuEventCreateInfo configures an event (PAL's GpuEventCreateInfo).
type GpuEventCreateInfo struct{}

// gpuEventBytes is the memory an event needs: one 32-bit word.
const gpuEventBytes = 4

// CreateGpuEvent creates an event; bind memory to it before use. Memory
// is not initialised by the driver: the event's state is what the word
// holds (zeroed memory: reset).
func (d *Device) CreateGpuEvent(GpuEventCreateInfo) (*GpuEvent, error) {
	return &GpuEvent{dev: d}, nil
}

// GpuMemoryRequirements implements IGpuMemoryBindable.
func (e *GpuEvent) GpuMemoryRequirements() GpuMemoryRequirements {
	return GpuMemoryRequirements{Size: gpuEventBytes, Alignment: 4, Heaps: []GpuHeap{HeapLocal}}
}

// BindGpuMemory implements IGpuMemoryBindable.
func (e *GpuEvent) BindGpuMemory(mem *GpuMemory, offset uint64) error {
	return e.bind("GpuEvent", e.GpuMemoryRequirements(), e.dev, mem, offset)
}

// word returns the event's memory, or an error naming the misuse.
func (e *GpuEvent) word(what string) (*GpuMemory, uint64, error) {
	if e == nil {
		return nil, 0, fmt.Errorf("%w: %s: nil GpuEvent", ErrInvalidArgument, what)
	}
	mem, off := e.get()
	if mem == nil {
		return nil, 0, fmt.Errorf("%w: %s: GpuEvent", ErrNotBound, what)
	}
	if mem.isDestroyed() {
		return nil, 0, fmt.Errorf("%w: %s: the GpuEvent's memory", ErrDestroyed, what)
	}
	return mem, off, nil
}

// Set sets the event from the CPU (PAL's IGpuEvent::Set). Work waiting
// for it on the GPU may start.
func (e *GpuEvent) Set() error { return e.store("GpuEvent.Set", 1) }

// Reset resets the event from the CPU (PAL's IGpuEvent::Reset).
func (e *GpuEvent) Reset() error { return e.store("GpuEvent.Reset", 0) }

func (e *GpuEvent) store(what string, v uint32) error {
	mem, off, err := e.word(what)
	if err != nil {
		return err
	}
	storeWord(mem.bytes, off, v)
	return nil
}

// Status reports whether the event is set (PAL's GetStatus: EventSet or
// EventReset).
func (e *GpuEvent) Status() (set bool, err error) {
	mem, off, err := e.word("GpuEvent.Status")
	if err != nil {
		return false, err
	}
	return loadWord(mem.bytes, off) != 0, nil
}

// The event word is written by the command processors (sync/atomic in
// hw) while the CPU reads or writes it, so the CPU uses sync/atomic too.
// GPU memory is little-endian; atomics use host order.
var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func leWord(v uint32) uint32 {
	if hostLittleEndian {
		return v
	}
	return v>>24 | v>>8&0xFF00 | v<<8&0xFF0000 | v<<24
}

// storeWord and loadWord access the 4-aligned word at off (bound memory
// is page-aligned and the offset 4-aligned, checked by BindGpuMemory).
func storeWord(b []byte, off uint64, v uint32) {
	_ = b[off+3]
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&b[off])), leWord(v))
}

func loadWord(b []byte, off uint64) uint32 {
	_ = b[off+3]
	return leWord(atomic.LoadUint32((*uint32)(unsafe.Pointer(&b[off]))))
}

// PipePoint says where in the pipeline a timestamp is taken (PAL's
// HwPipePoint).
type PipePoint uint8

const (
	// PipePointTop (HwPipeTop): when the work recorded after the command
	// starts — the command processor reaching the next job, after its
	// event waits — not waiting for earlier work to finish.
	PipePointTop PipePoint = iota
	// PipePointBottom (HwPipeBottom): when all work recorded before the
	// command has completed (the end of the job before it, on a tiler).
	PipePointBottom
)

func (p PipePoint) String() string {
	switch p {
	case PipePointTop:
		return "top of pipe"
	case PipePointBottom:
		return "bottom of pipe"
	}
	return fmt.Sprintf("PipePoint(%d)", uint8(p))
}

// TimestampBytes is what CmdWriteTimestamp writes: the GPU's 64-bit
// timestamp in nanoseconds (DeviceProperties.TimestampFrequency Hz).
const TimestampBytes = 8

// memOp is one event or timestamp command: a memory write at a pipe
// point, or a wait.
type memOp struct {
	mem   *GpuMemory
	off   uint64
	wait  bool // CmdWaitEvent: wait until the word is ≥ 1
	ts    bool // a timestamp (8 bytes) rather than the value
	value uint32
	stage PipePoint
}

// maxJobMemOps bounds the writes attached to one job (the kernel takes
// 16 waits and 16 writes per job); more start a new job.
const maxJobMemOps = 16

// CmdSetEvent sets the event once all work recorded before it has
// completed (PAL's CmdSetEvent at HwPipeBottom).
func (cb *CmdBuffer) CmdSetEvent(e *GpuEvent) error {
	return cb.eventWrite("CmdSetEvent", e, 1)
}

// CmdResetEvent resets the event once all work recorded before it has
// completed (PAL's CmdResetEvent at HwPipeBottom).
func (cb *CmdBuffer) CmdResetEvent(e *GpuEvent) error {
	return cb.eventWrite("CmdResetEvent", e, 0)
}

func (cb *CmdBuffer) eventWrite(cmd string, e *GpuEvent, v uint32) error {
	if err := cb.check(cmd); err != nil {
		return err
	}
	mem, off, err := cb.eventWord(cmd, e)
	if err != nil {
		return err
	}
	cb.addMemOp(memOp{mem: mem, off: off, value: v, stage: PipePointBottom})
	return nil
}

// CmdWaitEvent makes the work recorded after it wait until the event is
// set — by the CPU (GpuEvent.Set) or by a command buffer submitted
// earlier, on this queue or another (PAL's CmdWaitEvents).
func (cb *CmdBuffer) CmdWaitEvent(e *GpuEvent) error {
	if err := cb.check("CmdWaitEvent"); err != nil {
		return err
	}
	mem, off, err := cb.eventWord("CmdWaitEvent", e)
	if err != nil {
		return err
	}
	cb.addMemOp(memOp{mem: mem, off: off, wait: true, value: 1})
	return nil
}

func (cb *CmdBuffer) eventWord(cmd string, e *GpuEvent) (*GpuMemory, uint64, error) {
	if e != nil && e.dev != cb.dev {
		return nil, 0, cb.failf(ErrWrongDevice, "%s: GpuEvent", cmd)
	}
	mem, off, err := e.word(cmd)
	if err != nil {
		return nil, 0, cb.fail(err)
	}
	return mem, off, nil
}

// CmdWriteTimestamp writes the GPU's 64-bit timestamp (nanoseconds) to
// mem at offset (a multiple of 8) at a pipe point, in order with the
// buffer's other commands (PAL's CmdWriteTimestamp). The value is in
// memory when the submission's fence has signalled.
func (cb *CmdBuffer) CmdWriteTimestamp(stage PipePoint, mem *GpuMemory, offset uint64) error {
	if err := cb.check("CmdWriteTimestamp"); err != nil {
		return err
	}
	switch {
	case stage != PipePointTop && stage != PipePointBottom:
		return cb.failf(ErrInvalidArgument, "CmdWriteTimestamp: pipe point %v (top or bottom)", stage)
	case mem == nil:
		return cb.failf(ErrInvalidArgument, "CmdWriteTimestamp: nil memory")
	case mem.dev != cb.dev:
		return cb.failf(ErrWrongDevice, "CmdWriteTimestamp: memory")
	case offset%8 != 0 || offset > mem.size || TimestampBytes > mem.size-offset:
		return cb.failf(ErrInvalidArgument, "CmdWriteTimestamp: offset %d of the %d-byte memory (8 bytes, 8-aligned, inside the memory)", offset, mem.size)
	}
	cb.addMemOp(memOp{mem: mem, off: offset, ts: true, stage: stage})
	return nil
}

// addMemOp records an event or timestamp command. A bottom-of-pipe write
// that follows a render job with work goes at that job's end of pipe
// (kernel.StageBottomOfPipe), and later work starts a new job; anything
// else becomes a marker the queue resolves at submission (queueMemOps).
func (cb *CmdBuffer) addMemOp(op memOp) {
	if !op.wait && op.stage == PipePointBottom {
		if n := len(cb.jobs); n > 0 {
			last := cb.jobs[n-1]
			if last.isRender() && last.hasWork() && len(last.writes) < maxJobMemOps {
				last.writes = append(last.writes, op.kernelWrite(last.boIndex(op.mem, kernel.BOWrite)))
				cb.job = nil
				return
			}
		}
	}
	cb.job = nil
	j := cb.newJob()
	j.mem = &op
	// Listed for Submit's residency and destruction checks; the queue
	// builds the kernel's BO list for the job that carries it.
	j.mems = append(j.mems, op.mem)
}

func (op *memOp) kernelWrite(bo uint32) kernel.MemWrite {
	w := kernel.MemWrite{BOIndex: bo, Offset: uint32(op.off), Value: op.value, Stage: kernel.StageBottomOfPipe}
	if op.ts {
		w.Kind, w.Value = kernel.MemWriteTimestamp, 0
	}
	if op.stage == PipePointTop {
		w.Stage = kernel.StageTopOfPipe
	}
	return w
}

// isRender reports whether j is a render job (not a copy, nested buffer
// or marker).
func (j *job) isRender() bool {
	return j.copy == nil && j.nested == nil && j.span == nil && j.mem == nil
}

// queueMemOps is what a queue has gathered from marker jobs and not yet
// handed to the kernel: waits and top-of-pipe writes go with the next
// job, bottom-of-pipe writes with a job of their own (they must not wait
// for later work). q.mu is held while it is used.
type queueMemOps struct {
	waits  []memOp
	top    []memOp
	bottom []memOp
	bos    []kernel.BORef
	mems   []*GpuMemory
	kw     []kernel.MemWait
	kwr    []kernel.MemWrite
	bcl    []byte // the flush job's bin list (q.bcl may hold the job being submitted)
}

func (p *queueMemOps) empty() bool { return len(p.waits)+len(p.top)+len(p.bottom) == 0 }

// drop forgets what a submission that failed half-way left gathered.
func (p *queueMemOps) drop() { p.waits, p.top, p.bottom = p.waits[:0], p.top[:0], p.bottom[:0] }

// runMemMarker takes in a marker job's command. q.mu is held.
func (q *Queue) runMemMarker(op *memOp) error {
	p := &q.memOps
	switch {
	case op.wait || op.stage == PipePointTop:
		// Waits and top-of-pipe writes apply to what follows, not to a
		// bottom-of-pipe write recorded before them.
		if len(p.bottom) > 0 {
			if err := q.flushMemOps(); err != nil {
				return err
			}
		}
		if op.wait {
			p.waits = append(p.waits, *op)
		} else {
			p.top = append(p.top, *op)
		}
	default:
		p.bottom = append(p.bottom, *op)
	}
	if len(p.waits) >= maxJobMemOps || len(p.top)+len(p.bottom) >= maxJobMemOps {
		return q.flushMemOps()
	}
	return nil
}

// attachMemOps adds the gathered waits and top-of-pipe writes to the
// job a is about to submit (mems: the memory of a.BOs, in order),
// extending a copy of its BO list with their memory. Pending
// bottom-of-pipe writes first go into a job of their own: they must not
// wait for this job's work. q.mu is held.
func (q *Queue) attachMemOps(a *kernel.SubmitCLArgs, mems []*GpuMemory) error {
	p := &q.memOps
	if len(p.bottom) > 0 || len(a.Writes)+len(p.top) > maxJobMemOps {
		if err := q.flushMemOps(); err != nil {
			return err
		}
	}
	if p.empty() {
		return nil
	}
	p.bos = append(p.bos[:0], a.BOs...)
	p.mems = append(p.mems[:0], mems...)
	p.kw, p.kwr = p.kw[:0], append(p.kwr[:0], a.Writes...)
	p.add()
	a.BOs, a.Waits, a.Writes = p.bos, p.kw, p.kwr
	p.waits, p.top = p.waits[:0], p.top[:0]
	return nil
}

// add turns the gathered operations into kernel waits and writes over
// p.bos (extended as needed).
func (p *queueMemOps) add() {
	index := func(m *GpuMemory, flags uint32) uint32 {
		for i, x := range p.mems {
			if x == m {
				p.bos[i].Flags |= flags
				return uint32(i)
			}
		}
		p.mems = append(p.mems, m)
		p.bos = append(p.bos, kernel.BORef{Handle: m.handle, Flags: flags})
		return uint32(len(p.bos) - 1)
	}
	for i := range p.waits {
		op := &p.waits[i]
		p.kw = append(p.kw, kernel.MemWait{BOIndex: index(op.mem, kernel.BORead), Offset: uint32(op.off), Reference: op.value})
	}
	for _, ops := range [][]memOp{p.top, p.bottom} {
		for i := range ops {
			op := &ops[i]
			p.kwr = append(p.kwr, op.kernelWrite(index(op.mem, kernel.BORead|kernel.BOWrite)))
		}
	}
}

// flushMemOps submits a job that does no work and carries the gathered
// waits and writes. q.mu is held.
func (q *Queue) flushMemOps() error {
	p := &q.memOps
	if p.empty() {
		return nil
	}
	p.bos, p.mems = p.bos[:0], p.mems[:0]
	p.kw, p.kwr = p.kw[:0], p.kwr[:0]
	p.add()
	p.bcl = cl.Append(p.bcl[:0], cl.TileBinningModeConfiguration{WidthInTiles: 1, HeightInTiles: 1})
	p.bcl = cl.Append(p.bcl, cl.StartTileBinning{})
	p.bcl = cl.Append(p.bcl, cl.Flush{})
	a := kernel.SubmitCLArgs{BinCL: p.bcl, BOs: p.bos, Width: 1, Height: 1, InFences: q.inFences(onGraphics), Waits: p.kw, Writes: p.kwr}
	if err := q.dev.file.SubmitCL(&a); err != nil {
		return kernelErr("Submit: event or timestamp job", err)
	}
	q.waitFences = q.waitFences[:0]
	q.last, q.lastKind = a.OutFence, onGraphics
	p.waits, p.top, p.bottom = p.waits[:0], p.top[:0], p.bottom[:0]
	return nil
}
