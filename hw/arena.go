package hw

import (
	"errors"
	"fmt"
)

// The GPU's physical memory (the "arena") is the one large allocation of a
// context. It lives outside the Go heap where the platform allows
// (arena_mmap.go: an anonymous private mapping, committed page by page as
// the GPU touches it and returned to the OS on Close), so that a context
// costs the memory it uses, a closed context gives its memory back at
// once, and a big arena neither inflates the GC's heap goal nor is zeroed
// by the runtime on reuse. arena_heap.go is the portable fallback (a Go
// byte slice), selected on other systems or with the build tag
// tilegpu_heaparena.

const (
	// MinMemorySize is the smallest arena New accepts: the kernel's rings
	// (2 engines × 2 priorities × 64 KiB) and its per-context pages need
	// about 300 KiB; 1 MiB leaves room for a small framebuffer.
	MinMemorySize = 1 << 20
	// MaxMemorySize is the largest arena: physical addresses are 32-bit
	// and page 0xFFFFF is never handed out.
	MaxMemorySize = 1<<32 - 1<<12
)

// ErrMemorySize reports a Config.MemorySize outside MinMemorySize..MaxMemorySize.
var ErrMemorySize = errors.New("hw: memory size out of range")

// arena is the GPU's physical memory: bytes, PA = index.
type arena struct {
	mem []byte
	// release returns the committed pages to the OS and leaves the range
	// reading as zeros (it stays mapped until the GPU is unreachable, so
	// a stray access through a stale mapping cannot fault the process).
	release func()
	// zero makes mem[off:off+n] read as zero, releasing whole pages where
	// the backing allows it rather than writing them.
	zero func(off, n int)
}

func checkMemorySize(n int) error {
	if n < MinMemorySize || uint64(n) > MaxMemorySize || n%4096 != 0 {
		return fmt.Errorf("%w: %d bytes (want a multiple of 4096 in %d..%d)", ErrMemorySize, n, MinMemorySize, uint64(MaxMemorySize))
	}
	return nil
}
