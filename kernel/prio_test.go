package kernel

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw"
)

func setPrio(t testing.TB, f *File, p Priority) {
	t.Helper()
	if err := f.SetPriority(&SetPriorityArgs{Priority: p}); err != nil {
		t.Fatal(err)
	}
}

// signalled reports whether fence fn has signalled, without waiting.
func signalled(f *File, fn uint64) bool {
	return !errors.Is(f.Wait(&WaitArgs{Fence: fn}), ETIMEDOUT)
}

// waitFor polls cond (under d.mu) until it holds or a second passes.
func waitFor(t testing.TB, d *Device, what string, cond func() bool) {
	t.Helper()
	// Generous: the machine running the tests may be loaded; a condition
	// that holds is seen at once.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Microsecond) {
		d.mu.Lock()
		ok := cond()
		d.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
	}
}

// pipelined makes j's repeated submissions independent: without the
// scratch buffer (written through a relocation, so each job would wait for
// the previous one) nothing orders them but the rings.
func (j *testJob) pipelined() {
	j.args.Relocs = append(j.args.Relocs[:8:8], j.args.Relocs[9:]...)
	binary.LittleEndian.PutUint32(j.args.ShaderRecords[32:], 0)
}

func TestSetPriority(t *testing.T) {
	d, _ := newTestDevice(t, time.Second)
	tests := []struct {
		name  string
		prio  Priority
		close bool
		want  Errno
	}{
		{"normal", PriorityNormal, false, 0},
		{"high", PriorityHigh, false, 0},
		{"unknown level", 2, false, EINVAL},
		{"huge", 0xFFFF_FFFF, false, EINVAL},
		{"closed file", PriorityHigh, true, EINVAL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustOpen(t, d)
			if tt.close {
				f.Close()
			}
			err := f.SetPriority(&SetPriorityArgs{Priority: tt.prio})
			if tt.want == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if f.ctx.prio != int(tt.prio) {
					t.Errorf("context priority %d, want %d", f.ctx.prio, tt.prio)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("SetPriority(%d) = %v, want %v", tt.prio, err, tt.want)
			}
			if !tt.close && !strings.Contains(err.Error(), "unknown priority") {
				t.Errorf("message %q does not name the priority", err)
			}
		})
	}
	a := GetParamArgs{Param: ParamNumPriorities}
	if err := mustOpen(t, d).GetParam(&a); err != nil || a.Value != 2 {
		t.Errorf("ParamNumPriorities = %d, %v", a.Value, err)
	}
}

