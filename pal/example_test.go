package pal_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/pal"
)

// Draw a triangle with the explicit API: create memory and bind it to an
// image and a pipeline, record a command buffer, submit it with the
// memory it uses, wait for the fence, read the pixels.
func Example() {
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
	// bind gives an IGpuMemoryBindable object memory of its own.
	var resident []*pal.GpuMemory
	bind := func(o pal.IGpuMemoryBindable) *pal.GpuMemory {
		m, err := dev.CreateGpuMemory(pal.GpuMemoryCreateInfo{Size: o.GpuMemoryRequirements().Size})
		check(err)
		check(o.BindGpuMemory(m, 0))
		resident = append(resident, m)
		return m
	}

	img, err := dev.CreateImage(pal.ImageCreateInfo{Width: 64, Height: 64, Format: pal.FormatRGBA8Unorm})
	check(err)
	imgMem := bind(img)
	target, err := dev.CreateColorTargetView(img)
	check(err)

	pipe, err := dev.CreateGraphicsPipeline(pal.GraphicsPipelineCreateInfo{
		VertexShader: `attribute vec2 a_pos;
			void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }`,
		FragmentShader: `precision mediump float;
			uniform vec4 u_color;
			void main() { gl_FragColor = u_color; }`,
		VertexInputs: []pal.VertexInput{{Name: "a_pos", Type: cl.AttrFloat, Components: 2}},
		Topology:     cl.PrimTriangles,
	})
	check(err)
	bind(pipe)

	vbuf, err := dev.CreateGpuMemory(pal.GpuMemoryCreateInfo{Size: 4096})
	check(err)
	resident = append(resident, vbuf)
	verts, err := vbuf.Map()
	check(err)
	for i, v := range []float32{-1, -1, 1, -1, -1, 1} { // the lower-left half
		binary.LittleEndian.PutUint32(verts[4*i:], math.Float32bits(v))
	}
	check(vbuf.Unmap())

	alloc, err := dev.CreateCmdAllocator(pal.CmdAllocatorCreateInfo{})
	check(err)
	cb, err := dev.CreateCmdBuffer(pal.CmdBufferCreateInfo{Allocator: alloc})
	check(err)
	slot, _, _ := pipe.UserDataSlot("u_color")
	orange := []uint32{math.Float32bits(1), math.Float32bits(0.5), 0, math.Float32bits(1)}
	check(cb.Begin())
	check(cb.CmdBindTargets(target, nil))
	check(cb.CmdClearColorTarget([4]float32{0, 0, 0.25, 1}))
	check(cb.CmdBindPipeline(pipe))
	check(cb.CmdSetVertexBuffers(0, []pal.VertexBufferView{{Memory: vbuf, Stride: 8}}))
	check(cb.CmdSetUserData(slot, orange))
	check(cb.CmdDraw(0, 3, 0, 1))
	check(cb.End())

	queue, err := dev.CreateQueue(pal.QueueCreateInfo{Engine: pal.EngineUniversal})
	check(err)
	fence := dev.CreateFence()
	check(queue.Submit(pal.SubmitInfo{CmdBuffers: []*pal.CmdBuffer{cb}, GpuMemoryRefs: resident, Fence: fence}))
	check(fence.Wait(time.Minute))

	pix, err := imgMem.Map()
	check(err)
	at := func(x, y int) []byte { return pix[(y*img.RowPitch() + 4*x):][:4] }
	fmt.Println("(8,8):", at(8, 8), "(60,60):", at(60, 60))
	// Output: (8,8): [255 128 0 255] (60,60): [0 0 64 255]
}
