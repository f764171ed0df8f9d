package pal

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
	"time"
)

// FuzzCmdBufferRecording drives a command buffer with random command
// sequences. Every command must return nil or an error (never panic or
// hang), and a buffer whose End succeeded must be accepted by the
// kernel's validator and execute without error: pal never builds a job
// the kernel rejects.
func FuzzCmdBufferRecording(f *testing.F) {
	r := newRig(f, 32, 32)
	copy(r.vbuf.bytes, floats(-1, -1, 1, -1, -1, 1, 1, 1, 0, 0, 0.5, -0.5))
	depthImg, err := r.dev.CreateImage(ImageCreateInfo{Width: 32, Height: 32, Format: FormatD24UnormS8Uint})
	if err != nil {
		f.Fatal(err)
	}
	dmem, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: depthImg.GpuMemoryRequirements().Size})
	if err != nil {
		f.Fatal(err)
	}
	if err := depthImg.BindGpuMemory(dmem, 0); err != nil {
		f.Fatal(err)
	}
	depth, err := r.dev.CreateDepthStencilView(depthImg)
	if err != nil {
		f.Fatal(err)
	}
	ibuf, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: 4096})
	if err != nil {
		f.Fatal(err)
	}
	for i := 0; i < 1024; i++ {
		binary.LittleEndian.PutUint16(ibuf.bytes[2*i:], uint16(i*7%11))
	}
	spare, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: 8192})
	if err != nil {
		f.Fatal(err)
	}
	if err := r.dev.AddGpuMemoryReferences(dmem, ibuf, spare); err != nil {
		f.Fatal(err)
	}
	blend, _ := r.dev.CreateColorBlendState(ColorBlendStateCreateInfo{BlendEnable: true, SrcBlendColor: 6, DstBlendColor: 7, SrcBlendAlpha: 1})
	dss, _ := r.dev.CreateDepthStencilState(DepthStencilStateCreateInfo{DepthEnable: true, DepthWriteEnable: true, DepthFunc: 1,
		StencilEnable: true, Front: StencilOpState{Func: 7, PassOp: 3, WriteMask: 0xff, CompareMask: 0xff}, Back: StencilOpState{Func: 2}})
	mems := []*GpuMemory{r.vbuf, ibuf, spare, nil}
	// A buffer to nest: a depth-tested draw into both targets.
	nested, err := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	if err != nil {
		f.Fatal(err)
	}
	for _, err := range []error{nested.Begin(), nested.CmdBindTargets(r.target, depth), nested.CmdBindPipeline(r.pipe),
		nested.CmdBindDepthStencilState(dss), nested.CmdSetVertexBuffers(0, []VertexBufferView{{Memory: r.vbuf, Stride: 8}}),
		nested.CmdDraw(0, 3, 0, 1), nested.End()} {
		if err != nil {
			f.Fatal(err)
		}
	}

	argsMem, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: 4096})
	if err != nil {
		f.Fatal(err)
	}
	if err := r.dev.AddGpuMemoryReferences(argsMem); err != nil {
		f.Fatal(err)
	}
	occ, err := r.dev.CreateQueryPool(QueryPoolCreateInfo{Type: QueryPoolOcclusion, NumSlots: 2})
	if err != nil {
		f.Fatal(err)
	}
	exp, err := r.dev.CreatePerfExperiment(PerfExperimentCreateInfo{})
	if err != nil {
		f.Fatal(err)
	}
	// A compute pipeline and indirect counts no other command writes.
	cpipe, err := r.dev.CreateComputePipeline(ComputePipelineCreateInfo{Shader: `#version 310 es
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer B { uint v[]; } b;
void main() {
	uint i = gl_GlobalInvocationID.x;
	if (i < uint(b.v.length())) b.v[i] = b.v[i] * 3u + 1u;
}`})
	if err != nil {
		f.Fatal(err)
	}
	cmem, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: cpipe.GpuMemoryRequirements().Size})
	if err != nil {
		f.Fatal(err)
	}
	if err := cpipe.BindGpuMemory(cmem, 0); err != nil {
		f.Fatal(err)
	}
	counts, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: 4096})
	if err != nil {
		f.Fatal(err)
	}
	for i := 0; i < 1024; i++ {
		binary.LittleEndian.PutUint32(counts.bytes[4*i:], uint32(i%5))
	}
	if err := r.dev.AddGpuMemoryReferences(cmem, counts); err != nil {
		f.Fatal(err)
	}
	// A dispatch between draws.
	f.Add([]byte{0, 3, 1, 6, 1, 12, 0, 0, 0, 0, 8, 30, 1, 31, 0, 2, 0, 0, 32, 3, 1, 1, 14, 0, 3, 1, 33, 5, 1})
	// Events: waited is set by the CPU before every submission and never
	// reset, so waits on it pass; flag is set and reset but never waited
	// for (a wait nothing sets fails after the kernel's job timeout and
	// loses the device, see TestWaitEventNeverSetFailsTheSubmission).
	waited, _ := newEvent(f, r.dev, 0)
	flag, _ := newEvent(f, r.dev, 4)
	unboundEvent, _ := r.dev.CreateGpuEvent(GpuEventCreateInfo{})
	events := []*GpuEvent{waited, flag, unboundEvent, nil}
	// Begin, colour target, pipeline, vertex buffer, draw, End.
	f.Add([]byte{0, 3, 1, 6, 1, 12, 0, 0, 0, 0, 8, 14, 0, 3, 1, 1})
	// With depth/stencil: clear, state objects, indexed draw, barrier,
	// draw, copy, End.
	f.Add([]byte{0, 3, 3, 5, 128, 1, 8, 1, 7, 1, 6, 1, 12, 0, 0, 0, 0, 8, 13, 1, 0, 1, 15, 0, 6, 0, 1, 16, 14, 0, 3, 1, 17, 2, 0, 0, 4, 1})
	// User data, viewport, scissor, fill, two draws.
	f.Add([]byte{0, 3, 1, 6, 1, 11, 0, 4, 1, 2, 3, 4, 9, 0, 0, 32, 32, 0, 200, 10, 1, 1, 20, 20, 12, 0, 0, 0, 0, 8, 14, 0, 3, 1, 18, 2, 4, 8, 14, 1, 3, 2, 1})
	// A draw inside an occlusion query and a perf experiment.
	f.Add([]byte{0, 3, 1, 6, 1, 12, 0, 0, 0, 0, 28, 0, 27, 1, 0, 8, 14, 0, 3, 1, 27, 1, 1, 28, 1, 1})
	// Wait, timestamps around a draw, set and reset events, a timestamp
	// at the end.
	f.Add([]byte{0, 32, 1, 33, 0, 2, 0, 3, 1, 6, 1, 12, 0, 0, 0, 0, 8, 14, 0, 3, 1, 33, 1, 2, 2, 30, 1, 31, 0, 30, 0, 17, 2, 0, 0, 4, 30, 1, 33, 0, 2, 4, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		cb, err := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
		if err != nil {
			t.Fatal(err)
		}
		pos := 0
		next := func() byte {
			if pos >= len(data) {
				return 0
			}
			pos++
			return data[pos-1]
		}
		ended := false
		for ops := 0; pos < len(data) && ops < 64; ops++ {
			ended = false
			switch next() % 38 {
			case 0:
				_ = cb.Begin()
			case 1:
				ended = cb.End() == nil
			case 2:
				_ = cb.Reset()
			case 3:
				switch next() % 4 {
				case 0:
					_ = cb.CmdBindTargets(nil, nil)
				case 1:
					_ = cb.CmdBindTargets(r.target, nil)
				case 2:
					_ = cb.CmdBindTargets(nil, depth)
				case 3:
					_ = cb.CmdBindTargets(r.target, depth)
				}
			case 4:
				_ = cb.CmdClearColorTarget([4]float32{float32(next()) / 255, float32(next()) / 100, 0, 1})
			case 5:
				_ = cb.CmdClearDepthStencilTarget(float32(next())/200, next())
			case 6:
				if next()%2 == 0 {
					_ = cb.CmdBindPipeline(nil)
				} else {
					_ = cb.CmdBindPipeline(r.pipe)
				}
			case 7:
				if next()%2 == 0 {
					_ = cb.CmdBindColorBlendState(nil)
				} else {
					_ = cb.CmdBindColorBlendState(blend)
				}
			case 8:
				if next()%2 == 0 {
					_ = cb.CmdBindDepthStencilState(nil)
				} else {
					_ = cb.CmdBindDepthStencilState(dss)
				}
			case 9:
				_ = cb.CmdSetViewport(Viewport{OriginX: float32(int8(next())), OriginY: float32(int8(next())),
					Width: float32(next()), Height: float32(next()), MinDepth: float32(next()) / 200, MaxDepth: float32(next()) / 200})
			case 10:
				_ = cb.CmdSetScissorRect(ScissorRect{X: int(int8(next())), Y: int(int8(next())), Width: int(next()), Height: int(next())})
			case 11:
				first := int(next()) * 17
				vals := make([]uint32, next()%8)
				for i := range vals {
					vals[i] = math.Float32bits(float32(next()) / 255)
				}
				_ = cb.CmdSetUserData(first, vals)
			case 12:
				slot := int(next() % 17)
				m := mems[next()%4]
				_ = cb.CmdSetVertexBuffers(slot, []VertexBufferView{{Memory: m, Offset: uint64(next()) * 4, Size: uint64(next()) * 16, Stride: uint32(next())}})
			case 13:
				_ = cb.CmdBindIndexData(mems[next()%4], uint64(next())*2, IndexType(next()%4))
			case 14:
				_ = cb.CmdDraw(uint32(next()), uint32(next()), 0, uint32(next()%4))
			case 15:
				_ = cb.CmdDrawIndexed(uint32(next()), uint32(next()), int32(int8(next())), 0, uint32(next()%4))
			case 16:
				_ = cb.CmdBarrier()
			case 17:
				_ = cb.CmdCopyMemory(spare, mems[next()%4], []MemoryCopyRegion{{SrcOffset: uint64(next()) * 16, DstOffset: uint64(next()) * 16, Size: uint64(next()) * 8}})
			case 18:
				_ = cb.CmdFillMemory(mems[next()%4], uint64(next())*4, uint64(next())*4, 0x3f800000)
			case 19:
				_ = cb.CmdSetStencilRef(next(), next())
			case 20:
				_ = cb.CmdSetBlendConst([4]float32{float32(next()), 0, 0, 1})
			case 21:
				_ = cb.CmdBindMsaaState(nil)
			case 22:
				_ = cb.CmdExecuteNestedCmdBuffers(nested)
			case 23:
				m, off, n := mems[next()%4], uint64(next())*8, int(next()%32)
				_ = cb.CmdUpdateMemory(m, off, data[pos:min(pos+n, len(data))])
			case 24:
				_ = cb.CmdCopyMemoryToImage(spare, uint64(next())*4, int(next()), r.image,
					ImageRegion{Level: int(next() % 2), X: int(next() % 40), Y: int(next() % 40), Width: int(next() % 40), Height: int(next() % 40)})
			case 25:
				_ = cb.CmdCopyImage(r.image, ImageRegion{Level: int(next() % 2), X: int(next() % 40), Y: int(next() % 40), Width: int(next() % 40), Height: int(next() % 40)},
					r.image, int(next()%40), int(next()%40), int(next()%2))
			case 26:
				_ = cb.CmdCopyImageToMemory(r.image, ImageRegion{X: int(next() % 40), Y: int(next() % 40), Width: int(next() % 40), Height: int(next() % 40)},
					mems[next()%4], uint64(next())*4, int(next()))
			case 27: // begin or end an occlusion query, slot 2 out of range
				if slot := int(next() % 3); next()%2 == 0 {
					_ = cb.CmdBeginQuery(occ, slot)
				} else {
					_ = cb.CmdEndQuery(occ, slot)
				}
			case 29: // an indirect draw with small arguments (or a bad offset)
				off := uint64(next()) * 4
				if off+DrawIndirectArgsBytes <= argsMem.size {
					putArgs(argsMem.bytes[off:], uint32(next()%48), uint32(next()%3), uint32(next()%8))
				}
				_ = cb.CmdDrawIndirect(argsMem, off)
			case 28:
				if next()%2 == 0 {
					_ = cb.CmdBeginPerfExperiment(exp)
				} else {
					_ = cb.CmdEndPerfExperiment(exp)
				}
			case 30:
				if next()%2 == 0 {
					_ = cb.CmdBindComputePipeline(nil)
				} else {
					_ = cb.CmdBindComputePipeline(cpipe)
				}
			case 31:
				_ = cb.CmdBindStorageBuffers(int(next()%18), []BufferView{{Memory: mems[next()%4], Offset: uint64(next()) * 4, Size: uint64(next()) * 8}})
			case 32:
				_ = cb.CmdDispatch(uint32(next()%8), uint32(next()%8), uint32(next()%8))
			case 33:
				_ = cb.CmdDispatchIndirect(counts, uint64(next())*4)
			case 34: // set an event (or misuse: unbound, nil)
				_ = cb.CmdSetEvent(events[next()%4])
			case 35: // reset: never the waited event
				_ = cb.CmdResetEvent(events[1+next()%3])
			case 36: // wait: only the event the CPU sets
				if next()%4 == 0 {
					_ = cb.CmdWaitEvent(events[2+next()%2])
				} else {
					_ = cb.CmdWaitEvent(waited)
				}
			case 37: // a timestamp at a pipe point (2 and 3 invalid), offset possibly misaligned or outside
				_ = cb.CmdWriteTimestamp(PipePoint(next()%4), mems[next()%4], uint64(next())*4)
			}
		}
		if !ended {
			return
		}
		if err := waited.Set(); err != nil {
			t.Fatal(err)
		}
		fence := r.dev.CreateFence()
		if err := r.queue.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}, Fence: fence}); err != nil {
			t.Fatalf("an ended command buffer was not accepted: %v", err)
		}
		if err := fence.Wait(time.Minute); err != nil && !errors.Is(err, ErrTimeout) {
			t.Fatalf("an accepted command buffer failed on the GPU: %v", err)
		} else if err != nil {
			t.Fatalf("an accepted command buffer did not finish in a minute: %v", err)
		}
		// Spans of a finished submission are final; others never ran.
		if _, err := occ.GetResults(0, 2, 0); err != nil && !errors.Is(err, ErrNotReady) {
			t.Fatalf("query results after the fence: %v", err)
		}
		if _, err := exp.Results(0); err != nil && !errors.Is(err, ErrNotReady) {
			t.Fatalf("experiment results after the fence: %v", err)
		}
	})
}
