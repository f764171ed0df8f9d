package kernel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// encodeRelocs packs relocations as the fuzzers' byte form: 11 bytes each
// (space, target, BO index, offset u32, delta u32).
func encodeRelocs(rs []Reloc) []byte {
	var b []byte
	for _, r := range rs {
		b = append(b, byte(r.Space), byte(r.Target), byte(r.BOIndex))
		b = binary.LittleEndian.AppendUint32(b, r.Offset)
		b = binary.LittleEndian.AppendUint32(b, r.Delta)
	}
	return b
}

func decodeRelocs(b []byte) []Reloc {
	var rs []Reloc
	for ; len(b) >= 11; b = b[11:] {
		rs = append(rs, Reloc{Space: RelocSpace(b[0]), Target: RelocTarget(b[1]), BOIndex: uint32(b[2]),
			Offset: binary.LittleEndian.Uint32(b[3:]), Delta: binary.LittleEndian.Uint32(b[7:])})
	}
	return rs
}

// FuzzSubmitCL submits random bin CLs, shader records and relocations, at a
// random context priority, to a real hw.GPU, starting from a valid job that draws a triangle. Each must
// be rejected with an *Error or run to completion (possibly failing with
// EIO); neither may panic, hang, or touch another client's memory.
func FuzzSubmitCL(f *testing.F) {
	d := newHWDevice(f, 200*time.Millisecond)
	victim := mustOpen(f, d)
	vh := mustBO(f, victim, 8192)
	vm := MmapBOArgs{Handle: vh}
	if err := victim.MmapBO(&vm); err != nil {
		f.Fatal(err)
	}
	for i := range vm.Mapping {
		vm.Mapping[i] = byte(i*7 + 3)
	}
	pattern := bytes.Clone(vm.Mapping)

	seedFile := mustOpen(f, d)
	a, _ := hwJob(f, seedFile, 64, 64, redFS, fullScreen, 1)
	f.Add(a.BinCL, a.ShaderRecords, encodeRelocs(a.Relocs), uint8(64), uint8(64), uint8(0), uint8(0))
	f.Add(a.BinCL, a.ShaderRecords, encodeRelocs(a.Relocs), uint8(64), uint8(64), uint8(0), uint8(1))
	f.Add(a.BinCL[:20], a.ShaderRecords, encodeRelocs(a.Relocs[:3]), uint8(1), uint8(200), uint8(1), uint8(7))
	a, _ = hwJob(f, seedFile, 64, 64, faultFS, fullScreen, 2)
	f.Add(a.BinCL, a.ShaderRecords, encodeRelocs(a.Relocs), uint8(33), uint8(65), uint8(0x12), uint8(1))
	a, _ = hwJob(f, seedFile, 64, 64, redFS, fullScreen, 1)
	f.Add(a.BinCL, a.ShaderRecords, encodeRelocs(a.Relocs), uint8(64), uint8(64), uint8(1), uint8(0x10)) // RGB565, loaded
	f.Add(a.BinCL, a.ShaderRecords, encodeRelocs(a.Relocs), uint8(64), uint8(64), uint8(0), uint8(0x31)) // RGBA5551
	f.Add(a.BinCL, a.ShaderRecords, encodeRelocs(a.Relocs), uint8(64), uint8(64), uint8(0), uint8(0x90)) // no such format
	// An occlusion counter in the colour target's BO (writable), before FLUSH.
	a, _ = hwJob(f, seedFile, 64, 64, redFS, fullScreen, 1)
	at := len(a.BinCL) - 1
	var counter [5]byte
	counter[0] = 110 // OCCLUSION_QUERY_COUNTER
	counterBin := append(append(bytes.Clone(a.BinCL[:at]), counter[:]...), a.BinCL[at:]...)
	counterRelocs := append(a.Relocs, Reloc{Space: SpaceBinCL, Offset: uint32(at + 1), Target: TargetBO, BOIndex: a.Color.BOIndex, Delta: 16})
	f.Add(counterBin, a.ShaderRecords, encodeRelocs(counterRelocs), uint8(64), uint8(64), uint8(0), uint8(0))
	seedFile.Close()

	f.Fuzz(func(t *testing.T, bin, sr, relocs []byte, w, h, flags, prio uint8) {
		file, err := d.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		// The low four bits of prio are the context priority, the high
		// four the colour target's format (hardware.md §4.4.1; 5..15 are
		// no format and must be refused).
		format := cl.ColorFormat(prio >> 4)
		prio &= 15
		// Priorities 0 and 1 exist; anything else must be refused and
		// leave the context as it was.
		if err := file.SetPriority(&SetPriorityArgs{Priority: Priority(prio)}); (err == nil) != (prio < numPriorities) {
			t.Fatalf("SetPriority(%d): %v", prio, err)
		} else if err != nil && !errors.Is(err, EINVAL) {
			t.Fatalf("SetPriority(%d): %v, want EINVAL", prio, err)
		}
		a, _ := hwJob(t, file, 64, 64, redFS, fullScreen, 1)
		a.BinCL, a.ShaderRecords = bin, sr
		a.Relocs = decodeRelocs(relocs)
		a.Width, a.Height = uint32(w), uint32(h)
		a.Color.Load = flags&1 != 0
		a.Color.Format = format
		a.ZS = RenderTarget{Enabled: flags&2 != 0, BOIndex: uint32(flags >> 4), Stride: 256, Store: true}
		a.Flags = uint32(flags>>2)&3 | uint32(flags>>7)<<2 // SubmitEndOfFrame, SubmitExactCounts, and an unknown bit (EINVAL)
		err = file.SubmitCL(a)
		if err != nil {
			var ke *Error
			if !errors.As(err, &ke) || ke.Msg == "" {
				t.Fatalf("rejection is not a *kernel.Error with a message: %v", err)
			}
		} else if err := file.Wait(&WaitArgs{Fence: a.OutFence, Timeout: 20 * time.Second}); errors.Is(err, ETIMEDOUT) {
			t.Fatalf("accepted job never finished: %v", err)
		}
		if !bytes.Equal(vm.Mapping, pattern) {
			t.Fatal("another client's BO was modified")
		}
	})
}

