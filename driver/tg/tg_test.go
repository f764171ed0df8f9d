package tg

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/pipe"
)

func TestBOCacheReuseBySize(t *testing.T) {
	ws := newFakeWinsys()
	clock := &fakeClock{t: time.Unix(0, 0)}
	c := newBOCache(ws, clock.now)

	a, err := c.alloc(5000, "a")
	if err != nil {
		t.Fatal(err)
	}
	if a.Size != 8192 {
		t.Fatalf("size rounded to %d, want 8192", a.Size)
	}
	h := a.Handle
	a.Release()
	if st := c.stats(); st.CachedBOs != 1 || st.CachedBytes != 8192 {
		t.Fatalf("after release: %+v", st)
	}
	// Same rounded size: reused.
	b, _ := c.alloc(6000, "b")
	if b.Handle != h {
		t.Errorf("6000-byte alloc got handle %d, want reused %d", b.Handle, h)
	}
	// Different size: a new BO.
	d, _ := c.alloc(100, "d")
	if d.Handle == h {
		t.Errorf("4 KiB alloc reused the 8 KiB BO")
	}
	if st := c.stats(); st.Hits != 1 || st.Misses != 2 || st.LiveBOs != 2 {
		t.Errorf("stats %+v, want 1 hit, 2 misses, 2 live", st)
	}
}

func TestBOCacheSkipsBusyBOs(t *testing.T) {
	ws := newFakeWinsys()
	c := newBOCache(ws, nil)
	a, _ := c.alloc(4096, "a")
	a.Release()
	ws.busy[a.Handle] = true
	b, _ := c.alloc(4096, "b")
	if b.Handle == a.Handle {
		t.Fatal("reused a BO the GPU is still using")
	}
	ws.busy[a.Handle] = false
	b2, _ := c.alloc(4096, "b2")
	if b2.Handle != a.Handle {
		t.Fatal("idle cached BO not reused")
	}
}

func TestBOCacheExpiry(t *testing.T) {
	ws := newFakeWinsys()
	clock := &fakeClock{t: time.Unix(0, 0)}
	c := newBOCache(ws, clock.now)
	old, _ := c.alloc(4096, "old")
	old.Release()
	clock.t = clock.t.Add(500 * time.Millisecond)
	young, _ := c.alloc(8192, "young")
	young.Release()
	clock.t = clock.t.Add(600 * time.Millisecond) // old: 1.1 s, young: 0.6 s
	x, _ := c.alloc(12288, "x")
	if !slices.Equal(ws.closed, []uint32{old.Handle}) {
		t.Fatalf("closed %v, want only the BO idle for over a second (%d)", ws.closed, old.Handle)
	}
	x.Release()
	clock.t = clock.t.Add(2 * time.Second)
	c.expireLocked()
	if st := c.stats(); st.CachedBOs != 0 {
		t.Errorf("after 2 s: %d BOs still cached", st.CachedBOs)
	}
}

func TestBOCachePurgesOnOutOfMemory(t *testing.T) {
	ws := newFakeWinsys()
	ws.limit = 3 * 4096
	c := newBOCache(ws, nil)
	var bos []*BO
	for i := 0; i < 3; i++ {
		b, err := c.alloc(4096, "x")
		if err != nil {
			t.Fatal(err)
		}
		bos = append(bos, b)
	}
	for _, b := range bos {
		b.Release()
	}
	// 8 KiB fits only after the three idle 4 KiB BOs are freed.
	b, err := c.alloc(8192, "big")
	if err != nil {
		t.Fatalf("alloc after purge: %v", err)
	}
	if st := c.stats(); st.Purges != 1 || st.CachedBOs != 0 {
		t.Errorf("stats %+v, want one purge and an empty cache", st)
	}
	b.Release()
	ws.limit = 1
	c.freeAllLocked()
	if _, err := c.alloc(4096, "none"); !errors.Is(err, ErrNoMemory) {
		t.Errorf("alloc beyond memory: %v, want ErrNoMemory", err)
	}
}

