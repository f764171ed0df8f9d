// Package platform connects the TG user-mode driver to the rest of the
// stack: Winsys adapts a kernel.File (the ioctl-shaped kernel interface) to
// tg.Winsys, and Compiler adapts package compiler to tg.ShaderCompiler. It
// is the "winsys" layer of a Mesa driver (vc4's libdrm calls), kept apart
// so that driver/tg itself depends on neither and can be tested alone.
//
// Winsys is safe for concurrent use (kernel.File is); Compiler is stateless.
package platform

import (
	"errors"
	"fmt"
	"time"

	"github.com/tilegpu/tilegpu/compiler"
	"github.com/tilegpu/tilegpu/driver/tg"
	"github.com/tilegpu/tilegpu/kernel"
	"github.com/tilegpu/tilegpu/pipe"
)

// Winsys is tg.Winsys over one kernel file.
type Winsys struct {
	F *kernel.File
	// PerfMon, when nonzero, is a perf monitor of F (File.PerfMonCreate)
	// attached to every submission.
	PerfMon uint32
}

var _ tg.Winsys = Winsys{}

// kernelErr keeps the kernel error and makes ENOMEM match tg.ErrNoMemory.
func kernelErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, kernel.ENOMEM) {
		return fmt.Errorf("%w: %w", tg.ErrNoMemory, err)
	}
	if errors.Is(err, kernel.ETIMEDOUT) {
		return fmt.Errorf("%w: %w", tg.ErrTimeout, err)
	}
	return err
}

// CreateBO implements tg.Winsys: CREATE_BO then MMAP_BO.
func (w Winsys) CreateBO(size uint32) (uint32, []byte, error) {
	c := kernel.CreateBOArgs{Size: size}
	if err := w.F.CreateBO(&c); err != nil {
		return 0, nil, kernelErr(err)
	}
	m := kernel.MmapBOArgs{Handle: c.Handle}
	if err := w.F.MmapBO(&m); err != nil {
		_ = w.F.CloseBO(&kernel.CloseBOArgs{Handle: c.Handle})
		return 0, nil, kernelErr(err)
	}
	return c.Handle, m.Mapping, nil
}

// CloseBO implements tg.Winsys.
func (w Winsys) CloseBO(h uint32) error {
	return kernelErr(w.F.CloseBO(&kernel.CloseBOArgs{Handle: h}))
}

// Submit implements tg.Winsys: SUBMIT_CL.
func (w Winsys) Submit(s *tg.Submit) (uint64, error) {
	a := kernel.SubmitCLArgs{
		BinCL: s.BinCL, ShaderRecords: s.ShaderRecords, Uniforms: s.Uniforms,
		BOs:    make([]kernel.BORef, len(s.BOs)),
		Relocs: make([]kernel.Reloc, len(s.Relocs)),
		Color:  renderTarget(s.Color), ZS: renderTarget(s.ZS),
		Width: s.Width, Height: s.Height,
		ClearColor: s.ClearColor, ClearDepth: s.ClearDepth, ClearStencil: s.ClearStencil,
		InFences: s.InFences, PerfMon: w.PerfMon,
	}
	if s.EndOfFrame {
		a.Flags |= kernel.SubmitEndOfFrame
	}
	for i, b := range s.BOs {
		a.BOs[i] = kernel.BORef{Handle: b.Handle, Flags: b.Flags}
	}
	for i, r := range s.Relocs {
		a.Relocs[i] = kernel.Reloc{Space: kernel.RelocSpace(r.Space), Offset: r.Offset,
			Target: kernel.RelocTarget(r.Target), BOIndex: r.BOIndex, Delta: r.Delta}
	}
	if err := w.F.SubmitCL(&a); err != nil {
		return 0, kernelErr(err)
	}
	return a.OutFence, nil
}

func renderTarget(t tg.RenderTarget) kernel.RenderTarget {
	return kernel.RenderTarget{BOIndex: t.BOIndex, Offset: t.Offset, Stride: t.Stride,
		Enabled: t.Enabled, Load: t.Load, Store: t.Store, Clear: t.Clear, Format: t.Format, AllSamples: t.AllSamples}
}

// Wait implements tg.Winsys.
func (w Winsys) Wait(fence uint64, timeout time.Duration) error {
	return kernelErr(w.F.Wait(&kernel.WaitArgs{Fence: fence, Timeout: timeout}))
}

// WaitBO implements tg.Winsys.
func (w Winsys) WaitBO(h uint32, timeout time.Duration) error {
	return kernelErr(w.F.WaitBO(&kernel.WaitBOArgs{Handle: h, Timeout: timeout}))
}

// GetParam implements tg.Winsys. The kernel has no performance-counter
// parameters yet, so the counters report an error.
func (w Winsys) GetParam(p tg.KernelParam) (uint64, error) {
	var kp kernel.Param
	switch p {
	case tg.KernelParamNumCores:
		kp = kernel.ParamNumCores
	case tg.KernelParamNumQPUs:
		kp = kernel.ParamNumQPUs
	case tg.KernelParamResetStatus:
		kp = kernel.ParamResetStatus
	default:
		return 0, fmt.Errorf("platform: kernel parameter %d is not provided by the kernel", p)
	}
	a := kernel.GetParamArgs{Param: kp}
	if err := w.F.GetParam(&a); err != nil {
		return 0, err
	}
	return a.Value, nil
}

// Compiler is tg.ShaderCompiler over package compiler.
type Compiler struct{}

