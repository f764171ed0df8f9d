package robustness_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/hw/isa"
	"github.com/tilegpu/tilegpu/kernel"
)

// The kernel-level attacks. Each builds its jobs from raw control lists
// and QPU assembly, exactly what a malicious client could hand SubmitCL.

const (
	kPassThroughVS = `
		mov vpm, vpm
		mov vpm, vpm
		mov vpm, vpm
		mov vpm, vpm
		nop ; nop ; end`
	// kVictimFS draws opaque red.
	kVictimFS = `
		li tlb_r, 1.0
		li tlb_g, 0
		li tlb_b, 0
		li tlb_a, 1.0
		nop ; nop ; end`
	kFrameSize = 64
)

// kNewDevice is a fresh GPU and kernel: every run of a case, the victim's
// reference run included, starts from the same state.
func kNewDevice(t testing.TB, opts kernel.Options) *kernel.Device {
	t.Helper()
	g := hw.New(hw.Config{MemorySize: 64 << 20, Cores: 2})
	if opts.JobTimeout == 0 {
		opts.JobTimeout = 20 * time.Second
	}
	d := kernel.NewDevice(g, opts)
	t.Cleanup(func() { d.Close(); g.Close() })
	return d
}

func kOpen(t testing.TB, d *kernel.Device) *kernel.File {
	t.Helper()
	f, err := d.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

func kCreateBO(t testing.TB, f *kernel.File, size uint32) uint32 {
	t.Helper()
	a := kernel.CreateBOArgs{Size: size}
	if err := f.CreateBO(&a); err != nil {
		t.Fatal(err)
	}
	return a.Handle
}

func kMapBO(t testing.TB, f *kernel.File, h uint32) []byte {
	t.Helper()
	a := kernel.MmapBOArgs{Handle: h}
	if err := f.MmapBO(&a); err != nil {
		t.Fatal(err)
	}
	return a.Mapping
}

// kLoad and kStore access words the GPU may be writing at the same time.
func kLoad(m []byte, i int) uint32 { return atomic.LoadUint32((*uint32)(unsafe.Pointer(&m[4*i]))) }
func kStore(m []byte, i int, v uint32) {
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&m[4*i])), v)
}

func kAssemble(t testing.TB, src string) []uint64 {
	t.Helper()
	code, err := isa.AssembleProgram(src, 0)
	if err != nil {
		t.Fatalf("assemble: %v\n%s", err, src)
	}
	return code
}

