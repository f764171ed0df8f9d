package kernel

import (
	"encoding/binary"
	"sync"
	"time"

	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/hw/cl"
)

// fakeGPU is a scripted command processor implementing machine for tests:
// it executes the ring packets of hardware.md §3 through real page-table
// walks, "bins" by closing every tile list and "renders" by storing the
// clear colour of every tile into the colour target. The first uniform of
// the coordinate shader's stream scripts misbehaviour: scriptFault makes
// the binner read the VA in the second uniform, scriptHang spins until
// RESET, scriptOOM exhausts the tile pool once and writes into the
// overflow pool it receives. Like hw, each engine serves its priority
// rings highest first at packet boundaries, each ring with its own
// SET_CONTEXT, and a WAIT_MEM that does not pass stalls only its ring.
type fakeGPU struct {
	mem []byte

	mu          sync.Mutex
	base, size  [numEngines][numPriorities]uint32
	rptr, wptr  [numEngines][numPriorities]uint32
	status      [numEngines]uint32 // CP_STATUS
	gen         [numEngines]uint64
	intr        uint32
	enable      uint32
	faults      []faultRecord // the MMU fault queue, as hw keeps it
	shootdowns  int           // MMU_TLB_INVALIDATE writes
	clErrCtx    uint32
	clErrStatus uint32
	clErrIB     uint32
	overAddr    uint32
	overSize    uint32
	overGen     uint64
	handler     func()
	bell        [numEngines]chan struct{}
	quit        chan struct{}
	wg          sync.WaitGroup
	start       time.Time
	binJobs     int
	work        uint32        // the QPU instruction counter scriptSlow advances
	memMu       sync.Mutex    // orders the fake engines' memory accesses with each other
	gate        chan struct{} // closed by openGate: ends every scriptGate job
	gateOnce    sync.Once
}

// openGate lets every scriptGate job finish. Tests use a gate job instead
// of a timed one to hold the GPU while they queue a scenario: on a loaded
// machine a timed hold can end before the scenario is queued.
func (g *fakeGPU) openGate() { g.gateOnce.Do(func() { close(g.gate) }) }

const (
	scriptFault    = 0xFA17
	scriptHang     = 0x4A46
	scriptOOM      = 0x0033
	scriptSlow     = 0x5105 // works for arg milliseconds, advancing the instruction counter
	scriptCLErr    = 0xC1E5 // abandons the IB with CL_ERROR, cause "shader"
	scriptGate     = 0x6A7E // works, advancing the instruction counter, until the test calls openGate
	scriptGateHang = 0x6A7F // as scriptGate, then hangs as scriptHang
)

func newFakeGPU(memSize int) *fakeGPU {
	g := &fakeGPU{mem: make([]byte, memSize), quit: make(chan struct{}), gate: make(chan struct{}), start: time.Now()}
	for e := range g.bell {
		g.bell[e] = make(chan struct{}, 1)
		g.wg.Add(1)
		go g.run(e)
	}
	return g
}

func (g *fakeGPU) Close() { close(g.quit); g.wg.Wait() }

func (g *fakeGPU) Memory() []byte { return g.mem }

func (g *fakeGPU) SetInterruptHandler(h func()) {
	g.mu.Lock()
	g.handler = h
	g.mu.Unlock()
}

func (g *fakeGPU) WriteReg(r reg, v uint32) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for e := 0; e < numEngines; e++ {
		for p := 0; p < numPriorities; p++ {
			switch r {
			case regRingBase(e, p):
				g.base[e][p] = v
			case regRingSize(e, p):
				g.size[e][p] = v
			case regRingWptr(e, p):
				g.wptr[e][p] = v
				select {
				case g.bell[e] <- struct{}{}:
				default:
				}
			}
		}
	}
	switch r {
	case regIntrAck:
		g.intr &^= v
		if len(g.faults) > 0 {
			g.intr |= intrMMUFault
		}
	case regMMUTLBInvalidate:
		g.shootdowns++
	case regMMUFaultPop:
		if len(g.faults) > 0 {
			g.faults = g.faults[1:]
		}
	case regIntrEnable:
		g.enable = v
	case regBinOverflowAddr:
		g.overAddr = v
	case regBinOverflowSize:
		g.overSize = v
		g.overGen++
	case regReset:
		for e := 0; e < numEngines; e++ {
			if v&(1<<e) != 0 {
				g.gen[e]++
				g.rptr[e] = g.wptr[e]
			}
		}
	}
}