// TestHighPriorityOvertakesNormalQueue: a high-priority job submitted behind
// a queue of slow normal jobs finishes while most of them still wait; it
// runs on the high rings and its context's memstore words of priority 1.
func TestHighPriorityOvertakesNormalQueue(t *testing.T) {
	prios := map[uint64]Priority{}
	g := newFakeGPU(64 << 20)
	d := newDevice(g, Options{JobTimeout: 5 * time.Second, Capture: func(c *Capture) { prios[c.Fence] = c.Priority }})
	t.Cleanup(func() { d.Close(); g.Close() })
	normal, high := mustOpen(t, d), mustOpen(t, d)
	setPrio(t, high, PriorityHigh)
	const queued = 8
	var fences []uint64
	for range queued {
		// The first job holds the engines until the high job is queued
		// (with only timed 15 ms jobs, most of them could finish before
		// that on a loaded machine); the others take 15 ms each, time for
		// the scheduler to put the high job before them.
		j := newTestJob(t, normal, 64, 64)
		if len(fences) == 0 {
			j.script(scriptGate, 0)
		} else {
			j.script(scriptSlow, 15)
		}
		if err := normal.SubmitCL(&j.args); err != nil {
			t.Fatal(err)
		}
		fences = append(fences, j.args.OutFence)
	}
	t.Cleanup(g.openGate)
	waitFor(t, d, "the normal jobs are in the rings", func() bool { return len(d.inflight[prioNormal]) == min(queued, maxContextInflight) })
	jh := newTestJob(t, high, 64, 64)
	if err := high.SubmitCL(&jh.args); err != nil {
		t.Fatal(err)
	}
	g.openGate()
	if err := wait(t, high, jh.args.OutFence); err != nil {
		t.Fatal(err)
	}
	done := 0
	for _, fn := range fences {
		if signalled(normal, fn) {
			done++
		}
	}
	// At most the normal job the engines were in when the high job arrived,
	// and the one whose render overlapped the high job's bin, finished first.
	if done > 2 {
		t.Errorf("%d of %d earlier normal jobs finished before the high-priority one", done, queued)
	}
	for _, fn := range fences {
		if err := wait(t, normal, fn); err != nil {
			t.Fatal(err)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(prios) != queued+1 || prios[jh.args.OutFence] != PriorityHigh || prios[fences[0]] != PriorityNormal {
		t.Errorf("captured priorities %v", prios)
	}
	if got := d.memstoreSeqno(high.ctx, prioHigh); got != uint32(jh.args.OutFence) {
		t.Errorf("high context's priority-1 seqno word = %d, want %d", got, jh.args.OutFence)
	}
	if got := d.memstoreSeqno(high.ctx, prioNormal); got != 0 {
		t.Errorf("high context's priority-0 seqno word = %d, want 0", got)
	}
}

// TestPriorityChangeKeepsContextOrder: jobs of one context run in
// submission order even when its priority changes between them.
func TestPriorityChangeKeepsContextOrder(t *testing.T) {
	tests := []struct {
		name     string
		from, to Priority
	}{{"normal to high", PriorityNormal, PriorityHigh}, {"high to normal", PriorityHigh, PriorityNormal}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, _ := newTestDevice(t, 5*time.Second)
			f := mustOpen(t, d)
			setPrio(t, f, tt.from)
			j1 := newTestJob(t, f, 64, 64)
			j1.script(scriptSlow, 30)
			if err := f.SubmitCL(&j1.args); err != nil {
				t.Fatal(err)
			}
			setPrio(t, f, tt.to)
			j2 := newTestJob(t, f, 64, 64)
			if err := f.SubmitCL(&j2.args); err != nil {
				t.Fatal(err)
			}
			if err := wait(t, f, j2.args.OutFence); err != nil {
				t.Fatal(err)
			}
			if !signalled(f, j1.args.OutFence) {
				t.Error("the later job of the context finished before the earlier one")
			}
		})
	}
}

// TestNormalWorkNotStarved: while a high-priority client keeps the rings
// busy, a normal job still finishes within about the starvation limit.
func TestNormalWorkNotStarved(t *testing.T) {
	g := newFakeGPU(64 << 20)
	d := newDevice(g, Options{JobTimeout: 5 * time.Second, starveLimit: 30 * time.Millisecond})
	t.Cleanup(func() { d.Close(); g.Close() })
	normal, high := mustOpen(t, d), mustOpen(t, d)
	setPrio(t, high, PriorityHigh)
	jh := newTestJob(t, high, 64, 64)
	jh.script(scriptSlow, 5)
	jh.pipelined()
	stop := make(chan struct{})
	highErr := make(chan error, 1)
	go func() {
		// Keep four high-priority jobs in flight until told to stop.
		var inflight []uint64
		for {
			select {
			case <-stop:
				highErr <- nil
				return
			default:
			}
			if len(inflight) == 4 {
				if err := high.Wait(&WaitArgs{Fence: inflight[0], Timeout: 5 * time.Second}); err != nil {
					highErr <- err
					return
				}
				inflight = inflight[1:]
			}
			if err := high.SubmitCL(&jh.args); err != nil {
				highErr <- err
				return
			}
			inflight = append(inflight, jh.args.OutFence)
		}
	}()
	time.Sleep(20 * time.Millisecond) // the high stream is running
	jn := newTestJob(t, normal, 64, 64)
	start := time.Now()
	if err := normal.SubmitCL(&jn.args); err != nil {
		t.Fatal(err)
	}
	err := normal.Wait(&WaitArgs{Fence: jn.args.OutFence, Timeout: 3 * time.Second})
	took := time.Since(start)
	close(stop)
	if err := <-highErr; err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatalf("normal job starved: %v", err)
	}
	// 30 ms limit + four 5 ms high jobs already in the rings, with slack
	// for a loaded host.
	if took > time.Second {
		t.Errorf("normal job took %v behind the high-priority stream", took)
	}
}

