package compiler

import (
	"fmt"

	"github.com/tilegpu/tilegpu/compiler/backend"
	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
)

// MaxSamplers is how many sampler elements a Key can describe: every
// sampler element of a linked program (Link rejects more than
// GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS active ones).
const MaxSamplers = glsl.MaxCombinedTextureImageUnits

// Channel says where one channel of a texture fetch result comes from; the
// zero value keeps it.
type Channel = ir.Channel

// Channel sources.
const (
	ChannelSame = ir.ChannelSame
	ChannelR    = ir.ChannelR
	ChannelG    = ir.ChannelG
	ChannelB    = ir.ChannelB
	ChannelA    = ir.ChannelA
	ChannelZero = ir.ChannelZero
	ChannelOne  = ir.ChannelOne
)

// Key is the draw-time state that changes the generated code. The zero
// Key is the plain program.
type Key struct {
	// TexSwizzle[i] remaps the channels fetched through Program.Samplers[i]
	// (for texture formats the descriptor alone cannot express).
	TexSwizzle [MaxSamplers][4]Channel
	// NoPoints says the draw rasterises no points (lines or triangles):
	// the vertex shader's gl_PointSize write is dropped (Variant.
	// WritesPointSize is false: one output word less per vertex) and
	// gl_PointCoord reads 0 (undefined outside point draws, GLSL ES 1.00
	// §7.2). See ir.SpecializeNonPoints.
	NoPoints bool
	// PreShader lets the compiler move computations on uniforms and
	// constants alone into Variant.PreShader, which the driver evaluates
	// once per draw (when the storage changed) and whose outputs it writes
	// for UniformDerived stream entries. Without it (the zero Key) no
	// stream has UniformDerived entries. See ir.HoistUniformExprs.
	PreShader bool
}

// PreShader computes a variant's UniformDerived words from the uniform
// storage on the CPU (ir.HoistUniformExprs describes which work it holds
// and why its results are the shader's, bit for bit).
type PreShader = ir.PreShader

// Variant is the machine code of a program for one Key.
type Variant struct {
	VS, CS, FS *Binary
	// Attributes[k] is the GL attribute location VPM input slot k reads
	// (words 4k..4k+3).
	Attributes          []int
	NumVaryings         int
	WritesPointSize     bool
	FSDiscardsOrWritesZ bool
	FSThreaded          bool
	// PreShader is non-nil when a stage reads UniformDerived entries
	// (only with Key.PreShader): the driver runs PreShader.Eval(storage,
	// vals, derived) with len(vals) ≥ len(PreShader.Ops) and
	// len(derived) ≥ PreShader.Len() before writing the streams.
	PreShader *PreShader
}

// Binary is one compiled shader stage.
type Binary struct {
	Code                  []uint64
	Uniforms              []UniformEntry // the stream the driver writes, in order
	ScratchBytesPerThread uint32
	Stats                 Stats

	compiled *backend.Binary // for Listing
}

// Listing is the stage's allocated QIR and disassembly, for debugging
// (formatted on each call; empty for a Binary not made by Variant).
func (b *Binary) Listing() string {
	if b.compiled == nil {
		return ""
	}
	return b.compiled.Listing()
}

// Stats describes a compiled shader (instructions, spills, fills, ...).
type Stats = backend.Stats

// CacheStats counts Variant lookups.
type CacheStats struct {
	Hits, Misses int
	Variants     int
}

// Cache reports the variant cache's counters.
func (p *Program) Cache() CacheStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	s.Variants = len(p.variants)
	return s
}

