package pal

import (
	"testing"
	"time"
)

// BenchmarkDispatch measures the compute path end to end: one command
// buffer dispatching 2048 workgroups of 128 invocations (262,144) of a
// read-modify-write of one buffer word each, submitted on a compute
// queue and waited for. It reports invocations per second.
func BenchmarkDispatch(b *testing.B) {
	const groups, local = 2048, 128
	r := newComputeRig(b, `#version 310 es
layout(local_size_x = 128) in;
layout(std430, binding = 0) buffer B { uint v[]; } buf;
void main() {
	uint i = gl_GlobalInvocationID.x;
	buf.v[i] = buf.v[i] * 3u + i;
}`)
	data, _ := r.buffer(b, make([]uint32, groups*local))
	cb := r.cmdBuffer(b, EngineCompute)
	for _, err := range []error{
		cb.CmdBindComputePipeline(r.pipes[0]),
		cb.CmdBindStorageBuffers(0, []BufferView{{Memory: data}}),
		cb.CmdDispatch(groups, 1, 1),
		cb.End(),
	} {
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f := r.dev.CreateFence()
		if err := r.cqueue.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}, Fence: f}); err != nil {
			b.Fatal(err)
		}
		if err := f.Wait(time.Minute); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(groups*local)*float64(b.N)/b.Elapsed().Seconds(), "invocations/s")
}
