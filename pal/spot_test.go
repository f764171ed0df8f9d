package pal

import (
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/scene"
)

// boxMip writes level l of an RGBA8 image from level l-1: each texel the
// rounded mean of a 2×2 block (edges clamped), the filter GL's
// glGenerateMipmap uses in driver/tg. In an explicit API mip generation
// is the application's job; this is the application's.
func boxMip(src []byte, sw, sh int, dst []byte, dw, dh int) {
	for y := 0; y < dh; y++ {
		y0, y1 := min(2*y, sh-1), min(2*y+1, sh-1)
		for x := 0; x < dw; x++ {
			x0, x1 := min(2*x, sw-1), min(2*x+1, sw-1)
			for ch := 0; ch < 4; ch++ {
				s := int(src[(y0*sw+x0)*4+ch]) + int(src[(y0*sw+x1)*4+ch]) + int(src[(y1*sw+x0)*4+ch]) + int(src[(y1*sw+x1)*4+ch])
				dst[(y*dw+x)*4+ch] = byte((s + 2) / 4)
			}
		}
	}
}

// renderSpotPAL renders scene.DrawSpot's default scene through pal: the
// same mesh, texture, shaders, camera and state, recorded explicitly.
func renderSpotPAL(t *testing.T, w, h int) []byte {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	mesh, err := scene.Spot()
	must(err)
	tex, err := scene.SpotTexture()
	must(err)
	plat, err := NewPlatform(PlatformCreateInfo{MemorySize: 64 << 20})
	must(err)
	defer plat.Destroy()
	dev := plat.Devices()[0]

	// bind creates memory for a bindable object and binds it.
	var mems []*GpuMemory
	bind := func(o IGpuMemoryBindable) *GpuMemory {
		m, err := dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: o.GpuMemoryRequirements().Size})
		must(err)
		must(o.BindGpuMemory(m, 0))
		mems = append(mems, m)
		return m
	}
	buffer := func(data []byte) *GpuMemory {
		m, err := dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: uint64(len(data))})
		must(err)
		b, err := m.Map()
		must(err)
		copy(b, data)
		must(m.Unmap())
		mems = append(mems, m)
		return m
	}

	colorImg, err := dev.CreateImage(ImageCreateInfo{Width: w, Height: h})
	must(err)
	colorMem := bind(colorImg)
	depthImg, err := dev.CreateImage(ImageCreateInfo{Width: w, Height: h, Format: FormatD24UnormS8Uint})
	must(err)
	bind(depthImg)
	color, err := dev.CreateColorTargetView(colorImg)
	must(err)
	depth, err := dev.CreateDepthStencilView(depthImg)
	must(err)

	// The texture, bottom row first (OBJ's t = 0), with a full mip chain.
	tw, th := tex.Bounds().Dx(), tex.Bounds().Dy()
	levels := 1
	for max(tw, th)>>levels > 0 {
		levels++
	}
	texImg, err := dev.CreateImage(ImageCreateInfo{Width: tw, Height: th, MipLevels: levels})
	must(err)
	texMem := bind(texImg)
	pix, err := texMem.Map()
	must(err)
	for y := 0; y < th; y++ {
		copy(pix[y*tw*4:(y+1)*tw*4], tex.Pix[(th-1-y)*tex.Stride:])
	}
	for l := 1; l < levels; l++ {
		s, _ := texImg.SubresourceLayout(l - 1)
		d, _ := texImg.SubresourceLayout(l)
		boxMip(pix[s.Offset:], s.Width, s.Height, pix[d.Offset:], d.Width, d.Height)
	}
	must(texMem.Unmap())
	view, err := dev.CreateImageView(texImg, SamplerCreateInfo{MinFilter: cl.MinFilterLinearMipmapLinear, MagFilter: cl.MagFilterLinear})
	must(err)

	vsrc, fsrc := scene.Shaders()
	pipe, err := dev.CreateGraphicsPipeline(GraphicsPipelineCreateInfo{
		VertexShader: vsrc, FragmentShader: fsrc, Topology: cl.PrimTriangles,
		VertexInputs: []VertexInput{
			{Name: "a_pos", Type: cl.AttrFloat, Components: 3, Offset: 0},
			{Name: "a_nrm", Type: cl.AttrFloat, Components: 3, Offset: 12},
			{Name: "a_uv", Type: cl.AttrFloat, Components: 2, Offset: 24},
		},
		Rasterizer: RasterizerState{CullBack: true},
	})
	must(err)
	bind(pipe)
	dss, err := dev.CreateDepthStencilState(DepthStencilStateCreateInfo{DepthEnable: true, DepthWriteEnable: true, DepthFunc: cl.CompareLess})
	must(err)

	verts := make([]byte, 4*len(mesh.Vertices))
	for i, v := range mesh.Vertices {
		binary.LittleEndian.PutUint32(verts[4*i:], math.Float32bits(v))
	}
	idx := make([]byte, 4*len(mesh.Indices))
	for i, v := range mesh.Indices {
		binary.LittleEndian.PutUint32(idx[4*i:], v)
	}
	vbuf, ibuf := buffer(verts), buffer(idx)

	cam := scene.NewSpotCamera(mesh, w, h) // DrawSpot's camera and light

	alloc, err := dev.CreateCmdAllocator(CmdAllocatorCreateInfo{})
	must(err)
	cb, err := dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: alloc})
	must(err)
	setFloats := func(name string, v ...float32) {
		slot, _, ok := pipe.UserDataSlot(name)
		if !ok {
			t.Fatalf("no uniform %s", name)
		}
		words := make([]uint32, len(v))
		for i, x := range v {
			words[i] = math.Float32bits(x)
		}
		must(cb.CmdSetUserData(slot, words))
	}
	must(cb.Begin())
	must(cb.CmdBindTargets(color, depth))
	must(cb.CmdClearColorTarget([4]float32{0.18, 0.2, 0.24, 1}))
	must(cb.CmdClearDepthStencilTarget(1, 0))
	must(cb.CmdBindPipeline(pipe))
	must(cb.CmdBindDepthStencilState(dss))
	must(cb.CmdSetViewport(Viewport{Width: float32(w), Height: float32(h), MaxDepth: 1}))
	must(cb.CmdSetVertexBuffers(0, []VertexBufferView{{Memory: vbuf, Stride: scene.VertexStride}}))
	must(cb.CmdBindIndexData(ibuf, 0, cl.IndexU32))
	must(cb.CmdBindImageViews(0, []*ImageView{view}))
	setFloats("u_mvp", cam.MVP[:]...)
	setFloats("u_model", cam.Model[:]...)
	setFloats("u_light", cam.Light[:]...)
	setFloats("u_eye", cam.Eye[:]...)
	// u_tex stays 0: texture unit 0.
	must(cb.CmdDrawIndexed(0, uint32(len(mesh.Indices)), 0, 0, 1))
	must(cb.End())

	queue, err := dev.CreateQueue(QueueCreateInfo{})
	must(err)
	fence := dev.CreateFence()
	must(queue.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}, GpuMemoryRefs: mems, Fence: fence}))
	must(fence.Wait(5 * time.Minute))
	return append([]byte(nil), colorMem.bytes[:w*h*4]...)
}

