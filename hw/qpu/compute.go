package qpu

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Compute batches (docs/hardware.md §9). A workgroup of N invocations
// runs as ceil(N/16) batches; invocation i is lane i%16 of batch i/16.
// The dispatch unit (package hw, csd.go) fills ComputeInputs, runs the
// batches of a workgroup concurrently (one core each) and gives them one
// shared memory and one barrier.

// ComputeInputs are what a compute batch reads through the compute read
// addresses, and its workgroup's shared memory and barrier.
type ComputeInputs struct {
	LocalID    [3][Lanes]uint32 // gl_LocalInvocationID per lane
	LocalIndex [Lanes]uint32    // gl_LocalInvocationIndex per lane
	Workgroup  [3]uint32        // gl_WorkGroupID
	NumGroups  [3]uint32        // gl_NumWorkGroups

	// Shared is the workgroup's shared memory, one element per 32-bit
	// word. The batches of a workgroup access it concurrently, always
	// through sync/atomic (single-copy atomic words, as direct loads and
	// stores are).
	Shared []uint32

	// Barrier is called when the batch executes a BARRIER signal; it
	// returns once every running batch of the workgroup has reached one
	// (or an error that ends the batch). Nil outside a workgroup with
	// more than one batch: a lone batch passes its barriers at once.
	Barrier func() error

	// Barriers counts the BARRIER signals the batch executed (for the
	// dispatch unit's counters); Run resets it.
	Barriers uint64
	// SharedAccesses counts the lanes' shared-memory loads, stores and
	// atomics; Run resets it.
	SharedAccesses uint64
}

// read serves a compute read address (rd* kind) into val.
func (ci *ComputeInputs) read(kind uint8, val *[Lanes]uint32) {
	switch kind {
	case rdLocalX, rdLocalY, rdLocalZ:
		*val = ci.LocalID[kind-rdLocalX]
	case rdLocalIndex:
		*val = ci.LocalIndex
	case rdWorkgroupX, rdWorkgroupY, rdWorkgroupZ:
		broadcast(val, ci.Workgroup[kind-rdWorkgroupX])
	default:
		broadcast(val, ci.NumGroups[kind-rdNumGroupsX])
	}
}

// barrier executes a BARRIER signal of batch b.
func (c *Core) barrier(b *Batch) error {
	if b.Stage != StageCompute {
		return fmt.Errorf("BARRIER in a non-compute shader")
	}
	b.Compute.Barriers++
	if b.Compute.Barrier == nil {
		return nil
	}
	return b.Compute.Barrier()
}

// Atomic operations of TMU_ATOMIC and SHARED_ATOMIC (docs/hardware.md
// §9): lane 0 of the staged TMU_R register selects one (so an atomic in
// a loop leaves the uniform stream alone). Each stores op(old,
// TMU_STORE_DATA) and queues old; CompSwap stores TMU_STORE_DATA only
// where old equals the lane's TMU_T value.
const (
	AtomicAdd uint32 = iota
	AtomicMin        // signed
	AtomicMax        // signed
	AtomicUMin
	AtomicUMax
	AtomicAnd
	AtomicOr
	AtomicXor
	AtomicExchange
	AtomicCompSwap
	NumAtomicOps
)

// atomicResult is the word an atomic leaves given the old word, the
// lane's data and (CompSwap) its compare value.
func atomicResult(op, old, data, cmp uint32) uint32 {
	switch op {
	case AtomicAdd:
		return old + data
	case AtomicMin:
		return uint32(min(int32(old), int32(data)))
	case AtomicMax:
		return uint32(max(int32(old), int32(data)))
	case AtomicUMin:
		return min(old, data)
	case AtomicUMax:
		return max(old, data)
	case AtomicAnd:
		return old & data
	case AtomicOr:
		return old | data
	case AtomicXor:
		return old ^ data
	case AtomicExchange:
		return data
	}
	if old == cmp { // AtomicCompSwap
		return data
	}
	return old
}

