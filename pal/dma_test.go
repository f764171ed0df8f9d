package pal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// The copy commands on a DMA queue run on the GPU's DMA engine and give
// the bytes the CPU path gives.
func TestDMAQueueCopies(t *testing.T) {
	r := newComputeRig(t)
	dq, err := r.dev.CreateQueue(QueueCreateInfo{Engine: EngineDma})
	if err != nil {
		t.Fatal(err)
	}
	run := func(q *Queue, engine EngineType) []byte {
		src, sb := r.buffer(t, seqWords(2048, func(i int) uint32 { return uint32(i*2654435761) ^ 0x5555 }))
		dst, db := r.buffer(t, make([]uint32, 2048))
		img, err := r.dev.CreateImage(ImageCreateInfo{Width: 20, Height: 10, Format: FormatRGBA8Unorm})
		if err != nil {
			t.Fatal(err)
		}
		imem, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: img.GpuMemoryRequirements().Size})
		if err != nil {
			t.Fatal(err)
		}
		if err := img.BindGpuMemory(imem, 0); err != nil {
			t.Fatal(err)
		}
		r.dev.AddGpuMemoryReferences(imem)
		cb, err := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc, Engine: engine})
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range []error{
			cb.Begin(),
			cb.CmdCopyMemory(src, dst, []MemoryCopyRegion{{SrcOffset: 16, DstOffset: 100, Size: 3000}, {SrcOffset: 4000, DstOffset: 7000, Size: 32}}),
			cb.CmdCopyMemory(src, dst, []MemoryCopyRegion{{SrcOffset: 5, DstOffset: 7101, Size: 33}}), // unaligned: on the CPU
			cb.CmdFillMemory(dst, 4096, 512, 0xCAFEF00D),
			cb.CmdCopyMemoryToImage(src, 64, 96, img, ImageRegion{X: 3, Y: 2, Width: 12, Height: 7}),
			cb.CmdCopyImageToMemory(img, ImageRegion{X: 2, Y: 1, Width: 15, Height: 8}, dst, 5000, 64),
			cb.End(),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
		f := r.dev.CreateFence()
		if err := q.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}, Fence: f}); err != nil {
			t.Fatal(err)
		}
		if err := f.Wait(time.Minute); err != nil {
			t.Fatal(err)
		}
		_ = sb
		return append([]byte(nil), db...)
	}
	gpu := run(dq, EngineDma)
	if dq.dmaJobs != 4 {
		t.Errorf("the DMA queue submitted %d DMA jobs, want 4 (the unaligned copy runs on the CPU)", dq.dmaJobs)
	}
	cpu := run(r.queue, EngineUniversal)
	if !bytes.Equal(gpu, cpu) {
		for i := range gpu {
			if gpu[i] != cpu[i] {
				t.Fatalf("DMA queue and CPU copies differ first at byte %d: %#x vs %#x", i, gpu[i], cpu[i])
			}
		}
	}
	// The destination really changed (the comparison is not of two
	// untouched buffers).
	if bytes.Equal(gpu[4096:4100], []byte{0, 0, 0, 0}) || gpu[100] == 0 && gpu[101] == 0 && gpu[102] == 0 {
		t.Fatalf("nothing was copied")
	}
	// Graphics and compute on a DMA command buffer are errors.
	cb, err := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc, Engine: EngineDma})
	if err != nil {
		t.Fatal(err)
	}
	cb.Begin()
	if err := cb.CmdBindTargets(r.target, nil); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("CmdBindTargets on a DMA command buffer: %v", err)
	}
	cb.Reset()
	cb.Begin()
	if err := cb.CmdDispatch(1, 1, 1); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("CmdDispatch on a DMA command buffer: %v", err)
	}
}

