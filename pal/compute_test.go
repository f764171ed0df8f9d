package pal

import (
	"encoding/binary"
	"errors"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// The compute example: a parallel inclusive prefix sum of n uints in
// three dispatches (Blelloch-style "scan then propagate"): each 64-
// invocation workgroup scans its block in shared memory with barriers
// and writes the block's total; one workgroup scans the totals; every
// block then adds the totals of the blocks before it.
const (
	scanBlocksCS = `#version 310 es
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Data { uint v[]; } data;
layout(std430, binding = 1) buffer Sums { uint s[]; } sums;
uniform uint n;
shared uint tmp[64];
void main() {
	uint i = gl_LocalInvocationID.x;
	uint g = gl_GlobalInvocationID.x;
	tmp[i] = g < n ? data.v[g] : 0u;
	for (uint d = 1u; d < 64u; d <<= 1u) {
		barrier();
		uint x = tmp[i];
		if (i >= d) x += tmp[i - d];
		barrier();
		tmp[i] = x;
	}
	barrier();
	if (g < n) data.v[g] = tmp[i];
	if (i == 63u) sums.s[gl_WorkGroupID.x] = tmp[63];
}
`
	scanSumsCS = `#version 310 es
layout(local_size_x = 64) in;
layout(std430, binding = 1) buffer Sums { uint s[]; } sums;
shared uint tmp[64];
void main() {
	uint i = gl_LocalInvocationID.x;
	uint m = uint(sums.s.length());
	tmp[i] = i < m ? sums.s[i] : 0u;
	for (uint d = 1u; d < 64u; d <<= 1u) {
		barrier();
		uint x = tmp[i];
		if (i >= d) x += tmp[i - d];
		barrier();
		tmp[i] = x;
	}
	if (i < m) sums.s[i] = tmp[i];
}
`
	addSumsCS = `#version 310 es
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Data { uint v[]; } data;
layout(std430, binding = 1) buffer Sums { uint s[]; } sums;
uniform uint n;
void main() {
	uint g = gl_GlobalInvocationID.x;
	if (gl_WorkGroupID.x > 0u && g < n) data.v[g] += sums.s[gl_WorkGroupID.x - 1u];
}
`
)

// computeRig is a device with compute pipelines bound to memory.
type computeRig struct {
	*rig
	cqueue *Queue // on the compute engine
	pipes  []*ComputePipeline
}

func newComputeRig(t testing.TB, shaders ...string) *computeRig {
	t.Helper()
	r := &computeRig{rig: newRig(t, 16, 16)}
	var err error
	if r.cqueue, err = r.dev.CreateQueue(QueueCreateInfo{Engine: EngineCompute}); err != nil {
		t.Fatal(err)
	}
	for _, src := range shaders {
		p, err := r.dev.CreateComputePipeline(ComputePipelineCreateInfo{Shader: src})
		if err != nil {
			t.Fatal(err)
		}
		mem, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: p.GpuMemoryRequirements().Size})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.BindGpuMemory(mem, 0); err != nil {
			t.Fatal(err)
		}
		if err := r.dev.AddGpuMemoryReferences(mem); err != nil {
			t.Fatal(err)
		}
		r.pipes = append(r.pipes, p)
	}
	return r
}

func (r *computeRig) buffer(t testing.TB, words []uint32) (*GpuMemory, []byte) {
	t.Helper()
	m, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: uint64(4 * len(words))})
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Map()
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range words {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	if err := r.dev.AddGpuMemoryReferences(m); err != nil {
		t.Fatal(err)
	}
	return m, b
}

func (r *computeRig) cmdBuffer(t testing.TB, engine EngineType) *CmdBuffer {
	t.Helper()
	cb, err := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc, Engine: engine})
	if err != nil {
		t.Fatal(err)
	}
	if err := cb.Begin(); err != nil {
		t.Fatal(err)
	}
	return cb
}

