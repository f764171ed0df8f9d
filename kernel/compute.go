package kernel

import (
	"fmt"
	"slices"

	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/hw/cl"
)

// Compute jobs (docs/interfaces.md "kernel: compute jobs"): SubmitCompute
// validates a list of dispatches, writes them as COMPUTE_DISPATCH
// descriptors (hardware.md §9) into a read-only exec buffer and queues a
// job that runs only on the COMPUTE engine's rings. A compute job is
// scheduled like a graphics job (contexts, priorities, the per-context
// in-flight limit, in-fences, implicit synchronisation on BOs, fault
// policies, the watchdog) but runs concurrently with BIN and RENDER and
// retires in COMPUTE ring order, independently of graphics jobs.

// Limits SubmitCompute enforces; they mirror the dispatch unit's
// (hw.MaxCompute*), so a validated job never raises CL_ERROR — except a
// DispatchIndirect whose counts in memory exceed MaxComputeGroups, which
// the hardware reports (the counts are read when the dispatch starts).
const (
	maxComputeDispatches  = 4096
	MaxComputeInvocations = hw.MaxComputeInvocations
	MaxComputeSharedBytes = hw.MaxComputeSharedBytes
	MaxComputeGroups      = hw.MaxComputeGroups
)

// Compute parameters of GetParam; they have their own range so the
// graphics list in api.go can grow independently.
const (
	ParamNumComputeThreads     Param = 0x100 + iota // compute thread slots (NUM_CS_THREADS); compute scratch is sized by it
	ParamMaxComputeInvocations                      // most invocations per workgroup
	ParamMaxComputeSharedBytes                      // most shared memory per workgroup
	ParamMaxComputeGroups                           // most workgroups per dimension
)

// computeParam answers the compute GetParam values.
func (d *Device) computeParam(p Param) (uint64, bool) {
	switch p {
	case ParamNumComputeThreads:
		return uint64(d.m.ReadReg(reg(hw.RegNumCSThreads))), true
	case ParamMaxComputeInvocations:
		return MaxComputeInvocations, true
	case ParamMaxComputeSharedBytes:
		return MaxComputeSharedBytes, true
	case ParamMaxComputeGroups:
		return MaxComputeGroups, true
	}
	return 0, false
}

// BOAddress is a byte offset into one of a submission's BOs.
type BOAddress struct {
	BOIndex uint32 // index in the submission's BOs
	Offset  uint32
}

// ComputeDispatch is one dispatch of a compute job.
type ComputeDispatch struct {
	NumGroups [3]uint32 // workgroups per dimension (0 in a dimension: nothing runs)
	LocalSize [3]uint32 // invocations per workgroup per dimension
	// Code is the compute shader's first instruction (8-aligned).
	Code BOAddress
	// UniformsOffset is where the dispatch's uniform stream starts in the
	// job's Uniforms (4-aligned, at most len(Uniforms)).
	UniformsOffset uint32
	SharedBytes    uint32 // workgroup shared memory (multiple of 4)
	// Scratch, when ScratchBytesPerThread ≠ 0, is the spill area: it must
	// hold ParamNumComputeThreads × ScratchBytesPerThread bytes of a BO
	// listed with BOWrite.
	Scratch               BOAddress
	ScratchBytesPerThread uint32
	// Indirect reads NumGroups from three u32 at IndirectCounts when the
	// dispatch starts (DispatchIndirect); NumGroups is then ignored.
	Indirect       bool
	IndirectCounts BOAddress
}

// SubmitComputeArgs is the argument of File.SubmitCompute.
type SubmitComputeArgs struct {
	Dispatches []ComputeDispatch // run in order, each after the previous one finished
	Uniforms   []byte            // the dispatches' uniform streams
	BOs        []BORef
	// Relocs patch GPU addresses into Uniforms: Space must be
	// SpaceUniforms, Target TargetBO or TargetUniforms.
	Relocs   []Reloc
	InFences []uint64
	PerfMon  uint32 // as SubmitCLArgs.PerfMon
	Tag      uint64 // as SubmitCLArgs.Tag: returned in the job's JobInfo
	OutFence uint64 // out
}

