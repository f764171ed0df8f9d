package hw

import (
	"encoding/binary"
	"sync/atomic"
	"testing"
	"time"
)

func timeAfter() <-chan time.Time { return time.After(5 * time.Second) }

func TestEventWriteIRQ(t *testing.T) {
	k := newTestKernel(t, 1, 4<<20)
	var calls atomic.Int32
	done := make(chan uint32, 8)
	k.g.SetInterruptHandler(func() {
		calls.Add(1)
		st := k.g.ReadReg(RegIntrStatus)
		k.g.WriteReg(RegIntrAck, st)
		done <- st
	})
	k.g.WriteReg(RegIntrEnable, IntrEvent)
	va, b := k.bo(pageSize, true)
	k.setContext(EngineRender)
	k.submit(EngineRender, PacketHeader(PktNOP, 3), 1, 2, 3)
	before := uint64(k.g.ReadReg(RegTimestampLo)) | uint64(k.g.ReadReg(RegTimestampHi))<<32
	k.submit(EngineRender, PacketHeader(PktEventWrite, 3), 1, va+16, 0xDEADBEEF)
	select {
	case st := <-done:
		if st&IntrEvent == 0 {
			t.Fatalf("INTR_STATUS = %#x", st)
		}
	case <-timeAfter():
		t.Fatal("no EVENT interrupt")
	}
	k.idle(EngineRender)
	if v := binary.LittleEndian.Uint32(b[16:]); v != 0xDEADBEEF {
		t.Fatalf("event value = %#x", v)
	}
	ts := binary.LittleEndian.Uint64(b[24:])
	if ts < before || ts == 0 {
		t.Fatalf("timestamp %d < %d", ts, before)
	}
	if st := k.g.ReadReg(RegIntrStatus); st != 0 {
		t.Fatalf("INTR_STATUS after ack = %#x", st)
	}
	// Without the IRQ flag: value written, no interrupt.
	n := calls.Load()
	k.submit(EngineRender, PacketHeader(PktEventWrite, 3), 0, va+32, 5)
	k.idle(EngineRender)
	time.Sleep(10 * time.Millisecond)
	if b[32] != 5 || calls.Load() != n {
		t.Fatalf("event without IRQ: value %d, calls %d→%d", b[32], n, calls.Load())
	}
}

func TestWaitMemSignalAcrossEngines(t *testing.T) {
	k := newTestKernel(t, 1, 4<<20)
	va, b := k.bo(pageSize, true)
	k.setContext(EngineRender)
	k.setContext(EngineBin)
	// RENDER waits for the semaphore to reach 2, then writes 99.
	k.submit(EngineRender, PacketHeader(PktWaitMem, 2), va, 2)
	k.submit(EngineRender, PacketHeader(PktSignal, 2), va+8, 99)
	time.Sleep(20 * time.Millisecond)
	if b[8] != 0 {
		t.Fatal("RENDER passed WAIT_MEM before the semaphore was signalled")
	}
	k.submit(EngineBin, PacketHeader(PktSignal, 2), va, 1)
	k.idle(EngineBin)
	time.Sleep(20 * time.Millisecond)
	if b[8] != 0 {
		t.Fatal("RENDER passed WAIT_MEM at value 1 < 2")
	}
	k.submit(EngineBin, PacketHeader(PktSignal, 2), va, 2)
	k.idle(EngineBin)
	k.idle(EngineRender)
	if b[8] != 99 {
		t.Fatal("RENDER did not resume after SIGNAL")
	}
	// Wrap-around comparison: int32(mem − ref) >= 0.
	binary.LittleEndian.PutUint32(b, 0x0000_0001)
	k.submit(EngineRender, PacketHeader(PktWaitMem, 2), va, 0xFFFF_FFF0)
	k.submit(EngineRender, PacketHeader(PktSignal, 2), va+8, 7)
	k.idle(EngineRender)
	if b[8] != 7 {
		t.Fatal("WAIT_MEM with wrapped sequence numbers blocked")
	}
}

func TestMalformedPackets(t *testing.T) {
	k := newTestKernel(t, 1, 4<<20)
	va, b := k.bo(pageSize, true)
	k.setContext(EngineBin)
	tests := []struct {
		name  string
		words []uint32
	}{
		{"not type 7", []uint32{0x3000_0000}},
		{"unknown opcode", []uint32{PacketHeader(0x55, 1), 0}},
		{"short SIGNAL", []uint32{PacketHeader(PktSignal, 1), va}},
		{"long payload", []uint32{PacketHeader(PktSetContext, 5), 1, 2, 3, 4, 5}},
		{"IB of garbage", nil},
	}
	garbageVA := k.boWith([]byte{0xEE, 0xEE, 0xEE}, false)
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k.g.WriteReg(RegIntrAck, ^uint32(0))
			words := tc.words
			if words == nil {
				words = []uint32{PacketHeader(PktIndirectBuffer, 2), garbageVA, 3}
			}
			k.submit(EngineBin, words...)
			k.submit(EngineBin, PacketHeader(PktSignal, 2), va, uint32(i+1))
			k.idle(EngineBin)
			if st := k.g.ReadReg(RegIntrStatus); st&IntrCLError == 0 {
				t.Fatalf("INTR_STATUS = %#x, want CL_ERROR", st)
			}
			if b[0] != byte(i+1) {
				t.Fatalf("packet after the malformed one did not run")
			}
		})
	}
}

func TestResetAbandonsWait(t *testing.T) {
	k := newTestKernel(t, 1, 4<<20)
	va, b := k.bo(pageSize, true)
	k.setContext(EngineRender)
	k.submit(EngineRender, PacketHeader(PktWaitMem, 2), va, 5)
	k.submit(EngineRender, PacketHeader(PktSignal, 2), va+8, 1)
	time.Sleep(10 * time.Millisecond)
	k.g.WriteReg(RegReset, 1<<EngineRender)
	k.idle(EngineRender)
	time.Sleep(10 * time.Millisecond)
	if b[8] != 0 {
		t.Fatal("work after RESET ran")
	}
	// The engine still works after reset.
	k.submit(EngineRender, PacketHeader(PktSignal, 2), va+8, 3)
	k.idle(EngineRender)
	if b[8] != 3 {
		t.Fatal("engine dead after RESET")
	}
	if n := k.g.ReadReg(RegNumCores); n != 1 {
		t.Fatalf("NUM_CORES = %d", n)
	}
}
