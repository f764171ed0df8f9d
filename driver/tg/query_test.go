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

// TestMultisampledDepthStencilResource: a 4-sample Z24S8 renderbuffer has
// 16-byte pixels; CPU writes set all four samples, reads return sample 0;
// jobs store and load it with AllSamples; other multisampled resources
// are refused.
func TestMultisampledDepthStencilResource(t *testing.T) {
	r := newRig(t, "fs")
	res, err := r.s.newResource(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: pipe.FormatZ24S8, Width: 8, Height: 4, Levels: 1, Samples: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.levelStride(0); got != 8*16 {
		t.Errorf("row pitch %d, want %d", got, 8*16)
	}
	px := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	if err := r.c.TextureWrite(res, 0, 0, 2, 1, 2, 1, px); err != nil {
		t.Fatal(err)
	}
	for s := 0; s < 4; s++ {
		if got := res.bo.Map[1*128+2*16+4*s:][:4]; !slices.Equal(got, px[:4]) {
			t.Errorf("sample %d of pixel (2,1) = %v, want %v", s, got, px[:4])
		}
	}
	res.bo.Map[1*128+3*16] = 99 // sample 0 of pixel (3,1)
	got := make([]byte, 8)
	if err := r.c.ResourceRead(res, 0, 0, 2, 1, 2, 1, got); err != nil {
		t.Fatal(err)
	}
	if want := []byte{1, 2, 3, 4, 99, 6, 7, 8}; !slices.Equal(got, want) {
		t.Errorf("read %v, want sample 0 of each pixel %v", got, want)
	}
	r.c.SetFramebufferState(&pipe.FramebufferState{Width: 8, Height: 4, Color: pipe.Surface{Resource: r.color}, ZS: pipe.Surface{Resource: res}, Samples: 4})
	r.c.BindDepthStencilAlphaState(r.c.CreateDepthStencilAlphaState(&pipe.DepthStencilAlphaState{DepthEnable: true, DepthFunc: pipe.FuncLess}))
	if err := r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.Flush(); err != nil {
		t.Fatal(err)
	}
	if zs := r.ws.submits[len(r.ws.submits)-1].ZS; !zs.AllSamples || zs.Stride != 8*16 {
		t.Errorf("zs target %+v: want AllSamples with a 128-byte stride", zs)
	}
	r.c.SetFramebufferState(&pipe.FramebufferState{Width: 8, Height: 4, Color: pipe.Surface{Resource: r.color}, ZS: pipe.Surface{Resource: res}})
	if err := r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3}); err == nil {
		t.Error("a 4-sample depth/stencil buffer in a 1-sample framebuffer was accepted")
	}
	if _, err := r.s.newResource(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: pipe.FormatRGBA8, Width: 8, Height: 4, Levels: 1, Samples: 4}); err == nil {
		t.Error("a 4-sample colour renderbuffer was accepted")
	}
}
