package kernel

import (
	"fmt"

	"github.com/tilegpu/tilegpu/hw"
)

// This file is what happens after the GPU abandons work: the CL_ERROR
// interrupt, the fault policy (which jobs fail, which contexts stay
// usable, which work the watchdog replays) and the reset status a client
// queries to learn whether its context was lost (GL_EXT_robustness'
// GetGraphicsResetStatus, amdgpu's CTX_OP_QUERY_STATE2).

// FaultPolicy decides what a GPU fault, CL error or hang costs, like
// KGSL's fault-tolerance policy (ft_policy). Options.FaultPolicy selects it
// per device.
type FaultPolicy uint32

const (
	// FaultReplayInnocent (the default): the faulting job's context
	// becomes guilty — its unfinished jobs fail and later submissions get
	// EIO — and every other context's work the reset abandoned is
	// replayed.
	FaultReplayInnocent FaultPolicy = iota
	// FaultSkipIB: only the faulting job fails; its context stays usable
	// and its later jobs run (or are replayed) as if it had been skipped.
	FaultSkipIB
	// FaultSkipFrame: the faulting job fails with the rest of its frame —
	// its context's later jobs up to and including the next one submitted
	// with SubmitEndOfFrame — and the context goes on with the next frame.
	FaultSkipFrame
	// FaultNoReplay: as FaultReplayInnocent for the faulting context, and
	// a reset replays nothing: every job the reset abandoned fails, and
	// the contexts it belonged to are lost (ResetInnocent) as well.
	FaultNoReplay

	numFaultPolicies
)

var faultPolicyNames = [...]string{"replay-innocent", "skip-ib", "skip-frame", "no-replay"}

func (p FaultPolicy) String() string {
	if p < numFaultPolicies {
		return faultPolicyNames[p]
	}
	return fmt.Sprintf("FaultPolicy(%d)", uint32(p))
}

// Valid reports whether p is one of the defined policies.
func (p FaultPolicy) Valid() bool { return p < numFaultPolicies }

// ParseFaultPolicy returns the policy named by String ("replay-innocent",
// "skip-ib", "skip-frame", "no-replay").
func ParseFaultPolicy(s string) (FaultPolicy, error) {
	for i, n := range faultPolicyNames {
		if n == s {
			return FaultPolicy(i), nil
		}
	}
	return 0, fmt.Errorf("unknown fault policy %q (want one of %v)", s, faultPolicyNames)
}

// ResetStatus is ParamResetStatus: whether the File's context was lost.
type ResetStatus uint64

const (
	ResetNone     ResetStatus = 0 // the context is usable
	ResetGuilty   ResetStatus = 1 // lost: its own work faulted or hung the GPU
	ResetInnocent ResetStatus = 2 // lost: another context's reset took its work (FaultNoReplay)
)

// SubmitCLArgs.Flags.
const (
	// SubmitEndOfFrame marks the last job of a frame (KGSL's
	// KGSL_CMDBATCH_END_OF_FRAME): FaultSkipFrame skips up to it.
	SubmitEndOfFrame uint32 = 1 << 0

	// SubmitExactCounts renders every primitive of the job: the render
	// list's DisableHSR bit turns hidden-surface removal off, so the
	// job's counters count all the fragments the API drew (occlusion
	// queries) rather than the ones left after HSR.
	SubmitExactCounts uint32 = 1 << 1

	submitFlagsKnown = SubmitEndOfFrame | SubmitExactCounts
)

// clErrorRecord is what CL_ERROR_CTX/STATUS/IB held when INTR_CL_ERROR came.
type clErrorRecord struct{ ctx, status, ib uint32 }

var clErrorCauses = map[uint32]string{
	hw.CLErrorCauseRing:   "malformed ring packet",
	hw.CLErrorCauseList:   "malformed control list",
	hw.CLErrorCauseShader: "a shader misbehaved",
}

// handleCLError blames the job whose list the hardware abandoned. Validated
// lists never cause CL_ERROR; shaders are not validated (a client's code
// can misuse the TMU FIFO or branch anywhere), so this is how their
// failures reach the client.
func (d *Device) handleCLError(r clErrorRecord) {
	c := d.contexts[r.ctx]
	if c == nil {
		return
	}
	eng := int(r.status>>hw.CLErrorEngineShift) & 0xF
	j := d.faultingJob(c, eng, r.ib)
	cause := clErrorCauses[r.status&0xFF]
	if cause == "" {
		cause = fmt.Sprintf("cause %d", r.status&0xFF)
	}
	fence := uint64(0)
	if j != nil {
		fence = j.fence.seqno
	}
	err := errorf(EIO, "context %d: job (fence %d) abandoned by the GPU on %s: %s (CL_ERROR)", c.id, fence, engineName(eng), cause)
	d.dumpCLError(j, err.Msg)
	d.blame(c, j, err)
}