func TestDirtyStateEmitsOnlyChangedRecords(t *testing.T) {
	r := newRig(t, "fs")
	draw := &pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3}
	step := func(name string, change func(), want []uint8) {
		t.Helper()
		j, _ := r.c.currentJob()
		before := len(j.bcl)
		change()
		if err := r.c.Draw(draw); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := opcodes(t, j.bcl[before:])
		if !slices.Equal(got, want) {
			t.Errorf("%s: emitted %v, want %v", name, opNames(got), opNames(want))
		}
	}
	step("first draw", func() {}, []uint8{cl.OpConfigurationBits, cl.OpDepthOffset, cl.OpLineWidth, cl.OpClipWindow,
		cl.OpViewportOffset, cl.OpClipperXYScaling, cl.OpClipperZScaleAndOffset, cl.OpBlendConfig, cl.OpColorMask,
		cl.OpBlendConstantColor, cl.OpGLShaderState, cl.OpVertexArrayPrimitives})
	step("nothing changed", func() {}, []uint8{cl.OpVertexArrayPrimitives})
	step("blend", func() {
		r.c.BindBlendState(r.c.CreateBlendState(&pipe.BlendState{Enable: true, SrcRGB: pipe.FactorSrcAlpha, ColorMask: [4]bool{true, true, true, true}}))
	}, []uint8{cl.OpBlendConfig, cl.OpColorMask, cl.OpVertexArrayPrimitives})
	step("same uniforms", func() { r.c.SetUniformStorage([]uint32{1, 2, 3, 4, 0}) }, []uint8{cl.OpVertexArrayPrimitives})
	step("uniforms", func() { r.c.SetUniformStorage([]uint32{9, 2, 3, 4, 0}) }, []uint8{cl.OpGLShaderState, cl.OpVertexArrayPrimitives})
	step("scissor", func() { r.c.SetScissorState(&pipe.ScissorState{MaxX: 10, MaxY: 10}) }, []uint8{cl.OpClipWindow, cl.OpVertexArrayPrimitives})
	step("viewport", func() {
		r.c.SetViewportState(&pipe.ViewportState{Scale: [3]float32{10, 10, 0.5}, Translate: [3]float32{10, 10, 0.5}})
	}, []uint8{cl.OpClipWindow, cl.OpViewportOffset, cl.OpClipperXYScaling, cl.OpClipperZScaleAndOffset, cl.OpVertexArrayPrimitives})
	step("depth-stencil", func() {
		r.c.BindDepthStencilAlphaState(r.c.CreateDepthStencilAlphaState(&pipe.DepthStencilAlphaState{DepthEnable: true, DepthFunc: pipe.FuncLess, DepthWrite: true}))
	}, []uint8{cl.OpConfigurationBits, cl.OpVertexArrayPrimitives})
}

func TestDrawEmitsRelocationsAndUniforms(t *testing.T) {
	r := newRig(t, "fs")
	if err := r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.Flush(); err != nil {
		t.Fatal(err)
	}
	if len(r.ws.submits) != 1 {
		t.Fatalf("%d submissions, want 1", len(r.ws.submits))
	}
	s := r.ws.submits[0]
	// VS stream (4 words) + CS stream (1) + FS stream (4) = 9 words.
	if len(s.Uniforms) != 9*4 {
		t.Errorf("uniforms %d bytes, want 36", len(s.Uniforms))
	}
	var sr cl.ShaderRecord
	if err := sr.Unpack(s.ShaderRecords); err != nil {
		t.Fatal(err)
	}
	if sr.VertexOutputWords != 4 || sr.Flags != 0 {
		t.Errorf("shader record %+v", sr)
	}
	// Relocations: GL_SHADER_STATE, 6 shader-record addresses, 1 attribute.
	spaces := map[RelocSpace]int{}
	for _, rl := range s.Relocs {
		spaces[rl.Space]++
	}
	if spaces[SpaceBinCL] != 1 || spaces[SpaceShaderRecords] != 7 {
		t.Errorf("relocations per space %v, want 1 bin CL and 7 shader records", spaces)
	}
	if !s.Color.Enabled || !s.Color.Load || s.Color.Clear || s.ZS.Enabled {
		t.Errorf("render targets %+v %+v: want loaded colour, and no depth/stencil traffic for a job that never tests depth", s.Color, s.ZS)
	}
	// With depth testing the depth buffer is loaded and stored.
	r.c.BindDepthStencilAlphaState(r.c.CreateDepthStencilAlphaState(&pipe.DepthStencilAlphaState{DepthEnable: true, DepthFunc: pipe.FuncLess}))
	r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3})
	r.c.Flush()
	if zs := r.ws.submits[1].ZS; !zs.Enabled || !zs.Load || !zs.Store {
		t.Errorf("depth-tested job: zs target %+v", zs)
	}
	if s.Width != 100 || s.Height != 70 {
		t.Errorf("size %dx%d", s.Width, s.Height)
	}
}

