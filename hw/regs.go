package hw

// Reg is the offset of a 32-bit GPU register (docs/hardware.md §2).
type Reg uint32

// Engines. Each engine has one command processor serving one ring per
// priority level.
const (
	EngineBin     = 0
	EngineRender  = 1
	EngineCompute = 2 // the compute dispatch unit's command processor (csd.go)
	EngineDMA     = 3 // the copy engine (dma.go)
	numEngines    = 4

	// numGraphicsEngines: BIN and RENDER, whose ring registers interleave
	// by priority; COMPUTE's follow them (ringReg).
	numGraphicsEngines = 2
)

// Ring priority levels. Priority 0 is the ring the register map has always
// had; a command processor serves higher levels first (docs/hardware.md §3).
const (
	PriorityNormal = 0
	PriorityHigh   = 1
	NumPriorities  = 2
)

// Ring registers of (engine e, priority p) live at
// 0x100 + p·0x20 + e·0x10 for BIN and RENDER, so priority 0 keeps the
// original offsets; those of the later engines at 0x140 + (e−2)·0x20 +
// p·0x10 (COMPUTE 0x140, DMA 0x160).
const (
	ringRegBase     Reg = 0x100
	ringRegStride   Reg = 0x10 // between engines
	ringPrioStride  Reg = numGraphicsEngines * ringRegStride
	ringRegEnd          = ringRegBase + NumPriorities*ringPrioStride
	extraRingBase       = ringRegEnd // 0x140: the engines after BIN and RENDER
	extraRingStride     = NumPriorities * ringRegStride
	extraRingEnd        = extraRingBase + (numEngines-numGraphicsEngines)*extraRingStride
	ringRegBaseOff  Reg = 0x0
	ringRegSizeOff  Reg = 0x4
	ringRegRptrOff  Reg = 0x8
	ringRegWptrOff  Reg = 0xC
	cpStatusRegBase Reg = 0x900
)

func ringReg(e, p int, off Reg) Reg {
	if e >= numGraphicsEngines {
		return extraRingBase + Reg(e-numGraphicsEngines)*extraRingStride + Reg(p)*ringRegStride + off
	}
	return ringRegBase + Reg(p)*ringPrioStride + Reg(e)*ringRegStride + off
}

// decodeRingReg splits a ring register into engine, priority and offset.
func decodeRingReg(r Reg) (e, p int, off Reg, ok bool) {
	if r >= extraRingBase && r < extraRingEnd {
		r -= extraRingBase
		return numGraphicsEngines + int(r/extraRingStride), int(r % extraRingStride / ringRegStride), r % ringRegStride, true
	}
	if r < ringRegBase || r >= ringRegEnd {
		return 0, 0, 0, false
	}
	r -= ringRegBase
	return int(r % ringPrioStride / ringRegStride), int(r / ringPrioStride), r % ringRegStride, true
}

// RegRingBase is the PA of engine e's priority-0 ring (page aligned).
func RegRingBase(e int) Reg { return ringReg(e, 0, ringRegBaseOff) }

// RegRingSize is engine e's priority-0 ring size in bytes (power of two, ≥ 4096).
func RegRingSize(e int) Reg { return ringReg(e, 0, ringRegSizeOff) }

// RegRingRptr is engine e's priority-0 read pointer (byte offset), read only.
func RegRingRptr(e int) Reg { return ringReg(e, 0, ringRegRptrOff) }

// RegRingWptr is engine e's priority-0 write pointer; writing it rings the doorbell.
func RegRingWptr(e int) Reg { return ringReg(e, 0, ringRegWptrOff) }

// RegPrioRingBase is RING_BASE of engine e's priority-p ring.
func RegPrioRingBase(e, p int) Reg { return ringReg(e, p, ringRegBaseOff) }

// RegPrioRingSize is RING_SIZE of engine e's priority-p ring.
func RegPrioRingSize(e, p int) Reg { return ringReg(e, p, ringRegSizeOff) }

