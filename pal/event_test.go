package pal

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/kernel"
)

// gpuTime reads the GPU's timestamp counter now.
func gpuTime(t testing.TB, d *Device) uint64 {
	t.Helper()
	p := kernel.GetParamArgs{Param: kernel.ParamTimestamp}
	if err := d.file.GetParam(&p); err != nil {
		t.Fatal(err)
	}
	return p.Value
}

// newEvent creates an event bound to fresh, device-wide resident memory
// (at offset off of a 4 KiB allocation).
func newEvent(t testing.TB, d *Device, off uint64) (*GpuEvent, *GpuMemory) {
	t.Helper()
	e, err := d.CreateGpuEvent(GpuEventCreateInfo{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := d.CreateGpuMemory(GpuMemoryCreateInfo{Size: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.BindGpuMemory(m, off); err != nil {
		t.Fatal(err)
	}
	if err := d.AddGpuMemoryReferences(m); err != nil {
		t.Fatal(err)
	}
	return e, m
}

func TestGpuEventCPU(t *testing.T) {
	r := newRig(t, 16, 16)
	e, m := newEvent(t, r.dev, 8)
	status := func() bool {
		t.Helper()
		set, err := e.Status()
		if err != nil {
			t.Fatal(err)
		}
		return set
	}
	if status() {
		t.Error("a new event in zeroed memory is set")
	}
	for _, step := range []struct {
		op   func() error
		want bool
	}{{e.Set, true}, {e.Set, true}, {e.Reset, false}, {e.Reset, false}, {e.Set, true}} {
		if err := step.op(); err != nil {
			t.Fatal(err)
		}
		if got := status(); got != step.want {
			t.Errorf("status %v, want %v", got, step.want)
		}
		if w := binary.LittleEndian.Uint32(m.bytes[8:]); (w != 0) != step.want {
			t.Errorf("event word %d for status %v", w, step.want)
		}
	}

	// Misuse.
	unbound, _ := r.dev.CreateGpuEvent(GpuEventCreateInfo{})
	var nilEvent *GpuEvent
	other, _ := NewPlatform(PlatformCreateInfo{MemorySize: 16 << 20, Cores: 1})
	defer other.Destroy()
	otherMem, _ := other.Devices()[0].CreateGpuMemory(GpuMemoryCreateInfo{Size: 4096})
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"Set unbound", unbound.Set(), ErrNotBound},
		{"Reset unbound", unbound.Reset(), ErrNotBound},
		{"Status unbound", func() error { _, err := unbound.Status(); return err }(), ErrNotBound},
		{"Set nil", nilEvent.Set(), ErrInvalidArgument},
		{"bind twice", e.BindGpuMemory(m, 0), ErrAlreadyBound},
		{"bind misaligned", unbound.BindGpuMemory(m, 2), ErrInvalidArgument},
		{"bind past the end", unbound.BindGpuMemory(m, 4096), ErrInvalidArgument},
		{"bind other device's memory", unbound.BindGpuMemory(otherMem, 0), ErrWrongDevice},
		{"bind nil", unbound.BindGpuMemory(nil, 0), ErrInvalidArgument},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	if req := e.GpuMemoryRequirements(); req.Size != 4 || req.Alignment != 4 {
		t.Errorf("requirements %+v", req)
	}
	// Memory destroyed under the event.
	e2, m2 := newEvent(t, r.dev, 0)
	r.dev.RemoveGpuMemoryReferences(m2)
	if err := m2.Destroy(); err != nil {
		t.Fatal(err)
	}
	if err := e2.Set(); !errors.Is(err, ErrDestroyed) {
		t.Errorf("Set on destroyed memory: %v", err)
	}
}

func TestEventCommandMisuse(t *testing.T) {
	r := newRig(t, 16, 16)
	e, _ := newEvent(t, r.dev, 0)
	unbound, _ := r.dev.CreateGpuEvent(GpuEventCreateInfo{})
	other, err := NewPlatform(PlatformCreateInfo{MemorySize: 16 << 20, Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Destroy()
	od := other.Devices()[0]
	otherEvent, _ := newEvent(t, od, 0)
	ts, _ := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: 64})
	for _, tc := range []struct {
		name string
		rec  func(cb *CmdBuffer) error
		want error
	}{
		{"set nil", func(cb *CmdBuffer) error { return cb.CmdSetEvent(nil) }, ErrInvalidArgument},
		{"reset unbound", func(cb *CmdBuffer) error { return cb.CmdResetEvent(unbound) }, ErrNotBound},
		{"wait unbound", func(cb *CmdBuffer) error { return cb.CmdWaitEvent(unbound) }, ErrNotBound},
		{"wait other device's", func(cb *CmdBuffer) error { return cb.CmdWaitEvent(otherEvent) }, ErrWrongDevice},
		{"timestamp nil memory", func(cb *CmdBuffer) error { return cb.CmdWriteTimestamp(PipePointTop, nil, 0) }, ErrInvalidArgument},
		{"timestamp misaligned", func(cb *CmdBuffer) error { return cb.CmdWriteTimestamp(PipePointBottom, ts, 4) }, ErrInvalidArgument},
		{"timestamp past the end", func(cb *CmdBuffer) error { return cb.CmdWriteTimestamp(PipePointBottom, ts, 4096) }, ErrInvalidArgument},
		{"timestamp offset overflows", func(cb *CmdBuffer) error { return cb.CmdWriteTimestamp(PipePointBottom, ts, 1<<64-8) }, ErrInvalidArgument},
		{"timestamp bad pipe point", func(cb *CmdBuffer) error { return cb.CmdWriteTimestamp(PipePoint(7), ts, 0) }, ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cb, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
			if err := cb.Begin(); err != nil {
				t.Fatal(err)
			}
			if err := tc.rec(cb); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if err := cb.End(); !errors.Is(err, ErrRecordingFailed) {
				t.Errorf("End after a failed command: %v", err)
			}
		})
	}
	// Outside Begin/End.
	cb, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	if err := cb.CmdSetEvent(e); !errors.Is(err, ErrNotRecording) {
		t.Errorf("CmdSetEvent outside Begin/End: %v", err)
	}
	// Timestamp memory that is not resident fails the submission.
	if err := cb.Begin(); err != nil {
		t.Fatal(err)
	}
	if err := cb.CmdWriteTimestamp(PipePointTop, ts, 0); err != nil {
		t.Fatal(err)
	}
	if err := cb.End(); err != nil {
		t.Fatal(err)
	}
	if err := r.queue.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}}); !errors.Is(err, ErrNotResident) {
		t.Errorf("Submit with non-resident timestamp memory: %v", err)
	}
}

