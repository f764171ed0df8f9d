package hw

import (
	"errors"
	mbits "math/bits"
	"sync"
	"sync/atomic"

	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/hw/qpu"
)

// The compute dispatch unit (docs/hardware.md §9), after v3d's CSD: the
// COMPUTE engine's command processor hands it each COMPUTE_DISPATCH
// descriptor of an indirect buffer; it loads the descriptor into its
// CSD_CFG registers and runs the dispatch's workgroups on its workgroup
// slots, one slot per render core, each workgroup's batches concurrently
// on the slot's shader cores so that they can meet at barriers.

// Limits of the dispatch unit.
const (
	// MaxComputeInvocations is the most invocations one workgroup may
	// have (LocalSizeX·Y·Z); its batches run at once.
	MaxComputeInvocations = 256
	// MaxComputeBatches is how many 16-lane batches a workgroup may have.
	MaxComputeBatches = MaxComputeInvocations / qpu.Lanes
	// MaxComputeSharedBytes is the most shared memory a workgroup may ask for.
	MaxComputeSharedBytes = 32 << 10
	// MaxComputeGroups bounds each NumGroups dimension.
	MaxComputeGroups = 65535
)

// Dispatch unit registers: CSD_CFG(k) shows word k of the descriptor the
// unit runs or last ran (with an INDIRECT dispatch's group counts as read
// from memory), CSD_STATUS is CSDStatusBusy while it runs one,
// CSD_WORKGROUPS_DONE counts that dispatch's finished workgroups, and
// NUM_CS_THREADS is the number of compute thread slots (the QPU_NUMBER
// range of compute batches, which scratch is sized by).
const (
	regCSDCfgBase           Reg    = 0xE40
	RegCSDStatus            Reg    = 0xE70
	RegCSDWorkgroupsDone    Reg    = 0xE74
	RegNumCSThreads         Reg    = 0x80C
	CSDStatusBusy           uint32 = 1 << 31
	csdCfgWords                    = cl.SizeComputeDispatch / 4
	computeFlagsKnown              = cl.ComputeFlagIndirect
	csdDispatchesPerIBLimit        = 1 << 16
)

// RegCSDCfg is word k of the current COMPUTE_DISPATCH (k < 12).
func RegCSDCfg(k int) Reg { return regCSDCfgBase + 4*Reg(k) }

// csd is the dispatch unit of the COMPUTE engine.
type csd struct {
	g        *GPU
	e        *engine
	programs programCache
	slots    []*csdSlot

	cfg    [csdCfgWords]atomic.Uint32
	busy   atomic.Bool
	wgDone atomic.Uint32
}

// csdSlot runs one workgroup at a time: a shader core, MMU and batch per
// batch of the workgroup, its shared memory and its barrier.
type csdSlot struct {
	id      int
	u       *csd
	threads [MaxComputeBatches]csdThread
	shared  []uint32
	bar     qpu.WorkgroupBarrier
	wg      sync.WaitGroup // the batches run on goroutines of their own
	// gen and stop are the running dispatch's: its job's RESET
	// generation and the flag that another slot failed.
	gen  uint64
	stop *atomic.Bool
}

// poll is the slot's shader cores' Poll: a batch stops when RESET
// abandons the job or another workgroup of the dispatch failed.
func (s *csdSlot) poll(uint64) error {
	if s.stop.Load() || s.u.e.aborted(s.gen) {
		return errAborted
	}
	return nil
}

type csdThread struct {
	m     *mmu
	core  *qpu.Core
	batch qpu.Batch
	perf  perfCounts
	err   error
}

func newCSD(g *GPU, e *engine) *csd {
	u := &csd{g: g, e: e}
	u.programs.xlat = &g.xlat
	return u
}

// numCSThreads is NUM_CS_THREADS: workgroup slots × batches per workgroup.
func (g *GPU) numCSThreads() int { return g.cores * MaxComputeBatches }

// readCSDReg serves the dispatch unit's registers.
func (g *GPU) readCSDReg(r Reg) (uint32, bool) {
	u := g.engines[EngineCompute].csd
	switch {
	case r >= regCSDCfgBase && r < regCSDCfgBase+4*csdCfgWords && r%4 == 0:
		return u.cfg[(r-regCSDCfgBase)/4].Load(), true
	case r == RegCSDStatus:
		if u.busy.Load() {
			return CSDStatusBusy, true
		}
		return 0, true
	case r == RegCSDWorkgroupsDone:
		return u.wgDone.Load(), true
	case r == RegNumCSThreads:
		return uint32(g.numCSThreads()), true
	}
	return 0, false
}