// RegPrioRingRptr is RING_RPTR of engine e's priority-p ring.
func RegPrioRingRptr(e, p int) Reg { return ringReg(e, p, ringRegRptrOff) }

// RegPrioRingWptr is RING_WPTR of engine e's priority-p ring (its doorbell).
func RegPrioRingWptr(e, p int) Reg { return ringReg(e, p, ringRegWptrOff) }

// RegCPStatus is engine e's CP_STATUS (read only): CPStatusBusy while the
// command processor executes a packet, with the priority of that packet's
// ring in CPStatusPriorityMask. A ring stalled on WAIT_MEM is not busy.
func RegCPStatus(e int) Reg { return cpStatusRegBase + 4*Reg(e) }

// CP_STATUS fields.
const (
	CPStatusBusy         uint32 = 1 << 31
	CPStatusPriorityMask uint32 = 0xF
)

// Global registers.
const (
	RegIntrStatus Reg = 0x200 // R: pending interrupt bits
	RegIntrAck    Reg = 0x204 // W: write 1s to clear
	RegIntrEnable Reg = 0x208 // RW: mask

	RegMMUFaultVA     Reg = 0x300 // R: VA of the oldest queued fault
	RegMMUFaultCtx    Reg = 0x304 // R: context id of the oldest queued fault
	RegMMUFaultStatus Reg = 0x308 // R: bit 0 write, bits 8..11 engine (oldest queued fault)
	RegMMUFaultCount  Reg = 0x30C // R: faults queued; FaultCountOverflow when some were dropped
	RegMMUFaultPop    Reg = 0x310 // W: drop the oldest queued fault (any value)
	// RegMMUTLBInvalidate (W, any value) is a TLB shootdown: every engine's
	// and render worker's micro-TLB and every shader core's page cache
	// drop the translations they hold before their next access.
	RegMMUTLBInvalidate Reg = 0x314
	// RegMMUFaultIB (R) is the VA of the indirect buffer the faulting
	// engine was executing when the oldest queued fault happened (0: a
	// ring packet faulted). The engines go on with the next IBs while the
	// kernel has not looked yet, so the ring position cannot name the
	// faulting job; the IB does (as CL_ERROR_IB does for CL errors).
	RegMMUFaultIB Reg = 0x318

	RegCLErrorCtx    Reg = 0x340 // R: context id of the last CL_ERROR (0: none selected)
	RegCLErrorStatus Reg = 0x344 // R: bits 0..7 cause (CLErrorCause*), bits 8..11 engine
	RegCLErrorIB     Reg = 0x348 // R: VA of the indirect buffer abandoned (0: a ring packet)

	RegBinOverflowAddr Reg = 0x400 // W: VA of a new tile-allocation pool
	RegBinOverflowSize Reg = 0x404 // W: its size; writing it releases a binner waiting on BIN_OOM

	RegTimestampLo Reg = 0x500 // R: free-running nanosecond counter, low word
	RegTimestampHi Reg = 0x504 // R: high word

	RegPerfQPUInstructions   Reg = 0x600
	RegPerfQPUInstructionsHi Reg = 0x604
	RegPerfTriangles         Reg = 0x608
	RegPerfTrianglesHi       Reg = 0x60C
	RegPerfTiles             Reg = 0x610
	RegPerfTilesHi           Reg = 0x614
	RegPerfFragments         Reg = 0x618
	RegPerfFragmentsHi       Reg = 0x61C
	RegPerfVertices          Reg = 0x620
	RegPerfVerticesHi        Reg = 0x624
	// Shader translation (hw/qpu translate.go): instructions executed by
	// translated code, programs translated, translation cache hits and
	// misses (a hit is identical code at the same address).
	RegPerfXlatInstructions   Reg = 0x628
	RegPerfXlatInstructionsHi Reg = 0x62C
	RegPerfXlatPrograms       Reg = 0x630
	RegPerfXlatProgramsHi     Reg = 0x634
	RegPerfXlatHits           Reg = 0x638
	RegPerfXlatHitsHi         Reg = 0x63C
	RegPerfXlatMisses         Reg = 0x640
	RegPerfXlatMissesHi       Reg = 0x644
	// Native shader code (hw/qpu native_amd64.go): instructions whose
	// whole work ran as native code, and runs of kernel uops compiled to
	// native code.
	RegPerfNativeInstructions   Reg = 0x648
	RegPerfNativeInstructionsHi Reg = 0x64C
	RegPerfNativeRuns           Reg = 0x650
	RegPerfNativeRunsHi         Reg = 0x654

	// Fixed-function counters (hidden-surface removal, rasteriser), from
	// 0x680 up.
	RegPerfHSRPrimitives    Reg = 0x680 // TILE_PRIMITIVEs dropped by hidden-surface removal
	RegPerfHSRPrimitivesHi  Reg = 0x684
	RegPerfRasterBlocks     Reg = 0x688 // 4×4 pixel blocks the rasteriser accepted whole
	RegPerfRasterBlocksHi   Reg = 0x68C
	RegPerfEarlyZRejected   Reg = 0x690 // fragments rejected by the depth test before shading
	RegPerfEarlyZRejectedHi Reg = 0x694
	// vertices the binner's coordinate shader ran on helper threads
	// (parallel binning, branch pix2)
	RegPerfBinParallelVertices   Reg = 0x698
	RegPerfBinParallelVerticesHi Reg = 0x69C

	RegReset    Reg = 0x700 // W: engine bit mask; abandon work, RPTR = WPTR
	RegNumCores Reg = 0x800 // R: render worker cores
	RegNumQPUs  Reg = 0x804 // R: shader thread slots (QPU_NUMBER range)
	// RegNumCounters (R) is the number of counters in the counter block
	// (PERF_COUNTER(c) at 0x1000 + 8·c, see RegPerfCounter).
	RegNumCounters Reg = 0x808
)