// SubmitCompute validates a compute job and queues it on the COMPUTE
// engine. On success a.OutFence is its fence. A rejection returns EINVAL,
// ENOENT or EFAULT naming the offending dispatch, BO or reloc; nothing
// reaches the GPU. A context that caused a GPU fault or hang gets EIO.
func (f *File) SubmitCompute(user *SubmitComputeArgs) error {
	d := f.d
	a := *user // the kernel's copy (see SubmitCL)
	a.Dispatches = slices.Clone(user.Dispatches)
	a.BOs = slices.Clone(user.BOs)
	a.Relocs = slices.Clone(user.Relocs)
	a.InFences = slices.Clone(user.InFences)
	switch {
	case len(a.Dispatches) == 0 || len(a.Dispatches) > maxComputeDispatches:
		return errorf(EINVAL, "SubmitCompute: %d dispatches (want 1..%d)", len(a.Dispatches), maxComputeDispatches)
	case len(a.Uniforms) > maxCLBytes:
		return errorf(EINVAL, "SubmitCompute: %d bytes of uniforms > %d", len(a.Uniforms), maxCLBytes)
	case len(a.Relocs) > maxRelocs:
		return errorf(EINVAL, "SubmitCompute: %d relocs > %d", len(a.Relocs), maxRelocs)
	case len(a.BOs) > maxBORefs:
		return errorf(EINVAL, "SubmitCompute: %d BOs > %d", len(a.BOs), maxBORefs)
	case len(a.InFences) > maxInFences:
		return errorf(EINVAL, "SubmitCompute: %d in-fences > %d", len(a.InFences), maxInFences)
	}
	listBytes := uint32(len(a.Dispatches)) * cl.SizeComputeDispatch
	uniOff := align16(listBytes)
	threads := uint64(d.m.ReadReg(reg(hw.RegNumCSThreads)))

	d.mu.Lock()
	defer d.mu.Unlock()
	if err := f.check(); err != nil {
		return err
	}
	c := f.ctx
	bos, pm, err := f.admitEngineJob("SubmitCompute", a.BOs, a.InFences, a.PerfMon)
	if err != nil {
		return err
	}
	// Validate everything before allocating, so a rejection costs nothing.
	if err := checkComputeRelocs(&a, bos); err != nil {
		return err
	}
	for i := range a.Dispatches {
		if err := checkDispatch(&a, i, bos, threads); err != nil {
			return err
		}
	}
	exec, err := d.allocBOLocked(c, uniOff+uint32(len(a.Uniforms)), false, true)
	if err != nil {
		return err
	}
	report, err := d.allocBOLocked(c, singleReportBytes(engineCompute), true, true)
	if err != nil {
		d.freeBOLocked(exec)
		return err
	}
	// Fill the exec BO: uniforms (patched), then the descriptors.
	mem := d.mem[exec.pa : exec.pa+exec.size()]
	uni := mem[uniOff : uniOff+uint32(len(a.Uniforms))]
	copy(uni, a.Uniforms)
	uniVA := exec.va + uniOff
	for _, r := range a.Relocs {
		va := uniVA + r.Delta
		if r.Target == TargetBO {
			va = bos[r.BOIndex].va + r.Delta
		}
		putLE32(uni[r.Offset:], va)
	}
	at := func(x BOAddress) uint32 { return bos[x.BOIndex].va + x.Offset }
	for i, x := range a.Dispatches {
		desc := cl.ComputeDispatch{
			NumGroupsX: x.NumGroups[0], NumGroupsY: x.NumGroups[1], NumGroupsZ: x.NumGroups[2],
			LocalSizeX: uint16(x.LocalSize[0]), LocalSizeY: uint16(x.LocalSize[1]), LocalSizeZ: uint16(x.LocalSize[2]),
			CodeAddress: at(x.Code), UniformsAddress: uniVA + x.UniformsOffset,
			SharedBytes: x.SharedBytes,
		}
		if x.ScratchBytesPerThread != 0 {
			desc.ScratchAddress, desc.ScratchBytesPerThread = at(x.Scratch), x.ScratchBytesPerThread
		}
		if x.Indirect {
			desc.Flags = cl.ComputeFlagIndirect
			desc.NumGroupsX, desc.NumGroupsY, desc.NumGroupsZ = 0, 0, 0
			desc.IndirectAddress = at(x.IndirectCounts)
		}
		desc.Pack(mem[uint32(i)*cl.SizeComputeDispatch:])
	}
	for _, b := range bos {
		b.busy++
	}
	j := &job{
		ctx: c, prio: c.prio, exec: exec, tile: report, kind: kindCompute,
		bos: bos, writes: make([]bool, len(bos)),
		listVA: exec.va, listSize: listBytes,
		uniVA: uniVA, uniSize: uint32(len(a.Uniforms)),
		queuedAt: d.gpuTime(), perfMon: pm, perfMonID: a.PerfMon, tag: a.Tag,
	}
	d.queueSingle(f, j, a.BOs, a.InFences, pm)
	user.OutFence = j.fence.seqno
	return nil
}

func putLE32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

// checkComputeRelocs checks that every reloc patches a distinct aligned
// word of Uniforms with an address inside its target.
func checkComputeRelocs(a *SubmitComputeArgs, bos []*bo) error {
	seen := make(map[uint32]int, len(a.Relocs))
	for i, r := range a.Relocs {
		switch {
		case r.Space != SpaceUniforms:
			return errorf(EINVAL, "SubmitCompute: reloc %d: space %v (compute jobs patch only uniforms)", i, r.Space)
		case r.Offset%4 != 0 || uint64(r.Offset)+4 > uint64(len(a.Uniforms)):
			return errorf(EINVAL, "SubmitCompute: reloc %d: uniforms offset %#x not a 4-aligned word of the %d bytes", i, r.Offset, len(a.Uniforms))
		}
		if prev, dup := seen[r.Offset]; dup {
			return errorf(EINVAL, "SubmitCompute: reloc %d: uniforms offset %#x already patched by reloc %d", i, r.Offset, prev)
		}
		seen[r.Offset] = i
		switch r.Target {
		case TargetBO:
			if r.BOIndex >= uint32(len(bos)) {
				return errorf(EINVAL, "SubmitCompute: reloc %d: BO index %d out of range (%d BOs)", i, r.BOIndex, len(bos))
			}
			if r.Delta >= bos[r.BOIndex].size() {
				return errorf(EFAULT, "SubmitCompute: reloc %d: offset %#x past BO %d size %#x", i, r.Delta, r.BOIndex, bos[r.BOIndex].size())
			}
		case TargetUniforms:
			if r.Delta > uint32(len(a.Uniforms)) {
				return errorf(EFAULT, "SubmitCompute: reloc %d: offset %#x past uniforms (%#x bytes)", i, r.Delta, len(a.Uniforms))
			}
		default:
			return errorf(EINVAL, "SubmitCompute: reloc %d: target %d (want TargetBO or TargetUniforms)", i, r.Target)
		}
	}
	return nil
}

