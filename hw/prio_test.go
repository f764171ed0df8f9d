package hw

import (
	"encoding/binary"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

func TestRingRegisterMap(t *testing.T) {
	tests := []struct {
		name string
		r    Reg
		want Reg
	}{
		{"BIN base p0", RegRingBase(EngineBin), 0x100},
		{"BIN wptr p0", RegRingWptr(EngineBin), 0x10C},
		{"RENDER size p0", RegRingSize(EngineRender), 0x114},
		{"RENDER rptr p0", RegRingRptr(EngineRender), 0x118},
		{"p0 is the original map", RegPrioRingBase(EngineRender, PriorityNormal), RegRingBase(EngineRender)},
		{"BIN base high", RegPrioRingBase(EngineBin, PriorityHigh), 0x120},
		{"BIN size high", RegPrioRingSize(EngineBin, PriorityHigh), 0x124},
		{"RENDER rptr high", RegPrioRingRptr(EngineRender, PriorityHigh), 0x138},
		{"RENDER wptr high", RegPrioRingWptr(EngineRender, PriorityHigh), 0x13C},
		{"CP_STATUS BIN", RegCPStatus(EngineBin), 0x900},
		{"CP_STATUS RENDER", RegCPStatus(EngineRender), 0x904},
		{"COMPUTE base p0", RegRingBase(EngineCompute), 0x140},
		{"COMPUTE wptr high", RegPrioRingWptr(EngineCompute, PriorityHigh), 0x15C},
		{"CP_STATUS COMPUTE", RegCPStatus(EngineCompute), 0x908},
		{"DMA base p0", RegRingBase(EngineDMA), 0x160},
		{"DMA rptr high", RegPrioRingRptr(EngineDMA, PriorityHigh), 0x178},
	}
	for _, tt := range tests {
		if tt.r != tt.want {
			t.Errorf("%s = %#x, want %#x", tt.name, tt.r, tt.want)
		}
	}
	for e := 0; e < numEngines; e++ {
		for p := 0; p < NumPriorities; p++ {
			for _, off := range []Reg{ringRegBaseOff, ringRegSizeOff, ringRegRptrOff, ringRegWptrOff} {
				ge, gp, goff, ok := decodeRingReg(ringReg(e, p, off))
				if !ok || ge != e || gp != p || goff != off {
					t.Errorf("decode(%#x) = %d,%d,%#x,%v", ringReg(e, p, off), ge, gp, goff, ok)
				}
			}
		}
	}
	for _, r := range []Reg{0xFC, 0x180, RegIntrStatus} {
		if _, _, _, ok := decodeRingReg(r); ok {
			t.Errorf("%#x decoded as a ring register", r)
		}
	}
}

// prioKernel is a testKernel with a high-priority ring on each engine too.
type prioKernel struct {
	*testKernel
	ring [numEngines][NumPriorities]uint32
	wptr [numEngines][NumPriorities]uint32
}

func newPrioKernel(t *testing.T) *prioKernel {
	k := &prioKernel{testKernel: newTestKernel(t, 1, 4<<20)}
	for e := 0; e < numEngines; e++ {
		k.ring[e][PriorityNormal] = k.testKernel.ring[e]
		pa := k.allocPA(testRingSize)
		k.ring[e][PriorityHigh] = pa
		k.g.WriteReg(RegPrioRingBase(e, PriorityHigh), pa)
		k.g.WriteReg(RegPrioRingSize(e, PriorityHigh), testRingSize)
	}
	return k
}

// write puts words in ring (e, p) without ringing the doorbell.
func (k *prioKernel) write(e, p int, words ...uint32) {
	for _, w := range words {
		binary.LittleEndian.PutUint32(k.mem[k.ring[e][p]+k.wptr[e][p]:], w)
		k.wptr[e][p] = (k.wptr[e][p] + 4) % testRingSize
	}
	if p == PriorityNormal {
		k.testKernel.wptr[e] = k.wptr[e][p]
	}
}

func (k *prioKernel) bell(e, p int) { k.g.WriteReg(RegPrioRingWptr(e, p), k.wptr[e][p]) }

func (k *prioKernel) idleRing(e, p int) {
	k.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for k.g.ReadReg(RegPrioRingRptr(e, p)) != k.wptr[e][p] {
		if time.Now().After(deadline) {
			k.t.Fatalf("engine %d ring %d: RPTR %#x never reached WPTR %#x", e, p, k.g.ReadReg(RegPrioRingRptr(e, p)), k.wptr[e][p])
		}
		time.Sleep(50 * time.Microsecond)
	}
}

func (k *prioKernel) setCtx(e, p int) {
	k.write(e, p, PacketHeader(PktSetContext, 2), k.ctx, k.l1)
}

func storeWord(b []byte, off int, v uint32) {
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&b[off])), v)
}

