package kernel

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/hw/isa"
)

func TestRegistersMatchHW(t *testing.T) {
	for e := 0; e < numEngines; e++ {
		if reg(hw.RegRingBase(e)) != regRingBase(e, 0) || reg(hw.RegRingSize(e)) != regRingSize(e, 0) ||
			reg(hw.RegRingRptr(e)) != regRingRptr(e, 0) || reg(hw.RegRingWptr(e)) != regRingWptr(e, 0) {
			t.Errorf("ring registers of engine %d differ from package hw", e)
		}
		for p := 0; p < numPriorities; p++ {
			if reg(hw.RegPrioRingBase(e, p)) != regRingBase(e, p) || reg(hw.RegPrioRingSize(e, p)) != regRingSize(e, p) ||
				reg(hw.RegPrioRingRptr(e, p)) != regRingRptr(e, p) || reg(hw.RegPrioRingWptr(e, p)) != regRingWptr(e, p) {
				t.Errorf("ring registers of engine %d priority %d differ from package hw", e, p)
			}
		}
		if reg(hw.RegCPStatus(e)) != regCPStatus(e) {
			t.Errorf("CP_STATUS of engine %d differs from package hw", e)
		}
	}
	if numPriorities != hw.NumPriorities || prioNormal != hw.PriorityNormal || prioHigh != hw.PriorityHigh ||
		cpStatusBusy != hw.CPStatusBusy || cpStatusPrioMask != hw.CPStatusPriorityMask {
		t.Error("priority levels or CP_STATUS fields differ from package hw")
	}
	pairs := []struct {
		name string
		k    reg
		h    hw.Reg
	}{
		{"INTR_STATUS", regIntrStatus, hw.RegIntrStatus}, {"INTR_ACK", regIntrAck, hw.RegIntrAck},
		{"INTR_ENABLE", regIntrEnable, hw.RegIntrEnable}, {"MMU_FAULT_VA", regMMUFaultVA, hw.RegMMUFaultVA},
		{"MMU_FAULT_CTX", regMMUFaultCtx, hw.RegMMUFaultCtx}, {"MMU_FAULT_STATUS", regMMUFaultStatus, hw.RegMMUFaultStatus},
		{"MMU_FAULT_COUNT", regMMUFaultCount, hw.RegMMUFaultCount}, {"MMU_FAULT_POP", regMMUFaultPop, hw.RegMMUFaultPop},
		{"MMU_TLB_INVALIDATE", regMMUTLBInvalidate, hw.RegMMUTLBInvalidate},
		{"CL_ERROR_CTX", regCLErrorCtx, hw.RegCLErrorCtx}, {"CL_ERROR_STATUS", regCLErrorStatus, hw.RegCLErrorStatus},
		{"CL_ERROR_IB", regCLErrorIB, hw.RegCLErrorIB},
		{"BIN_OVERFLOW_ADDR", regBinOverflowAddr, hw.RegBinOverflowAddr}, {"BIN_OVERFLOW_SIZE", regBinOverflowSize, hw.RegBinOverflowSize},
		{"TIMESTAMP_LO", regTimestampLo, hw.RegTimestampLo}, {"TIMESTAMP_HI", regTimestampHi, hw.RegTimestampHi},
		{"RESET", regReset, hw.RegReset}, {"NUM_CORES", regNumCores, hw.RegNumCores}, {"NUM_QPUS", regNumQPUs, hw.RegNumQPUs},
	}
	for _, p := range pairs {
		if uint32(p.k) != uint32(p.h) {
			t.Errorf("%s: kernel %#x, hw %#x", p.name, p.k, p.h)
		}
	}
	if intrEvent != hw.IntrEvent || intrMMUFault != hw.IntrMMUFault || intrBinOOM != hw.IntrBinOOM || intrCLError != hw.IntrCLError {
		t.Error("interrupt bits differ from package hw")
	}
	if faultCountOverflow != hw.FaultCountOverflow || faultStatusWrite != hw.FaultStatusWrite || faultStatusEngineShift != hw.FaultStatusEngineShift || engineBin != hw.EngineBin || engineRender != hw.EngineRender {
		t.Error("fault status fields or engine numbers differ from package hw")
	}
}

func newHWDevice(t testing.TB, timeout time.Duration) *Device {
	t.Helper()
	g := hw.New(hw.Config{MemorySize: 64 << 20, Cores: 2})
	d := NewDevice(g, Options{JobTimeout: timeout})
	t.Cleanup(func() { d.Close(); g.Close() })
	return d
}

