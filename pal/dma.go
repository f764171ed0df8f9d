package pal

import (
	"github.com/tilegpu/tilegpu/kernel"
)

// The DMA queue: on a queue of EngineDma the copy commands (CmdCopyMemory,
// CmdFillMemory, CmdCopyImage, CmdCopyMemoryToImage, CmdCopyImageToMemory)
// run on the GPU's DMA engine (kernel SubmitDMA, docs/hardware.md §10),
// concurrently with graphics and compute work of other queues, ordered by
// queue semaphores and the kernel's per-BO implicit synchronisation. A
// copy the engine cannot express (offsets, sizes or pitches that are not
// multiples of 4) and CmdUpdateMemory (whose data lives in the command
// buffer) run on the CPU in order, as on the other queues.

// dmaCmd is one DMA engine command in terms of GpuMemory: rows of
// rowBytes, row r at srcOff + r·srcPitch and dstOff + r·dstPitch.
type dmaCmd struct {
	fill               bool
	value              uint32
	src, dst           *GpuMemory
	srcOff, dstOff     uint64
	srcPitch, dstPitch uint64
	rowBytes, rows     uint64
}

// onGPU reports whether every command of op fits the DMA engine.
func (op *copyOp) onGPU() bool {
	if len(op.dma) == 0 {
		return false
	}
	for _, c := range op.dma {
		a := c.dstOff | c.dstPitch | c.rowBytes
		if !c.fill {
			a |= c.srcOff | c.srcPitch
		}
		if a%4 != 0 || c.rowBytes*c.rows > kernel.MaxDMABytes || c.dstOff+c.dstPitch*c.rows > 1<<32 || c.srcOff+c.srcPitch*c.rows > 1<<32 {
			return false
		}
	}
	return true
}

// runDMA submits copy job j to the DMA engine. q.mu is held.
func (q *Queue) runDMA(j *job) error {
	// Event waits and timestamps recorded before the copies go first.
	if err := q.flushMemOps(); err != nil {
		return err
	}
	a := kernel.SubmitDMAArgs{BOs: j.bos, InFences: q.inFences(onDMA)}
	// addCopy listed the source and destination memory in the job.
	index := func(m *GpuMemory) uint32 {
		for i, x := range j.mems {
			if x == m {
				return uint32(i)
			}
		}
		return uint32(len(j.mems)) // not listed: the kernel rejects the index
	}
	for _, c := range j.copy.dma {
		k := kernel.DMACommand{Fill: c.fill, Value: c.value,
			Dst: kernel.BOAddress{BOIndex: index(c.dst), Offset: uint32(c.dstOff)}, DstPitch: uint32(c.dstPitch),
			RowBytes: uint32(c.rowBytes), Rows: uint32(c.rows)}
		if !c.fill {
			k.Src, k.SrcPitch = kernel.BOAddress{BOIndex: index(c.src), Offset: uint32(c.srcOff)}, uint32(c.srcPitch)
		}
		a.Commands = append(a.Commands, k)
	}
	a.Tag = q.spanTag()
	if err := q.dev.file.SubmitDMA(&a); err != nil {
		return q.submitFailed(a.Tag, err)
	}
	q.waitFences = q.waitFences[:0]
	q.last, q.lastKind = a.OutFence, onDMA
	q.dmaJobs++
	return nil
}
