package kernel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/hw/isa"
	"github.com/tilegpu/tilegpu/internal/crashdec"
)

// scanCS is hw's per-workgroup inclusive prefix sum (64 invocations,
// shared memory, barriers). Uniforms: input VA, output VA.
const scanCS = `
	or ra0, a.unif, a.unif
	or ra1, a.unif, a.unif
	or r1, local_index, local_index
	shl ra3, r1, 2
	or r2, wg_id_x, wg_id_x
	li r3, 0x100
	nop ; mul24 r2, r2, r3
	add rb0, ra3, r2
	add r0, ra0, rb0
	or tmu_addr, r0, r0
	nop ; nop ; ldtmu
	or tmu_stdata, r4, r4
	or shared_st, ra3, ra3
	li rb2, 0x4
loop:
	nop ; nop ; barrier
	or shared_ld, ra3, ra3
	sub.setf r1, ra3, rb2
	or.ifnc shared_ld, r1, r1
	nop ; nop ; ldtmu
	or r2, r4, r4
	nop ; nop ; ldtmu
	add r2, r2, r4
	nop ; nop ; barrier
	or tmu_stdata, r2, r2
	or shared_st, ra3, ra3
	add rb2, rb2, rb2
	li r3, 0x100
	sub.setf nop, rb2, r3
	brr.anyns loop
	add r0, ra1, rb0
	or tmu_stdata, r2, r2
	or tmu_staddr, r0, r0
	nop ; nop ; end
`

// computeJob is a valid SubmitCompute of scanCS over groups workgroups;
// tests mutate it.
type computeJob struct {
	args             SubmitComputeArgs
	code, in, out    uint32 // handles
	inMap, outMap    []byte
	groups, elements int
}

func mapBO(t testing.TB, f *File, h uint32) []byte {
	t.Helper()
	m := MmapBOArgs{Handle: h}
	if err := f.MmapBO(&m); err != nil {
		t.Fatal(err)
	}
	return m.Mapping
}

func newComputeJob(t testing.TB, f *File, src string, groups int) *computeJob {
	t.Helper()
	words, err := isa.AssembleProgram(src, 0)
	if err != nil {
		t.Fatal(err)
	}
	j := &computeJob{groups: groups, elements: 64 * groups}
	j.code = mustBO(t, f, uint32(8*len(words)))
	code := mapBO(t, f, j.code)
	for i, w := range words {
		binary.LittleEndian.PutUint64(code[8*i:], w)
	}
	j.in, j.out = mustBO(t, f, uint32(4*j.elements)), mustBO(t, f, uint32(4*j.elements))
	j.inMap, j.outMap = mapBO(t, f, j.in), mapBO(t, f, j.out)
	for i := 0; i < j.elements; i++ {
		binary.LittleEndian.PutUint32(j.inMap[4*i:], uint32(i%5+i/64))
	}
	j.args = SubmitComputeArgs{
		Dispatches: []ComputeDispatch{{
			NumGroups: [3]uint32{uint32(groups), 1, 1}, LocalSize: [3]uint32{64, 1, 1},
			Code: BOAddress{BOIndex: 0}, SharedBytes: 256,
		}},
		Uniforms: make([]byte, 8),
		BOs:      []BORef{{Handle: j.code, Flags: BORead}, {Handle: j.in, Flags: BORead}, {Handle: j.out, Flags: BOWrite}},
		Relocs: []Reloc{
			{Space: SpaceUniforms, Offset: 0, Target: TargetBO, BOIndex: 1},
			{Space: SpaceUniforms, Offset: 4, Target: TargetBO, BOIndex: 2},
		},
	}
	return j
}

// check compares the output with the CPU reference: each workgroup's
// inclusive scan.
func (j *computeJob) check(t testing.TB) {
	t.Helper()
	for w := 0; w < j.groups; w++ {
		sum := uint32(0)
		for i := 64 * w; i < 64*(w+1); i++ {
			sum += binary.LittleEndian.Uint32(j.inMap[4*i:])
			if got := binary.LittleEndian.Uint32(j.outMap[4*i:]); got != sum {
				t.Fatalf("out[%d] = %d, want %d", i, got, sum)
			}
		}
	}
}

