package hw

import (
	"encoding/binary"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// dmaList packs commands into a list buffer and returns its VA and size.
func dmaList(k *testKernel, cmds ...cl.DMACommand) (uint32, uint32) {
	buf := make([]byte, len(cmds)*cl.SizeDMACommand)
	for i, c := range cmds {
		c.Pack(buf[i*cl.SizeDMACommand:])
	}
	return k.boWith(buf, false), uint32(len(buf))
}

func (k *testKernel) runDMA(va, size uint32) {
	k.setContext(EngineDMA)
	k.submit(EngineDMA, PacketHeader(PktIndirectBuffer, 2), va, size)
	k.idle(EngineDMA)
}

func TestDMACopyAndFill(t *testing.T) {
	k := newTestKernel(t, 1, 16<<20)
	const n = 3 * pageSize
	srcVA, src := k.bo(n, false)
	dstVA, dst := k.bo(n, true)
	for i := range src[:n] {
		src[i] = byte(i*7 + i>>8)
	}
	before := k.g.counters[CtrDMABytesWritten].Load()
	// A linear copy across pages at unaligned-to-page offsets, a 2-D copy
	// of 5 rows of 24 bytes with different pitches, and a fill.
	va, size := dmaList(k,
		cl.DMACommand{Op: cl.DMAOpCopy, SrcAddress: srcVA + 100, DstAddress: dstVA + 4000, RowBytes: 5000, Rows: 1},
		cl.DMACommand{Op: cl.DMAOpCopy, SrcAddress: srcVA, SrcPitch: 40, DstAddress: dstVA + 10000, DstPitch: 100, RowBytes: 24, Rows: 5},
		cl.DMACommand{Op: cl.DMAOpFill, DstAddress: dstVA + 11000, DstPitch: 8, RowBytes: 4, Rows: 10, Value: 0xA1B2C3D4},
	)
	k.runDMA(va, size)
	if st := k.g.ReadReg(RegIntrStatus); st&(IntrCLError|IntrMMUFault) != 0 {
		t.Fatalf("INTR_STATUS %#x", st)
	}
	for i := 0; i < 5000; i++ {
		if dst[4000+i] != src[100+i] {
			t.Fatalf("linear copy byte %d = %d, want %d", i, dst[4000+i], src[100+i])
		}
	}
	for r := 0; r < 5; r++ {
		for i := 0; i < 24; i++ {
			if dst[10000+100*r+i] != src[40*r+i] {
				t.Fatalf("2-D copy row %d byte %d", r, i)
			}
		}
		if dst[10000+100*r+24] != 0 {
			t.Fatalf("2-D copy wrote past row %d", r)
		}
	}
	for r := 0; r < 10; r++ {
		if got := binary.LittleEndian.Uint32(dst[11000+8*r:]); got != 0xA1B2C3D4 {
			t.Fatalf("fill row %d = %#x", r, got)
		}
		if got := binary.LittleEndian.Uint32(dst[11004+8*r:]); got != 0 {
			t.Fatalf("fill wrote between rows (%#x)", got)
		}
	}
	if got := k.g.counters[CtrDMABytesWritten].Load() - before; got != 5000+5*24+40 {
		t.Errorf("dma.bytes_written = %d, want %d", got, 5000+5*24+40)
	}
}

func TestDMAErrors(t *testing.T) {
	k := newTestKernel(t, 1, 16<<20)
	roVA, _ := k.bo(pageSize, false)
	dstVA, _ := k.bo(pageSize, true)
	// A write to a read-only page faults on DMA.
	va, size := dmaList(k, cl.DMACommand{Op: cl.DMAOpFill, DstAddress: roVA, RowBytes: 8, Rows: 1})
	k.runDMA(va, size)
	if st := k.g.ReadReg(RegMMUFaultStatus); k.g.ReadReg(RegIntrStatus)&IntrMMUFault == 0 || st != FaultStatusWrite|EngineDMA<<FaultStatusEngineShift {
		t.Errorf("fill of a read-only page: INTR %#x fault status %#x", k.g.ReadReg(RegIntrStatus), st)
	}
	k.g.WriteReg(RegMMUFaultPop, 1)
	k.g.WriteReg(RegIntrAck, ^uint32(0))
	// A copy running past its mapping faults (the guard page).
	va, size = dmaList(k, cl.DMACommand{Op: cl.DMAOpCopy, SrcAddress: dstVA, DstAddress: dstVA, RowBytes: 8, Rows: 2, SrcPitch: pageSize})
	k.runDMA(va, size)
	if k.g.ReadReg(RegIntrStatus)&IntrMMUFault == 0 || k.g.ReadReg(RegMMUFaultVA) != dstVA+pageSize {
		t.Errorf("copy past the mapping: INTR %#x VA %#x", k.g.ReadReg(RegIntrStatus), k.g.ReadReg(RegMMUFaultVA))
	}
	k.g.WriteReg(RegMMUFaultPop, 1)
	k.g.WriteReg(RegIntrAck, ^uint32(0))
	for _, c := range []cl.DMACommand{
		{Op: 3, DstAddress: dstVA, RowBytes: 4, Rows: 1},
		{Op: cl.DMAOpFill, DstAddress: dstVA + 2, RowBytes: 4, Rows: 1},
		{Op: cl.DMAOpFill, DstAddress: dstVA, RowBytes: 0, Rows: 1},
		{Op: cl.DMAOpFill, DstAddress: dstVA, RowBytes: 1 << 20, Rows: 1 << 10},
		{Op: cl.DMAOpCopy, SrcAddress: dstVA, DstAddress: 0xFFFFFFF0, RowBytes: 32, Rows: 1},
	} {
		va, size := dmaList(k, c)
		k.runDMA(va, size)
		if st := k.g.ReadReg(RegCLErrorStatus); k.g.ReadReg(RegIntrStatus)&IntrCLError == 0 || st != CLErrorCauseList|EngineDMA<<CLErrorEngineShift {
			t.Errorf("%+v: no CL error on DMA (status %#x)", c, st)
		}
		k.g.WriteReg(RegIntrAck, ^uint32(0))
	}
}
