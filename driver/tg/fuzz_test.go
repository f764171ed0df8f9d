package tg

import (
	"testing"

	"github.com/tilegpu/tilegpu/pipe"
)

// FuzzDraw feeds arbitrary draw descriptions, vertex layouts and clears to
// the driver: each must either be emitted or be refused with an error,
// never panic, and a refused draw must leave the job's control list
// unchanged (the kernel would reject the whole job otherwise).
func FuzzDraw(f *testing.F) {
	f.Add(uint8(4), int32(0), int32(3), uint8(0), int32(0), int32(0), uint8(2), uint8(8), uint32(0), uint8(0))
	f.Add(uint8(5), int32(1), int32(4), uint8(2), int32(2), int32(-1), uint8(4), uint8(0), uint32(4), uint8(7))
	f.Add(uint8(9), int32(-3), int32(1<<30), uint8(4), int32(1), int32(1), uint8(0), uint8(255), uint32(99), uint8(3))
	f.Fuzz(func(t *testing.T, mode uint8, start, count int32, indexSize uint8, indexOffset, baseVertex int32,
		comps, stride uint8, offset uint32, clearBits uint8) {
		r := newRig(t, "fs")
		ib, err := r.s.newResource(pipe.ResourceTemplate{Target: pipe.TargetBuffer, Width: 16})
		if err != nil {
			t.Fatal(err)
		}
		copy(ib.bo.Map, []byte{0, 1, 2, 0, 1, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0})
		r.c.SetVertexBuffers([]pipe.VertexBuffer{{Resource: r.vb, Stride: uint32(stride), Offset: offset}})
		r.c.BindVertexElementsState(r.c.CreateVertexElementsState([]pipe.VertexElement{{Type: pipe.VertexType(comps % 8), Components: int(comps % 6)}}))
		if clearBits&7 != 0 {
			_ = r.c.Clear(pipe.ClearMask(clearBits&7), [4]float32{1, 1, 1, 1}, 1, clearBits)
		}
		info := &pipe.DrawInfo{Mode: pipe.PrimitiveMode(mode), Start: int(start), Count: int(count), BaseVertex: int(baseVertex)}
		if indexSize != 0 {
			info.IndexSize, info.IndexBuffer, info.IndexOffset = int(indexSize), ib, int(indexOffset)
		}
		j, err := r.c.currentJob()
		if err != nil {
			t.Fatal(err)
		}
		before := len(j.bcl)
		if err := r.c.Draw(info); err != nil && len(j.bcl) != before {
			t.Fatalf("refused draw (%v) emitted %d bytes", err, len(j.bcl)-before)
		}
		if _, err := r.c.Flush(); err != nil {
			t.Fatal(err)
		}
	})
}
