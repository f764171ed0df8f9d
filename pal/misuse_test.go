package pal

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// TestMisuseIsAnError: each misuse returns the documented error and
// leaves the device usable.
func TestMisuseIsAnError(t *testing.T) {
	r := newRig(t, 32, 32)
	copy(r.vbuf.bytes, floats(-1, -1, 1, -1, -1, 1))
	newCB := func() *CmdBuffer {
		cb, err := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
		if err != nil {
			t.Fatal(err)
		}
		return cb
	}
	tests := []struct {
		name string
		run  func() error
		want error
	}{
		{"submit never begun", func() error {
			return r.queue.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{newCB()}})
		}, ErrCmdBufferNotEnded},
		{"submit unended", func() error {
			cb := newCB()
			if err := cb.Begin(); err != nil {
				return err
			}
			return r.queue.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}})
		}, ErrCmdBufferNotEnded},
		{"record before Begin", func() error { return newCB().CmdDraw(0, 3, 0, 1) }, ErrNotRecording},
		{"record after End", func() error {
			cb := newCB()
			_ = cb.Begin()
			_ = cb.End()
			return cb.CmdBindPipeline(r.pipe)
		}, ErrNotRecording},
		{"draw without targets fails End and Submit", func() error {
			cb := newCB()
			_ = cb.Begin()
			_ = cb.CmdBindPipeline(r.pipe)
			if err := cb.CmdDraw(0, 3, 0, 1); err == nil {
				return errors.New("draw without targets accepted")
			}
			if err := cb.End(); !errors.Is(err, ErrRecordingFailed) {
				return fmt.Errorf("End: %v", err)
			}
			return r.queue.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}})
		}, ErrCmdBufferNotEnded},
		{"draw without pipeline", func() error {
			cb := newCB()
			_ = cb.Begin()
			_ = cb.CmdBindTargets(r.target, nil)
			return cb.CmdDraw(0, 3, 0, 1)
		}, ErrInvalidArgument},
		{"draw beyond the vertex buffer", func() error {
			cb := newCB()
			_ = cb.Begin()
			_ = cb.CmdBindTargets(r.target, nil)
			_ = cb.CmdBindPipeline(r.pipe)
			_ = cb.CmdSetVertexBuffers(0, []VertexBufferView{{Memory: r.vbuf, Size: 24, Stride: 8}})
			return cb.CmdDraw(1, 3, 0, 1)
		}, ErrInvalidArgument},
		{"image bound twice", func() error { return r.image.BindGpuMemory(r.mem, 0) }, ErrAlreadyBound},
		{"pipeline bound twice", func() error {
			m, _ := r.pipe.get()
			return r.pipe.BindGpuMemory(m, 0)
		}, ErrAlreadyBound},
		{"semaphore never signalled", func() error {
			s, err := r.dev.CreateQueueSemaphore(QueueSemaphoreCreateInfo{})
			if err != nil {
				return err
			}
			start := time.Now()
			err = r.queue.WaitQueueSemaphore(s, 50*time.Millisecond)
			if time.Since(start) > 10*time.Second {
				return errors.New("semaphore wait overran its timeout")
			}
			return err
		}, ErrTimeout},
		{"fence never submitted", func() error { return r.dev.CreateFence().Wait(time.Second) }, ErrFenceNeverSubmitted},
		{"memory not resident", func() error {
			m, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: 4096})
			if err != nil {
				return err
			}
			copy(m.bytes, floats(-1, -1, 1, -1, -1, 1))
			cb := newCB()
			_ = cb.Begin()
			_ = cb.CmdBindTargets(r.target, nil)
			_ = cb.CmdBindPipeline(r.pipe)
			_ = cb.CmdSetVertexBuffers(0, []VertexBufferView{{Memory: m, Stride: 8}})
			_ = cb.CmdDraw(0, 3, 0, 1)
			if err := cb.End(); err != nil {
				return err
			}
			return r.queue.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}})
		}, ErrNotResident},
		{"memory destroyed twice", func() error {
			m, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: 4096})
			if err != nil {
				return err
			}
			_ = m.Destroy()
			return m.Destroy()
		}, ErrDestroyed},
		{"unsupported MSAA", func() error {
			_, err := r.dev.CreateMsaaState(MsaaStateCreateInfo{Samples: 4})
			return err
		}, ErrUnsupported},
		{"bad shader", func() error {
			_, err := r.dev.CreateGraphicsPipeline(GraphicsPipelineCreateInfo{VertexShader: "void main() { gl_Position = x; }", FragmentShader: triFS})
			return err
		}, ErrInvalidArgument},
		{"too many instances", func() error {
			cb := newCB()
			_ = cb.Begin()
			return cb.CmdDraw(0, 3, 0, MaxInstances+1)
		}, ErrUnsupported},
		{"viewport NaN", func() error {
			cb := newCB()
			_ = cb.Begin()
			nan := float32(0)
			nan /= nan
			return cb.CmdSetViewport(Viewport{Width: nan, Height: 1, MaxDepth: 1})
		}, ErrInvalidArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			t.Log(err)
		})
	}
	// The device still renders.
	cb := newCB()
	r.recordTriangle(t, cb, [4]float32{0, 0, 0, 1}, [4]float32{0, 1, 0, 1})
	r.submitAndWait(t, cb)
	if got := r.pixel(0, 0); got != [4]byte{0, 255, 0, 255} {
		t.Fatalf("pixel after misuse = %v", got)
	}
}

