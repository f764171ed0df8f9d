package hw

import (
	"encoding/binary"
	"testing"
)

// Two contexts fault before the kernel looks: the fault queue reports
// both, one entry per context (the registers used to latch only the last
// fault, so the first context escaped blame).
func TestMMUFaultQueueKeepsEveryContext(t *testing.T) {
	k := newTestKernel(t, 1, 8<<20)
	evVA, ev := k.bo(pageSize, true)
	for _, ctx := range []uint32{7, 8, 7} {
		k.submit(EngineBin, PacketHeader(PktSetContext, 2), ctx, k.l1)
		k.submit(EngineBin, PacketHeader(PktIndirectBuffer, 2), 0x0040_0000+ctx<<12, 64)
	}
	k.submit(EngineBin, PacketHeader(PktSignal, 2), evVA, 1)
	k.idle(EngineBin)
	if ev[0] != 1 {
		t.Fatal("the packet after the faulting IBs did not run")
	}
	if n := k.g.ReadReg(RegMMUFaultCount); n != 2 {
		t.Fatalf("MMU_FAULT_COUNT = %#x, want 2 (contexts 7 and 8, context 7 once)", n)
	}
	for _, want := range []struct{ ctx, va uint32 }{{7, 0x0040_7000}, {8, 0x0040_8000}} {
		if st := k.g.ReadReg(RegIntrStatus); st&IntrMMUFault == 0 {
			t.Fatalf("INTR_STATUS = %#x with faults queued", st)
		}
		ctx, va := k.g.ReadReg(RegMMUFaultCtx), k.g.ReadReg(RegMMUFaultVA)
		if ctx != want.ctx || va != want.va || k.g.ReadReg(RegMMUFaultStatus) != EngineBin<<FaultStatusEngineShift {
			t.Errorf("head fault: ctx %d VA %#x, want ctx %d VA %#x", ctx, va, want.ctx, want.va)
		}
		// Acknowledging does not clear the interrupt while faults remain.
		k.g.WriteReg(RegIntrAck, IntrMMUFault)
		if k.g.ReadReg(RegIntrStatus)&IntrMMUFault == 0 {
			t.Error("INTR_MMU_FAULT cleared with faults still queued")
		}
		k.g.WriteReg(RegMMUFaultPop, 1)
	}
	k.g.WriteReg(RegIntrAck, IntrMMUFault)
	if n, st := k.g.ReadReg(RegMMUFaultCount), k.g.ReadReg(RegIntrStatus); n != 0 || st&IntrMMUFault != 0 {
		t.Errorf("after popping both: count %#x, INTR_STATUS %#x", n, st)
	}
}

// The queue holds FaultQueueDepth contexts; more set the overflow flag
// until it drains.
func TestMMUFaultQueueOverflow(t *testing.T) {
	g := New(Config{MemorySize: 1 << 20, Cores: 1})
	defer g.Close()
	for ctx := uint32(1); ctx <= FaultQueueDepth+3; ctx++ {
		g.fault(&pageFault{va: 0x1000, ctx: ctx})
	}
	if n := g.ReadReg(RegMMUFaultCount); n != FaultQueueDepth|FaultCountOverflow {
		t.Fatalf("MMU_FAULT_COUNT = %#x", n)
	}
	for range FaultQueueDepth {
		g.WriteReg(RegMMUFaultPop, 0)
	}
	if n := g.ReadReg(RegMMUFaultCount); n != 0 {
		t.Fatalf("MMU_FAULT_COUNT after draining = %#x", n)
	}
}

// A write to MMU_TLB_INVALIDATE empties every MMU's TLB before its next
// access: a translation cached before the kernel cleared the PTE must not
// survive it.
func TestTLBShootdown(t *testing.T) {
	k := newTestKernel(t, 1, 4<<20)
	va, _ := k.bo(pageSize, true)
	m := newMMU(k.mem, EngineRender)
	m.useEpoch(&k.g.tlbEpoch)
	m.setContext(k.ctx, k.l1)
	if _, f := m.translate(va, true); f != nil {
		t.Fatal(f)
	}
	// The kernel unmaps the page: clear its L2 entry.
	l1e := binary.LittleEndian.Uint32(k.mem[k.l1+(va>>22)*4:])
	binary.LittleEndian.PutUint32(k.mem[l1e&^pageMask+((va>>12)&0x3FF)*4:], 0)
	if _, f := m.translate(va, true); f != nil {
		t.Fatal("the TLB entry was dropped without a shootdown (this test needs the TLB to hold it)")
	}
	k.g.WriteReg(RegMMUTLBInvalidate, k.ctx)
	if _, f := m.translate(va, true); f == nil {
		t.Fatal("translation survived MMU_TLB_INVALIDATE")
	}
	if m.PageEpoch() != 1 {
		t.Errorf("PageEpoch = %d, want 1", m.PageEpoch())
	}
}
