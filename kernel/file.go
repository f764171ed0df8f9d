package kernel

import (
	"github.com/tilegpu/tilegpu/hw"
	"time"
)

// File is one client of the Device: a handle table and a GPU context.
// Handles are small integers private to the File; another File's handle
// is simply not found (ENOENT). Safe for concurrent use.
type File struct {
	d       *Device
	ctx     *gpuContext
	handles map[uint32]*bo // guarded by d.mu
	closed  bool
}

func (f *File) check() error {
	if f.closed {
		return errorf(EINVAL, "file is closed")
	}
	if f.d.closed {
		return errorf(EIO, "device closed")
	}
	return nil
}

// readCounter64 reads a 64-bit performance counter whose low word is at lo
// and high word at lo+4, re-reading until the high word is stable.
func readCounter64(m machine, lo reg) uint64 {
	for {
		hi := m.ReadReg(lo + 4)
		l := m.ReadReg(lo)
		if m.ReadReg(lo+4) == hi {
			return uint64(hi)<<32 | uint64(l)
		}
	}
}

// GetParam reports a device parameter.
func (f *File) GetParam(a *GetParamArgs) error {
	d := f.d
	switch a.Param {
	case ParamNumCores:
		a.Value = uint64(d.numCores)
	case ParamNumQPUs:
		a.Value = uint64(d.numQPUs)
	case ParamTileSize:
		a.Value = tileSize
	case ParamMemorySize:
		a.Value = uint64(len(d.mem))
	case ParamMaxRenderSize:
		a.Value = maxRenderSize
	case ParamMaxAttributes:
		a.Value = maxAttributes
	case ParamTimestamp:
		for {
			hi := d.m.ReadReg(regTimestampHi)
			lo := d.m.ReadReg(regTimestampLo)
			if d.m.ReadReg(regTimestampHi) == hi {
				a.Value = uint64(hi)<<32 | uint64(lo)
				break
			}
		}
	case ParamNumPriorities:
		a.Value = numPriorities
	case ParamMemoryQuota:
		a.Value = uint64(d.limits.quota) << pageShift
	case ParamMemoryHeld:
		d.mu.Lock()
		a.Value = uint64(f.ctx.charged) << pageShift
		d.mu.Unlock()
	case ParamResetStatus:
		d.mu.Lock()
		a.Value = uint64(f.ctx.resetStatus())
		d.mu.Unlock()
	case ParamPerfQPUInstructions, ParamPerfTriangles, ParamPerfTiles, ParamPerfFragments, ParamPerfVertices:
		a.Value = readCounter64(d.m, reg(hw.RegPerfQPUInstructions)+reg(a.Param-ParamPerfQPUInstructions)*8)
	case ParamPerfHSRPrimitives:
		a.Value = readCounter64(d.m, reg(hw.RegPerfHSRPrimitives))
	case ParamPerfRasterBlocks:
		a.Value = readCounter64(d.m, reg(hw.RegPerfRasterBlocks))
	case ParamPerfEarlyZRejected:
		a.Value = readCounter64(d.m, reg(hw.RegPerfEarlyZRejected))
	case ParamPerfBinParallelVertices:
		a.Value = readCounter64(d.m, reg(hw.RegPerfBinParallelVertices))
	case ParamPerfXlatInstructions, ParamPerfXlatPrograms, ParamPerfXlatHits, ParamPerfXlatMisses:
		a.Value = readCounter64(d.m, reg(hw.RegPerfXlatInstructions)+reg(a.Param-ParamPerfXlatInstructions)*8)
	case ParamPerfNativeInstructions, ParamPerfNativeRuns:
		a.Value = readCounter64(d.m, reg(hw.RegPerfNativeInstructions)+reg(a.Param-ParamPerfNativeInstructions)*8)
	default:
		v, ok := d.computeParam(a.Param)
		if !ok {
			return errorf(EINVAL, "unknown param %d", a.Param)
		}
		a.Value = v
	}
	return nil
}

// SetPriority sets the priority of the File's context for the jobs it
// submits from now on; jobs already submitted keep theirs. An unknown
// priority is EINVAL.
//
// Real drivers restrict high priority to privileged clients (KGSL and
// msm check CAP_SYS_NICE) because it lets one client delay everybody
// else's rendering. This kernel has no notion of privilege: any client may
// ask. Normal work is not starved for long: a normal job that has headed
// its ring for 100 ms without retiring stops the dispatcher from writing
// more high-priority jobs until it retires.
func (f *File) SetPriority(a *SetPriorityArgs) error {
	if a.Priority >= numPriorities {
		return errorf(EINVAL, "SetPriority: unknown priority %d (have %d levels)", a.Priority, numPriorities)
	}
	f.d.mu.Lock()
	defer f.d.mu.Unlock()
	if err := f.check(); err != nil {
		return err
	}
	f.ctx.prio = int(a.Priority)
	return nil
}

