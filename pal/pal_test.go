package pal

import (
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw/cl"
)

const triVS = `
attribute vec2 a_pos;
void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }
`

const triFS = `
precision mediump float;
uniform vec4 u_color;
void main() { gl_FragColor = u_color; }
`

// rig is a device with a queue, an allocator, a colour target and a
// triangle pipeline: what most tests start from.
type rig struct {
	plat   *Platform
	dev    *Device
	queue  *Queue
	alloc  *CmdAllocator
	image  *Image
	target *ColorTargetView
	mem    *GpuMemory // image memory
	pipe   *Pipeline
	vbuf   *GpuMemory
	w, h   int
}

func newRig(t testing.TB, w, h int) *rig {
	t.Helper()
	plat, err := NewPlatform(PlatformCreateInfo{MemorySize: 64 << 20, Cores: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(plat.Destroy)
	r := &rig{plat: plat, dev: plat.Devices()[0], w: w, h: h}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	r.queue, err = r.dev.CreateQueue(QueueCreateInfo{})
	must(err)
	r.alloc, err = r.dev.CreateCmdAllocator(CmdAllocatorCreateInfo{})
	must(err)
	r.image, err = r.dev.CreateImage(ImageCreateInfo{Width: w, Height: h, Format: FormatRGBA8Unorm})
	must(err)
	req := r.image.GpuMemoryRequirements()
	r.mem, err = r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: req.Size})
	must(err)
	must(r.image.BindGpuMemory(r.mem, 0))
	r.target, err = r.dev.CreateColorTargetView(r.image)
	must(err)
	r.pipe, err = r.dev.CreateGraphicsPipeline(GraphicsPipelineCreateInfo{
		VertexShader: triVS, FragmentShader: triFS, Topology: cl.PrimTriangles,
		VertexInputs: []VertexInput{{Name: "a_pos", Type: cl.AttrFloat, Components: 2}},
	})
	must(err)
	preq := r.pipe.GpuMemoryRequirements()
	pmem, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: preq.Size})
	must(err)
	must(r.pipe.BindGpuMemory(pmem, 0))
	r.vbuf, err = r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: 4096})
	must(err)
	must(r.dev.AddGpuMemoryReferences(r.mem, pmem, r.vbuf))
	return r
}

func floats(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		u := math.Float32bits(x)
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
	}
	return b
}

func colorWords(c [4]float32) []uint32 {
	return []uint32{math.Float32bits(c[0]), math.Float32bits(c[1]), math.Float32bits(c[2]), math.Float32bits(c[3])}
}