func TestEmptyJobIsDropped(t *testing.T) {
	r := newRig(t, "fs")
	if _, err := r.c.currentJob(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.Flush(); err != nil {
		t.Fatal(err)
	}
	if len(r.ws.submits) != 0 || r.c.Stats().JobsDropped != 1 {
		t.Fatalf("submits %d, dropped %d: want the empty job dropped", len(r.ws.submits), r.c.Stats().JobsDropped)
	}
	// A clear alone is work.
	if err := r.c.Clear(pipe.ClearColor|pipe.ClearDepth, [4]float32{1, 0, 0, 1}, 1, 0); err != nil {
		t.Fatal(err)
	}
	r.c.Flush()
	if len(r.ws.submits) != 1 {
		t.Fatalf("clear-only job not submitted")
	}
	s := r.ws.submits[0]
	if !s.Color.Clear || s.Color.Load || s.ClearColor != 0xff0000ff || s.ClearDepth != 0xffffff || !s.ZS.Clear {
		t.Errorf("clear submission %+v", s)
	}
}

func TestFullClearDiscardsQueuedDraws(t *testing.T) {
	r := newRig(t, "fs")
	for i := 0; i < 3; i++ {
		r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3})
	}
	if err := r.c.Clear(pipe.ClearColor|pipe.ClearDepth|pipe.ClearStencil, [4]float32{}, 1, 0); err != nil {
		t.Fatal(err)
	}
	r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3})
	r.c.Flush()
	if len(r.ws.submits) != 1 {
		t.Fatalf("%d submissions, want 1", len(r.ws.submits))
	}
	ops := opcodes(t, r.ws.submits[0].BinCL)
	if n := countOp(ops, cl.OpVertexArrayPrimitives); n != 1 {
		t.Errorf("%d primitive records after the clear, want 1", n)
	}
}

func countOp(ops []uint8, op uint8) int {
	n := 0
	for _, o := range ops {
		if o == op {
			n++
		}
	}
	return n
}

func TestPartialClearsAreRefused(t *testing.T) {
	r := newRig(t, "fs")
	rs := &pipe.RasterizerState{ScissorEnable: true, FrontCCW: true}
	r.c.BindRasterizerState(r.c.CreateRasterizerState(rs))
	r.c.SetScissorState(&pipe.ScissorState{MinX: 5, MaxX: 10, MaxY: 70})
	if err := r.c.Clear(pipe.ClearColor, [4]float32{}, 1, 0); !errors.Is(err, ErrPartialClear) {
		t.Errorf("scissored clear: %v, want ErrPartialClear", err)
	}
	r.c.BindRasterizerState(nil)
	if err := r.c.Clear(pipe.ClearStencil, [4]float32{}, 1, 3); !errors.Is(err, ErrPartialClear) {
		t.Errorf("stencil-only clear: %v, want ErrPartialClear", err)
	}
	if err := r.c.Clear(pipe.ClearDepth|pipe.ClearStencil, [4]float32{}, 1, 3); err != nil {
		t.Errorf("depth+stencil clear: %v", err)
	}
	// Stencil now holds 3: a depth-only clear must not wipe it.
	if err := r.c.Clear(pipe.ClearDepth, [4]float32{}, 1, 0); !errors.Is(err, ErrPartialClear) {
		t.Errorf("depth-only clear over live stencil: %v, want ErrPartialClear", err)
	}
}