func TestHWComputeJob(t *testing.T) {
	var infos []JobInfo
	g := hw.New(hw.Config{MemorySize: 64 << 20, Cores: 2})
	d := NewDevice(g, Options{JobTimeout: 5 * time.Second, OnRetire: func(i *JobInfo) { infos = append(infos, *i) }})
	t.Cleanup(func() { d.Close(); g.Close() })
	f := mustOpen(t, d)
	j := newComputeJob(t, f, scanCS, 5)
	if err := f.SubmitCompute(&j.args); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, f, j.args.OutFence); err != nil {
		t.Fatal(err)
	}
	j.check(t)
	d.mu.Lock()
	info := infos[len(infos)-1]
	d.mu.Unlock()
	if info.Times.ComputeStart == 0 || info.Times.ComputeEnd < info.Times.ComputeStart || info.Times.RenderEnd != 0 {
		t.Errorf("compute job times %+v", info.Times)
	}
	if got := info.Counters[hw.CtrComputeWorkgroups]; got != 5 {
		t.Errorf("job's compute.workgroups = %d, want 5", got)
	}
	if got := info.Counters[hw.CtrComputeInvocations]; got != 5*64 {
		t.Errorf("job's compute.invocations = %d, want 320", got)
	}
	var p GetParamArgs
	p.Param = ParamNumComputeThreads
	if err := f.GetParam(&p); err != nil || p.Value != 2*hw.MaxComputeBatches {
		t.Errorf("ParamNumComputeThreads = %d, %v", p.Value, err)
	}

	// A second job reading the first one's output in place of its input:
	// the COMPUTE ring runs a context's compute jobs in order.
	j2 := newComputeJob(t, f, scanCS, 5)
	j2.args.BOs[1].Handle = j.out
	first := append([]byte(nil), j.outMap...)
	if err := f.SubmitCompute(&j2.args); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, f, j2.args.OutFence); err != nil {
		t.Fatal(err)
	}
	copy(j2.inMap, first)
	j2.check(t)
}

// A compute job of one context and a graphics job of another run on
// different engines; a faulting compute job is blamed alone.
func TestHWComputeFaultAndHang(t *testing.T) {
	// JobTimeout 1 s: the job behind the hung one must not look hung
	// itself on a loaded host (its progress shows when batches finish).
	d := newHWDevice(t, time.Second)
	bad, good := mustOpen(t, d), mustOpen(t, d)
	jb := newComputeJob(t, bad, `
		li r0, 0xbad000
		or tmu_addr, r0, r0
		nop ; nop ; ldtmu
		nop ; nop ; end
	`, 2)
	ag, target := hwJob(t, good, 64, 64, redFS, fullScreen, 1)
	if err := bad.SubmitCompute(&jb.args); err != nil {
		t.Fatal(err)
	}
	if err := good.SubmitCL(ag); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, bad, jb.args.OutFence); !errors.Is(err, EIO) || !strings.Contains(err.Error(), "read of VA 0x00bad000 on COMPUTE") {
		t.Errorf("faulting compute job: %v", err)
	}
	if err := wait(t, good, ag.OutFence); err != nil {
		t.Fatalf("innocent graphics job: %v", err)
	}
	if p := pixels(t, good, target)[0]; p != 0xFF0000FF {
		t.Errorf("innocent pixel %#08x", p)
	}
	if err := bad.SubmitCompute(&jb.args); !errors.Is(err, EIO) {
		t.Errorf("resubmit from the guilty context: %v", err)
	}

	// A compute shader that never ends: the watchdog resets the engines
	// and the other context's compute work still runs.
	hang, ok := mustOpen(t, d), mustOpen(t, d)
	jh := newComputeJob(t, hang, "loop:\n\tbrr loop\n\tnop ; nop ; end\n", 1)
	jo := newComputeJob(t, ok, scanCS, 3)
	if err := hang.SubmitCompute(&jh.args); err != nil {
		t.Fatal(err)
	}
	if err := ok.SubmitCompute(&jo.args); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, hang, jh.args.OutFence); !errors.Is(err, EIO) || !strings.Contains(err.Error(), "engines reset") {
		t.Errorf("hung compute job: %v", err)
	}
	if err := wait(t, ok, jo.args.OutFence); err != nil {
		t.Fatalf("compute job behind the hung one: %v", err)
	}
	jo.check(t)
}