// Interrupt bits of INTR_STATUS / INTR_ACK / INTR_ENABLE.
const (
	IntrEvent    uint32 = 1 << 0 // EVENT_WRITE with the IRQ flag
	IntrMMUFault uint32 = 1 << 1 // page fault, see MMU_FAULT_*
	IntrBinOOM   uint32 = 1 << 2 // binner waits for BIN_OVERFLOW_ADDR/SIZE
	IntrCLError  uint32 = 1 << 3 // malformed ring packet or control list
)

// CL_ERROR_STATUS causes (bits 0..7): why the hardware abandoned work.
const (
	CLErrorCauseRing   uint32 = 1 // malformed ring packet or unusable ring
	CLErrorCauseList   uint32 = 2 // malformed bin, render or tile list, or record data
	CLErrorCauseShader uint32 = 3 // a shader misbehaved (bad program, TMU FIFO misuse, VPM or varying access out of range)

	CLErrorEngineShift = 8
)

// MMU_FAULT_STATUS fields.
const (
	FaultStatusWrite       uint32 = 1 << 0
	FaultStatusEngineShift        = 8
)

// The MMU fault queue (docs/hardware.md §1): FaultQueueDepth entries, at
// most one per context; MMU_FAULT_COUNT has FaultCountOverflow set once a
// fault found the queue full (sticky until the queue drains).
const (
	FaultQueueDepth           = 64
	FaultCountOverflow uint32 = 1 << 31
)

// Ring packet opcodes (docs/hardware.md §3).
const (
	PktNOP            = 0x10
	PktSetContext     = 0x11
	PktIndirectBuffer = 0x12
	PktEventWrite     = 0x13
	PktWaitMem        = 0x14
	PktSignal         = 0x15
)

// PacketHeader builds a type-7 ring packet header.
func PacketHeader(opcode uint8, payloadWords uint16) uint32 {
	return 0x7<<28 | uint32(opcode)<<16 | uint32(payloadWords)
}
