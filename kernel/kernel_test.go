package kernel

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw/cl"
)

func newTestDevice(t testing.TB, timeout time.Duration) (*Device, *fakeGPU) {
	t.Helper()
	g := newFakeGPU(64 << 20)
	d := newDevice(g, Options{JobTimeout: timeout})
	t.Cleanup(func() { d.Close(); g.Close() })
	return d, g
}

func mustOpen(t testing.TB, d *Device) *File {
	t.Helper()
	f, err := d.Open()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func mustBO(t testing.TB, f *File, size uint32) uint32 {
	t.Helper()
	a := CreateBOArgs{Size: size}
	if err := f.CreateBO(&a); err != nil {
		t.Fatal(err)
	}
	return a.Handle
}

// Indices of the BOs in a testJob.
const (
	boVerts = iota
	boCode
	boTarget
	boIndex
	boScratch
)

// testJob is a valid submission drawing one indexed triangle into a
// w×h colour target; tests mutate it into every kind of invalid one.
// Bin CL layout: TILE_BINNING_MODE_CONFIGURATION at 0, START_TILE_BINNING
// at 14, CONFIGURATION_BITS at 15, GL_SHADER_STATE at 19,
// INDEXED_PRIMITIVE_LIST at 25, FLUSH at 39.
type testJob struct {
	args    SubmitCLArgs
	handles []uint32
}

func newTestJob(t testing.TB, f *File, w, h uint32) *testJob {
	j := &testJob{}
	j.handles = []uint32{mustBO(t, f, 4096), mustBO(t, f, 4096), mustBO(t, f, w*h*4), mustBO(t, f, 4096), mustBO(t, f, 3*4096)}
	a := &j.args
	a.BOs = []BORef{{j.handles[0], BORead}, {j.handles[1], BORead}, {j.handles[2], BOWrite}, {j.handles[3], BORead}, {j.handles[4], BOWrite}}
	a.Width, a.Height = w, h
	a.Color = RenderTarget{BOIndex: boTarget, Stride: w * 4, Enabled: true, Store: true, Clear: true}
	a.ClearColor = 0xFF00FF00
	var bin []byte
	rec := func(r cl.Record) int {
		off := len(bin)
		bin = append(bin, make([]byte, r.Size())...)
		r.Pack(bin[off:])
		return off
	}
	rec(cl.TileBinningModeConfiguration{})
	rec(cl.StartTileBinning{})
	rec(cl.ConfigurationBits{EnableForwardFacing: true, DepthFunc: cl.CompareLess})
	gss := rec(cl.GLShaderState{AttributeCount: 1})
	ipl := rec(cl.IndexedPrimitiveList{Mode: cl.PrimTriangles, IndexType: cl.IndexU16, Length: 3, MaxIndex: 2})
	rec(cl.Flush{})
	a.BinCL = bin
	sr := make([]byte, cl.SizeShaderRecord+cl.SizeAttributeRecord)
	cl.ShaderRecord{VertexOutputWords: 4, ScratchBytesPerThread: 64}.Pack(sr)
	cl.AttributeRecord{MaxOffset: 36, Stride: 12, Type: cl.AttrFloat, Components: 3}.Pack(sr[cl.SizeShaderRecord:])
	a.ShaderRecords = sr
	a.Uniforms = make([]byte, 16)
	a.Relocs = []Reloc{
		{Space: SpaceBinCL, Offset: uint32(gss + 1), Target: TargetShaderRecords},
		{Space: SpaceBinCL, Offset: uint32(ipl + 6), Target: TargetBO, BOIndex: boIndex},
		{Space: SpaceShaderRecords, Offset: 4, Target: TargetBO, BOIndex: boCode},
		{Space: SpaceShaderRecords, Offset: 8, Target: TargetUniforms},
		{Space: SpaceShaderRecords, Offset: 12, Target: TargetBO, BOIndex: boCode},
		{Space: SpaceShaderRecords, Offset: 16, Target: TargetUniforms},
		{Space: SpaceShaderRecords, Offset: 20, Target: TargetBO, BOIndex: boCode},
		{Space: SpaceShaderRecords, Offset: 24, Target: TargetUniforms},
		{Space: SpaceShaderRecords, Offset: 28, Target: TargetBO, BOIndex: boScratch},
		{Space: SpaceShaderRecords, Offset: 36, Target: TargetBO, BOIndex: boVerts},
	}
	return j
}

// script sets the coordinate shader's first two uniforms (see fakeGPU).
func (j *testJob) script(op, arg uint32) {
	binary.LittleEndian.PutUint32(j.args.Uniforms[0:], op)
	binary.LittleEndian.PutUint32(j.args.Uniforms[4:], arg)
}

func wait(t testing.TB, f *File, fence uint64) error {
	t.Helper()
	return f.Wait(&WaitArgs{Fence: fence, Timeout: 5 * time.Second})
}

func TestRangeAllocator(t *testing.T) {
	type op struct {
		alloc, align, free uint32 // alloc n (align) or free the i-th allocation (free = i+1)
		want               uint32
		ok                 bool
	}
	tests := []struct {
		name string
		ops  []op
	}{
		{"first fit", []op{{alloc: 4, want: 0, ok: true}, {alloc: 4, want: 4, ok: true}, {alloc: 9, ok: false}, {alloc: 8, want: 8, ok: true}}},
		{"alignment", []op{{alloc: 1, want: 0, ok: true}, {alloc: 4, align: 4, want: 4, ok: true}, {alloc: 3, want: 1, ok: true}}},
		{"free merges", []op{{alloc: 8, want: 0, ok: true}, {alloc: 8, want: 8, ok: true}, {free: 1}, {free: 2}, {alloc: 16, want: 0, ok: true}}},
		{"reuse hole", []op{{alloc: 4, want: 0, ok: true}, {alloc: 4, want: 4, ok: true}, {free: 1}, {alloc: 2, want: 0, ok: true}, {alloc: 2, want: 2, ok: true}}},
		{"zero", []op{{alloc: 0, ok: false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newRangeAllocator(0, 16)
			var got [][2]uint32
			for i, o := range tt.ops {
				if o.free != 0 {
					g := got[o.free-1]
					a.release(g[0], g[1])
					continue
				}
				s, ok := a.alloc(o.alloc, o.align)
				if ok != o.ok || (ok && s != o.want) {
					t.Fatalf("op %d: alloc(%d,%d) = %d,%v; want %d,%v", i, o.alloc, o.align, s, ok, o.want, o.ok)
				}
				got = append(got, [2]uint32{s, o.alloc})
			}
		})
	}
}

func TestAddressSpaceMapsThroughPageTables(t *testing.T) {
	mem := make([]byte, 1<<20)
	phys := newRangeAllocator(1, 256)
	as, err := newAddressSpace(mem, phys)
	if err != nil {
		t.Fatal(err)
	}
	if err := as.mapPages(0x0040_0000-0x1000, 0x5000, 3, true); err != nil { // crosses an L1 boundary
		t.Fatal(err)
	}
	if err := as.mapPages(0xF000_0000, 0x9000, 1, false); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		va       uint32
		pa       uint32
		writable bool
		ok       bool
	}{
		{0x003F_F123, 0x5123, true, true},
		{0x0040_0000, 0x6000, true, true},
		{0x0040_1FFF, 0x7FFF, true, true},
		{0x0040_2000, 0, false, false},
		{0xF000_0010, 0x9010, false, true},
		{0, 0, false, false},
	}
	for _, tt := range tests {
		pa, w, ok := as.translate(tt.va)
		if ok != tt.ok || pa != tt.pa || w != tt.writable {
			t.Errorf("translate(%#x) = %#x,%v,%v; want %#x,%v,%v", tt.va, pa, w, ok, tt.pa, tt.writable, tt.ok)
		}
	}
	used := phys.used
	as.unmapPages(0x0040_0000-0x1000, 3)
	if _, _, ok := as.translate(0x0040_0000); ok {
		t.Error("page still mapped after unmap")
	}
	if phys.used != used-2 {
		t.Errorf("empty L2 tables not freed: used %d → %d", used, phys.used)
	}
}

func TestHandlesArePerFile(t *testing.T) {
	d, _ := newTestDevice(t, time.Second)
	f1, f2 := mustOpen(t, d), mustOpen(t, d)
	h1 := mustBO(t, f1, 100)
	m := MmapBOArgs{Handle: h1}
	if err := f1.MmapBO(&m); err != nil {
		t.Fatal(err)
	}
	if len(m.Mapping) != 4096 {
		t.Errorf("mapping length %d, want 4096", len(m.Mapping))
	}
	m.Mapping[5] = 42
	b := f1.handles[h1]
	if d.mem[b.pa+5] != 42 {
		t.Error("mapping is not zero-copy")
	}
	if pa, w, ok := f1.ctx.as.translate(b.va + 5); !ok || !w || pa != b.pa+5 {
		t.Errorf("BO not mapped in its context: %#x %v %v", pa, w, ok)
	}
	if _, _, ok := f2.ctx.as.translate(b.va); ok {
		t.Error("BO of file 1 visible in file 2's address space")
	}
	for _, call := range []struct {
		name string
		err  error
	}{
		{"MmapBO", f2.MmapBO(&MmapBOArgs{Handle: h1})},
		{"CloseBO", f2.CloseBO(&CloseBOArgs{Handle: h1})},
		{"WaitBO", f2.WaitBO(&WaitBOArgs{Handle: h1})},
	} {
		if !errors.Is(call.err, ENOENT) {
			t.Errorf("%s of another file's handle: %v, want ENOENT", call.name, call.err)
		}
	}
	h2 := mustBO(t, f2, 100)
	if h2 != h1 {
		t.Errorf("handles are not small per-file integers: %d vs %d", h1, h2)
	}
	if err := f1.CloseBO(&CloseBOArgs{Handle: h1}); err != nil {
		t.Fatal(err)
	}
	if err := f1.MmapBO(&MmapBOArgs{Handle: h1}); !errors.Is(err, ENOENT) {
		t.Errorf("closed handle: %v", err)
	}
}

func TestCreateBOErrors(t *testing.T) {
	d, _ := newTestDevice(t, time.Second)
	f := mustOpen(t, d)
	tests := []struct {
		args CreateBOArgs
		want Errno
	}{
		{CreateBOArgs{Size: 0}, EINVAL},
		{CreateBOArgs{Size: 1, Flags: 8}, EINVAL},
		{CreateBOArgs{Size: 1 << 31}, ENOMEM},
		{CreateBOArgs{Size: 64<<20 - 4096}, ENOMEM}, // more than is left of 64 MiB
	}
	for _, tt := range tests {
		if err := f.CreateBO(&tt.args); !errors.Is(err, tt.want) {
			t.Errorf("CreateBO(%+v) = %v, want %v", tt.args, err, tt.want)
		}
	}
}

func TestGetParam(t *testing.T) {
	d, _ := newTestDevice(t, time.Second)
	f := mustOpen(t, d)
	for _, tt := range []struct {
		p    Param
		want uint64
	}{{ParamNumCores, 2}, {ParamNumQPUs, 3}, {ParamTileSize, 64}, {ParamMemorySize, 64 << 20}, {ParamMaxAttributes, 16}} {
		a := GetParamArgs{Param: tt.p}
		if err := f.GetParam(&a); err != nil || a.Value != tt.want {
			t.Errorf("GetParam(%d) = %d, %v; want %d", tt.p, a.Value, err, tt.want)
		}
	}
	if err := f.GetParam(&GetParamArgs{Param: 999}); !errors.Is(err, EINVAL) {
		t.Errorf("unknown param: %v", err)
	}
}

func TestValidSubmissionRenders(t *testing.T) {
	d, _ := newTestDevice(t, 5*time.Second)
	f := mustOpen(t, d)
	const w, h = 100, 70 // 2×2 tiles, partial
	j := newTestJob(t, f, w, h)
	if err := f.SubmitCL(&j.args); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, f, j.args.OutFence); err != nil {
		t.Fatal(err)
	}
	m := MmapBOArgs{Handle: j.handles[boTarget]}
	if err := f.MmapBO(&m); err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]int{{0, 0}, {w - 1, h - 1}, {64, 0}, {0, 64}} {
		if got := binary.LittleEndian.Uint32(m.Mapping[(p[1]*w+p[0])*4:]); got != 0xFF00FF00 {
			t.Errorf("pixel %v = %#x, want the clear colour", p, got)
		}
	}
	if err := f.WaitBO(&WaitBOArgs{Handle: j.handles[boTarget], Timeout: time.Second}); err != nil {
		t.Error(err)
	}
	// The exec and tile-allocation memory is freed at retirement.
	d.mu.Lock()
	inflight, pending := d.numInflight(), len(d.pending)
	d.mu.Unlock()
	if inflight != 0 || pending != 0 {
		t.Errorf("after retirement: %d in flight, %d pending", inflight, pending)
	}
}