// TestCmdWaitEventHoldsWorkUntilCPUSets: work recorded after a wait does
// not run until the CPU sets the event; then it does.
func TestCmdWaitEventHoldsWorkUntilCPUSets(t *testing.T) {
	r := newRig(t, 32, 32)
	copy(r.vbuf.bytes, floats(-1, -1, 3, -1, -1, 3))
	e, _ := newEvent(t, r.dev, 0)
	cb, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	slot, _, _ := r.pipe.UserDataSlot("u_color")
	for _, err := range []error{
		cb.Begin(), cb.CmdWaitEvent(e), cb.CmdBindTargets(r.target, nil), cb.CmdClearColorTarget([4]float32{0, 0, 1, 1}),
		cb.CmdBindPipeline(r.pipe), cb.CmdSetVertexBuffers(0, []VertexBufferView{{Memory: r.vbuf, Stride: 8}}),
		cb.CmdSetUserData(slot, colorWords([4]float32{1, 0, 0, 1})), cb.CmdDraw(0, 3, 0, 1),
		cb.CmdResetEvent(e), cb.End(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	fence := r.dev.CreateFence()
	if err := r.queue.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}, Fence: fence}); err != nil {
		t.Fatal(err)
	}
	if err := fence.Wait(150 * time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("work after an unset event: fence %v, want ErrTimeout", err)
	}
	if p := r.pixel(5, 5); p != ([4]byte{}) {
		t.Fatalf("the draw ran before the event was set: pixel %v", p)
	}
	if err := e.Set(); err != nil {
		t.Fatal(err)
	}
	if err := fence.Wait(time.Minute); err != nil {
		t.Fatal(err)
	}
	if p := r.pixel(5, 5); p != [4]byte{255, 0, 0, 255} {
		t.Errorf("pixel %v, want red", p)
	}
	if set, _ := e.Status(); set {
		t.Error("CmdResetEvent after the draw did not reset the event")
	}
}

