package gles

import (
	"errors"
	"fmt"
	"time"

	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/pipe"
)

// Context loss (GL_KHR_robustness / GL_EXT_robustness, with the
// LOSE_CONTEXT_ON_RESET strategy). The gl.Context applications get from
// GL is a dispatch table, as in Mesa: it forwards to the live Context
// until the context is lost — the kernel reset it after a fault, CL error
// or hang (noticed when the driver reports an error, or when the
// application asks GetGraphicsResetStatus) — or destroyed. Then it
// switches, once and for good, to the "lost" table (lost_gen.go, generated
// from gl.Context, so every method is covered): every call does nothing,
// records GL_CONTEXT_LOST for GetError and returns zero values.

// ErrContextLost is wrapped by the errors LostError returns.
var ErrContextLost = errors.New("gles: context lost")

// Robustness is the extension interface the gl.Context returned by GL
// implements: gl.Context mirrors x/mobile/gl, which has no robustness
// entry points.
type Robustness interface {
	// GetGraphicsResetStatus is glGetGraphicsResetStatusKHR: the first call
	// after a reset returns GUILTY_CONTEXT_RESET, INNOCENT_CONTEXT_RESET or
	// UNKNOWN_CONTEXT_RESET; later calls return NO_ERROR (the reset is over)
	// while the context stays lost.
	GetGraphicsResetStatus() gl.Enum
}

// dispatch is the gl.Context of GL(): the live context or the lost table.
type dispatch struct {
	gl.Context
	c *Context
}

// GetGraphicsResetStatus implements Robustness.
func (d *dispatch) GetGraphicsResetStatus() gl.Enum { return d.c.GetGraphicsResetStatus() }

var (
	_ gl.Context = (*dispatch)(nil)
	_ Robustness = (*dispatch)(nil)
	_ gl.Context = (*lostContext)(nil)
)

// lostContext is the table of a lost or destroyed context.
type lostContext struct{ err gl.Enum }

func (l *lostContext) lost() { l.err = gl.CONTEXT_LOST }

// GetError returns GL_CONTEXT_LOST once for the calls since the last
// GetError (and once for the loss itself), then NO_ERROR: a loop that
// drains GetError ends.
func (l *lostContext) GetError() gl.Enum {
	e := l.err
	l.err = gl.NO_ERROR
	return e
}

// GL returns the context as applications should use it: a gl.Context that
// also implements Robustness and becomes a harmless no-op (recording
// GL_CONTEXT_LOST) once the context is lost or destroyed.
func (c *Context) GL() gl.Context { return c.disp }

// GetGraphicsResetStatus is glGetGraphicsResetStatusKHR (see Robustness).
// It asks the driver each time, so an application polling it once a frame
// learns of a reset without any other call failing first.
func (c *Context) GetGraphicsResetStatus() gl.Enum {
	if !c.isLost {
		c.checkReset(nil)
	}
	if c.resetStatus != gl.NO_ERROR && !c.resetReported {
		c.resetReported = true
		return c.resetStatus
	}
	return gl.NO_ERROR
}

// LostError returns nil while the context is usable, else an error
// wrapping ErrContextLost that says why (the driver's error when one was
// seen: the kernel names the context, the job and what happened). Unlike
// GetGraphicsResetStatus it does not consume the reset report.
func (c *Context) LostError() error {
	if !c.isLost {
		c.checkReset(nil)
	}
	if !c.isLost {
		return nil
	}
	return c.lostErr
}

// checkReset asks the driver whether the context was reset and loses it
// if so; cause is the driver error that prompted the question (nil when
// the application asked), which says what happened.
func (c *Context) checkReset(cause error) {
	if c.isLost && cause != nil && !c.lostHasCause && c.resetStatus != gl.NO_ERROR {
		// Lost when the application asked; the driver now says why.
		c.lostErr = fmt.Errorf("%w: %w", c.lostErr, cause)
		c.lostHasCause = true
	}
	if c.isLost || c.pipe == nil {
		return
	}
	var status gl.Enum
	switch c.pipe.GetDeviceResetStatus() {
	case pipe.NoReset:
		return
	case pipe.GuiltyContextReset:
		status = gl.GUILTY_CONTEXT_RESET
	case pipe.InnocentContextReset:
		status = gl.INNOCENT_CONTEXT_RESET
	default:
		status = gl.UNKNOWN_CONTEXT_RESET
	}
	what := map[gl.Enum]string{gl.GUILTY_CONTEXT_RESET: "its own work faulted or hung the GPU",
		gl.INNOCENT_CONTEXT_RESET: "another context's GPU reset took its work",
		gl.UNKNOWN_CONTEXT_RESET:  "the GPU was reset"}[status]
	err := fmt.Errorf("%w: %s", ErrContextLost, what)
	if cause != nil {
		err = fmt.Errorf("%w: %s: %w", ErrContextLost, what, cause)
	}
	c.lose(status, err)
	c.lostHasCause = cause != nil
}

// lose switches the dispatch to the lost table.
func (c *Context) lose(status gl.Enum, err error) {
	if c.isLost {
		return
	}
	c.isLost = true
	c.resetStatus = status
	c.lostErr = err
	c.lost.err = gl.CONTEXT_LOST
	c.disp.Context = &c.lost
}

// finishTimeout is how long Finish waits: without bound, as glFinish does;
// the kernel's watchdog ends every job (see tg's readTimeout).
const finishTimeout time.Duration = -1

// FinishFrame ends a frame, as a swap-buffers does: it submits the queued
// work with the last job marked as the end of the frame (the kernel's
// skip-frame fault policy resumes after it), waits for it, and returns the
// first error of any job submitted since errors were last collected — also
// recorded as GL_OUT_OF_MEMORY and LastDriverError; a reset also loses the
// context.
func (c *Context) FinishFrame() error {
	flush := c.pipe.Flush
	if ff, ok := c.pipe.(interface{ FlushFrame() (pipe.Fence, error) }); ok {
		flush = ff.FlushFrame
	}
	f, err := flush()
	if err != nil {
		c.driverFailed(err, gl.OUT_OF_MEMORY)
	}
	if f != 0 {
		c.lastFence = f
	}
	if c.lastFence != 0 {
		if werr := c.pipe.FenceFinish(c.lastFence, finishTimeout); werr != nil {
			c.driverFailed(werr, gl.OUT_OF_MEMORY)
			if err == nil {
				err = werr
			}
		}
	}
	return err
}

// driverFailed records a driver error of a flush, finish, clear or read:
// the GL error, LastDriverError, and context loss when the failure was a
// reset.
func (c *Context) driverFailed(err error, e gl.Enum) {
	c.lastDriverErr = err
	c.recordError(e)
	c.checkReset(err)
}