// indirectDraw replaces the test job's indexed draw (offset 25) with an
// indirect one reading its arguments from the index buffer's BO (reloc 1).
func indirectDraw(j *testJob, maxIndex uint32) {
	var r [cl.SizeVertexArrayPrimitivesIndirect]byte
	cl.VertexArrayPrimitivesIndirect{Mode: cl.PrimTriangles, MaxIndex: maxIndex}.Pack(r[:])
	j.args.BinCL = append(append(j.args.BinCL[:25:25], r[:]...), cl.OpFlush)
	j.args.Relocs[1].Offset = 25 + uint32(cl.AddressFields(cl.OpVertexArrayPrimitivesIndirect)[0])
}

// withCounter inserts OCCLUSION_QUERY_COUNTER{Address: addr} before the
// job's FLUSH, with reloc (Space and Offset filled in) on its address.
func withCounter(j *testJob, addr uint32, reloc *Reloc) {
	var r [cl.SizeOcclusionQueryCounter]byte
	cl.OcclusionQueryCounter{Address: addr}.Pack(r[:])
	j.args.BinCL = append(append(j.args.BinCL[:39:39], r[:]...), cl.OpFlush)
	if reloc != nil {
		reloc.Space, reloc.Offset = SpaceBinCL, 39+1
		j.args.Relocs = append(j.args.Relocs, *reloc)
	}
}

