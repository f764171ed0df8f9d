package kernel

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw"
)

// addSyncBO adds a 4 KiB BO for memory waits and writes to a's BO list and
// returns its index and CPU mapping.
func addSyncBO(t testing.TB, f *File, a *SubmitCLArgs) (uint32, []byte) {
	t.Helper()
	h := mustBO(t, f, 4096)
	m := MmapBOArgs{Handle: h}
	if err := f.MmapBO(&m); err != nil {
		t.Fatal(err)
	}
	a.BOs = append(a.BOs, BORef{Handle: h, Flags: BORead | BOWrite})
	return uint32(len(a.BOs) - 1), m.Mapping
}

func TestMemOpsRejections(t *testing.T) {
	d := newHWDevice(t, 5*time.Second)
	f := mustOpen(t, d)
	ro := mustBO(t, f, 4096)
	for _, tc := range []struct {
		name   string
		waits  []MemWait
		writes []MemWrite
		want   string
	}{
		{"wait BO index", []MemWait{{BOIndex: 9}}, nil, "Waits[0]: BO index 9"},
		{"wait misaligned", []MemWait{{BOIndex: 3, Offset: 2}}, nil, "Waits[0]: offset 2 is not a 4-aligned word"},
		{"wait past the BO", []MemWait{{BOIndex: 3, Offset: 4096}}, nil, "Waits[0]: offset 4096"},
		{"wait offset wraps", []MemWait{{BOIndex: 3, Offset: 0xFFFFFFFC}}, nil, "Waits[0]: offset 4294967292"},
		{"too many waits", make([]MemWait, maxMemWaits+1), nil, "17 memory waits"},
		{"too many writes", nil, make([]MemWrite, maxMemWrites+1), "17 writes"},
		{"write BO index", nil, []MemWrite{{BOIndex: 5}}, "Writes[0]: BO index 5"},
		{"write to a read-only BO", nil, []MemWrite{{BOIndex: 4}}, "Writes[0]: BO 4 is not listed with BOWrite"},
		{"write misaligned", nil, []MemWrite{{BOIndex: 3, Offset: 6}}, "Writes[0]: offset 6 is not a 4-aligned"},
		{"timestamp 4-aligned", nil, []MemWrite{{BOIndex: 3, Offset: 4, Kind: MemWriteTimestamp}}, "not a 8-aligned 8-byte slot"},
		{"timestamp past the end", nil, []MemWrite{{BOIndex: 3, Offset: 4092, Kind: MemWriteTimestamp}}, "not a 8-aligned"},
		{"timestamp with a value", nil, []MemWrite{{BOIndex: 3, Kind: MemWriteTimestamp, Value: 1}}, "timestamp write has no Value"},
		{"unknown kind", nil, []MemWrite{{BOIndex: 3, Kind: 7}}, "unknown kind 7"},
		{"unknown stage", nil, []MemWrite{{BOIndex: 3, Stage: 2}}, "unknown stage 2"},
		{"second write bad", nil, []MemWrite{{BOIndex: 3}, {BOIndex: 3, Offset: 1 << 20}}, "Writes[1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _ := hwJob(t, f, 16, 16, redFS, fullScreen, 1)
			addSyncBO(t, f, a)
			a.BOs = append(a.BOs, BORef{Handle: ro, Flags: BORead})
			a.Waits, a.Writes = tc.waits, tc.writes
			err := f.SubmitCL(a)
			var ke *Error
			if !errors.As(err, &ke) || ke.Errno != EINVAL || !strings.Contains(ke.Msg, tc.want) {
				t.Fatalf("SubmitCL = %v, want EINVAL naming %q", err, tc.want)
			}
		})
	}
	// Nothing leaked: the rejected jobs hold no memory.
	p := GetParamArgs{Param: ParamMemoryHeld}
	if err := f.GetParam(&p); err != nil {
		t.Fatal(err)
	}
	if p.Value > 64<<20 {
		t.Errorf("File holds %d bytes after rejections", p.Value)
	}
}