func (r *computeRig) submit(t testing.TB, engine EngineType, cb *CmdBuffer) {
	t.Helper()
	if err := cb.End(); err != nil {
		t.Fatal(err)
	}
	q := r.queue
	if engine == EngineCompute {
		q = r.cqueue
	}
	f := r.dev.CreateFence()
	if err := q.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}, Fence: f}); err != nil {
		t.Fatal(err)
	}
	if err := f.Wait(time.Minute); err != nil {
		t.Fatal(err)
	}
}

func TestComputePrefixSum(t *testing.T) {
	for _, engine := range []EngineType{EngineUniversal, EngineCompute} {
		for _, n := range []int{1, 64, 1000, 64 * 64} {
			r := newComputeRig(t, scanBlocksCS, scanSumsCS, addSumsCS)
			rnd := rand.New(rand.NewSource(int64(n)))
			in := make([]uint32, n)
			for i := range in {
				in[i] = uint32(rnd.Intn(1000))
			}
			blocks := (n + 63) / 64
			data, dataMap := r.buffer(t, in)
			sums, _ := r.buffer(t, make([]uint32, blocks))
			cb := r.cmdBuffer(t, engine)
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			slot, ok := r.pipes[0].UserDataSlot("n")
			if !ok {
				t.Fatal("no user-data slot for n")
			}
			must(cb.CmdSetUserData(slot, []uint32{uint32(n)}))
			must(cb.CmdBindStorageBuffers(0, []BufferView{{Memory: data}, {Memory: sums}}))
			must(cb.CmdBindComputePipeline(r.pipes[0]))
			must(cb.CmdDispatch(uint32(blocks), 1, 1))
			must(cb.CmdBarrier())
			must(cb.CmdBindComputePipeline(r.pipes[1]))
			must(cb.CmdDispatch(1, 1, 1))
			must(cb.CmdBarrier())
			must(cb.CmdBindComputePipeline(r.pipes[2]))
			must(cb.CmdDispatch(uint32(blocks), 1, 1))
			r.submit(t, engine, cb)
			// The CPU reference.
			sum := uint32(0)
			for i := 0; i < n; i++ {
				sum += in[i]
				if got := binary.LittleEndian.Uint32(dataMap[4*i:]); got != sum {
					t.Fatalf("%v n=%d: prefix[%d] = %d, want %d", engine, n, i, got, sum)
				}
			}
		}
	}
}