// TestOcclusionCounterAccepted: a counter in a writable BO, and the
// counter turned off (Address 0, no relocation), are valid.
func TestOcclusionCounterAccepted(t *testing.T) {
	d, _ := newTestDevice(t, 5*time.Second)
	f := mustOpen(t, d)
	defer f.Close()
	for _, reloc := range []*Reloc{{Target: TargetBO, BOIndex: boScratch, Delta: 8}, nil} {
		j := newTestJob(t, f, 64, 64)
		withCounter(j, 0, reloc)
		if err := f.SubmitCL(&j.args); err != nil {
			t.Fatalf("SubmitCL with counter reloc %+v: %v", reloc, err)
		}
		if err := wait(t, f, j.args.OutFence); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSubmitRejections(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(j *testJob, f *File)
		errno  Errno
		msg    string
	}{
		{"unknown opcode", func(j *testJob, _ *File) { j.args.BinCL[14] = 0x2f }, EINVAL, "bin CL offset 14: unknown opcode 0x2f"},
		{"record past end", func(j *testJob, _ *File) { j.args.BinCL = j.args.BinCL[:len(j.args.BinCL)-3] }, EINVAL, "INDEXED_PRIMITIVE_LIST: record of 14 bytes runs past the end"},
		{"render record in bin CL", func(j *testJob, _ *File) { j.args.BinCL[15] = cl.OpHalt }, EINVAL, "bin CL offset 15: HALT: record not allowed in a bin CL"},
		{"missing TBMC", func(j *testJob, _ *File) {
			j.args.BinCL = j.args.BinCL[14:]
			for i := range j.args.Relocs[:2] {
				j.args.Relocs[i].Offset -= 14
			}
		}, EINVAL, "START_TILE_BINNING: before TILE_BINNING_MODE_CONFIGURATION"},
		{"duplicate TBMC", func(j *testJob, _ *File) {
			j.args.BinCL = append(append([]byte{}, j.args.BinCL[:14]...), j.args.BinCL...)
			for i := range j.args.Relocs[:2] {
				j.args.Relocs[i].Offset += 14
			}
		}, EINVAL, "bin CL offset 14: TILE_BINNING_MODE_CONFIGURATION: duplicate"},
		{"missing FLUSH", func(j *testJob, _ *File) { j.args.BinCL = j.args.BinCL[:len(j.args.BinCL)-1] }, EINVAL, "missing FLUSH"},
		{"record after FLUSH", func(j *testJob, _ *File) { j.args.BinCL = append(j.args.BinCL, cl.OpNop) }, EINVAL, "NOP: record after FLUSH"},
		{"state before START", func(j *testJob, _ *File) { j.args.BinCL[14] = cl.OpNop }, EINVAL, "bin CL offset 15: CONFIGURATION_BITS: before START_TILE_BINNING"},
		{"bad enum in state", func(j *testJob, _ *File) {
			var r [cl.SizeBlendConfig]byte
			cl.BlendConfig{Enable: true}.Pack(r[:])
			r[1] |= 5 << 4
			j.args.BinCL = append(append(j.args.BinCL[:39:39], r[:]...), cl.OpFlush)
		}, EINVAL, "bin CL offset 39: BLEND_CONFIG: cl: BLEND_CONFIG"},
		{"shader state outside records", func(j *testJob, _ *File) { j.args.Relocs[0].Delta = 16 }, EFAULT, "shader record at 0x10 with 1 attributes ends at 0x40 past the shader records (0x30 bytes)"},
		{"shader state misaligned", func(j *testJob, _ *File) { j.args.Relocs[0].Delta = 4 }, EINVAL, "shader record offset 0x4 not 16-byte aligned"},
		{"shader state to a BO", func(j *testJob, _ *File) { j.args.Relocs[0].Target = TargetBO }, EINVAL, "GL_SHADER_STATE: reloc 0 must target the shader records"},
		{"attribute count", func(j *testJob, _ *File) { j.args.BinCL[19+5] = 17 }, EINVAL, "AttributeCount 17 > 16"},
		{"bad primitive mode", func(j *testJob, _ *File) { j.args.BinCL[26] = 0x17 }, EINVAL, "INDEXED_PRIMITIVE_LIST: invalid primitive Mode 7"},
		{"bad index type", func(j *testJob, _ *File) { j.args.BinCL[26] = 0x34 }, EINVAL, "invalid IndexType 3"},
		{"index buffer past BO", func(j *testJob, _ *File) { j.args.Relocs[1].Delta = 4094 }, EFAULT, "bin CL offset 25: INDEXED_PRIMITIVE_LIST: index buffer ends at 0x1004 past BO 3 size 0x1000"},
		{"max index vs attribute", func(j *testJob, _ *File) { binary.LittleEndian.PutUint32(j.args.BinCL[25+10:], 3) }, EFAULT, "max index 3 reads 0x30 bytes of attribute 0 (shader record at 0x0) but MaxOffset is 0x24"},
		{"vertex array range", func(j *testJob, _ *File) {
			bin := j.args.BinCL[:25:25]
			var r [cl.SizeVertexArrayPrimitives]byte
			cl.VertexArrayPrimitives{Mode: cl.PrimTriangles, Length: 3, FirstIndex: 1}.Pack(r[:])
			j.args.BinCL = append(append(bin, r[:]...), cl.OpFlush)
			j.args.Relocs = append(j.args.Relocs[:1:1], j.args.Relocs[2:]...)
		}, EFAULT, "VERTEX_ARRAY_PRIMITIVES: max index 3"},
		{"indirect arguments past BO", func(j *testJob, _ *File) { indirectDraw(j, 2); j.args.Relocs[1].Delta = 4088 }, EFAULT,
			"bin CL offset 25: VERTEX_ARRAY_PRIMITIVES_INDIRECT: indirect argument block ends at 0x1008 past BO 3 size 0x1000"},
		{"indirect arguments misaligned", func(j *testJob, _ *File) { indirectDraw(j, 2); j.args.Relocs[1].Delta = 2 }, EINVAL, "argument block offset 0x2 not 4-aligned"},
		{"indirect arguments raw", func(j *testJob, _ *File) {
			indirectDraw(j, 2)
			j.args.Relocs = append(j.args.Relocs[:1:1], j.args.Relocs[2:]...)
		}, EINVAL, "VERTEX_ARRAY_PRIMITIVES_INDIRECT: Address is not covered by a relocation"},
		{"indirect max index vs attribute", func(j *testJob, _ *File) { indirectDraw(j, 3) }, EFAULT, "VERTEX_ARRAY_PRIMITIVES_INDIRECT: max index 3"},
		{"primitive before shader state", func(j *testJob, _ *File) {
			copy(j.args.BinCL[19:25], []byte{1, 1, 1, 1, 1, 1})
			j.args.Relocs[0].Space = SpaceUniforms
			j.args.Relocs[0].Offset = 12
		}, EINVAL, "no GL_SHADER_STATE before the primitive"},
		{"attribute range past BO", func(j *testJob, _ *File) { j.args.Relocs[9].Delta = 4090 }, EFAULT, "attribute 0: Address+MaxOffset ends at 0x101e past BO 0 size 0x1000"},
		{"attribute components", func(j *testJob, _ *File) { j.args.ShaderRecords[36+10] = 0 }, EINVAL, "attribute 0: Components 0 not in 1..4"},
		{"attribute type", func(j *testJob, _ *File) { j.args.ShaderRecords[36+10] = 0x37 }, EINVAL, "attribute 0"},
		{"code address raw", func(j *testJob, _ *File) { j.args.Relocs = append(j.args.Relocs[:2:2], j.args.Relocs[3:]...) }, EINVAL, "shader record at 0x0: FragmentCodeAddress is not covered by a relocation"},
		{"attribute address raw", func(j *testJob, _ *File) { j.args.Relocs = j.args.Relocs[:9] }, EINVAL, "shader record at 0x0: attribute 0: Address is not covered by a relocation"},
		{"scratch address raw", func(j *testJob, _ *File) {
			j.args.Relocs = append(j.args.Relocs[:8:8], j.args.Relocs[9])
			binary.LittleEndian.PutUint32(j.args.ShaderRecords[28:], 0x1000)
		}, EINVAL, "ScratchAddress is not covered by a relocation"},
		{"index buffer raw", func(j *testJob, _ *File) { j.args.Relocs = append(j.args.Relocs[:1:1], j.args.Relocs[2:]...) }, EINVAL, "bin CL offset 25: INDEXED_PRIMITIVE_LIST: Address is not covered by a relocation"},
		{"code past BO", func(j *testJob, _ *File) { j.args.Relocs[4].Delta = 4096 }, EFAULT, "reloc 4: offset 0x1000 past BO 1 size 0x1000"},
		{"code misaligned", func(j *testJob, _ *File) { j.args.Relocs[4].Delta = 4 }, EINVAL, "VertexCodeAddress: code offset 0x4 not 8-byte aligned"},
		{"uniforms in shader records", func(j *testJob, _ *File) { j.args.Relocs[3].Target = TargetShaderRecords }, EINVAL, "FragmentUniformsAddress: reloc 3: uniforms cannot live in the shader records"},
		{"scratch too small", func(j *testJob, _ *File) { binary.LittleEndian.PutUint32(j.args.ShaderRecords[32:], 8192) }, EFAULT, "ScratchAddress: scratch of 3 threads × 8192 bytes ends at 0x6000 past BO 4 size 0x3000"},
		{"scratch not writable", func(j *testJob, _ *File) { j.args.BOs[boScratch].Flags = BORead }, EINVAL, "scratch BO 4 is not marked BOWrite"},
		{"varyings vs output words", func(j *testJob, _ *File) { j.args.ShaderRecords[2] = 1 }, EINVAL, "VertexOutputWords 4 < 5"},
		{"reloc bad BO index", func(j *testJob, _ *File) { j.args.Relocs[1].BOIndex = 9 }, EINVAL, "reloc 1: BO index 9 out of range (5 BOs)"},
		{"reloc offset out of range", func(j *testJob, _ *File) { j.args.Relocs[3].Offset = 46 }, EINVAL, "reloc 3: shader records offset 0x2e: u32 past the end"},
		{"reloc not an address field", func(j *testJob, _ *File) {
			j.args.Relocs = append(j.args.Relocs, Reloc{Space: SpaceBinCL, Offset: 30, Target: TargetBO})
		}, EINVAL, "reloc 10: bin CL offset 0x1e is not an address field"},
		{"reloc duplicate", func(j *testJob, _ *File) { j.args.Relocs = append(j.args.Relocs, j.args.Relocs[1]) }, EINVAL, "reloc 10: bin CL offset 0x1f already patched by reloc 1"},
		{"reloc on tile allocation", func(j *testJob, _ *File) {
			j.args.Relocs = append(j.args.Relocs, Reloc{Space: SpaceBinCL, Offset: 1, Target: TargetBO})
		}, EINVAL, "tile allocation addresses are filled by the kernel"},
		{"uniform reloc misaligned", func(j *testJob, _ *File) {
			j.args.Relocs = append(j.args.Relocs, Reloc{Space: SpaceUniforms, Offset: 2, Target: TargetBO})
		}, EINVAL, "uniforms offset 0x2 not 4-aligned"},
		{"bad handle", func(j *testJob, _ *File) { j.args.BOs[2].Handle = 77 }, ENOENT, "BOs[2]: no BO with handle 77"},
		{"other file's handle", func(j *testJob, f *File) {
			g, _ := f.d.Open()
			a := CreateBOArgs{Size: 4096}
			for range 6 {
				g.CreateBO(&a)
			}
			j.args.BOs[0].Handle = a.Handle
		}, ENOENT, "BOs[0]: no BO with handle"},
		{"duplicate handle", func(j *testJob, _ *File) { j.args.BOs[1].Handle = j.args.BOs[0].Handle }, EINVAL, "already listed as BOs[0]"},
		{"render target too small", func(j *testJob, _ *File) { j.args.Height++ }, EFAULT, "colour target: 64×65 surface with stride 256 ends at 0x4100 past BO 2 size 0x4000"},
		{"render target stride", func(j *testJob, _ *File) { j.args.Color.Stride = 100 }, EINVAL, "colour target: stride 100 < width 64 × 4"},
		{"colour format", func(j *testJob, _ *File) { j.args.Color.Format = 7 }, EINVAL, "colour target: colour format 7"},
		{"16-bit colour stride", func(j *testJob, _ *File) { j.args.Color.Format = cl.ColorFormatRGB565; j.args.Color.Stride = 127 }, EINVAL, "stride 127 not a multiple of 2"},
		{"16-bit colour row", func(j *testJob, _ *File) { j.args.Color.Format = cl.ColorFormatRGBA4444; j.args.Color.Stride = 126 }, EINVAL, "colour target: stride 126 < width 64 × 2"},
		{"colour format on zs", func(j *testJob, _ *File) {
			j.args.ZS = RenderTarget{Enabled: true, BOIndex: 2, Stride: 256, Store: true, Format: cl.ColorFormatRGB565}
		}, EINVAL, "depth/stencil target: colour format 1 on the depth/stencil target"},
		{"render target not writable", func(j *testJob, _ *File) { j.args.BOs[2].Flags = BORead }, EINVAL, "colour target: BO 2 is stored to but not marked BOWrite"},
		{"load and clear", func(j *testJob, _ *File) { j.args.Color.Load = true; j.args.BOs[2].Flags |= BORead }, EINVAL, "both Load and Clear"},
		{"zs bad index", func(j *testJob, _ *File) { j.args.ZS = RenderTarget{Enabled: true, BOIndex: 5} }, EINVAL, "depth/stencil target: BO index 5 out of range"},
		{"size", func(j *testJob, _ *File) { j.args.Width = 0 }, EINVAL, "render size 0×64"},
		{"in fence never issued", func(j *testJob, _ *File) { j.args.InFences = []uint64{99} }, ENOENT, "InFences[0]: fence 99 was never issued"},
		{"all samples without msaa", func(j *testJob, _ *File) {
			j.args.ZS = RenderTarget{Enabled: true, BOIndex: boScratch, Stride: 64 * 16, Store: true, AllSamples: true}
		}, EINVAL, "depth/stencil target: AllSamples in a job without Multisample4x"},
		{"all samples stride", func(j *testJob, _ *File) {
			cl.TileBinningModeConfiguration{Multisample4x: true}.Pack(j.args.BinCL)
			j.args.ZS = RenderTarget{Enabled: true, BOIndex: boScratch, Stride: 64 * 4, Store: true, AllSamples: true}
		}, EINVAL, "depth/stencil target: stride 256 < width 64 × 16"},
		{"occlusion counter raw", func(j *testJob, _ *File) { withCounter(j, 0x1000, nil) }, EINVAL, "bin CL offset 39: OCCLUSION_QUERY_COUNTER: Address 0x1000 is not covered by a relocation"},
		{"occlusion counter read-only", func(j *testJob, _ *File) {
			withCounter(j, 0, &Reloc{Target: TargetBO, BOIndex: boIndex})
		}, EINVAL, "OCCLUSION_QUERY_COUNTER: counter BO 3 is not marked BOWrite"},
		{"occlusion counter misaligned", func(j *testJob, _ *File) {
			withCounter(j, 0, &Reloc{Target: TargetBO, BOIndex: boScratch, Delta: 2})
		}, EINVAL, "counter offset 0x2 not 4-byte aligned"},
		{"occlusion counter in uniforms", func(j *testJob, _ *File) {
			withCounter(j, 0, &Reloc{Target: TargetUniforms})
		}, EINVAL, "the counter must be in a BO"},
	}
	d, g := newTestDevice(t, 5*time.Second)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustOpen(t, d)
			defer f.Close()
			j := newTestJob(t, f, 64, 64)
			tt.mutate(j, f)
			g.mu.Lock()
			before := g.binJobs
			g.mu.Unlock()
			err := f.SubmitCL(&j.args)
			var ke *Error
			if !errors.As(err, &ke) || ke.Errno != tt.errno || !strings.Contains(ke.Msg, tt.msg) {
				t.Fatalf("SubmitCL = %v; want %v containing %q", err, tt.errno, tt.msg)
			}
			time.Sleep(time.Millisecond)
			g.mu.Lock()
			after := g.binJobs
			g.mu.Unlock()
			if after != before {
				t.Error("a rejected job reached the GPU")
			}
		})
	}
}