// slot returns workgroup slot k, built on first use.
func (u *csd) slot(k int) *csdSlot {
	for len(u.slots) <= k {
		s := &csdSlot{id: len(u.slots), u: u, shared: make([]uint32, MaxComputeSharedBytes/4)}
		for i := range s.threads {
			t := &s.threads[i]
			t.m = newMMU(u.g.mem, EngineCompute)
			t.m.useEpoch(&u.g.tlbEpoch)
			t.core = qpu.NewCore(t.m)
			t.core.NoNative = u.g.noNative
			t.core.StepLimit = 0 // the kernel's watchdog decides what is hung
			t.core.RetainPages(true)
			t.core.Poll = s.poll
			t.batch.Stage = qpu.StageCompute
			t.batch.QPUNumber = uint32(s.id*MaxComputeBatches + i)
		}
		u.slots = append(u.slots, s)
	}
	return u.slots[k]
}

// run executes the indirect buffer at va: size/48 COMPUTE_DISPATCH
// descriptors, in order.
func (u *csd) run(va, size uint32, gen uint64) error {
	u.programs.reset()
	if size == 0 || size%cl.SizeComputeDispatch != 0 || size/cl.SizeComputeDispatch > csdDispatchesPerIBLimit {
		return clErrorf("compute list of %d bytes is not 1..%d COMPUTE_DISPATCH descriptors of %d bytes", size, csdDispatchesPerIBLimit, cl.SizeComputeDispatch)
	}
	var raw [cl.SizeComputeDispatch]byte
	for off := uint32(0); off < size; off += cl.SizeComputeDispatch {
		if u.e.aborted(gen) {
			return errAborted
		}
		if f := u.e.mmu.read(va+off, raw[:]); f != nil {
			return f
		}
		var d cl.ComputeDispatch
		if err := d.Unpack(raw[:]); err != nil {
			return clErrorf("compute list at %#x: %v", va+off, err)
		}
		if err := u.dispatch(&d, gen); err != nil {
			return err
		}
	}
	return nil
}

// dispatch runs one descriptor's workgroups.
func (u *csd) dispatch(d *cl.ComputeDispatch, gen uint64) error {
	if d.Flags&^computeFlagsKnown != 0 {
		return clErrorf("COMPUTE_DISPATCH: unknown flags %#x", d.Flags&^computeFlagsKnown)
	}
	if d.Flags&cl.ComputeFlagIndirect != 0 {
		var n [3]uint32
		for k := range n {
			v, f := u.e.mmu.read32(d.IndirectAddress + 4*uint32(k))
			if f != nil {
				return f
			}
			n[k] = v
		}
		d.NumGroupsX, d.NumGroupsY, d.NumGroupsZ = n[0], n[1], n[2]
	}
	inv := uint32(d.LocalSizeX) * uint32(d.LocalSizeY) * uint32(d.LocalSizeZ)
	switch {
	case inv == 0 || inv > MaxComputeInvocations:
		return clErrorf("COMPUTE_DISPATCH: local size %d×%d×%d not 1..%d invocations", d.LocalSizeX, d.LocalSizeY, d.LocalSizeZ, MaxComputeInvocations)
	case d.SharedBytes > MaxComputeSharedBytes || d.SharedBytes%4 != 0:
		return clErrorf("COMPUTE_DISPATCH: %d shared bytes (a multiple of 4 up to %d)", d.SharedBytes, MaxComputeSharedBytes)
	case d.NumGroupsX > MaxComputeGroups || d.NumGroupsY > MaxComputeGroups || d.NumGroupsZ > MaxComputeGroups:
		return clErrorf("COMPUTE_DISPATCH: %d×%d×%d workgroups (at most %d per dimension)", d.NumGroupsX, d.NumGroupsY, d.NumGroupsZ, MaxComputeGroups)
	}
	var words [cl.SizeComputeDispatch]byte
	d.Pack(words[:])
	for k := range u.cfg {
		u.cfg[k].Store(uint32(words[4*k]) | uint32(words[4*k+1])<<8 | uint32(words[4*k+2])<<16 | uint32(words[4*k+3])<<24)
	}
	u.wgDone.Store(0)
	total := uint64(d.NumGroupsX) * uint64(d.NumGroupsY) * uint64(d.NumGroupsZ)
	var disp perfCounts
	disp.ctr[CtrComputeDispatches] = 1
	disp.flushTo(u.g)
	if total == 0 {
		return nil // an empty dispatch is legal and does nothing
	}
	prog, err := u.programs.get(u.e.mmu, d.CodeAddress)
	if err != nil {
		return err
	}
	u.busy.Store(true)
	defer u.busy.Store(false)

	nslots := int(min(uint64(u.g.cores), total))
	var next atomic.Uint64
	var stop atomic.Bool
	errs := make([]error, nslots)
	var wg sync.WaitGroup
	for k := 0; k < nslots; k++ {
		s := u.slot(k)
		s.gen, s.stop = gen, &stop
		for i := range s.threads {
			// A new job may map other pages at the same VAs: empty the
			// TLBs and the pages the cores retained (as the render
			// workers do at every job start).
			s.threads[i].m.copyContext(u.e.mmu)
			s.threads[i].core.FlushPages()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				i := next.Add(1) - 1
				if i >= total {
					return
				}
				if err := u.workgroup(s, d, prog, i, inv); err != nil {
					errs[k] = err
					stop.Store(true)
					return
				}
				u.wgDone.Add(1)
			}
		}()
	}
	wg.Wait()
	return firstError(errs)
}

