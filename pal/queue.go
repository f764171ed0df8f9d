package pal

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/kernel"
)

// QueueCreateInfo configures a queue.
type QueueCreateInfo struct {
	Engine EngineType // EngineUniversal or EngineCompute
}

// Queue is PAL's IQueue: submits command buffers to one engine. Work on
// one queue starts in submission order; between queues only semaphores
// order it. Queue is safe for concurrent use.
type Queue struct {
	dev    *Device
	engine EngineType

	mu         sync.Mutex
	last       uint64    // kernel fence of the queue's last job
	lastKind   jobEngine // the engine that job runs on
	dmaJobs    int       // copies submitted to the DMA engine (tests)
	waitFences []uint64  // semaphore waits the next job must honour
	bcl        []byte    // gathers a job's chunks into one list

	// active are the query and experiment spans the next jobs count for
	// (query.go); sinks is activeSinks' scratch.
	active []activeSpan
	sinks  []*spanSink

	// memOps are event waits and writes and timestamps gathered from
	// marker jobs for the next job (event.go).
	memOps queueMemOps
}

// CreateQueue creates a queue on an engine.
func (d *Device) CreateQueue(ci QueueCreateInfo) (*Queue, error) {
	if ci.Engine != EngineUniversal && ci.Engine != EngineCompute && ci.Engine != EngineDma {
		return nil, fmt.Errorf("%w: engine %v (the TG GPU has the universal, compute and DMA engines)", ErrUnsupported, ci.Engine)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.queues[ci.Engine] >= maxQueues {
		return nil, fmt.Errorf("%w: the %v engine takes %d queues", ErrInvalidArgument, ci.Engine, maxQueues)
	}
	d.queues[ci.Engine]++
	return &Queue{dev: d, engine: ci.Engine}, nil
}

// SubmitInfo is one submission (PAL's SubmitInfo / MultiSubmitInfo).
type SubmitInfo struct {
	CmdBuffers []*CmdBuffer
	// GpuMemoryRefs is the memory the command buffers use that is not
	// resident device-wide (AddGpuMemoryReferences).
	GpuMemoryRefs []*GpuMemory
	// Fence, if not nil, signals when all the submission's work is done.
	Fence *Fence
}

// Submit hands the command buffers to the kernel: one SUBMIT_CL per job
// (copies run on the CPU in order, see CmdCopyMemory). Nothing is
// submitted when a command buffer is not executable or uses memory that
// is not resident.
func (q *Queue) Submit(si SubmitInfo) error {
	refs := make(map[*GpuMemory]bool, len(si.GpuMemoryRefs))
	for _, m := range si.GpuMemoryRefs {
		if m == nil || m.dev != q.dev {
			return fmt.Errorf("%w: Submit: GpuMemoryRefs holds nil or another device's memory", ErrWrongDevice)
		}
		refs[m] = true
	}
	if si.Fence != nil && si.Fence.dev != q.dev {
		return fmt.Errorf("%w: Submit: fence", ErrWrongDevice)
	}
	for i, cb := range si.CmdBuffers {
		switch {
		case cb == nil:
			return fmt.Errorf("%w: Submit: command buffer %d is nil", ErrInvalidArgument, i)
		case cb.dev != q.dev:
			return fmt.Errorf("%w: Submit: command buffer %d", ErrWrongDevice, i)
		case cb.state == stateInvalid:
			return fmt.Errorf("%w: Submit: command buffer %d: its recording failed (%v)", ErrCmdBufferNotEnded, i, cb.err)
		case cb.state != stateExecutable:
			return fmt.Errorf("%w: Submit: command buffer %d (call End)", ErrCmdBufferNotEnded, i)
		case cb.engine != q.engine:
			return fmt.Errorf("%w: Submit: command buffer %d was created for the %v engine, the queue is on the %v engine", ErrInvalidArgument, i, cb.engine, q.engine)
		}
		for _, j := range flatJobs(cb) {
			if !j.hasWork() {
				continue
			}
			if j.nested != nil && j.nested.state != stateExecutable {
				return fmt.Errorf("%w: Submit: command buffer %d executes a nested buffer that is no longer executable", ErrCmdBufferNotEnded, i)
			}
			for _, m := range j.mems {
				if m.isDestroyed() {
					return fmt.Errorf("%w: Submit: command buffer %d uses destroyed GpuMemory", ErrDestroyed, i)
				}
				if !refs[m] && !q.dev.resident(m) {
					return fmt.Errorf("%w: Submit: command buffer %d uses a %d-byte GpuMemory that is neither in GpuMemoryRefs nor referenced device-wide", ErrNotResident, i, m.size)
				}
			}
		}
	}

	q.mu.Lock()
	defer q.mu.Unlock()
	for _, cb := range si.CmdBuffers {
		// Spans begin and end in one command buffer (End checks); one
		// left open by a submission that failed half-way ends here.
		q.endSpans()
		q.memOps.drop()
		first := q.last
		for _, j := range cb.jobs {
			if j.nested == nil {
				if err := q.runJob(cb, j); err != nil {
					return err
				}
				continue
			}
			nfirst := q.last
			for _, nj := range j.nested.jobs {
				if err := q.runJob(j.nested, nj); err != nil {
					return err
				}
			}
			if q.last != nfirst {
				j.nested.pending.Store(q.last)
			}
		}
		// Waits and writes recorded at the end of the buffer take effect
		// now, in a job of their own.
		if err := q.flushMemOps(); err != nil {
			return err
		}
		if q.last != first {
			cb.pending.Store(q.last)
		}
	}
	if si.Fence != nil {
		si.Fence.set(q.last)
	}
	return nil
}

// flatJobs lists cb's jobs with nested buffers' jobs in their place.
func flatJobs(cb *CmdBuffer) []*job {
	var out []*job
	for _, j := range cb.jobs {
		out = append(out, j)
		if j.nested != nil {
			out = append(out, j.nested.jobs...)
		}
	}
	return out
}

// runJob submits one job, or performs one copy; a job with nothing to do
// is dropped. q.mu is held.
func (q *Queue) runJob(cb *CmdBuffer, j *job) error {
	if !j.hasWork() {
		return nil
	}
	if j.span != nil {
		q.runSpanMarker(j.span)
		return nil
	}
	if j.mem != nil {
		return q.runMemMarker(j.mem)
	}
	f := q.dev.file
	if j.copy != nil && q.engine == EngineDma && j.copy.onGPU() {
		return q.runDMA(j)
	}
	if j.copy != nil {
		// Event waits before the copy hold it back too: their job's fence
		// becomes q.last.
		if err := q.flushMemOps(); err != nil {
			return err
		}
		// Everything before the copy must have finished (the queue's
		// jobs run in order, so waiting for the last one is enough), and
		// so must the semaphore waits.
		for _, fc := range append(q.waitFences, q.last) {
			if fc == 0 {
				continue
			}
			if err := f.Wait(&kernel.WaitArgs{Fence: fc, Timeout: -1}); err != nil {
				return kernelErr("Submit: waiting before a copy", err)
			}
		}
		q.waitFences = q.waitFences[:0]
		j.copy.run()
		return nil
	}
	if j.compute != nil {
		return q.runCompute(j)
	}
	q.bcl = q.bcl[:0]
	for _, s := range j.segs {
		if s.end > s.start {
			q.bcl = append(q.bcl, cb.chunks[s.chunk][s.start:s.end]...)
		}
	}
	q.bcl = cl.Append(q.bcl, cl.Flush{})
	a := kernel.SubmitCLArgs{
		BinCL: q.bcl, ShaderRecords: j.shaderRecs, Uniforms: j.unifs, BOs: j.bos, Relocs: j.relocs,
		Width: uint32(j.width), Height: uint32(j.height),
		ClearColor: j.clearColor, ClearDepth: j.clearDepth, ClearStencil: j.clearStencil,
		InFences: q.inFences(onGraphics),
	}
	a.Writes = j.writes // event and timestamp writes at its end (event.go)
	if err := q.attachMemOps(&a, j.mems); err != nil {
		return err
	}
	if j.color != nil {
		a.Color = q.target(j, j.color, j.colorClear)
	}
	if j.depth != nil && j.usesDS {
		a.ZS = q.target(j, j.depth, j.dsClear)
	}
	if len(q.active) > 0 {
		sinks, exact := q.activeSinks()
		a.Tag = q.dev.spans.register(sinks)
		if exact {
			a.Flags |= kernel.SubmitExactCounts
		}
	}
	if err := f.SubmitCL(&a); err != nil {
		return q.submitFailed(a.Tag, err)
	}
	q.waitFences = q.waitFences[:0]
	q.last, q.lastKind = a.OutFence, onGraphics
	return nil
}

// spanTag registers a compute or DMA job with the queue's active query
// and experiment spans and returns its tag (0: none). q.mu is held.
func (q *Queue) spanTag() uint64 {
	if len(q.active) == 0 {
		return 0
	}
	sinks, _ := q.activeSinks()
	return q.dev.spans.register(sinks)
}

// submitFailed cancels the spans' wait for a job the kernel refused.
func (q *Queue) submitFailed(tag uint64, err error) error {
	err = kernelErr("Submit", err)
	if tag != 0 {
		q.dev.spans.cancel(tag, err)
	}
	return err
}

// jobEngine says which GPU engine(s) a kernel job of a queue runs on.
type jobEngine uint8

const (
	onNone     jobEngine = iota
	onGraphics           // BIN + RENDER (SubmitCL)
	onCompute            // COMPUTE (SubmitCompute)
	onDMA                // DMA (SubmitDMA)
)

// inFences returns the in-fences of the queue's next job, which runs on
// engine: the pending semaphore waits, and the queue's last job when that
// ran on another engine. The kernel runs a context's jobs of one engine
// in order, but jobs of different engines concurrently; waiting at each
// change of engine keeps a queue's jobs completing in submission order,
// so the fence of its last job (Fence, QueueSemaphore) covers all of
// them. q.mu is held.
func (q *Queue) inFences(engine jobEngine) []uint64 {
	if q.last != 0 && q.lastKind != engine {
		return append(q.waitFences, q.last)
	}
	return q.waitFences
}

func (q *Queue) target(j *job, im *Image, clear bool) kernel.RenderTarget {
	mem, off := im.get()
	// openJob listed the targets' memory (read and write); the lookup
	// does not modify the job, which another queue may be submitting too.
	var index uint32
	for i, m := range j.mems {
		if m == mem {
			index = uint32(i)
			break
		}
	}
	return kernel.RenderTarget{BOIndex: index, Offset: uint32(off), Stride: uint32(im.RowPitch()),
		Enabled: true, Load: !clear, Store: true, Clear: clear}
}

// WaitIdle waits until the queue's submitted work is done.
func (q *Queue) WaitIdle(timeout time.Duration) error {
	q.mu.Lock()
	last := q.last
	q.mu.Unlock()
	if last == 0 {
		return nil
	}
	return kernelErr("Queue.WaitIdle", q.dev.file.Wait(&kernel.WaitArgs{Fence: last, Timeout: timeout}))
}

// SignalQueueSemaphore signals s once the work submitted to q so far is done.
func (q *Queue) SignalQueueSemaphore(s *QueueSemaphore) error {
	if s == nil || s.dev != q.dev {
		return fmt.Errorf("%w: SignalQueueSemaphore: nil semaphore or another device's", ErrWrongDevice)
	}
	q.mu.Lock()
	last := q.last
	q.mu.Unlock()
	select {
	case s.signals <- last:
		return nil
	default:
		return fmt.Errorf("%w: SignalQueueSemaphore: count would exceed MaxCount %d", ErrInvalidArgument, cap(s.signals))
	}
}

// WaitQueueSemaphore makes the work submitted to q after it wait for one
// signal of s. A signal not yet submitted is waited for on the CPU for
// at most timeout (negative: forever); then the wait fails with ErrTimeout
// and the queue does not wait.
func (q *Queue) WaitQueueSemaphore(s *QueueSemaphore, timeout time.Duration) error {
	if s == nil || s.dev != q.dev {
		return fmt.Errorf("%w: WaitQueueSemaphore: nil semaphore or another device's", ErrWrongDevice)
	}
	var fence uint64
	select {
	case fence = <-s.signals:
	default:
		if timeout == 0 {
			return fmt.Errorf("%w: queue semaphore has no signal", ErrTimeout)
		}
		var after <-chan time.Time
		if timeout > 0 {
			t := time.NewTimer(timeout)
			defer t.Stop()
			after = t.C
		}
		select {
		case fence = <-s.signals:
		case <-after:
			return fmt.Errorf("%w: queue semaphore was not signalled within %v", ErrTimeout, timeout)
		}
	}
	if fence != 0 {
		q.mu.Lock()
		q.waitFences = append(q.waitFences, fence)
		q.mu.Unlock()
	}
	return nil
}

// QueueSemaphoreCreateInfo configures a semaphore.
type QueueSemaphoreCreateInfo struct {
	MaxCount int // signals that may be pending, 1..1024; 0 means 1
}

// QueueSemaphore is PAL's IQueueSemaphore: one queue signals it, another
// waits for it, ordering their work (through kernel in-fences).
type QueueSemaphore struct {
	dev     *Device
	signals chan uint64 // pending signals: the kernel fence each stands for
}

// CreateQueueSemaphore creates a semaphore with no pending signal.
func (d *Device) CreateQueueSemaphore(ci QueueSemaphoreCreateInfo) (*QueueSemaphore, error) {
	n := ci.MaxCount
	if n == 0 {
		n = 1
	}
	if n < 1 || n > 1024 {
		return nil, fmt.Errorf("%w: MaxCount %d not in 1..1024", ErrInvalidArgument, ci.MaxCount)
	}
	return &QueueSemaphore{dev: d, signals: make(chan uint64, n)}, nil
}

// Fence is PAL's IFence: signalled by a submission, waited for on the CPU.
type Fence struct {
	dev       *Device
	mu        sync.Mutex
	submitted bool
	kfence    uint64 // 0: nothing to wait for
}

// CreateFence creates an unsignalled fence.
func (d *Device) CreateFence() *Fence { return &Fence{dev: d} }

func (f *Fence) set(kfence uint64) {
	f.mu.Lock()
	f.submitted, f.kfence = true, kfence
	f.mu.Unlock()
}

// Reset makes the fence unsignalled and unsubmitted.
func (f *Fence) Reset() {
	f.mu.Lock()
	f.submitted, f.kfence = false, 0
	f.mu.Unlock()
}

// Wait waits until the fence's submission is done, for at most timeout
// (negative: forever). A fence no submission signals is
// ErrFenceNeverSubmitted at once; a submission that failed on the GPU
// returns the kernel's error (EIO, naming the cause).
func (f *Fence) Wait(timeout time.Duration) error {
	f.mu.Lock()
	submitted, kf := f.submitted, f.kfence
	f.mu.Unlock()
	if !submitted {
		return fmt.Errorf("%w: Fence.Wait", ErrFenceNeverSubmitted)
	}
	if kf == 0 {
		return nil
	}
	return kernelErr("Fence.Wait", f.dev.file.Wait(&kernel.WaitArgs{Fence: kf, Timeout: timeout}))
}

// Status reports whether the fence is signalled (PAL's GetStatus); a
// failed submission is signalled with its error.
func (f *Fence) Status() (signalled bool, err error) {
	err = f.Wait(0)
	if errors.Is(err, ErrTimeout) || errors.Is(err, ErrFenceNeverSubmitted) {
		return false, nil
	}
	return true, err
}
