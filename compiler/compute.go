package compiler

import (
	"fmt"
	"strings"

	"github.com/tilegpu/tilegpu/compiler/backend"
	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
)

// Compute shaders' uniform stream entries (Index: the buffer binding).
const (
	UniformBufferAddress = ir.UniformBufferAddress // VA of the buffer bound at binding Index
	UniformBufferSize    = ir.UniformBufferSize    // its size in bytes
)

// BufferBinding is one std430 shader storage block of a compute shader.
type BufferBinding = ir.BufferBinding

// ComputeProgram is a compiled GLSL ES 3.10 compute shader: its machine
// code for the COMPUTE engine's dispatch unit (docs/hardware.md §9) and
// what a driver needs to dispatch it.
type ComputeProgram struct {
	Binary *Binary
	// LocalSize is layout(local_size_x/y/z): invocations per workgroup.
	LocalSize [3]int
	// SharedBytes is the workgroup shared memory the shader uses.
	SharedBytes int
	// Buffers are the storage blocks the shader declares. The stream's
	// UniformBufferAddress and UniformBufferSize entries name them by
	// binding (BufferBinding.Binding).
	Buffers []BufferBinding
	// Uniforms maps each default-block uniform to its first storage slot
	// (the UniformStorage entries' Index); StorageSize is the slots used.
	Uniforms    map[string]int
	StorageSize int
}

// CompileCompute compiles a compute shader on its own (it links alone:
// main and its local size). Errors carry the glslangValidator-style log.
func CompileCompute(source string) (p *ComputeProgram, err error) {
	defer internalError(&err)
	unit, errs := glsl.Parse(glsl.Compute, source)
	if errs != nil {
		return nil, fmt.Errorf("compute shader: %s", strings.TrimSpace(errs.InfoLog()))
	}
	if errs := glsl.LinkStage(unit); errs != nil {
		return nil, fmt.Errorf("compute shader: link: %s", strings.TrimSpace(errs.InfoLog()))
	}
	f, err := ir.FromAST(unit)
	if err != nil {
		return nil, fmt.Errorf("compute shader: %w", err)
	}
	if f.Stage != ir.Compute || f.Compute == nil {
		return nil, fmt.Errorf("compute shader: not a compute shader (#version 310 es and layout(local_size_*) in)")
	}
	lay := ir.SequentialLayout(f)
	info := *f.Compute
	if err := ir.Run(f, ir.Options{Layout: lay}); err != nil {
		return nil, fmt.Errorf("compute shader: %w", err)
	}
	b, err := backend.Compile(f, backend.Options{Stage: ir.Compute})
	if err != nil {
		return nil, fmt.Errorf("compute shader: %w", err)
	}
	p = &ComputeProgram{
		Binary: &Binary{Code: b.Code, Uniforms: b.Uniforms, ScratchBytesPerThread: b.ScratchBytesPerThread,
			Stats: b.Stats, compiled: b},
		LocalSize: info.LocalSize, SharedBytes: info.SharedSize, Buffers: info.Buffers,
		Uniforms: lay.Uniforms,
	}
	for _, v := range f.Vars {
		if v.Kind == ir.VarUniform {
			p.StorageSize = max(p.StorageSize, lay.Uniforms[v.Name]+v.Components)
		}
	}
	return p, nil
}
