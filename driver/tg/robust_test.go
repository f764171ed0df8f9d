package tg

import (
	"errors"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/pipe"
)

// usesBO reports whether a submission names BO handle h.
func usesBO(s *Submit, h uint32) bool {
	for _, b := range s.BOs {
		if b.Handle == h {
			return true
		}
	}
	return false
}

// TestWriterFlushesQueuedReaders: draw sampling T into the screen, then
// render into T. The render into T must not reach the kernel before the
// draw that samples the old T: creating the writer's job flushes the
// queued reader first. Before, sampling T again flushed only T's writer,
// so the kernel ran the render into T first and the first draw saw the
// new T.
func TestWriterFlushesQueuedReaders(t *testing.T) {
	r := newRig(t, "tex")
	tex, err := r.s.newResource(pipe.ResourceTemplate{Target: pipe.TargetTexture2D, Format: pipe.FormatRGBA8, Width: 16, Height: 16, Levels: 1})
	if err != nil {
		t.Fatal(err)
	}
	mainFB := r.c.fb
	r.c.SetSamplerViews([]pipe.SamplerView{r.c.CreateSamplerView(tex, pipe.SamplerViewTemplate{Levels: 1, Swizzle: pipe.IdentitySwizzle})})
	r.c.BindSamplerStates([]pipe.SamplerHandle{r.c.CreateSamplerState(&pipe.SamplerState{})})
	r.c.SetUniformStorage([]uint32{1, 2, 3, 4, 0})
	draw := func() {
		t.Helper()
		if err := r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3}); err != nil {
			t.Fatal(err)
		}
	}
	draw() // reads T into the screen
	r.c.SetFramebufferState(&pipe.FramebufferState{Width: 16, Height: 16, Color: pipe.Surface{Resource: tex}})
	r.c.SetSamplerViews(nil)
	draw() // writes T
	r.c.SetFramebufferState(&mainFB)
	r.c.SetSamplerViews([]pipe.SamplerView{r.c.CreateSamplerView(tex, pipe.SamplerViewTemplate{Levels: 1, Swizzle: pipe.IdentitySwizzle})})
	draw() // reads the new T
	if _, err := r.c.Flush(); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, s := range r.ws.submits {
		switch {
		case s.Width == 16:
			order = append(order, "write T")
		case usesBO(s, tex.bo.Handle):
			order = append(order, "read T")
		default:
			order = append(order, "other")
		}
	}
	want := []string{"read T", "write T", "read T"}
	if len(order) != len(want) {
		t.Fatalf("submissions %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("submissions %v, want %v", order, want)
		}
	}
}

// TestDestroyedContextRefusesWork: after Destroy, calls that would reach
// the kernel fail with ErrContextDestroyed instead of touching freed
// state; a framebuffer whose resource was destroyed is an error too.
func TestDestroyedContextRefusesWork(t *testing.T) {
	r := newRig(t, "fs")
	color := r.c.fb.Color.Resource
	r.s.ResourceDestroy(color)
	if err := r.c.Clear(pipe.ClearColor, [4]float32{1, 0, 0, 1}, 1, 0); err == nil {
		t.Error("clear of a destroyed colour buffer succeeded")
	}
	r.c.Destroy()
	r.c.Destroy() // twice is harmless
	calls := map[string]error{
		"Draw":  r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3}),
		"Clear": r.c.Clear(pipe.ClearColor, [4]float32{}, 1, 0),
	}
	_, calls["Flush"] = r.c.Flush()
	calls["FenceFinish"] = r.c.FenceFinish(1, 0)
	calls["BufferWrite"] = r.c.BufferWrite(r.vb, 0, []byte{1})
	calls["ResourceRead"] = r.c.ResourceRead(r.vb, 0, 0, 0, 0, 1, 1, make([]byte, 1))
	_, calls["CreateProgramState"] = r.c.CreateProgramState(nil)
	for name, err := range calls {
		if !errors.Is(err, ErrContextDestroyed) {
			t.Errorf("%s after Destroy: %v, want ErrContextDestroyed", name, err)
		}
	}
}

type resetWinsys struct {
	*fakeWinsys
	status uint64
}

func (w *resetWinsys) GetParam(p KernelParam) (uint64, error) {
	if p == KernelParamResetStatus {
		return w.status, nil
	}
	return w.fakeWinsys.GetParam(p)
}

func TestGetDeviceResetStatus(t *testing.T) {
	for _, tc := range []struct {
		kernel uint64
		want   pipe.ResetStatus
	}{{0, pipe.NoReset}, {1, pipe.GuiltyContextReset}, {2, pipe.InnocentContextReset}, {7, pipe.UnknownContextReset}} {
		ws := &resetWinsys{newFakeWinsys(), tc.kernel}
		s, err := NewScreen(ws, &fakeCompiler{}, ScreenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.NewContext().GetDeviceResetStatus(); got != tc.want {
			t.Errorf("kernel status %d: %v, want %v", tc.kernel, got, tc.want)
		}
	}
}

// TestFenceFinishReportsEarlierFailures: waiting for the last fence also
// reports an earlier job of the context that failed, which a wait on the
// last fence alone hid.
func TestFenceFinishReportsEarlierFailures(t *testing.T) {
	r := newRig(t, "fs")
	tex, err := r.s.newResource(pipe.ResourceTemplate{Target: pipe.TargetTexture2D, Format: pipe.FormatRGBA8, Width: 16, Height: 16, Levels: 1})
	if err != nil {
		t.Fatal(err)
	}
	mainFB := r.c.fb
	r.c.SetFramebufferState(&pipe.FramebufferState{Width: 16, Height: 16, Color: pipe.Surface{Resource: tex}})
	if err := r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3}); err != nil {
		t.Fatal(err)
	}
	r.c.SetFramebufferState(&mainFB)
	if err := r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3}); err != nil {
		t.Fatal(err)
	}
	f, err := r.c.FlushFrame()
	if err != nil || f != 2 {
		t.Fatalf("FlushFrame: fence %d, %v", f, err)
	}
	if !r.ws.submits[1].EndOfFrame || r.ws.submits[0].EndOfFrame {
		t.Error("FlushFrame did not mark exactly its last job as the end of the frame")
	}
	boom := errors.New("EIO: job 1 faulted")
	r.ws.fenceErr = map[uint64]error{1: boom}
	if err := r.c.FenceFinish(f, time.Second); !errors.Is(err, boom) {
		t.Errorf("FenceFinish(last) = %v, want the first job's failure", err)
	}
	if err := r.c.FenceFinish(f, time.Second); err != nil {
		t.Errorf("the failure was reported twice: %v", err)
	}
}