// CmdDispatchIndirect takes its workgroup counts from memory; an atomic
// counter checks how many invocations ran.
func TestComputeDispatchIndirectAndAtomics(t *testing.T) {
	const countCS = `#version 310 es
layout(local_size_x = 8, local_size_y = 4) in;
layout(std430, binding = 0) buffer C { uint count; uint maxid; uint ids[]; } c;
void main() {
	uint id = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 8u + gl_GlobalInvocationID.x;
	atomicAdd(c.count, 1u);
	atomicMax(c.maxid, id);
	c.ids[id] = id + 1u;
}
`
	r := newComputeRig(t, countCS)
	counts, _ := r.buffer(t, []uint32{3, 2, 1})
	buf, m := r.buffer(t, make([]uint32, 2+3*8*2*4))
	cb := r.cmdBuffer(t, EngineCompute)
	for _, err := range []error{
		cb.CmdBindComputePipeline(r.pipes[0]),
		cb.CmdBindStorageBuffers(0, []BufferView{{Memory: buf}}),
		cb.CmdDispatchIndirect(counts, 0),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	r.submit(t, EngineCompute, cb)
	const total = 3 * 2 * 32
	if got := binary.LittleEndian.Uint32(m); got != total {
		t.Errorf("count = %d, want %d", got, total)
	}
	if got := binary.LittleEndian.Uint32(m[4:]); got != total-1 {
		t.Errorf("max id = %d, want %d", got, total-1)
	}
	for i := 0; i < total; i++ {
		if got := binary.LittleEndian.Uint32(m[8+4*i:]); got != uint32(i+1) {
			t.Fatalf("ids[%d] = %d, want %d", i, got, i+1)
		}
	}
}

func TestComputeMisuse(t *testing.T) {
	r := newComputeRig(t, scanBlocksCS)
	small, _ := r.buffer(t, make([]uint32, 4))
	data, _ := r.buffer(t, make([]uint32, 64))
	tests := []struct {
		name   string
		engine EngineType
		record func(cb *CmdBuffer) error
		want   error
		text   string
	}{
		{"dispatch without a pipeline", EngineCompute, func(cb *CmdBuffer) error { return cb.CmdDispatch(1, 1, 1) }, ErrInvalidArgument, "no compute pipeline bound"},
		{"unbound buffer", EngineCompute, func(cb *CmdBuffer) error {
			cb.CmdBindComputePipeline(r.pipes[0])
			return cb.CmdDispatch(1, 1, 1)
		}, ErrInvalidArgument, "binding 0 is not bound"},
		{"too many workgroups", EngineCompute, func(cb *CmdBuffer) error { return cb.CmdDispatch(1<<20, 1, 1) }, ErrInvalidArgument, "at most 65535"},
		{"indirect counts past the memory", EngineCompute, func(cb *CmdBuffer) error {
			cb.CmdBindComputePipeline(r.pipes[0])
			return cb.CmdDispatchIndirect(small, small.Size()-8)
		}, ErrInvalidArgument, "12 bytes at offset"},
		{"unaligned buffer view", EngineCompute, func(cb *CmdBuffer) error {
			return cb.CmdBindStorageBuffers(0, []BufferView{{Memory: data, Offset: 2}})
		}, ErrInvalidArgument, "binding 0"},
		{"graphics on a compute command buffer", EngineCompute, func(cb *CmdBuffer) error {
			return cb.CmdBindTargets(r.target, nil)
		}, ErrInvalidArgument, "CmdBindTargets on a compute command buffer"},
		{"draw on a compute command buffer", EngineCompute, func(cb *CmdBuffer) error {
			return cb.CmdClearColorTarget([4]float32{})
		}, ErrInvalidArgument, "no colour target"},
	}
	for _, tt := range tests {
		cb := r.cmdBuffer(t, tt.engine)
		err := tt.record(cb)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("%s: %v, want %v containing %q", tt.name, err, tt.want, tt.text)
		}
		if err := cb.End(); !errors.Is(err, ErrRecordingFailed) {
			t.Errorf("%s: End = %v, want ErrRecordingFailed", tt.name, err)
		}
	}
	// A universal buffer nested in a compute buffer.
	uni := r.cmdBuffer(t, EngineUniversal)
	uni.End()
	nest := r.cmdBuffer(t, EngineCompute)
	if err := nest.CmdExecuteNestedCmdBuffers(uni); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "universal engine") {
		t.Errorf("universal buffer nested in a compute buffer: %v", err)
	}
	// A compute command buffer on the universal queue.
	cb := r.cmdBuffer(t, EngineCompute)
	cb.End()
	if err := r.queue.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("compute buffer on the universal queue: %v", err)
	}
	// Shader errors carry the compiler's log.
	if _, err := r.dev.CreateComputePipeline(ComputePipelineCreateInfo{Shader: "#version 310 es\nvoid main() {}\n"}); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "local_size") {
		t.Errorf("shader without a local size: %v", err)
	}
	if _, err := r.dev.CreateComputePipeline(ComputePipelineCreateInfo{Shader: "#version 310 es\nlayout(local_size_x = 16) in;\nvoid main() { undefined(); }\n"}); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "ERROR: 0:3") {
		t.Errorf("shader with an error: %v", err)
	}
	// A too-small buffer for the block's fixed part.
	const fixedCS = `#version 310 es
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer B { uint a[8]; } b;
void main() { b.a[7] = 1u; }
`
	r2 := newComputeRig(t, fixedCS)
	small2, _ := r2.buffer(t, make([]uint32, 4))
	cb = r2.cmdBuffer(t, EngineCompute)
	cb.CmdBindComputePipeline(r2.pipes[0])
	cb.CmdBindStorageBuffers(0, []BufferView{{Memory: small2, Size: 16}})
	if err := cb.CmdDispatch(1, 1, 1); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "needs at least 32") {
		t.Errorf("too-small buffer: %v", err)
	}
}

