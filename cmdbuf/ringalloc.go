package cmdbuf

// ringAllocator carves a transfer buffer into blocks in ring order, as
// Chromium's RingBuffer does (background/004): a block is IN_USE while the
// client fills it, FREE_PENDING_TOKEN once a command referencing it has been
// encoded (it is free when the service passes the token), and PADDING when
// it is the unusable tail skipped at the wrap. Allocation reclaims passed
// blocks without waiting, then waits for the oldest block's token.
type ringAllocator struct {
	size      int
	blocks    []allocBlock // oldest first
	head      int          // index of the oldest live block in blocks
	freeOff   int          // where the next block starts
	inUseOff  int          // start of the oldest block
	waitToken func(token uint32)
	lastToken func() uint32 // the service's last read token, without waiting
}

type blockState uint8

const (
	blockInUse blockState = iota
	blockFreePendingToken
	blockPadding
)

type allocBlock struct {
	off, size int
	state     blockState
	token     uint32
}

const allocAlign = 16

func newRingAllocator(size int, waitToken func(uint32), lastToken func() uint32) *ringAllocator {
	return &ringAllocator{size: size &^ (allocAlign - 1), waitToken: waitToken, lastToken: lastToken}
}

func (r *ringAllocator) live() []allocBlock { return r.blocks[r.head:] }

func (r *ringAllocator) popOldest() {
	b := r.blocks[r.head]
	r.head++
	if r.head > 64 && 2*r.head > len(r.blocks) {
		// Keep the deque's backing array bounded under steady streaming.
		n := copy(r.blocks, r.blocks[r.head:])
		r.blocks, r.head = r.blocks[:n], 0
	}
	if r.head == len(r.blocks) {
		r.blocks, r.head = r.blocks[:0], 0
		r.freeOff, r.inUseOff = 0, 0
		return
	}
	r.inUseOff = b.off + b.size
	if r.inUseOff == r.size {
		r.inUseOff = 0
	}
}

// reclaim frees the oldest blocks whose tokens have passed, without waiting.
func (r *ringAllocator) reclaim() {
	last := r.lastToken()
	for r.head < len(r.blocks) {
		b := r.blocks[r.head]
		if b.state == blockInUse || (b.state == blockFreePendingToken && !tokenPassed(b.token, last)) {
			return
		}
		r.popOldest()
	}
}

// largestFreeNoWait is the largest block Alloc could return without waiting.
func (r *ringAllocator) largestFreeNoWait() int {
	r.reclaim()
	switch {
	case len(r.live()) == 0:
		return r.size
	case r.freeOff == r.inUseOff:
		return 0 // full
	case r.freeOff > r.inUseOff:
		return max(r.size-r.freeOff, r.inUseOff)
	default:
		return r.inUseOff - r.freeOff
	}
}

// freeOldest waits for the oldest block and frees it. Every block before
// the one being filled must have been freed (FreePendingToken) first.
func (r *ringAllocator) freeOldest() {
	b := r.blocks[r.head]
	if b.state == blockInUse {
		panic("cmdbuf: transfer buffer allocation while a block is still in use")
	}
	if b.state == blockFreePendingToken {
		r.waitToken(b.token)
	}
	r.popOldest()
}

// alloc returns the offset of a new IN_USE block of size bytes (rounded up
// to 16); size must not exceed the buffer.
func (r *ringAllocator) alloc(size int) int {
	size = (size + allocAlign - 1) &^ (allocAlign - 1)
	if size > r.size || size == 0 {
		panic("cmdbuf: transfer buffer allocation size out of range")
	}
	for size > r.largestFreeNoWait() {
		r.freeOldest()
	}
	if r.freeOff+size > r.size {
		r.blocks = append(r.blocks, allocBlock{off: r.freeOff, size: r.size - r.freeOff, state: blockPadding})
		r.freeOff = 0
	}
	off := r.freeOff
	r.blocks = append(r.blocks, allocBlock{off: off, size: size, state: blockInUse})
	r.freeOff += size
	if r.freeOff == r.size {
		r.freeOff = 0
	}
	return off
}

// allocUpTo returns a block of at most size bytes: all of it if that much is
// free without waiting, else the largest free block, waiting only when none
// is free. It returns the offset and the usable size.
func (r *ringAllocator) allocUpTo(size int) (off, got int) {
	size = min(size, r.size)
	if free := r.largestFreeNoWait() &^ (allocAlign - 1); free < size && free >= allocAlign {
		size = free
	}
	return r.alloc(size), size
}

// freePendingToken marks the block at off as free once token passes.
func (r *ringAllocator) freePendingToken(off int, token uint32) {
	for i := r.head; i < len(r.blocks); i++ {
		if r.blocks[i].off == off && r.blocks[i].state == blockInUse {
			r.blocks[i].state = blockFreePendingToken
			r.blocks[i].token = token
			return
		}
	}
	panic("cmdbuf: freePendingToken of a block that is not in use")
}

// inUse reports whether any block is still in use or pending.
func (r *ringAllocator) busy() bool { return len(r.live()) > 0 }
