package kernel

import "sort"

// rangeAllocator hands out contiguous runs of units (physical pages, or
// pages of a GPU virtual address space) first-fit from a sorted list of free
// extents, coalescing neighbours on free. First fit keeps large runs at the
// top of the space, which suits the pattern here (many small BOs, a few
// large render targets); allocation is O(free extents), which stays short
// because freed neighbours merge.
//
// Not safe for concurrent use; the Device lock guards it.
type rangeAllocator struct {
	free  []extent // sorted by start, non-adjacent, non-empty
	total uint32
	used  uint32
}

type extent struct{ start, end uint32 } // [start, end)

func newRangeAllocator(start, end uint32) *rangeAllocator {
	a := &rangeAllocator{total: end - start}
	if end > start {
		a.free = []extent{{start, end}}
	}
	return a
}

// alloc returns the start of n free units aligned to align (a power of two,
// or 0/1 for none), or false when no free extent is large enough.
func (a *rangeAllocator) alloc(n, align uint32) (uint32, bool) {
	if n == 0 {
		return 0, false
	}
	if align == 0 {
		align = 1
	}
	for i, e := range a.free {
		s := (e.start + align - 1) &^ (align - 1)
		if s < e.start || s >= e.end || e.end-s < n {
			continue
		}
		// Split e into [e.start,s) and [s+n,e.end).
		var repl []extent
		if s > e.start {
			repl = append(repl, extent{e.start, s})
		}
		if s+n < e.end {
			repl = append(repl, extent{s + n, e.end})
		}
		a.free = append(a.free[:i], append(repl, a.free[i+1:]...)...)
		a.used += n
		return s, true
	}
	return 0, false
}

// release returns [start, start+n) to the free list. Releasing a range that
// is not entirely allocated is a driver bug.
func (a *rangeAllocator) release(start, n uint32) {
	if n == 0 {
		return
	}
	end := start + n
	i := sort.Search(len(a.free), func(i int) bool { return a.free[i].start >= start })
	if (i > 0 && a.free[i-1].end > start) || (i < len(a.free) && a.free[i].start < end) {
		panic("BUG: kernel: double free of range")
	}
	a.used -= n
	mergePrev := i > 0 && a.free[i-1].end == start
	mergeNext := i < len(a.free) && a.free[i].start == end
	switch {
	case mergePrev && mergeNext:
		a.free[i-1].end = a.free[i].end
		a.free = append(a.free[:i], a.free[i+1:]...)
	case mergePrev:
		a.free[i-1].end = end
	case mergeNext:
		a.free[i].start = start
	default:
		a.free = append(a.free, extent{})
		copy(a.free[i+1:], a.free[i:])
		a.free[i] = extent{start, end}
	}
}

// largestFree reports the longest free run, for ENOMEM messages.
func (a *rangeAllocator) largestFree() uint32 {
	var m uint32
	for _, e := range a.free {
		m = max(m, e.end-e.start)
	}
	return m
}
