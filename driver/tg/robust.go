package tg

import (
	"errors"
	"fmt"
	"time"

	"github.com/tilegpu/tilegpu/pipe"
)

// ErrContextDestroyed is returned by every Context call that would reach
// the kernel after Destroy: a destroyed context never touches GPU memory
// again, and a late call from its owner is an error, not a crash.
var ErrContextDestroyed = errors.New("tg: the context is destroyed")

// FlushFrame is Flush for the end of a frame (what a swap-buffers does):
// the last job it submits is marked as the end of the frame, so the
// kernel's skip-frame fault policy knows where the next frame starts.
func (c *Context) FlushFrame() (pipe.Fence, error) {
	if c.destroyed {
		return 0, ErrContextDestroyed
	}
	jobs := c.jobList()
	for i := len(jobs) - 1; i >= 0; i-- {
		if jobs[i].hasWork() {
			jobs[i].endOfFrame = true
			break
		}
	}
	return c.Flush()
}

// maxUnchecked bounds Context.unchecked: past it, the oldest fences are
// polled (and dropped once signalled) at each submission.
const maxUnchecked = 1024

// noteFence remembers a submitted job's fence until its outcome is seen.
func (c *Context) noteFence(f uint64) {
	c.unchecked = append(c.unchecked, f)
	for len(c.unchecked) > maxUnchecked {
		err := c.screen.ws.Wait(c.unchecked[0], 0)
		if errors.Is(err, ErrTimeout) {
			break // still running: keep it
		}
		if err != nil && c.asyncErr == nil {
			c.asyncErr = fmt.Errorf("tg: job with fence %d failed: %w", c.unchecked[0], err)
		}
		c.unchecked = c.unchecked[1:]
	}
}

// finishFences waits for fence f and every earlier fence of this context
// whose outcome is unseen, and returns the first failure (a fence that
// failed, or the wait timing out).
func (c *Context) finishFences(f uint64, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	remaining := func() time.Duration {
		if timeout < 0 {
			return timeout // forever
		}
		return max(0, time.Until(deadline))
	}
	first := c.asyncErr
	c.asyncErr = nil
	waited := false
	n := 0
	for _, p := range c.unchecked {
		if p > f {
			break
		}
		err := c.screen.ws.Wait(p, remaining())
		if errors.Is(err, ErrTimeout) {
			if first == nil {
				first = fmt.Errorf("tg: waiting for fence %d: %w", p, err)
			}
			break
		}
		if err != nil && first == nil {
			first = fmt.Errorf("tg: waiting for fence %d: %w", p, err)
		}
		waited = waited || p == f
		n++
	}
	c.unchecked = append(c.unchecked[:0], c.unchecked[n:]...)
	if !waited && first == nil {
		// A fence this context does not track (another context's).
		if err := c.screen.ws.Wait(f, remaining()); err != nil {
			first = fmt.Errorf("tg: waiting for fence %d: %w", f, err)
		}
	}
	return first
}

// Kernel reset status values (KernelParamResetStatus), as the kernel's
// ParamResetStatus reports them.
const (
	kernelResetNone     = 0
	kernelResetGuilty   = 1
	kernelResetInnocent = 2
)

// GetDeviceResetStatus implements pipe.Context (Gallium's
// get_device_reset_status): whether the kernel has lost this context's
// GPU context, and whose fault that was. A failing query (a Winsys without
// the parameter) reports NoReset.
func (c *Context) GetDeviceResetStatus() pipe.ResetStatus {
	v, err := c.screen.ws.GetParam(KernelParamResetStatus)
	if err != nil {
		return pipe.NoReset
	}
	switch v {
	case kernelResetNone:
		return pipe.NoReset
	case kernelResetGuilty:
		return pipe.GuiltyContextReset
	case kernelResetInnocent:
		return pipe.InnocentContextReset
	}
	return pipe.UnknownContextReset
}
