package hw

import (
	"encoding/binary"
	"math"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/hw/isa"
)

// testKernel plays the kernel's role in tests: it allocates physical
// memory, builds one context's page tables, fills rings and rings doorbells.
type testKernel struct {
	t      testing.TB
	g      *GPU
	mem    []byte
	nextPA uint32
	nextVA uint32
	l1     uint32
	ctx    uint32
	ring   [numEngines]uint32
	wptr   [numEngines]uint32
	// expectErrors: runFrame leaves CL_ERROR and MMU_FAULT to the test.
	expectErrors bool
}

const testRingSize = 4096

func newTestKernel(t testing.TB, cores int, memSize int) *testKernel {
	g := New(Config{MemorySize: memSize, Cores: cores})
	t.Cleanup(g.Close)
	k := &testKernel{t: t, g: g, mem: g.Memory(), nextPA: 0x10000, nextVA: 0x100000, ctx: 7}
	k.l1 = k.allocPA(pageSize)
	for e := 0; e < numEngines; e++ {
		k.ring[e] = k.allocPA(testRingSize)
		g.WriteReg(RegRingBase(e), k.ring[e])
		g.WriteReg(RegRingSize(e), testRingSize)
	}
	return k
}

func (k *testKernel) allocPA(n uint32) uint32 {
	n = (n + pageMask) &^ pageMask
	pa := k.nextPA
	if uint64(pa)+uint64(n) > uint64(len(k.mem)) {
		k.t.Fatalf("test kernel out of physical memory")
	}
	k.nextPA += n
	clear(k.mem[pa : pa+n])
	return pa
}

// mapPages maps n pages at va to pa.
func (k *testKernel) mapPages(va, pa uint32, n int, writable bool) {
	for i := 0; i < n; i++ {
		v, p := va+uint32(i)*pageSize, pa+uint32(i)*pageSize
		l1e := binary.LittleEndian.Uint32(k.mem[k.l1+(v>>22)*4:])
		if l1e&pteValid == 0 {
			l1e = k.allocPA(pageSize) | pteValid
			binary.LittleEndian.PutUint32(k.mem[k.l1+(v>>22)*4:], l1e)
		}
		e := p | pteValid
		if writable {
			e |= pteWritable
		}
		binary.LittleEndian.PutUint32(k.mem[l1e&^pageMask+((v>>12)&0x3FF)*4:], e)
	}
}

// bo allocates and maps a buffer, returning its VA and CPU mapping.
func (k *testKernel) bo(size int, writable bool) (uint32, []byte) {
	n := (uint32(size) + pageMask) &^ pageMask
	if n == 0 {
		n = pageSize
	}
	pa := k.allocPA(n)
	va := k.nextVA
	k.nextVA += n + pageSize // leave an unmapped guard page
	k.mapPages(va, pa, int(n/pageSize), writable)
	return va, k.mem[pa : pa+n]
}

func (k *testKernel) boWith(data []byte, writable bool) uint32 {
	va, b := k.bo(len(data), writable)
	copy(b, data)
	return va
}

// submit writes ring packets and rings the doorbell.
func (k *testKernel) submit(e int, words ...uint32) {
	for _, w := range words {
		binary.LittleEndian.PutUint32(k.mem[k.ring[e]+k.wptr[e]:], w)
		k.wptr[e] = (k.wptr[e] + 4) % testRingSize
	}
	k.g.WriteReg(RegRingWptr(e), k.wptr[e])
}

func (k *testKernel) setContext(e int) {
	k.submit(e, PacketHeader(PktSetContext, 2), k.ctx, k.l1)
}

// idle waits until engine e has consumed its ring.
func (k *testKernel) idle(e int) {
	k.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for k.g.ReadReg(RegRingRptr(e)) != k.wptr[e] {
		if time.Now().After(deadline) {
			k.t.Fatalf("engine %d: RPTR %#x never reached WPTR %#x", e, k.g.ReadReg(RegRingRptr(e)), k.wptr[e])
		}
		time.Sleep(50 * time.Microsecond)
	}
}