func (g *fakeGPU) ReadReg(r reg) uint32 {
	g.mu.Lock()
	defer g.mu.Unlock()
	for e := 0; e < numEngines; e++ {
		for p := 0; p < numPriorities; p++ {
			if r == regRingRptr(e, p) {
				return g.rptr[e][p]
			}
		}
		if r == regCPStatus(e) {
			return g.status[e]
		}
	}
	switch r {
	case reg(hw.RegPerfQPUInstructions):
		return g.work
	case regIntrStatus:
		return g.intr & g.enable
	case regMMUFaultVA, regMMUFaultCtx, regMMUFaultStatus, regMMUFaultIB:
		if len(g.faults) == 0 {
			return 0
		}
		f := g.faults[0]
		return map[reg]uint32{regMMUFaultVA: f.va, regMMUFaultCtx: f.ctx, regMMUFaultStatus: f.status, regMMUFaultIB: f.ib}[r]
	case regMMUFaultCount:
		return uint32(len(g.faults))
	case regCLErrorCtx:
		return g.clErrCtx
	case regCLErrorStatus:
		return g.clErrStatus
	case regCLErrorIB:
		return g.clErrIB
	case regNumCores:
		return 2
	case regNumQPUs:
		return 3
	case regTimestampLo:
		return uint32(time.Since(g.start))
	case regTimestampHi:
		return uint32(uint64(time.Since(g.start)) >> 32)
	}
	return 0
}

func (g *fakeGPU) raise(bits uint32) {
	g.mu.Lock()
	g.intr |= bits
	h := g.handler
	g.mu.Unlock()
	if h != nil {
		h()
	}
}

type fakeFault struct {
	va    uint32
	write bool
}

// fakeMMU walks the page tables of one SET_CONTEXT.
type fakeMMU struct {
	g      *fakeGPU
	ctx    uint32
	l1     uint32
	engine int
	fault  *fakeFault
	ib     uint32 // VA of the indirect buffer being executed
}

func (m *fakeMMU) translate(va uint32, write bool) (uint32, bool) {
	mem := m.g.mem
	l1e := binary.LittleEndian.Uint32(mem[m.l1+4*(va>>22):])
	if l1e&pteValid != 0 {
		l2e := binary.LittleEndian.Uint32(mem[l1e&^0xfff+4*((va>>12)&1023):])
		if l2e&pteValid != 0 && (!write || l2e&pteWritable != 0) {
			return l2e&^0xfff | va&0xfff, true
		}
	}
	if m.fault == nil {
		m.fault = &fakeFault{va, write}
	}
	return 0, false
}

func (m *fakeMMU) read8(va uint32) (byte, bool) {
	pa, ok := m.translate(va, false)
	if !ok {
		return 0, false
	}
	m.g.memMu.Lock()
	defer m.g.memMu.Unlock()
	return m.g.mem[pa], true
}

func (m *fakeMMU) read32(va uint32) (uint32, bool) {
	// An aligned word is read atomically, as the real GPU reads semaphores
	// and fences: the kernel stores them atomically (storeSync32) while the
	// engines run.
	if va&3 == 0 {
		pa, ok := m.translate(va, false)
		if !ok {
			return 0, false
		}
		return loadSync32(m.g.mem, pa), true
	}
	var v uint32
	for i := uint32(0); i < 4; i++ {
		b, ok := m.read8(va + i)
		if !ok {
			return 0, false
		}
		v |= uint32(b) << (8 * i)
	}
	return v, true
}

func (m *fakeMMU) readN(va uint32, n uint32) ([]byte, bool) {
	out := make([]byte, n)
	for i := range out {
		b, ok := m.read8(va + uint32(i))
		if !ok {
			return nil, false
		}
		out[i] = b
	}
	return out, true
}

func (m *fakeMMU) write32(va, v uint32) bool {
	if va&3 == 0 { // atomically, as the real GPU writes fences and semaphores
		pa, ok := m.translate(va, true)
		if !ok {
			return false
		}
		storeSync32(m.g.mem, pa, v)
		return true
	}
	for i := uint32(0); i < 4; i++ {
		pa, ok := m.translate(va+i, true)
		if !ok {
			return false
		}
		m.g.memMu.Lock()
		m.g.mem[pa] = byte(v >> (8 * i))
		m.g.memMu.Unlock()
	}
	return true
}

func (g *fakeGPU) aborted(e int, gen uint64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.gen[e] != gen
}