// The async pipeline: the DMA queue uploads the next frame's
// texture while the universal queue renders the current frame with the
// other one (two textures, ping-pong), ordered by queue semaphores:
// "ready[i]" (upload done → draw may sample) and "free[i]" (draw done →
// upload may overwrite). Every frame must show its own texture's colour.
func TestAsyncUploadWhileRendering(t *testing.T) {
	const texVS = `
attribute vec2 a_pos;
varying vec2 v_uv;
void main() { v_uv = a_pos * 0.5 + 0.5; gl_Position = vec4(a_pos, 0.0, 1.0); }
`
	const texFS = `
precision mediump float;
uniform sampler2D u_tex;
varying vec2 v_uv;
void main() { gl_FragColor = texture2D(u_tex, v_uv); }
`
	const frames, tw = 6, 8
	r := newComputeRig(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	dq, err := r.dev.CreateQueue(QueueCreateInfo{Engine: EngineDma})
	must(err)
	pipe, err := r.dev.CreateGraphicsPipeline(GraphicsPipelineCreateInfo{
		VertexShader: texVS, FragmentShader: texFS, Topology: cl.PrimTriangles,
		VertexInputs: []VertexInput{{Name: "a_pos", Type: cl.AttrFloat, Components: 2}},
	})
	must(err)
	pmem, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: pipe.GpuMemoryRequirements().Size})
	must(err)
	must(pipe.BindGpuMemory(pmem, 0))
	must(r.dev.AddGpuMemoryReferences(pmem))
	vbuf, _ := r.buffer(t, floatWords(-1, -1, 1, -1, -1, 1, 1, -1, 1, 1, -1, 1))
	// Each frame's texels: a solid colour per frame, in staging memory.
	colour := func(f int) uint32 { return 0xFF000000 | uint32(40*f+10) | uint32(255-30*f)<<8 | uint32(17*f)<<16 }
	staging, _ := r.buffer(t, seqWords(frames*tw*tw, func(i int) uint32 { return colour(i / (tw * tw)) }))
	var views [2]*ImageView
	var texs [2]*Image
	for i := range texs {
		texs[i], err = r.dev.CreateImage(ImageCreateInfo{Width: tw, Height: tw})
		must(err)
		m, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: texs[i].GpuMemoryRequirements().Size})
		must(err)
		must(texs[i].BindGpuMemory(m, 0))
		must(r.dev.AddGpuMemoryReferences(m))
		views[i], err = r.dev.CreateImageView(texs[i], SamplerCreateInfo{MinFilter: cl.MinFilterNearest, MagFilter: cl.MagFilterNearest})
		must(err)
	}
	readback, rb := r.buffer(t, make([]uint32, frames*r.w*r.h))
	var ready, free [2]*QueueSemaphore
	for i := range ready {
		ready[i], err = r.dev.CreateQueueSemaphore(QueueSemaphoreCreateInfo{})
		must(err)
		free[i], err = r.dev.CreateQueueSemaphore(QueueSemaphoreCreateInfo{})
		must(err)
	}
	var keep []*CmdBuffer // command buffers stay alive until their work is done
	upload := func(f int) {
		cb := r.cmdBuffer(t, EngineDma)
		must(cb.CmdCopyMemoryToImage(staging, uint64(f*tw*tw*4), tw*4, texs[f%2], ImageRegion{Width: tw, Height: tw}))
		must(cb.End())
		if f >= 2 {
			must(dq.WaitQueueSemaphore(free[f%2], time.Minute))
		}
		must(dq.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}}))
		must(dq.SignalQueueSemaphore(ready[f%2]))
		keep = append(keep, cb)
	}
	upload(0)
	for f := 0; f < frames; f++ {
		if f+1 < frames {
			upload(f + 1) // the next frame's texture, while this one renders
		}
		cb := r.cmdBuffer(t, EngineUniversal)
		must(cb.CmdBindTargets(r.target, nil))
		must(cb.CmdClearColorTarget([4]float32{0, 0, 0, 1}))
		must(cb.CmdBindPipeline(pipe))
		must(cb.CmdSetVertexBuffers(0, []VertexBufferView{{Memory: vbuf, Stride: 8}}))
		must(cb.CmdBindImageViews(0, []*ImageView{views[f%2]}))
		must(cb.CmdDraw(0, 6, 0, 1))
		must(cb.CmdCopyImageToMemory(r.image, ImageRegion{Width: r.w, Height: r.h}, readback, uint64(f*r.w*r.h*4), r.w*4))
		must(cb.End())
		must(r.queue.WaitQueueSemaphore(ready[f%2], time.Minute))
		must(r.queue.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}}))
		must(r.queue.SignalQueueSemaphore(free[f%2]))
		keep = append(keep, cb)
	}
	must(r.queue.WaitIdle(time.Minute))
	must(dq.WaitIdle(time.Minute))
	if dq.dmaJobs != frames {
		t.Errorf("%d uploads ran on the DMA engine, want %d", dq.dmaJobs, frames)
	}
	for f := 0; f < frames; f++ {
		for i := 0; i < r.w*r.h; i++ {
			if got := binary.LittleEndian.Uint32(rb[4*(f*r.w*r.h+i):]); got != colour(f) {
				t.Fatalf("frame %d pixel %d = %#08x, want %#08x (its own texture)", f, i, got, colour(f))
			}
		}
	}
}

func floatWords(v ...float32) []uint32 {
	out := make([]uint32, len(v))
	for i, x := range v {
		out[i] = math.Float32bits(x)
	}
	return out
}
