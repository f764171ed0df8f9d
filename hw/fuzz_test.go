package hw

import (
	"encoding/binary"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// FuzzBinCL feeds arbitrary bytes to the binner as a bin CL. It must
// neither panic nor hang; BIN_OOM is answered with a RESET so a list that
// exhausts memory ends.
func FuzzBinCL(f *testing.F) {
	k := newTestKernel(f, 1, 16<<20)
	k.g.SetInterruptHandler(func() {
		st := k.g.ReadReg(RegIntrStatus)
		k.g.WriteReg(RegIntrAck, st)
		if st&IntrBinOOM != 0 {
			k.g.WriteReg(RegReset, 1<<EngineBin)
		}
	})
	k.g.WriteReg(RegIntrEnable, IntrBinOOM)
	// A valid frame provides mapped shader records, vertices and a pool.
	res, _ := k.prepareFrame(&testFrame{width: 100, height: 70, draws: []testDraw{
		{mode: cl.PrimTriangleStrip, verts: tri(-0.9, -0.9, 0.5, -0.9, -0.2, 0.7)},
		{mode: cl.PrimLineLoop, verts: tri(-0.9, -0.9, 0.5, -0.9, -0.2, 0.7), indices: []uint32{0, 1, 2, 1}},
	}})
	f.Add(res.binCL)
	f.Add(res.binCL[:len(res.binCL)/2])
	f.Add([]byte{opFlush})
	clVA, clMem := k.bo(64<<10, false)
	e := k.g.engines[EngineBin]
	e.mmu.setContext(k.ctx, k.l1)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > len(clMem) {
			data = data[:len(clMem)]
		}
		copy(clMem, data)
		e.mu.Lock()
		gen := e.resetGen
		e.mu.Unlock()
		done := make(chan error, 1)
		go func() {
			e.mmu.flush()
			done <- e.bin.run(clVA, uint32(len(data)), gen)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("binner hung on %x", data)
		}
	})
}

// FuzzTileList feeds arbitrary bytes to a render worker as a tile list.
func FuzzTileList(f *testing.F) {
	k := newTestKernel(f, 1, 16<<20)
	res, _ := k.prepareFrame(&testFrame{width: 64, height: 64, draws: []testDraw{
		{mode: cl.PrimTriangles, verts: tri(-0.9, -0.9, 0.5, -0.9, -0.2, 0.7)},
		{mode: cl.PrimPoints, verts: tri(-0.9, -0.9, 0.5, -0.9, -0.2, 0.7)},
		{mode: cl.PrimLines, verts: tri(-0.9, -0.9, 0.5, -0.9, -0.2, 0.7)},
	}})
	m := newMMU(k.mem, EngineRender)
	m.setContext(k.ctx, k.l1)
	seed := make([]byte, 512)
	if pf := m.read(res.tileVA, seed); pf != nil {
		f.Fatal(pf)
	}
	f.Add(seed)
	listVA, listMem := k.bo(64<<10, false)
	w := k.g.render.workers[0]
	w.m.copyContext(m)
	w.cfg = renderConfig{width: 64, height: 64, tsize: tileSize}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > len(listMem)-1 {
			data = data[:len(listMem)-1]
		}
		clear(listMem)
		copy(listMem, data)
		var rcl cl.Builder
		cl.Emit(&rcl, cl.BranchToSubList{Address: listVA})
		k.g.render.cl = rcl.Buf
		k.g.render.e = k.g.engines[EngineRender]
		w.m.flush()
		clear(w.programs)
		k.g.render.programs.reset()
		var stop atomicBool
		done := make(chan error, 1)
		go func() { done <- w.renderTile(&tileJob{start: 0, end: len(rcl.Buf)}, &stop.b) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("renderer hung on %x", data)
		}
	})
}

type atomicBool struct{ b atomic.Bool }

// FuzzRing feeds arbitrary words to a command processor. A WAIT_MEM may
// legitimately block, so a ring that does not drain is RESET; after that
// the engine must be idle and still work.
func FuzzRing(f *testing.F) {
	k := newTestKernel(f, 1, 8<<20)
	va, _ := k.bo(pageSize, true)
	f.Add([]byte{0x00, 0x00, 0x13, 0x70, 1, 0, 0, 0, 0x00, 0x00, 0x10, 0x00, 5, 0, 0, 0})
	f.Add([]byte{0x02, 0x00, 0x14, 0x70, 0, 0, 0x10, 0, 9, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		k.t = t
		words := make([]uint32, 0, len(data)/4+2)
		for i := 0; i+4 <= len(data) && len(words) < testRingSize/4-8; i += 4 {
			words = append(words, binary.LittleEndian.Uint32(data[i:]))
		}
		for e := 0; e < numEngines; e++ {
			k.setContext(e)
			k.submit(e, words...)
			deadline := time.Now().Add(time.Second)
			for k.g.ReadReg(RegRingRptr(e)) != k.wptr[e] && time.Now().Before(deadline) {
				time.Sleep(100 * time.Microsecond)
			}
			if k.g.ReadReg(RegRingRptr(e)) != k.wptr[e] {
				k.g.WriteReg(RegReset, 1<<e)
			}
			k.idle(e)
			k.submit(e, PacketHeader(PktSignal, 2), va, 77)
			k.idle(e)
		}
	})
}

// FuzzRenderCL feeds arbitrary bytes to the render engine as a render CL.
func FuzzRenderCL(f *testing.F) {
	k := newTestKernel(f, 2, 16<<20)
	var rcl cl.Builder
	cl.Emit(&rcl, cl.TileRenderingModeConfiguration{Width: 64, Height: 64})
	cl.Emit(&rcl, cl.ClearColors{Color: 0xFF00FF00})
	cl.Emit(&rcl, cl.TileCoordinates{})
	cl.Emit(&rcl, cl.StoreTileBufferGeneral{Buffer: cl.BufferColor, Address: 0x100000, Stride: 256})
	cl.Emit(&rcl, cl.Halt{})
	f.Add(rcl.Buf)
	k.bo(64*64*4, true) // the store target at 0x100000
	clVA, clMem := k.bo(64<<10, false)
	e := k.g.engines[EngineRender]
	e.mmu.setContext(k.ctx, k.l1)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > len(clMem) {
			data = data[:len(clMem)]
		}
		copy(clMem, data)
		done := make(chan error, 1)
		go func() { done <- k.g.render.run(e, clVA, uint32(len(data)), e.resetGen) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("render engine hung on %x", data)
		}
	})
}
