package tg

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/pipe"
)

// Occlusion queries on the hardware's occlusion counter (docs/hardware.md
// §5.3), as v3d does them: each Begin gives the query a fresh zeroed
// word in its own BO, the draws of the range carry an
// OCCLUSION_QUERY_COUNTER record pointing at it (every job the range
// touches), and the tile renderer adds each tile's passing samples there.
// The result is the word once every job that references the BO has
// finished.

// Query is a pipe.Query of this driver.
type Query struct {
	kind   pipe.QueryKind
	bo     *BO // the counter word of the last Begin (offset 0); nil before the first
	active bool
}

var _ pipe.QueryContext = (*Context)(nil)

// Kind implements pipe.Query.
func (q *Query) Kind() pipe.QueryKind { return q.kind }

// CreateQuery implements pipe.QueryContext.
func (c *Context) CreateQuery(kind pipe.QueryKind) (pipe.Query, error) {
	if kind != pipe.QueryOcclusionCounter {
		return nil, fmt.Errorf("tg: query kind %d not supported", kind)
	}
	return &Query{kind: kind}, nil
}

func (c *Context) query(pq pipe.Query) (*Query, error) {
	if c.destroyed {
		return nil, ErrContextDestroyed
	}
	q, ok := pq.(*Query)
	if !ok || q == nil {
		return nil, fmt.Errorf("tg: not a query of this driver")
	}
	return q, nil
}

// BeginQuery implements pipe.QueryContext. The previous range's BO stays
// with the jobs that write it; the new range counts into a new one, so
// the CPU never zeroes a word the GPU may still add to.
func (c *Context) BeginQuery(pq pipe.Query) error {
	q, err := c.query(pq)
	if err != nil {
		return err
	}
	if q.active || c.activeQuery != nil {
		return fmt.Errorf("tg: BeginQuery while a query is active")
	}
	bo, err := c.screen.bos.alloc(4, "occlusion query")
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(bo.Map, 0)
	if q.bo != nil {
		q.bo.Release()
	}
	q.bo, q.active = bo, true
	c.activeQuery = q
	return nil
}

// EndQuery implements pipe.QueryContext.
func (c *Context) EndQuery(pq pipe.Query) error {
	q, err := c.query(pq)
	if err != nil {
		return err
	}
	if !q.active || c.activeQuery != q {
		return fmt.Errorf("tg: EndQuery of a query that is not active")
	}
	q.active = false
	c.activeQuery = nil
	return nil
}

// QueryResult implements pipe.QueryContext.
func (c *Context) QueryResult(pq pipe.Query, wait bool) (uint64, bool, error) {
	q, err := c.query(pq)
	if err != nil {
		return 0, false, err
	}
	if q.active {
		return 0, false, fmt.Errorf("tg: result of an active query")
	}
	if q.bo == nil {
		return 0, true, nil
	}
	for _, j := range c.jobList() {
		if j.references(q.bo) {
			if err := c.flushJob(j); err != nil {
				return 0, false, err
			}
		}
	}
	timeout := readTimeout
	if !wait {
		timeout = 0
	}
	if err := c.screen.ws.WaitBO(q.bo.Handle, timeout); err != nil {
		if !wait {
			return 0, false, nil
		}
		return 0, false, fmt.Errorf("tg: waiting for an occlusion query: %w", err)
	}
	// The GPU adds to the word atomically; read it the same way.
	v := atomic.LoadUint32((*uint32)(unsafe.Pointer(&q.bo.Map[0])))
	if !hostLittleEndian {
		v = v>>24 | v>>8&0xFF00 | v<<8&0xFF0000 | v<<24
	}
	return uint64(v), true, nil
}

// DestroyQuery implements pipe.QueryContext.
func (c *Context) DestroyQuery(pq pipe.Query) {
	q, ok := pq.(*Query)
	if !ok || q == nil {
		return
	}
	if c.activeQuery == q {
		c.activeQuery = nil
	}
	if q.bo != nil {
		q.bo.Release()
		q.bo = nil
	}
	q.active = false
}

// emitQuery points the hardware's occlusion counter at the active query's
// word, or turns it off, when the job's draws so far counted elsewhere. A
// job starts with the counter off; the word it counts into is remembered
// per job because a job may be left and resumed (another framebuffer
// bound in between) after the query changed.
func (c *Context) emitQuery(j *job) {
	var want *BO
	if q := c.activeQuery; q != nil {
		want = q.bo
	}
	if j.counter == want {
		return
	}
	at := uint32(len(j.bcl))
	emit(j, cl.OcclusionQueryCounter{})
	if want != nil {
		j.relocBO(SpaceBinCL, at+uint32(cl.AddressFields(cl.OpOcclusionQueryCounter)[0]), want, BORead|BOWrite, 0)
	}
	j.counter = want
}

var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1