// checkDispatch validates dispatch i against the dispatch unit's limits
// and the BOs it names.
func checkDispatch(a *SubmitComputeArgs, i int, bos []*bo, threads uint64) error {
	x := &a.Dispatches[i]
	where := func() string { return fmt.Sprintf("SubmitCompute: dispatch %d", i) }
	inv := uint64(x.LocalSize[0]) * uint64(x.LocalSize[1]) * uint64(x.LocalSize[2])
	switch {
	case inv == 0 || inv > MaxComputeInvocations:
		return errorf(EINVAL, "%s: local size %d×%d×%d is not 1..%d invocations", where(), x.LocalSize[0], x.LocalSize[1], x.LocalSize[2], MaxComputeInvocations)
	case !x.Indirect && (x.NumGroups[0] > MaxComputeGroups || x.NumGroups[1] > MaxComputeGroups || x.NumGroups[2] > MaxComputeGroups):
		return errorf(EINVAL, "%s: %d×%d×%d workgroups (at most %d per dimension)", where(), x.NumGroups[0], x.NumGroups[1], x.NumGroups[2], MaxComputeGroups)
	case x.SharedBytes > MaxComputeSharedBytes || x.SharedBytes%4 != 0:
		return errorf(EINVAL, "%s: %d bytes of shared memory (a multiple of 4 up to %d)", where(), x.SharedBytes, MaxComputeSharedBytes)
	case x.UniformsOffset%4 != 0 || x.UniformsOffset > uint32(len(a.Uniforms)):
		return errorf(EINVAL, "%s: uniforms offset %#x is not 4-aligned within the %d bytes of uniforms", where(), x.UniformsOffset, len(a.Uniforms))
	}
	rng := func(what string, addr BOAddress, n uint64, align uint32, write bool) error {
		if addr.BOIndex >= uint32(len(bos)) {
			return errorf(EINVAL, "%s: %s BO index %d out of range (%d BOs)", where(), what, addr.BOIndex, len(bos))
		}
		if addr.Offset%align != 0 {
			return errorf(EINVAL, "%s: %s offset %#x not %d-aligned", where(), what, addr.Offset, align)
		}
		if uint64(addr.Offset)+n > uint64(bos[addr.BOIndex].size()) {
			return errorf(EFAULT, "%s: %s (%d bytes at %#x) past BO %d size %#x", where(), what, n, addr.Offset, addr.BOIndex, bos[addr.BOIndex].size())
		}
		if write && a.BOs[addr.BOIndex].Flags&BOWrite == 0 {
			return errorf(EINVAL, "%s: %s in BO %d, which is not listed with BOWrite", where(), what, addr.BOIndex)
		}
		return nil
	}
	if err := rng("code", x.Code, 8, 8, false); err != nil {
		return err
	}
	if x.ScratchBytesPerThread != 0 {
		if x.ScratchBytesPerThread%4 != 0 {
			return errorf(EINVAL, "%s: ScratchBytesPerThread %d not a multiple of 4", where(), x.ScratchBytesPerThread)
		}
		if err := rng(fmt.Sprintf("scratch of %d threads × %d bytes", threads, x.ScratchBytesPerThread), x.Scratch, threads*uint64(x.ScratchBytesPerThread), 4, true); err != nil {
			return err
		}
	}
	if x.Indirect {
		if err := rng("indirect group counts", x.IndirectCounts, 12, 4, false); err != nil {
			return err
		}
	}
	return nil
}

// dumpComputeCode adds the code of each dispatch of compute job j to a
// crash dump (dumpSingleJob put its list in dp.List).
func (d *Device) dumpComputeCode(dp *Dump, j *job) {
	seen := map[uint32]bool{}
	for off := 0; off+cl.SizeComputeDispatch <= len(dp.List); off += cl.SizeComputeDispatch {
		var x cl.ComputeDispatch
		if x.Unpack(dp.List[off:]) != nil || seen[x.CodeAddress] {
			continue
		}
		seen[x.CodeAddress] = true
		dp.Memory = append(dp.Memory, DumpRange{VA: x.CodeAddress, What: "compute shader", Data: d.readVA(j.ctx, x.CodeAddress, maxShaderDumpBytes)})
	}
}
