package gles

import (
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/pipe"
)

// EXT_occlusion_query_boolean on the driver's occlusion counter
// (pipe.QueryContext; the TG hardware counts the samples passing depth
// and stencil into a word per query range, docs/hardware.md §5.3). Both
// targets use the one counter: the conservative one is answered exactly.
// Query objects belong to their context (ES does not share them).

const (
	anySamplesPassedEXT             gl.Enum = 0x8C2F
	anySamplesPassedConservativeEXT gl.Enum = 0x8D6A
	currentQueryEXT                 gl.Enum = 0x8865
	queryResultEXT                  gl.Enum = 0x8866
	queryResultAvailableEXT         gl.Enum = 0x8867
)

// queryObject is one query name: a query object once it has been begun.
type queryObject struct {
	target gl.Enum // 0 until the first BeginQuery
	pq     pipe.Query
	// The result of the last range, once read: reading it again needs no
	// driver call.
	known  bool
	passed bool
}

// queryState is a context's query names and its active query.
type queryState struct {
	names      map[uint32]*queryObject
	next       uint32
	active     *queryObject
	activeName uint32
}

func (c *Context) queryContext() (pipe.QueryContext, bool) {
	qc, ok := c.pipe.(pipe.QueryContext)
	return qc, ok
}

func validQueryTarget(t gl.Enum) bool {
	return t == anySamplesPassedEXT || t == anySamplesPassedConservativeEXT
}

// CreateQuery is one name of glGenQueriesEXT.
func (c *Context) CreateQuery() uint32 {
	q := &c.queries
	if q.names == nil {
		q.names = map[uint32]*queryObject{}
	}
	for {
		q.next++
		if q.next != 0 && q.names[q.next] == nil {
			break
		}
	}
	q.names[q.next] = &queryObject{}
	return q.next
}

// DeleteQuery is one name of glDeleteQueriesEXT: an active query ends
// first; unused names and 0 are ignored.
func (c *Context) DeleteQuery(id uint32) {
	q := &c.queries
	o := q.names[id]
	if o == nil {
		return
	}
	if q.active == o {
		c.endQuery()
	}
	if o.pq != nil {
		if qc, ok := c.queryContext(); ok {
			qc.DestroyQuery(o.pq)
		}
	}
	delete(q.names, id)
}

// IsQuery is glIsQueryEXT: a name that has been begun and not deleted.
func (c *Context) IsQuery(id uint32) bool {
	o := c.queries.names[id]
	return o != nil && o.target != 0
}

// BeginQuery is glBeginQueryEXT.
func (c *Context) BeginQuery(target gl.Enum, id uint32) {
	if !validQueryTarget(target) {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	q := &c.queries
	o := q.names[id]
	// One counter serves both targets, so a query active on either is
	// the active query of both (as ES 3.0 specifies for these two).
	if id == 0 || o == nil || q.active != nil || (o.target != 0 && o.target != target) {
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	qc, ok := c.queryContext()
	if !ok {
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	if o.pq == nil {
		pq, err := qc.CreateQuery(pipe.QueryOcclusionCounter)
		if err != nil {
			c.recordError(gl.OUT_OF_MEMORY)
			return
		}
		o.pq = pq
	}
	if err := qc.BeginQuery(o.pq); err != nil {
		c.recordError(gl.OUT_OF_MEMORY)
		return
	}
	o.target, o.known = target, false
	q.active, q.activeName = o, id
}

// EndQuery is glEndQueryEXT.
func (c *Context) EndQuery(target gl.Enum) {
	if !validQueryTarget(target) {
		c.recordError(gl.INVALID_ENUM)
		return
	}
	if o := c.queries.active; o == nil || o.target != target {
		c.recordError(gl.INVALID_OPERATION)
		return
	}
	c.endQuery()
}

func (c *Context) endQuery() {
	q := &c.queries
	if qc, ok := c.queryContext(); ok {
		if err := qc.EndQuery(q.active.pq); err != nil {
			c.recordError(gl.INVALID_OPERATION)
		}
	}
	q.active, q.activeName = nil, 0
}

// GetQueryiv is glGetQueryivEXT; ok false means an error was recorded.
func (c *Context) GetQueryiv(target, pname gl.Enum) (int32, bool) {
	if !validQueryTarget(target) || pname != currentQueryEXT {
		c.recordError(gl.INVALID_ENUM)
		return 0, false
	}
	if o := c.queries.active; o != nil && o.target == target {
		return int32(c.queries.activeName), true
	}
	return 0, true
}

// GetQueryObjectuiv is glGetQueryObjectuivEXT; ok false means an error
// was recorded. QUERY_RESULT waits for the counted work; the result is
// TRUE when any sample passed.
func (c *Context) GetQueryObjectuiv(id uint32, pname gl.Enum) (uint32, bool) {
	if pname != queryResultEXT && pname != queryResultAvailableEXT {
		c.recordError(gl.INVALID_ENUM)
		return 0, false
	}
	o := c.queries.names[id]
	if o == nil || o.target == 0 || o == c.queries.active {
		c.recordError(gl.INVALID_OPERATION)
		return 0, false
	}
	if !o.known {
		qc, ok := c.queryContext()
		if !ok {
			c.recordError(gl.INVALID_OPERATION)
			return 0, false
		}
		n, ready, err := qc.QueryResult(o.pq, pname == queryResultEXT)
		if err != nil {
			c.driverFailed(err, gl.OUT_OF_MEMORY)
			ready, n = true, 0
		}
		if ready {
			o.known, o.passed = true, n > 0
		}
	}
	if pname == queryResultAvailableEXT {
		return boolUint(o.known), true
	}
	return boolUint(o.passed), true
}

func boolUint(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// releaseQueries destroys the context's driver queries.
func (c *Context) releaseQueries() {
	qc, ok := c.queryContext()
	for id, o := range c.queries.names {
		if o.pq != nil && ok {
			if c.queries.active == o {
				qc.EndQuery(o.pq)
			}
			qc.DestroyQuery(o.pq)
		}
		delete(c.queries.names, id)
	}
	c.queries.active = nil
}