// Variant returns the code for key, compiling it on first use. A failed
// compilation is returned as an error (and not cached).
func (p *Program) Variant(key Key) (*Variant, error) {
	if !p.OK {
		return nil, fmt.Errorf("compiler: program is not linked")
	}
	if p.vs == nil || p.fs == nil {
		return nil, fmt.Errorf("compiler: a shader linked alone (LinkAlone) has no code; link a vertex and a fragment shader")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if v, ok := p.variants[key]; ok {
		p.stats.Hits++
		return v, nil
	}
	p.stats.Misses++
	v, err := p.compileVariant(key)
	if err != nil {
		return nil, err
	}
	p.variants[key] = v
	return v, nil
}

// swizzler maps a sampler storage slot to the key's channel remap.
func (p *Program) swizzler(key Key) func(slot int) [4]Channel {
	return func(slot int) [4]Channel {
		for i, s := range p.Samplers {
			if s.Storage == slot && i < MaxSamplers {
				return key.TexSwizzle[i]
			}
		}
		return [4]Channel{}
	}
}

// BuildIR returns the scalar IR of one stage of the program for key, as
// the backend receives it (for tools and tests). stage is ir.Vertex,
// ir.Coordinate or ir.Fragment.
func (p *Program) BuildIR(stage ir.Stage, key Key) (*ir.Func, error) {
	sh, lay := p.vs, p.vsLayout
	if stage == ir.Fragment {
		sh, lay = p.fs, p.fsLayout
	}
	f, err := ir.FromAST(sh.unit)
	if err != nil {
		return nil, err
	}
	if stage == ir.Coordinate {
		f.Stage = ir.Coordinate
	}
	if err := ir.Run(f, ir.Options{Layout: lay}); err != nil {
		return nil, err
	}
	ir.RemapTextureChannels(f, p.swizzler(key))
	ir.DCE(f)
	return f, nil
}

func (p *Program) compileVariant(key Key) (v *Variant, err error) {
	defer internalError(&err)
	v = &Variant{
		Attributes:      append([]int(nil), p.attributeSlot...),
		NumVaryings:     p.NumVaryings,
		WritesPointSize: p.WritesPointSize && !key.NoPoints,
	}
	var pre [3]*ir.PreShader
	stage := func(s ir.Stage, threaded bool) (*Binary, *ir.Func, error) {
		f, err := p.BuildIR(s, key)
		if err != nil {
			return nil, nil, fmt.Errorf("compiler: %s shader: %w", s, err)
		}
		if key.NoPoints {
			ir.SpecializeNonPoints(f, p.WritesPointSize)
		}
		if key.PreShader {
			// Outputs are numbered in compilation order: VS, CS, FS
			// (the FS may be compiled twice; its second pre-shader
			// replaces the first).
			first := 0
			switch s {
			case ir.Coordinate:
				first = pre[0].Len()
			case ir.Fragment:
				first = pre[0].Len() + pre[1].Len()
			}
			q := ir.HoistUniformExprs(f, first)
			switch s {
			case ir.Vertex:
				pre[0] = q
			case ir.Coordinate:
				pre[1] = q
			default:
				pre[2] = q
			}
		}
		b, err := backend.Compile(f, backend.Options{Stage: s, Threaded: threaded})
		if err != nil {
			return nil, f, fmt.Errorf("compiler: %s shader: %w", s, err)
		}
		return &Binary{Code: b.Code, Uniforms: b.Uniforms, ScratchBytesPerThread: b.ScratchBytesPerThread,
			Stats: b.Stats, compiled: b}, f, nil
	}
	if v.VS, _, err = stage(ir.Vertex, false); err != nil {
		return nil, err
	}
	if v.CS, _, err = stage(ir.Coordinate, false); err != nil {
		return nil, err
	}
	// Two fragment threads per core hide TMU latency but halve the
	// registers; use them only when that costs no spills.
	fs, ff, err := stage(ir.Fragment, true)
	if err == nil && fs.Stats.Spills == 0 {
		v.FS, v.FSThreaded = fs, true
	} else if v.FS, ff, err = stage(ir.Fragment, false); err != nil {
		return nil, err
	}
	ff.Walk(func(in *ir.Instr) {
		if in.Op == ir.OpDiscardIf {
			v.FSDiscardsOrWritesZ = true
		}
	})
	v.PreShader = joinPreShaders(pre[:])
	return v, nil
}

// joinPreShaders concatenates the stages' pre-shaders (whose outputs are
// already numbered consecutively) into one, or nil when none has outputs.
func joinPreShaders(stages []*ir.PreShader) *ir.PreShader {
	var out *ir.PreShader
	for _, q := range stages {
		if q.Len() == 0 {
			continue
		}
		if out == nil {
			out = &ir.PreShader{First: q.First}
		}
		base := int32(len(out.Ops))
		for _, op := range q.Ops {
			if op.Op != ir.OpConst && op.Op != ir.OpLoadUniform {
				op.Args[0] += base
				op.Args[1] += base
			}
			out.Ops = append(out.Ops, op)
		}
		for _, o := range q.Outputs {
			out.Outputs = append(out.Outputs, o+base)
		}
	}
	return out
}
