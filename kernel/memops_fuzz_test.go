package kernel

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"
)

// encodeMemOps packs memory waits and writes as FuzzSubmitMemOps's byte
// form: 11 bytes each (bit 0 of the first: 1 wait, 0 write; BO index;
// kind | stage<<2; offset u32; value or reference u32).
func encodeMemOps(waits []MemWait, writes []MemWrite) []byte {
	var b []byte
	for _, w := range waits {
		b = append(b, 1, byte(w.BOIndex), 0)
		b = binary.LittleEndian.AppendUint32(b, w.Offset)
		b = binary.LittleEndian.AppendUint32(b, w.Reference)
	}
	for _, w := range writes {
		b = append(b, 0, byte(w.BOIndex), byte(w.Kind)|byte(w.Stage)<<2)
		b = binary.LittleEndian.AppendUint32(b, w.Offset)
		b = binary.LittleEndian.AppendUint32(b, w.Value)
	}
	return b
}

func decodeMemOps(b []byte) (waits []MemWait, writes []MemWrite) {
	for ; len(b) >= 11; b = b[11:] {
		off, val := binary.LittleEndian.Uint32(b[3:]), binary.LittleEndian.Uint32(b[7:])
		if b[0]&1 != 0 {
			waits = append(waits, MemWait{BOIndex: uint32(b[1]), Offset: off, Reference: val})
		} else {
			writes = append(writes, MemWrite{BOIndex: uint32(b[1]), Offset: off, Value: val, Kind: MemWriteKind(b[2] & 3), Stage: MemWriteStage(b[2] >> 2 & 3)})
		}
	}
	return waits, writes
}

// FuzzSubmitMemOps submits jobs with random memory waits and writes
// (SubmitCLArgs.Waits/Writes) to a real hw.GPU: a drawing job, or with
// flags bit 0 one whose shader faults, at the priority of bit 1, with
// the sync BO listed read-only when bit 2 is set. The harness lists a
// sync BO as index 3 (after the job's vertex, code and target BOs) and
// sets every word a wait on it names, so most jobs run; waits on other
// words may hold a job until JobTimeout fails it. Each submission must
// be rejected with an *Error, or finish (possibly with EIO); nothing may
// panic or hang, and another client's memory must stay untouched.
func FuzzSubmitMemOps(f *testing.F) {
	d := newHWDevice(f, 200*time.Millisecond)
	victim := mustOpen(f, d)
	vh := mustBO(f, victim, 8192)
	vm := MmapBOArgs{Handle: vh}
	if err := victim.MmapBO(&vm); err != nil {
		f.Fatal(err)
	}
	for i := range vm.Mapping {
		vm.Mapping[i] = byte(i*5 + 1)
	}
	pattern := bytes.Clone(vm.Mapping)

	f.Add(uint8(0), encodeMemOps([]MemWait{{BOIndex: 3, Offset: 0, Reference: 1}},
		[]MemWrite{{BOIndex: 3, Offset: 8, Kind: MemWriteTimestamp}, {BOIndex: 3, Offset: 16, Kind: MemWriteTimestamp, Stage: StageBottomOfPipe},
			{BOIndex: 3, Offset: 4, Value: 9, Stage: StageBottomOfPipe}, {BOIndex: 2, Offset: 0, Value: 5}}))
	f.Add(uint8(3), encodeMemOps([]MemWait{{BOIndex: 3, Offset: 4092, Reference: 0x80000000}, {BOIndex: 3, Offset: 4, Reference: 0}},
		[]MemWrite{{BOIndex: 3, Offset: 6}, {BOIndex: 3, Kind: 3, Stage: 2}}))
	f.Add(uint8(4), encodeMemOps(nil, []MemWrite{{BOIndex: 3, Offset: 0, Value: 1}}))
	f.Add(uint8(0), encodeMemOps(make([]MemWait, 17), nil))
	f.Fuzz(func(t *testing.T, flags uint8, memops []byte) {
		file, err := d.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		if err := file.SetPriority(&SetPriorityArgs{Priority: Priority(flags >> 1 & 1)}); err != nil {
			t.Fatal(err)
		}
		fs := redFS
		if flags&1 != 0 {
			fs = faultFS
		}
		a, _ := hwJob(t, file, 32, 32, fs, fullScreen, 1)
		sync := mustBO(t, file, 4096)
		sm := MmapBOArgs{Handle: sync}
		if err := file.MmapBO(&sm); err != nil {
			t.Fatal(err)
		}
		syncFlags := BORead | BOWrite
		if flags&4 != 0 {
			syncFlags = BORead
		}
		a.BOs = append(a.BOs, BORef{Handle: sync, Flags: syncFlags})
		a.Waits, a.Writes = decodeMemOps(memops[:min(len(memops), 11*40)])
		err = file.SubmitCL(a)
		if err != nil {
			var ke *Error
			if !errors.As(err, &ke) || ke.Msg == "" {
				t.Fatalf("rejection is not a *kernel.Error with a message: %v", err)
			}
		} else {
			for _, w := range a.Waits {
				if w.BOIndex == 3 {
					storeSync32(sm.Mapping, w.Offset, w.Reference)
				}
			}
			if err := file.Wait(&WaitArgs{Fence: a.OutFence, Timeout: 20 * time.Second}); errors.Is(err, ETIMEDOUT) {
				t.Fatalf("accepted job never finished: %v", err)
			}
		}
		if !bytes.Equal(vm.Mapping, pattern) {
			t.Fatal("another client's BO was modified")
		}
	})
}
