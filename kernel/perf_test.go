package kernel

import (
	"errors"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw"
)

func waitFence(t *testing.T, f *File, fence uint64) error {
	t.Helper()
	return f.Wait(&WaitArgs{Fence: fence, Timeout: 10 * time.Second})
}

// A job's JobInfo carries the command processor's start- and end-of-pipe
// timestamps in order, and counts that follow from the geometry: three
// full-screen triangles on a 100×70 target of 2×2 tiles.
func TestJobTimesAndCounters(t *testing.T) {
	d := newHWDevice(t, 5*time.Second)
	f := mustOpen(t, d)
	const w, h = 100, 70
	a, _ := hwJob(t, f, w, h, redFS, fullScreen, 3)
	a.Tag = 42
	if err := f.SubmitCL(a); err != nil {
		t.Fatal(err)
	}
	if err := waitFence(t, f, a.OutFence); err != nil {
		t.Fatal(err)
	}
	q := QueryJobArgs{Fence: a.OutFence}
	if err := f.QueryJob(&q); err != nil {
		t.Fatal(err)
	}
	if q.Info.Tag != 42 {
		t.Errorf("QueryJob tag %d, want the SubmitCL's 42", q.Info.Tag)
	}
	tm := q.Info.Times
	seq := []struct {
		name string
		v    uint64
	}{{"queued", tm.Queued}, {"submitted", tm.Submitted}, {"bin start", tm.BinStart}, {"bin end", tm.BinEnd},
		{"render start", tm.RenderStart}, {"render end", tm.RenderEnd}, {"retired", tm.Retired}}
	for i, s := range seq {
		if s.v == 0 {
			t.Errorf("%s time missing: %+v", s.name, tm)
		}
		if i > 0 && s.v < seq[i-1].v {
			t.Errorf("%s (%d) before %s (%d)", s.name, s.v, seq[i-1].name, seq[i-1].v)
		}
	}
	want := map[hw.Counter]uint64{
		hw.CtrBinPrimitives:      3,
		hw.CtrBinBinned:          3,
		hw.CtrBinCulled:          0,
		hw.CtrBinTileRefs:        3 * 4,
		hw.CtrTiles:              4,
		hw.CtrTileStores:         4,
		hw.CtrTileLoads:          0,
		hw.CtrRenderBytesWritten: w * h * 4,
		hw.CtrPrimitives:         3 * 4,
		hw.CtrFragmentsShaded:    3 * w * h,
		hw.CtrFragmentsWritten:   3 * w * h,
		hw.CtrFragmentsDiscarded: 0,
		// hwJob blends (ONE, ZERO) so that hidden-surface removal keeps
		// its overlapping triangles as work.
		hw.CtrFragmentsBlended: 3 * w * h,
		hw.CtrHSRPrimitives:    0,
	}
	for c, v := range want {
		if got := q.Info.Counters[c]; got != v {
			t.Errorf("%v = %d, want %d", c, got, v)
		}
	}
	if q.Info.Counters[hw.CtrFSInstructions] == 0 || q.Info.Counters[hw.CtrCSVertices] < 3 || q.Info.Counters[hw.CtrBinBytesWritten] < 3*4*14 {
		t.Errorf("instruction/vertex/byte counters implausible: %v", q.Info.Counters)
	}
	// One FLOAT vec3 attribute: 12 bytes per shaded vertex on both sides.
	// The tiles shade a vertex or read it from the binner's vertex store.
	c := &q.Info.Counters
	if c[hw.CtrBinBytesRead] != 12*c[hw.CtrCSVertices] || c[hw.CtrVSBytesRead] != 12*c[hw.CtrVSVertices] || c[hw.CtrVSVertices]+c[hw.CtrVSStoredVertices] == 0 {
		t.Errorf("attribute bytes: bin %d for %d vertices, vs %d for %d vertices; want 12 per vertex",
			c[hw.CtrBinBytesRead], c[hw.CtrCSVertices], c[hw.CtrVSBytesRead], c[hw.CtrVSVertices])
	}
	if q.Info.Err != nil || q.Info.Fence != a.OutFence || q.Info.Context != f.ctx.id {
		t.Errorf("info %+v", q.Info)
	}

	// Another File cannot read this job.
	g := mustOpen(t, d)
	if err := g.QueryJob(&QueryJobArgs{Fence: a.OutFence}); !errors.Is(err, ENOENT) {
		t.Errorf("QueryJob of another file's fence: %v, want ENOENT", err)
	}
}