// TestEventOrdersQueues: queue A draws, writes a bottom-of-pipe timestamp
// and sets an event; queue B waits for it, writes a top-of-pipe
// timestamp and reads A's image. B starts after A's end of pipe.
func TestEventOrdersQueues(t *testing.T) {
	r := newRig(t, 64, 64)
	copy(r.vbuf.bytes, floats(-1, -1, 3, -1, -1, 3))
	qb, err := r.dev.CreateQueue(QueueCreateInfo{})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := newEvent(t, r.dev, 0)
	tsMem, _ := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: 4096})
	out, _ := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: 64 * 64 * 4})
	r.dev.AddGpuMemoryReferences(tsMem, out)

	slot, _, _ := r.pipe.UserDataSlot("u_color")
	a, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	for _, err := range []error{
		a.Begin(), a.CmdBindTargets(r.target, nil), a.CmdClearColorTarget([4]float32{0, 0, 0, 1}),
		a.CmdBindPipeline(r.pipe), a.CmdSetVertexBuffers(0, []VertexBufferView{{Memory: r.vbuf, Stride: 8}}),
		a.CmdSetUserData(slot, colorWords([4]float32{0, 1, 0, 1})),
		a.CmdDraw(0, 3, 0, 64), // heavy enough that B could overtake it without the event
		a.CmdWriteTimestamp(PipePointBottom, tsMem, 0),
		a.CmdSetEvent(e), a.End(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	b, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	for _, err := range []error{
		b.Begin(), b.CmdWaitEvent(e), b.CmdWriteTimestamp(PipePointTop, tsMem, 8),
		b.CmdCopyImageToMemory(r.image, ImageRegion{Width: 64, Height: 64}, out, 0, 64*4),
		b.CmdWriteTimestamp(PipePointBottom, tsMem, 16), b.End(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := r.queue.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{a}}); err != nil {
		t.Fatal(err)
	}
	fb := r.dev.CreateFence()
	if err := qb.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{b}, Fence: fb}); err != nil {
		t.Fatal(err)
	}
	if err := fb.Wait(time.Minute); err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	aEnd, bStart, bEnd := le.Uint64(tsMem.bytes[0:]), le.Uint64(tsMem.bytes[8:]), le.Uint64(tsMem.bytes[16:])
	if aEnd == 0 || bStart < aEnd || bEnd < bStart {
		t.Errorf("timestamps: A's bottom %d, B's top %d, B's bottom %d", aEnd, bStart, bEnd)
	}
	if got := le.Uint32(out.bytes[4*(10*64+10):]); got != 0xFF00FF00 {
		t.Errorf("B read %#08x from A's image, want green", got)
	}
	if set, _ := e.Status(); !set {
		t.Error("event not set after A")
	}
}

// TestCmdWriteTimestamp: timestamps at both pipe points around draws and
// with no work before them are written, in command order, between the
// CPU-visible GPU times before and after.
func TestCmdWriteTimestamp(t *testing.T) {
	r := newRig(t, 64, 64)
	copy(r.vbuf.bytes, floats(-1, -1, 3, -1, -1, 3))
	tsMem, _ := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: 4096})
	r.dev.AddGpuMemoryReferences(tsMem)
	for i := range tsMem.bytes[:64] {
		tsMem.bytes[i] = 0
	}
	slot, _, _ := r.pipe.UserDataSlot("u_color")
	cb, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	draw := func() error { return cb.CmdDraw(0, 3, 0, 4) }
	for _, err := range []error{
		cb.Begin(),
		cb.CmdWriteTimestamp(PipePointBottom, tsMem, 0), // nothing before it: a job of its own
		cb.CmdWriteTimestamp(PipePointTop, tsMem, 8),    // goes with the first draw's job
		cb.CmdBindTargets(r.target, nil), cb.CmdBindPipeline(r.pipe),
		cb.CmdSetVertexBuffers(0, []VertexBufferView{{Memory: r.vbuf, Stride: 8}}),
		cb.CmdSetUserData(slot, colorWords([4]float32{1, 1, 0, 1})),
		draw(),
		cb.CmdWriteTimestamp(PipePointBottom, tsMem, 16), // the end of the first draw's job
		draw(),
		cb.CmdWriteTimestamp(PipePointBottom, tsMem, 24),
		cb.CmdWriteTimestamp(PipePointTop, tsMem, 32), // at the end: a job of its own
		cb.End(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	before, start := gpuTime(t, r.dev), time.Now()
	r.submitAndWait(t, cb)
	after, wall := gpuTime(t, r.dev), time.Since(start)
	var ts [5]uint64
	for i := range ts {
		ts[i] = binary.LittleEndian.Uint64(tsMem.bytes[8*i:])
	}
	// Bottom-of-pipe times follow each other in command order, as do
	// top-of-pipe times, and a job's top precedes its bottom. A top of
	// pipe may precede the bottom recorded before it: later work starts
	// (bins) while earlier work still renders — that is what top of pipe
	// means.
	for _, o := range []struct{ a, b int }{{0, 2}, {2, 3}, {1, 4}, {1, 2}} {
		if ts[o.a] > ts[o.b] {
			t.Errorf("timestamp %d (%d) after timestamp %d (%d)", o.a, ts[o.a], o.b, ts[o.b])
		}
	}
	if ts[0] < before || ts[1] < before || ts[3] > after || ts[4] > after {
		t.Errorf("timestamps %v outside the GPU times %d..%d around the submission", ts, before, after)
	}
	// The frequency the device reports turns the span into plausible time:
	// the submission took between 0 and the CPU-measured wall time.
	freq := r.dev.Properties().TimestampFrequency
	if span := time.Duration(float64(ts[3]-ts[0]) / float64(freq) * 1e9); freq == 0 || span > wall {
		t.Errorf("GPU span %v (frequency %d Hz) longer than the submission's %v", span, freq, wall)
	}
	if ts[1] == ts[2] {
		t.Errorf("a draw took no time between its top %d and bottom %d", ts[1], ts[2])
	}
}

// TestWaitEventNeverSetFailsTheSubmission: a wait nothing sets does not
// hang the application: the fence fails after the kernel's job timeout,
// with an error naming the wait.
func TestWaitEventNeverSetFailsTheSubmission(t *testing.T) {
	plat, err := NewPlatform(PlatformCreateInfo{MemorySize: 16 << 20, Cores: 1, JobTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer plat.Destroy()
	d := plat.Devices()[0]
	q, _ := d.CreateQueue(QueueCreateInfo{})
	alloc, _ := d.CreateCmdAllocator(CmdAllocatorCreateInfo{})
	e, _ := newEvent(t, d, 0)
	cb, _ := d.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: alloc})
	if err := errors.Join(cb.Begin(), cb.CmdWaitEvent(e), cb.End()); err != nil {
		t.Fatal(err)
	}
	f := d.CreateFence()
	start := time.Now()
	if err := q.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}, Fence: f}); err != nil {
		t.Fatal(err)
	}
	err = f.Wait(time.Minute)
	if err == nil || errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "waited longer than") {
		t.Fatalf("fence of a never-set wait: %v", err)
	}
	if el := time.Since(start); el < time.Second || el > 30*time.Second {
		t.Errorf("failed after %v", el)
	}
}

