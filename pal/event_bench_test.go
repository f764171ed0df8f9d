package pal

import (
	"testing"
	"time"
)

// BenchmarkEventSetToDone measures how long after a CPU Set the work
// waiting for the event is done: a submission whose only work waits for
// the event and writes a timestamp, parked by the kernel (the Set comes
// 2 ms after Submit), then Set and the fence. The kernel notices the set
// word when its dispatcher next looks (an interrupt, or its poll period:
// at most 10 ms). The metric set-to-done-ns is that delay; ns/op includes
// the 2 ms sleep.
func BenchmarkEventSetToDone(b *testing.B) {
	r := newRig(b, 16, 16)
	e, _ := newEvent(b, r.dev, 0)
	ts, _ := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: 4096})
	r.dev.AddGpuMemoryReferences(ts)
	cb, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	if err := errorsJoin(cb.Begin(), cb.CmdWaitEvent(e), cb.CmdWriteTimestamp(PipePointTop, ts, 0), cb.End()); err != nil {
		b.Fatal(err)
	}
	fence := r.dev.CreateFence()
	var setToDone time.Duration
	b.ResetTimer()
	for range b.N {
		if err := errorsJoin(e.Reset(), r.queue.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}, Fence: fence})); err != nil {
			b.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
		start := time.Now()
		if err := errorsJoin(e.Set(), fence.Wait(time.Minute)); err != nil {
			b.Fatal(err)
		}
		setToDone += time.Since(start)
	}
	b.ReportMetric(float64(setToDone.Nanoseconds())/float64(b.N), "set-to-done-ns")
}

func errorsJoin(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
