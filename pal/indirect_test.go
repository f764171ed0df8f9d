package pal

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// halves fills r's vertex buffer with two quads: vertices 0..5 cover the
// left half of the target, 6..11 the right half.
func halves(r *rig) {
	copy(r.vbuf.bytes, floats(
		-1, -1, 0, -1, -1, 1, -1, 1, 0, -1, 0, 1,
		0, -1, 1, -1, 0, 1, 0, 1, 1, -1, 1, 1))
}

func putArgs(b []byte, count, instances, first uint32) {
	binary.LittleEndian.PutUint32(b[0:], count)
	binary.LittleEndian.PutUint32(b[4:], instances)
	binary.LittleEndian.PutUint32(b[8:], first)
	binary.LittleEndian.PutUint32(b[12:], 0)
}

// recordIndirect records clear + an indirect draw of the rig's pipeline
// with vertex buffer view vbSize bytes, arguments at args+off.
func (r *rig) recordIndirect(t *testing.T, args *GpuMemory, off uint64, vbSize uint64) *CmdBuffer {
	t.Helper()
	slot, _, _ := r.pipe.UserDataSlot("u_color")
	cb, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	for i, err := range []error{cb.Begin(), cb.CmdBindTargets(r.target, nil), cb.CmdClearColorTarget([4]float32{0, 0, 1, 1}),
		cb.CmdBindPipeline(r.pipe), cb.CmdSetVertexBuffers(0, []VertexBufferView{{Memory: r.vbuf, Stride: 8, Size: vbSize}}),
		cb.CmdSetUserData(slot, colorWords([4]float32{1, 0, 0, 1})), cb.CmdDrawIndirect(args, off), cb.End()} {
		if err != nil {
			t.Fatalf("command %d: %v", i, err)
		}
	}
	return cb
}

// CmdDrawIndirect takes its counts from memory when the GPU reaches the
// draw: written after recording, they decide what is drawn; vertices past
// the vertex buffer view drop their primitives; an instance count beyond
// the limit fails the job's fence.
func TestDrawIndirect(t *testing.T) {
	r := newRig(t, 64, 32)
	halves(r)
	args, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.dev.AddGpuMemoryReferences(args); err != nil {
		t.Fatal(err)
	}
	red, blue := [4]byte{255, 0, 0, 255}, [4]byte{0, 0, 255, 255}
	tests := []struct {
		name                    string
		count, instances, first uint32
		vbVertices              uint64
		left, right             [4]byte
		fails                   bool
	}{
		{"right half", 6, 1, 6, 12, blue, red, false},
		{"left half, twice", 6, 2, 0, 12, red, blue, false},
		{"past the buffer view: its triangle dropped", 9, 1, 6, 12, blue, red, false},
		{"all past the view", 6, 1, 12, 12, blue, blue, false},
		{"no instances", 6, 0, 0, 12, blue, blue, false},
		{"too many instances", 6, MaxIndirectInstances + 1, 0, 12, blue, blue, true},
	}
	for i, tc := range tests {
		off := uint64(64 * i)
		putArgs(args.bytes[off:], 0, 0, 0) // recorded with empty arguments
		cb := r.recordIndirect(t, args, off, tc.vbVertices*8)
		putArgs(args.bytes[off:], tc.count, tc.instances, tc.first)
		f := r.dev.CreateFence()
		if err := r.queue.Submit(SubmitInfo{CmdBuffers: []*CmdBuffer{cb}, Fence: f}); err != nil {
			t.Fatal(err)
		}
		err := f.Wait(time.Minute)
		if tc.fails {
			if err == nil {
				t.Errorf("%s: the fence signalled success", tc.name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if l, rr := r.pixel(16, 16), r.pixel(48, 16); l != tc.left || rr != tc.right {
			t.Errorf("%s: left %v right %v, want %v %v", tc.name, l, rr, tc.left, tc.right)
		}
	}
	cb, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	if err := cb.Begin(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mem  *GpuMemory
		off  uint64
		want error
	}{{nil, 0, ErrWrongDevice}, {args, 2, ErrInvalidArgument}, {args, 4096 - 8, ErrInvalidArgument}} {
		if err := cb.CmdDrawIndirect(tc.mem, tc.off); !errors.Is(err, tc.want) {
			t.Errorf("CmdDrawIndirect(%v, %d): %v, want %v", tc.mem != nil, tc.off, err, tc.want)
		}
	}
}

// A non-indexed draw after an indexed draw with a vertexOffset starts at
// the buffers' vertex 0 again.
func TestDrawAfterIndexedDrawWithVertexOffset(t *testing.T) {
	r := newRig(t, 64, 32)
	halves(r)
	ibuf, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: 4096})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		binary.LittleEndian.PutUint16(ibuf.bytes[2*i:], uint16(i))
	}
	if err := r.dev.AddGpuMemoryReferences(ibuf); err != nil {
		t.Fatal(err)
	}
	slot, _, _ := r.pipe.UserDataSlot("u_color")
	cb, _ := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	for i, err := range []error{cb.Begin(), cb.CmdBindTargets(r.target, nil), cb.CmdClearColorTarget([4]float32{0, 0, 1, 1}),
		cb.CmdBindPipeline(r.pipe), cb.CmdSetVertexBuffers(0, []VertexBufferView{{Memory: r.vbuf, Stride: 8}}),
		cb.CmdBindIndexData(ibuf, 0, cl.IndexU16),
		cb.CmdSetUserData(slot, colorWords([4]float32{0, 1, 0, 1})), cb.CmdDrawIndexed(0, 6, 6, 0, 1), // right half, green
		cb.CmdSetUserData(slot, colorWords([4]float32{1, 0, 0, 1})), cb.CmdDraw(0, 6, 0, 1), // left half, red
		cb.End()} {
		if err != nil {
			t.Fatalf("command %d: %v", i, err)
		}
	}
	r.submitAndWait(t, cb)
	if l, rr := r.pixel(16, 16), r.pixel(48, 16); l != [4]byte{255, 0, 0, 255} || rr != [4]byte{0, 255, 0, 255} {
		t.Errorf("left %v right %v, want red and green", l, rr)
	}
}