// CreateBO allocates a zeroed, physically contiguous buffer object of at
// least a.Size bytes, maps it in the File's GPU context and returns its
// handle.
func (f *File) CreateBO(a *CreateBOArgs) error {
	d := f.d
	if a.Size == 0 {
		return errorf(EINVAL, "CreateBO: size 0")
	}
	if a.Size > maxBOBytes {
		return errorf(ENOMEM, "CreateBO: size %#x larger than the %#x limit", a.Size, maxBOBytes)
	}
	if a.Flags&^boCreateFlagsKnown != 0 {
		return errorf(EINVAL, "CreateBO: unknown flags %#x", a.Flags&^boCreateFlagsKnown)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := f.check(); err != nil {
		return err
	}
	b, err := d.allocBOLocked(f.ctx, a.Size, true, false)
	if err != nil {
		return err
	}
	b.handleOpen = true
	h := uint32(1)
	for f.handles[h] != nil {
		h++
	}
	f.handles[h] = b
	a.Handle = h
	return nil
}

func (f *File) lookupLocked(h uint32) (*bo, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	b := f.handles[h]
	if b == nil {
		return nil, errorf(ENOENT, "no BO with handle %d", h)
	}
	return b, nil
}

// MmapBO returns the BO's memory as a slice of GPU memory (zero copy). The
// slice is valid until CloseBO (or Close). Go cannot revoke it: after that
// its bytes stay the BO's only until the context's unfinished jobs retire,
// then they may be another client's, who would see what is written
// through the slice. In-process clients are trusted not to do that (see
// docs/interfaces.md, "CPU mappings of a closed BO"); remote clients never
// hold a mapping.
func (f *File) MmapBO(a *MmapBOArgs) error {
	f.d.mu.Lock()
	defer f.d.mu.Unlock()
	b, err := f.lookupLocked(a.Handle)
	if err != nil {
		return err
	}
	a.Mapping = f.d.mem[b.pa : b.pa+b.size() : b.pa+b.size()]
	return nil
}

// CloseBO drops the handle. The memory is freed when the last job that
// uses the BO retires.
func (f *File) CloseBO(a *CloseBOArgs) error {
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	b, err := f.lookupLocked(a.Handle)
	if err != nil {
		return err
	}
	delete(f.handles, a.Handle)
	b.handleOpen = false
	d.releaseBOLocked(b)
	return nil
}

// Close drops every handle. Jobs already submitted still run; the context
// and its page tables are freed after the last one retires.
func (f *File) Close() {
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if f.closed {
		return
	}
	f.closed = true
	for h, b := range f.handles {
		b.handleOpen = false
		d.releaseBOLocked(b)
		delete(f.handles, h)
	}
	f.ctx.closed = true
	d.destroyContextLocked(f.ctx)
}

// Wait blocks until fence a.Fence has signalled or a.Timeout has passed
// (ETIMEDOUT). It returns the fence's error: EIO when the job's context
// was reset after a fault or a hang. Only the File's own fences can be
// waited for; another File's is ENOENT (see fences.go).
func (f *File) Wait(a *WaitArgs) error {
	d := f.d
	d.mu.Lock()
	if err := f.check(); err != nil {
		d.mu.Unlock()
		return err
	}
	fc, failed, err := d.lookupFenceLocked(f.ctx, a.Fence, "Wait")
	d.mu.Unlock()
	switch {
	case err != nil:
		return err
	case failed != nil:
		return failed.err
	case fc == nil:
		return nil
	}
	return waitFences([]*fence{fc}, a.Timeout, "fence")
}

// WaitBO blocks until no queued or running job uses the BO. It returns
// ETIMEDOUT when that takes longer than a.Timeout, and otherwise the
// error of the first of those jobs that failed (EIO after a fault or a
// reset: what the jobs were to write into the BO may be missing).
func (f *File) WaitBO(a *WaitBOArgs) error {
	d := f.d
	d.mu.Lock()
	b, err := f.lookupLocked(a.Handle)
	if err != nil {
		d.mu.Unlock()
		return err
	}
	var fs []*fence
	if b.lastWrite != nil {
		fs = append(fs, b.lastWrite)
	}
	fs = append(fs, b.reads...)
	d.mu.Unlock()
	err = waitFences(fs, a.Timeout, "BO")
	if err != nil && isErrno(err, ETIMEDOUT) {
		return errorf(ETIMEDOUT, "BO %d still busy after %v", a.Handle, a.Timeout)
	}
	// The BO is idle; a job that used it failing (EIO: its context was
	// reset, the contents may be incomplete) is reported, not swallowed.
	return err
}

func isErrno(err error, no Errno) bool {
	e, ok := err.(*Error)
	return ok && e.Errno == no
}

// waitFences waits for all of fs; it returns the first fence error.
func waitFences(fs []*fence, timeout time.Duration, what string) error {
	var deadline <-chan time.Time
	if timeout >= 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	var first error
	for _, fc := range fs {
		select {
		case <-fc.done:
		default:
			if timeout == 0 {
				return errorf(ETIMEDOUT, "%s %d not signalled", what, fc.seqno)
			}
			select {
			case <-fc.done:
			case <-deadline:
				return errorf(ETIMEDOUT, "%s %d not signalled after %v", what, fc.seqno, timeout)
			}
		}
		if fc.err != nil && first == nil {
			first = fc.err
		}
	}
	return first
}

// fence is one job's completion. err is written before done is closed.
type fence struct {
	seqno uint64
	done  chan struct{}
	err   *Error
	owner *gpuContext // the context of the job; only its File may wait
	job   *job        // while pending, for QueryJob
}

func (fc *fence) signalled() bool {
	select {
	case <-fc.done:
		return true
	default:
		return false
	}
}
