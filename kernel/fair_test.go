package kernel

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestContextsShareTheRings: contexts that submit bursts of jobs one after
// another (as clients flushing whole frames at different moments do) share
// the GPU round robin. While a slow job of another context holds the rings,
// each of N contexts submits its whole burst, context by context; then no
// context's k-th job may retire after another context's (k+M)-th, with
// M = 2·maxContextInflight (see dispatch). Jobs of one priority retire in
// ring order (retire walks inflight in order), so the order in which
// Capture sees jobs enter the rings is their retirement order.
//
// Before per-context in-flight limits every burst went into the FIFO ring
// as soon as it was submitted: the last context's first job retired after
// the first context's last.
func TestContextsShareTheRings(t *testing.T) {
	const fairBound = 2 * maxContextInflight
	tests := []struct {
		name     string
		contexts int
		jobs     int
		slowMS   uint32 // per job; 0: instantaneous, so retirements come in batches
	}{
		{"2 contexts, instant jobs", 2, 24, 0},
		{"4 contexts, instant jobs", 4, 20, 0},
		{"6 contexts, 1 ms jobs", 6, 16, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var order []uint32 // context id of each job entering the rings
			g := newFakeGPU(64 << 20)
			d := newDevice(g, Options{JobTimeout: 5 * time.Second, Capture: func(c *Capture) {
				mu.Lock()
				order = append(order, c.Context)
				mu.Unlock()
			}})
			t.Cleanup(func() { d.Close(); g.Close() })

			gate := mustOpen(t, d)
			jg := newTestJob(t, gate, 64, 64)
			jg.script(scriptSlow, 300)
			if err := gate.SubmitCL(&jg.args); err != nil {
				t.Fatal(err)
			}
			waitFor(t, d, "the gate job is in the rings", func() bool { return len(d.inflight[prioNormal]) == 1 })

			files := make([]*File, tt.contexts)
			jobs := make([]*testJob, tt.contexts)
			for i := range files {
				files[i] = mustOpen(t, d)
				jobs[i] = newTestJob(t, files[i], 64, 64)
				jobs[i].pipelined()
				if tt.slowMS > 0 {
					jobs[i].script(scriptSlow, tt.slowMS)
				}
			}
			fences := make([][]uint64, tt.contexts)
			for i, f := range files {
				for range tt.jobs {
					if err := f.SubmitCL(&jobs[i].args); err != nil {
						t.Fatal(err)
					}
					fences[i] = append(fences[i], jobs[i].args.OutFence)
				}
				// One dispatcher step between two clients' bursts, as
				// when they flush at different moments (left alone, the
				// dispatcher goroutine may not get d.mu before every
				// burst is in and see them all queued at once).
				d.mu.Lock()
				d.service()
				d.mu.Unlock()
			}
			if signalled(gate, jg.args.OutFence) {
				t.Fatal("the gate job finished before every burst was submitted; the host is too slow for this test")
			}
			for i, f := range files {
				for _, fn := range fences[i] {
					if err := wait(t, f, fn); err != nil {
						t.Fatal(err)
					}
				}
			}

			mu.Lock()
			defer mu.Unlock()
			ctxIndex := map[uint32]int{}
			for i, f := range files {
				ctxIndex[f.ctx.id] = i
			}
			emitted := make([]int, tt.contexts) // jobs of each context in the rings so far
			worst, where := 0, ""
			for _, id := range order {
				x, ok := ctxIndex[id]
				if !ok {
					continue // the gate
				}
				emitted[x]++
				k := emitted[x]
				for y, n := range emitted {
					// Context y's (k+lag)-th job is ahead of x's k-th.
					if lag := n - k; y != x && lag > worst {
						worst, where = lag, fmt.Sprintf("context %d's job %d entered the rings after context %d's job %d", x, k, y, n)
					}
				}
			}
			for i, n := range emitted {
				if n != tt.jobs {
					t.Fatalf("context %d: %d jobs seen entering the rings, want %d", i, n, tt.jobs)
				}
			}
			t.Logf("largest lead of one context over another: %d jobs (bound %d)", worst, fairBound)
			if worst >= fairBound {
				t.Errorf("unfair: %s (a lead of %d jobs; bound %d)", where, worst, fairBound)
			}
		})
	}
}
