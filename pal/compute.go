package pal

import (
	"encoding/binary"
	"fmt"

	"github.com/tilegpu/tilegpu/compiler"
	"github.com/tilegpu/tilegpu/kernel"
)

// Compute: PAL's compute pipelines and CmdDispatch over the TG GPU's
// COMPUTE engine (docs/hardware.md §9, kernel SubmitCompute). A run of
// dispatches recorded one after another becomes one compute job; the
// dispatch unit runs a job's dispatches in order, each after the previous
// one finished, so a barrier between two dispatches costs nothing.

// ComputePipelineCreateInfo describes a compute pipeline: a GLSL ES 3.10
// compute shader (`#version 310 es`, `layout(local_size_x…) in;`, std430
// buffers, shared variables, barriers, atomics).
type ComputePipelineCreateInfo struct {
	Shader string
}

// ComputePipeline is PAL's IPipeline for compute (bound with
// CmdBindComputePipeline: Go's types stand in for PAL's
// PipelineBindPoint). It is an IGpuMemoryBindable: its memory holds the
// code and the scratch (spill) area.
type ComputePipeline struct {
	dev  *Device
	prog *compiler.ComputeProgram
	binding
	scratchOff uint32
	size       uint64
	// needs[b] is the least size a buffer bound at binding b must have.
	needs map[int]uint64
}

// CreateComputePipeline compiles the compute shader. A compile or link
// failure is an error carrying the compiler's log; a shader beyond the
// device's limits is ErrUnsupported.
func (d *Device) CreateComputePipeline(ci ComputePipelineCreateInfo) (*ComputePipeline, error) {
	prog, err := compiler.CompileCompute(ci.Shader)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidArgument, err)
	}
	lim := d.props.Limits
	ls := prog.LocalSize
	switch {
	case ls[0]*ls[1]*ls[2] > lim.MaxComputeWorkgroupInvocations:
		return nil, fmt.Errorf("%w: local size %d×%d×%d exceeds %d invocations per workgroup", ErrUnsupported, ls[0], ls[1], ls[2], lim.MaxComputeWorkgroupInvocations)
	case prog.SharedBytes > lim.MaxComputeSharedBytes:
		return nil, fmt.Errorf("%w: %d bytes of shared variables exceed %d", ErrUnsupported, prog.SharedBytes, lim.MaxComputeSharedBytes)
	case prog.StorageSize > MaxUserDataEntries:
		return nil, fmt.Errorf("%w: %d words of uniforms exceed the %d user-data entries", ErrUnsupported, prog.StorageSize, MaxUserDataEntries)
	}
	p := &ComputePipeline{dev: d, prog: prog, needs: map[int]uint64{}}
	for _, b := range prog.Buffers {
		if b.Binding < 0 || b.Binding >= MaxStorageBuffers {
			return nil, fmt.Errorf("%w: buffer %q at binding %d (bindings 0..%d)", ErrUnsupported, b.Name, b.Binding, MaxStorageBuffers-1)
		}
		p.needs[b.Binding] = uint64(b.FixedSize)
	}
	for i, u := range prog.Binary.Uniforms {
		switch u.Kind {
		case compiler.UniformStorage, compiler.UniformConstant, compiler.UniformBufferAddress, compiler.UniformBufferSize:
		case compiler.UniformScratchAddress:
			if prog.Binary.ScratchBytesPerThread == 0 {
				return nil, fmt.Errorf("pal: BUG: uniform %d asks for scratch, but the shader has none", i)
			}
		default:
			return nil, fmt.Errorf("%w: uniform stream entry %d has kind %v", ErrUnsupported, i, u.Kind)
		}
	}
	code := uint64(len(prog.Binary.Code)) * 8
	p.scratchOff = uint32((code + 63) &^ 63)
	scratch := uint64(prog.Binary.ScratchBytesPerThread) * uint64(lim.NumComputeThreads)
	if scratch > 256<<20 {
		return nil, fmt.Errorf("%w: the shader needs %d bytes of scratch", ErrUnsupported, scratch)
	}
	p.size = uint64(p.scratchOff) + scratch
	return p, nil
}

// MaxStorageBuffers is the number of storage buffer bindings.
const MaxStorageBuffers = 16

// LocalSize returns the shader's workgroup size.
func (p *ComputePipeline) LocalSize() [3]int { return p.prog.LocalSize }

// UserDataSlot returns the user-data entry where the named uniform starts.
func (p *ComputePipeline) UserDataSlot(name string) (int, bool) {
	s, ok := p.prog.Uniforms[name]
	return s, ok
}

// Listing returns the compiled code's listing (QIR and disassembly).
func (p *ComputePipeline) Listing() string { return p.prog.Binary.Listing() }

