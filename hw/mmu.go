package hw

import (
	"encoding/binary"
	"fmt"
	"math"
	mbits "math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/tilegpu/tilegpu/hw/qpu"
)

const (
	pageShift = 12
	pageSize  = 1 << pageShift
	pageMask  = pageSize - 1

	pteValid    = 1 << 0
	pteWritable = 1 << 1
)

// pageFault describes a failed translation.
type pageFault struct {
	va     uint32
	ctx    uint32
	engine int
	write  bool
	ib     uint32 // VA of the indirect buffer being executed (MMU_FAULT_IB); 0: a ring packet
}

func (f *pageFault) Error() string {
	kind := "read"
	if f.write {
		kind = "write"
	}
	return fmt.Sprintf("GPU page fault: %s of VA %#08x in context %d on engine %d", kind, f.va, f.ctx, f.engine)
}

// tlbEntries is the size of each micro-TLB. A direct-mapped 64-entry TLB
// covers 256 KiB of hot pages (a tile's worth of colour rows plus the
// vertex and index streams) so hot paths translate with one compare.
const tlbEntries = 64

// mmu is one engine's or one worker's view of a context's address space,
// with its own micro-TLB. It is not safe for concurrent use; every
// goroutine that touches memory owns one.
type mmu struct {
	mem    []byte
	l1     uint32 // PA of the L1 table
	ctx    uint32 // context id from SET_CONTEXT
	engine int

	tag [tlbEntries]uint32 // VA page number + 1; 0 = empty
	pa  [tlbEntries]uint32 // PA of the page
	wr  [tlbEntries]bool   // page writable

	// fault is the first fault seen since clearFault; accesses made
	// through the qpu.Mem methods record it here because they can only
	// answer false.
	fault    pageFault
	faulted  bool
	hasTable bool

	// epoch is the GPU's TLB shootdown counter (MMU_TLB_INVALIDATE bumps
	// it); seen is its value when this TLB was last emptied. Every
	// translation compares the two, so a shootdown takes effect at this
	// MMU's next access, even in the middle of a job.
	epoch *atomic.Uint64
	seen  uint64
}

// newMMU returns an MMU with its own shootdown counter; the GPU's engines
// and workers share the GPU's (useEpoch).
func newMMU(mem []byte, engine int) *mmu {
	return &mmu{mem: mem, engine: engine, epoch: new(atomic.Uint64)}
}

// useEpoch makes m honour the shootdowns counted by epoch.
func (m *mmu) useEpoch(epoch *atomic.Uint64) {
	m.epoch = epoch
	m.seen = epoch.Load()
}

// PageEpoch implements qpu.PageEpoch: a shader core drops the pages it
// cached from Page when this changes.
func (m *mmu) PageEpoch() uint64 { return m.epoch.Load() }

// setContext switches page tables and flushes the TLB.
func (m *mmu) setContext(ctx, l1 uint32) {
	m.ctx, m.l1 = ctx, l1&^pageMask
	m.hasTable = true
	m.flush()
}

// copyContext makes m use the same address space as o.
func (m *mmu) copyContext(o *mmu) {
	m.ctx, m.l1, m.hasTable = o.ctx, o.l1, o.hasTable
	m.flush()
}

// flush empties the TLB; called at every job start because the kernel
// edits page tables between jobs.
func (m *mmu) flush() {
	m.tag = [tlbEntries]uint32{}
	m.seen = m.epoch.Load()
	m.faulted = false
}

// pte reads a page-table entry atomically: the kernel edits the tables of
// a context while its jobs run (it unmaps a closed BO at once), so the
// walk and the kernel's store may meet on one word.
func (m *mmu) pte(pa uint32) (uint32, bool) {
	if pa&3 != 0 || uint64(pa)+4 > uint64(len(m.mem)) {
		return 0, false
	}
	return toLE(atomic.LoadUint32((*uint32)(unsafe.Pointer(&m.mem[pa])))), true
}

// walk translates va through the page tables in memory.
func (m *mmu) walk(va uint32) (pa uint32, writable bool, ok bool) {
	if !m.hasTable {
		return 0, false, false
	}
	l1e, ok := m.pte(m.l1 + (va>>22)*4)
	if !ok || l1e&pteValid == 0 {
		return 0, false, false
	}
	l2e, ok := m.pte(l1e&^pageMask + ((va>>12)&0x3FF)*4)
	if !ok || l2e&pteValid == 0 {
		return 0, false, false
	}
	page := l2e &^ pageMask
	if uint64(page)+pageSize > uint64(len(m.mem)) {
		return 0, false, false
	}
	return page, l2e&pteWritable != 0, true
}

