package qpu

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// Two cores storing to and loading from one word at the same time: the
// hardware contract (docs/hardware.md §7.1) makes direct accesses
// word-atomic, one store wins whole. Before, the stores were plain Go
// writes to the shared arena and `go test -race` reported a data race.
func TestConcurrentDirectStoresToOneWord(t *testing.T) {
	m := newFlatMem()
	m.put32(unifVA, dataVA)
	p := load(t, m, `
		        or ra0, unif, unif ; nop
		        li r1, 300
		loop:   or tmu_stdata, qpu_num, qpu_num ; nop
		        or tmu_staddr, ra0, ra0 ; nop
		        or tmu_addr, ra0, ra0 ; nop
		        nop ; nop ; ldtmu
		        or ra1, r4, r4 ; nop
		        sub.setf r1, r1, 1 ; nop
		        brr.allzc loop
		        nop ; mov vpm, ra1
		        nop ; nop ; end`)
	var wg sync.WaitGroup
	seen := make([][]float32, 3)
	for q := uint32(1); q <= 2; q++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := newBatch(StageVertex)
			b.QPUNumber = q
			if err := NewCore(pagedMem{m}).Run(p, b); err != nil {
				t.Error(err)
			}
			seen[q] = b.VPMOut[:Lanes]
		}()
	}
	wg.Wait()
	for q := 1; q <= 2; q++ {
		for l, v := range seen[q] {
			if u := fb(v); u != 1 && u != 2 {
				t.Fatalf("core %d lane %d loaded %#x, not a whole value either core stored", q, l, u)
			}
		}
	}
	if v := m.get32(dataVA); v != 1 && v != 2 {
		t.Fatalf("final word %#x, not a whole value either core stored", v)
	}
}

// A direct access ignores the low two address bits.
func TestDirectAccessIsWordAligned(t *testing.T) {
	m := newFlatMem()
	m.put32(unifVA, dataVA+2)
	m.put32(dataVA, 77)
	b := newBatch(StageVertex)
	if err := runProgram(t, m, `
		or ra0, unif, unif ; nop
		or tmu_addr, ra0, ra0 ; nop
		nop ; nop ; ldtmu
		add tmu_stdata, r4, 1 ; nop
		or tmu_staddr, ra0, ra0 ; nop
		nop ; nop ; end`, b); err != nil {
		t.Fatal(err)
	}
	if v := m.get32(dataVA); v != 78 {
		t.Errorf("word at dataVA = %d, want 78 (loaded 77 from dataVA+2's word, stored 78 back)", v)
	}
}

// revocableMem is paged memory whose page at dataVA the "kernel" can
// unmap while a core runs, followed by a shootdown (PageEpoch).
type revocableMem struct {
	pagedMem
	revoked atomic.Bool
	epoch   atomic.Uint64
}

func (m *revocableMem) Page(va uint32, write bool) ([]byte, bool) {
	if m.revoked.Load() && va&^0xfff == dataVA {
		return nil, false
	}
	return m.pagedMem.Page(va, write)
}

func (m *revocableMem) PageEpoch() uint64 { return m.epoch.Load() }

// A running shader honours a shootdown at its next direct access: it
// faults on the revoked page instead of using the page it cached. Without
// the check it looped on the cached page until the step limit.
func TestShootdownReachesARunningShader(t *testing.T) {
	m := &revocableMem{pagedMem: pagedMem{newFlatMem()}}
	m.put32(unifVA, dataVA, dataVA+0x1000)
	p := load(t, m.flatMem, `
		        or ra0, unif, unif ; nop
		        or ra1, unif, unif ; nop
		        li ra2, 0
		loop:   or tmu_addr, ra0, ra0 ; nop
		        nop ; nop ; ldtmu
		        add ra2, ra2, 1 ; nop
		        or tmu_stdata, ra2, ra2 ; nop
		        or tmu_staddr, ra1, ra1 ; nop
		        brr loop
		        nop ; nop ; end`)
	c := NewCore(m)
	c.StepLimit = 1 << 26
	done := make(chan error, 1)
	go func() { done <- c.Run(p, newBatch(StageVertex)) }()
	counter := (*uint32)(unsafe.Pointer(&m.data[dataVA+0x1000-memBase]))
	for atomic.LoadUint32(counter) < 10 {
		runtime.Gosched()
	}
	m.revoked.Store(true)
	m.epoch.Add(1)
	err := <-done
	var f *Fault
	if !errors.As(err, &f) || f.VA != dataVA {
		t.Fatalf("Run = %v, want a fault on the revoked page %#x", err, dataVA)
	}
}