// memoryPort executes a write to a shared-memory port or TMU_ATOMIC for
// the lanes of mask (write condition passed and inside the workgroup).
// Loads and atomics queue one result in the TMU FIFO; the lanes not in
// mask receive 0.
func (c *Core) memoryPort(dst uint8, mask uint16, r *[Lanes]uint32, b *Batch) error {
	if b.Stage != StageCompute {
		return fmt.Errorf("shared-memory or atomic access in a non-compute shader")
	}
	ci := &b.Compute
	var op uint32
	if dst == dstTMUAtomic || dst == dstSharedAtomic {
		if op = fb(c.tex.R[0]); op >= NumAtomicOps {
			return fmt.Errorf("atomic operation %d (TMU_R lane 0) is not 0..%d", op, NumAtomicOps-1)
		}
	}
	cmp := (*[Lanes]uint32)(unsafe.Pointer(&c.tex.T))
	var out *[Lanes]uint32
	if dst != dstSharedStore {
		e, err := c.push()
		if err != nil {
			return err
		}
		e.n = 1
		out = &e.vals[0]
		*out = [Lanes]uint32{}
	}
	if dst == dstTMUAtomic {
		c.checkShootdown()
		for l := range r {
			if mask&(1<<l) == 0 {
				continue
			}
			old, ok := c.loads.atomicWord(r[l], op, c.storeData[l], cmp[l])
			if !ok {
				return &Fault{VA: r[l] &^ 3, Write: true}
			}
			out[l] = old
		}
		return nil
	}
	shared := ci.Shared
	for l := range r {
		if mask&(1<<l) == 0 {
			continue
		}
		k := r[l] >> 2
		if uint64(k) >= uint64(len(shared)) {
			return fmt.Errorf("shared-memory access at byte offset %#x, but the workgroup has %d bytes", r[l], 4*len(shared))
		}
		w := &shared[k]
		switch dst {
		case dstSharedLoad:
			out[l] = atomic.LoadUint32(w)
		case dstSharedStore:
			atomic.StoreUint32(w, c.storeData[l])
		case dstSharedAtomic:
			for {
				old := atomic.LoadUint32(w)
				if atomic.CompareAndSwapUint32(w, old, atomicResult(op, old, c.storeData[l], cmp[l])) {
					out[l] = old
					break
				}
			}
		}
		ci.SharedAccesses++
	}
	return nil
}

// atomicWord applies atomic op to the little-endian word at va &^ 3 and
// returns the old value (false on a fault). Without PageMem it is a read
// and a write (tests only: package hw's MMU always offers pages).
func (p *pageCache) atomicWord(va, op, data, cmp uint32) (uint32, bool) {
	va &^= 3
	if p.pm == nil {
		old, ok := p.m.Read32(va)
		if !ok {
			return 0, false
		}
		return old, p.m.Write32(va, atomicResult(op, old, data, cmp))
	}
	pg, ok := p.lookup(va, true)
	if !ok {
		return 0, false
	}
	w := (*uint32)(unsafe.Pointer(&pg[va&0xffc]))
	for {
		raw := atomic.LoadUint32(w)
		old := leWord(raw)
		if atomic.CompareAndSwapUint32(w, raw, leWord(atomicResult(op, old, data, cmp))) {
			return old, true
		}
	}
}

// WorkgroupBarrier is the barrier of one workgroup's batches: Wait
// returns when every batch that has not ended has called Wait, so a
// batch that ENDs (or fails) stops counting and never leaves the others
// waiting for it. After a batch failed, Wait returns ErrWorkgroupFailed
// to the others at once (the dispatch unit reports the first error).
type WorkgroupBarrier struct {
	mu      sync.Mutex
	cond    sync.Cond
	running int // batches that have not ended
	arrived int // of those, waiting at the current barrier
	gen     uint64
	failed  bool
}

// ErrWorkgroupFailed is what Wait returns once another batch of the
// workgroup has failed.
var ErrWorkgroupFailed = errors.New("another batch of the workgroup failed")

// Reset prepares the barrier for a workgroup of n batches.
func (w *WorkgroupBarrier) Reset(n int) {
	w.mu.Lock()
	if w.cond.L == nil {
		w.cond.L = &w.mu
	}
	w.running, w.arrived, w.failed = n, 0, false
	w.mu.Unlock()
}

// Wait is ComputeInputs.Barrier for one batch of the workgroup.
func (w *WorkgroupBarrier) Wait() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed {
		return ErrWorkgroupFailed
	}
	w.arrived++
	if w.arrived >= w.running {
		w.release()
		return nil
	}
	g := w.gen
	for w.gen == g && !w.failed {
		w.cond.Wait()
	}
	if w.gen == g {
		return ErrWorkgroupFailed
	}
	return nil
}

// Leave is called when a batch ends, with its error (nil when it reached
// END).
func (w *WorkgroupBarrier) Leave(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.running--
	if err != nil && !w.failed {
		w.failed = true
		w.cond.Broadcast()
		return
	}
	if w.arrived > 0 && w.arrived >= w.running {
		w.release()
	}
}

func (w *WorkgroupBarrier) release() {
	w.gen++
	w.arrived = 0
	w.cond.Broadcast()
}