// FuzzCreateBO runs random sequences of CreateBO / MmapBO / CloseBO and
// checks that handles stay unique, mappings have the BO's size and all
// memory comes back when the file closes.
func FuzzCreateBO(f *testing.F) {
	// A 2 MiB quota bounds what one exec can allocate, and so zero: with
	// the default (26 MiB here) inputs holding a few large BOs cost
	// milliseconds each, and the fuzzer's minimisation of such inputs
	// kept whole runs under 1,000 execs/s.
	g := newFakeGPU(64 << 20)
	d := newDevice(g, Options{JobTimeout: time.Second, MemoryQuota: 2 << 20})
	f.Cleanup(func() { d.Close(); g.Close() })
	f.Add([]byte{0, 1, 0, 0, 2, 0, 1, 0, 0, 0})
	f.Add([]byte{0, 0xff, 0xff, 0xff, 0xff, 1, 0, 2, 3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		d.mu.Lock()
		used := d.phys.used
		d.mu.Unlock()
		file, err := d.Open()
		if err != nil {
			t.Fatal(err)
		}
		live := map[uint32]uint32{}
		// At most 64 operations: a long input costs milliseconds per run,
		// and the fuzzer's minimisation of one (thousands of runs) stalled
		// the campaign for its full minute.
		ops = ops[:min(len(ops), 64*5)]
		for len(ops) >= 5 {
			op, arg := ops[0]%3, binary.LittleEndian.Uint32(ops[1:])
			ops = ops[5:]
			switch op {
			case 0:
				// Odd arguments ask for any size (most fail at once: over
				// the BO limit or the quota), even ones for up to 256 KiB.
				// Every successful CreateBO zeroes the BO; sizes up to
				// 8 MiB made zeroing most of the run time (1,200 execs/s).
				size := arg
				if arg&1 == 0 {
					size = arg % (256 << 10)
				}
				a := CreateBOArgs{Size: size}
				if err := file.CreateBO(&a); err != nil {
					var ke *Error
					if !errors.As(err, &ke) || (ke.Errno != EINVAL && ke.Errno != ENOMEM) {
						t.Fatalf("CreateBO(%d): %v", a.Size, err)
					}
					continue
				}
				if _, dup := live[a.Handle]; dup {
					t.Fatalf("handle %d handed out twice", a.Handle)
				}
				live[a.Handle] = (a.Size + 4095) &^ 4095
			case 1:
				m := MmapBOArgs{Handle: arg % 8}
				err := file.MmapBO(&m)
				if size, ok := live[m.Handle]; ok != (err == nil) || (ok && uint32(len(m.Mapping)) != size) {
					t.Fatalf("MmapBO(%d) = %d bytes, %v; live size %d", m.Handle, len(m.Mapping), err, size)
				}
			case 2:
				h := arg % 8
				err := file.CloseBO(&CloseBOArgs{Handle: h})
				if _, ok := live[h]; ok != (err == nil) {
					t.Fatalf("CloseBO(%d): %v", h, err)
				}
				delete(live, h)
			}
		}
		file.Close()
		d.mu.Lock()
		after := d.phys.used
		d.mu.Unlock()
		if after != used {
			t.Fatalf("physical pages leaked: %d before, %d after", used, after)
		}
	})
}
