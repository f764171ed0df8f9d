package hw

import (
	"encoding/binary"
	"strings"
	"testing"
)

// EVENT_WRITE with the TIMESTAMP source writes only the 64-bit timestamp;
// with COUNTERS it is followed by the engine's own counters, in order.
func TestEventWriteTimestampAndCounters(t *testing.T) {
	k := newTestKernel(t, 1, 4<<20)
	va, b := k.bo(pageSize, true)
	for c := Counter(0); c < NumCounters; c++ {
		k.g.counters[c].Store(1000 + uint64(c) + uint64(c)<<33)
	}
	for i := range b[:1024] {
		b[i] = 0xEE
	}
	k.setContext(EngineBin)
	k.setContext(EngineRender)
	before := uint64(k.g.ReadReg(RegTimestampLo)) | uint64(k.g.ReadReg(RegTimestampHi))<<32
	k.submit(EngineRender, PacketHeader(PktEventWrite, 3), eventTimestamp, va, 0x12345678)
	k.submit(EngineBin, PacketHeader(PktEventWrite, 3), eventTimestamp|eventCounters, va+64, 0)
	k.submit(EngineRender, PacketHeader(PktEventWrite, 3), eventTimestamp|eventCounters, va+512, 0)
	k.idle(EngineBin)
	k.idle(EngineRender)
	ts := binary.LittleEndian.Uint64(b[0:])
	if ts < before {
		t.Fatalf("timestamp %d < %d read before", ts, before)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != 0xEEEEEEEE {
		t.Fatalf("TIMESTAMP source wrote %#x at VA+8 (only the timestamp is written)", v)
	}
	check := func(base int, e int) {
		list := EngineCounters(e)
		n := len(list)
		if ts := binary.LittleEndian.Uint64(b[base:]); ts < before {
			t.Errorf("engine %d: timestamp %d < %d", e, ts, before)
		}
		for i, c := range list {
			if got, want := binary.LittleEndian.Uint64(b[base+8+8*i:]), 1000+uint64(c)+uint64(c)<<33; got != want {
				t.Errorf("engine %d counter %v = %d, want %d", e, c, got, want)
			}
		}
		if v := binary.LittleEndian.Uint32(b[base+8+8*n:]); v != 0xEEEEEEEE {
			t.Errorf("engine %d wrote past its %d counters", e, n)
		}
	}
	check(64, EngineBin)
	check(512, EngineRender)
}

func TestCounterRegistersAndNames(t *testing.T) {
	g := New(Config{MemorySize: 1 << 20, Cores: 1})
	defer g.Close()
	g.counters[CtrFragmentsShaded].Store(5<<32 | 7)
	if lo, hi := g.ReadReg(RegPerfCounter(CtrFragmentsShaded)), g.ReadReg(RegPerfCounter(CtrFragmentsShaded)+4); lo != 7 || hi != 5 {
		t.Fatalf("PERF_COUNTER = %d:%d, want 5:7", hi, lo)
	}
	// Every counter, in both register windows, reads back as itself.
	for c := Counter(0); c < NumCounters; c++ {
		g.counters[c].Store(uint64(c)<<32 | 0x100 + uint64(c))
	}
	for c := Counter(0); c < NumCounters; c++ {
		if lo, hi := g.ReadReg(RegPerfCounter(c)), g.ReadReg(RegPerfCounter(c)+4); lo != 0x100+uint32(c) || hi != uint32(c) {
			t.Errorf("PERF_COUNTER(%v) at %#x = %d:%d", c, RegPerfCounter(c), hi, lo)
		}
	}
	if n := g.ReadReg(RegNumCounters); n != uint32(NumCounters) {
		t.Fatalf("NUM_COUNTERS = %d", n)
	}
	seen := map[string]bool{}
	for c := Counter(0); c < NumCounters; c++ {
		name := c.String()
		if name == "" || seen[name] || !strings.Contains(name, ".") {
			t.Errorf("counter %d has name %q (empty, duplicate or without a unit prefix)", c, name)
		}
		seen[name] = true
		// Each engine's counters are one contiguous range, in engine order.
		first, n := engineCounters(c.Engine())
		if c < first || int(c-first) >= n {
			t.Errorf("counter %v (engine %d) outside its engine's range %d+%d", c, c.Engine(), first, n)
		}
	}
	if CtrBinStoredVertices.Engine() != EngineBin || CtrVSStoredVertices.Engine() != EngineRender {
		t.Errorf("vertex-store counters' engines: %d, %d", CtrBinStoredVertices.Engine(), CtrVSStoredVertices.Engine())
	}
	if NumBinCounters+NumRenderCounters+NumComputeCounters+NumDMACounters != int(NumCounters) {
		t.Errorf("%d bin + %d render + %d compute + %d DMA counters, want %d", NumBinCounters, NumRenderCounters, NumComputeCounters, NumDMACounters, NumCounters)
	}
}