const (
	// passThroughVS copies attribute 0 (x, y, z, 1) to the clip-space output.
	passThroughVS = `
		mov vpm, vpm
		mov vpm, vpm
		mov vpm, vpm
		mov vpm, vpm
		nop ; nop ; end`
	redFS = `
		li tlb_r, 1.0
		li tlb_g, 0
		li tlb_b, 0
		li tlb_a, 1.0
		nop ; nop ; end`
	// busyFS draws what redFS draws (blue is FRAG_Z·0) but reads a
	// per-lane input, so hw runs every batch of it: a constant-colour
	// program's results are reused after one batch (hw/invariant.go),
	// which makes redFS jobs too quick to keep the GPU busy. Jobs meant
	// to be long GPU work use it.
	busyFS = `
		li tlb_r, 1.0
		li tlb_g, 0
		nop ; fmul tlb_b, frag_z, 0
		li tlb_a, 1.0
		nop ; nop ; end`
	// faultFS loads from a VA no context has mapped.
	faultFS = `
		li tmu_addr, 0x0bad0000
		nop ; nop ; ldtmu
		li tlb_r, 1.0
		nop ; nop ; end`
)

// hwJob builds a submission that draws triangles (x, y in NDC; z 0) with
// the given fragment shader into a cleared w×h colour target. primitives
// repeats the VERTEX_ARRAY_PRIMITIVES record.
func hwJob(t testing.TB, f *File, w, h uint32, fs string, tris [][2]float32, primitives int) (*SubmitCLArgs, uint32) {
	t.Helper()
	vsCode, err := isa.AssembleProgram(passThroughVS, 0)
	if err != nil {
		t.Fatal(err)
	}
	fsCode, err := isa.AssembleProgram(fs, 0)
	if err != nil {
		t.Fatal(err)
	}
	verts, code, target := mustBO(t, f, 4096), mustBO(t, f, 4096), mustBO(t, f, w*h*4)
	vm, cm := MmapBOArgs{Handle: verts}, MmapBOArgs{Handle: code}
	if err := f.MmapBO(&vm); err != nil {
		t.Fatal(err)
	}
	if err := f.MmapBO(&cm); err != nil {
		t.Fatal(err)
	}
	for i, v := range tris {
		binary.LittleEndian.PutUint32(vm.Mapping[12*i:], math.Float32bits(v[0]))
		binary.LittleEndian.PutUint32(vm.Mapping[12*i+4:], math.Float32bits(v[1]))
	}
	for i, ins := range fsCode {
		binary.LittleEndian.PutUint64(cm.Mapping[8*i:], ins)
	}
	for i, ins := range vsCode {
		binary.LittleEndian.PutUint64(cm.Mapping[1024+8*i:], ins)
	}
	a := &SubmitCLArgs{
		BOs:        []BORef{{verts, BORead}, {code, BORead}, {target, BOWrite}},
		Width:      w,
		Height:     h,
		Color:      RenderTarget{BOIndex: 2, Stride: w * 4, Enabled: true, Store: true, Clear: true},
		ClearColor: 0xFF00FF00,
		Uniforms:   make([]byte, 16),
	}
	var bin []byte
	rec := func(r cl.Record) int {
		off := len(bin)
		bin = append(bin, make([]byte, r.Size())...)
		r.Pack(bin[off:])
		return off
	}
	rec(cl.TileBinningModeConfiguration{})
	rec(cl.StartTileBinning{})
	rec(cl.ClipWindow{Width: uint16(w), Height: uint16(h)})
	rec(cl.ClipperXYScaling{X: float32(w) / 2, Y: float32(h) / 2})
	rec(cl.ViewportOffset{X: float32(w) / 2, Y: float32(h) / 2})
	rec(cl.ClipperZScaleAndOffset{Scale: 0.5, Offset: 0.5})
	rec(cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthFunc: cl.CompareAlways})
	rec(cl.ColorMask{R: true, G: true, B: true, A: true})
	// Blending with ONE, ZERO writes what no blending writes, but it keeps
	// the GPU's hidden-surface removal from dropping all but the last of
	// the overlapping triangles: N primitives cost N full passes, which is
	// what the tests that need long jobs count on.
	rec(cl.BlendConfig{Enable: true, SrcRGB: cl.BlendFactorOne, DstRGB: cl.BlendFactorZero,
		SrcAlpha: cl.BlendFactorOne, DstAlpha: cl.BlendFactorZero})
	gss := rec(cl.GLShaderState{AttributeCount: 1})
	for range primitives {
		rec(cl.VertexArrayPrimitives{Mode: cl.PrimTriangles, Length: uint32(len(tris))})
	}
	rec(cl.Flush{})
	a.BinCL = bin
	sr := make([]byte, cl.SizeShaderRecord+cl.SizeAttributeRecord)
	cl.ShaderRecord{Flags: cl.ShaderFlagFragmentSingleThreaded, VertexOutputWords: 4}.Pack(sr)
	cl.AttributeRecord{MaxOffset: uint32(12 * len(tris)), Stride: 12, Type: cl.AttrFloat, Components: 3}.Pack(sr[cl.SizeShaderRecord:])
	a.ShaderRecords = sr
	a.Relocs = []Reloc{
		{Space: SpaceBinCL, Offset: uint32(gss + 1), Target: TargetShaderRecords},
		{Space: SpaceShaderRecords, Offset: 4, Target: TargetBO, BOIndex: 1},
		{Space: SpaceShaderRecords, Offset: 8, Target: TargetUniforms},
		{Space: SpaceShaderRecords, Offset: 12, Target: TargetBO, BOIndex: 1, Delta: 1024},
		{Space: SpaceShaderRecords, Offset: 16, Target: TargetUniforms},
		{Space: SpaceShaderRecords, Offset: 20, Target: TargetBO, BOIndex: 1, Delta: 1024},
		{Space: SpaceShaderRecords, Offset: 24, Target: TargetUniforms},
		{Space: SpaceShaderRecords, Offset: 36, Target: TargetBO, BOIndex: 0},
	}
	return a, target
}