// TestResetReplaysInnocentJobsOfBothPriorities: a hang on either priority
// resets the engines; innocent jobs of both priorities in the rings are
// replayed and render, and only the hung context is guilty.
func TestResetReplaysInnocentJobsOfBothPriorities(t *testing.T) {
	for _, hungPrio := range []Priority{PriorityNormal, PriorityHigh} {
		t.Run([]string{"hang on normal", "hang on high"}[hungPrio], func(t *testing.T) {
			d, g := newTestDevice(t, 50*time.Millisecond)
			hung := mustOpen(t, d)
			setPrio(t, hung, hungPrio)
			// The hung job works (so the watchdog leaves it alone) until
			// the innocents are queued, then hangs: a plain hang with a
			// 50 ms timeout could be reset before they were queued on a
			// loaded machine ("rings before the reset: 0 normal").
			jh := newTestJob(t, hung, 64, 64)
			jh.script(scriptGateHang, 0)
			t.Cleanup(g.openGate)
			if err := hung.SubmitCL(&jh.args); err != nil {
				t.Fatal(err)
			}
			waitFor(t, d, "the hung job is binning", func() bool { return d.executing(engineBin) != nil })
			type client struct {
				f *File
				j *testJob
			}
			var innocents []client
			for _, p := range []Priority{PriorityNormal, PriorityHigh, PriorityNormal, PriorityHigh} {
				f := mustOpen(t, d)
				setPrio(t, f, p)
				j := newTestJob(t, f, 64, 64)
				j.args.ClearColor = 0xFF000000 | uint32(len(innocents)+1)
				if err := f.SubmitCL(&j.args); err != nil {
					t.Fatal(err)
				}
				innocents = append(innocents, client{f, j})
			}
			// Both priorities' rings hold work when the watchdog fires.
			waitFor(t, d, "both rings hold innocent work", func() bool {
				return len(d.inflight[prioNormal]) > 0 && len(d.inflight[prioHigh]) > 0
			})
			g.openGate()
			if err := wait(t, hung, jh.args.OutFence); !errors.Is(err, EIO) || !strings.Contains(err.Error(), "engines reset") {
				t.Errorf("hung job: %v", err)
			}
			for i, c := range innocents {
				if err := wait(t, c.f, c.j.args.OutFence); err != nil {
					t.Errorf("innocent job %d: %v", i, err)
					continue
				}
				m := MmapBOArgs{Handle: c.j.handles[boTarget]}
				if err := c.f.MmapBO(&m); err != nil {
					t.Fatal(err)
				}
				if got := binary.LittleEndian.Uint32(m.Mapping); got != c.j.args.ClearColor {
					t.Errorf("innocent job %d: pixel %#x, want %#x", i, got, c.j.args.ClearColor)
				}
				if c.f.ctx.guilty != nil {
					t.Errorf("innocent context %d marked guilty: %v", i, c.f.ctx.guilty)
				}
			}
		})
	}
}

