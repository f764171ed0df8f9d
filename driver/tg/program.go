package tg

import (
	"encoding/binary"
	"fmt"

	"github.com/tilegpu/tilegpu/pipe"
)

// program is the shader-program CSO: the linked program and, per variant,
// a BO holding its three code blobs.
type program struct {
	pipe.ProgramCSO
	linked   LinkedProgram
	variants map[VariantKey]*compiledVariant
}

// compiledVariant is a variant whose code has been uploaded.
type compiledVariant struct {
	v                   *Variant
	code                *BO
	vsOff, csOff, fsOff uint32
	vertexOutputWords   uint8

	// Pre-shader outputs (UniformDerived words) and its value table,
	// valid for derivedCtx's storage generation derivedGen.
	derived, preVals []uint32
	derivedCtx       *Context
	derivedGen       uint64

	// Spill memory. Each stage addresses its scratch as base +
	// QPU_NUMBER·(its own ScratchBytesPerThread), so stages with different
	// per-thread sizes cannot share one base: thread q's vertex area would
	// overlap thread q+1's fragment area while both run. Each spilling
	// stage therefore gets its own region of the job's scratch BO, numQPUs
	// threads long, at byte offset vsScratch/csScratch/fsScratch (the
	// fragment shader's first, so that with one spilling stage its base is
	// the shader record's ScratchAddress). The record's
	// ScratchBytesPerThread is the sum over the stages, so the range the
	// kernel checks (that times NUM_QPUS) is exactly the regions' union.
	scratchBytesPerThread           uint32
	scratchBytes                    uint32 // size of the scratch BO the variant needs
	vsScratch, csScratch, fsScratch uint32
}

func (cv *compiledVariant) release() {
	if cv.code != nil {
		cv.code.Release()
		cv.code = nil
	}
}

func (p *program) allVariants() []*compiledVariant {
	if p == nil {
		return nil
	}
	out := make([]*compiledVariant, 0, len(p.variants))
	for _, v := range p.variants {
		out = append(out, v)
	}
	return out
}

// CreateProgramState implements pipe.Context.
func (c *Context) CreateProgramState(p pipe.LinkedProgram) (pipe.ProgramHandle, error) {
	if c.destroyed {
		return nil, ErrContextDestroyed
	}
	lp, ok := p.(LinkedProgram)
	if !ok || lp == nil {
		return nil, fmt.Errorf("tg: program was not linked by this driver")
	}
	if !lp.OK() {
		return nil, fmt.Errorf("tg: program did not link: %s", lp.Log())
	}
	return &program{linked: lp, variants: map[VariantKey]*compiledVariant{}}, nil
}

// BindProgramState implements pipe.Context.
func (c *Context) BindProgramState(h pipe.ProgramHandle) {
	p, _ := h.(*program)
	if p != c.prog {
		c.prog = p
		c.dirty |= dirtyProgram
	}
}

// DeleteProgramState implements pipe.Context. Queued jobs keep the code BOs
// they reference alive.
func (c *Context) DeleteProgramState(h pipe.ProgramHandle) {
	p, _ := h.(*program)
	if p == nil {
		return
	}
	if p == c.prog {
		c.prog = nil
		c.dirty |= dirtyProgram
	}
	for _, v := range p.variants {
		v.release()
	}
	p.variants = nil
}

// variant returns the uploaded variant for key, compiling it on first use.
func (c *Context) variant(p *program, key VariantKey) (*compiledVariant, error) {
	if cv := p.variants[key]; cv != nil {
		return cv, nil
	}
	v, err := p.linked.Variant(key)
	if err != nil {
		return nil, fmt.Errorf("tg: compiling shader variant: %w", err)
	}
	if v.VS == nil || v.CS == nil || v.FS == nil {
		return nil, fmt.Errorf("tg: shader variant lacks a stage")
	}
	for _, st := range []struct {
		name string
		b    *Binary
	}{{"vertex", v.VS}, {"coordinate", v.CS}, {"fragment", v.FS}} {
		if err := st.b.checkUniforms(st.name, derivedLen(v)); err != nil {
			return nil, err
		}
	}
	cv, err := c.scratchLayout(v)
	if err != nil {
		return nil, err
	}
	// Code blobs are 8-byte instructions; each starts 64-byte aligned.
	align := func(n uint32) uint32 { return (n + 63) &^ 63 }
	vsOff := uint32(0)
	csOff := align(vsOff + uint32(len(v.VS.Code))*8)
	fsOff := align(csOff + uint32(len(v.CS.Code))*8)
	total := fsOff + uint32(len(v.FS.Code))*8
	bo, err := c.screen.bos.alloc(total, "shader code")
	if err != nil {
		return nil, err
	}
	put := func(off uint32, code []uint64) {
		for i, w := range code {
			binary.LittleEndian.PutUint64(bo.Map[off+uint32(i)*8:], w)
		}
	}
	put(vsOff, v.VS.Code)
	put(csOff, v.CS.Code)
	put(fsOff, v.FS.Code)
	words := 4 + v.NumVaryings
	if v.WritesPointSize {
		words++
	}
	cv.v, cv.code = v, bo
	if v.PreShader != nil {
		cv.derived = make([]uint32, v.PreShader.Len())
		cv.preVals = make([]uint32, v.PreShader.ValueWords())
	}
	cv.vsOff, cv.csOff, cv.fsOff = vsOff, csOff, fsOff
	cv.vertexOutputWords = uint8(words)
	p.variants[key] = &cv
	return &cv, nil
}

// derivedLen is the number of UniformDerived words v's pre-shader computes.
func derivedLen(v *Variant) int {
	if v.PreShader == nil {
		return 0
	}
	return v.PreShader.Len()
}

// evalPreShader brings cv's derived words up to date with c's uniform
// storage: the pre-shader runs once per storage change, not per draw.
func (c *Context) evalPreShader(cv *compiledVariant) {
	if cv.v.PreShader == nil || (cv.derivedCtx == c && cv.derivedGen == c.storageGen) {
		return
	}
	cv.v.PreShader.Eval(c.storage, cv.preVals, cv.derived)
	cv.derivedCtx, cv.derivedGen = c, c.storageGen
	c.preShaderRuns++
}

// maxScratchBytes bounds a variant's scratch BO; a shader needing more has
// gone badly wrong (the compiler spills in 64-byte slots).
const maxScratchBytes = 256 << 20

// scratchLayout places each spilling stage's scratch region (see
// compiledVariant) and returns a compiledVariant with only the scratch
// fields set.
func (c *Context) scratchLayout(v *Variant) (compiledVariant, error) {
	var cv compiledVariant
	qpus := uint64(c.screen.numQPUs)
	var off, perThread uint64
	for _, st := range []struct {
		b   *Binary
		dst *uint32
	}{{v.FS, &cv.fsScratch}, {v.VS, &cv.vsScratch}, {v.CS, &cv.csScratch}} {
		n := uint64(st.b.ScratchBytesPerThread)
		if n == 0 {
			continue
		}
		if n%4 != 0 {
			return cv, fmt.Errorf("tg: scratch of %d bytes per thread is not word aligned", n)
		}
		*st.dst = uint32(off)
		off += n * qpus
		perThread += n
		if off > maxScratchBytes {
			return cv, fmt.Errorf("tg: shaders need %d bytes of scratch for %d threads, more than %d", off, qpus, maxScratchBytes)
		}
	}
	cv.scratchBytesPerThread, cv.scratchBytes = uint32(perThread), uint32(off)
	return cv, nil
}