var fullScreen = [][2]float32{{-1, -1}, {3, -1}, {-1, 3}}

func pixels(t testing.TB, f *File, h uint32) []uint32 {
	t.Helper()
	m := MmapBOArgs{Handle: h}
	if err := f.MmapBO(&m); err != nil {
		t.Fatal(err)
	}
	out := make([]uint32, len(m.Mapping)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(m.Mapping[4*i:])
	}
	return out
}

func TestHWRendersTriangle(t *testing.T) {
	d := newHWDevice(t, 5*time.Second)
	f := mustOpen(t, d)
	const w, h = 100, 70
	// Lower-left half of the window: the triangle (-1,-1), (1,-1), (-1,1).
	a, target := hwJob(t, f, w, h, redFS, [][2]float32{{-1, -1}, {1, -1}, {-1, 1}}, 1)
	if err := f.SubmitCL(a); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, f, a.OutFence); err != nil {
		t.Fatal(err)
	}
	px := pixels(t, f, target)
	const red, green = 0xFF0000FF, 0xFF00FF00
	for _, p := range []struct {
		x, y int
		want uint32
	}{{0, 0, red}, {10, 10, red}, {w - 5, 2, red}, {2, h - 5, red}, {w - 1, h - 1, green}, {w - 10, h - 10, green}} {
		if got := px[p.y*w+p.x]; got != p.want {
			t.Errorf("pixel (%d,%d) = %#08x, want %#08x", p.x, p.y, got, p.want)
		}
	}
}

func TestHWFaultingContextDoesNotDisturbOthers(t *testing.T) {
	d := newHWDevice(t, 5*time.Second)
	bad, good := mustOpen(t, d), mustOpen(t, d)
	ab, _ := hwJob(t, bad, 64, 64, faultFS, fullScreen, 1)
	ag, target := hwJob(t, good, 64, 64, redFS, fullScreen, 1)
	if err := bad.SubmitCL(ab); err != nil {
		t.Fatal(err)
	}
	if err := good.SubmitCL(ag); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, bad, ab.OutFence); !errors.Is(err, EIO) || !strings.Contains(err.Error(), "page fault: read of VA 0x0bad0000 on RENDER") {
		t.Errorf("faulting job: %v", err)
	}
	if err := wait(t, good, ag.OutFence); err != nil {
		t.Fatalf("innocent job: %v", err)
	}
	for i, p := range pixels(t, good, target) {
		if p != 0xFF0000FF {
			t.Fatalf("innocent context pixel %d = %#08x", i, p)
		}
	}
	if err := bad.SubmitCL(ab); !errors.Is(err, EIO) {
		t.Errorf("resubmit from the guilty context: %v", err)
	}
}

