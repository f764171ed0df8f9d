package kernel

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw"
)

func TestHWDMAJob(t *testing.T) {
	var infos []JobInfo
	g := hw.New(hw.Config{MemorySize: 64 << 20, Cores: 2})
	d := NewDevice(g, Options{JobTimeout: 5 * time.Second, OnRetire: func(i *JobInfo) { infos = append(infos, *i) }})
	t.Cleanup(func() { d.Close(); g.Close() })
	f := mustOpen(t, d)
	src, dst := mustBO(t, f, 3*4096), mustBO(t, f, 3*4096)
	sm, dm := mapBO(t, f, src), mapBO(t, f, dst)
	for i := range sm {
		sm[i] = byte(i*5 + i>>9)
	}
	a := SubmitDMAArgs{
		BOs: []BORef{{Handle: src, Flags: BORead}, {Handle: dst, Flags: BOWrite}},
		Commands: []DMACommand{
			{Src: BOAddress{0, 8}, Dst: BOAddress{1, 4096 + 12}, RowBytes: 6000, Rows: 1},
			{Fill: true, Dst: BOAddress{1, 0}, DstPitch: 16, RowBytes: 8, Rows: 100, Value: 0xDEADBEEF},
		},
	}
	if err := f.SubmitDMA(&a); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, f, a.OutFence); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6000; i++ {
		if dm[4096+12+i] != sm[8+i] {
			t.Fatalf("copy byte %d = %d, want %d", i, dm[4096+12+i], sm[8+i])
		}
	}
	for r := 0; r < 100; r++ {
		if binary.LittleEndian.Uint32(dm[16*r:]) != 0xDEADBEEF || binary.LittleEndian.Uint32(dm[16*r+4:]) != 0xDEADBEEF || binary.LittleEndian.Uint32(dm[16*r+8:]) != 0 {
			t.Fatalf("fill row %d: % x", r, dm[16*r:16*r+16])
		}
	}
	d.mu.Lock()
	info := infos[len(infos)-1]
	d.mu.Unlock()
	if info.Times.DMAStart == 0 || info.Times.DMAEnd < info.Times.DMAStart || info.Counters[hw.CtrDMABytesWritten] != 6000+800 || info.Counters[hw.CtrDMACommands] != 2 {
		t.Errorf("DMA job info: times %+v, dma.commands %d, dma.bytes_written %d", info.Times, info.Counters[hw.CtrDMACommands], info.Counters[hw.CtrDMABytesWritten])
	}
}

// A DMA job of a context finishes while the context's earlier compute
// job (on another engine, sharing no memory) is still running: the
// engines run concurrently and each signals its own fences.
func TestHWEnginesCompleteIndependently(t *testing.T) {
	d := newHWDevice(t, 10*time.Second)
	f := mustOpen(t, d)
	// The compute job spins until the CPU sets a flag.
	j := newComputeJob(t, f, `
		or r0, a.unif, a.unif
	loop:
		or tmu_addr, r0, r0
		nop ; nop ; ldtmu
		or.setf nop, r4, r4
		brr.allzs loop
		nop ; nop ; end
	`, 1)
	flag := mustBO(t, f, 4096)
	flagMap := mapBO(t, f, flag)
	j.args.BOs = append(j.args.BOs, BORef{Handle: flag, Flags: BORead})
	j.args.Relocs[0].BOIndex = 3
	if err := f.SubmitCompute(&j.args); err != nil {
		t.Fatal(err)
	}
	src, dst := mustBO(t, f, 4096), mustBO(t, f, 4096)
	copy(mapBO(t, f, src), "concurrent")
	a := SubmitDMAArgs{BOs: []BORef{{Handle: src, Flags: BORead}, {Handle: dst, Flags: BOWrite}},
		Commands: []DMACommand{{Src: BOAddress{0, 0}, Dst: BOAddress{1, 0}, RowBytes: 12, Rows: 1}}}
	if err := f.SubmitDMA(&a); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, f, a.OutFence); err != nil {
		t.Fatalf("DMA job behind a running compute job: %v", err)
	}
	if got := string(mapBO(t, f, dst)[:10]); got != "concurrent" {
		t.Errorf("DMA copied %q", got)
	}
	if err := f.Wait(&WaitArgs{Fence: j.args.OutFence}); !errors.Is(err, ETIMEDOUT) {
		t.Fatalf("the compute job finished before its flag was set: %v", err)
	}
	binary.LittleEndian.PutUint32(flagMap, 1)
	if err := wait(t, f, j.args.OutFence); err != nil {
		t.Fatal(err)
	}
}

