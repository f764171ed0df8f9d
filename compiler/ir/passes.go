package ir

import "fmt"

// Pass is one named transformation of a Func.
type Pass struct {
	Name string
	Run  func(f *Func, opts *Options) error
}

// Options configure Run.
type Options struct {
	// Layout places interface variables for the lower_io pass. Required when
	// the Func has Vars.
	Layout *IOLayout
	// UnrollLimit is the most instructions a fully unrolled loop may have;
	// 0 means DefaultUnrollLimit.
	UnrollLimit int
	// Verify runs Verify after every pass (FormInlined after "inline",
	// FormScalar after "scalarize" and "lower_io" have both run), failing
	// on the first violation.
	Verify bool
	// After, if set, is called after every pass (for -dump=PASS).
	After func(pass string, f *Func)
	// Stop, if non-empty, ends the pipeline after the pass of that name.
	Stop string
}

// DefaultUnrollLimit bounds the instructions of an unrolled loop. GLSL ES
// Appendix A loops in real shaders (blur kernels, light loops) run 4..16
// iterations of a few dozen instructions; 4096 keeps those unrolled while a
// pathological loop stays a loop.
const DefaultUnrollLimit = 4096

// IOLayout is the linked placement of a shader's interface variables.
type IOLayout struct {
	// Attributes maps an attribute name to its slot k (VPM words 4k..4k+3).
	Attributes map[string]int
	// Varyings maps a varying name to the scalar varying index of each of
	// its components, -1 for a component the fragment shader does not read.
	Varyings map[string][]int
	// Uniforms maps a uniform name to the storage slot of its first
	// component; its components occupy consecutive slots.
	Uniforms map[string]int
	// PointSize: the vertex shader writes gl_PointSize, so varyings start at
	// output word 5 instead of 4.
	PointSize bool
}

// Passes is the pipeline from FromAST's output to scalar form, in order:
//
//   - inline: every call becomes a copy of its callee's body (Inline), so
//     the passes after it see one function.
//   - copyprop, constfold, dce: clean up what lowering left (phis of loop
//     variables a loop never changes, folded constant expressions).
//   - unroll: loops with a constant trip bound become straight code
//     (copies after a possibly early exit run under If(still active)).
//   - constfold2: folds the unrolled induction variables, which also turns
//     uniform indices that became constant into static slots.
//   - lower_io: Vars → hardware intrinsics (needs Options.Layout).
//   - scalarize: vectors → scalars.
//   - copyprop2, constfold3, cse, dce2: the scalar clean-up; between
//     constfold3 and cse, strength: integer multiplications by constants
//     become shifts and adds (StrengthReduce).
//   - constfold4, copyprop3, dce3: small branch-free Ifs, now that DCE
//     has emptied them, become selects.
//   - licm: pure instructions of a loop body (at any If depth, after
//     nested loops' own) whose operands come from outside the loop move
//     before it; memory reads, derivatives and effects stay (LICM).
var Passes = []Pass{
	{"inline", func(f *Func, _ *Options) error { return Inline(f) }},
	{"copyprop", func(f *Func, _ *Options) error { CopyProp(f); return nil }},
	{"constfold", func(f *Func, _ *Options) error { ConstFold(f); return nil }},
	{"dce", func(f *Func, _ *Options) error { DCE(f); return nil }},
	{"unroll", func(f *Func, o *Options) error { Unroll(f, o.unrollLimit()); return nil }},
	{"constfold2", func(f *Func, _ *Options) error { ConstFold(f); return nil }},
	{"lower_io", func(f *Func, o *Options) error { return LowerIO(f, o.Layout) }},
	{"scalarize", func(f *Func, _ *Options) error { Scalarize(f); return nil }},
	{"copyprop2", func(f *Func, _ *Options) error { CopyProp(f); return nil }},
	{"constfold3", func(f *Func, _ *Options) error { ConstFold(f); return nil }},
	{"strength", func(f *Func, _ *Options) error { StrengthReduce(f); return nil }},
	{"cse", func(f *Func, _ *Options) error { CSE(f); return nil }},
	{"dce2", func(f *Func, _ *Options) error { DCE(f); return nil }},
	// Again, now that DCE has emptied branches: small Ifs become selects.
	{"constfold4", func(f *Func, _ *Options) error { ConstFold(f); return nil }},
	{"copyprop3", func(f *Func, _ *Options) error { CopyProp(f); return nil }},
	{"dce3", func(f *Func, _ *Options) error { DCE(f); return nil }},
	// Loops that stayed loops: invariant work runs once, before them.
	{"licm", func(f *Func, _ *Options) error { LICM(f); return nil }},
}

func (o *Options) unrollLimit() int {
	if o.UnrollLimit > 0 {
		return o.UnrollLimit
	}
	return DefaultUnrollLimit
}

// Run runs Passes over f. With opts.Verify, a pass that leaves f invalid is
// reported by name.
func Run(f *Func, opts Options) error {
	if opts.Verify {
		if err := Verify(f, FormAny); err != nil {
			return fmt.Errorf("before passes: %w", err)
		}
	}
	scalar, io, inlined := false, false, false
	for _, p := range Passes {
		if err := p.Run(f, &opts); err != nil {
			return fmt.Errorf("pass %s: %w", p.Name, err)
		}
		if p.Name == "scalarize" {
			scalar = true
		}
		if p.Name == "lower_io" {
			io = true
		}
		if p.Name == "inline" {
			inlined = true
		}
		if opts.Verify {
			form := FormAny
			switch {
			case scalar && io && inlined:
				form = FormScalar
			case inlined:
				form = FormInlined
			}
			if err := Verify(f, form); err != nil {
				return fmt.Errorf("after pass %s: %w", p.Name, err)
			}
		}
		if opts.After != nil {
			opts.After(p.Name, f)
		}
		if opts.Stop == p.Name {
			break
		}
	}
	return nil
}
