package pal_test

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/tilegpu/tilegpu/pal"
)

// A parallel prefix sum with a compute shader: one workgroup scans 16
// numbers in shared memory (a barrier between the reads and the writes of
// each step), dispatched on the compute queue.
func Example_computePrefixSum() {
	plat, err := pal.NewPlatform(pal.PlatformCreateInfo{MemorySize: 32 << 20})
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

	pipe, err := dev.CreateComputePipeline(pal.ComputePipelineCreateInfo{Shader: `#version 310 es
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer Data { uint v[]; } data;
shared uint s[16];
void main() {
	uint i = gl_LocalInvocationID.x;
	s[i] = data.v[i];
	for (uint d = 1u; d < 16u; d <<= 1u) {
		barrier();
		uint x = s[i];
		if (i >= d) x += s[i - d];
		barrier();
		s[i] = x;
	}
	data.v[i] = s[i];
}`})
	check(err)
	code, err := dev.CreateGpuMemory(pal.GpuMemoryCreateInfo{Size: pipe.GpuMemoryRequirements().Size})
	check(err)
	check(pipe.BindGpuMemory(code, 0))

	data, err := dev.CreateGpuMemory(pal.GpuMemoryCreateInfo{Size: 64})
	check(err)
	words, err := data.Map()
	check(err)
	for i := 0; i < 16; i++ {
		binary.LittleEndian.PutUint32(words[4*i:], uint32(i+1))
	}

	alloc, err := dev.CreateCmdAllocator(pal.CmdAllocatorCreateInfo{})
	check(err)
	cb, err := dev.CreateCmdBuffer(pal.CmdBufferCreateInfo{Allocator: alloc, Engine: pal.EngineCompute})
	check(err)
	check(cb.Begin())
	check(cb.CmdBindComputePipeline(pipe))
	check(cb.CmdBindStorageBuffers(0, []pal.BufferView{{Memory: data, Size: 64}}))
	check(cb.CmdDispatch(1, 1, 1))
	check(cb.End())

	queue, err := dev.CreateQueue(pal.QueueCreateInfo{Engine: pal.EngineCompute})
	check(err)
	fence := dev.CreateFence()
	check(queue.Submit(pal.SubmitInfo{CmdBuffers: []*pal.CmdBuffer{cb}, GpuMemoryRefs: []*pal.GpuMemory{code, data}, Fence: fence}))
	check(fence.Wait(time.Minute))

	for i := 0; i < 16; i++ {
		fmt.Print(binary.LittleEndian.Uint32(words[4*i:]), " ")
	}
	fmt.Println()
	// Output: 1 3 6 10 15 21 28 36 45 55 66 78 91 105 120 136
}