func TestHWWatchdogResetsLongJob(t *testing.T) {
	d := newHWDevice(t, 30*time.Millisecond)
	slow, ok := mustOpen(t, d), mustOpen(t, d)
	// 150,000 full-screen triangles: the GPU keeps making progress, so only
	// the hard cap (hardCapFactor·JobTimeout) stops it.
	as, _ := hwJob(t, slow, 64, 64, busyFS, fullScreen, 150000)
	ao, target := hwJob(t, ok, 64, 64, redFS, fullScreen, 1)
	if err := slow.SubmitCL(as); err != nil {
		t.Fatal(err)
	}
	if err := ok.SubmitCL(ao); err != nil {
		t.Fatal(err)
	}
	// Usually the hard cap ends it ("ran longer than 360ms"); on a starved
	// host the GPU goroutines can miss a 30 ms progress window, which is
	// also a reset. Either way the innocent job must be replayed.
	if err := wait(t, slow, as.OutFence); !errors.Is(err, EIO) || !strings.Contains(err.Error(), "engines reset") {
		t.Errorf("long job: %v", err)
	}
	if err := wait(t, ok, ao.OutFence); err != nil {
		t.Fatalf("replayed job: %v", err)
	}
	if p := pixels(t, ok, target)[0]; p != 0xFF0000FF {
		t.Errorf("replayed job pixel = %#08x", p)
	}
}

func TestHWRetiresOnInterruptNotPolling(t *testing.T) {
	g := hw.New(hw.Config{MemorySize: 64 << 20, Cores: 2})
	// The dispatcher never polls: only the EVENT interrupt can retire.
	d := NewDevice(g, Options{JobTimeout: time.Hour, pollPeriod: time.Hour})
	t.Cleanup(func() { d.Close(); g.Close() })
	f := mustOpen(t, d)
	a, _ := hwJob(t, f, 64, 64, redFS, fullScreen, 1)
	for range 40 {
		if err := f.SubmitCL(a); err != nil {
			t.Fatal(err)
		}
		if err := wait(t, f, a.OutFence); err != nil {
			t.Fatal(err)
		}
	}
}

func TestHWBinOOMChainsOverflowPools(t *testing.T) {
	d := newHWDevice(t, time.Minute)
	f := mustOpen(t, d)
	// A diagonal sliver's bounding box touches all 16 tiles of 256×256, so
	// each copy adds 16 TILE_PRIMITIVEs; 600 copies need ~135 KB of tile
	// lists, more than the 64 KiB initial pool, while shading few pixels.
	sliver := [][2]float32{{-1, -1}, {1, 1}, {1, 0.95}}
	a, target := hwJob(t, f, 256, 256, redFS, sliver, 600)
	if err := f.SubmitCL(a); err != nil {
		t.Fatal(err)
	}
	if err := f.Wait(&WaitArgs{Fence: a.OutFence, Timeout: time.Minute}); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	n, used := d.overflows, d.phys.used
	d.mu.Unlock()
	if n == 0 {
		t.Error("no BIN_OOM overflow pool was handed out")
	}
	px := pixels(t, f, target)
	if px[249*256+252] != 0xFF0000FF || px[255*256] != 0xFF00FF00 {
		t.Errorf("pixels (252,249) = %#08x, (0,255) = %#08x", px[249*256+252], px[255*256])
	}
	// Overflow pools are freed with the job.
	f.Close()
	d.mu.Lock()
	after := d.phys.used
	d.mu.Unlock()
	if after >= used {
		t.Errorf("pages in use %d → %d after close", used, after)
	}
}

func TestHWConcurrentClients(t *testing.T) {
	d := newHWDevice(t, 5*time.Second)
	const clients, jobs = 4, 15
	errs := make(chan error, clients)
	for c := range clients {
		f := mustOpen(t, d)
		w := 40 + uint32(c)
		a, target := hwJob(t, f, w, 30, redFS, fullScreen, 1)
		go func() {
			defer f.Close()
			var last uint64
			for range jobs {
				if err := f.SubmitCL(a); err != nil {
					errs <- err
					return
				}
				last = a.OutFence
			}
			if err := f.Wait(&WaitArgs{Fence: last, Timeout: 10 * time.Second}); err != nil {
				errs <- err
				return
			}
			m := MmapBOArgs{Handle: target}
			if err := f.MmapBO(&m); err != nil {
				errs <- err
				return
			}
			for i := uint32(0); i < w*30; i++ {
				if p := binary.LittleEndian.Uint32(m.Mapping[4*i:]); p != 0xFF0000FF {
					errs <- fmt.Errorf("client %d pixel %d = %#08x", c, i, p)
					return
				}
			}
			errs <- nil
		}()
	}
	for range clients {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
