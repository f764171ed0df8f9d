package hw

import (
	"errors"
	"testing"
)

func TestOpenRejectsBadConfigs(t *testing.T) {
	for _, cfg := range []Config{
		{MemorySize: -1},
		{MemorySize: 1 << 16},
		{MemorySize: MinMemorySize + 1},
		{MemorySize: 1 << 33},
	} {
		if g, err := Open(cfg); !errors.Is(err, ErrMemorySize) {
			if g != nil {
				g.Close()
			}
			t.Errorf("Open(%+v) = %v, want ErrMemorySize", cfg, err)
		}
	}
	for _, cores := range []int{-1, maxCores + 1} {
		if g, err := Open(Config{MemorySize: MinMemorySize, Cores: cores}); err == nil {
			g.Close()
			t.Errorf("Open with %d cores succeeded", cores)
		}
	}
}

// TestZeroMemory zeroes ranges that start and end inside pages, large
// enough for the page-releasing path and small enough for the clearing
// one: exactly the range reads zero afterwards, its neighbours keep their
// bytes, and released pages are writable again.
func TestZeroMemory(t *testing.T) {
	g, err := Open(Config{MemorySize: 4 << 20, Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	mem := g.Memory()
	if len(mem) != 4<<20 {
		t.Fatalf("arena of %d bytes, want %d", len(mem), 4<<20)
	}
	for _, r := range []struct{ pa, n uint32 }{{100, 300 << 10}, {1<<20 + 4096, 8192}, {2 << 20, 7}, {3<<20 + 5, 64 << 10}} {
		for i := range mem {
			mem[i] = byte(i%251) | 1
		}
		g.ZeroMemory(r.pa, r.n)
		for i := range mem {
			inside := uint32(i) >= r.pa && uint32(i) < r.pa+r.n
			if want := byte(i%251) | 1; (inside && mem[i] != 0) || (!inside && mem[i] != want) {
				t.Fatalf("ZeroMemory(%#x, %#x): byte %#x = %d", r.pa, r.n, i, mem[i])
			}
		}
		mem[r.pa+r.n/2] = 42
		if mem[r.pa+r.n/2] != 42 {
			t.Fatalf("released page not writable")
		}
	}
}
