package kernel

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// These run the kernel on the real hw: shaders that misbehave, never end,
// or run long.

const (
	// ldtmuEmptyFS pops the TMU FIFO without a request: the shader core
	// abandons the batch (a CL_ERROR of cause "shader").
	ldtmuEmptyFS = `
		nop ; nop ; ldtmu
		li tlb_r, 1.0
		nop ; nop ; end`
	// foreverFS never ends.
	foreverFS = `
		loop: brr loop
		nop
		nop
		nop
		nop ; nop ; end`
)

// countdownFS loops n times (2 instructions an iteration, plus the delay
// slots) and then writes red.
func countdownFS(n uint32) string {
	return fmt.Sprintf(`
		li r0, %d
		loop: sub.setf r0, r0, 1 ; nop
		brr.anyzc loop
		nop
		nop
		nop
		li tlb_r, 1.0
		li tlb_g, 0
		li tlb_b, 0
		li tlb_a, 1.0
		nop ; nop ; end`, n)
}

// TestHWShaderErrorFailsFence: before INTR_CL_ERROR was handled, the
// fence of a job whose shader the GPU abandoned signalled success.
func TestHWShaderErrorFailsFence(t *testing.T) {
	d := newHWDevice(t, 5*time.Second)
	bad, good := mustOpen(t, d), mustOpen(t, d)
	ab, _ := hwJob(t, bad, 16, 16, ldtmuEmptyFS, fullScreen, 1)
	ag, target := hwJob(t, good, 16, 16, redFS, fullScreen, 1)
	if err := bad.SubmitCL(ab); err != nil {
		t.Fatal(err)
	}
	if err := good.SubmitCL(ag); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, bad, ab.OutFence); !errors.Is(err, EIO) || !strings.Contains(err.Error(), "on RENDER: a shader misbehaved (CL_ERROR)") {
		t.Errorf("abandoned job: %v", err)
	}
	if s := resetStatus(t, bad); s != ResetGuilty {
		t.Errorf("reset status %d, want ResetGuilty", s)
	}
	if err := wait(t, good, ag.OutFence); err != nil {
		t.Fatalf("innocent job: %v", err)
	}
	if p := pixels(t, good, target)[0]; p != 0xFF0000FF {
		t.Errorf("innocent pixel %#08x", p)
	}
}

// TestHWEndlessShaderIsReset: a shader that never ends is stopped by the
// watchdog within a few JobTimeouts (RESET reaches the running batch), its
// error says what happened, the innocent job is replayed, and Close does
// not wait for the shader.
func TestHWEndlessShaderIsReset(t *testing.T) {
	d := newHWDevice(t, 100*time.Millisecond)
	bad, good := mustOpen(t, d), mustOpen(t, d)
	ab, _ := hwJob(t, bad, 16, 16, foreverFS, fullScreen, 1)
	ag, target := hwJob(t, good, 16, 16, redFS, fullScreen, 1)
	if err := bad.SubmitCL(ab); err != nil {
		t.Fatal(err)
	}
	if err := good.SubmitCL(ag); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := wait(t, bad, ab.OutFence)
	if !errors.Is(err, EIO) || !strings.Contains(err.Error(), "made no progress for 100ms") ||
		!strings.Contains(err.Error(), fmt.Sprintf("context %d: job (fence %d)", bad.ctx.id, ab.OutFence)) {
		t.Errorf("endless job: %v", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("reset after %v", el)
	}
	if err := wait(t, good, ag.OutFence); err != nil {
		t.Fatalf("replayed job: %v", err)
	}
	if p := pixels(t, good, target)[0]; p != 0xFF0000FF {
		t.Errorf("replayed pixel %#08x", p)
	}
	// A second endless job, left running: Close must stop it promptly.
	d2 := newHWDevice(t, time.Hour)
	f := mustOpen(t, d2)
	a2, _ := hwJob(t, f, 16, 16, foreverFS, fullScreen, 1)
	if err := f.SubmitCL(a2); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	start = time.Now()
	d2.Close()
	if el := time.Since(start); el > time.Second {
		t.Errorf("Device.Close took %v with an endless shader running", el)
	}
}

// TestHWLongShaderCompletes: one batch running far more instructions than
// the old per-batch step limit (2^24) completes: the watchdog, not the
// shader core, decides what is hung.
func TestHWLongShaderCompletes(t *testing.T) {
	// A minute: one batch runs it all, which takes over 10 s under -race
	// on a loaded host (a batch that finishes nothing for JobTimeout is a
	// hang by definition).
	d := newHWDevice(t, time.Minute)
	f := mustOpen(t, d)
	// 1<<23 iterations × 2 instructions: 2^24 + the prologue.
	a, target := hwJob(t, f, 4, 4, countdownFS(1<<23), fullScreen, 1)
	if err := f.SubmitCL(a); err != nil {
		t.Fatal(err)
	}
	if err := f.Wait(&WaitArgs{Fence: a.OutFence, Timeout: 2 * time.Minute}); err != nil {
		t.Fatalf("long shader: %v", err)
	}
	for i, p := range pixels(t, f, target)[:4*4] {
		if p != 0xFF0000FF {
			t.Fatalf("pixel %d = %#08x, want red", i, p)
		}
	}
}

// TestHWDrawRightAfterAnotherContextsReset: a context that submits the
// moment a hung context's job has been reset gets its own job done, with
// the right pixels, and stays innocent. cmdbuf's report saw the
// opposite: the hung fragment loop kept a render worker busy after RESET
// (hw checked for RESET only between primitives and tiles), so the next
// job made no progress and was reset in its turn. A large target puts
// many tiles of the hung shader in flight on every core.
func TestHWDrawRightAfterAnotherContextsReset(t *testing.T) {
	tests := []struct {
		name string
		fs   string
	}{
		{"endless fragment shader", foreverFS},
		// 2^25 iterations of five instructions: one 16-lane batch runs
		// for seconds however fast the shader cores execute (translated
		// and native code ran 2,000,000 iterations in under the 100 ms
		// watchdog window, and a job that finishes batches is not hung).
		{"long fragment loop", countdownFS(1 << 25)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newHWDevice(t, 100*time.Millisecond)
			bad, good := mustOpen(t, d), mustOpen(t, d)
			ab, _ := hwJob(t, bad, 256, 256, tt.fs, fullScreen, 1)
			ag, target := hwJob(t, good, 64, 64, redFS, fullScreen, 1)
			if err := bad.SubmitCL(ab); err != nil {
				t.Fatal(err)
			}
			if err := wait(t, bad, ab.OutFence); !errors.Is(err, EIO) {
				t.Fatalf("hung job: %v, want EIO from the watchdog", err)
			}
			for i := range 3 {
				if err := good.SubmitCL(ag); err != nil {
					t.Fatal(err)
				}
				if err := wait(t, good, ag.OutFence); err != nil {
					t.Fatalf("job %d submitted right after the reset: %v", i, err)
				}
				for j, p := range pixels(t, good, target) {
					if p != 0xFF0000FF {
						t.Fatalf("job %d: pixel %d = %#08x, want red", i, j, p)
					}
				}
			}
			if s := resetStatus(t, good); s != ResetNone {
				t.Errorf("innocent context's reset status %d, want ResetNone", s)
			}
		})
	}
}
