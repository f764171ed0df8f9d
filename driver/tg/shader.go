package tg

import "github.com/tilegpu/tilegpu/pipe"

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

// Variant is the machine code of one program variant.
type Variant struct {
	VS, CS, FS          *Binary
	Attributes          []int // attribute slot k reads GL attribute location Attributes[k]
	NumVaryings         int
	WritesPointSize     bool
	FSDiscardsOrWritesZ bool
	FSThreaded          bool
}

// UniformKind says what one word of a uniform stream holds.
type UniformKind uint8

const (
	UniformStorage        UniformKind = iota // storage[Index]
	UniformConstant                          // Value
	UniformTexture                           // VA of the descriptor of the texture bound to unit storage[Index]
	UniformStorageAddress                    // VA of a copy of the whole uniform storage block
)

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
