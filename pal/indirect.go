package pal

import (
	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/kernel"
)

// DrawIndirectArgs is the layout CmdDrawIndirect reads from GPU memory
// (PAL's DrawIndirectArgs, Vulkan's VkDrawIndirectCommand): four
// little-endian uint32s, VertexCount, InstanceCount, FirstVertex,
// FirstInstance (ignored: GLSL ES 1.00 has no instance ID).
const DrawIndirectArgsBytes = 16

// MaxIndirectInstances bounds an indirect draw's InstanceCount; the GPU
// fails the job (the fence reports the error) when memory holds more.
const MaxIndirectInstances = 1024

// CmdDrawIndirect records a non-indexed draw whose arguments the GPU reads
// from mem at offset when it reaches the draw (PAL's CmdDrawIndirectMulti
// with a count of one), so earlier GPU work may have written them. Vertices
// past the end of a bound vertex buffer drop their primitives (robust
// buffer access) instead of reading beyond it; an instance count above
// MaxIndirectInstances or a vertex count above the hardware's limit fails
// the job on the GPU.
func (cb *CmdBuffer) CmdDrawIndirect(mem *GpuMemory, offset uint64) error {
	if cb.state != stateRecording {
		return cb.check("CmdDrawIndirect")
	}
	switch {
	case mem == nil || mem.dev != cb.dev:
		return cb.failf(ErrWrongDevice, "CmdDrawIndirect: nil memory or another device's")
	case offset%4 != 0:
		return cb.failf(ErrInvalidArgument, "CmdDrawIndirect: offset %d not 4-aligned", offset)
	case offset > mem.size || mem.size-offset < DrawIndirectArgsBytes:
		return cb.failf(ErrInvalidArgument, "CmdDrawIndirect: %d argument bytes at offset %d exceed the %d-byte memory", DrawIndirectArgsBytes, offset, mem.size)
	}
	cb.noVertexOffset()
	// Validated as an indexed draw: the vertex count is not known here,
	// so the draw is bounded by what every vertex buffer holds.
	if err := cb.validateDraw(0, true); err != nil {
		return cb.fail(err)
	}
	j := cb.job
	at := j.bclLen
	cl.VertexArrayPrimitivesIndirect{Mode: cb.pipeline.ci.Topology, MaxIndex: cb.maxIndex()}.Pack(cb.reserve(cl.SizeVertexArrayPrimitivesIndirect))
	j.relocBO(kernel.SpaceBinCL, at+cl.AddressFields(cl.OpVertexArrayPrimitivesIndirect)[0], mem, kernel.BORead, offset)
	j.draws++
	return nil
}

// noVertexOffset drops an indexed draw's vertexOffset before a
// non-indexed draw: the attribute records hold it (vertexRange), and
// CmdDraw's vertices start at the buffers' vertex 0.
func (cb *CmdBuffer) noVertexOffset() {
	if cb.baseVertex != 0 {
		cb.baseVertex = 0
		cb.dirty |= dirtyVertexBuffers
	}
}
