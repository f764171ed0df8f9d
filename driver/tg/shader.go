package tg

import (
	"fmt"

	"github.com/tilegpu/tilegpu/pipe"
)

// ShaderCompiler is the compiler interface the driver needs. Implementations
// must be safe for concurrent use.
type ShaderCompiler interface {
	Compile(stage pipe.ShaderStage, source string) pipe.CompiledShader
	// Link links shaders returned by Compile.
	Link(vs, fs pipe.CompiledShader, bindings map[string]int) LinkedProgram
}

// LinkedProgram is a linked program that can produce machine code.
type LinkedProgram interface {
	pipe.LinkedProgram
	// Variant compiles (or returns the cached) machine code for a key.
	Variant(key VariantKey) (*Variant, error)
}

// VariantKey is the draw-time state a shader variant depends on.
type VariantKey struct {
	// PrimitivePoints is set for point draws (gl_PointSize is written, point
	// coordinates are used).
	PrimitivePoints bool
}

// PreShader computes a variant's UniformDerived words from the uniform
// storage on the CPU, once per draw after the storage changed (the
// compiler's uniform-only expressions, hoisted out of the shaders).
type PreShader interface {
	// Len is the number of derived words; ValueWords the length of the
	// value table Eval works in (the driver owns both buffers, so a draw
	// allocates nothing).
	Len() int
	ValueWords() int
	Eval(storage, vals, derived []uint32)
}

// Variant is the machine code of one program variant.
type Variant struct {
	VS, CS, FS          *Binary
	Attributes          []int // attribute slot k reads GL attribute location Attributes[k]
	NumVaryings         int
	WritesPointSize     bool
	FSDiscardsOrWritesZ bool
	FSThreaded          bool
	// PreShader is nil unless a stream has UniformDerived entries.
	PreShader PreShader
}

// UniformKind says what one word of a uniform stream holds.
type UniformKind uint8

const (
	UniformStorage        UniformKind = iota // storage[Index]
	UniformConstant                          // Value
	UniformTexture                           // VA of the descriptor of the texture bound to unit storage[Index]
	UniformStorageAddress                    // VA of a copy of the whole uniform storage block
	// UniformScratchAddress is the VA of the stage's spill area
	// (docs/hardware.md §7.4): the shader adds QPU_NUMBER times its own
	// Binary.ScratchBytesPerThread to it.
	UniformScratchAddress
	// UniformStreamAddress is the VA of word 0 of this very stream, for
	// shaders that rewind UNIFORMS_ADDRESS (uniforms read inside a loop).
	UniformStreamAddress
	// UniformDerived is word Index of the variant's PreShader outputs.
	UniformDerived
)

var uniformKindNames = [...]string{"storage", "constant", "texture", "storage address", "scratch address", "stream address", "derived"}

func (k UniformKind) String() string {
	if int(k) < len(uniformKindNames) {
		return uniformKindNames[k]
	}
	return fmt.Sprintf("UniformKind(%d)", uint8(k))
}

// checkUniforms reports the first entry of b's stream whose kind the
// driver cannot write, so a variant fails when it is compiled rather than
// producing a stream the shader would misread.
func (b *Binary) checkUniforms(stage string, derived int) error {
	for i, u := range b.Uniforms {
		if u.Kind > UniformDerived {
			return fmt.Errorf("tg: %s shader uniform stream entry %d has kind %v, which the driver cannot write", stage, i, u.Kind)
		}
		if u.Kind == UniformDerived && int(u.Index) >= derived {
			return fmt.Errorf("tg: %s shader uniform stream entry %d reads derived word %d, but the pre-shader computes %d", stage, i, u.Index, derived)
		}
		if u.Kind == UniformScratchAddress && b.ScratchBytesPerThread == 0 {
			return fmt.Errorf("tg: %s shader uniform stream entry %d asks for the scratch address, but the shader declares no scratch", stage, i)
		}
	}
	return nil
}

// UniformEntry describes one word of a uniform stream.
type UniformEntry struct {
	Kind  UniformKind
	Index uint32
	Value uint32
}

// Binary is one stage's machine code.
type Binary struct {
	Code                  []uint64
	Uniforms              []UniformEntry
	ScratchBytesPerThread uint32
}