// kDrawJob builds a submission that draws a full-screen triangle with fs
// into a w×h colour target cleared to clear. BOs: 0 vertices, 1 code (FS
// at 0, VS at 1024), 2 the target. Uniforms: 16 bytes, the FS stream at
// offset 0 (callers put their uniforms and relocations there).
func kDrawJob(t testing.TB, f *kernel.File, w, h uint32, fs string, clear uint32) (*kernel.SubmitCLArgs, uint32) {
	t.Helper()
	verts, code, target := kCreateBO(t, f, 4096), kCreateBO(t, f, 4096), kCreateBO(t, f, w*h*4)
	vm, cm := kMapBO(t, f, verts), kMapBO(t, f, code)
	for i, v := range [][2]float32{{-1, -1}, {3, -1}, {-1, 3}} {
		binary.LittleEndian.PutUint32(vm[12*i:], math.Float32bits(v[0]))
		binary.LittleEndian.PutUint32(vm[12*i+4:], math.Float32bits(v[1]))
	}
	for i, ins := range kAssemble(t, fs) {
		binary.LittleEndian.PutUint64(cm[8*i:], ins)
	}
	for i, ins := range kAssemble(t, kPassThroughVS) {
		binary.LittleEndian.PutUint64(cm[1024+8*i:], ins)
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
	gss := rec(cl.GLShaderState{AttributeCount: 1})
	rec(cl.VertexArrayPrimitives{Mode: cl.PrimTriangles, Length: 3})
	rec(cl.Flush{})
	sr := make([]byte, cl.SizeShaderRecord+cl.SizeAttributeRecord)
	cl.ShaderRecord{Flags: cl.ShaderFlagFragmentSingleThreaded, VertexOutputWords: 4}.Pack(sr)
	cl.AttributeRecord{MaxOffset: 36, Stride: 12, Type: cl.AttrFloat, Components: 3}.Pack(sr[cl.SizeShaderRecord:])
	return &kernel.SubmitCLArgs{
		BinCL:         bin,
		ShaderRecords: sr,
		Uniforms:      make([]byte, 16),
		BOs:           []kernel.BORef{{Handle: verts, Flags: kernel.BORead}, {Handle: code, Flags: kernel.BORead}, {Handle: target, Flags: kernel.BOWrite}},
		Width:         w,
		Height:        h,
		Color:         kernel.RenderTarget{BOIndex: 2, Stride: w * 4, Enabled: true, Store: true, Clear: true},
		ClearColor:    clear,
		Relocs: []kernel.Reloc{
			{Space: kernel.SpaceBinCL, Offset: uint32(gss + 1), Target: kernel.TargetShaderRecords},
			{Space: kernel.SpaceShaderRecords, Offset: 4, Target: kernel.TargetBO, BOIndex: 1},
			{Space: kernel.SpaceShaderRecords, Offset: 8, Target: kernel.TargetUniforms},
			{Space: kernel.SpaceShaderRecords, Offset: 12, Target: kernel.TargetBO, BOIndex: 1, Delta: 1024},
			{Space: kernel.SpaceShaderRecords, Offset: 16, Target: kernel.TargetUniforms},
			{Space: kernel.SpaceShaderRecords, Offset: 20, Target: kernel.TargetBO, BOIndex: 1, Delta: 1024},
			{Space: kernel.SpaceShaderRecords, Offset: 24, Target: kernel.TargetUniforms},
			{Space: kernel.SpaceShaderRecords, Offset: 36, Target: kernel.TargetBO, BOIndex: 0},
		},
	}, target
}

// kAddBO makes the job declare h and puts the VA of h+delta into the FS
// uniform at byte offset off.
func kAddBO(a *kernel.SubmitCLArgs, h, flags uint32, off, delta uint32) {
	a.BOs = append(a.BOs, kernel.BORef{Handle: h, Flags: flags})
	a.Relocs = append(a.Relocs, kernel.Reloc{Space: kernel.SpaceUniforms, Offset: off, Target: kernel.TargetBO, BOIndex: uint32(len(a.BOs) - 1), Delta: delta})
}

func kSubmit(t testing.TB, f *kernel.File, a *kernel.SubmitCLArgs) uint64 {
	t.Helper()
	if err := f.SubmitCL(a); err != nil {
		t.Fatal(err)
	}
	return a.OutFence
}

func kWaitFence(f *kernel.File, fence uint64) error {
	return f.Wait(&kernel.WaitArgs{Fence: fence, Timeout: 60 * time.Second})
}

// kVictim is the innocent client: a BO holding a secret it wrote, and a
// few frames it renders and reads back. Its state is what every case
// compares with the reference run.
type kVictim struct {
	f       *kernel.File
	secret  []byte
	results kVictimState
}

type kVictimState struct {
	Secret []byte   // the secret BO's bytes at the end
	Images [][]byte // each frame's target after its fence
	Fences []string // each frame's fence result ("ok" or the error)
}

const kSecretWord = 0x5EC12E75

func kNewVictim(t testing.TB, d *kernel.Device) *kVictim {
	return &kVictim{f: kOpen(t, d)}
}

// allocSecret creates the victim's secret BO and writes the secret.
func (v *kVictim) allocSecret(t testing.TB) {
	v.secret = kMapBO(t, v.f, kCreateBO(t, v.f, 4096))
	for i := 0; i < len(v.secret)/4; i++ {
		kStore(v.secret, i, kSecretWord^uint32(i))
	}
}

// frame renders frame k and records the image and fence.
func (v *kVictim) frame(t testing.TB, k int) {
	a, target := kDrawJob(t, v.f, kFrameSize, kFrameSize, kVictimFS, 0xFF00FF00+uint32(k))
	err := kWaitFence(v.f, kSubmit(t, v.f, a))
	res := "ok"
	if err != nil {
		res = err.Error()
	}
	img := kMapBO(t, v.f, target)[:kFrameSize*kFrameSize*4]
	v.results.Images = append(v.results.Images, bytes.Clone(img))
	v.results.Fences = append(v.results.Fences, res)
}

func (v *kVictim) state() kVictimState {
	s := v.results
	s.Secret = make([]byte, len(v.secret))
	for i := 0; i < len(v.secret)/4; i++ {
		binary.LittleEndian.PutUint32(s.Secret[4*i:], kLoad(v.secret, i))
	}
	return s
}

// kReferenceVictim is the victim's run on a device of its own.
func kReferenceVictim(t testing.TB, frames int) kVictimState {
	d := kNewDevice(t, kernel.Options{})
	v := kNewVictim(t, d)
	v.allocSecret(t)
	for k := range frames {
		v.frame(t, k)
	}
	return v.state()
}

func kSameAsAlone(t testing.TB, got, want kVictimState) {
	t.Helper()
	if !bytes.Equal(got.Secret, want.Secret) {
		i := 0
		for i < len(got.Secret) && got.Secret[i] == want.Secret[i] {
			i++
		}
		t.Errorf("victim's secret BO differs from its run alone at byte %d", i)
	}
	if len(got.Images) != len(want.Images) {
		t.Fatalf("victim rendered %d frames, %d alone", len(got.Images), len(want.Images))
	}
	for k := range got.Images {
		if got.Fences[k] != want.Fences[k] {
			t.Errorf("victim's frame %d fence: %q, alone %q", k, got.Fences[k], want.Fences[k])
		}
		if !bytes.Equal(got.Images[k], want.Images[k]) {
			t.Errorf("victim's frame %d image differs from its run alone", k)
		}
	}
}

// learnVA finds the GPU VA the kernel gave h in f's context the way an
// attacker could: a job that relocates h into its uniforms, observed
// through the kernel's capture hook (a shader could equally store the
// relocated uniform somewhere the client reads).
type kVaSpy struct {
	mu  sync.Mutex
	got map[uint64]uint32 // fence → first uniform word
}

func (s *kVaSpy) capture(c *kernel.Capture) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.got == nil {
		s.got = map[uint64]uint32{}
	}
	if len(c.Uniforms) >= 4 {
		s.got[c.Fence] = binary.LittleEndian.Uint32(c.Uniforms)
	}
}