func loadWord(b []byte, off int) uint32 {
	return atomic.LoadUint32((*uint32)(unsafe.Pointer(&b[off])))
}

// TestCPServesHighPriorityFirst: with work ready on both rings, the
// command processor drains the high ring before the normal one; the
// normal ring's last SIGNAL is therefore the final value.
func TestCPServesHighPriorityFirst(t *testing.T) {
	for _, e := range []int{EngineBin, EngineRender} {
		t.Run(engineName(e), func(t *testing.T) {
			k := newPrioKernel(t)
			va, b := k.bo(pageSize, true)
			gate, x, order := va, va+8, va+16
			for p := 0; p < NumPriorities; p++ {
				k.setCtx(e, p)
				k.write(e, p, PacketHeader(PktWaitMem, 2), gate, 1)
			}
			// Each ring signals x with its own value, three times.
			for i := uint32(0); i < 3; i++ {
				k.write(e, PriorityNormal, PacketHeader(PktSignal, 2), x, 100+i)
				k.write(e, PriorityHigh, PacketHeader(PktSignal, 2), x, 200+i)
			}
			// order records which ring passed its gate first.
			k.write(e, PriorityHigh, PacketHeader(PktSignal, 2), order, 2)
			k.write(e, PriorityNormal, PacketHeader(PktWaitMem, 2), order, 2)
			k.write(e, PriorityNormal, PacketHeader(PktSignal, 2), order, 3)
			k.bell(e, PriorityNormal)
			k.bell(e, PriorityHigh)
			time.Sleep(5 * time.Millisecond)
			if got := loadWord(b, 8); got != 0 {
				t.Fatalf("a ring passed its WAIT_MEM before the gate opened (x = %d)", got)
			}
			storeWord(b, 0, 1)
			k.bell(e, PriorityNormal)
			k.idleRing(e, PriorityHigh)
			k.idleRing(e, PriorityNormal)
			if got := loadWord(b, 8); got != 102 {
				t.Errorf("x = %d, want 102 (high ring drained first, normal last)", got)
			}
			if got := loadWord(b, 16); got != 3 {
				t.Errorf("order word = %d, want 3", got)
			}
		})
	}
}

// TestStalledRingDoesNotBlockOthers: a ring waiting on a semaphore lets the
// engine serve the other ring, in both directions.
func TestStalledRingDoesNotBlockOthers(t *testing.T) {
	tests := []struct {
		name    string
		stalled int
	}{{"high stalled", PriorityHigh}, {"normal stalled", PriorityNormal}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := newPrioKernel(t)
			va, b := k.bo(pageSize, true)
			other := 1 - tt.stalled
			e := EngineRender
			k.setCtx(e, tt.stalled)
			k.write(e, tt.stalled, PacketHeader(PktWaitMem, 2), va, 5)
			k.write(e, tt.stalled, PacketHeader(PktSignal, 2), va+8, 1)
			k.bell(e, tt.stalled)
			k.setCtx(e, other)
			k.write(e, other, PacketHeader(PktSignal, 2), va+12, 7)
			k.bell(e, other)
			k.idleRing(e, other)
			if loadWord(b, 12) != 7 || loadWord(b, 8) != 0 {
				t.Fatalf("other ring: %d, stalled ring: %d", loadWord(b, 12), loadWord(b, 8))
			}
			if st := k.g.ReadReg(RegCPStatus(e)); st&CPStatusBusy != 0 {
				t.Errorf("CP_STATUS %#x busy while only stalled on WAIT_MEM", st)
			}
			// The other engine releases the semaphore.
			k.setCtx(EngineBin, PriorityNormal)
			k.write(EngineBin, PriorityNormal, PacketHeader(PktSignal, 2), va, 5)
			k.bell(EngineBin, PriorityNormal)
			k.idleRing(e, tt.stalled)
			if loadWord(b, 8) != 1 {
				t.Fatal("stalled ring did not resume after SIGNAL")
			}
		})
	}
}

