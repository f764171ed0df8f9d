package pal_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/tilegpu/tilegpu/pal"
)

// Gate GPU work on an event the CPU sets, and time it with GPU
// timestamps: the command buffer waits for the event, then writes the
// GPU time at the top of the pipe and, after its (empty) work, at the
// bottom; the fence does not signal until the CPU sets the event.
func Example_gpuEvent() {
	plat, err := pal.NewPlatform(pal.PlatformCreateInfo{MemorySize: 16 << 20})
	if err != nil {
		panic(err)
	}
	defer plat.Destroy()
	dev := plat.Devices()[0]
	check := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	queue, err := dev.CreateQueue(pal.QueueCreateInfo{})
	check(err)
	alloc, err := dev.CreateCmdAllocator(pal.CmdAllocatorCreateInfo{})
	check(err)

	// One allocation holds the event (4 bytes at 0) and two timestamps.
	mem, err := dev.CreateGpuMemory(pal.GpuMemoryCreateInfo{Size: 4096})
	check(err)
	check(dev.AddGpuMemoryReferences(mem))
	event, err := dev.CreateGpuEvent(pal.GpuEventCreateInfo{})
	check(err)
	check(event.BindGpuMemory(mem, 0))

	cb, err := dev.CreateCmdBuffer(pal.CmdBufferCreateInfo{Allocator: alloc})
	check(err)
	check(cb.Begin())
	check(cb.CmdWaitEvent(event))
	check(cb.CmdWriteTimestamp(pal.PipePointTop, mem, 8))
	check(cb.CmdWriteTimestamp(pal.PipePointBottom, mem, 16))
	check(cb.End())

	fence := dev.CreateFence()
	check(queue.Submit(pal.SubmitInfo{CmdBuffers: []*pal.CmdBuffer{cb}, Fence: fence}))
	fmt.Println("before Set:", errors.Is(fence.Wait(50*time.Millisecond), pal.ErrTimeout))
	check(event.Set())
	check(fence.Wait(time.Minute))
	b, err := mem.Map()
	check(err)
	top, bottom := binary.LittleEndian.Uint64(b[8:]), binary.LittleEndian.Uint64(b[16:])
	fmt.Println("after Set: done, timestamps in order:", top > 0 && top <= bottom)
	check(mem.Unmap())
	// Output:
	// before Set: true
	// after Set: done, timestamps in order: true
}