// recordTriangle records: clear to clear, draw the triangle at vbuf
// offset 0 in colour col.
func (r *rig) recordTriangle(t testing.TB, cb *CmdBuffer, clear, col [4]float32) {
	t.Helper()
	slot, _, ok := r.pipe.UserDataSlot("u_color")
	if !ok {
		t.Fatal("no u_color")
	}
	for _, err := range []error{
		cb.Begin(),
		cb.CmdBindTargets(r.target, nil),
		cb.CmdClearColorTarget(clear),
		cb.CmdBindPipeline(r.pipe),
		cb.CmdSetVertexBuffers(0, []VertexBufferView{{Memory: r.vbuf, Stride: 8}}),
		cb.CmdSetUserData(slot, colorWords(col)),
		cb.CmdDraw(0, 3, 0, 1),
		cb.End(),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func (r *rig) submitAndWait(t testing.TB, cbs ...*CmdBuffer) {
	t.Helper()
	f := r.dev.CreateFence()
	if err := r.queue.Submit(SubmitInfo{CmdBuffers: cbs, Fence: f}); err != nil {
		t.Fatal(err)
	}
	if err := f.Wait(time.Minute); err != nil {
		t.Fatal(err)
	}
}

// pixel returns the RGBA8 pixel at (x, y), y up.
func (r *rig) pixel(x, y int) [4]byte {
	b := r.mem.bytes[y*r.image.RowPitch()+4*x:]
	return [4]byte{b[0], b[1], b[2], b[3]}
}

func TestTriangleExactPixels(t *testing.T) {
	r := newRig(t, 64, 64)
	// The lower-left half of the target: pixel centres with x+y < 63 are
	// inside, x+y > 63 outside; x+y == 63 lies on the edge and is left
	// to the fill rule (checked against GL in TestTriangleMatchesGL).
	copy(r.vbuf.bytes, floats(-1, -1, 1, -1, -1, 1))
	cb, err := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	if err != nil {
		t.Fatal(err)
	}
	r.recordTriangle(t, cb, [4]float32{0, 0, 1, 1}, [4]float32{1, 0, 0, 1})
	r.submitAndWait(t, cb)
	red, blue := [4]byte{255, 0, 0, 255}, [4]byte{0, 0, 255, 255}
	inside := 0
	for y := 0; y < r.h; y++ {
		for x := 0; x < r.w; x++ {
			got := r.pixel(x, y)
			switch {
			case x+y < 63:
				inside++
				if got != red {
					t.Fatalf("pixel (%d,%d) = %v, want red %v", x, y, got, red)
				}
			case x+y > 63:
				if got != blue {
					t.Fatalf("pixel (%d,%d) = %v, want blue (clear) %v", x, y, got, blue)
				}
			default:
				if got != red && got != blue {
					t.Fatalf("edge pixel (%d,%d) = %v, neither colour", x, y, got)
				}
			}
		}
	}
	if inside != 63*64/2 {
		t.Fatalf("checked %d inside pixels", inside)
	}
}

// TestLongBufferContinuesInNewJobs: a command buffer whose job outgrows
// the limits continues in jobs that load the targets back, so earlier
// draws survive and the last draw wins.
func TestLongBufferContinuesInNewJobs(t *testing.T) {
	old := jobBufferLimit
	jobBufferLimit = 2048
	defer func() { jobBufferLimit = old }()
	r := newRig(t, 64, 64)
	// Triangle 0: the lower-left half; triangle 1: a small one top right.
	copy(r.vbuf.bytes, floats(-1, -1, 1, -1, -1, 1, 0.5, 0.5, 1, 0.5, 1, 1))
	cb, err := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	if err != nil {
		t.Fatal(err)
	}
	slot, _, _ := r.pipe.UserDataSlot("u_color")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(cb.Begin())
	must(cb.CmdBindTargets(r.target, nil))
	must(cb.CmdClearColorTarget([4]float32{0, 0, 0, 1}))
	must(cb.CmdBindPipeline(r.pipe))
	must(cb.CmdSetVertexBuffers(0, []VertexBufferView{{Memory: r.vbuf, Stride: 8}}))
	must(cb.CmdSetUserData(slot, colorWords([4]float32{1, 0, 0, 1})))
	must(cb.CmdDraw(0, 3, 0, 1))
	const n = 300
	for i := 1; i <= n; i++ {
		must(cb.CmdSetUserData(slot, colorWords([4]float32{0, float32(i) / n, 0, 1})))
		must(cb.CmdDraw(3, 3, 0, 1))
	}
	must(cb.End())
	if len(cb.jobs) < 3 {
		t.Fatalf("%d jobs: the limit did not split the buffer", len(cb.jobs))
	}
	r.submitAndWait(t, cb)
	if got := r.pixel(5, 5); got != [4]byte{255, 0, 0, 255} {
		t.Errorf("first draw's pixel = %v after %d jobs, want red (loaded by each continuation)", got, len(cb.jobs))
	}
	if got := r.pixel(60, 58); got != [4]byte{0, 255, 0, 255} {
		t.Errorf("last draw's pixel = %v, want green", got)
	}
	if got := r.pixel(40, 30); got != [4]byte{0, 0, 0, 255} {
		t.Errorf("untouched pixel = %v, want the clear colour", got)
	}
}

// TestPlatformDevices: each virtual GPU of a platform is its own device
// (own memory and kernel), they render concurrently, and objects of one
// cannot be used with another.
func TestPlatformDevices(t *testing.T) {
	if _, err := NewPlatform(PlatformCreateInfo{NumDevices: MaxDevices + 1}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("%d devices: %v", MaxDevices+1, err)
	}
	plat, err := NewPlatform(PlatformCreateInfo{NumDevices: 2, MemorySize: 16 << 20, Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer plat.Destroy()
	devs := plat.Devices()
	if len(devs) != 2 || devs[0].Properties().Index != 0 || devs[1].Properties().Index != 1 {
		t.Fatalf("devices %v", devs)
	}
	p := devs[0].Properties()
	if p.Heaps[0].Size != 16<<20 || p.Limits.TileSize != 64 || len(p.Engines) != 3 || p.Engines[0].Type != EngineUniversal || p.Engines[1].Type != EngineCompute || p.Engines[2].Type != EngineDma ||
		p.Limits.MaxComputeWorkgroupInvocations != 128 || p.Limits.NumComputeThreads != 16*p.Limits.NumCores {
		t.Fatalf("properties %+v", p)
	}
	m0, err := devs[0].CreateGpuMemory(GpuMemoryCreateInfo{Size: 4096})
	if err != nil {
		t.Fatal(err)
	}
	img1, err := devs[1].CreateImage(ImageCreateInfo{Width: 8, Height: 8})
	if err != nil {
		t.Fatal(err)
	}
	if err := img1.BindGpuMemory(m0, 0); !errors.Is(err, ErrWrongDevice) {
		t.Fatalf("binding device 0's memory to device 1's image: %v", err)
	}
	if err := devs[1].AddGpuMemoryReferences(m0); !errors.Is(err, ErrWrongDevice) {
		t.Fatalf("device-wide reference to another device's memory: %v", err)
	}
	// Both render at once, each its own colour.
	var wg sync.WaitGroup
	results := make([][4]byte, 2)
	errs := make([]error, 2)
	for i, d := range devs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = clearOn(d, [4]float32{float32(i), 1 - float32(i), 0, 1})
		}()
	}
	wg.Wait()
	for i := range devs {
		if errs[i] != nil {
			t.Fatalf("device %d: %v", i, errs[i])
		}
		want := [4]byte{byte(255 * i), byte(255 * (1 - i)), 0, 255}
		if results[i] != want {
			t.Errorf("device %d: pixel %v, want %v", i, results[i], want)
		}
	}
}

// clearOn clears a 16×16 image on d and returns a pixel.
func clearOn(d *Device, col [4]float32) ([4]byte, error) {
	img, err := d.CreateImage(ImageCreateInfo{Width: 16, Height: 16})
	if err != nil {
		return [4]byte{}, err
	}
	mem, err := d.CreateGpuMemory(GpuMemoryCreateInfo{Size: img.GpuMemoryRequirements().Size})
	if err != nil {
		return [4]byte{}, err
	}
	if err := img.BindGpuMemory(mem, 0); err != nil {
		return [4]byte{}, err
	}
	view, err := d.CreateColorTargetView(img)
	if err != nil {
		return [4]byte{}, err
	}
	alloc, _ := d.CreateCmdAllocator(CmdAllocatorCreateInfo{})
	cb, err := d.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: alloc})
	if err != nil {
		return [4]byte{}, err
	}
	_ = cb.Begin()
	_ = cb.CmdBindTargets(view, nil)
	_ = cb.CmdClearColorTarget(col)
	if err := cb.End(); err != nil {
		return [4]byte{}, err
	}
	q, err := d.CreateQueue(QueueCreateInfo{})
	if err != nil {
		return [4]byte{}, err
	}
	f := d.CreateFence()
	if err := q.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}, GpuMemoryRefs: []*GpuMemory{mem}, Fence: f}); err != nil {
		return [4]byte{}, err
	}
	if err := f.Wait(time.Minute); err != nil {
		return [4]byte{}, err
	}
	return [4]byte(mem.bytes[4*(16*5+5):]), nil
}

