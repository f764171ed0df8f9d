package hw

import (
	"math"
	"sync/atomic"
	"unsafe"
)

// The occlusion counter (docs/hardware.md §5.3), as v3d's
// OCCLUSION_QUERY_COUNTER: the record is tile state, so every tile list
// carries the counter address its primitives were drawn under. A render
// worker counts the samples that pass the stencil and depth tests (and
// reach the colour write, whatever its mask) in w.samplesPassed and adds
// the count to the u32 at the address when the address changes and when
// the tile ends. Tiles render in parallel, so the add is atomic (and
// saturates at 2^32−1); the driver reads the word after the job's fence.

// flushOcclusion adds the samples counted under the current counter
// address to the word there and restarts the count.
func (w *worker) flushOcclusion() error {
	n := w.samplesPassed
	w.samplesPassed = 0
	va := w.st.occlusionVA
	if n == 0 || va == 0 {
		return nil
	}
	if va&3 != 0 {
		return clErrorf("OCCLUSION_QUERY_COUNTER address %#x not 4-byte aligned", va)
	}
	if f := w.m.addSaturating32(va, n); f != nil {
		return f
	}
	return nil
}

// addSaturating32 atomically adds v to the little-endian word at va
// (4-aligned), stopping at 2^32−1: a count that wrapped would read as few
// or no samples (EXT_occlusion_query_boolean's answer would flip).
func (m *mmu) addSaturating32(va, v uint32) *pageFault {
	pa, f := m.translate(va, true)
	if f != nil {
		return f
	}
	p := (*uint32)(unsafe.Pointer(&m.mem[pa]))
	for {
		old := atomic.LoadUint32(p)
		sum := uint64(toLE(old)) + uint64(v)
		if atomic.CompareAndSwapUint32(p, old, toLE(uint32(min(sum, math.MaxUint32)))) {
			return nil
		}
	}
}
