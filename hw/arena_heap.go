//go:build !linux || tilegpu_heaparena

package hw

// ArenaBacking names the arena's backing, for tests and diagnostics.
const ArenaBacking = "heap"

// newArena is the portable fallback: a Go byte slice. The runtime zeroes
// it and commits it as it is written; the memory returns to the runtime
// when the GPU is unreachable (Close cannot free it earlier without
// turning a stale mapping into a crash).
func newArena(owner *GPU, n int) (*arena, error) {
	a := &arena{mem: make([]byte, n)}
	a.release = func() {}
	a.zero = func(off, n int) { clear(a.mem[off : off+n]) }
	return a, nil
}