// TestMemWritesAtTopAndBottomOfPipe: values and timestamps written by the
// command processors at both ends of a job are in memory when its fence
// signals, in pipe order, between the GPU times before and after.
func TestMemWritesAtTopAndBottomOfPipe(t *testing.T) {
	d := newHWDevice(t, 5*time.Second)
	f := mustOpen(t, d)
	a, _ := hwJob(t, f, 64, 64, redFS, fullScreen, 4)
	i, m := addSyncBO(t, f, a)
	a.Writes = []MemWrite{
		{BOIndex: i, Offset: 0, Value: 0x1111, Stage: StageTopOfPipe},
		{BOIndex: i, Offset: 8, Kind: MemWriteTimestamp, Stage: StageTopOfPipe},
		{BOIndex: i, Offset: 16, Kind: MemWriteTimestamp, Stage: StageBottomOfPipe},
		{BOIndex: i, Offset: 24, Value: 0x2222, Stage: StageBottomOfPipe},
		{BOIndex: i, Offset: 24, Value: 0x3333, Stage: StageBottomOfPipe}, // in order: the last wins
	}
	before := GetParamArgs{Param: ParamTimestamp}
	if err := f.GetParam(&before); err != nil {
		t.Fatal(err)
	}
	if err := f.SubmitCL(a); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, f, a.OutFence); err != nil {
		t.Fatal(err)
	}
	after := GetParamArgs{Param: ParamTimestamp}
	if err := f.GetParam(&after); err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	if v := le.Uint32(m[0:]); v != 0x1111 {
		t.Errorf("top-of-pipe value = %#x", v)
	}
	if v := le.Uint32(m[24:]); v != 0x3333 {
		t.Errorf("bottom-of-pipe value = %#x, want the later write 0x3333", v)
	}
	top, bottom := le.Uint64(m[8:]), le.Uint64(m[16:])
	if !(before.Value <= top && top < bottom && bottom <= after.Value) {
		t.Errorf("timestamps out of order: before %d, top %d, bottom %d, after %d", before.Value, top, bottom, after.Value)
	}
	// The job's own start- and end-of-pipe records agree: top of pipe
	// precedes its bin list, bottom of pipe follows its render list.
	info := QueryJobArgs{Fence: a.OutFence}
	if err := f.QueryJob(&info); err != nil {
		t.Fatal(err)
	}
	if tm := info.Info.Times; top > tm.BinStart || bottom < tm.RenderEnd {
		t.Errorf("top %d, bottom %d; the job's bin list started at %d, its render list ended at %d", top, bottom, tm.BinStart, tm.RenderEnd)
	}
}

// TestMemWaitHoldsTheJob: a job waiting for a word does not start until
// the CPU sets it, then runs.
func TestMemWaitHoldsTheJob(t *testing.T) {
	d := newHWDevice(t, 5*time.Second)
	f := mustOpen(t, d)
	a, target := hwJob(t, f, 64, 64, redFS, fullScreen, 1)
	i, m := addSyncBO(t, f, a)
	a.Waits = []MemWait{{BOIndex: i, Offset: 64, Reference: 1}}
	a.Writes = []MemWrite{{BOIndex: i, Offset: 0, Kind: MemWriteTimestamp, Stage: StageTopOfPipe}}
	if err := f.SubmitCL(a); err != nil {
		t.Fatal(err)
	}
	if err := f.Wait(&WaitArgs{Fence: a.OutFence, Timeout: 100 * time.Millisecond}); !errors.Is(err, ETIMEDOUT) {
		t.Fatalf("job waiting for an unset word: Wait = %v, want ETIMEDOUT", err)
	}
	if ts := binary.LittleEndian.Uint64(m[0:]); ts != 0 {
		t.Fatalf("the job started (top-of-pipe timestamp %d) before the word was set", ts)
	}
	set := GetParamArgs{Param: ParamTimestamp}
	f.GetParam(&set)
	storeSync32(m, 64, 1)
	if err := wait(t, f, a.OutFence); err != nil {
		t.Fatal(err)
	}
	if ts := binary.LittleEndian.Uint64(m[0:]); ts < set.Value {
		t.Errorf("job started at %d, before the word was set at %d", ts, set.Value)
	}
	if px := pixels(t, f, target); px[0] != 0xFF0000FF {
		t.Errorf("pixel = %#08x, want red", px[0])
	}
}

