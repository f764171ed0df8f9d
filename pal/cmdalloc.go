package pal

import (
	"fmt"
	"sync"
)

// CmdAllocatorCreateInfo configures a CmdAllocator.
type CmdAllocatorCreateInfo struct {
	// ChunkSize is the size of each command chunk in bytes, 4 KiB..4 MiB;
	// 0 means 64 KiB.
	ChunkSize int
}

// CmdAllocator is PAL's ICmdAllocator: the pool of chunks command buffers
// record their control lists into. A command buffer takes a chunk when
// its current one is full and gives all of them back on Reset, so a
// buffer re-recorded each frame allocates nothing. The kernel copies a
// job's control list into its own exec buffer at SUBMIT_CL, so chunks are
// host memory. It is safe for concurrent use (one lock per chunk taken);
// one allocator per recording thread avoids even that.
type CmdAllocator struct {
	chunkSize int
	mu        sync.Mutex
	free      [][]byte
	inUse     int
}

// CreateCmdAllocator creates an allocator.
func (d *Device) CreateCmdAllocator(ci CmdAllocatorCreateInfo) (*CmdAllocator, error) {
	n := ci.ChunkSize
	if n == 0 {
		n = 64 << 10
	}
	if n < 4<<10 || n > 4<<20 {
		return nil, fmt.Errorf("%w: ChunkSize %d not in 4 KiB..4 MiB", ErrInvalidArgument, ci.ChunkSize)
	}
	return &CmdAllocator{chunkSize: n}, nil
}

func (a *CmdAllocator) get() []byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inUse++
	if n := len(a.free); n > 0 {
		c := a.free[n-1]
		a.free = a.free[:n-1]
		return c
	}
	return make([]byte, a.chunkSize)
}

func (a *CmdAllocator) put(chunks [][]byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inUse -= len(chunks)
	a.free = append(a.free, chunks...)
}

// Stats reports chunks held by command buffers and chunks free.
func (a *CmdAllocator) Stats() (inUse, free int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.inUse, len(a.free)
}