func (g *fakeGPU) run(e int) {
	defer g.wg.Done()
	var mmus [numPriorities]fakeMMU // each ring's SET_CONTEXT
	for p := range mmus {
		mmus[p] = fakeMMU{g: g, engine: e}
	}
	for {
		ran, stalled := g.step(e, &mmus)
		if ran {
			continue
		}
		var poll <-chan time.Time
		if stalled {
			poll = time.After(50 * time.Microsecond)
		}
		select {
		case <-g.quit:
			return
		case <-g.bell[e]:
		case <-poll:
		}
	}
}

// step executes the head packet of engine e's highest-priority ring that
// can run; a WAIT_MEM that does not pass leaves its ring stalled.
func (g *fakeGPU) step(e int, mmus *[numPriorities]fakeMMU) (ran, stalled bool) {
	for p := numPriorities - 1; p >= 0; p-- {
		g.mu.Lock()
		base, size, rptr, wptr, gen := g.base[e][p], g.size[e][p], g.rptr[e][p], g.wptr[e][p], g.gen[e]
		g.mu.Unlock()
		if rptr == wptr || size == 0 {
			continue
		}
		word := func(i uint32) uint32 {
			return binary.LittleEndian.Uint32(g.mem[base+(rptr+4*i)&(size-1):])
		}
		hdr := word(0)
		op, count, _ := cl.ParseRingHeader(hdr)
		pl := make([]uint32, count)
		for i := range pl {
			pl[i] = word(uint32(1 + i))
		}
		m := &mmus[p]
		m.fault = nil
		if op == cl.RingOpWaitMem && len(pl) >= 2 {
			if v, ok := m.read32(pl[0]); ok && int32(v-pl[1]) < 0 {
				stalled = true
				continue
			}
		}
		g.mu.Lock()
		g.status[e] = cpStatusBusy | uint32(p)
		g.mu.Unlock()
		g.execute(e, m, op, pl, gen)
		g.mu.Lock()
		g.status[e] = 0
		g.mu.Unlock()
		if m.fault != nil {
			g.mu.Lock()
			fr := faultRecord{va: m.fault.va, ctx: m.ctx, status: uint32(e) << faultStatusEngineShift}
			if op == cl.RingOpIndirectBuffer {
				fr.ib = m.ib // MMU_FAULT_IB, as hw reports it
			}
			if m.fault.write {
				fr.status |= faultStatusWrite
			}
			g.faults = append(g.faults, fr)
			g.mu.Unlock()
			g.raise(intrMMUFault)
		}
		g.mu.Lock()
		if g.gen[e] == gen {
			g.rptr[e][p] = (rptr + 4*uint32(1+count)) & (size - 1)
		}
		g.mu.Unlock()
		return true, false
	}
	return false, stalled
}

func (g *fakeGPU) execute(e int, m *fakeMMU, op uint8, p []uint32, gen uint64) {
	switch op {
	case cl.RingOpSetContext:
		m.ctx, m.l1 = p[0], p[1]
	case cl.RingOpIndirectBuffer:
		list, ok := m.readN(p[0], p[1])
		if !ok {
			return
		}
		m.ib = p[0]
		if e == engineBin {
			g.bin(m, list, gen)
		} else {
			g.render(m, list)
		}
	case cl.RingOpSignal:
		m.write32(p[0], p[1])
	case cl.RingOpWaitMem:
		// step runs a WAIT_MEM only once it passes (or its load faulted).
	case cl.RingOpEventWrite:
		ts := uint64(time.Since(g.start))
		if m.write32(p[1], p[2]) && m.write32(p[1]+8, uint32(ts)) && m.write32(p[1]+12, uint32(ts>>32)) && p[0]&1 != 0 {
			g.raise(intrEvent)
		}
	}
}