// GpuMemoryRequirements implements IGpuMemoryBindable.
func (p *ComputePipeline) GpuMemoryRequirements() GpuMemoryRequirements {
	return GpuMemoryRequirements{Size: p.size, Alignment: 64, Heaps: []GpuHeap{HeapLocal}}
}

// BindGpuMemory implements IGpuMemoryBindable: it writes the code into
// the memory (the range must not be in use by the GPU).
func (p *ComputePipeline) BindGpuMemory(mem *GpuMemory, offset uint64) error {
	if err := p.bind("ComputePipeline", p.GpuMemoryRequirements(), p.dev, mem, offset); err != nil {
		return err
	}
	dst := mem.bytes[offset:]
	for i, w := range p.prog.Binary.Code {
		binary.LittleEndian.PutUint64(dst[8*i:], w)
	}
	return nil
}

// BufferView is a range of memory bound as a storage buffer (PAL's
// BufferViewInfo in a resource table).
type BufferView struct {
	Memory *GpuMemory
	Offset uint64 // 4-aligned
	Size   uint64 // 0: the rest of Memory
}

// CmdBindComputePipeline binds a compute pipeline for CmdDispatch.
func (cb *CmdBuffer) CmdBindComputePipeline(p *ComputePipeline) error {
	if err := cb.check("CmdBindComputePipeline"); err != nil {
		return err
	}
	if p != nil && p.dev != cb.dev {
		return cb.failf(ErrWrongDevice, "CmdBindComputePipeline")
	}
	cb.cpipeline = p
	return nil
}

// CmdBindStorageBuffers binds views to storage buffer bindings first...
// (a view with nil Memory unbinds); a shader's layout(binding = N)
// selects one.
func (cb *CmdBuffer) CmdBindStorageBuffers(first int, views []BufferView) error {
	if err := cb.check("CmdBindStorageBuffers"); err != nil {
		return err
	}
	if first < 0 || first > MaxStorageBuffers || len(views) > MaxStorageBuffers-first {
		return cb.failf(ErrInvalidArgument, "CmdBindStorageBuffers: bindings %d..%d+%d beyond %d", first, first, len(views), MaxStorageBuffers)
	}
	views = append([]BufferView(nil), views...) // Size is filled in below; the caller's slice stays as it was
	for i, v := range views {
		if v.Memory == nil {
			continue
		}
		if v.Memory.dev != cb.dev {
			return cb.failf(ErrWrongDevice, "CmdBindStorageBuffers: binding %d", first+i)
		}
		size := v.Size
		if size == 0 && v.Offset <= v.Memory.size {
			size = v.Memory.size - v.Offset
		}
		if v.Offset%4 != 0 || v.Offset > v.Memory.size || size > v.Memory.size-v.Offset || size > 1<<31 {
			return cb.failf(ErrInvalidArgument, "CmdBindStorageBuffers: binding %d: %d bytes at offset %d of a %d-byte memory", first+i, v.Size, v.Offset, v.Memory.size)
		}
		views[i].Size = size
	}
	if end := first + len(views); end > len(cb.storage) {
		cb.storage = append(cb.storage, make([]BufferView, end-len(cb.storage))...)
	}
	copy(cb.storage[first:], views)
	return nil
}

// CmdDispatch runs the bound compute pipeline over x×y×z workgroups
// (PAL's CmdDispatch). Zero in any dimension records nothing.
func (cb *CmdBuffer) CmdDispatch(x, y, z uint32) error {
	if err := cb.check("CmdDispatch"); err != nil {
		return err
	}
	lim := uint32(cb.dev.props.Limits.MaxComputeWorkgroups)
	if x > lim || y > lim || z > lim {
		return cb.failf(ErrInvalidArgument, "CmdDispatch: %d×%d×%d workgroups (at most %d per dimension)", x, y, z, lim)
	}
	if x == 0 || y == 0 || z == 0 {
		return nil
	}
	return cb.dispatch("CmdDispatch", kernel.ComputeDispatch{NumGroups: [3]uint32{x, y, z}}, nil, 0)
}

// CmdDispatchIndirect runs the bound compute pipeline with the workgroup
// counts the GPU reads (three u32) from mem at offset when the dispatch
// starts (PAL's CmdDispatchIndirect): earlier GPU work may compute them.
// Counts beyond the device limit make the submission fail on the GPU.
func (cb *CmdBuffer) CmdDispatchIndirect(mem *GpuMemory, offset uint64) error {
	if err := cb.check("CmdDispatchIndirect"); err != nil {
		return err
	}
	switch {
	case mem == nil:
		return cb.failf(ErrInvalidArgument, "CmdDispatchIndirect: nil memory")
	case mem.dev != cb.dev:
		return cb.failf(ErrWrongDevice, "CmdDispatchIndirect")
	case offset%4 != 0 || offset > mem.size || mem.size-offset < 12:
		return cb.failf(ErrInvalidArgument, "CmdDispatchIndirect: 12 bytes at offset %d of a %d-byte memory", offset, mem.size)
	}
	return cb.dispatch("CmdDispatchIndirect", kernel.ComputeDispatch{Indirect: true}, mem, offset)
}