func (s *kVaSpy) learnVA(t testing.TB, f *kernel.File, h uint32) uint32 {
	t.Helper()
	a, _ := kDrawJob(t, f, 8, 8, kVictimFS, 0)
	kAddBO(a, h, kernel.BORead, 0, 0)
	fence := kSubmit(t, f, a)
	if err := kWaitFence(f, fence); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	va, ok := s.got[fence]
	if !ok {
		t.Fatal("capture did not see the spy job")
	}
	return va
}

// kStaleFS: uniform 0 is the VA of a BO the attacker closes while the
// shader runs (a raw address: uniforms are not validated), uniform 1 its
// notebook. It announces itself in notebook word 0, then loops: copy the
// word at the closed BO into notebook word 1, overwrite it with a marker,
// count iterations in word 3, until notebook word 2 is non-zero.
const kStaleFS = `
	or ra0, unif, unif ; nop
	or ra1, unif, unif ; nop
	add ra2, ra1, 4 ; nop
	add ra3, ra1, 8 ; nop
	add ra4, ra1, 12 ; nop
	li r3, 1
	or tmu_stdata, r3, r3 ; nop
	or tmu_staddr, ra1, ra1 ; nop
	li ra5, 0
loop:	or tmu_addr, ra0, ra0 ; nop
	nop ; nop ; ldtmu
	or tmu_stdata, r4, r4 ; nop
	or tmu_staddr, ra2, ra2 ; nop
	li r3, 0x0BAD0BAD
	or tmu_stdata, r3, r3 ; nop
	or tmu_staddr, ra0, ra0 ; nop
	add ra5, ra5, 1 ; nop
	or tmu_stdata, ra5, ra5 ; nop
	or tmu_staddr, ra4, ra4 ; nop
	or tmu_addr, ra3, ra3 ; nop
	nop ; nop ; ldtmu
	or.setf r0, r4, r4 ; nop
	brr.allzs loop
	li tlb_r, 1.0
	li tlb_g, 0
	li tlb_b, 0
	li tlb_a, 1.0
	nop ; nop ; end`

func kWaitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// Use after free through stale GPU translations (issue 6 item 1): the
// attacker's shader keeps reading and writing a BO the attacker closed,
// hoping the victim receives its pages.
func TestUseAfterFreeThroughStaleTranslations(t *testing.T) {
	want := kReferenceVictim(t, 2)
	var spy kVaSpy
	d := kNewDevice(t, kernel.Options{Capture: spy.capture})
	att, v := kOpen(t, d), kNewVictim(t, d)
	closed, notebook := kCreateBO(t, att, 4096), kCreateBO(t, att, 4096)
	closedVA := spy.learnVA(t, att, closed)
	a, _ := kDrawJob(t, att, 4, 4, kStaleFS, 0)
	binary.LittleEndian.PutUint32(a.Uniforms, closedVA)
	kAddBO(a, notebook, kernel.BORead|kernel.BOWrite, 4, 0)
	nb := kMapBO(t, att, notebook)
	fence := kSubmit(t, att, a)
	kWaitUntil(t, "the attacker's shader to run", func() bool { return kLoad(nb, 0) == 1 })
	if err := att.CloseBO(&kernel.CloseBOArgs{Handle: closed}); err != nil {
		t.Fatal(err)
	}
	v.allocSecret(t)
	v.frame(t, 0)
	n := kLoad(nb, 3)
	kWaitUntil(t, "two more attacker iterations or its end", func() bool {
		return kLoad(nb, 3)-n >= 2 || !errors.Is(att.Wait(&kernel.WaitArgs{Fence: fence}), kernel.ETIMEDOUT)
	})
	kStore(nb, 2, 1)
	err := kWaitFence(att, fence)
	v.frame(t, 1)
	kSameAsAlone(t, v.state(), want)
	if w := kLoad(nb, 1); w>>16 == kSecretWord>>16 {
		t.Errorf("the attacker read %#x, the victim's secret", w)
	}
	if !errors.Is(err, kernel.EIO) || !strings.Contains(err.Error(), "page fault") {
		t.Errorf("attacker's job: %v, want EIO for the page fault on its closed BO", err)
	}
}

// Memory exhaustion (issue 6 item 3): the attacker allocates until
// ENOMEM; the victim still allocates and renders.
func TestMemoryExhaustion(t *testing.T) {
	want := kReferenceVictim(t, 2)
	d := kNewDevice(t, kernel.Options{})
	att, v := kOpen(t, d), kNewVictim(t, d)
	var err error
	for n := 0; err == nil && n < 1<<12; n++ {
		err = att.CreateBO(&kernel.CreateBOArgs{Size: 1 << 20})
	}
	if !errors.Is(err, kernel.ENOMEM) || !strings.Contains(err.Error(), "quota") {
		t.Errorf("attacker's allocation: %v, want ENOMEM naming its quota", err)
	}
	v.allocSecret(t)
	v.frame(t, 0)
	v.frame(t, 1)
	kSameAsAlone(t, v.state(), want)
}

