//go:build linux && !tilegpu_heaparena

package hw

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// ArenaBacking names the arena's backing, for tests and diagnostics.
const ArenaBacking = "mmap"

// madviseMin is the smallest zeroing that is worth a madvise system call
// instead of a clear: below it, writing the bytes is cheaper than the call
// and the later page faults.
const madviseMin = 64 << 10

// newArena maps n bytes of anonymous private memory. MAP_NORESERVE: the
// OS commits (and counts against the overcommit limit) only the pages the
// GPU writes, so an idle gigabyte costs nothing but address space.
func newArena(owner *GPU, n int) (*arena, error) {
	mem, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("hw: mapping %d bytes of GPU memory: %w", n, err)
	}
	a := &arena{mem: mem}
	a.release = func() {
		// MADV_DONTNEED drops the pages now (RSS falls at Close); the
		// range reads as zeros until the munmap below.
		_ = unix.Madvise(mem, unix.MADV_DONTNEED)
	}
	a.zero = func(off, n int) {
		if n < madviseMin {
			clear(mem[off : off+n])
			return
		}
		const page = 4096
		lo := (off + page - 1) &^ (page - 1)
		hi := (off + n) &^ (page - 1)
		clear(mem[off:lo])
		clear(mem[hi : off+n])
		if unix.Madvise(mem[lo:hi], unix.MADV_DONTNEED) != nil {
			clear(mem[lo:hi])
		}
	}
	// The address range is unmapped when the GPU is unreachable: slices of
	// it handed out by the kernel (BO mappings) live no longer than the
	// objects that lead to the GPU, so none can outlive the mapping.
	runtime.AddCleanup(owner, func(m []byte) { _ = unix.Munmap(m) }, mem)
	return a, nil
}
