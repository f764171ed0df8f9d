// Package compiler is the shader compiler's facade, the part driver/tg and
// gles call: CompileShader (glCompileShader: parse and check, keep the info
// log), Link (glLinkProgram: link checks, active attributes and uniforms with
// their GL names, types, locations and uniform-storage slots, the varying
// layout, the resource counts checked against the glsl.Max* limits —
// Program.Resources, with varyings and uniforms packed by GLSL ES 1.00
// Appendix A §7) and Program.Variant (the machine code for one draw-time state,
// cached per Key).
//
// It strings the three compiler stages of docs/ARCHITECTURE together:
// compiler/glsl (GLSL ES 1.00 → typed AST), compiler/ir (AST → SSA IR →
// optimised scalar IR) and compiler/backend (scalar IR → TG machine code).
// The coordinate shader of a variant is the vertex shader lowered again for
// the Coordinate stage: its varying stores are dropped and DCE removes
// everything only they needed.
package compiler

import (
	"fmt"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
)

// internalError converts a panic inside the compiler (a bug, never bad
// input) into an error, so that one broken shader cannot take the GL
// application down. Use as: defer internalError(&err).
func internalError(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("internal compiler error: %v", r)
	}
}

// Stage is a shader stage.
type Stage int

// Stages.
const (
	Vertex Stage = iota
	Fragment
)

func (s Stage) String() string {
	if s == Vertex {
		return "vertex"
	}
	return "fragment"
}

// Shader is a compiled shader object (glCompileShader's result). It is
// immutable after CompileShader and safe for concurrent use.
type Shader struct {
	Stage  Stage
	Source string
	OK     bool   // GL_COMPILE_STATUS
	Log    string // GL_INFO_LOG

	unit *glsl.TranslationUnit
}

// CompileShader parses and checks source, as glCompileShader does: one
// translation unit on its own, so a missing main is not a compile error
// but a link error (Link). Errors are reported in Log (in
// glslangValidator's format) with OK false, never as a panic.
func CompileShader(stage Stage, source string) (s *Shader) {
	s = &Shader{Stage: stage, Source: source}
	var err error
	defer func() {
		if err != nil {
			s.OK, s.unit = false, nil
			s.Log += "ERROR: 0:0: '' : " + err.Error() + "\n"
		}
	}()
	defer internalError(&err)
	gs := glsl.Vertex
	if stage == Fragment {
		gs = glsl.Fragment
	}
	unit, errs := glsl.Parse(gs, source)
	if errs != nil {
		s.Log = errs.InfoLog()
		return s
	}
	// Lower once now so that constructs the IR cannot express are compile
	// errors rather than link or draw failures. A unit without main
	// compiles (glCompileShader checks one translation unit; GLSL ES 1.00
	// section 7 asks for main in the linked program): Link reports it.
	if unit.Main == nil {
		s.unit, s.OK = unit, true
		return s
	}
	if _, err := ir.FromAST(unit); err != nil {
		s.Log = "ERROR: 0:0: '' : " + err.Error() + "\n"
		return s
	}
	s.unit = unit
	s.OK = true
	return s
}

// UniformEntry describes one word of a uniform stream (see ir.UniformKind).
type UniformEntry = ir.UniformEntry

// Uniform stream entry kinds.
const (
	UniformStorage        = ir.UniformStorage
	UniformConstant       = ir.UniformConstant
	UniformTexture        = ir.UniformTexture
	UniformStorageAddress = ir.UniformStorageAddress
	UniformScratchAddress = ir.UniformScratchAddress
	UniformStreamAddress  = ir.UniformStreamAddress
	UniformDerived        = ir.UniformDerived // word Index of Variant.PreShader's outputs
)