// Other clients' fences and handles: the attacker waits for the victim's
// fences (which used to return their error text) and names the victim's
// handle numbers.
func TestForeignFencesAndHandles(t *testing.T) {
	want := kReferenceVictim(t, 2)
	d := kNewDevice(t, kernel.Options{})
	v := kNewVictim(t, d)
	v.allocSecret(t)
	v.frame(t, 0)
	att := kOpen(t, d)
	var errs []error
	for fence := uint64(1); fence <= 4; fence++ {
		errs = append(errs, att.Wait(&kernel.WaitArgs{Fence: fence, Timeout: time.Millisecond}))
	}
	// The victim holds handles 1..5; the attacker none yet.
	for h := uint32(1); h <= 8; h++ {
		errs = append(errs,
			att.MmapBO(&kernel.MmapBOArgs{Handle: h}),
			att.CloseBO(&kernel.CloseBOArgs{Handle: h}),
			att.WaitBO(&kernel.WaitBOArgs{Handle: h}))
	}
	a, _ := kDrawJob(t, att, 8, 8, kVictimFS, 0) // the attacker's handles 1..3
	for h := uint32(4); h <= 8; h++ {
		a.BOs[2].Handle = h
		errs = append(errs, att.SubmitCL(a))
	}
	for i, err := range errs {
		if !errors.Is(err, kernel.ENOENT) {
			t.Errorf("attack %d: %v, want ENOENT", i, err)
		}
	}
	v.frame(t, 1)
	kSameAsAlone(t, v.state(), want)
}

// kGuessFS stores a marker to every page from uniform 0 upward (uniform 1
// pages), then loads from the kernel's reserved range: guessed addresses
// either are the attacker's own or fault.
const kGuessFS = `
	or ra0, unif, unif ; nop
	or r1, unif, unif ; nop
	li r3, 0x0BAD0BAD
loop:	or tmu_stdata, r3, r3 ; nop
	or tmu_staddr, ra0, ra0 ; nop
	li r2, 4096
	add ra0, ra0, r2 ; nop
	sub.setf r1, r1, 1 ; nop
	brr.allzc loop
	li r2, 0xF0001000
	or tmu_addr, r2, r2 ; nop
	nop ; nop ; ldtmu
	li tlb_r, 1.0
	li tlb_g, 0
	li tlb_b, 0
	li tlb_a, 1.0
	nop ; nop ; end`

// Guessed addresses: the attacker's shader sweeps the user VA range from
// the bottom, writing as it goes, and reads the kernel's range.
func TestGuessedAddresses(t *testing.T) {
	want := kReferenceVictim(t, 1)
	d := kNewDevice(t, kernel.Options{})
	v := kNewVictim(t, d)
	v.allocSecret(t)
	att := kOpen(t, d)
	a, _ := kDrawJob(t, att, 4, 4, kGuessFS, 0)
	binary.LittleEndian.PutUint32(a.Uniforms[0:], 0x1000)
	binary.LittleEndian.PutUint32(a.Uniforms[4:], 4096) // 16 MiB of guesses
	err := kWaitFence(att, kSubmit(t, att, a))
	v.frame(t, 0)
	kSameAsAlone(t, v.state(), want)
	if !errors.Is(err, kernel.EIO) || !strings.Contains(err.Error(), "page fault") {
		t.Errorf("attacker's job: %v, want EIO for a page fault", err)
	}
}

// kRacyFS makes every fragment on every render core store its own x to
// one word of uniform 0: the hardware defines one store wins, whole; the
// emulator must not have a Go data race there (run with -race).
const kRacyFS = `
	or ra0, unif, unif ; nop
	ftoi r1, frag_x ; nop
	or tmu_stdata, r1, r1 ; nop
	or tmu_staddr, ra0, ra0 ; nop
	or tmu_addr, ra0, ra0 ; nop
	nop ; nop ; ldtmu
	li tlb_r, 1.0
	li tlb_g, 0
	li tlb_b, 0
	li tlb_a, 1.0
	nop ; nop ; end`