// TestRingsKeepTheirOwnContext: SET_CONTEXT on one ring does not change the
// address space the other ring's packets use.
func TestRingsKeepTheirOwnContext(t *testing.T) {
	k := newPrioKernel(t)
	va, b := k.bo(pageSize, true)
	e := EngineBin
	k.setCtx(e, PriorityNormal)
	k.write(e, PriorityNormal, PacketHeader(PktWaitMem, 2), va, 1)
	k.write(e, PriorityNormal, PacketHeader(PktSignal, 2), va+4, 9)
	k.bell(e, PriorityNormal)
	// The high ring selects an empty address space (an all-invalid L1).
	empty := k.allocPA(pageSize)
	k.write(e, PriorityHigh, PacketHeader(PktSetContext, 2), 99, empty)
	k.write(e, PriorityHigh, PacketHeader(PktSignal, 2), va+8, 1)
	k.g.WriteReg(RegIntrAck, ^uint32(0))
	k.bell(e, PriorityHigh)
	k.idleRing(e, PriorityHigh)
	if st := k.g.ReadReg(RegIntrStatus); st&IntrMMUFault == 0 || k.g.ReadReg(RegMMUFaultCtx) != 99 {
		t.Fatalf("high ring's write in its empty context: INTR_STATUS %#x, fault ctx %d", st, k.g.ReadReg(RegMMUFaultCtx))
	}
	storeWord(b, 0, 1)
	k.bell(e, PriorityNormal)
	k.idleRing(e, PriorityNormal)
	if loadWord(b, 4) != 9 {
		t.Fatal("normal ring's SIGNAL did not use its own context")
	}
}

// TestBothRingsWrap fills each ring several times over.
func TestBothRingsWrap(t *testing.T) {
	k := newPrioKernel(t)
	va, b := k.bo(pageSize, true)
	for e := 0; e < numEngines; e++ {
		for p := 0; p < NumPriorities; p++ {
			k.setCtx(e, p)
		}
		// 3 words per SIGNAL: 1000 of them wrap a 4 KiB ring about three times.
		for i := uint32(1); i <= 1000; i++ {
			for p := 0; p < NumPriorities; p++ {
				k.write(e, p, PacketHeader(PktSignal, 2), va+uint32(16*e+4*p), i)
				if i%100 == 0 {
					k.bell(e, p)
					k.idleRing(e, p)
				}
			}
		}
		for p := 0; p < NumPriorities; p++ {
			if got := loadWord(b, 16*e+4*p); got != 1000 {
				t.Errorf("engine %d ring %d: last value %d, want 1000", e, p, got)
			}
		}
	}
}

// TestResetAbandonsAllRings: RESET empties both rings of an engine.
func TestResetAbandonsAllRings(t *testing.T) {
	k := newPrioKernel(t)
	va, b := k.bo(pageSize, true)
	e := EngineRender
	for p := 0; p < NumPriorities; p++ {
		k.setCtx(e, p)
		k.write(e, p, PacketHeader(PktWaitMem, 2), va, 1)
		k.write(e, p, PacketHeader(PktSignal, 2), va+4+4*uint32(p), 1)
		k.bell(e, p)
	}
	time.Sleep(5 * time.Millisecond)
	k.g.WriteReg(RegReset, 1<<e)
	for p := 0; p < NumPriorities; p++ {
		k.idleRing(e, p)
	}
	storeWord(b, 0, 1)
	time.Sleep(5 * time.Millisecond)
	if loadWord(b, 4) != 0 || loadWord(b, 8) != 0 {
		t.Fatal("work after RESET ran")
	}
	for p := 0; p < NumPriorities; p++ {
		k.write(e, p, PacketHeader(PktSignal, 2), va+12+4*uint32(p), 3)
		k.bell(e, p)
		k.idleRing(e, p)
		if loadWord(b, 12+4*p) != 3 {
			t.Fatalf("ring %d dead after RESET", p)
		}
	}
}

func engineName(e int) string {
	if e == EngineBin {
		return "BIN"
	}
	return "RENDER"
}
