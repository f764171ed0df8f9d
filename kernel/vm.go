package kernel

// GPU virtual address layout (see the package comment).
const (
	pageSize  = 4096
	pageShift = 12

	userVAStart = 0x0000_1000 // VA page 0 is the null guard
	reservedVA  = 0xF000_0000 // hardware.md §1: the kernel's reserved mappings

	// MemstoreVA (0xF000_0000) is where every context sees its memstore
	// page. For the jobs on priority-p rings: seqno at +16·p, timestamp at
	// +16·p+8, BIN→RENDER semaphore at +64+4·p (priority 0: +0, +8, +64).
	MemstoreVA = reservedVA

	// Per-job kernel mappings (exec buffers, tile allocation, overflow
	// pools) follow the memstore page. The last page stays unmapped so
	// no mapping ends at 2^32 and VA arithmetic never wraps.
	kernelVAStart = reservedVA + pageSize
	kernelVAEnd   = 0xFFFF_F000

	memstoreSeqno     = 0  // u32 written by EVENT_WRITE (priority 0)
	memstoreTimestamp = 8  // u64 written by EVENT_WRITE at VA+8 (priority 0)
	memstoreBinSem    = 64 // u32 BIN→RENDER semaphore, SIGNAL / WAIT_MEM (priority 0)

	pteValid    = 1 << 0
	pteWritable = 1 << 1
)

// Each (context, ring) pair has its own seqno and semaphore words, so jobs
// of one context on two priorities could never read each other's values.
// (The dispatcher also never has one context's jobs in both priorities'
// rings at once; see dispatch.)
func memstoreSeqnoAt(p int) uint32  { return memstoreSeqno + 16*uint32(p) }
func memstoreBinSemAt(p int) uint32 { return memstoreBinSem + 4*uint32(p) }

// addressSpace is one context's GPU virtual address space: a two-level page
// table in physical memory (hardware.md §1) plus allocators for the user and
// kernel VA ranges. Guarded by the Device lock.
type addressSpace struct {
	mem  []byte
	phys *rangeAllocator
	// releaseTable gives back the physical page of an L2 table that
	// became empty. The Device defers it while jobs of the context may
	// still walk the old table (see Device.releaseLocked); by default it
	// is released at once.
	releaseTable func(pg uint32)
	l1           uint32          // PA of the L1 table
	l2           [1024]uint32    // PA of each L2 table, 0 when absent
	l2Used       [1024]uint16    // valid entries per L2 table, so empty tables are freed
	user         *rangeAllocator // pages of [userVAStart, reservedVA)
	kernel       *rangeAllocator // pages of [kernelVAStart, kernelVAEnd)
}

func newAddressSpace(mem []byte, phys *rangeAllocator) (*addressSpace, error) {
	as := &addressSpace{
		mem:    mem,
		phys:   phys,
		user:   newRangeAllocator(userVAStart>>pageShift, reservedVA>>pageShift),
		kernel: newRangeAllocator(kernelVAStart>>pageShift, kernelVAEnd>>pageShift),
	}
	pg, ok := phys.alloc(1, 1)
	if !ok {
		return nil, errorf(ENOMEM, "no physical page for a page table")
	}
	as.l1 = pg << pageShift
	clear(mem[as.l1 : as.l1+pageSize])
	as.releaseTable = func(pg uint32) { phys.release(pg, 1) }
	return as, nil
}

// mapPages maps n pages starting at va to physical pages starting at pa.
func (as *addressSpace) mapPages(va, pa, n uint32, writable bool) error {
	flags := uint32(pteValid)
	if writable {
		flags |= pteWritable
	}
	for i := uint32(0); i < n; i++ {
		v := va + i<<pageShift
		l1i, l2i := v>>22, (v>>pageShift)&1023
		if as.l2[l1i] == 0 {
			pg, ok := as.phys.alloc(1, 1)
			if !ok {
				as.unmapPages(va, i)
				return errorf(ENOMEM, "no physical page for a page table")
			}
			t := pg << pageShift
			clear(as.mem[t : t+pageSize])
			as.l2[l1i] = t
			storeSync32(as.mem, as.l1+4*l1i, t|pteValid)
		}
		e := as.l2[l1i] + 4*l2i
		if loadSync32(as.mem, e)&pteValid == 0 {
			as.l2Used[l1i]++
		}
		storeSync32(as.mem, e, (pa+i<<pageShift)|flags)
	}
	return nil
}

// unmapPages invalidates n pages at va and frees L2 tables that became
// empty. Page-table words are written atomically: the MMU may walk them
// at the same time (a job of the context is running).
func (as *addressSpace) unmapPages(va, n uint32) {
	for i := uint32(0); i < n; i++ {
		v := va + i<<pageShift
		l1i, l2i := v>>22, (v>>pageShift)&1023
		t := as.l2[l1i]
		if t == 0 {
			continue
		}
		e := t + 4*l2i
		if loadSync32(as.mem, e)&pteValid != 0 {
			storeSync32(as.mem, e, 0)
			as.l2Used[l1i]--
		}
		if as.l2Used[l1i] == 0 {
			storeSync32(as.mem, as.l1+4*l1i, 0)
			as.releaseTable(t >> pageShift)
			as.l2[l1i] = 0
		}
	}
}

// translate walks the page tables the way the MMU does; used by tests and
// by the fault report.
func (as *addressSpace) translate(va uint32) (pa uint32, writable, ok bool) {
	l1e := loadSync32(as.mem, as.l1+4*(va>>22))
	if l1e&pteValid == 0 {
		return 0, false, false
	}
	l2e := loadSync32(as.mem, l1e&^0xfff+4*((va>>pageShift)&1023))
	if l2e&pteValid == 0 {
		return 0, false, false
	}
	return l2e&^0xfff | va&0xfff, l2e&pteWritable != 0, true
}

// allocVA reserves n pages of VA in the user or kernel range.
func (as *addressSpace) allocVA(n uint32, kernel bool) (uint32, error) {
	r := as.user
	if kernel {
		r = as.kernel
	}
	pg, ok := r.alloc(n, 1)
	if !ok {
		return 0, errorf(ENOMEM, "GPU address space exhausted: %d pages requested, largest free run %d", n, r.largestFree())
	}
	return pg << pageShift, nil
}

func (as *addressSpace) freeVA(va, n uint32) {
	if va >= reservedVA {
		as.kernel.release(va>>pageShift, n)
	} else {
		as.user.release(va>>pageShift, n)
	}
}

// destroy frees every page table. All mappings must be gone already except
// ones whose backing pages are owned elsewhere (they are simply dropped).
func (as *addressSpace) destroy() {
	for i, t := range as.l2 {
		if t != 0 {
			as.phys.release(t>>pageShift, 1)
			as.l2[i] = 0
		}
	}
	as.phys.release(as.l1>>pageShift, 1)
}