// TestBothRingsWrap runs enough jobs through small rings that each
// priority's BIN and RENDER rings wrap several times, on the fake command
// processor and on the real hardware.
func TestBothRingsWrap(t *testing.T) {
	tests := []struct {
		name string
		open func(t *testing.T) (*Device, func(*File) *SubmitCLArgs)
	}{
		{"fake", func(t *testing.T) (*Device, func(*File) *SubmitCLArgs) {
			g := newFakeGPU(64 << 20)
			d := newDevice(g, Options{JobTimeout: 5 * time.Second, ringBytes: 4096})
			t.Cleanup(func() { d.Close(); g.Close() })
			return d, func(f *File) *SubmitCLArgs { return &newTestJob(t, f, 16, 16).args }
		}},
		{"hw", func(t *testing.T) (*Device, func(*File) *SubmitCLArgs) {
			g := hw.New(hw.Config{MemorySize: 64 << 20, Cores: 2})
			d := newDevice(hwMachine{g}, Options{JobTimeout: 5 * time.Second, ringBytes: 4096})
			t.Cleanup(func() { d.Close(); g.Close() })
			return d, func(f *File) *SubmitCLArgs {
				a, _ := hwJob(t, f, 16, 16, redFS, fullScreen, 1)
				return a
			}
		}},
	}
	// 4096-byte rings: a job takes 36 bytes of BIN and 52 of RENDER, so
	// 240 jobs wrap the BIN ring twice and the RENDER ring three times.
	const jobs = 240
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, mk := tt.open(t)
			errs := make(chan error, numPriorities)
			for p := range Priority(numPriorities) {
				f := mustOpen(t, d)
				setPrio(t, f, p)
				a := mk(f)
				go func() {
					var last uint64
					for i := range jobs {
						if err := f.SubmitCL(a); err != nil {
							errs <- err
							return
						}
						if i%32 == 31 {
							if err := f.Wait(&WaitArgs{Fence: a.OutFence, Timeout: 10 * time.Second}); err != nil {
								errs <- err
								return
							}
						}
						last = a.OutFence
					}
					errs <- f.Wait(&WaitArgs{Fence: last, Timeout: 10 * time.Second})
				}()
			}
			for range numPriorities {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			d.mu.Lock()
			defer d.mu.Unlock()
			for e := range d.rings {
				if !kindGraphics.uses(e) {
					continue // graphics jobs do not use COMPUTE's and DMA's rings
				}
				for p, r := range d.rings[e] {
					if r.submitted < 2*uint64(r.size) {
						t.Errorf("engine %d priority %d: %d bytes written to a %d-byte ring; it did not wrap twice", e, p, r.submitted, r.size)
					}
				}
			}
		})
	}
}

// TestHWHighPriorityOvertakesNormalQueue: on the real GPU, a high-priority
// job submitted behind a queue of long normal jobs finishes first.
func TestHWHighPriorityOvertakesNormalQueue(t *testing.T) {
	d := newHWDevice(t, 5*time.Second)
	normal, high := mustOpen(t, d), mustOpen(t, d)
	setPrio(t, high, PriorityHigh)
	const queued = 6
	var fences []uint64
	// Each normal job bins 4000 full-screen triangles (tens of ms).
	an, _ := hwJob(t, normal, 64, 64, busyFS, fullScreen, 4000)
	for range queued {
		if err := normal.SubmitCL(an); err != nil {
			t.Fatal(err)
		}
		fences = append(fences, an.OutFence)
	}
	ah, target := hwJob(t, high, 64, 64, redFS, fullScreen, 1)
	waitFor(t, d, "the normal jobs are in the rings", func() bool { return len(d.inflight[prioNormal]) == min(queued, maxContextInflight) })
	if err := high.SubmitCL(ah); err != nil {
		t.Fatal(err)
	}
	// The high job waits for the normal indirect buffer already running
	// (no preemption inside an IB); under the race detector that is seconds.
	// The test is about order, so the wait is generous.
	if err := high.Wait(&WaitArgs{Fence: ah.OutFence, Timeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	done := 0
	for _, fn := range fences {
		if signalled(normal, fn) {
			done++
		}
	}
	if done > 2 {
		t.Errorf("%d of %d earlier normal jobs finished before the high-priority one", done, queued)
	}
	if p := pixels(t, high, target)[0]; p != 0xFF0000FF {
		t.Errorf("high-priority job pixel = %#08x", p)
	}
	for _, fn := range fences {
		if err := normal.Wait(&WaitArgs{Fence: fn, Timeout: time.Minute}); err != nil {
			t.Fatal(err)
		}
	}
}
