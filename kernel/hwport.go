package kernel

import "github.com/tilegpu/tilegpu/hw"

// hwMachine adapts *hw.GPU to the kernel's machine interface.
type hwMachine struct{ g *hw.GPU }

func (m hwMachine) Memory() []byte               { return m.g.Memory() }
func (m hwMachine) WriteReg(r reg, v uint32)     { m.g.WriteReg(hw.Reg(r), v) }
func (m hwMachine) ReadReg(r reg) uint32         { return m.g.ReadReg(hw.Reg(r)) }
func (m hwMachine) SetInterruptHandler(h func()) { m.g.SetInterruptHandler(h) }

// NewDevice takes ownership of gpu's registers, memory and interrupt line
// and starts the dispatcher and the watchdog. The caller still owns gpu
// and closes it after Device.Close.
func NewDevice(gpu *hw.GPU, opts Options) *Device {
	return newDevice(hwMachine{gpu}, opts)
}