// computeJob is what a compute job gathers: its dispatches (their code,
// uniform and buffer addresses refer to the job's BOs and uniforms).
type computeJob struct {
	dispatches []kernel.ComputeDispatch
}

// dispatch validates the bound compute state and appends one dispatch.
func (cb *CmdBuffer) dispatch(cmd string, d kernel.ComputeDispatch, indirect *GpuMemory, indirectOff uint64) error {
	if cb.engine == EngineDma {
		return cb.failf(ErrInvalidArgument, "%s on a DMA command buffer", cmd)
	}
	p := cb.cpipeline
	if p == nil {
		return cb.failf(ErrInvalidArgument, "%s: no compute pipeline bound (CmdBindComputePipeline)", cmd)
	}
	pmem, poff := p.get()
	if pmem == nil {
		return cb.failf(ErrInvalidArgument, "%s: the compute pipeline has no memory bound", cmd)
	}
	// In binding order, so the error names the lowest binding missing.
	for b := range MaxStorageBuffers {
		need, ok := p.needs[b]
		if !ok {
			continue
		}
		if b >= len(cb.storage) || cb.storage[b].Memory == nil {
			return cb.failf(ErrInvalidArgument, "%s: the shader's buffer at binding %d is not bound (CmdBindStorageBuffers)", cmd, b)
		}
		if v := cb.storage[b]; v.Size < need {
			return cb.failf(ErrInvalidArgument, "%s: the buffer at binding %d has %d bytes, the shader's block needs at least %d", cmd, b, v.Size, need)
		}
	}
	if cb.cjob == nil {
		cb.job = nil // the next draw starts a new render job
		j := cb.newJob()
		j.compute = &computeJob{}
		cb.cjob = j
	}
	j := cb.cjob
	rw := kernel.BORead | kernel.BOWrite
	ls := p.prog.LocalSize
	d.LocalSize = [3]uint32{uint32(ls[0]), uint32(ls[1]), uint32(ls[2])}
	d.SharedBytes = uint32(p.prog.SharedBytes)
	d.Code = kernel.BOAddress{BOIndex: j.boIndex(pmem, kernel.BORead), Offset: uint32(poff)}
	if bpt := p.prog.Binary.ScratchBytesPerThread; bpt != 0 {
		d.Scratch = kernel.BOAddress{BOIndex: j.boIndex(pmem, rw), Offset: uint32(poff) + p.scratchOff}
		d.ScratchBytesPerThread = bpt
	}
	if indirect != nil {
		d.IndirectCounts = kernel.BOAddress{BOIndex: j.boIndex(indirect, kernel.BORead), Offset: uint32(indirectOff)}
	}
	d.UniformsOffset = uint32(len(j.unifs))
	for _, u := range p.prog.Binary.Uniforms {
		at := len(j.unifs)
		var v uint32
		switch u.Kind {
		case compiler.UniformStorage:
			v = cb.userWord(int(u.Index))
		case compiler.UniformConstant:
			v = u.Value
		case compiler.UniformBufferAddress:
			bv := cb.storage[u.Index]
			j.relocBO(kernel.SpaceUniforms, at, bv.Memory, rw, bv.Offset)
		case compiler.UniformBufferSize:
			v = uint32(cb.storage[u.Index].Size)
		case compiler.UniformScratchAddress:
			j.relocBO(kernel.SpaceUniforms, at, pmem, rw, poff+uint64(p.scratchOff))
		}
		j.unifs = binary.LittleEndian.AppendUint32(j.unifs, v)
	}
	j.compute.dispatches = append(j.compute.dispatches, d)
	return nil
}

// runCompute submits compute job j. q.mu is held.
func (q *Queue) runCompute(j *job) error {
	// Event waits and timestamps recorded before the dispatches go first
	// (a wait must hold them back).
	if err := q.flushMemOps(); err != nil {
		return err
	}
	a := kernel.SubmitComputeArgs{
		Dispatches: j.compute.dispatches, Uniforms: j.unifs, BOs: j.bos, Relocs: j.relocs,
		InFences: q.inFences(onCompute),
	}
	a.Tag = q.spanTag()
	if err := q.dev.file.SubmitCompute(&a); err != nil {
		return q.submitFailed(a.Tag, err)
	}
	q.waitFences = q.waitFences[:0]
	q.last, q.lastKind = a.OutFence, onCompute
	return nil
}