func TestReadingARenderedTextureFlushesItsWriter(t *testing.T) {
	r := newRig(t, "tex")
	tex, err := r.s.newResource(pipe.ResourceTemplate{Target: pipe.TargetTexture2D, Format: pipe.FormatRGBA8, Width: 16, Height: 16, Levels: 1})
	if err != nil {
		t.Fatal(err)
	}
	mainFB := r.c.fb
	// Render into the texture.
	r.c.SetFramebufferState(&pipe.FramebufferState{Width: 16, Height: 16, Color: pipe.Surface{Resource: tex}})
	if err := r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3}); err != nil {
		t.Fatal(err)
	}
	if len(r.ws.submits) != 0 {
		t.Fatal("job submitted before anything read it")
	}
	// Sample it while drawing into the main framebuffer.
	r.c.SetFramebufferState(&mainFB)
	r.c.SetSamplerViews([]pipe.SamplerView{r.c.CreateSamplerView(tex, pipe.SamplerViewTemplate{Levels: 1, Swizzle: pipe.IdentitySwizzle})})
	r.c.BindSamplerStates([]pipe.SamplerHandle{r.c.CreateSamplerState(&pipe.SamplerState{MinFilter: pipe.FilterLinear, MagFilter: pipe.FilterLinear})})
	r.c.SetUniformStorage([]uint32{1, 2, 3, 4, 0})
	if err := r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3}); err != nil {
		t.Fatal(err)
	}
	if len(r.ws.submits) != 1 || r.ws.submits[0].Width != 16 {
		t.Fatalf("sampling the texture did not submit its writer first (%d submissions)", len(r.ws.submits))
	}
	r.c.Flush()
	s := r.ws.submits[1]
	var td cl.TextureDescriptor
	found := false
	for _, rl := range s.Relocs {
		if rl.Space == SpaceUniforms && rl.Target == TargetBO && s.BOs[rl.BOIndex].Handle == tex.bo.Handle {
			if err := td.Unpack(s.Uniforms[rl.Offset:]); err != nil {
				t.Fatal(err)
			}
			found = true
		}
	}
	if !found {
		t.Fatal("no texture descriptor addressing the texture")
	}
	// Identity swizzle: R=0, G=1, B=2, A=3 in 3-bit fields.
	if td.Width != 16 || td.Height != 16 || td.Levels != 1 || td.MinFilter != cl.MinFilterLinear || td.Swizzle != 3<<9|2<<6|1<<3 {
		t.Errorf("descriptor %+v", td)
	}
}

func TestResourceReadFlushesWriter(t *testing.T) {
	r := newRig(t, "fs")
	r.c.Clear(pipe.ClearColor, [4]float32{0, 1, 0, 1}, 1, 0)
	dst := make([]byte, 4)
	if err := r.c.ResourceRead(r.color, 0, 0, 0, 0, 1, 1, dst); err != nil {
		t.Fatal(err)
	}
	if len(r.ws.submits) != 1 {
		t.Fatalf("read did not flush the writer (%d submissions)", len(r.ws.submits))
	}
	// Reading something nobody writes submits nothing.
	if err := r.c.ResourceRead(r.vb, 0, 0, 0, 0, 8, 1, make([]byte, 8)); err != nil {
		t.Fatal(err)
	}
	if len(r.ws.submits) != 1 {
		t.Errorf("reading an unwritten buffer submitted a job")
	}
}