// A queue's fence covers every job submitted before it, also when the
// jobs run on different engines: here a compute job that spins until the
// CPU sets a flag, then a graphics job on the same universal queue. The
// graphics job alone would finish at once; the fence must wait for both.
func TestQueueFenceCoversEarlierWorkOnOtherEngines(t *testing.T) {
	const spinCS = `#version 310 es
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer F { uint flag; uint seen; } f;
void main() {
	for (int i = 0; i < 100000000; i++) {
		if (atomicAdd(f.flag, 0u) != 0u) break;
	}
	f.seen = 1u;
}
`
	r := newComputeRig(t, spinCS)
	flag, fm := r.buffer(t, []uint32{0, 0})
	cb := r.cmdBuffer(t, EngineUniversal)
	for _, err := range []error{
		cb.CmdBindComputePipeline(r.pipes[0]),
		cb.CmdBindStorageBuffers(0, []BufferView{{Memory: flag}}),
		cb.CmdDispatch(1, 1, 1),
		cb.CmdBindTargets(r.target, nil),
		cb.CmdClearColorTarget([4]float32{1, 0, 0, 1}),
		cb.End(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	fence := r.dev.CreateFence()
	if err := r.queue.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}, Fence: fence}); err != nil {
		t.Fatal(err)
	}
	if err := fence.Wait(200 * time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("the fence signalled (%v) while the queue's compute job still ran", err)
	}
	binary.LittleEndian.PutUint32(fm, 1)
	if err := fence.Wait(time.Minute); err != nil {
		t.Fatal(err)
	}
	if binary.LittleEndian.Uint32(fm[4:]) != 1 {
		t.Error("the compute job did not finish its work")
	}
}

// A perf experiment around a dispatch counts the compute engine's work.
func TestPerfExperimentCountsDispatches(t *testing.T) {
	r := newComputeRig(t, scanBlocksCS)
	exp, err := r.dev.CreatePerfExperiment(PerfExperimentCreateInfo{Counters: []string{"compute.workgroups", "compute.invocations", "compute.barriers"}})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := r.buffer(t, make([]uint32, 256))
	sums, _ := r.buffer(t, make([]uint32, 4))
	cb := r.cmdBuffer(t, EngineCompute)
	slot, _ := r.pipes[0].UserDataSlot("n")
	for _, err := range []error{
		cb.CmdSetUserData(slot, []uint32{256}),
		cb.CmdBindStorageBuffers(0, []BufferView{{Memory: data}, {Memory: sums}}),
		cb.CmdBindComputePipeline(r.pipes[0]),
		cb.CmdBeginPerfExperiment(exp),
		cb.CmdDispatch(4, 1, 1),
		cb.CmdEndPerfExperiment(exp),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	r.submit(t, EngineCompute, cb)
	res, err := exp.Results(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]uint64{"compute.workgroups": 4, "compute.invocations": 256}
	for _, c := range res.Counters {
		if w, ok := want[c.Name]; ok && c.Value != w {
			t.Errorf("%s = %d, want %d", c.Name, c.Value, w)
		}
		if c.Name == "compute.barriers" && c.Value == 0 {
			t.Error("compute.barriers = 0 for a shader with barriers")
		}
	}
	if res.Jobs != 1 || res.GPUTime <= 0 {
		t.Errorf("%d jobs, GPU time %v", res.Jobs, res.GPUTime)
	}
}