func engineName(e int) string {
	if e >= 0 && e < numEngines {
		return engineNames[e]
	}
	return fmt.Sprint(e)
}

// jobOfIB returns c's job in the rings whose indirect buffer on engine e
// is at VA ib (CL_ERROR_IB names it exactly), or nil.
func (d *Device) jobOfIB(c *gpuContext, e int, ib uint32) *job {
	if ib == 0 {
		return nil
	}
	for p := range d.inflight {
		for _, j := range d.inflight[p] {
			if j.ctx == c && ((e == engineBin && j.binVA == ib) || (e == engineRender && j.rclVA == ib) || (e >= engineCompute && j.kind.engine() == e && j.listVA == ib)) {
				return j
			}
		}
	}
	return nil
}

// faultingJob returns c's job that engine e was executing when it faulted:
// the job whose bin or render list is ib when the hardware named the IB
// (MMU_FAULT_IB: the engine may have gone on to later jobs before the
// kernel looked), else the oldest of c's jobs in the rings whose packets
// on e the command processor has not passed, else c's oldest job in the
// rings.
func (d *Device) faultingJob(c *gpuContext, e int, ib uint32) *job {
	if j := d.jobOfIB(c, e, ib); j != nil {
		return j
	}
	var oldest *job
	for p := range d.inflight {
		for _, j := range d.inflight[p] {
			if j.ctx != c {
				continue
			}
			if e >= 0 && e < numEngines && d.consumed(e, p) < j.ringEnd[e] {
				return j
			}
			if oldest == nil || j.fence.seqno < oldest.fence.seqno {
				oldest = j
			}
		}
	}
	return oldest
}

// blame applies the fault policy to a fault or CL error of job j (nil when
// no job of c is in the rings any more) of context c: nothing was reset,
// so no other context lost work.
func (d *Device) blame(c *gpuContext, j *job, err *Error) {
	switch d.opts.FaultPolicy {
	case FaultSkipIB, FaultSkipFrame:
		if j == nil {
			return
		}
		if j.err == nil {
			j.err = err
		}
		if d.opts.FaultPolicy == FaultSkipFrame {
			d.skipFrame(j, err)
		}
	default:
		d.markGuilty(c, err)
	}
}

// skipFrame fails the jobs of j's context after j up to and including the
// end of j's frame; when that end has not been submitted yet, the
// context's submissions fail until it is.
func (d *Device) skipFrame(j *job, err *Error) {
	c := j.ctx
	if j.endOfFrame {
		return
	}
	skip := &Error{Errno: EIO, Msg: fmt.Sprintf("context %d: job skipped with the rest of its frame after: %s", c.id, err.Msg)}
	for p := range d.inflight {
		for _, k := range d.inflight[p] {
			if k.ctx == c && k.fence.seqno > j.fence.seqno && k.err == nil {
				k.err = skip
				if k.endOfFrame {
					return
				}
			}
		}
	}
	for i, k := range c.queue {
		d.finishJob(k, skip)
		if k.endOfFrame {
			c.queue = c.queue[i+1:]
			return
		}
	}
	c.queue = nil
	c.skipping = skip
}

// othersWaiting reports whether a context other than c has work queued or
// in the rings.
func (d *Device) othersWaiting(c *gpuContext) bool {
	for p := range d.inflight {
		for _, j := range d.inflight[p] {
			if j.ctx != c {
				return true
			}
		}
	}
	for _, o := range d.contexts {
		// A context whose next job waits for memory (memops.go) is not
		// waiting for the GPU.
		if o != c && len(o.queue) > 0 && o.queue[0].waitSince.IsZero() {
			return true
		}
	}
	return false
}

// resetStatus is ParamResetStatus for c.
func (c *gpuContext) resetStatus() ResetStatus {
	switch {
	case c.guilty != nil && c.innocent:
		return ResetInnocent
	case c.guilty != nil:
		return ResetGuilty
	}
	return ResetNone
}