// firstError returns the error to report: a fault or CL error before an
// abandonment.
func firstError(errs []error) error {
	var aborted error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, errAborted):
			aborted = err
		default:
			return err
		}
	}
	return aborted
}

// runBatch runs one batch of slot s's workgroup and counts it.
func (u *csd) runBatch(s *csdSlot, t *csdThread, prog *qpu.Program) {
	t.err = runShader(u.g, t.core, t.m, prog, &t.batch)
	s.bar.Leave(t.err)
	b := &t.batch
	t.perf.qpuInstructions += b.Instructions
	t.perf.ctr[CtrComputeBatches]++
	t.perf.ctr[CtrComputeInvocations] += uint64(mbits.OnesCount16(b.LaneMask))
	t.perf.ctr[CtrComputeInstructions] += b.Instructions
	t.perf.ctr[CtrComputeBarriers] += b.Compute.Barriers
	t.perf.ctr[CtrComputeSharedAccesses] += b.Compute.SharedAccesses
	t.perf.takeCore(t.core, EngineCompute)
	t.perf.flushTo(u.g)
}

// workgroup runs workgroup number i (x fastest) of d on slot s.
func (u *csd) workgroup(s *csdSlot, d *cl.ComputeDispatch, prog *qpu.Program, i uint64, inv uint32) error {
	gx, gy := uint64(d.NumGroupsX), uint64(d.NumGroupsY)
	wgID := [3]uint32{uint32(i % gx), uint32(i / gx % gy), uint32(i / (gx * gy))}
	nb := int(inv+qpu.Lanes-1) / qpu.Lanes
	shared := s.shared[:d.SharedBytes/4]
	clear(shared) // a workgroup starts with zeroed shared memory
	s.bar.Reset(nb)
	lx, ly := uint32(d.LocalSizeX), uint32(d.LocalSizeY)
	for k := 0; k < nb; k++ {
		t := &s.threads[k]
		b := &t.batch
		b.UniformsVA = d.UniformsAddress
		b.LaneMask = 0
		ci := &b.Compute
		for l := uint32(0); l < qpu.Lanes; l++ {
			idx := uint32(k)*qpu.Lanes + l
			if idx < inv {
				b.LaneMask |= 1 << l
			}
			ci.LocalIndex[l] = idx
			ci.LocalID[0][l] = idx % lx
			ci.LocalID[1][l] = idx / lx % ly
			ci.LocalID[2][l] = idx / (lx * ly)
		}
		ci.Workgroup = wgID
		ci.NumGroups = [3]uint32{d.NumGroupsX, d.NumGroupsY, d.NumGroupsZ}
		ci.Shared = shared
		ci.Barrier = nil
		if nb > 1 && prog.HasBarrier() {
			ci.Barrier = s.bar.Wait
		}
		t.err = nil
	}
	if nb == 1 || !prog.HasBarrier() {
		// Without barriers the batches never wait for each other: one
		// after another on this slot's goroutine is the same result.
		for k := 0; k < nb; k++ {
			if u.runBatch(s, &s.threads[k], prog); s.threads[k].err != nil {
				break // the workgroup failed; the later batches (err nil) do not run
			}
		}
	} else {
		s.wg.Add(nb - 1)
		for k := 1; k < nb; k++ {
			go func() {
				defer s.wg.Done()
				u.runBatch(s, &s.threads[k], prog)
			}()
		}
		u.runBatch(s, &s.threads[0], prog)
		s.wg.Wait()
	}
	var wgc perfCounts
	wgc.ctr[CtrComputeWorkgroups] = 1
	wgc.flushTo(u.g)
	var failed error
	for k := 0; k < nb; k++ {
		err := s.threads[k].err
		switch {
		case err == nil, errors.Is(err, qpu.ErrWorkgroupFailed):
		case errors.Is(err, errAborted):
			if failed == nil {
				failed = err
			}
		default:
			return err
		}
	}
	return failed
}