func TestSubmitDMARejections(t *testing.T) {
	d := newHWDevice(t, 5*time.Second)
	f := mustOpen(t, d)
	src, dst := mustBO(t, f, 4096), mustBO(t, f, 4096)
	valid := func() SubmitDMAArgs {
		return SubmitDMAArgs{BOs: []BORef{{Handle: src, Flags: BORead}, {Handle: dst, Flags: BOWrite}},
			Commands: []DMACommand{{Src: BOAddress{0, 0}, Dst: BOAddress{1, 0}, SrcPitch: 64, DstPitch: 64, RowBytes: 64, Rows: 4}}}
	}
	tests := []struct {
		name   string
		mutate func(a *SubmitDMAArgs)
		errno  Errno
		want   string
	}{
		{"no commands", func(a *SubmitDMAArgs) { a.Commands = nil }, EINVAL, "0 commands"},
		{"no rows", func(a *SubmitDMAArgs) { a.Commands[0].Rows = 0 }, EINVAL, "0 rows"},
		{"too many bytes", func(a *SubmitDMAArgs) { a.Commands[0].RowBytes, a.Commands[0].Rows = 1<<20, 1<<10 }, EINVAL, "at most"},
		{"odd row bytes", func(a *SubmitDMAArgs) { a.Commands[0].RowBytes = 6 }, EINVAL, "multiples of 4"},
		{"odd pitch", func(a *SubmitDMAArgs) { a.Commands[0].DstPitch = 66 }, EINVAL, "multiples of 4"},
		{"unaligned offset", func(a *SubmitDMAArgs) { a.Commands[0].Dst.Offset = 2 }, EINVAL, "destination offset 0x2"},
		{"past the destination", func(a *SubmitDMAArgs) { a.Commands[0].DstPitch = 2048 }, EFAULT, "destination rows end at 0x1840"},
		{"past the source", func(a *SubmitDMAArgs) { a.Commands[0].Src.Offset = 4092 }, EFAULT, "source rows end"},
		{"read-only destination", func(a *SubmitDMAArgs) { a.Commands[0].Dst.BOIndex = 0 }, EINVAL, "destination BO 0 is not listed with BOWrite"},
		{"unknown BO index", func(a *SubmitDMAArgs) { a.Commands[0].Src.BOIndex = 5 }, EINVAL, "source BO index 5"},
		{"unknown handle", func(a *SubmitDMAArgs) { a.BOs[0].Handle = 77 }, ENOENT, "no BO with handle 77"},
		{"unknown perf monitor", func(a *SubmitDMAArgs) { a.PerfMon = 3 }, ENOENT, "no perf monitor 3"},
	}
	for _, tt := range tests {
		a := valid()
		tt.mutate(&a)
		err := f.SubmitDMA(&a)
		var ke *Error
		if !errors.As(err, &ke) || ke.Errno != tt.errno || !strings.Contains(ke.Msg, tt.want) {
			t.Errorf("%s: %v, want %v containing %q", tt.name, err, tt.errno, tt.want)
		}
	}
	a := valid()
	if err := f.SubmitDMA(&a); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, f, a.OutFence); err != nil {
		t.Fatal(err)
	}
}

// FuzzSubmitDMA drives SubmitDMA with commands from the fuzzer: each call
// succeeds or fails with a *Error, an accepted job's fence signals, and a
// destination outside the listed BOs is never written.
func FuzzSubmitDMA(f *testing.F) {
	d := newHWDevice(f, 200*time.Millisecond)
	f.Add([]byte{0, 0, 0, 1, 0, 64, 64, 16, 4})
	f.Add([]byte{1, 1, 1, 1, 4, 4, 8, 8, 255, 255})
	f.Fuzz(func(t *testing.T, data []byte) {
		fl := mustOpen(t, d)
		defer fl.Close()
		src, dst, other := mustBO(t, fl, 8192), mustBO(t, fl, 8192), mustBO(t, fl, 4096)
		otherMap := mapBO(t, fl, other)
		b := func(i int) uint32 {
			if i < len(data) {
				return uint32(data[i])
			}
			return 0
		}
		a := SubmitDMAArgs{BOs: []BORef{{Handle: src, Flags: BORead | b(0)&BOWrite}, {Handle: dst, Flags: BOWrite | b(1)&BORead}}}
		for k := 0; k < 1+int(b(2)%3); k++ {
			o := 3 + 7*k
			a.Commands = append(a.Commands, DMACommand{
				Fill: b(o)&1 != 0, Src: BOAddress{b(o+1) % 3, b(o+2) * 4}, Dst: BOAddress{b(o+3) % 3, b(o+4) * 12},
				SrcPitch: b(o+5) * 4, DstPitch: b(o+6) * 4, RowBytes: b(o+2)*4 + b(o+5), Rows: b(o+6) % 9, Value: b(o),
			})
		}
		err := fl.SubmitDMA(&a)
		var ke *Error
		if err != nil {
			if !errors.As(err, &ke) {
				t.Fatalf("error %v (%T) is not a *kernel.Error", err, err)
			}
			return
		}
		if err := fl.Wait(&WaitArgs{Fence: a.OutFence, Timeout: 30 * time.Second}); err != nil {
			t.Fatalf("an accepted DMA job failed: %v", err)
		}
		for i, v := range otherMap {
			if v != 0 {
				t.Fatalf("byte %d of a BO not in the job was written", i)
			}
		}
	})
}