// translate returns the PA of va, or a fault.
func (m *mmu) translate(va uint32, write bool) (uint32, *pageFault) {
	if e := m.epoch.Load(); e != m.seen {
		m.tag = [tlbEntries]uint32{}
		m.seen = e
	}
	vpn := va >> pageShift
	slot := vpn & (tlbEntries - 1)
	if m.tag[slot] == vpn+1 && (!write || m.wr[slot]) {
		return m.pa[slot] | va&pageMask, nil
	}
	pa, w, ok := m.walk(va)
	if !ok || (write && !w) {
		return 0, m.recordFault(va, write)
	}
	m.tag[slot], m.pa[slot], m.wr[slot] = vpn+1, pa, w
	return pa | va&pageMask, nil
}

func (m *mmu) recordFault(va uint32, write bool) *pageFault {
	if !m.faulted {
		m.fault = pageFault{va: va, ctx: m.ctx, engine: m.engine, write: write}
		m.faulted = true
	}
	f := m.fault
	f.va, f.write = va, write
	return &f
}

// page returns the bytes from va to the end of its page.
func (m *mmu) page(va uint32, write bool) ([]byte, *pageFault) {
	pa, f := m.translate(va, write)
	if f != nil {
		return nil, f
	}
	return m.mem[pa : pa&^pageMask+pageSize], nil
}

// read fills dst from va (may cross pages).
func (m *mmu) read(va uint32, dst []byte) *pageFault {
	for len(dst) > 0 {
		p, f := m.page(va, false)
		if f != nil {
			return f
		}
		n := copy(dst, p)
		dst = dst[n:]
		va += uint32(n)
	}
	return nil
}

// write copies src to va (may cross pages).
func (m *mmu) write(va uint32, src []byte) *pageFault {
	for len(src) > 0 {
		p, f := m.page(va, true)
		if f != nil {
			return f
		}
		n := copy(p, src)
		src = src[n:]
		va += uint32(n)
	}
	return nil
}

func (m *mmu) read32(va uint32) (uint32, *pageFault) {
	if va&pageMask <= pageSize-4 {
		pa, f := m.translate(va, false)
		if f != nil {
			return 0, f
		}
		return binary.LittleEndian.Uint32(m.mem[pa:]), nil
	}
	var b [4]byte
	if f := m.read(va, b[:]); f != nil {
		return 0, f
	}
	return binary.LittleEndian.Uint32(b[:]), nil
}

func (m *mmu) write32(va, v uint32) *pageFault {
	if va&pageMask <= pageSize-4 {
		pa, f := m.translate(va, true)
		if f != nil {
			return f
		}
		binary.LittleEndian.PutUint32(m.mem[pa:], v)
		return nil
	}
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	return m.write(va, b[:])
}

// Read32 implements qpu.Mem.
func (m *mmu) Read32(va uint32) (uint32, bool) {
	v, f := m.read32(va)
	return v, f == nil
}

// Write32 implements qpu.Mem.
func (m *mmu) Write32(va uint32, v uint32) bool { return m.write32(va, v) == nil }

func f32bits(v uint32) float32 { return math.Float32frombits(v) }

// Page implements qpu.PageMem: the whole 4 KiB page holding va, checked
// for writing when write is set, so the TMU reads texels, uniforms and
// direct loads without an interface call per access. A fault is recorded
// exactly as translate records it.
func (m *mmu) Page(va uint32, write bool) ([]byte, bool) {
	pa, f := m.translate(va, write)
	if f != nil {
		return nil, false
	}
	base := pa &^ pageMask
	return m.mem[base : base+pageSize], true
}

var (
	_ qpu.PageMem   = (*mmu)(nil)
	_ qpu.PageEpoch = (*mmu)(nil)
)

// loadSync32 and storeSync32 access semaphore and fence words (WAIT_MEM,
// SIGNAL, EVENT_WRITE) atomically: the two engines and the CPU touch them
// concurrently. The kernel must read them with sync/atomic as well.
func (m *mmu) loadSync32(va uint32) (uint32, *pageFault) {
	if va&3 != 0 {
		return m.read32(va)
	}
	pa, f := m.translate(va, false)
	if f != nil {
		return 0, f
	}
	return toLE(atomic.LoadUint32((*uint32)(unsafe.Pointer(&m.mem[pa])))), nil
}

// hostLittleEndian: GPU memory is little-endian; atomic access uses the
// host's order.
var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func toLE(v uint32) uint32 {
	if hostLittleEndian {
		return v
	}
	return mbits.ReverseBytes32(v)
}

func (m *mmu) storeSync32(va, v uint32) *pageFault {
	if va&3 != 0 {
		return m.write32(va, v)
	}
	pa, f := m.translate(va, true)
	if f != nil {
		return f
	}
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&m.mem[pa])), toLE(v))
	return nil
}
