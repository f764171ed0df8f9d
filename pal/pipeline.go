package pal

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/tilegpu/tilegpu/compiler"
	"github.com/tilegpu/tilegpu/hw/cl"
)

// VertexInput feeds one vertex shader attribute from a vertex buffer
// binding (CmdSetVertexBuffers).
type VertexInput struct {
	Name       string     // the attribute's name in the vertex shader
	Binding    int        // vertex buffer slot, 0..MaxVertexBuffers-1
	Offset     uint32     // bytes from the start of the vertex
	Type       VertexType // cl.AttrFloat, ...
	Components int        // 1..4
	Normalized bool
}

// RasterizerState is a pipeline's fixed-function rasterizer state.
type RasterizerState struct {
	CullFront, CullBack bool
	FrontFaceCW         bool // clockwise triangles face front (default counter-clockwise)
	DepthBiasEnable     bool
	DepthBiasSlope      float32
	DepthBias           float32
	LineWidth           float32 // 0 means 1
}

// GraphicsPipelineCreateInfo describes a graphics pipeline: GLSL ES 1.00
// vertex and fragment shaders compiled by the compiler driver/tg uses,
// the vertex input layout, and fixed-function state.
type GraphicsPipelineCreateInfo struct {
	VertexShader, FragmentShader string
	VertexInputs                 []VertexInput
	Topology                     PrimitiveType
	Rasterizer                   RasterizerState
}

// MaxVertexBuffers is the number of vertex buffer slots.
const MaxVertexBuffers = 16

// attribSlot is one VPM input of the compiled vertex shaders.
type attribSlot struct {
	input  VertexInput
	elemSz uint32
}

// Pipeline is PAL's IPipeline (graphics). It is an IGpuMemoryBindable:
// its memory holds the three code blobs and the spill (scratch) areas.
type Pipeline struct {
	dev  *Device
	prog *compiler.Program
	v    *compiler.Variant
	ci   GraphicsPipelineCreateInfo
	binding

	attribs []attribSlot
	// Code layout in the bound memory; each blob 64-byte aligned.
	vsOff, csOff, fsOff, codeSize uint32
	// Scratch (docs/hardware.md §7.4), laid out as driver/tg does: each
	// spilling stage its own NumQPUs-thread region, FS first.
	scratchOff                      uint32
	vsScratch, csScratch, fsScratch uint32
	size                            uint64

	record          [cl.SizeShaderRecord]byte // shader record with zero addresses
	config          cl.ConfigurationBits      // rasterizer part
	rasterRecs      [cl.SizeDepthOffset + cl.SizeLineWidth]byte
	usesStorageCopy bool
	usesTextures    bool
}