// A perf monitor sums the counters of exactly the jobs attached to it.
func TestPerfMonCountsAttachedJobs(t *testing.T) {
	d := newHWDevice(t, 5*time.Second)
	f := mustOpen(t, d)
	const w, h = 64, 64
	mon := PerfMonCreateArgs{Counters: []PerfCounter{PerfCounter(hw.CtrFragmentsShaded), PerfCounter(hw.CtrTiles)}}
	if err := f.PerfMonCreate(&mon); err != nil {
		t.Fatal(err)
	}
	a, _ := hwJob(t, f, w, h, redFS, fullScreen, 1)
	var last uint64
	for i, attach := range []bool{true, false, true} {
		b := *a
		if attach {
			b.PerfMon = mon.ID
		}
		if err := f.SubmitCL(&b); err != nil {
			t.Fatalf("job %d: %v", i, err)
		}
		last = b.OutFence
	}
	if err := waitFence(t, f, last); err != nil {
		t.Fatal(err)
	}
	get := PerfMonGetArgs{ID: mon.ID}
	if err := f.PerfMonGet(&get); err != nil {
		t.Fatal(err)
	}
	if get.Jobs != 2 || get.Pending != 0 || get.Values[0] != 2*w*h || get.Values[1] != 2 {
		t.Fatalf("perf monitor: jobs %d pending %d values %v, want 2 jobs, [%d 2]", get.Jobs, get.Pending, get.Values, 2*w*h)
	}
	if err := f.PerfMonDestroy(&PerfMonDestroyArgs{ID: mon.ID}); err != nil {
		t.Fatal(err)
	}
	if err := f.PerfMonGet(&PerfMonGetArgs{ID: mon.ID}); !errors.Is(err, ENOENT) {
		t.Fatalf("get after destroy: %v", err)
	}
	b := *a
	b.PerfMon = mon.ID
	if err := f.SubmitCL(&b); !errors.Is(err, ENOENT) {
		t.Fatalf("submit with a destroyed perf monitor: %v, want ENOENT", err)
	}
}

