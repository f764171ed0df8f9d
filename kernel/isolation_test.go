package kernel

import (
	"encoding/binary"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// staleFS is the attacker's fragment shader for the use-after-free test:
// uniform 0 is the VA of a BO the attacker will close while the shader
// runs (raw: uniforms are not validated), uniform 1 its notebook (a BO
// the job declares). It announces itself in notebook word 0, then loops:
// copy the word at the closed BO's VA into notebook word 1, overwrite that
// word with a marker, count iterations in word 3, until word 2 is non-zero.
const staleFS = `
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

const staleMarker = 0x0BAD0BAD

// word reads word i of a CPU mapping the GPU writes concurrently.
func word(m []byte, i int) uint32 {
	return atomic.LoadUint32((*uint32)(unsafe.Pointer(&m[4*i])))
}

// mmap maps handle h of f.
func mmap(t testing.TB, f *File, h uint32) []byte {
	t.Helper()
	m := MmapBOArgs{Handle: h}
	if err := f.MmapBO(&m); err != nil {
		t.Fatal(err)
	}
	return m.Mapping
}

// TestHWClosedBOIsNotReusedUnderARunningShader is issue 6 item 1: client
// A's long shader reads and writes one of A's BOs through an address in
// its uniforms; A closes that BO mid-job and client B allocates and
// writes a secret. Before the fix B received A's freed page, A's shader
// copied B's secret into A's notebook, overwrote it, and A's job
// succeeded. Now the kernel shoots down the TLBs when it unmaps the BO
// (A's shader faults at its next access) and keeps the page from the
// allocator until A's jobs have retired.
func TestHWClosedBOIsNotReusedUnderARunningShader(t *testing.T) {
	d := newHWDevice(t, 20*time.Second)
	a, b := mustOpen(t, d), mustOpen(t, d)
	victim := mustBO(t, a, pageSize)
	notebook := mustBO(t, a, pageSize)
	d.mu.Lock()
	victimVA := a.handles[victim].va
	d.mu.Unlock()

	args, _ := hwJob(t, a, 4, 4, staleFS, fullScreen, 1)
	args.BOs = append(args.BOs, BORef{Handle: notebook, Flags: BORead | BOWrite})
	binary.LittleEndian.PutUint32(args.Uniforms[0:], victimVA)
	args.Relocs = append(args.Relocs, Reloc{Space: SpaceUniforms, Offset: 4, Target: TargetBO, BOIndex: uint32(len(args.BOs) - 1)})
	nb := mmap(t, a, notebook)
	if err := a.SubmitCL(args); err != nil {
		t.Fatal(err)
	}
	waitUntil := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	done := func() bool { return a.Wait(&WaitArgs{Fence: args.OutFence}) == nil || signalled(a, args.OutFence) }
	waitUntil("the attacker's shader to start", func() bool { return word(nb, 0) == 1 })

	if err := a.CloseBO(&CloseBOArgs{Handle: victim}); err != nil {
		t.Fatal(err)
	}
	const secret = 0x5EC12E75
	s := mustBO(t, b, pageSize)
	sm := mmap(t, b, s)
	for i := 0; i < pageSize/4; i++ {
		atomic.StoreUint32((*uint32)(unsafe.Pointer(&sm[4*i])), secret)
	}
	// Let the attacker's loop run at least two more iterations (or end).
	n := word(nb, 3)
	waitUntil("two more iterations or the job's end", func() bool { return word(nb, 3)-n >= 2 || done() })
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&nb[8])), 1)
	err := a.Wait(&WaitArgs{Fence: args.OutFence, Timeout: 30 * time.Second})

	for i := 0; i < pageSize/4; i++ {
		if v := word(sm, i); v != secret {
			t.Fatalf("victim's word %d = %#x, want its secret %#x (the attacker wrote into it)", i, v, secret)
		}
	}
	if v := word(nb, 1); v == secret {
		t.Fatal("the attacker's shader read the victim's secret through its closed BO's address")
	}
	if !errors.Is(err, EIO) || !strings.Contains(err.Error(), "page fault") {
		t.Errorf("attacker's job: %v, want EIO naming the page fault on its closed BO", err)
	}
	// B is unaffected and can still work.
	bj, target := hwJob(t, b, 8, 8, redFS, fullScreen, 1)
	if err := b.SubmitCL(bj); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, b, bj.OutFence); err != nil {
		t.Fatal(err)
	}
	for i, p := range pixels(t, b, target)[:8*8] {
		if p != 0xFF0000FF {
			t.Fatalf("victim pixel %d = %#08x", i, p)
		}
	}
}

// The kernel half of the fix, on the scripted GPU: a BO closed while its
// context has a job running is unmapped and shot down at once, but its
// pages stay out of the allocator until that job retires.
func TestCloseBOWithJobsInFlightDefersItsPages(t *testing.T) {
	d, g := newTestDevice(t, time.Hour)
	a, b := mustOpen(t, d), mustOpen(t, d)
	x := mustBO(t, a, 3*pageSize)
	j := newTestJob(t, a, 64, 64)
	j.script(scriptSlow, 1000)
	if err := a.SubmitCL(&j.args); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	xb := a.handles[x]
	xpa, xva := xb.pa, xb.va
	shot := g.shootdowns
	d.mu.Unlock()
	if err := a.CloseBO(&CloseBOArgs{Handle: x}); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	_, _, mapped := a.ctx.as.translate(xva)
	d.mu.Unlock()
	g.mu.Lock()
	shotAfter := g.shootdowns
	g.mu.Unlock()
	if mapped {
		t.Error("closed BO still mapped in its context")
	}
	if shotAfter == shot {
		t.Error("no TLB shootdown after unmapping a BO of a context with a job running")
	}
	// Another client allocating now must not receive the pages.
	for range 4 {
		h := mustBO(t, b, 3*pageSize)
		d.mu.Lock()
		pa := b.handles[h].pa
		d.mu.Unlock()
		if pa < xpa+3*pageSize && xpa < pa+3*pageSize {
			t.Fatalf("client B got PA %#x, inside A's closed BO at %#x while A's job runs", pa, xpa)
		}
	}
	d.mu.Lock()
	used := d.phys.used
	d.mu.Unlock()
	if err := wait(t, a, j.args.OutFence); err != nil {
		t.Fatal(err)
	}
	waitFor(t, d, "the deferred pages to be released", func() bool { return d.phys.used <= used-3-3 })
}

// File.Wait used to accept any client's fence and return its error, whose
// text names the other context's fault address. A fence is now its
// owner's: another File gets ENOENT for it, pending, failed or retired.
func TestWaitRefusesAnotherFilesFence(t *testing.T) {
	d, _ := newTestDevice(t, time.Hour)
	victim, spy := mustOpen(t, d), mustOpen(t, d)
	ok := newTestJob(t, victim, 64, 64)
	if err := victim.SubmitCL(&ok.args); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, victim, ok.args.OutFence); err != nil {
		t.Fatal(err)
	}
	bad := newTestJob(t, victim, 64, 64)
	bad.script(scriptFault, 0x0BAD_0000)
	if err := victim.SubmitCL(&bad.args); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, victim, bad.args.OutFence); !errors.Is(err, EIO) || !strings.Contains(err.Error(), "0x0bad0000") {
		t.Fatalf("the owner's wait: %v, want EIO naming its fault", err)
	}
	victim2 := mustOpen(t, d)
	hang := newTestJob(t, victim2, 64, 64)
	hang.script(scriptHang, 0)
	if err := victim2.SubmitCL(&hang.args); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		fn   uint64
	}{{"retired", ok.args.OutFence}, {"failed", bad.args.OutFence}, {"pending", hang.args.OutFence}} {
		err := spy.Wait(&WaitArgs{Fence: tc.fn, Timeout: time.Millisecond})
		if !errors.Is(err, ENOENT) || strings.Contains(err.Error(), "0bad") || strings.Contains(err.Error(), "fault") {
			t.Errorf("%s fence of another file: %v, want a bare ENOENT", tc.name, err)
		}
	}
}

// WaitBO used to return nil once the BO was idle even when the job that
// wrote it had faulted: the caller then read a half-written buffer as if
// it were good.
func TestWaitBOReportsTheFailedJob(t *testing.T) {
	d, _ := newTestDevice(t, time.Hour)
	f := mustOpen(t, d)
	j := newTestJob(t, f, 64, 64)
	j.script(scriptFault, 0x0BAD_0000)
	if err := f.SubmitCL(&j.args); err != nil {
		t.Fatal(err)
	}
	err := f.WaitBO(&WaitBOArgs{Handle: j.handles[boTarget], Timeout: 5 * time.Second})
	if !errors.Is(err, EIO) || !strings.Contains(err.Error(), "page fault") {
		t.Errorf("WaitBO of the faulting job's target: %v, want EIO", err)
	}
}

// Two contexts fault before the kernel looks at the fault registers: both
// must be blamed. With one latched fault the first context escaped.
func TestFaultsOfTwoContextsAreBothBlamed(t *testing.T) {
	d, g := newTestDevice(t, time.Hour)
	a, b, innocent := mustOpen(t, d), mustOpen(t, d), mustOpen(t, d)
	g.mu.Lock()
	g.faults = append(g.faults,
		faultRecord{va: 0xA000, ctx: a.ctx.id, status: engineRender << faultStatusEngineShift},
		faultRecord{va: 0xB000, ctx: b.ctx.id, status: faultStatusWrite | engineBin<<faultStatusEngineShift})
	g.mu.Unlock()
	g.raise(intrMMUFault)
	for _, c := range []struct {
		f    *File
		want string
	}{{a, "read of VA 0x0000a000 on RENDER"}, {b, "write of VA 0x0000b000 on BIN"}} {
		j := newTestJob(t, c.f, 64, 64)
		var err error
		waitFor(t, d, "the fault to be handled", func() bool { return c.f.ctx.guilty != nil })
		if err = c.f.SubmitCL(&j.args); !errors.Is(err, EIO) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("context %d after its fault: %v, want EIO naming %q", c.f.ctx.id, err, c.want)
		}
	}
	j := newTestJob(t, innocent, 64, 64)
	if err := innocent.SubmitCL(&j.args); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, innocent, j.args.OutFence); err != nil {
		t.Errorf("innocent context: %v", err)
	}
}

func TestFenceRunsRememberOwnership(t *testing.T) {
	var a, b gpuContext
	for n := uint64(1); n <= 10; n++ {
		if n%3 == 0 {
			b.issued(n)
		} else {
			a.issued(n)
		}
	}
	for n := uint64(1); n <= 11; n++ {
		if want := n%3 != 0 && n <= 10; a.owns(n) != want {
			t.Errorf("a owns %d = %v", n, !want)
		}
		if want := n%3 == 0 && n <= 10; b.owns(n) != want {
			t.Errorf("b owns %d = %v", n, !want)
		}
	}
	// Bounded: the oldest runs merge, the newest stay exact.
	var c gpuContext
	for n := uint64(1); n <= 4*maxFenceRuns; n += 2 {
		c.issued(n)
	}
	if len(c.fenceRuns) != maxFenceRuns {
		t.Fatalf("%d runs, want %d", len(c.fenceRuns), maxFenceRuns)
	}
	if !c.owns(1) || !c.owns(4*maxFenceRuns-1) || c.owns(4*maxFenceRuns-2) {
		t.Error("merged runs lost an owned fence or the newest runs over-approximate")
	}
}

// allocateUntilENOMEM creates 1 MiB BOs on f until CreateBO fails and
// returns that error and how many it got.
func allocateUntilENOMEM(t testing.TB, f *File) (int, error) {
	t.Helper()
	for n := 0; ; n++ {
		if n > 4096 {
			t.Fatal("no allocation limit after 4 GiB")
		}
		if err := f.CreateBO(&CreateBOArgs{Size: 1 << 20}); err != nil {
			return n, err
		}
	}
}

// Issue 6 item 3: one client allocating until ENOMEM used to leave every
// other client unable to allocate, or even to submit (no tile memory).
// Now the hog stops at its quota and everybody else carries on; the hog
// itself can still submit work with the buffers it holds.
func TestMemoryHogStopsAtItsQuota(t *testing.T) {
	d, _ := newTestDevice(t, time.Hour)
	hog, other := mustOpen(t, d), mustOpen(t, d)
	hogJob := newTestJob(t, hog, 64, 64)
	n, err := allocateUntilENOMEM(t, hog)
	if !errors.Is(err, ENOMEM) || !strings.Contains(err.Error(), "quota") {
		t.Fatalf("hog's failing CreateBO: %v, want ENOMEM naming its quota", err)
	}
	q := GetParamArgs{Param: ParamMemoryQuota}
	if err := hog.GetParam(&q); err != nil {
		t.Fatal(err)
	}
	if mem := uint64(len(d.mem)); q.Value > mem/2 || q.Value < mem/4 || uint64(n)<<20 > q.Value {
		t.Errorf("quota %d MiB (hog got %d MiB) of %d MiB: not about half", q.Value>>20, n, mem>>20)
	}
	// The other client allocates and renders.
	j := newTestJob(t, other, 256, 256)
	if err := other.SubmitCL(&j.args); err != nil {
		t.Fatalf("other client's submit with the hog at its quota: %v", err)
	}
	if err := wait(t, other, j.args.OutFence); err != nil {
		t.Fatal(err)
	}
	big := mustBO(t, other, 8<<20)
	_ = big
	// The hog can still submit with the buffers it has.
	if err := hog.SubmitCL(&hogJob.args); err != nil {
		t.Fatalf("hog's submit at its quota: %v", err)
	}
	if err := wait(t, hog, hogJob.args.OutFence); err != nil {
		t.Fatal(err)
	}
	held := GetParamArgs{Param: ParamMemoryHeld}
	if err := hog.GetParam(&held); err != nil || held.Value < uint64(n)<<20 {
		t.Errorf("hog holds %d bytes (%v), want at least its %d MiB of buffers", held.Value, err, n)
	}
	hog.Close()
	if _, err := allocateUntilENOMEM(t, other); !strings.Contains(err.Error(), "quota") {
		t.Errorf("after the hog closed, the other client stops at its own quota, not at exhaustion: %v", err)
	}
}

// Several hogs at their quotas together exhaust what buffers may use; a
// client that already has its buffers can still submit, because job
// memory comes from a reserve buffers cannot take.
func TestJobMemoryIsReservedFromBuffers(t *testing.T) {
	d, _ := newTestDevice(t, time.Hour)
	c := mustOpen(t, d)
	j := newTestJob(t, c, 512, 512)
	var lastErr error
	for range 3 {
		h := mustOpen(t, d)
		_, lastErr = allocateUntilENOMEM(t, h)
	}
	if !errors.Is(lastErr, ENOMEM) || !strings.Contains(lastErr.Error(), "exhausted") {
		t.Fatalf("third hog: %v, want ENOMEM for exhausted buffer memory", lastErr)
	}
	for range 3 {
		if err := c.SubmitCL(&j.args); err != nil {
			t.Fatalf("submit with every hog at its limit: %v", err)
		}
		if err := wait(t, c, j.args.OutFence); err != nil {
			t.Fatal(err)
		}
	}
}

// An explicit quota applies, to BOs and to job memory: a client cannot pin
// unbounded tile memory by queueing jobs either.
func TestMemoryQuotaOption(t *testing.T) {
	g := newFakeGPU(64 << 20)
	d := newDevice(g, Options{JobTimeout: time.Hour, MemoryQuota: 8 << 20})
	t.Cleanup(func() { d.Close(); g.Close() })
	f := mustOpen(t, d)
	if err := f.CreateBO(&CreateBOArgs{Size: 8 << 20}); !errors.Is(err, ENOMEM) {
		t.Errorf("8 MiB BO under an 8 MiB quota (less headroom): %v", err)
	}
	j := newTestJob(t, f, 1024, 1024) // a 4 MiB target and small buffers
	n, err := allocateUntilENOMEM(t, f)
	if n != 2 || !strings.Contains(err.Error(), "quota") {
		t.Errorf("got %d more 1 MiB BOs under an 8 MiB quota, then %v", n, err)
	}
	// Jobs that never finish keep their tile memory; the quota stops them.
	j.script(scriptHang, 0)
	for k := 0; ; k++ {
		err := f.SubmitCL(&j.args)
		if err == nil {
			continue
		}
		if k < 2 || !errors.Is(err, ENOMEM) || !strings.Contains(err.Error(), "quota") {
			t.Fatalf("submit %d: %v, want ENOMEM naming the quota after a few jobs", k, err)
		}
		break
	}
}

// Opening Files by the thousand cannot take the memory jobs need either:
// a context's own pages count against the same limit as buffers.
func TestOpeningFilesStopsShortOfJobMemory(t *testing.T) {
	d, _ := newTestDevice(t, time.Hour)
	c := mustOpen(t, d)
	j := newTestJob(t, c, 512, 512)
	var err error
	for n := 0; err == nil; n++ {
		if n > 1<<16 {
			t.Fatal("no limit on open files")
		}
		_, err = d.Open()
	}
	if !errors.Is(err, ENOMEM) || !strings.Contains(err.Error(), "exhausted") {
		t.Fatalf("Open past the limit: %v", err)
	}
	if err := c.SubmitCL(&j.args); err != nil {
		t.Fatalf("submit with the memory full of contexts: %v", err)
	}
	if err := wait(t, c, j.args.OutFence); err != nil {
		t.Fatal(err)
	}
}