// TestRecordingIntoExecutingBuffer: while a command buffer's submission
// runs, Begin, Reset and commands on it are ErrCmdBufferExecuting; once
// its fence signalled it can be recorded again.
func TestRecordingIntoExecutingBuffer(t *testing.T) {
	r := newRig(t, 512, 512)
	copy(r.vbuf.bytes, floats(-1, -1, 3, -1, -1, 3)) // covers the target
	cb, err := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	if err != nil {
		t.Fatal(err)
	}
	// A fragment shader that loops on a per-pixel input: the hardware
	// cannot serve its batches from an earlier one (a constant-colour
	// shader's layers are written directly and finish within
	// microseconds), so the GPU stays busy.
	busy, err := r.dev.CreateGraphicsPipeline(GraphicsPipelineCreateInfo{VertexShader: triVS, FragmentShader: `
precision highp float;
uniform vec4 u_color;
void main() {
	float g = 0.0;
	for (int i = 0; i < 48; i++) { g = fract(g + gl_FragCoord.x * 0.001); }
	gl_FragColor = vec4(u_color.r, g * 0.0, 0.0, 1.0);
}`, Topology: cl.PrimTriangles, VertexInputs: []VertexInput{{Name: "a_pos", Type: cl.AttrFloat, Components: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	bmem, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: busy.GpuMemoryRequirements().Size})
	if err != nil {
		t.Fatal(err)
	}
	if err := busy.BindGpuMemory(bmem, 0); err != nil {
		t.Fatal(err)
	}
	if err := r.dev.AddGpuMemoryReferences(bmem); err != nil {
		t.Fatal(err)
	}
	slot, _, _ := busy.UserDataSlot("u_color")
	_ = cb.Begin()
	_ = cb.CmdBindTargets(r.target, nil)
	_ = cb.CmdBindPipeline(busy)
	_ = cb.CmdSetVertexBuffers(0, []VertexBufferView{{Memory: r.vbuf, Stride: 8}})
	// Blending ONE/ZERO draws what no blending draws, but it keeps the
	// hardware's hidden-surface removal from dropping the covered layers:
	// every layer is shaded, so the GPU is busy long enough.
	keep, err := r.dev.CreateColorBlendState(ColorBlendStateCreateInfo{BlendEnable: true,
		SrcBlendColor: cl.BlendFactorOne, DstBlendColor: cl.BlendFactorZero,
		SrcBlendAlpha: cl.BlendFactorOne, DstBlendAlpha: cl.BlendFactorZero})
	if err != nil {
		t.Fatal(err)
	}
	_ = cb.CmdBindColorBlendState(keep)
	// Enough full-target layers that the GPU is still busy when the
	// calls below run microseconds after Submit.
	for i := range 16 {
		_ = cb.CmdSetUserData(slot, colorWords([4]float32{float32(i) / 16, 0, 0, 1}))
		_ = cb.CmdDraw(0, 3, 0, 1)
	}
	if err := cb.End(); err != nil {
		t.Fatal(err)
	}
	f := r.dev.CreateFence()
	if err := r.queue.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}, Fence: f}); err != nil {
		t.Fatal(err)
	}
	if done, _ := f.Status(); done {
		t.Fatal("the GPU finished 16 full-screen layers before the next call; the test cannot observe an executing buffer")
	}
	start := time.Now()
	if err := f.Wait(time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Errorf("Fence.Wait(1ms) on running work: %v, want ErrTimeout", err)
	} else if time.Since(start) > 10*time.Second {
		t.Errorf("Fence.Wait(1ms) took %v", time.Since(start))
	}
	for name, err := range map[string]error{"Begin": cb.Begin(), "Reset": cb.Reset(), "CmdDraw": cb.CmdDraw(0, 3, 0, 1)} {
		if !errors.Is(err, ErrCmdBufferExecuting) {
			t.Errorf("%s on an executing buffer: %v, want ErrCmdBufferExecuting", name, err)
		}
	}
	if err := f.Wait(time.Minute); err != nil {
		t.Fatal(err)
	}
	if got, want := r.pixel(100, 100), [4]byte{byte(math.Round(15.0 / 16 * 255)), 0, 0, 255}; got != want {
		t.Errorf("pixel = %v, want the last layer %v", got, want)
	}
	if err := cb.Begin(); err != nil {
		t.Fatalf("Begin after the fence: %v", err)
	}
}