func TestIndexedDrawsAndBounds(t *testing.T) {
	r := newRig(t, "fs")
	ib, _ := r.s.newResource(pipe.ResourceTemplate{Target: pipe.TargetBuffer, Width: 12})
	if err := r.c.BufferWrite(ib, 0, []byte{0, 0, 2, 0, 1, 0, 7, 0, 0, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		info    pipe.DrawInfo
		wantErr bool
		max     uint32
	}{
		{"u16 in range", pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3, IndexSize: 2, IndexBuffer: ib}, false, 2},
		{"u8", pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3, IndexSize: 1, IndexBuffer: ib}, false, 2},
		{"u16 index 7 past the 3-vertex buffer", pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 4, IndexSize: 2, IndexBuffer: ib}, true, 0},
		{"u32 outside the index buffer", pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 4, IndexSize: 4, IndexBuffer: ib}, true, 0},
		{"array past the end", pipe.DrawInfo{Mode: pipe.PrimTriangles, Start: 1, Count: 3}, true, 0},
		{"bad index size", pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3, IndexSize: 3, IndexBuffer: ib}, true, 0},
	} {
		j, _ := r.c.currentJob()
		before := len(j.bcl)
		err := r.c.Draw(&tc.info)
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: err %v, want error %v", tc.name, err, tc.wantErr)
			continue
		}
		if err != nil {
			if len(j.bcl) != before {
				t.Errorf("%s: failed draw emitted records", tc.name)
			}
			continue
		}
		ops := opcodes(t, j.bcl[before:])
		var ipl cl.IndexedPrimitiveList
		if err := ipl.Unpack(j.bcl[len(j.bcl)-cl.SizeIndexedPrimitiveList:]); err != nil || ops[len(ops)-1] != cl.OpIndexedPrimitiveList {
			t.Fatalf("%s: last record not INDEXED_PRIMITIVE_LIST: %v", tc.name, opNames(ops))
		}
		if ipl.MaxIndex != tc.max || ipl.Length != uint32(tc.info.Count) {
			t.Errorf("%s: %+v, want MaxIndex %d", tc.name, ipl, tc.max)
		}
	}
}

func TestConstantAttributeUsesStrideZeroRecord(t *testing.T) {
	r := newRig(t, "fs")
	r.c.BindVertexElementsState(r.c.CreateVertexElementsState([]pipe.VertexElement{{Constant: true, Value: [4]float32{1, 2, 3, 4}}}))
	if err := r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 300}); err != nil {
		t.Fatal(err)
	}
	r.c.Flush()
	s := r.ws.submits[0]
	var ar cl.AttributeRecord
	if err := ar.Unpack(s.ShaderRecords[cl.SizeShaderRecord:]); err != nil {
		t.Fatal(err)
	}
	want := cl.AttributeRecord{MaxOffset: 16, Stride: 0, Type: cl.AttrFloat, Components: 4}
	if !reflect.DeepEqual(ar, want) {
		t.Errorf("attribute record %+v, want %+v", ar, want)
	}
}

func TestCPUWriteRenamesBuffersQueuedJobsRead(t *testing.T) {
	r := newRig(t, "fs")
	copy(r.vb.bo.Map, []byte{1, 2, 3, 4})
	r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3})
	old := r.vb.bo
	if err := r.c.BufferWrite(r.vb, 0, []byte{9, 9}); err != nil {
		t.Fatal(err)
	}
	if len(r.ws.submits) != 0 {
		t.Fatal("a partial write to a buffer a queued draw reads flushed the job")
	}
	j, _ := r.c.currentJob()
	before := len(j.bcl)
	r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3})
	if ops := opcodes(t, j.bcl[before:]); countOp(ops, cl.OpGLShaderState) != 1 {
		t.Errorf("draw after a rename emitted %v: the attribute record must name the new BO", opNames(ops))
	}
	if r.vb.bo == old || !bytes.Equal(r.vb.bo.Map[:4], []byte{9, 9, 3, 4}) || !bytes.Equal(old.Map[:4], []byte{1, 2, 3, 4}) {
		t.Fatalf("rename: new %v (same BO %v), old %v", r.vb.bo.Map[:4], r.vb.bo == old, old.Map[:4])
	}
	r.c.Flush()
	// The queued draw still reads the old BO.
	found := false
	for _, b := range r.ws.submits[0].BOs {
		found = found || b.Handle == old.Handle
	}
	if !found {
		t.Error("the submitted job does not reference the buffer's old BO")
	}
	// Idle and unreferenced: written in place.
	cur := r.vb.bo
	if err := r.c.BufferWrite(r.vb, 4, []byte{7}); err != nil || r.vb.bo != cur {
		t.Errorf("idle buffer renamed (%v)", err)
	}
}