func asm(t testing.TB, src string) []byte {
	t.Helper()
	words, err := isa.AssembleProgram(src, 0)
	if err != nil {
		t.Fatalf("assemble: %v", err)
	}
	b := make([]byte, 8*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
	return b
}

// Shaders used by the tests. Vertex layout: vec4 position, vec4 colour.
const (
	testCS = `
or vpm, a.vpm, a.vpm ; nop
or vpm, a.vpm, a.vpm ; nop
or vpm, a.vpm, a.vpm ; nop
or vpm, a.vpm, a.vpm ; nop ; end
`
	testVS = `
or vpm, a.vpm, a.vpm ; nop
or vpm, a.vpm, a.vpm ; nop
or vpm, a.vpm, a.vpm ; nop
or vpm, a.vpm, a.vpm ; nop
or vpm, a.vpm, a.vpm ; nop
or vpm, a.vpm, a.vpm ; nop
or vpm, a.vpm, a.vpm ; nop
or vpm, a.vpm, a.vpm ; nop ; end
`
	testFSVarying = `
or tlb_r, a.vary, a.vary ; nop
or tlb_g, a.vary, a.vary ; nop
or tlb_b, a.vary, a.vary ; nop
or tlb_a, a.vary, a.vary ; nop ; end
`
	testFSUniform = `
or tlb_r, a.unif, a.unif ; nop
or tlb_g, a.unif, a.unif ; nop
or tlb_b, a.unif, a.unif ; nop
or tlb_a, a.unif, a.unif ; nop ; end
`
)

// testVertex is one vertex of a test draw.
type testVertex struct{ x, y, z, w, r, g, b, a float32 }

// testDraw is one draw call of a test frame.
type testDraw struct {
	mode     cl.PrimitiveMode
	verts    []testVertex
	indices  []uint32 // nil: VERTEX_ARRAY_PRIMITIVES
	itype    cl.IndexType
	fs       string // FS source; default testFSVarying
	uniforms []float32
	state    []cl.Record // extra state records before the draw
	flags    uint16      // shader record Flags
}

type testFrame struct {
	width, height int
	clear         uint32
	clearDepth    uint32
	draws         []testDraw
	poolExtra     int            // bytes of tile-allocation pool beyond the initial blocks
	msaa          bool           // Multisample4x: 32×32 tiles of four samples, resolved on store
	noHSR         bool           // DisableHSR in TILE_RENDERING_MODE_CONFIGURATION
	format        cl.ColorFormat // colour buffer format (format_test.go)
	load          []byte         // when set: the colour surface's memory, loaded into each tile first
	shareFS       bool           // draws with the same FS source use one copy of its code
	// zsAllSamples stores depth/stencil with AllSamples (16 bytes per
	// pixel); zsLoad, when set, is loaded the same way first.
	zsAllSamples bool
	zsLoad       []byte
}

type frameResult struct {
	color     []byte // RGBA8, row 0 bottom, stride width*4
	zs        []byte
	tileAlloc []byte
	tileVA    uint32
	binCL     []byte
	k         *testKernel
}

func (f *frameResult) pixel(width, x, y int) [4]byte {
	o := (y*width + x) * 4
	return [4]byte(f.color[o : o+4])
}

func f32le(vs ...float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// renderFrame builds the bin CL, render CL and all buffers of a frame,
// submits them as the kernel does and waits for completion.
func (k *testKernel) renderFrame(fr *testFrame) *frameResult {
	res, _ := k.prepareFrame(fr)
	return res
}

// prepareFrame renders fr once and returns the result and what is needed
// to render it again.
func (k *testKernel) prepareFrame(fr *testFrame) (*frameResult, *preparedFrame) {
	t := k.t
	t.Helper()
	w, h := fr.width, fr.height
	ts := tileSize
	if fr.msaa {
		ts = tileSizeMSAA
	}
	tw, th := (w+ts-1)/ts, (h+ts-1)/ts
	pool := tw*th*tileBlockFirst + fr.poolExtra
	if fr.poolExtra == 0 {
		pool += 64 * tileBlockSize
	}
	tileVA, tileMem := k.bo(pool, true)
	csVA := k.boWith(asm(t, testCS), false)
	vsVA := k.boWith(asm(t, testVS), false)

	var bin cl.Builder
	cl.Emit(&bin, cl.TileBinningModeConfiguration{TileAllocationAddress: tileVA, TileAllocationSize: uint32(pool), WidthInTiles: uint16(tw), HeightInTiles: uint16(th), Multisample4x: fr.msaa})
	cl.Emit(&bin, cl.StartTileBinning{})
	cl.Emit(&bin, cl.ClipWindow{Left: 0, Bottom: 0, Width: uint16(w), Height: uint16(h)})
	cl.Emit(&bin, cl.ViewportOffset{X: float32(w) / 2, Y: float32(h) / 2})
	cl.Emit(&bin, cl.ClipperXYScaling{X: float32(w) / 2, Y: float32(h) / 2})
	cl.Emit(&bin, cl.ClipperZScaleAndOffset{Scale: 0.5, Offset: 0.5})
	cl.Emit(&bin, cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true})
	fsVAs := map[string]uint32{}
	for _, d := range fr.draws {
		fsSrc := d.fs
		if fsSrc == "" {
			fsSrc = testFSVarying
		}
		fsVA, ok := fsVAs[fsSrc]
		if !ok || !fr.shareFS {
			fsVA = k.boWith(asm(t, fsSrc), false)
			fsVAs[fsSrc] = fsVA
		}
		unifVA := k.boWith(f32le(append(d.uniforms, 0)...), false)
		var vb []float32
		for _, v := range d.verts {
			vb = append(vb, v.x, v.y, v.z, v.w, v.r, v.g, v.b, v.a)
		}
		vbVA := k.boWith(f32le(vb...), false)
		srBuf := make([]byte, cl.SizeShaderRecord+2*cl.SizeAttributeRecord)
		cl.ShaderRecord{
			Flags:               d.flags,
			FragmentNumVaryings: 4, VertexOutputWords: 8,
			FragmentCodeAddress: fsVA, FragmentUniformsAddress: unifVA,
			VertexCodeAddress: vsVA, VertexUniformsAddress: unifVA,
			CoordinateCodeAddress: csVA, CoordinateUniformsAddress: unifVA,
		}.Pack(srBuf)
		maxOff := uint32(len(vb) * 4)
		cl.AttributeRecord{Address: vbVA, MaxOffset: maxOff, Stride: 32, Type: cl.AttrFloat, Components: 4, VPMOffset: 0}.Pack(srBuf[cl.SizeShaderRecord:])
		cl.AttributeRecord{Address: vbVA + 16, MaxOffset: maxOff - 16, Stride: 32, Type: cl.AttrFloat, Components: 4, VPMOffset: 4}.Pack(srBuf[cl.SizeShaderRecord+cl.SizeAttributeRecord:])
		srVA := k.boWith(srBuf, false)
		for _, s := range d.state {
			bin.Emit(s)
		}
		cl.Emit(&bin, cl.GLShaderState{Address: srVA, AttributeCount: 2})
		if d.indices == nil {
			cl.Emit(&bin, cl.VertexArrayPrimitives{Mode: d.mode, Length: uint32(len(d.verts))})
		} else {
			size := 1 << d.itype
			ib := make([]byte, size*len(d.indices)+1) // odd length: unaligned tails work
			for i, v := range d.indices {
				switch d.itype {
				case cl.IndexU8:
					ib[i] = byte(v)
				case cl.IndexU16:
					binary.LittleEndian.PutUint16(ib[2*i:], uint16(v))
				default:
					binary.LittleEndian.PutUint32(ib[4*i:], v)
				}
			}
			ibVA := k.boWith(ib, false)
			cl.Emit(&bin, cl.IndexedPrimitiveList{Mode: d.mode, IndexType: d.itype, Length: uint32(len(d.indices)), Address: ibVA, MaxIndex: uint32(len(d.verts) - 1)})
		}
	}
	cl.Emit(&bin, cl.Flush{})
	binVA := k.boWith(bin.Buf, false)

	cbpp := colorFormats[fr.format].bytes
	colorVA, color := k.bo(w*h*4, true)
	copy(color, fr.load)
	zsBPP := 4
	if fr.zsAllSamples {
		zsBPP = 16
	}
	zsVA, zs := k.bo(w*h*zsBPP, true)
	copy(zs, fr.zsLoad)
	var rcl cl.Builder
	cl.Emit(&rcl, cl.TileRenderingModeConfiguration{Width: uint16(w), Height: uint16(h), Multisample4x: fr.msaa, DisableHSR: fr.noHSR, ColorFormat: fr.format})
	cl.Emit(&rcl, cl.ClearColors{Color: fr.clear, Depth: fr.clearDepth})
	for row := 0; row < th; row++ {
		for col := 0; col < tw; col++ {
			i := row*tw + col
			cl.Emit(&rcl, cl.TileCoordinates{Column: uint8(col), Row: uint8(row)})
			if fr.load != nil {
				cl.Emit(&rcl, cl.LoadTileBufferGeneral{Buffer: cl.BufferColor, Address: colorVA, Stride: uint32(w * cbpp)})
			}
			if fr.zsLoad != nil {
				cl.Emit(&rcl, cl.LoadTileBufferGeneral{Buffer: cl.BufferZS, Address: zsVA, Stride: uint32(w * zsBPP), AllSamples: fr.zsAllSamples})
			}
			cl.Emit(&rcl, cl.BranchToSubList{Address: tileVA + uint32(i)*tileBlockFirst})
			cl.Emit(&rcl, cl.StoreTileBufferGeneral{Buffer: cl.BufferZS, Address: zsVA, Stride: uint32(w * zsBPP), AllSamples: fr.zsAllSamples})
			cl.Emit(&rcl, cl.StoreTileBufferGeneral{Buffer: cl.BufferColor, Address: colorVA, Stride: uint32(w * cbpp), LastTile: i == tw*th-1})
		}
	}
	cl.Emit(&rcl, cl.Halt{})
	renderVA := k.boWith(rcl.Buf, false)
	semVA, sem := k.bo(pageSize, true)
	pf := &preparedFrame{binVA: binVA, binSize: uint32(len(bin.Buf)), renderVA: renderVA, renderSize: uint32(len(rcl.Buf)), semVA: semVA, sem: sem}
	k.runFrame(pf)
	return &frameResult{color: color[:w*h*4], zs: zs[:w*h*zsBPP], tileAlloc: tileMem, tileVA: tileVA, binCL: bin.Buf, k: k}, pf
}

type preparedFrame struct {
	binVA, binSize       uint32
	renderVA, renderSize uint32
	semVA                uint32
	sem                  []byte
	seq                  uint32
}

// runFrame submits a prepared frame as the kernel does (bin, semaphore,
// render, fence) and waits for it.
func (k *testKernel) runFrame(pf *preparedFrame) {
	t := k.t
	t.Helper()
	pf.seq++
	fence := pf.semVA + 64
	k.setContext(EngineRender)
	k.submit(EngineRender, PacketHeader(PktWaitMem, 2), pf.semVA, pf.seq)
	k.submit(EngineRender, PacketHeader(PktIndirectBuffer, 2), pf.renderVA, pf.renderSize)
	k.submit(EngineRender, PacketHeader(PktEventWrite, 3), 0, fence, pf.seq)
	k.setContext(EngineBin)
	k.submit(EngineBin, PacketHeader(PktIndirectBuffer, 2), pf.binVA, pf.binSize)
	k.submit(EngineBin, PacketHeader(PktSignal, 2), pf.semVA, pf.seq)
	k.idle(EngineBin)
	k.idle(EngineRender)
	if got := binary.LittleEndian.Uint32(pf.sem[64:]); got != pf.seq {
		t.Fatalf("render fence = %d, want %d (INTR_STATUS %#x)", got, pf.seq, k.g.ReadReg(RegIntrStatus))
	}
	if st := k.g.ReadReg(RegIntrStatus); st&(IntrCLError|IntrMMUFault) != 0 && !k.expectErrors {
		t.Fatalf("INTR_STATUS %#x after frame (fault VA %#x)", st, k.g.ReadReg(RegMMUFaultVA))
	}
}