// TestNestedCmdBuffers: a primary buffer clears, runs a nested buffer
// that draws, and draws again after it with its own state.
func TestNestedCmdBuffers(t *testing.T) {
	r := newRig(t, 64, 64)
	copy(r.vbuf.bytes, floats(-1, -1, 1, -1, -1, 1, 0.5, 0.5, 1, 0.5, 1, 1))
	nested, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	primary, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	slot, _, _ := r.pipe.UserDataSlot("u_color")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := primary.Begin(); err != nil {
		t.Fatal(err)
	}
	if err := primary.CmdExecuteNestedCmdBuffers(nested); !errors.Is(err, ErrCmdBufferNotEnded) {
		t.Fatalf("nesting an unended buffer: %v", err)
	}
	must(nested.Begin())
	must(nested.CmdBindTargets(r.target, nil))
	must(nested.CmdBindPipeline(r.pipe))
	must(nested.CmdSetVertexBuffers(0, []VertexBufferView{{Memory: r.vbuf, Stride: 8}}))
	must(nested.CmdSetUserData(slot, colorWords([4]float32{1, 0, 0, 1})))
	must(nested.CmdDraw(0, 3, 0, 1))
	must(nested.End())

	must(primary.Begin())
	must(primary.CmdBindTargets(r.target, nil))
	must(primary.CmdClearColorTarget([4]float32{0, 0, 1, 1}))
	must(primary.CmdBindPipeline(r.pipe))
	must(primary.CmdSetVertexBuffers(0, []VertexBufferView{{Memory: r.vbuf, Stride: 8}}))
	must(primary.CmdSetUserData(slot, colorWords([4]float32{0, 1, 0, 1})))
	must(primary.CmdDraw(3, 3, 0, 1)) // flushes with the clear, before the nested draw
	must(primary.CmdExecuteNestedCmdBuffers(nested))
	must(primary.CmdDraw(3, 3, 0, 1)) // after: again green, in a new job
	must(primary.End())
	r.submitAndWait(t, primary)
	for _, c := range []struct {
		x, y int
		want [4]byte
	}{{5, 5, [4]byte{255, 0, 0, 255}}, {60, 58, [4]byte{0, 255, 0, 255}}, {40, 30, [4]byte{0, 0, 255, 255}}} {
		if got := r.pixel(c.x, c.y); got != c.want {
			t.Errorf("pixel (%d,%d) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
	if err := nested.Begin(); err != nil {
		t.Fatalf("Begin of the nested buffer after the primary's fence: %v", err)
	}
}

// TestOneBufferSubmittedFromTwoQueues: an executable buffer may be
// submitted by several queues at once; submission only reads it (under
// -race this failed while building the render-target description wrote
// the job's BO flags).
func TestOneBufferSubmittedFromTwoQueues(t *testing.T) {
	r := newRig(t, 32, 32)
	copy(r.vbuf.bytes, floats(-1, -1, 1, -1, -1, 1))
	cb, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	r.recordTriangle(t, cb, [4]float32{0, 0, 0, 1}, [4]float32{1, 1, 1, 1})
	q2, err := r.dev.CreateQueue(QueueCreateInfo{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, q := range []*Queue{r.queue, q2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := r.dev.CreateFence()
			if errs[i] = q.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}, Fence: f}); errs[i] == nil {
				errs[i] = f.Wait(time.Minute)
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("queue %d: %v", i, err)
		}
	}
	if got := r.pixel(3, 3); got != [4]byte{255, 255, 255, 255} {
		t.Fatalf("pixel %v", got)
	}
}

// TestImageCopies: CmdUpdateMemory → CmdCopyMemoryToImage (an upload into
// mip level 1) → CmdCopyImage (to level 0 of another image), in order
// with a clear of the destination recorded before them.
func TestImageCopies(t *testing.T) {
	r := newRig(t, 8, 8)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	tex, err := r.dev.CreateImage(ImageCreateInfo{Width: 16, Height: 16, MipLevels: 2})
	must(err)
	texMem, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: tex.GpuMemoryRequirements().Size})
	must(err)
	must(tex.BindGpuMemory(texMem, 0))
	staging, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: 4096})
	must(err)
	texels := make([]byte, 3*2*4) // 3×2 pixels, pixel i = (i, 2i, 3i, 255)
	for i := 0; i < 6; i++ {
		copy(texels[4*i:], []byte{byte(i), byte(2 * i), byte(3 * i), 255})
	}
	cb, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	must(cb.Begin())
	if err := cb.CmdCopyImage(tex, ImageRegion{Level: 1, X: 6, Width: 3, Height: 1}, r.image, 0, 0, 0); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("copy from outside the 8×8 level: %v", err)
	}
	must(cb.Reset())
	must(cb.Begin())
	must(cb.CmdBindTargets(r.target, nil))
	must(cb.CmdClearColorTarget([4]float32{1, 1, 1, 1}))
	must(cb.CmdUpdateMemory(staging, 100, texels))
	must(cb.CmdCopyMemoryToImage(staging, 100, 12, tex, ImageRegion{Level: 1, X: 4, Y: 5, Width: 3, Height: 2}))
	must(cb.CmdCopyImage(tex, ImageRegion{Level: 1, X: 4, Y: 5, Width: 3, Height: 2}, r.image, 1, 2, 0))
	must(cb.CmdCopyImageToMemory(r.image, ImageRegion{X: 1, Y: 2, Width: 3, Height: 2}, staging, 1000, 16))
	must(cb.End())
	f := r.dev.CreateFence()
	must(r.queue.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}, GpuMemoryRefs: []*GpuMemory{texMem, staging}, Fence: f}))
	must(f.Wait(time.Minute))
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			want := [4]byte{255, 255, 255, 255}
			if x >= 1 && x < 4 && y >= 2 && y < 4 {
				i := byte((y-2)*3 + x - 1)
				want = [4]byte{i, 2 * i, 3 * i, 255}
			}
			if got := r.pixel(x, y); got != want {
				t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, got, want)
			}
		}
	}
	// The readback: the region's rows 16 bytes apart.
	for row := 0; row < 2; row++ {
		got := staging.bytes[1000+16*row : 1000+16*row+12]
		if want := texels[12*row : 12*row+12]; string(got) != string(want) {
			t.Fatalf("read back row %d = %v, want %v", row, got, want)
		}
	}
}
