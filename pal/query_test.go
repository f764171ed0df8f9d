package pal

import (
	"errors"
	"testing"
	"time"
)

// Queries and a perf experiment count exactly what their spans drew: a
// full-screen quad passes depth and stencil on every pixel, a single
// triangle is one primitive of three vertices, and each submission is a
// new execution (a resubmitted buffer's results are not added to the last
// ones).
func TestQueriesAndPerfExperiment(t *testing.T) {
	const w, h = 64, 48
	r := newRig(t, w, h)
	// Two triangles covering the target, then the lower-left half.
	copy(r.vbuf.bytes, floats(-1, -1, 1, -1, -1, 1, -1, 1, 1, -1, 1, 1))
	occ, err := r.dev.CreateQueryPool(QueryPoolCreateInfo{Type: QueryPoolOcclusion, NumSlots: 2})
	if err != nil {
		t.Fatal(err)
	}
	stats, err := r.dev.CreateQueryPool(QueryPoolCreateInfo{Type: QueryPoolPipelineStats, NumSlots: 1})
	if err != nil {
		t.Fatal(err)
	}
	exp, err := r.dev.CreatePerfExperiment(PerfExperimentCreateInfo{Counters: []string{"fs.fragments_shaded", "bin.primitives"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := occ.GetResults(0, 1, 0); !errors.Is(err, ErrNotReady) {
		t.Errorf("results of a slot never submitted: %v, want ErrNotReady", err)
	}
	slot, _, _ := r.pipe.UserDataSlot("u_color")
	cb, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	for i, err := range []error{
		cb.Begin(),
		cb.CmdBindTargets(r.target, nil),
		cb.CmdClearColorTarget([4]float32{0, 0, 0, 1}),
		cb.CmdBindPipeline(r.pipe),
		cb.CmdSetVertexBuffers(0, []VertexBufferView{{Memory: r.vbuf, Stride: 8}}),
		cb.CmdSetUserData(slot, colorWords([4]float32{1, 0, 0, 1})),
		cb.CmdBeginQuery(occ, 0),
		cb.CmdDraw(0, 6, 0, 1),
		cb.CmdEndQuery(occ, 0),
		cb.CmdBeginQuery(stats, 0),
		cb.CmdDraw(0, 3, 0, 1),
		cb.CmdEndQuery(stats, 0),
		cb.CmdBeginPerfExperiment(exp),
		cb.CmdBeginQuery(occ, 1),
		cb.CmdDraw(0, 6, 0, 1),
		cb.CmdDraw(0, 3, 0, 1),
		cb.CmdEndQuery(occ, 1),
		cb.CmdEndPerfExperiment(exp),
		cb.End(),
	} {
		if err != nil {
			t.Fatalf("command %d: %v", i, err)
		}
	}
	for run := 0; run < 2; run++ {
		r.submitAndWait(t, cb)
		res, err := occ.GetResults(0, 2, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Occlusion != w*h || res[0].Jobs != 1 {
			t.Errorf("run %d: occlusion slot 0 = %d over %d jobs, want %d over 1", run, res[0].Occlusion, res[0].Jobs, w*h)
		}
		st, err := stats.GetResults(0, 1, 0) // done: the fence has signalled
		if err != nil {
			t.Fatal(err)
		}
		s := st[0].Stats
		if s.IaPrimitives != 1 || s.CPrimitives != 1 || s.CInvocations != 1 || s.IaVertices != 3 || s.VsInvocations < 3 {
			t.Errorf("run %d: pipeline stats %+v, want one primitive of three vertices", run, s)
		}
		// The half-target triangle covers about half the pixels.
		if s.PsInvocations < w*h/2-w || s.PsInvocations > w*h/2+w {
			t.Errorf("run %d: %d fragment-shader invocations for half of %d pixels", run, s.PsInvocations, w*h)
		}
		// Slot 1 and the experiment span the same two draws.
		if want := w*h + s.PsInvocations; res[1].Occlusion != want {
			t.Errorf("run %d: occlusion slot 1 = %d, want %d", run, res[1].Occlusion, want)
		}
		er, err := exp.Results(0)
		if err != nil {
			t.Fatal(err)
		}
		if len(er.Counters) != 2 || er.Counters[0].Name != "fs.fragments_shaded" || er.Counters[0].Value != res[1].Occlusion ||
			er.Counters[1].Name != "bin.primitives" || er.Counters[1].Value != 3 || er.GPUTime <= 0 || er.Jobs != 1 {
			t.Errorf("run %d: experiment %+v, want %d fragments, 3 primitives, GPU time, 1 job", run, er, res[1].Occlusion)
		}
	}
	// The draws still rendered: the last one left the target red.
	if p := r.pixel(1, 1); p != [4]byte{255, 0, 0, 255} {
		t.Errorf("pixel (1,1) = %v, want red", p)
	}
}

// Spans are checked where they are recorded.
func TestQueryMisuse(t *testing.T) {
	r := newRig(t, 16, 16)
	occ, _ := r.dev.CreateQueryPool(QueryPoolCreateInfo{Type: QueryPoolOcclusion, NumSlots: 1})
	for _, tc := range []struct {
		name   string
		record func(cb *CmdBuffer) error
	}{
		{"end without begin", func(cb *CmdBuffer) error { return cb.CmdEndQuery(occ, 0) }},
		{"slot out of range", func(cb *CmdBuffer) error { return cb.CmdBeginQuery(occ, 1) }},
		{"nil pool", func(cb *CmdBuffer) error { return cb.CmdBeginQuery(nil, 0) }},
		{"begun twice", func(cb *CmdBuffer) error { cb.CmdBeginQuery(occ, 0); return cb.CmdBeginQuery(occ, 0) }},
		{"left open", func(cb *CmdBuffer) error { return cb.CmdBeginQuery(occ, 0) }},
	} {
		cb, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
		if err := cb.Begin(); err != nil {
			t.Fatal(err)
		}
		err := tc.record(cb)
		endErr := cb.End()
		if (err == nil) == (tc.name != "left open") || !errors.Is(endErr, ErrRecordingFailed) {
			t.Errorf("%s: command error %v, End %v; want the command to fail (or, left open, End)", tc.name, err, endErr)
		}
	}
	for _, ci := range []QueryPoolCreateInfo{{Type: 7, NumSlots: 1}, {NumSlots: 0}, {NumSlots: MaxQuerySlots + 1}} {
		if _, err := r.dev.CreateQueryPool(ci); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("CreateQueryPool(%+v): %v, want ErrInvalidArgument", ci, err)
		}
	}
	for _, names := range [][]string{{"no.such_counter"}, {"fs.batches", "fs.batches"}} {
		if _, err := r.dev.CreatePerfExperiment(PerfExperimentCreateInfo{Counters: names}); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("CreatePerfExperiment(%v): %v, want ErrInvalidArgument", names, err)
		}
	}
}
