package qpu

import (
	"sync"
	"testing"
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