func TestFaultingContextDoesNotDisturbOthers(t *testing.T) {
	d, _ := newTestDevice(t, 5*time.Second)
	bad, good := mustOpen(t, d), mustOpen(t, d)
	jb := newTestJob(t, bad, 64, 64)
	jb.script(scriptFault, 0x0BAD_0000) // unmapped VA
	jg := newTestJob(t, good, 64, 64)
	if err := bad.SubmitCL(&jb.args); err != nil {
		t.Fatal(err)
	}
	if err := good.SubmitCL(&jg.args); err != nil {
		t.Fatal(err)
	}
	err := wait(t, bad, jb.args.OutFence)
	if !errors.Is(err, EIO) || !strings.Contains(err.Error(), "GPU page fault: read of VA 0x0bad0000 on BIN") {
		t.Errorf("faulting job's fence: %v", err)
	}
	if err := wait(t, good, jg.args.OutFence); err != nil {
		t.Errorf("innocent job: %v", err)
	}
	if err := bad.SubmitCL(&jb.args); !errors.Is(err, EIO) {
		t.Errorf("submit from a guilty context: %v, want EIO", err)
	}
	jg2 := newTestJob(t, good, 64, 64)
	if err := good.SubmitCL(&jg2.args); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, good, jg2.args.OutFence); err != nil {
		t.Errorf("innocent context after the fault: %v", err)
	}
}