// CreateGraphicsPipeline compiles and links the shaders. A compile or link
// failure is an error carrying the compiler's log.
func (d *Device) CreateGraphicsPipeline(ci GraphicsPipelineCreateInfo) (*Pipeline, error) {
	if ci.Topology > cl.PrimTriangleFan {
		return nil, fmt.Errorf("%w: topology %d", ErrInvalidArgument, ci.Topology)
	}
	if len(ci.VertexInputs) > d.props.Limits.MaxVertexInputs {
		return nil, fmt.Errorf("%w: %d vertex inputs, at most %d", ErrInvalidArgument, len(ci.VertexInputs), d.props.Limits.MaxVertexInputs)
	}
	bindings := map[string]int{}
	for i, in := range ci.VertexInputs {
		switch {
		case in.Binding < 0 || in.Binding >= MaxVertexBuffers:
			return nil, fmt.Errorf("%w: vertex input %q binding %d not in 0..%d", ErrInvalidArgument, in.Name, in.Binding, MaxVertexBuffers-1)
		case in.Components < 1 || in.Components > 4 || in.Type > cl.AttrFixed:
			return nil, fmt.Errorf("%w: vertex input %q has %d components of type %d", ErrInvalidArgument, in.Name, in.Components, in.Type)
		}
		if _, dup := bindings[in.Name]; dup {
			return nil, fmt.Errorf("%w: vertex input %q given twice", ErrInvalidArgument, in.Name)
		}
		bindings[in.Name] = i
	}
	vs := compiler.CompileShader(compiler.Vertex, ci.VertexShader)
	if !vs.OK {
		return nil, fmt.Errorf("%w: vertex shader: %s", ErrInvalidArgument, strings.TrimSpace(vs.Log))
	}
	fs := compiler.CompileShader(compiler.Fragment, ci.FragmentShader)
	if !fs.OK {
		return nil, fmt.Errorf("%w: fragment shader: %s", ErrInvalidArgument, strings.TrimSpace(fs.Log))
	}
	prog := compiler.Link(vs, fs, bindings)
	if !prog.OK {
		return nil, fmt.Errorf("%w: link: %s", ErrInvalidArgument, strings.TrimSpace(prog.Log))
	}
	for _, sm := range prog.Samplers {
		if sm.Cube {
			return nil, fmt.Errorf("%w: sampler %q: pal has no cube images", ErrUnsupported, sm.Name)
		}
	}
	for _, a := range prog.Attributes {
		if _, ok := bindings[a.Name]; !ok {
			return nil, fmt.Errorf("%w: vertex shader attribute %q has no VertexInput", ErrInvalidArgument, a.Name)
		}
	}
	if prog.StorageSize > MaxUserDataEntries {
		return nil, fmt.Errorf("%w: %d words of uniforms exceed the %d user-data entries", ErrUnsupported, prog.StorageSize, MaxUserDataEntries)
	}
	v, err := prog.Variant(compiler.Key{})
	if err != nil {
		return nil, fmt.Errorf("pal: compiling the pipeline: %w", err)
	}
	p := &Pipeline{dev: d, prog: prog, v: v, ci: ci}
	for k, loc := range v.Attributes {
		if loc < 0 || loc >= len(ci.VertexInputs) {
			return nil, fmt.Errorf("%w: VPM input %d reads attribute location %d, which no VertexInput has", ErrInvalidArgument, k, loc)
		}
		in := ci.VertexInputs[loc]
		size := map[cl.AttributeType]uint32{cl.AttrFloat: 4, cl.AttrByte: 1, cl.AttrUnsignedByte: 1,
			cl.AttrShort: 2, cl.AttrUnsignedShort: 2, cl.AttrFixed: 4}[in.Type]
		p.attribs = append(p.attribs, attribSlot{input: in, elemSz: size * uint32(in.Components)})
	}
	for _, b := range []*compiler.Binary{v.VS, v.CS, v.FS} {
		for i, u := range b.Uniforms {
			switch u.Kind {
			case compiler.UniformStorage, compiler.UniformConstant, compiler.UniformStreamAddress:
			case compiler.UniformTexture:
				p.usesTextures = true
			case compiler.UniformStorageAddress:
				p.usesStorageCopy = true
			case compiler.UniformScratchAddress:
				if b.ScratchBytesPerThread == 0 {
					return nil, fmt.Errorf("pal: BUG: uniform %d asks for scratch, but the shader has none", i)
				}
			default:
				return nil, fmt.Errorf("%w: uniform stream entry %d has kind %v", ErrUnsupported, i, u.Kind)
			}
		}
	}
	align := func(n uint32) uint32 { return (n + 63) &^ 63 }
	p.vsOff = 0
	p.csOff = align(uint32(len(v.VS.Code)) * 8)
	p.fsOff = align(p.csOff + uint32(len(v.CS.Code))*8)
	p.codeSize = p.fsOff + uint32(len(v.FS.Code))*8
	p.scratchOff = align(p.codeSize)
	qpus := uint64(d.props.Limits.NumQPUs)
	var off, perThread uint64
	for _, st := range []struct {
		b   *compiler.Binary
		dst *uint32
	}{{v.FS, &p.fsScratch}, {v.VS, &p.vsScratch}, {v.CS, &p.csScratch}} {
		n := uint64(st.b.ScratchBytesPerThread)
		if n == 0 {
			continue
		}
		*st.dst = uint32(off)
		off += n * qpus
		perThread += n
	}
	if off > 256<<20 {
		return nil, fmt.Errorf("%w: shaders need %d bytes of scratch", ErrUnsupported, off)
	}
	p.size = uint64(p.scratchOff) + off

	var flags uint16
	if !v.FSThreaded {
		flags |= cl.ShaderFlagFragmentSingleThreaded
	}
	if v.WritesPointSize {
		flags |= cl.ShaderFlagVertexWritesPointSize
	}
	if v.FSDiscardsOrWritesZ {
		flags |= cl.ShaderFlagFragmentDiscardsOrWritesZ
	}
	words := 4 + v.NumVaryings
	if v.WritesPointSize {
		words++
	}
	cl.ShaderRecord{Flags: flags, FragmentNumVaryings: uint8(v.NumVaryings), VertexOutputWords: uint8(words),
		ScratchBytesPerThread: uint32(perThread)}.Pack(p.record[:])
	r := ci.Rasterizer
	p.config = cl.ConfigurationBits{EnableForwardFacing: !r.CullFront, EnableReverseFacing: !r.CullBack,
		ClockwisePrimitives: r.FrontFaceCW, EnableDepthOffset: r.DepthBiasEnable}
	cl.DepthOffset{Factor: r.DepthBiasSlope, Units: r.DepthBias}.Pack(p.rasterRecs[:])
	cl.LineWidth{Width: max(r.LineWidth, 1)}.Pack(p.rasterRecs[cl.SizeDepthOffset:])
	return p, nil
}

// UserDataSlot returns the user-data entry (uniform storage word) where
// the named uniform starts ("u_color", "u_mat", "a[2]") and its type; set
// it with CmdSetUserData. Scalars and vector components take one word
// each, matrices are column-major.
func (p *Pipeline) UserDataSlot(name string) (slot int, typ compiler.GLType, ok bool) {
	u, el, ok := p.prog.UniformByName(name)
	if !ok {
		return 0, 0, false
	}
	return u.Storage + el*u.Stride, u.Type, true
}

// UserDataEntries returns how many user-data words the pipeline reads.
func (p *Pipeline) UserDataEntries() int { return p.prog.StorageSize }

// GpuMemoryRequirements implements IGpuMemoryBindable.
func (p *Pipeline) GpuMemoryRequirements() GpuMemoryRequirements {
	return GpuMemoryRequirements{Size: p.size, Alignment: 64, Heaps: []GpuHeap{HeapLocal}}
}

// BindGpuMemory implements IGpuMemoryBindable: it writes the code into
// the memory (the range must not be in use by the GPU).
func (p *Pipeline) BindGpuMemory(mem *GpuMemory, offset uint64) error {
	if err := p.bind("Pipeline", p.GpuMemoryRequirements(), p.dev, mem, offset); err != nil {
		return err
	}
	dst := mem.bytes[offset:]
	for _, blob := range []struct {
		off  uint32
		code []uint64
	}{{p.vsOff, p.v.VS.Code}, {p.csOff, p.v.CS.Code}, {p.fsOff, p.v.FS.Code}} {
		for i, w := range blob.code {
			binary.LittleEndian.PutUint64(dst[blob.off+uint32(i)*8:], w)
		}
	}
	return nil
}