// Concurrent stores to one address from every render worker.
func TestConcurrentStoresToOneWord(t *testing.T) {
	want := kReferenceVictim(t, 1)
	d := kNewDevice(t, kernel.Options{})
	v := kNewVictim(t, d)
	v.allocSecret(t)
	att := kOpen(t, d)
	word := kCreateBO(t, att, 4096)
	a, _ := kDrawJob(t, att, 256, 256, kRacyFS, 0) // 16 tiles over 2 cores
	kAddBO(a, word, kernel.BORead|kernel.BOWrite, 0, 0)
	if err := kWaitFence(att, kSubmit(t, att, a)); err != nil {
		t.Fatalf("racing job: %v", err)
	}
	if w := kLoad(kMapBO(t, att, word), 0); w >= 256 {
		t.Errorf("the word holds %d, not a whole value one fragment stored (x < 256)", w)
	}
	v.frame(t, 0)
	kSameAsAlone(t, v.state(), want)
}

// Two attackers fault at the same moment: both are blamed (the fault
// registers used to keep only the last), the victim carries on.
func TestSimultaneousFaults(t *testing.T) {
	want := kReferenceVictim(t, 2)
	d := kNewDevice(t, kernel.Options{})
	v := kNewVictim(t, d)
	v.allocSecret(t)
	const faultFS = `
		li r2, 0x0BAD0000
		or tmu_addr, r2, r2 ; nop
		nop ; nop ; ldtmu
		li tlb_r, 1.0
		nop ; nop ; end`
	var fences [2]uint64
	var atts [2]*kernel.File
	for i := range atts {
		atts[i] = kOpen(t, d)
		a, _ := kDrawJob(t, atts[i], 128, 128, faultFS, 0)
		fences[i] = kSubmit(t, atts[i], a)
	}
	v.frame(t, 0)
	for i, f := range atts {
		if err := kWaitFence(f, fences[i]); !errors.Is(err, kernel.EIO) || !strings.Contains(err.Error(), "0x0bad0000") {
			t.Errorf("attacker %d: %v, want EIO for its fault", i, err)
		}
		a, _ := kDrawJob(t, f, 8, 8, kVictimFS, 0)
		if err := f.SubmitCL(a); !errors.Is(err, kernel.EIO) {
			t.Errorf("attacker %d submits after its fault: %v, want EIO (guilty)", i, err)
		}
	}
	v.frame(t, 1)
	kSameAsAlone(t, v.state(), want)
}

// The attacker closes its whole File while its shader still runs on one
// of its buffers: the context's memory (BOs, exec buffer, tile memory,
// page tables) must stay out of the allocator until the job has left the
// GPU, while the victim allocates and renders.
func TestAttackerClosesItsFileMidJob(t *testing.T) {
	want := kReferenceVictim(t, 2)
	var spy kVaSpy
	d := kNewDevice(t, kernel.Options{Capture: spy.capture})
	att, v := kOpen(t, d), kNewVictim(t, d)
	closed, notebook := kCreateBO(t, att, 4096), kCreateBO(t, att, 4096)
	closedVA := spy.learnVA(t, att, closed)
	a, _ := kDrawJob(t, att, 4, 4, kStaleFS, 0)
	binary.LittleEndian.PutUint32(a.Uniforms, closedVA)
	kAddBO(a, notebook, kernel.BORead|kernel.BOWrite, 4, 0)
	nb := kMapBO(t, att, notebook)
	kSubmit(t, att, a)
	kWaitUntil(t, "the attacker's shader to run", func() bool { return kLoad(nb, 0) == 1 })
	att.Close()
	if err := att.SubmitCL(a); err == nil {
		t.Error("SubmitCL on a closed File succeeded")
	}
	v.allocSecret(t)
	v.frame(t, 0)
	v.frame(t, 1)
	kSameAsAlone(t, v.state(), want)
}