// TestWatchdogSparesSlowJobThatProgresses: a job that runs for several
// JobTimeouts while the GPU's counters keep moving is slow, not hung.
func TestWatchdogSparesSlowJobThatProgresses(t *testing.T) {
	d, _ := newTestDevice(t, 50*time.Millisecond)
	f := mustOpen(t, d)
	j := newTestJob(t, f, 64, 64)
	j.script(scriptSlow, 200)
	if err := f.SubmitCL(&j.args); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, f, j.args.OutFence); err != nil {
		t.Errorf("slow but progressing job was reset: %v", err)
	}
}

func TestWatchdogResetsAndReplaysInnocentWork(t *testing.T) {
	d, _ := newTestDevice(t, 50*time.Millisecond)
	hung, ok := mustOpen(t, d), mustOpen(t, d)
	jh := newTestJob(t, hung, 64, 64)
	jh.script(scriptHang, 0)
	jo := newTestJob(t, ok, 64, 64)
	if err := hung.SubmitCL(&jh.args); err != nil {
		t.Fatal(err)
	}
	if err := ok.SubmitCL(&jo.args); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := wait(t, hung, jh.args.OutFence); !errors.Is(err, EIO) || !strings.Contains(err.Error(), "made no progress for") {
		t.Errorf("hung job: %v", err)
	}
	if time.Since(start) < 40*time.Millisecond {
		t.Error("reset before JobTimeout")
	}
	if err := wait(t, ok, jo.args.OutFence); err != nil {
		t.Errorf("replayed innocent job: %v", err)
	}
	m := MmapBOArgs{Handle: jo.handles[boTarget]}
	ok.MmapBO(&m)
	if got := binary.LittleEndian.Uint32(m.Mapping); got != 0xFF00FF00 {
		t.Errorf("replayed job did not render: %#x", got)
	}
}