func TestSubmitComputeRejections(t *testing.T) {
	d := newHWDevice(t, 5*time.Second)
	f := mustOpen(t, d)
	tests := []struct {
		name   string
		mutate func(a *SubmitComputeArgs)
		errno  Errno
		want   string
	}{
		{"no dispatches", func(a *SubmitComputeArgs) { a.Dispatches = nil }, EINVAL, "0 dispatches"},
		{"zero local size", func(a *SubmitComputeArgs) { a.Dispatches[0].LocalSize[1] = 0 }, EINVAL, "local size 64×0×1"},
		{"too many invocations", func(a *SubmitComputeArgs) { a.Dispatches[0].LocalSize = [3]uint32{64, 8, 1} }, EINVAL, "not 1..256 invocations"},
		{"overflowing local size", func(a *SubmitComputeArgs) { a.Dispatches[0].LocalSize = [3]uint32{1 << 31, 1 << 31, 4} }, EINVAL, "invocations"},
		{"too many groups", func(a *SubmitComputeArgs) { a.Dispatches[0].NumGroups[2] = 70000 }, EINVAL, "at most 65535 per dimension"},
		{"odd shared size", func(a *SubmitComputeArgs) { a.Dispatches[0].SharedBytes = 6 }, EINVAL, "6 bytes of shared memory"},
		{"code BO out of range", func(a *SubmitComputeArgs) { a.Dispatches[0].Code.BOIndex = 9 }, EINVAL, "code BO index 9"},
		{"unaligned code", func(a *SubmitComputeArgs) { a.Dispatches[0].Code.Offset = 4 }, EINVAL, "code offset 0x4 not 8-aligned"},
		{"code past the BO", func(a *SubmitComputeArgs) { a.Dispatches[0].Code.Offset = 1 << 20 }, EFAULT, "past BO 0"},
		{"uniforms offset", func(a *SubmitComputeArgs) { a.Dispatches[0].UniformsOffset = 12 }, EINVAL, "uniforms offset 0xc"},
		{"scratch in a read-only BO", func(a *SubmitComputeArgs) {
			a.Dispatches[0].ScratchBytesPerThread = 16
			a.Dispatches[0].Scratch = BOAddress{BOIndex: 1}
		}, EINVAL, "not listed with BOWrite"},
		{"scratch too small", func(a *SubmitComputeArgs) {
			a.Dispatches[0].ScratchBytesPerThread = 4096
			a.Dispatches[0].Scratch = BOAddress{BOIndex: 2}
		}, EFAULT, "scratch of 32 threads"},
		{"indirect counts past the BO", func(a *SubmitComputeArgs) {
			a.Dispatches[0].Indirect = true
			a.Dispatches[0].IndirectCounts = BOAddress{BOIndex: 1, Offset: 4092}
		}, EFAULT, "indirect group counts"},
		{"reloc outside uniforms", func(a *SubmitComputeArgs) { a.Relocs[1].Offset = 8 }, EINVAL, "uniforms offset 0x8"},
		{"reloc in the bin CL space", func(a *SubmitComputeArgs) { a.Relocs[0].Space = SpaceBinCL }, EINVAL, "patch only uniforms"},
		{"reloc twice", func(a *SubmitComputeArgs) { a.Relocs[1].Offset = 0 }, EINVAL, "already patched"},
		{"reloc past its BO", func(a *SubmitComputeArgs) { a.Relocs[0].Delta = 1 << 20 }, EFAULT, "past BO 1"},
		{"reloc to shader records", func(a *SubmitComputeArgs) { a.Relocs[0].Target = TargetShaderRecords }, EINVAL, "want TargetBO or TargetUniforms"},
		{"unknown handle", func(a *SubmitComputeArgs) { a.BOs[2].Handle = 99 }, ENOENT, "no BO with handle 99"},
		{"never issued fence", func(a *SubmitComputeArgs) { a.InFences = []uint64{1 << 40} }, ENOENT, "never issued"},
		{"unknown perf monitor", func(a *SubmitComputeArgs) { a.PerfMon = 5 }, ENOENT, "no perf monitor 5"},
	}
	for _, tt := range tests {
		j := newComputeJob(t, f, scanCS, 1)
		tt.mutate(&j.args)
		err := f.SubmitCompute(&j.args)
		var ke *Error
		if !errors.As(err, &ke) || ke.Errno != tt.errno || !strings.Contains(ke.Msg, tt.want) {
			t.Errorf("%s: %v, want %v containing %q", tt.name, err, tt.errno, tt.want)
		}
	}
}

