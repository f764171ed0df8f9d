package kernel

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"
)

// FuzzIoctls drives every ioctl-shaped File entry point — GetParam,
// CreateBO, MmapBO, CloseBO, Wait, WaitBO, SetPriority, SubmitDMA and
// Close — with a program of random calls and arguments from two clients
// on one device. Each call must succeed or fail with a *Error; none may
// panic or hang, a mapping must have the size asked for, and one client's
// handles never reach the other's buffers: a client's DMA fills write only
// its own marker word, and no mapping ever holds the other's.
func FuzzIoctls(f *testing.F) {
	d := newHWDevice(f, 200*time.Millisecond)
	f.Add([]byte{1, 0, 16, 0, 0, 2, 1, 0, 0, 0, 3, 1, 0, 0, 0, 4, 0, 5, 0, 0, 0, 0})
	f.Add([]byte{0, 7, 1, 0, 255, 255, 255, 255, 2, 0, 9, 0, 0, 0, 3, 0, 1, 0, 0, 0, 6, 0})
	f.Add([]byte{5, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 4, 1, 255, 255, 255, 255, 255, 255, 255, 255})
	f.Add([]byte{7, 0, 1, 0, 0, 0, 7, 1, 2, 0, 0, 0, 6, 1})
	// Both clients create a BO and DMA-fill their handle 1.
	f.Add([]byte{1, 0, 0, 16, 0, 0, 0, 0, 0, 0, 1, 1, 0, 16, 0, 0, 0, 0, 0, 0, 8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 8, 1, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0})
	f.Fuzz(func(t *testing.T, prog []byte) {
		files := [2]*File{mustOpen(t, d), mustOpen(t, d)}
		defer func() {
			for _, fl := range files {
				if fl != nil {
					fl.Close()
				}
			}
		}()
		sizes := [2]map[uint32]int{{}, {}}
		u32 := func() uint32 {
			if len(prog) < 4 {
				prog = nil
				return 0
			}
			v := binary.LittleEndian.Uint32(prog)
			prog = prog[4:]
			return v
		}
		check := func(call string, err error) {
			var ke *Error
			if err != nil && !errors.As(err, &ke) {
				t.Fatalf("%s: error %v (%T) is not a *kernel.Error", call, err, err)
			}
		}
		markers := [2]uint32{0xA5A5A5A5, 0x5A5A5A5A}
		checkMarkers := func() {
			for who, fl := range files {
				if fl == nil {
					continue
				}
				for h := range sizes[who] {
					m := MmapBOArgs{Handle: h}
					if fl.MmapBO(&m) != nil {
						continue
					}
					for i := 0; i+4 <= len(m.Mapping); i += 4 {
						if binary.LittleEndian.Uint32(m.Mapping[i:]) == markers[1-who] {
							t.Fatalf("client %d's BO %d holds client %d's DMA marker at %d", who, h, 1-who, i)
						}
					}
				}
			}
		}
		defer checkMarkers()
		for steps := 0; len(prog) >= 2 && steps < 64; steps++ {
			op, who := prog[0]%9, int(prog[1]%2)
			prog = prog[2:]
			fl := files[who]
			if fl == nil {
				continue
			}
			switch op {
			case 0:
				a := GetParamArgs{Param: Param(u32() % 16)}
				check("GetParam", fl.GetParam(&a))
			case 1:
				// Sizes up to 1 MiB keep the device's memory from filling.
				a := CreateBOArgs{Size: u32() % (1 << 20), Flags: uint32(u32() % 3)}
				err := fl.CreateBO(&a)
				check("CreateBO", err)
				if err == nil {
					sizes[who][a.Handle] = int(a.Size)
				}
			case 2:
				a := MmapBOArgs{Handle: u32() % 8}
				err := fl.MmapBO(&a)
				check("MmapBO", err)
				if want, mine := sizes[who][a.Handle]; err == nil {
					if !mine {
						t.Fatalf("client %d mapped handle %d it never created", who, a.Handle)
					}
					if len(a.Mapping) < want || len(a.Mapping)%4096 != 0 {
						t.Fatalf("mapping of %d bytes for a %d-byte BO", len(a.Mapping), want)
					}
				}
			case 3:
				a := CloseBOArgs{Handle: u32() % 8}
				err := fl.CloseBO(&a)
				check("CloseBO", err)
				if err == nil {
					delete(sizes[who], a.Handle)
				}
			case 4:
				check("Wait", fl.Wait(&WaitArgs{Fence: uint64(u32()), Timeout: time.Duration(u32()%3) * time.Millisecond}))
			case 5:
				check("WaitBO", fl.WaitBO(&WaitBOArgs{Handle: u32() % 8, Timeout: time.Duration(u32()%3) * time.Millisecond}))
			case 7:
				p := Priority(u32() % 4)
				err := fl.SetPriority(&SetPriorityArgs{Priority: p})
				check("SetPriority", err)
				if (err == nil) != (p < numPriorities) {
					t.Fatalf("SetPriority(%d): %v", p, err)
				}
			case 8:
				// A DMA fill of a client's handle with its marker, then
				// wait: it lands in that client's BO or is refused.
				h, off, n := u32()%8, u32()%(1<<16)*4, 4+u32()%1024*4
				a := SubmitDMAArgs{BOs: []BORef{{Handle: h, Flags: BOWrite}},
					Commands: []DMACommand{{Fill: true, Dst: BOAddress{0, off}, RowBytes: n, Rows: 1, Value: markers[who]}}}
				err := fl.SubmitDMA(&a)
				check("SubmitDMA", err)
				if err == nil {
					if _, mine := sizes[who][h]; !mine {
						t.Fatalf("client %d's DMA job on handle %d it never created was accepted", who, h)
					}
					check("Wait", fl.Wait(&WaitArgs{Fence: a.OutFence, Timeout: 10 * time.Second}))
				}
			case 6:
				fl.Close()
				files[who] = nil
				// Every call on a closed file fails cleanly.
				check("GetParam after Close", fl.GetParam(&GetParamArgs{Param: ParamNumCores}))
				check("CreateBO after Close", fl.CreateBO(&CreateBOArgs{Size: 4096}))
				if err := fl.SetPriority(&SetPriorityArgs{Priority: PriorityHigh}); !errors.Is(err, EINVAL) {
					t.Fatalf("SetPriority after Close: %v", err)
				}
			}
		}
	})
}