// bin walks a (validated) bin CL; it closes every tile list on FLUSH and
// follows the coordinate shader's script.
func (g *fakeGPU) bin(m *fakeMMU, list []byte, gen uint64) {
	g.mu.Lock()
	g.binJobs++
	g.mu.Unlock()
	var tiles, tileVA, poolEnd uint32
	for off := 0; off < len(list); {
		op := list[off]
		n, _ := cl.RecordSize(op)
		rec := list[off : off+n]
		off += n
		switch op {
		case cl.OpTileBinningModeConfiguration:
			var r cl.TileBinningModeConfiguration
			r.Unpack(rec)
			tiles, tileVA, poolEnd = uint32(r.WidthInTiles)*uint32(r.HeightInTiles), r.TileAllocationAddress, r.TileAllocationAddress+r.TileAllocationSize
		case cl.OpGLShaderState:
			var r cl.GLShaderState
			r.Unpack(rec)
			srb, ok := m.readN(r.Address, cl.SizeShaderRecord)
			if !ok {
				return
			}
			var sr cl.ShaderRecord
			sr.Unpack(srb)
			script, ok := m.read32(sr.CoordinateUniformsAddress)
			if !ok {
				return
			}
			arg, _ := m.read32(sr.CoordinateUniformsAddress + 4)
			switch script {
			case scriptFault:
				if _, ok := m.read32(arg); !ok {
					return // skip the rest of the IB
				}
			case scriptCLErr:
				g.mu.Lock()
				g.clErrCtx, g.clErrStatus, g.clErrIB = m.ctx, hw.CLErrorCauseShader|engineBin<<hw.CLErrorEngineShift, m.ib
				g.mu.Unlock()
				g.raise(intrCLError)
				return
			case scriptHang:
				for !g.aborted(engineBin, gen) {
					time.Sleep(100 * time.Microsecond)
				}
				return
			case scriptGate, scriptGateHang:
				for open := false; !open; {
					select {
					case <-g.gate:
						open = true
						continue
					default:
					}
					if g.aborted(engineBin, gen) {
						return
					}
					g.mu.Lock()
					g.work++
					g.mu.Unlock()
					time.Sleep(200 * time.Microsecond)
				}
				if script == scriptGate {
					return
				}
				for !g.aborted(engineBin, gen) {
					time.Sleep(100 * time.Microsecond)
				}
				return
			case scriptSlow:
				for end := time.Now().Add(time.Duration(arg) * time.Millisecond); time.Now().Before(end); {
					if g.aborted(engineBin, gen) {
						return
					}
					g.mu.Lock()
					g.work++
					g.mu.Unlock()
					time.Sleep(200 * time.Microsecond)
				}
			case scriptOOM:
				_ = poolEnd
				g.mu.Lock()
				seen := g.overGen
				g.mu.Unlock()
				g.raise(intrBinOOM)
				for {
					g.mu.Lock()
					got, addr, size := g.overGen, g.overAddr, g.overSize
					g.mu.Unlock()
					if got != seen {
						if size == 0 || !m.write32(addr+size-4, 0x600D) {
							return
						}
						break
					}
					if g.aborted(engineBin, gen) {
						return
					}
					time.Sleep(50 * time.Microsecond)
				}
			}
		case cl.OpFlush:
			for i := uint32(0); i < tiles; i++ {
				pa, ok := m.translate(tileVA+i*tileBlockFirst, true)
				if !ok {
					return
				}
				g.mem[pa] = cl.OpReturnFromSubList
			}
		}
	}
}

// render runs a kernel-generated render CL: every tile's pixels get the
// clear colour (the tile lists are empty), stored through the MMU.
func (g *fakeGPU) render(m *fakeMMU, list []byte) {
	var w, h, color, col, row uint32
	ts := uint32(tileSize)
	for off := 0; off < len(list); {
		op := list[off]
		n, _ := cl.RecordSize(op)
		rec := list[off : off+n]
		off += n
		switch op {
		case cl.OpHalt:
			return
		case cl.OpTileRenderingModeConfiguration:
			var r cl.TileRenderingModeConfiguration
			r.Unpack(rec)
			w, h = uint32(r.Width), uint32(r.Height)
			if r.Multisample4x {
				ts = tileSizeMSAA
			}
		case cl.OpClearColors:
			var r cl.ClearColors
			r.Unpack(rec)
			color = r.Color
		case cl.OpTileCoordinates:
			var r cl.TileCoordinates
			r.Unpack(rec)
			col, row = uint32(r.Column), uint32(r.Row)
		case cl.OpBranchToSubList:
			var r cl.BranchToSubList
			r.Unpack(rec)
			if b, ok := m.read8(r.Address); !ok || b != cl.OpReturnFromSubList {
				return
			}
		case cl.OpStoreTileBufferGeneral:
			var r cl.StoreTileBufferGeneral
			r.Unpack(rec)
			if r.Buffer != cl.BufferColor {
				continue
			}
			for y := row * ts; y < min(h, (row+1)*ts); y++ {
				for x := col * ts; x < min(w, (col+1)*ts); x++ {
					if !m.write32(r.Address+y*r.Stride+4*x, color) {
						return
					}
				}
			}
		}
	}
}