func TestPerfMonCreateRejectsBadCounters(t *testing.T) {
	d := newHWDevice(t, 5*time.Second)
	f := mustOpen(t, d)
	for _, tc := range []struct {
		name string
		ctrs []PerfCounter
	}{
		{"none", nil},
		{"unknown", []PerfCounter{PerfCounter(NumPerfCounters)}},
		{"repeated", []PerfCounter{1, 2, 1}},
	} {
		if err := f.PerfMonCreate(&PerfMonCreateArgs{Counters: tc.ctrs}); !errors.Is(err, EINVAL) {
			t.Errorf("%s: %v, want EINVAL", tc.name, err)
		}
	}
	for i := 0; i < maxPerfMons; i++ {
		if err := f.PerfMonCreate(&PerfMonCreateArgs{Counters: []PerfCounter{0}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.PerfMonCreate(&PerfMonCreateArgs{Counters: []PerfCounter{0}}); !errors.Is(err, EBUSY) {
		t.Fatalf("perf monitor %d: %v, want EBUSY", maxPerfMons+1, err)
	}
}

// OnRetire sees a faulting job with its error; its counts stop where the
// fault cut it short but its end-of-pipe records still arrive.
func TestOnRetireSeesFailedJob(t *testing.T) {
	g := hw.New(hw.Config{MemorySize: 64 << 20, Cores: 2})
	infos := make(chan JobInfo, 4)
	d := NewDevice(g, Options{JobTimeout: 5 * time.Second, OnRetire: func(i *JobInfo) { infos <- *i }})
	t.Cleanup(func() { d.Close(); g.Close() })
	f := mustOpen(t, d)
	a, _ := hwJob(t, f, 64, 64, faultFS, fullScreen, 1)
	a.Tag = 0xC0FFEE_0000_0001
	if err := f.SubmitCL(a); err != nil {
		t.Fatal(err)
	}
	if err := waitFence(t, f, a.OutFence); !errors.Is(err, EIO) {
		t.Fatalf("wait: %v, want EIO", err)
	}
	info := <-infos
	if info.Fence != a.OutFence || info.Err == nil || info.Tag != a.Tag {
		t.Fatalf("OnRetire got %+v (want fence %d, an error and tag %#x)", info, a.OutFence, a.Tag)
	}
	if info.Times.RenderEnd == 0 || info.Counters[hw.CtrFragmentsWritten] != 0 {
		t.Errorf("faulting job: render end %d, fragments written %d", info.Times.RenderEnd, info.Counters[hw.CtrFragmentsWritten])
	}
}

// With the tile trace on, a job's JobInfo lists each of its tiles once,
// inside its render pass, with the fragments each tile shaded.
func TestTileTraceListsTheJobsTiles(t *testing.T) {
	g := hw.New(hw.Config{MemorySize: 64 << 20, Cores: 2})
	d := NewDevice(g, Options{JobTimeout: 5 * time.Second, TileTrace: true})
	t.Cleanup(func() { d.Close(); g.Close() })
	f := mustOpen(t, d)
	const w, h = 150, 70 // 3×2 tiles, the last column 22 pixels wide
	a, _ := hwJob(t, f, w, h, redFS, fullScreen, 1)
	var fences []uint64
	for range 3 {
		b := *a
		if err := f.SubmitCL(&b); err != nil {
			t.Fatal(err)
		}
		fences = append(fences, b.OutFence)
	}
	if err := waitFence(t, f, fences[2]); err != nil {
		t.Fatal(err)
	}
	for _, fn := range fences {
		q := QueryJobArgs{Fence: fn}
		if err := f.QueryJob(&q); err != nil {
			t.Fatal(err)
		}
		seen := map[[2]int]bool{}
		var frags uint32
		for _, r := range q.Info.Tiles {
			if seen[[2]int{r.Col, r.Row}] {
				t.Errorf("fence %d: tile %d,%d twice", fn, r.Col, r.Row)
			}
			seen[[2]int{r.Col, r.Row}] = true
			if r.Start < q.Info.Times.RenderStart || r.End > q.Info.Times.RenderEnd || r.End < r.Start {
				t.Errorf("fence %d: tile %+v outside the render pass %d..%d", fn, r, q.Info.Times.RenderStart, q.Info.Times.RenderEnd)
			}
			if r.Core < 0 || r.Core >= 2 {
				t.Errorf("fence %d: tile on core %d of 2", fn, r.Core)
			}
			wantFrags := uint32(64 * 64)
			if r.Col == 2 {
				wantFrags = 22 * 64
			}
			if r.Row == 1 {
				wantFrags = wantFrags / 64 * 6
			}
			if r.Fragments != wantFrags || r.Instructions == 0 {
				t.Errorf("fence %d: tile %d,%d shaded %d fragments (%d instructions), want %d", fn, r.Col, r.Row, r.Fragments, r.Instructions, wantFrags)
			}
			frags += r.Fragments
		}
		if len(seen) != 6 || frags != w*h {
			t.Errorf("fence %d: %d tiles, %d fragments; want 6 tiles, %d", fn, len(seen), frags, w*h)
		}
	}
}

// FuzzPerfMonIoctls drives PerfMonCreate, PerfMonGet, PerfMonDestroy and
// QueryJob with random arguments from two clients: each call succeeds or
// fails with a *Error, a monitor returns one value per counter it was
// created with, and one client never reaches the other's monitors.
func FuzzPerfMonIoctls(f *testing.F) {
	d := newHWDevice(f, 200*time.Millisecond)
	f.Add([]byte{0, 0, 3, 1, 2, 9, 1, 0, 1, 2, 1, 1, 3, 0, 5})
	f.Add([]byte{0, 1, 30, 0, 0, 0, 1, 1, 0, 1, 0, 1, 2, 0, 1})
	f.Fuzz(func(t *testing.T, prog []byte) {
		files := [2]*File{mustOpen(t, d), mustOpen(t, d)}
		defer files[0].Close()
		defer files[1].Close()
		made := [2]map[uint32]int{{}, {}}
		check := func(call string, err error) {
			var ke *Error
			if err != nil && !errors.As(err, &ke) {
				t.Fatalf("%s: %v (%T) is not a *kernel.Error", call, err, err)
			}
		}
		next := func() byte {
			if len(prog) == 0 {
				return 0
			}
			b := prog[0]
			prog = prog[1:]
			return b
		}
		for steps := 0; len(prog) >= 2 && steps < 64; steps++ {
			op, who := next()%4, int(next()%2)
			fl := files[who]
			switch op {
			case 0:
				n := int(next() % 40)
				ctrs := make([]PerfCounter, n)
				for i := range ctrs {
					ctrs[i] = PerfCounter(next() % 32)
				}
				a := PerfMonCreateArgs{Counters: ctrs}
				err := fl.PerfMonCreate(&a)
				check("PerfMonCreate", err)
				if err == nil {
					made[who][a.ID] = n
				}
			case 1:
				a := PerfMonGetArgs{ID: uint32(next() % 8)}
				err := fl.PerfMonGet(&a)
				check("PerfMonGet", err)
				n, mine := made[who][a.ID]
				if err == nil && (!mine || len(a.Values) != n) {
					t.Fatalf("client %d read monitor %d (its own: %v) with %d values, want %d", who, a.ID, mine, len(a.Values), n)
				}
			case 2:
				id := uint32(next() % 8)
				err := fl.PerfMonDestroy(&PerfMonDestroyArgs{ID: id})
				check("PerfMonDestroy", err)
				if _, mine := made[who][id]; (err == nil) != mine {
					t.Fatalf("client %d destroyed monitor %d (its own: %v): %v", who, id, mine, err)
				}
				delete(made[who], id)
			case 3:
				check("QueryJob", fl.QueryJob(&QueryJobArgs{Fence: uint64(next())}))
			}
		}
	})
}
