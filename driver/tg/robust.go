package tg

import (
	"errors"

	"github.com/tilegpu/tilegpu/pipe"
)

// ErrContextDestroyed is returned by every Context call that would reach
// the kernel after Destroy: a destroyed context never touches GPU memory
// again, and a late call from its owner is an error, not a crash.
var ErrContextDestroyed = errors.New("tg: the context is destroyed")

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