func TestWaitTimeout(t *testing.T) {
	d, _ := newTestDevice(t, time.Hour)
	f := mustOpen(t, d)
	j := newTestJob(t, f, 64, 64)
	j.script(scriptHang, 0)
	if err := f.SubmitCL(&j.args); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := f.Wait(&WaitArgs{Fence: j.args.OutFence, Timeout: 20 * time.Millisecond})
	if !errors.Is(err, ETIMEDOUT) {
		t.Fatalf("Wait = %v, want ETIMEDOUT", err)
	}
	if el := time.Since(start); el < 20*time.Millisecond || el > 2*time.Second {
		t.Errorf("Wait returned after %v", el)
	}
	if err := f.Wait(&WaitArgs{Fence: j.args.OutFence}); !errors.Is(err, ETIMEDOUT) {
		t.Errorf("poll: %v", err)
	}
	if err := f.WaitBO(&WaitBOArgs{Handle: j.handles[boTarget], Timeout: time.Millisecond}); !errors.Is(err, ETIMEDOUT) {
		t.Errorf("WaitBO on a busy BO: %v", err)
	}
	if err := f.Wait(&WaitArgs{Fence: 1000}); !errors.Is(err, ENOENT) {
		t.Errorf("unknown fence: %v", err)
	}
}