// TestSpotMatchesGL renders the default Spot scene through pal and
// through GL (scene.DrawSpot): the images must be byte-identical.
func TestSpotMatchesGL(t *testing.T) {
	if testing.Short() {
		t.Skip("renders Spot twice")
	}
	const w, h = 160, 120
	got := renderSpotPAL(t, w, h)
	ctx, err := tilegpu.NewContext(tilegpu.Config{Width: w, Height: h, MemorySize: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	if _, err := scene.DrawSpot(ctx.GL(), w, h); err != nil {
		t.Fatal(err)
	}
	img, err := ctx.Image()
	if err != nil {
		t.Fatal(err)
	}
	want := bottomUp(img)
	diff, background := 0, 0
	first := -1
	for i := 0; i < len(want); i += 4 {
		if [4]byte(want[i:i+4]) == [4]byte{46, 51, 61, 255} {
			background++
		}
		if [4]byte(got[i:i+4]) != [4]byte(want[i:i+4]) {
			if first < 0 {
				first = i / 4
			}
			diff++
		}
	}
	if background == 0 || background == w*h {
		t.Fatalf("GL reference has %d background pixels of %d: no cow?", background, w*h)
	}
	if diff != 0 {
		p := 4 * first
		t.Fatalf("%d of %d pixels differ from GL; first at (%d,%d): pal %v, GL %v", diff, w*h, first%w, first/w, got[p:p+4], want[p:p+4])
	}
	t.Logf("%d of %d pixels are the cow; all identical to GL", w*h-background, w*h)
}