// FuzzSubmitCompute drives SubmitCompute with dispatch parameters, relocs
// and BO references from the fuzzer: every call succeeds or fails with a
// *Error, and an accepted job's fence signals (a job with bad counts in
// memory fails with EIO; nothing panics or hangs).
func FuzzSubmitCompute(f *testing.F) {
	d := newHWDevice(f, 200*time.Millisecond)
	f.Add([]byte{1, 0, 0, 0, 64, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{3, 2, 1, 0, 8, 0, 8, 0, 1, 0, 0, 4, 0, 0, 0, 1, 4, 0, 2})
	f.Add([]byte{0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, data []byte) {
		fl := mustOpen(t, d)
		defer fl.Close()
		j := newComputeJob(t, fl, scanCS, 2)
		cntBO := mustBO(t, fl, 4096)
		cnt := mapBO(t, fl, cntBO)
		j.args.BOs = append(j.args.BOs, BORef{Handle: cntBO, Flags: BORead | BOWrite})
		b := func(i int) byte {
			if i < len(data) {
				return data[i]
			}
			return 0
		}
		x := &j.args.Dispatches[0]
		x.NumGroups = [3]uint32{uint32(b(0)), uint32(b(1)), uint32(b(2))}
		x.LocalSize = [3]uint32{uint32(b(4)) | uint32(b(3))<<8, uint32(b(6)), uint32(b(8))}
		x.SharedBytes = uint32(b(9)) << 4
		x.Code.Offset = uint32(b(10)) * 4
		x.UniformsOffset = uint32(b(11)) % 16
		x.Indirect = b(12)&1 != 0
		x.IndirectCounts = BOAddress{BOIndex: uint32(b(13)) % 5, Offset: uint32(b(14)) * 4}
		copy(cnt, data[min(len(data), 15):])
		if b(15)&1 != 0 {
			j.args.Relocs[1].Delta = uint32(b(16)) << 8
		}
		if b(17)&1 != 0 {
			j.args.BOs[1].Handle = uint32(b(18))
		}
		err := fl.SubmitCompute(&j.args)
		var ke *Error
		if err != nil {
			if !errors.As(err, &ke) {
				t.Fatalf("error %v (%T) is not a *kernel.Error", err, err)
			}
			return
		}
		if err := fl.Wait(&WaitArgs{Fence: j.args.OutFence, Timeout: 30 * time.Second}); err != nil && !errors.As(err, &ke) {
			t.Fatalf("wait: %v", err)
		} else if ke != nil && ke.Errno == ETIMEDOUT {
			t.Fatalf("an accepted compute job never finished: %v", err)
		}
	})
}

// A faulting compute job leaves a crash dump with its compute list and
// the dispatch's code, which crashdec decodes.
func TestComputeCrashDump(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	g := hw.New(hw.Config{MemorySize: 64 << 20, Cores: 2})
	d := NewDevice(g, Options{JobTimeout: 5 * time.Second, DumpDir: dir, OnDump: func(p string) { paths = append(paths, p) }})
	t.Cleanup(func() { d.Close(); g.Close() })
	f := mustOpen(t, d)
	j := newComputeJob(t, f, `
		li r0, 0xbad000
		or tmu_addr, r0, r0
		nop ; nop ; ldtmu
		nop ; nop ; end
	`, 3)
	if err := f.SubmitCompute(&j.args); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, f, j.args.OutFence); !errors.Is(err, EIO) {
		t.Fatalf("faulting job: %v", err)
	}
	d.mu.Lock()
	n := len(paths)
	d.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d dumps", n)
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	dump, err := crashdec.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := crashdec.Decode(&buf, dump); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{"page fault", "== compute list @", "engine COMPUTE", "COMPUTE_DISPATCH num_groups_x=3", "local_size_x=64"} {
		if !strings.Contains(text, want) {
			t.Errorf("decoded dump lacks %q:\n%s", want, text)
		}
	}
	if len(dump.Memory) == 0 {
		t.Error("the dump has no compute shader code")
	}
}