// TestFreeThreadedRecording records command buffers on several
// goroutines at once (from one shared allocator and from private ones),
// submits them, and checks each target. Run under -race.
func TestFreeThreadedRecording(t *testing.T) {
	r := newRig(t, 64, 64)
	copy(r.vbuf.bytes, floats(-1, -1, 3, -1, -1, 3))
	const n = 6
	type out struct {
		cb   *CmdBuffer
		img  *Image
		mem  *GpuMemory
		want [4]byte
	}
	outs := make([]out, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			alloc := r.alloc
			if g%2 == 1 {
				var err error
				if alloc, err = r.dev.CreateCmdAllocator(CmdAllocatorCreateInfo{ChunkSize: 4096}); err != nil {
					errs <- err
					return
				}
			}
			img, err := r.dev.CreateImage(ImageCreateInfo{Width: 64, Height: 64})
			if err != nil {
				errs <- err
				return
			}
			mem, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: img.GpuMemoryRequirements().Size})
			if err != nil {
				errs <- err
				return
			}
			if err := img.BindGpuMemory(mem, 0); err != nil {
				errs <- err
				return
			}
			view, err := r.dev.CreateColorTargetView(img)
			if err != nil {
				errs <- err
				return
			}
			cb, err := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: alloc})
			if err != nil {
				errs <- err
				return
			}
			slot, _, _ := r.pipe.UserDataSlot("u_color")
			col := [4]float32{float32(g) / n, 1 - float32(g)/n, 0.5, 1}
			_ = cb.Begin()
			_ = cb.CmdBindTargets(view, nil)
			_ = cb.CmdClearColorTarget([4]float32{})
			_ = cb.CmdBindPipeline(r.pipe)
			_ = cb.CmdSetVertexBuffers(0, []VertexBufferView{{Memory: r.vbuf, Stride: 8}})
			// Many small state changes, so chunks are taken concurrently.
			for i := range 2000 {
				c := col
				if i < 1999 {
					c[3] = float32(i%2) / 2 // the last draw is opaque and decides the pixel
				}
				_ = cb.CmdSetUserData(slot, colorWords(c))
				_ = cb.CmdSetScissorRect(ScissorRect{X: 0, Y: 0, Width: 64, Height: 64 - i%2})
				_ = cb.CmdDraw(0, 3, 0, 1)
			}
			if err := cb.End(); err != nil {
				errs <- err
				return
			}
			want := [4]byte{}
			for i, x := range col {
				want[i] = byte(x*255 + 0.5)
			}
			outs[g] = out{cb: cb, img: img, mem: mem, want: want}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var cbs []*CmdBuffer
	var refs []*GpuMemory
	for _, o := range outs {
		cbs = append(cbs, o.cb)
		refs = append(refs, o.mem)
	}
	f := r.dev.CreateFence()
	if err := r.queue.Submit(SubmitInfo{CmdBuffers: cbs, GpuMemoryRefs: refs, Fence: f}); err != nil {
		t.Fatal(err)
	}
	if err := f.Wait(time.Minute); err != nil {
		t.Fatal(err)
	}
	for g, o := range outs {
		b := o.mem.bytes[(10*64+10)*4:]
		if got := [4]byte{b[0], b[1], b[2], b[3]}; got != o.want {
			t.Errorf("goroutine %d: pixel %v, want %v", g, got, o.want)
		}
	}
}

// TestQueueSemaphoreOrdersCopyAfterRender: queue A renders and signals;
// queue B waits, then copies the rendered image into another memory.
func TestQueueSemaphoreOrdersCopyAfterRender(t *testing.T) {
	r := newRig(t, 64, 64)
	copy(r.vbuf.bytes, floats(-1, -1, 1, -1, -1, 1))
	qb, err := r.dev.CreateQueue(QueueCreateInfo{})
	if err != nil {
		t.Fatal(err)
	}
	sem, err := r.dev.CreateQueueSemaphore(QueueSemaphoreCreateInfo{})
	if err != nil {
		t.Fatal(err)
	}
	dst, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: r.mem.Size()})
	if err != nil {
		t.Fatal(err)
	}
	render, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	r.recordTriangle(t, render, [4]float32{0, 0, 1, 1}, [4]float32{1, 1, 0, 1})
	cp, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	_ = cp.Begin()
	_ = cp.CmdFillMemory(dst, 0, 16, 0xdeadbeef)
	_ = cp.CmdCopyMemory(r.mem, dst, []MemoryCopyRegion{{Size: r.mem.Size()}})
	if err := cp.End(); err != nil {
		t.Fatal(err)
	}
	if err := r.queue.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{render}}); err != nil {
		t.Fatal(err)
	}
	if err := r.queue.SignalQueueSemaphore(sem); err != nil {
		t.Fatal(err)
	}
	if err := qb.WaitQueueSemaphore(sem, time.Second); err != nil {
		t.Fatal(err)
	}
	f := r.dev.CreateFence()
	if err := qb.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cp}, GpuMemoryRefs: []*GpuMemory{dst}, Fence: f}); err != nil {
		t.Fatal(err)
	}
	if err := f.Wait(time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := [4]byte(dst.bytes[:4]); got != [4]byte{255, 255, 0, 255} {
		t.Fatalf("copied pixel (0,0) = %v, want the rendered yellow", got)
	}
	top := (63*64 + 63) * 4
	if got := [4]byte(dst.bytes[top : top+4]); got != [4]byte{0, 0, 255, 255} {
		t.Fatalf("copied pixel (63,63) = %v, want the clear colour", got)
	}
}
