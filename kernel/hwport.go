package kernel

import "github.com/tilegpu/tilegpu/hw"

// hwMachine adapts *hw.GPU to the kernel's machine interface.
type hwMachine struct{ g *hw.GPU }

func (m hwMachine) Memory() []byte               { return m.g.Memory() }
func (m hwMachine) WriteReg(r reg, v uint32)     { m.g.WriteReg(hw.Reg(r), v) }
func (m hwMachine) ReadReg(r reg) uint32         { return m.g.ReadReg(hw.Reg(r)) }
func (m hwMachine) SetInterruptHandler(h func()) { m.g.SetInterruptHandler(h) }
func (m hwMachine) ZeroMemory(pa, n uint32)      { m.g.ZeroMemory(pa, n) }

// memoryZeroer is implemented by machines that can zero physical memory
// without writing it (hw's mapped arena hands whole pages back to the OS),
// so that a large BO costs RAM only once the GPU or the client writes it.
type memoryZeroer interface{ ZeroMemory(pa, n uint32) }

// zeroMemory makes physical memory [pa, pa+n) read as zero.
func (d *Device) zeroMemory(pa, n uint32) {
	if z, ok := d.m.(memoryZeroer); ok {
		z.ZeroMemory(pa, n)
		return
	}
	clear(d.mem[pa : pa+n])
}

// NewDevice takes ownership of gpu's registers, memory and interrupt line
// and starts the dispatcher and the watchdog. The caller still owns gpu
// and closes it after Device.Close.
func NewDevice(gpu *hw.GPU, opts Options) *Device {
	return newDevice(hwMachine{gpu}, opts)
}