// TestEventsInNestedBuffers: event and timestamp commands recorded in a
// nested command buffer take effect where the caller executes it, and a
// wait in the caller holds the nested buffer's work.
func TestEventsInNestedBuffers(t *testing.T) {
	r := newRig(t, 32, 32)
	copy(r.vbuf.bytes, floats(-1, -1, 3, -1, -1, 3))
	gate, _ := newEvent(t, r.dev, 0)
	done, _ := newEvent(t, r.dev, 4)
	tsMem, _ := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: 4096})
	r.dev.AddGpuMemoryReferences(tsMem)
	slot, _, _ := r.pipe.UserDataSlot("u_color")
	nested, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	for _, err := range []error{
		nested.Begin(), nested.CmdBindTargets(r.target, nil), nested.CmdBindPipeline(r.pipe),
		nested.CmdSetVertexBuffers(0, []VertexBufferView{{Memory: r.vbuf, Stride: 8}}),
		nested.CmdSetUserData(slot, colorWords([4]float32{0, 0, 1, 1})), nested.CmdDraw(0, 3, 0, 1),
		nested.CmdWriteTimestamp(PipePointBottom, tsMem, 0), nested.CmdSetEvent(done), nested.End(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	cb, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	for _, err := range []error{
		cb.Begin(), cb.CmdWaitEvent(gate), cb.CmdExecuteNestedCmdBuffers(nested),
		cb.CmdWriteTimestamp(PipePointBottom, tsMem, 8), cb.End(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	fence := r.dev.CreateFence()
	if err := r.queue.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}, Fence: fence}); err != nil {
		t.Fatal(err)
	}
	if err := fence.Wait(100 * time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("nested work ran before the gate was set: %v", err)
	}
	if set, _ := done.Status(); set {
		t.Fatal("the nested buffer's CmdSetEvent ran before the gate was set")
	}
	if err := gate.Set(); err != nil {
		t.Fatal(err)
	}
	if err := fence.Wait(time.Minute); err != nil {
		t.Fatal(err)
	}
	if set, _ := done.Status(); !set {
		t.Error("the nested buffer's CmdSetEvent did not set the event")
	}
	inner, outer := binary.LittleEndian.Uint64(tsMem.bytes[0:]), binary.LittleEndian.Uint64(tsMem.bytes[8:])
	if inner == 0 || outer < inner {
		t.Errorf("nested bottom-of-pipe %d, caller's after it %d", inner, outer)
	}
	if p := r.pixel(3, 3); p != [4]byte{0, 0, 255, 255} {
		t.Errorf("pixel %v, want blue", p)
	}
}