func TestBinOOMGetsOverflowPool(t *testing.T) {
	d, _ := newTestDevice(t, 5*time.Second)
	f := mustOpen(t, d)
	j := newTestJob(t, f, 64, 64)
	j.script(scriptOOM, 0)
	if err := f.SubmitCL(&j.args); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, f, j.args.OutFence); err != nil {
		t.Fatalf("job with BIN_OOM: %v", err)
	}
}

func TestImplicitAndExplicitSync(t *testing.T) {
	d, _ := newTestDevice(t, time.Hour)
	f, g := mustOpen(t, d), mustOpen(t, d)
	// j1 hangs while writing its colour target X.
	j1 := newTestJob(t, f, 64, 64)
	j1.script(scriptHang, 0)
	if err := f.SubmitCL(&j1.args); err != nil {
		t.Fatal(err)
	}
	x := j1.handles[boTarget]
	// j2 loads and stores X as its render target only: the RENDER ring
	// orders it after j1, so it may enter the rings at once.
	j2 := newTestJob(t, f, 64, 64)
	j2.args.BOs[boTarget] = BORef{Handle: x, Flags: BORead | BOWrite}
	j2.args.Color.Clear, j2.args.Color.Load = false, true
	if err := f.SubmitCL(&j2.args); err != nil {
		t.Fatal(err)
	}
	// j3 reads X as a vertex buffer, which the binner touches: it must
	// wait for j1 and j2, the writers.
	j3 := newTestJob(t, f, 64, 64)
	j3.args.BOs[boVerts] = BORef{Handle: x, Flags: BORead}
	// j4 (another client) waits for j1 explicitly.
	j4 := newTestJob(t, g, 64, 64)
	j4.args.InFences = []uint64{j1.args.OutFence}
	for _, s := range []struct {
		f *File
		a *SubmitCLArgs
	}{{f, &j3.args}, {g, &j4.args}} {
		if err := s.f.SubmitCL(s.a); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(30 * time.Millisecond)
	d.mu.Lock()
	var inRings []uint64
	for _, j := range d.inflight[prioNormal] {
		inRings = append(inRings, j.fence.seqno)
	}
	d.mu.Unlock()
	if len(inRings) != 2 || inRings[0] != j1.args.OutFence || inRings[1] != j2.args.OutFence {
		t.Errorf("jobs in the rings: %v, want only j1 %d and j2 %d", inRings, j1.args.OutFence, j2.args.OutFence)
	}
	for _, s := range []struct {
		f  *File
		fn uint64
	}{{f, j3.args.OutFence}, {g, j4.args.OutFence}} {
		if err := s.f.Wait(&WaitArgs{Fence: s.fn}); !errors.Is(err, ETIMEDOUT) {
			t.Errorf("dependent job %d finished early: %v", s.fn, err)
		}
	}
}

func TestCloseBOWhileBusyIsDeferred(t *testing.T) {
	d, _ := newTestDevice(t, time.Hour)
	f := mustOpen(t, d)
	j := newTestJob(t, f, 64, 64)
	j.script(scriptHang, 0)
	if err := f.SubmitCL(&j.args); err != nil {
		t.Fatal(err)
	}
	b := f.handles[j.handles[boTarget]]
	if err := f.CloseBO(&CloseBOArgs{Handle: j.handles[boTarget]}); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	_, _, mapped := f.ctx.as.translate(b.va)
	d.mu.Unlock()
	if !mapped || b.pages == 0 {
		t.Error("BO freed while a job still uses it")
	}
}

func TestClosingAFileFreesEverythingAfterItsJobs(t *testing.T) {
	d, _ := newTestDevice(t, 500*time.Millisecond)
	mustOpen(t, d) // a client that stays open: the one context left at the end
	d.mu.Lock()
	baseline := d.phys.used
	d.mu.Unlock()
	for _, script := range []uint32{0, scriptHang, scriptFault} {
		f := mustOpen(t, d)
		var fences []uint64
		for range 3 {
			j := newTestJob(t, f, 200, 100)
			j.script(script, 0x0BAD_0000)
			if err := f.SubmitCL(&j.args); err != nil {
				if script == scriptFault && errors.Is(err, EIO) {
					break // the first job already faulted: the context is guilty
				}
				t.Fatal(err)
			}
			fences = append(fences, j.args.OutFence)
		}
		f.Close()
		for _, fn := range fences {
			// The closed file cannot wait and the waiter may not (a
			// fence is its owner's); read the outcome the kernel keeps.
			var err *Error
			waitFor(t, d, "the closed file's fences", func() bool {
				if d.pending[fn] != nil {
					return false
				}
				if fc := d.failed[fn]; fc != nil {
					err = fc.err
				}
				return true
			})
			if (script == 0) != (err == nil) {
				t.Errorf("script %#x: fence %d: %v", script, fn, err)
			}
		}
		// Memory of jobs abandoned by a reset is freed once the engines
		// have left them, shortly after their fences signal.
		var used uint32
		var ctxs int
		for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			d.mu.Lock()
			used, ctxs = d.phys.used, len(d.contexts)
			d.mu.Unlock()
			if used == baseline && ctxs == 1 {
				break
			}
		}
		if used != baseline || ctxs != 1 {
			t.Errorf("script %#x: %d pages in use, %d contexts after the closed file's jobs finished; want %d, 1", script, used, ctxs, baseline)
		}
	}
}

func TestSubmitBackpressure(t *testing.T) {
	d, _ := newTestDevice(t, time.Hour)
	f := mustOpen(t, d)
	j := newTestJob(t, f, 64, 64)
	j.script(scriptHang, 0)
	var err error
	n := 0
	for ; n <= maxActiveJobs && err == nil; n++ {
		err = f.SubmitCL(&j.args)
	}
	if !errors.Is(err, EBUSY) || n != maxActiveJobs+1 {
		t.Errorf("submit %d: %v; want EBUSY after %d", n, err, maxActiveJobs)
	}
}
