package tg

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/pipe"
)

// TestOcclusionQueryRecords: the draws of a Begin/End range carry an
// OCCLUSION_QUERY_COUNTER with a writable relocation to the query's word,
// emitted once per change; End turns the counter off; a new Begin counts
// into a new word; the result flushes the jobs that count and reads the
// word once the BO is idle (not before, without waiting).
func TestOcclusionQueryRecords(t *testing.T) {
	r := newRig(t, "fs")
	draw := &pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3}
	pq, err := r.c.CreateQuery(pipe.QueryOcclusionCounter)
	if err != nil {
		t.Fatal(err)
	}
	q := pq.(*Query)
	j, _ := r.c.currentJob()
	step := func(name string, change func(), want []uint8) {
		t.Helper()
		before := len(j.bcl)
		change()
		if err := r.c.Draw(draw); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := opcodes(t, j.bcl[before:])
		n := slices.Index(got, cl.OpOcclusionQueryCounter)
		if (n >= 0) != slices.Contains(want, cl.OpOcclusionQueryCounter) || !slices.Equal(got[len(got)-1:], []uint8{cl.OpVertexArrayPrimitives}) {
			t.Errorf("%s: emitted %v, want the counter record: %v", name, opNames(got), slices.Contains(want, cl.OpOcclusionQueryCounter))
		}
	}
	step("no query", func() {}, nil)
	step("begin", func() {
		if err := r.c.BeginQuery(q); err != nil {
			t.Fatal(err)
		}
	}, []uint8{cl.OpOcclusionQueryCounter})
	first := q.bo
	idx, ok := j.boIndex[first]
	if !ok || j.bos[idx].Flags&BOWrite == 0 {
		t.Fatalf("the query's BO is not referenced writable by the job (%v %+v)", ok, j.bos)
	}
	step("still counting", func() {}, nil)
	step("end", func() {
		if err := r.c.EndQuery(q); err != nil {
			t.Fatal(err)
		}
	}, []uint8{cl.OpOcclusionQueryCounter})
	step("after end", func() {}, nil)
	if err := r.c.BeginQuery(q); err == nil {
		if q.bo == first {
			t.Error("a second Begin reused the word a queued job counts into")
		}
		r.c.EndQuery(q)
	} else {
		t.Fatal(err)
	}
	if err := r.c.EndQuery(q); err == nil {
		t.Error("EndQuery of an ended query succeeded")
	}
	if _, _, err := r.c.QueryResult(q, true); err != nil {
		t.Fatal(err)
	}

	// The result: the hardware's word, after the jobs are submitted.
	r.c.BeginQuery(q)
	r.c.Draw(draw)
	r.c.EndQuery(q)
	binary.LittleEndian.PutUint32(q.bo.Map, 1234) // what the tile renderer would add
	r.ws.busy[q.bo.Handle] = true
	submitted := len(r.ws.submits)
	if _, ready, err := r.c.QueryResult(q, false); err != nil || ready {
		t.Fatalf("QueryResult of a busy query = ready %v, %v; want not ready", ready, err)
	}
	if len(r.ws.submits) != submitted+1 {
		t.Errorf("QueryResult submitted %d jobs, want the one that counts", len(r.ws.submits)-submitted)
	}
	r.ws.busy[q.bo.Handle] = false
	if v, ready, err := r.c.QueryResult(q, false); err != nil || !ready || v != 1234 {
		t.Fatalf("QueryResult = %d, %v, %v; want 1234, ready", v, ready, err)
	}
	r.c.DestroyQuery(q)
}