var _ tg.ShaderCompiler = Compiler{}

type shader struct{ s *compiler.Shader }

func (s shader) Stage() pipe.ShaderStage {
	if s.s.Stage == compiler.Fragment {
		return pipe.StageFragment
	}
	return pipe.StageVertex
}
func (s shader) OK() bool    { return s.s.OK }
func (s shader) Log() string { return s.s.Log }

// Compile implements tg.ShaderCompiler.
func (Compiler) Compile(stage pipe.ShaderStage, source string) pipe.CompiledShader {
	st := compiler.Vertex
	if stage == pipe.StageFragment {
		st = compiler.Fragment
	}
	return shader{compiler.CompileShader(st, source)}
}

// Link implements tg.ShaderCompiler.
func (Compiler) Link(vs, fs pipe.CompiledShader, bindings map[string]int) tg.LinkedProgram {
	v, ok1 := vs.(shader)
	f, ok2 := fs.(shader)
	if !ok1 || !ok2 {
		return &program{failLog: "link error: shaders were not compiled by this compiler"}
	}
	p := compiler.Link(v.s, f.s, bindings)
	lp := &program{p: p}
	for _, a := range p.Attributes {
		lp.attrs = append(lp.attrs, pipe.ActiveVariable{Name: a.Name, Type: uint32(a.Type), Size: a.Size, Location: a.Location})
	}
	for _, u := range p.Uniforms {
		lp.unifs = append(lp.unifs, pipe.ActiveVariable{Name: u.Name, Type: uint32(u.Type), Size: u.Size,
			Location: u.Location, Storage: u.Storage, Stride: u.Stride})
	}
	return lp
}

// program is a linked compiler.Program; variants are converted once and cached.
type program struct {
	p            *compiler.Program
	failLog      string
	attrs, unifs []pipe.ActiveVariable
}

func (p *program) OK() bool { return p.p != nil && p.p.OK }
func (p *program) Log() string {
	if p.p == nil {
		return p.failLog
	}
	return p.p.Log
}
func (p *program) Attributes() []pipe.ActiveVariable { return p.attrs }
func (p *program) Uniforms() []pipe.ActiveVariable   { return p.unifs }
func (p *program) StorageSize() int {
	if p.p == nil {
		return 0
	}
	return p.p.StorageSize
}

// Variant implements tg.LinkedProgram. The compiler key is the draw's
// primitive class (non-point draws drop gl_PointSize) with the pre-shader
// enabled (the driver evaluates it). Texture swizzles stay zero: gles
// converts LUMINANCE, LUMINANCE_ALPHA, ALPHA and BGRA texels to RGBA8 at
// upload and the texture descriptor's swizzle field supplies the constant
// alpha of RGB/LUMINANCE, so no texture format changes the code.
func (p *program) Variant(key tg.VariantKey) (*tg.Variant, error) {
	if p.p == nil {
		return nil, errors.New("platform: program did not link")
	}
	v, err := p.p.Variant(compilerKey(key))
	if err != nil {
		return nil, err
	}
	var stages [3]*tg.Binary
	for i, st := range []struct {
		name string
		b    *compiler.Binary
	}{{"vertex", v.VS}, {"coordinate", v.CS}, {"fragment", v.FS}} {
		if stages[i], err = binary(st.name, st.b); err != nil {
			return nil, err
		}
	}
	return &tg.Variant{
		VS: stages[0], CS: stages[1], FS: stages[2],
		Attributes: v.Attributes, NumVaryings: v.NumVaryings, WritesPointSize: v.WritesPointSize,
		FSDiscardsOrWritesZ: v.FSDiscardsOrWritesZ, FSThreaded: v.FSThreaded,
		PreShader: preShader(v.PreShader),
	}, nil
}

// compilerKey maps the driver's variant key to the compiler's.
func compilerKey(k tg.VariantKey) compiler.Key {
	return compiler.Key{NoPoints: !k.PrimitivePoints, PreShader: true}
}

// preShader returns p as a tg.PreShader, and a nil interface for nil.
func preShader(p *compiler.PreShader) tg.PreShader {
	if p == nil {
		return nil
	}
	return p
}

// binary converts one stage's code. A uniform kind the driver does not
// know is an error naming it, never a word the shader would misread.
func binary(stage string, b *compiler.Binary) (*tg.Binary, error) {
	if b == nil {
		return nil, nil
	}
	out := &tg.Binary{Code: b.Code, ScratchBytesPerThread: b.ScratchBytesPerThread, Uniforms: make([]tg.UniformEntry, len(b.Uniforms))}
	for i, u := range b.Uniforms {
		var k tg.UniformKind
		switch u.Kind {
		case compiler.UniformStorage:
			k = tg.UniformStorage
		case compiler.UniformConstant:
			k = tg.UniformConstant
		case compiler.UniformTexture:
			k = tg.UniformTexture
		case compiler.UniformStorageAddress:
			k = tg.UniformStorageAddress
		case compiler.UniformScratchAddress:
			k = tg.UniformScratchAddress
		case compiler.UniformStreamAddress:
			k = tg.UniformStreamAddress
		case compiler.UniformDerived:
			k = tg.UniformDerived
		default:
			return nil, fmt.Errorf("platform: %s shader uniform stream entry %d has kind %v (%d), which the driver does not know", stage, i, u.Kind, uint8(u.Kind))
		}
		out.Uniforms[i] = tg.UniformEntry{Kind: k, Index: u.Index, Value: u.Value}
	}
	return out, nil
}
