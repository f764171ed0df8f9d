package kernel

// machine is the register, memory and interrupt interface of the GPU as the
// kernel uses it: exactly the documented surface of *hw.GPU
// (docs/interfaces.md "hw"). Register numbers are hw.Reg values; a test
// checks they agree with package hw. Keeping the kernel's logic behind this
// interface lets its tests also drive a scripted command processor that
// injects faults, hangs and BIN_OOM on demand.
type machine interface {
	Memory() []byte
	WriteReg(r reg, v uint32)
	ReadReg(r reg) uint32
	SetInterruptHandler(h func())
}

// reg is a register offset, numerically equal to hw.Reg.
type reg uint32

// Ring registers of engine e's priority-p ring (hardware.md §2): priority 0
// keeps the original offsets 0x100 + e·0x10, priority p adds p·0x20;
// the later engines' rings follow at 0x140 + (e−2)·0x20 + p·0x10
// (hardware.md §9, §10).
func ringReg(e, p int, off reg) reg {
	if e >= engineCompute {
		return 0x140 + reg(e-engineCompute)*0x20 + reg(p)*0x10 + off
	}
	return 0x100 + reg(p)*0x20 + reg(e)*0x10 + off
}
func regRingBase(e, p int) reg { return ringReg(e, p, 0x0) }
func regRingSize(e, p int) reg { return ringReg(e, p, 0x4) }
func regRingRptr(e, p int) reg { return ringReg(e, p, 0x8) }
func regRingWptr(e, p int) reg { return ringReg(e, p, 0xC) }

// regCPStatus is engine e's CP_STATUS: cpStatusBusy while a packet runs,
// with that packet's ring priority in the low bits.
func regCPStatus(e int) reg { return 0x900 + 4*reg(e) }

const (
	cpStatusBusy     uint32 = 1 << 31
	cpStatusPrioMask uint32 = 0xF
)

const (
	regIntrStatus       reg = 0x200
	regIntrAck          reg = 0x204
	regIntrEnable       reg = 0x208
	regMMUFaultVA       reg = 0x300
	regMMUFaultCtx      reg = 0x304
	regMMUFaultStatus   reg = 0x308
	regMMUFaultCount    reg = 0x30C // faults queued; faultCountOverflow when some were dropped
	regMMUFaultPop      reg = 0x310 // W: drop the oldest queued fault
	regMMUFaultIB       reg = 0x318 // IB the oldest queued fault happened in (0: a ring packet)
	regMMUTLBInvalidate reg = 0x314 // W: TLB shootdown in every engine and worker
	regCLErrorCtx       reg = 0x340
	regCLErrorStatus    reg = 0x344
	regCLErrorIB        reg = 0x348
	regBinOverflowAddr  reg = 0x400
	regBinOverflowSize  reg = 0x404
	regTimestampLo      reg = 0x500
	regTimestampHi      reg = 0x504
	regReset            reg = 0x700
	regNumCores         reg = 0x800
	regNumQPUs          reg = 0x804
)

// Interrupt bits (hardware.md §2).
const (
	intrEvent    uint32 = 1 << 0
	intrMMUFault uint32 = 1 << 1
	intrBinOOM   uint32 = 1 << 2
	intrCLError  uint32 = 1 << 3
	intrAll             = intrEvent | intrMMUFault | intrBinOOM | intrCLError

	faultStatusWrite       = 1 << 0
	faultStatusEngineShift = 8
	faultCountOverflow     = 1 << 31
)

// Engines.
const (
	engineBin     = 0
	engineRender  = 1
	engineCompute = 2 // compute jobs (compute.go)
	engineDMA     = 3 // DMA jobs (dma.go)
	numEngines    = 4
	allEngines    = 1<<numEngines - 1
)

var engineNames = [numEngines]string{"BIN", "RENDER", "COMPUTE", "DMA"}

// Ring priority levels: one ring per engine and level; the command
// processors serve higher levels first at packet boundaries.
const (
	prioNormal    = 0
	prioHigh      = 1
	numPriorities = 2
)
