package hw

import (
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
)

func TestMMUTranslate(t *testing.T) {
	k := newTestKernel(t, 1, 4<<20)
	roVA, ro := k.bo(2*pageSize, false)
	rwVA, rw := k.bo(pageSize, true)
	ro[5], ro[pageSize+7], rw[3] = 0xAA, 0xBB, 0xCC
	m := newMMU(k.mem, EngineRender)
	m.setContext(k.ctx, k.l1)

	tests := []struct {
		name  string
		va    uint32
		write bool
		want  byte // byte at the translated PA
		fault bool
	}{
		{"read first page", roVA + 5, false, 0xAA, false},
		{"read second page", roVA + pageSize + 7, false, 0xBB, false},
		{"read writable", rwVA + 3, false, 0xCC, false},
		{"write writable", rwVA + 3, true, 0xCC, false},
		{"write read-only", roVA + 5, true, 0, true},
		{"guard page (L2 invalid)", roVA + 2*pageSize, false, 0, true},
		{"null page", 0x10, false, 0, true},
		{"L1 invalid", 0x8000_0000, false, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for pass := 0; pass < 2; pass++ { // second pass hits the TLB
				pa, f := m.translate(tc.va, tc.write)
				if tc.fault {
					if f == nil {
						t.Fatalf("pass %d: translate(%#x) = %#x, want fault", pass, tc.va, pa)
					}
					if f.va != tc.va || f.write != tc.write || f.ctx != k.ctx || f.engine != EngineRender {
						t.Fatalf("fault = %+v", *f)
					}
					continue
				}
				if f != nil {
					t.Fatalf("pass %d: unexpected fault %v", pass, f)
				}
				if k.mem[pa] != tc.want {
					t.Fatalf("pass %d: byte at PA %#x = %#x, want %#x", pass, pa, k.mem[pa], tc.want)
				}
			}
		})
	}

	// Cross-page reads and writes.
	buf := make([]byte, 8)
	if f := m.read(roVA+pageSize-3, buf); f != nil {
		t.Fatal(f)
	}
	if f := m.write(roVA+pageSize-2, buf[:4]); f == nil {
		t.Fatal("write across read-only pages succeeded")
	}
	// A read-only TLB entry must not satisfy a write.
	if _, f := m.translate(roVA, false); f != nil {
		t.Fatal(f)
	}
	if _, f := m.translate(roVA, true); f == nil {
		t.Fatal("write through a cached read-only entry succeeded")
	}
	// qpu.Mem view.
	if _, ok := m.Read32(0x20); ok {
		t.Fatal("Read32 of the null page succeeded")
	}
	if !m.Write32(rwVA, 0x12345678) {
		t.Fatal("Write32 failed")
	}
	if v, ok := m.Read32(rwVA); !ok || v != 0x12345678 {
		t.Fatalf("Read32 = %#x, %v", v, ok)
	}
}

func TestMMUFaultAbandonsJob(t *testing.T) {
	k := newTestKernel(t, 2, 8<<20)
	got := make(chan struct{}, 4)
	k.g.SetInterruptHandler(func() { got <- struct{}{} })
	k.g.WriteReg(RegIntrEnable, IntrMMUFault|IntrEvent)
	evVA, ev := k.bo(pageSize, true)
	k.setContext(EngineBin)
	// An indirect buffer at an unmapped VA faults; the following packet runs.
	k.submit(EngineBin, PacketHeader(PktIndirectBuffer, 2), 0x0040_0000, 64)
	k.submit(EngineBin, PacketHeader(PktSignal, 2), evVA, 42)
	k.idle(EngineBin)
	if st := k.g.ReadReg(RegIntrStatus); st&IntrMMUFault == 0 {
		t.Fatalf("INTR_STATUS = %#x, want MMU_FAULT", st)
	}
	if va := k.g.ReadReg(RegMMUFaultVA); va != 0x0040_0000 {
		t.Fatalf("MMU_FAULT_VA = %#x", va)
	}
	if c := k.g.ReadReg(RegMMUFaultCtx); c != k.ctx {
		t.Fatalf("MMU_FAULT_CTX = %d", c)
	}
	if s := k.g.ReadReg(RegMMUFaultStatus); s != EngineBin<<FaultStatusEngineShift {
		t.Fatalf("MMU_FAULT_STATUS = %#x", s)
	}
	// The IB itself was unmapped: the fault happened in the IB packet,
	// which names the IB.
	if ib := k.g.ReadReg(RegMMUFaultIB); ib != 0x0040_0000 {
		t.Fatalf("MMU_FAULT_IB = %#x, want the IB's 0x400000", ib)
	}
	if ev[0] != 42 {
		t.Fatalf("SIGNAL after the faulting IB did not run")
	}
	select {
	case <-got:
	case <-timeAfter():
		t.Fatal("no interrupt")
	}
}

func TestRenderFaultThenRecovery(t *testing.T) {
	k := newTestKernel(t, 2, 16<<20)
	// A render list that stores colour to a read-only buffer faults on
	// the render engine; the EVENT_WRITE after the IB still runs and the
	// next job renders normally.
	roVA, _ := k.bo(64*64*4, false)
	var rcl cl.Builder
	cl.Emit(&rcl, cl.TileRenderingModeConfiguration{Width: 64, Height: 64})
	cl.Emit(&rcl, cl.ClearColors{Color: 0xFFFFFFFF})
	cl.Emit(&rcl, cl.TileCoordinates{})
	cl.Emit(&rcl, cl.StoreTileBufferGeneral{Buffer: cl.BufferColor, Address: roVA, Stride: 256})
	cl.Emit(&rcl, cl.Halt{})
	rclVA := k.boWith(rcl.Buf, false)
	evVA, ev := k.bo(pageSize, true)
	k.setContext(EngineRender)
	k.submit(EngineRender, PacketHeader(PktIndirectBuffer, 2), rclVA, uint32(len(rcl.Buf)))
	k.submit(EngineRender, PacketHeader(PktEventWrite, 3), 0, evVA, 9)
	k.idle(EngineRender)
	if st := k.g.ReadReg(RegIntrStatus); st&IntrMMUFault == 0 {
		t.Fatalf("INTR_STATUS = %#x, want MMU_FAULT", st)
	}
	if s := k.g.ReadReg(RegMMUFaultStatus); s != FaultStatusWrite|EngineRender<<FaultStatusEngineShift {
		t.Fatalf("MMU_FAULT_STATUS = %#x", s)
	}
	if va := k.g.ReadReg(RegMMUFaultVA); va < roVA || va >= roVA+64*64*4 {
		t.Fatalf("MMU_FAULT_VA = %#x, not in the read-only buffer", va)
	}
	if ib := k.g.ReadReg(RegMMUFaultIB); ib != rclVA {
		t.Fatalf("MMU_FAULT_IB = %#x, want the render list's %#x", ib, rclVA)
	}
	if ev[0] != 9 {
		t.Fatal("EVENT_WRITE after the faulting IB did not run")
	}
	k.g.WriteReg(RegMMUFaultPop, 1)
	k.g.WriteReg(RegIntrAck, ^uint32(0))
	res := k.renderFrame(&testFrame{width: 64, height: 64, draws: []testDraw{{mode: cl.PrimTriangles, verts: tri(-1, -1, 1, -1, -1, 1)}}})
	if p := res.pixel(64, 5, 5); p[3] != 255 {
		t.Fatalf("frame after a fault: pixel %v", p)
	}
}
