package hw

import (
	"encoding/binary"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// The DMA engine (docs/hardware.md §10), after AMD's SDMA: its command
// processor's indirect buffers are arrays of DMA_COMMAND descriptors, each
// a 2-D copy (rows of RowBytes from SrcAddress, SrcPitch apart, to
// DstAddress, DstPitch apart) or fill. Every access goes through the
// engine's MMU in the ring's context; it runs concurrently with the other
// engines.

// Limits of a DMA command.
const (
	// MaxDMABytes bounds RowBytes·Rows of one command.
	MaxDMABytes = 256 << 20
	// dmaCommandsPerIBLimit bounds the commands of one indirect buffer.
	dmaCommandsPerIBLimit = 1 << 16
)

// dmaRun executes the DMA list at va (size bytes).
func (e *engine) dmaRun(va, size uint32, gen uint64) error {
	if size == 0 || size%cl.SizeDMACommand != 0 || size/cl.SizeDMACommand > dmaCommandsPerIBLimit {
		return clErrorf("DMA list of %d bytes is not 1..%d DMA_COMMAND descriptors of %d bytes", size, dmaCommandsPerIBLimit, cl.SizeDMACommand)
	}
	var raw [cl.SizeDMACommand]byte
	var perf perfCounts
	defer perf.flushTo(e.g)
	for off := uint32(0); off < size; off += cl.SizeDMACommand {
		if f := e.mmu.read(va+off, raw[:]); f != nil {
			return f
		}
		var c cl.DMACommand
		if err := c.Unpack(raw[:]); err != nil {
			return clErrorf("DMA list at %#x: %v", va+off, err)
		}
		if err := e.dmaCommand(&c, binary.LittleEndian.Uint32(raw[:]), gen, &perf); err != nil {
			return err
		}
		perf.ctr[CtrDMACommands]++
	}
	return nil
}

// dmaCommand checks and executes one command; word0 is its first word
// (whose bits above Op are reserved).
func (e *engine) dmaCommand(c *cl.DMACommand, word0 uint32, gen uint64, perf *perfCounts) error {
	total := uint64(c.RowBytes) * uint64(c.Rows)
	switch {
	case word0>>8 != 0 || !c.Op.Valid():
		return clErrorf("DMA_COMMAND: operation word %#x (COPY 1 or FILL 2)", word0)
	case c.RowBytes == 0 || c.Rows == 0 || total > MaxDMABytes:
		return clErrorf("DMA_COMMAND: %d rows of %d bytes (1.. rows, 1.. bytes, at most %d in all)", c.Rows, c.RowBytes, MaxDMABytes)
	case c.RowBytes%4 != 0 || c.DstAddress%4 != 0 || c.DstPitch%4 != 0 ||
		(c.Op == cl.DMAOpCopy && (c.SrcAddress%4 != 0 || c.SrcPitch%4 != 0)):
		return clErrorf("DMA_COMMAND: addresses, pitches and row bytes must be multiples of 4")
	}
	for r := uint32(0); r < c.Rows; r++ {
		if e.aborted(gen) {
			return errAborted
		}
		dst := uint64(c.DstAddress) + uint64(r)*uint64(c.DstPitch)
		src := uint64(c.SrcAddress) + uint64(r)*uint64(c.SrcPitch)
		if dst+uint64(c.RowBytes) > 1<<32 || (c.Op == cl.DMAOpCopy && src+uint64(c.RowBytes) > 1<<32) {
			return clErrorf("DMA_COMMAND: row %d runs past the end of the address space", r)
		}
		if err := e.dmaRow(c, uint32(src), uint32(dst), perf); err != nil {
			return err
		}
	}
	e.g.notifyMemChanged()
	return nil
}

// dmaRow copies or fills one row, a page piece at a time.
func (e *engine) dmaRow(c *cl.DMACommand, src, dst uint32, perf *perfCounts) error {
	var fill [4]byte
	binary.LittleEndian.PutUint32(fill[:], c.Value)
	for left := c.RowBytes; left > 0; {
		n := min(left, pageSize-dst&pageMask)
		if c.Op == cl.DMAOpCopy {
			n = min(n, pageSize-src&pageMask)
		}
		d, f := e.mmu.page(dst, true)
		if f != nil {
			return f
		}
		d = d[:n] // page returns the bytes from dst to the end of its page
		if c.Op == cl.DMAOpCopy {
			s, f := e.mmu.page(src, false)
			if f != nil {
				return f
			}
			copy(d, s[:n])
			perf.ctr[CtrDMABytesRead] += uint64(n)
			src += n
		} else {
			for i := uint32(0); i < n; i += 4 {
				copy(d[i:i+4], fill[:])
			}
		}
		perf.ctr[CtrDMABytesWritten] += uint64(n)
		dst += n
		left -= n
	}
	return nil
}
