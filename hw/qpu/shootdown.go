package qpu

import (
	"encoding/binary"
	"sync/atomic"
	"unsafe"
)

// PageEpoch is an optional interface of Mem for memories whose
// translations can be revoked while a core runs (a TLB shootdown, after
// the kernel unmapped a buffer): PageEpoch changes whenever pages handed
// out by PageMem.Page may no longer be valid. A core compares it before
// every texture fetch, direct load and direct store (once per 16-lane
// instruction), at the start of every Run and at every taken branch, and
// then forgets every page it cached: a TMU instruction issued after the
// shootdown never uses a revoked page, and uniform reads (the only other cached accesses) stop within
// one loop iteration (docs/hardware.md §1).
type PageEpoch interface {
	PageEpoch() uint64
}

// checkShootdown drops the cached pages when the memory's epoch moved.
func (c *Core) checkShootdown() {
	if c.epochSrc == nil {
		return
	}
	if e := c.epochSrc.PageEpoch(); e != c.epochSeen {
		c.FlushPages()
		c.epochSeen = e
	}
}

// Direct loads (TMU_ADDR) and stores (TMU_STORE_ADDR) are single-copy
// atomic 32-bit accesses to the aligned word (the low two address bits are
// ignored; docs/hardware.md §7.1): shaders on different cores may load and
// store one word at the same time, and each access sees or leaves a whole
// value — of concurrent stores, one wins. sync/atomic gives exactly that,
// and keeps the emulator free of Go data races.

// loadWord is a direct load of the word at va &^ 3.
func (p *pageCache) loadWord(va uint32) (uint32, bool) {
	va &^= 3
	if p.pm == nil {
		return p.m.Read32(va)
	}
	pg, ok := p.lookup(va, false)
	if !ok {
		return 0, false
	}
	return leWord(atomic.LoadUint32((*uint32)(unsafe.Pointer(&pg[va&0xffc])))), true
}

// storeWord is a direct store of v to the word at va &^ 3.
func (p *pageCache) storeWord(va, v uint32) bool {
	va &^= 3
	if p.pm == nil {
		return p.m.Write32(va, v)
	}
	pg, ok := p.lookup(va, true)
	if !ok {
		return false
	}
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&pg[va&0xffc])), leWord(v))
	return true
}

// hostLE: GPU memory is little-endian; the atomics use the host's order.
var hostLE = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func leWord(v uint32) uint32 {
	if hostLE {
		return v
	}
	return v>>24 | v>>8&0xff00 | v<<8&0xff0000 | v<<24
}
