package hw

import (
	"encoding/binary"
	"runtime"
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
	m := newMMU(k.mem, EngineRender)
	m.setContext(k.ctx, k.l1)
	// Seeds: the same frame's tile list with stored vertices
	// (TILE_PRIMITIVE_STORED) and with indices (TILE_PRIMITIVE).
	for _, noStore := range []bool{false, true} {
		k.g.noVertexStore = noStore
		res, _ := k.prepareFrame(&testFrame{width: 64, height: 64, draws: []testDraw{
			{mode: cl.PrimTriangles, verts: tri(-0.9, -0.9, 0.5, -0.9, -0.2, 0.7)},
			{mode: cl.PrimPoints, verts: tri(-0.9, -0.9, 0.5, -0.9, -0.2, 0.7)},
			{mode: cl.PrimLines, verts: tri(-0.9, -0.9, 0.5, -0.9, -0.2, 0.7)},
		}})
		seed := make([]byte, 512)
		if pf := m.read(res.tileVA, seed); pf != nil {
			f.Fatal(pf)
		}
		f.Add(seed)
	}
	k.g.noVertexStore = false
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
// legitimately block, so a ring that stops moving is RESET; after that
// the engine must be idle and still work.
//
// Throughput: the harness used to poll with 100 µs sleeps and give a
// stalled ring a whole second before resetting it, so most inputs (any
// WAIT_MEM whose condition fails) cost a second: 28 execs/s. drainOrReset
// spins briefly and resets a ring that has not moved, with its command
// processor idle, for a millisecond — long after any packet the CP can
// execute has run (a WAIT_MEM is re-evaluated every 2 ms only when memory
// does not change, and nothing else writes memory here).
func FuzzRing(f *testing.F) {
	k := newTestKernel(f, 1, 8<<20)
	va, _ := k.bo(pageSize, true)
	f.Add([]byte{0x00, 0x00, 0x13, 0x70, 1, 0, 0, 0, 0x00, 0x00, 0x10, 0x00, 5, 0, 0, 0})
	f.Add([]byte{0x02, 0x00, 0x14, 0x70, 0, 0, 0x10, 0, 9, 0, 0, 0})
	words := make([]uint32, 0, testRingSize/4)
	f.Fuzz(func(t *testing.T, data []byte) {
		k.t = t
		words = words[:0]
		for i := 0; i+4 <= len(data) && len(words) < testRingSize/4-8; i += 4 {
			words = append(words, binary.LittleEndian.Uint32(data[i:]))
		}
		for e := 0; e < numEngines; e++ {
			k.setContext(e)
			k.submit(e, words...)
			k.drainOrReset(e)
			k.submit(e, PacketHeader(PktSignal, 2), va, 77)
			if !k.drainOrReset(e) {
				t.Fatalf("engine %d: stuck after a RESET on %x", e, data)
			}
		}
	})
}

// drainOrReset waits until engine e has consumed its ring. A ring whose
// head packet is a WAIT_MEM and whose RPTR has not moved for a
// millisecond while the command processor is not executing a packet is
// stalled on a condition that cannot pass: it is RESET and drainOrReset
// reports false. (Any other packet at the head is merely waiting for the
// CP goroutine to be scheduled.) An engine that stays busy for ten
// seconds fails the test.
func (k *testKernel) drainOrReset(e int) bool {
	k.t.Helper()
	start := time.Now()
	last, since := ^uint32(0), start
	for i := 0; ; i++ {
		r := k.g.ReadReg(RegRingRptr(e))
		if r == k.wptr[e] {
			return true
		}
		now := time.Now()
		if r != last || k.g.ReadReg(RegCPStatus(e))&CPStatusBusy != 0 {
			last, since = r, now
		} else if now.Sub(since) > time.Millisecond && k.headIsWaitMem(e, r) {
			k.g.WriteReg(RegReset, 1<<e)
			k.idle(e)
			return false
		}
		if now.Sub(start) > 10*time.Second {
			k.t.Fatalf("engine %d busy for 10 s", e)
		}
		if i < 200 {
			runtime.Gosched()
		} else {
			time.Sleep(20 * time.Microsecond)
		}
	}
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
	// A 16-bit colour format, loaded and stored (format.go).
	var rcl565 cl.Builder
	cl.Emit(&rcl565, cl.TileRenderingModeConfiguration{Width: 64, Height: 64, ColorFormat: cl.ColorFormatRGB565})
	cl.Emit(&rcl565, cl.ClearColors{Color: 0xFF00FF00})
	cl.Emit(&rcl565, cl.TileCoordinates{})
	cl.Emit(&rcl565, cl.LoadTileBufferGeneral{Buffer: cl.BufferColor, Address: 0x100000, Stride: 128})
	cl.Emit(&rcl565, cl.StoreTileBufferGeneral{Buffer: cl.BufferColor, Address: 0x100000, Stride: 128})
	cl.Emit(&rcl565, cl.Halt{})
	f.Add(rcl565.Buf)
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

// headIsWaitMem reports whether the packet at byte offset rptr of engine
// e's ring is a WAIT_MEM.
func (k *testKernel) headIsWaitMem(e int, rptr uint32) bool {
	hdr := binary.LittleEndian.Uint32(k.mem[k.ring[e]+rptr%testRingSize:])
	return hdr>>28 == 7 && (hdr>>16)&0xFF == PktWaitMem
}
