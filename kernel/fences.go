package kernel

import "sort"

// A fence's outcome is visible only to the File whose job it belongs to:
// Wait refuses other contexts' fences with ENOENT, so one client cannot
// read another's error text (which names the other context's fault
// address). SubmitCL's InFences may still name any fence: a dependency
// orders work and says nothing about how the other job ended.
//
// Fence numbers are global and monotonic, and a retired fence that
// succeeded is forgotten, so each context remembers which numbers it was
// issued as runs of consecutive numbers. A client submitting alone has one
// run; interleaved clients get one run per turn. The list is bounded: past
// maxFenceRuns the two oldest runs merge, so a context may then be told
// that a very old fence of another context in the gap has signalled
// successfully — nothing more: failed fences keep their owner
// (Device.failed), and pending ones are checked against their job.
const maxFenceRuns = 1024

type fenceRun struct{ first, last uint64 }

// issued records that fence n (larger than any before) belongs to c.
func (c *gpuContext) issued(n uint64) {
	if k := len(c.fenceRuns); k > 0 && c.fenceRuns[k-1].last+1 == n {
		c.fenceRuns[k-1].last = n
		return
	}
	if len(c.fenceRuns) == maxFenceRuns {
		c.fenceRuns[1].first = c.fenceRuns[0].first
		c.fenceRuns = c.fenceRuns[1:]
	}
	c.fenceRuns = append(c.fenceRuns, fenceRun{n, n})
}

// owns reports whether fence n was issued to c.
func (c *gpuContext) owns(n uint64) bool {
	i := sort.Search(len(c.fenceRuns), func(i int) bool { return c.fenceRuns[i].last >= n })
	return i < len(c.fenceRuns) && c.fenceRuns[i].first <= n
}

// lookupFenceLocked resolves fence n for c: the pending fence, or the
// failed one, or neither (signalled successfully). ENOENT when n was never
// issued or belongs to another context. d.mu is held.
func (d *Device) lookupFenceLocked(c *gpuContext, n uint64, what string) (pending, failed *fence, err error) {
	if n == 0 || n > d.seqno {
		return nil, nil, errorf(ENOENT, "%s: fence %d was never issued (last is %d)", what, n, d.seqno)
	}
	foreign := errorf(ENOENT, "%s: fence %d is not one of this file's", what, n)
	if fc := d.pending[n]; fc != nil {
		if fc.owner != c {
			return nil, nil, foreign
		}
		return fc, nil, nil
	}
	if fc := d.failed[n]; fc != nil {
		if fc.owner != c {
			return nil, nil, foreign
		}
		return nil, fc, nil
	}
	if !c.owns(n) {
		return nil, nil, foreign
	}
	return nil, nil, nil
}
