package tg

import (
	"container/list"
	"errors"
	"fmt"
	"sync"
	"time"
)

// pageSize is the kernel's allocation granule; BO sizes are rounded to it so
// that cache buckets are exact.
const pageSize = 4096

// boCacheTimeout is how long a freed BO may sit unused in the cache before it
// is returned to the kernel. One second, as in vc4: long enough to span a
// frame or two of the same allocation pattern, short enough not to hoard.
const boCacheTimeout = time.Second

// BO is a buffer object: a kernel handle and its CPU mapping. A BO is
// reference counted; the last Release puts it in the screen's BO cache.
// Retain and Release are safe for concurrent use; the mapping's contents
// are guarded by whoever owns the BO (a resource's context, or a job).
type BO struct {
	cache  *boCache
	Handle uint32
	Size   uint32
	Map    []byte
	Name   string // what the BO holds, for debugging

	refs     int32 // guarded by cache.mu
	freeTime time.Time
	timeElem *list.Element // position in the cache's time list while free
}

// Retain adds a reference.
func (b *BO) Retain() *BO {
	b.cache.mu.Lock()
	b.refs++
	b.cache.mu.Unlock()
	return b
}

// Release drops a reference; the last one returns the BO to the cache.
func (b *BO) Release() {
	c := b.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	b.refs--
	if b.refs > 0 {
		return
	}
	if b.refs < 0 {
		panic("BUG: tg: BO " + b.Name + " released more often than retained")
	}
	c.putLocked(b)
}

// boCache keeps freed BOs for reuse: per-size buckets (newest last) and a
// time list (oldest first) for expiry.
type boCache struct {
	ws  Winsys
	now func() time.Time

	mu        sync.Mutex
	buckets   map[uint32][]*BO // size → free BOs of that size, oldest first
	timeList  list.List        // *BO, oldest first
	cachedLen int              // BOs in the cache
	cachedSz  uint64           // bytes in the cache
	live      int              // BOs handed out and not yet released to the cache

	// statistics for tests and debugging
	hits, misses, purges int
}

func newBOCache(ws Winsys, now func() time.Time) *boCache {
	if now == nil {
		now = time.Now
	}
	return &boCache{ws: ws, now: now, buckets: map[uint32][]*BO{}}
}

// alloc returns a BO of at least size bytes with one reference, reusing a
// cached idle BO of the same rounded size when there is one.
func (c *boCache) alloc(size uint32, name string) (*BO, error) {
	if size == 0 {
		size = 1
	}
	if size > 1<<31 {
		return nil, fmt.Errorf("tg: BO %q of %d bytes is too large", name, size)
	}
	size = (size + pageSize - 1) &^ (pageSize - 1)

	c.mu.Lock()
	c.expireLocked()
	if b := c.reuseLocked(size); b != nil {
		b.refs = 1
		b.Name = name
		c.hits++
		c.live++
		c.mu.Unlock()
		return b, nil
	}
	c.misses++
	c.mu.Unlock()

	h, m, err := c.ws.CreateBO(size)
	if errors.Is(err, ErrNoMemory) {
		// Free everything idle and try once more (vc4_bo_alloc's retry).
		c.mu.Lock()
		c.purges++
		c.freeAllLocked()
		c.mu.Unlock()
		h, m, err = c.ws.CreateBO(size)
	}
	if err != nil {
		return nil, fmt.Errorf("tg: allocating BO %q of %d bytes: %w", name, size, err)
	}
	c.mu.Lock()
	c.live++
	c.mu.Unlock()
	return &BO{cache: c, Handle: h, Size: size, Map: m[:size:size], Name: name, refs: 1}, nil
}

// reuseLocked takes the newest idle BO of exactly size bytes. A BO still in
// use by the GPU (WaitBO with a zero timeout fails) is skipped: reusing it
// would let the CPU overwrite data a queued job reads.
func (c *boCache) reuseLocked(size uint32) *BO {
	bucket := c.buckets[size]
	for i := len(bucket) - 1; i >= 0; i-- {
		b := bucket[i]
		if c.ws.WaitBO(b.Handle, 0) != nil {
			continue
		}
		c.buckets[size] = append(bucket[:i], bucket[i+1:]...)
		c.timeList.Remove(b.timeElem)
		b.timeElem = nil
		c.cachedLen--
		c.cachedSz -= uint64(b.Size)
		return b
	}
	return nil
}

func (c *boCache) putLocked(b *BO) {
	c.live--
	b.freeTime = c.now()
	b.timeElem = c.timeList.PushBack(b)
	c.buckets[b.Size] = append(c.buckets[b.Size], b)
	c.cachedLen++
	c.cachedSz += uint64(b.Size)
	c.expireLocked()
}

// expireLocked returns BOs idle for longer than boCacheTimeout to the kernel.
func (c *boCache) expireLocked() {
	now := c.now()
	for e := c.timeList.Front(); e != nil; e = c.timeList.Front() {
		b := e.Value.(*BO)
		if now.Sub(b.freeTime) < boCacheTimeout {
			return
		}
		c.dropLocked(b)
	}
}

func (c *boCache) freeAllLocked() {
	for e := c.timeList.Front(); e != nil; e = c.timeList.Front() {
		c.dropLocked(e.Value.(*BO))
	}
}

func (c *boCache) dropLocked(b *BO) {
	c.timeList.Remove(b.timeElem)
	b.timeElem = nil
	bucket := c.buckets[b.Size]
	for i, x := range bucket {
		if x == b {
			bucket = append(bucket[:i], bucket[i+1:]...)
			break
		}
	}
	if len(bucket) == 0 {
		delete(c.buckets, b.Size)
	} else {
		c.buckets[b.Size] = bucket
	}
	c.cachedLen--
	c.cachedSz -= uint64(b.Size)
	// Closing can only fail for a bad handle, which would be a driver bug;
	// there is nobody to report it to on this path.
	_ = c.ws.CloseBO(b.Handle)
	b.Map = nil
}

// CacheStats reports the BO cache's contents and counters.
type CacheStats struct {
	CachedBOs   int
	CachedBytes uint64
	LiveBOs     int
	Hits        int
	Misses      int
	Purges      int
}

func (c *boCache) stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{c.cachedLen, c.cachedSz, c.live, c.hits, c.misses, c.purges}
}

// close frees every cached BO.
func (c *boCache) close() {
	c.mu.Lock()
	c.freeAllLocked()
	c.mu.Unlock()
}