func TestCPUWriteToRenderTargetWaitsForItsJob(t *testing.T) {
	r := newRig(t, "fs")
	tex, _ := r.s.newResource(pipe.ResourceTemplate{Target: pipe.TargetTexture2D, Format: pipe.FormatRGBA8, Width: 4, Height: 4, Levels: 1})
	r.c.SetFramebufferState(&pipe.FramebufferState{Width: 4, Height: 4, Color: pipe.Surface{Resource: tex}})
	r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3})
	bo := tex.bo
	if err := r.c.TextureWrite(tex, 0, 0, 0, 0, 1, 1, []byte{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if len(r.ws.submits) != 1 || tex.bo != bo {
		t.Errorf("write to a render target: %d submissions, renamed %v; want the job flushed and the BO kept", len(r.ws.submits), tex.bo != bo)
	}
}

// BenchmarkDrawWithNewUniforms is the fill scene's per-draw driver work:
// a uniform change, then a draw (a new uniform stream and shader record).
func BenchmarkDrawWithNewUniforms(b *testing.B) {
	r := newRig(&testing.T{}, "fs")
	draw := &pipe.DrawInfo{Mode: pipe.PrimTriangleStrip, Count: 3}
	storage := []uint32{1, 2, 3, 4, 0}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		storage[0] = uint32(i)
		r.c.SetUniformStorage(storage)
		if err := r.c.Draw(draw); err != nil {
			b.Fatal(err)
		}
		if i%100 == 99 {
			r.c.Clear(pipe.ClearColor|pipe.ClearDepth|pipe.ClearStencil, [4]float32{}, 1, 0)
		}
	}
}

func TestFullJobIsSplit(t *testing.T) {
	r := newRig(t, "fs")
	j, _ := r.c.currentJob()
	j.bcl = append(j.bcl, make([]byte, jobBufferLimit)...) // pretend: NOPs (opcode 1 is NOP; 0 is HALT)
	for i := range j.bcl[len(j.bcl)-jobBufferLimit:] {
		j.bcl[len(j.bcl)-jobBufferLimit+i] = cl.OpNop
	}
	j.draws = 1
	if err := r.c.Draw(&pipe.DrawInfo{Mode: pipe.PrimTriangles, Count: 3}); err != nil {
		t.Fatal(err)
	}
	if len(r.ws.submits) != 1 {
		t.Fatalf("full job not submitted before the draw (%d submissions)", len(r.ws.submits))
	}
	nj, _ := r.c.currentJob()
	if nj == j || nj.draws != 1 {
		t.Errorf("draw did not go to a fresh job")
	}
}

func TestSampleCoverageMask(t *testing.T) {
	for _, tc := range []struct {
		value  float32
		invert bool
		want   uint8
	}{
		{1, false, 0xF}, {0, false, 0}, {0.5, false, 0x3}, {0.25, false, 0x1}, {0.75, false, 0x7},
		{0.25, true, 0xE}, {1, true, 0}, {-1, false, 0}, {2, false, 0xF},
	} {
		if got := sampleCoverageMask(tc.value, tc.invert); got != tc.want {
			t.Errorf("sampleCoverageMask(%v, %v) = %#x, want %#x", tc.value, tc.invert, got, tc.want)
		}
	}
}