// TestMemWaitOnEarlierJobsWrite: a job's bottom-of-pipe write releases a
// later job's wait (an event set on the GPU timeline); the waiter starts
// after the setter's end of pipe.
func TestMemWaitOnEarlierJobsWrite(t *testing.T) {
	d := newHWDevice(t, 5*time.Second)
	f := mustOpen(t, d)
	sync := mustBO(t, f, 4096)
	sm := MmapBOArgs{Handle: sync}
	if err := f.MmapBO(&sm); err != nil {
		t.Fatal(err)
	}
	setter, _ := hwJob(t, f, 64, 64, redFS, fullScreen, 8)
	setter.BOs = append(setter.BOs, BORef{Handle: sync, Flags: BOWrite})
	si := uint32(len(setter.BOs) - 1)
	setter.Writes = []MemWrite{
		{BOIndex: si, Offset: 8, Kind: MemWriteTimestamp, Stage: StageBottomOfPipe},
		{BOIndex: si, Offset: 0, Value: 7, Stage: StageBottomOfPipe},
	}
	waiter, _ := hwJob(t, f, 64, 64, redFS, fullScreen, 1)
	waiter.BOs = append(waiter.BOs, BORef{Handle: sync, Flags: BORead | BOWrite})
	wi := uint32(len(waiter.BOs) - 1)
	waiter.Waits = []MemWait{{BOIndex: wi, Offset: 0, Reference: 7}}
	waiter.Writes = []MemWrite{{BOIndex: wi, Offset: 16, Kind: MemWriteTimestamp, Stage: StageTopOfPipe}}
	for _, a := range []*SubmitCLArgs{setter, waiter} {
		if err := f.SubmitCL(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := wait(t, f, waiter.OutFence); err != nil {
		t.Fatal(err)
	}
	set, started := binary.LittleEndian.Uint64(sm.Mapping[8:]), binary.LittleEndian.Uint64(sm.Mapping[16:])
	if set == 0 || started < set {
		t.Errorf("waiter started at %d, setter's end of pipe at %d", started, set)
	}
}

// TestMemWaitNeverSetIsItsContextsHang: a wait nothing satisfies fails
// its job after JobTimeout with a message naming the word, makes the
// context guilty (default policy), and never holds up another context.
func TestMemWaitNeverSetIsItsContextsHang(t *testing.T) {
	// Long enough that a legitimate job on a loaded machine is not taken
	// for a hang; the test waits for it once.
	const timeout = time.Second
	d := newHWDevice(t, timeout)
	stuck, other := mustOpen(t, d), mustOpen(t, d)
	a, _ := hwJob(t, stuck, 64, 64, redFS, fullScreen, 1)
	i, _ := addSyncBO(t, stuck, a)
	a.Waits = []MemWait{{BOIndex: i, Offset: 12, Reference: 1}}
	start := time.Now()
	if err := stuck.SubmitCL(a); err != nil {
		t.Fatal(err)
	}
	// The other context's job, submitted after, finishes long before.
	b, _ := hwJob(t, other, 64, 64, redFS, fullScreen, 1)
	if err := other.SubmitCL(b); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, other, b.OutFence); err != nil {
		t.Fatalf("other context: %v", err)
	}
	err := wait(t, stuck, a.OutFence)
	if !errors.Is(err, EIO) || !strings.Contains(err.Error(), "waited longer than") || !strings.Contains(err.Error(), "to reach 1 (it holds 0)") {
		t.Fatalf("stuck job: %v, want EIO naming the wait", err)
	}
	if el := time.Since(start); el < timeout {
		t.Errorf("failed after %v, before JobTimeout %v", el, timeout)
	}
	c, _ := hwJob(t, stuck, 64, 64, redFS, fullScreen, 1)
	if err := stuck.SubmitCL(c); !errors.Is(err, EIO) {
		t.Errorf("submission after the hang: %v, want EIO (context guilty)", err)
	}
	rs := GetParamArgs{Param: ParamResetStatus}
	if err := stuck.GetParam(&rs); err != nil || ResetStatus(rs.Value) != ResetGuilty {
		t.Errorf("reset status %d, %v; want guilty", rs.Value, err)
	}
	if err := other.SubmitCL(b); err != nil {
		t.Fatalf("other context after: %v", err)
	}
	if err := wait(t, other, b.OutFence); err != nil {
		t.Fatalf("other context after: %v", err)
	}
}

// TestMemWaitStalledInTheRing: the word passes when the dispatcher looks
// but an earlier job of the same context un-sets it at its top of pipe
// before the command processor reaches the waiter's WAIT_MEM, so the ring
// stalls. The watchdog blames the waiter (not the oldest job, not
// another context), and another context's job stuck behind it in the ring
// is replayed.
func TestMemWaitStalledInTheRing(t *testing.T) {
	// Long enough that a legitimate job on a loaded machine is not taken
	// for a hang; the test waits for it once.
	const timeout = time.Second
	d, _ := dumpDevice(t, timeout)
	f, other := mustOpen(t, d), mustOpen(t, d)
	sync := mustBO(t, f, 4096)
	sm := MmapBOArgs{Handle: sync}
	if err := f.MmapBO(&sm); err != nil {
		t.Fatal(err)
	}
	storeSync32(sm.Mapping, 4, 1) // the word the waiter checks: set
	// first waits for word 0 (held back) and clears word 4 when it starts.
	first, _ := hwJob(t, f, 64, 64, redFS, fullScreen, 1)
	first.BOs = append(first.BOs, BORef{Handle: sync, Flags: BORead | BOWrite})
	fi := uint32(len(first.BOs) - 1)
	first.Waits = []MemWait{{BOIndex: fi, Offset: 0, Reference: 1}}
	first.Writes = []MemWrite{{BOIndex: fi, Offset: 4, Value: 0, Stage: StageTopOfPipe}}
	waiter, _ := hwJob(t, f, 64, 64, redFS, fullScreen, 1)
	waiter.BOs = append(waiter.BOs, BORef{Handle: sync, Flags: BORead})
	waiter.Waits = []MemWait{{BOIndex: uint32(len(waiter.BOs) - 1), Offset: 4, Reference: 1}}
	for _, a := range []*SubmitCLArgs{first, waiter} {
		if err := f.SubmitCL(a); err != nil {
			t.Fatal(err)
		}
	}
	// Both are in the context's queue; one dispatcher pass writes both to
	// the rings once word 0 is set (word 4 still passes then).
	d.mu.Lock()
	storeSync32(sm.Mapping, 0, 1)
	d.service()
	d.mu.Unlock()
	if err := wait(t, f, first.OutFence); err != nil {
		t.Fatalf("first job: %v", err)
	}
	b, _ := hwJob(t, other, 64, 64, redFS, fullScreen, 1)
	if err := other.SubmitCL(b); err != nil {
		t.Fatal(err)
	}
	err := wait(t, f, waiter.OutFence)
	if !errors.Is(err, EIO) || !strings.Contains(err.Error(), "on its own WAIT_MEM") {
		t.Fatalf("waiter: %v, want EIO naming its WAIT_MEM stall", err)
	}
	if err := wait(t, other, b.OutFence); err != nil {
		t.Fatalf("other context's job behind the stall: %v", err)
	}
	// The hang's crash dump starts each of the waiter's rings at its first
	// packet (its WAIT_MEM makes its BIN packets longer than a plain job's);
	// a graphics job has no packets on the COMPUTE and DMA rings.
	text, dp := decodedDump(t, d)
	for _, r := range dp.Rings {
		if r.Priority == 0 && (r.Engine == "BIN" || r.Engine == "RENDER") && !r.PacketAligned {
			t.Errorf("%s ring of the dump does not start at the blamed job's first packet", r.Engine)
		}
	}
	bin := text[strings.Index(text, "== ring BIN, priority 0"):]
	bin = bin[:strings.Index(bin, "=> RPTR")]
	if !strings.Contains(bin, "SET_CONTEXT") {
		t.Errorf("the dump's BIN ring does not start at the waiter's SET_CONTEXT:\n%s", bin)
	}
	wantAll(t, text, "on its own WAIT_MEM", "WAIT_MEM address=")
}

// TestMemWaitExpiryFollowsTheFaultPolicy: what an expired wait costs the
// rest of its context is what a hang costs under each policy. The
// context submits the waiting job (not end of frame), a frame-mate that
// ends the frame, and a job of the next frame.
func TestMemWaitExpiryFollowsTheFaultPolicy(t *testing.T) {
	// Long enough that a legitimate job on a loaded machine is not taken
	// for a hang; the test waits for it once.
	const timeout = time.Second
	for _, tc := range []struct {
		policy                FaultPolicy
		mateFails, nextFails  bool
		laterSubmissionFailed bool
	}{
		{FaultReplayInnocent, true, true, true},
		{FaultNoReplay, true, true, true},
		{FaultSkipIB, false, false, false},
		{FaultSkipFrame, true, false, false},
	} {
		t.Run(tc.policy.String(), func(t *testing.T) {
			g := hw.New(hw.Config{MemorySize: 64 << 20, Cores: 1})
			d := NewDevice(g, Options{JobTimeout: timeout, FaultPolicy: tc.policy})
			t.Cleanup(func() { d.Close(); g.Close() })
			f := mustOpen(t, d)
			stuck, _ := hwJob(t, f, 16, 16, redFS, fullScreen, 1)
			i, _ := addSyncBO(t, f, stuck)
			stuck.Waits = []MemWait{{BOIndex: i, Reference: 1}}
			mate, _ := hwJob(t, f, 16, 16, redFS, fullScreen, 1)
			mate.Flags = SubmitEndOfFrame
			next, _ := hwJob(t, f, 16, 16, redFS, fullScreen, 1)
			var subErr [3]error
			for k, a := range []*SubmitCLArgs{stuck, mate, next} {
				subErr[k] = f.SubmitCL(a)
			}
			if subErr[0] != nil || subErr[1] != nil || subErr[2] != nil {
				t.Fatalf("submissions: %v", subErr)
			}
			if err := wait(t, f, stuck.OutFence); !errors.Is(err, EIO) || !strings.Contains(err.Error(), "waited longer than") {
				t.Fatalf("stuck job: %v", err)
			}
			for _, c := range []struct {
				name  string
				fence uint64
				fails bool
			}{{"frame-mate", mate.OutFence, tc.mateFails}, {"next frame", next.OutFence, tc.nextFails}} {
				if err := wait(t, f, c.fence); (err != nil) != c.fails || (err != nil && !errors.Is(err, EIO)) {
					t.Errorf("%s: %v, want failure %v", c.name, err, c.fails)
				}
			}
			later, _ := hwJob(t, f, 16, 16, redFS, fullScreen, 1)
			err := f.SubmitCL(later)
			if err == nil {
				err = wait(t, f, later.OutFence)
			}
			if (err != nil) != tc.laterSubmissionFailed {
				t.Errorf("later submission: %v, want failure %v", err, tc.laterSubmissionFailed)
			}
		})
	}
}

// TestMemWaitIsNotWaitingForTheGPU: a context whose job waits for memory
// does not wait for the GPU, so it does not make the watchdog's hard cap
// cut another context's long, progressing job.
func TestMemWaitIsNotWaitingForTheGPU(t *testing.T) {
	g := newFakeGPU(64 << 20)
	d := newDevice(g, Options{JobTimeout: 5 * time.Second, hardCap: 300 * time.Millisecond})
	t.Cleanup(func() { d.Close(); g.Close() })
	long, parked := mustOpen(t, d), mustOpen(t, d)
	jp := newTestJob(t, parked, 64, 64)
	i, m := addSyncBO(t, parked, &jp.args)
	jp.args.Waits = []MemWait{{BOIndex: i, Reference: 1}}
	if err := parked.SubmitCL(&jp.args); err != nil {
		t.Fatal(err)
	}
	jl := newTestJob(t, long, 64, 64)
	jl.script(scriptSlow, 900) // progresses for three caps
	if err := long.SubmitCL(&jl.args); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, long, jl.args.OutFence); err != nil {
		t.Errorf("progressing job cut while the other context only waited for memory: %v", err)
	}
	storeSync32(m, 0, 1)
	if err := wait(t, parked, jp.args.OutFence); err != nil {
		t.Errorf("parked job after its word was set: %v", err)
	}
}
