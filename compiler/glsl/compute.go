package glsl

import "strconv"

// The GLSL ES 3.10 compute subset: what exists so far.
//
// A shader compiled for the Compute stage must start with "#version 310 es"
// (preprocess.go); that version is refused for vertex and fragment shaders,
// which stay GLSL ES 1.00 and unchanged. In a compute shader the parser
// accepts the input layout declaration
//
//	layout(local_size_x = X, local_size_y = Y, local_size_z = Z) in;
//
// (each part optional, default 1; values are decimal, octal or hex integer
// literals, checked against the limits below before anything is built),
// which sets TranslationUnit.LocalSize. LinkStage reports a compute shader
// without one (GLSL ES 3.10 §4.4.1.1 makes that a link error). Default
// precisions are the vertex shader's (§4.7.4); attributes, varyings and
// the fragment built-ins do not exist.
//
// Not yet accepted (each is reported as an error naming the construct, never
// silently ignored): shader storage blocks (std430 buffers), shared
// variables, uint types, the compute built-in variables and barrier(). A
// layout qualifier or a buffer block in a GLSL ES 1.00 shader is reported as
// needing #version 310 es.

// Compute limits: the values of GL_MAX_COMPUTE_WORK_GROUP_SIZE (per
// dimension) and GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS this implementation
// reports. They are OpenGL ES 3.1's minimum maxima (Table 20.45): the
// compute dispatch unit is not built yet, and the reference interpreter
// runs a workgroup's invocations in lockstep, so its memory grows with
// the product.
const (
	MaxComputeWorkGroupSizeX       = 128
	MaxComputeWorkGroupSizeY       = 128
	MaxComputeWorkGroupSizeZ       = 64
	MaxComputeWorkGroupInvocations = 128
)

// computeExternal parses a global declaration that exists only in GLSL ES
// 3.10 and reports whether it consumed one. In a GLSL ES 1.00 shader it
// only recognises such declarations, to say which version they need
// instead of reporting a syntax error.
func (p *parser) computeExternal() bool {
	t := p.peek()
	if t.kind != tIdent {
		return false
	}
	if t.text == "shared" && p.unit.Version == 310 {
		// A keyword in ES 3.10, so never a user's name here.
		p.skipStatement(t, "shared variables are not supported yet")
		return true
	}
	isLayout := t.text == "layout" && p.peekAt(1).text == "("
	isBuffer := t.text == "buffer" && p.peekAt(1).kind == tIdent && p.peekAt(2).text == "{"
	if !isLayout && !isBuffer {
		return false
	}
	if _, declared := p.lookup(t.text).(*Type); declared {
		return false // a struct named layout/buffer in ES 1.00
	}
	if p.unit.Version != 310 {
		msg := "layout qualifiers require #version 310 es (compute shaders)"
		if isBuffer {
			msg = "shader storage blocks require #version 310 es (compute shaders)"
		}
		p.skipStatement(t, msg)
		return true
	}
	if isBuffer {
		p.skipStatement(t, "shader storage blocks are not supported yet")
		return true
	}
	p.layoutDeclaration()
	return true
}

// skipStatement reports msg at t and skips the declaration it starts
// (through the matching '}' or the ';' ending it).
func (p *parser) skipStatement(t token, msg string) {
	p.errorf(t.line, t.text, msg)
	depth := 0
	for p.peek().kind != tEOF {
		tok := p.next()
		switch tok.text {
		case "(", "{":
			depth++
		case ")", "}":
			depth--
			if depth <= 0 && tok.text == "}" {
				p.accept(";")
				return
			}
		case ";":
			if depth <= 0 {
				return
			}
		}
	}
}

// layoutDeclaration parses "layout ( id = N , ... ) in ;" of a compute
// shader.
func (p *parser) layoutDeclaration() {
	layoutTok := p.next()
	p.expect("(")
	var size [3]int
	var seen [3]bool
	for {
		id := p.ident()
		dim := -1
		switch id.text {
		case "local_size_x":
			dim = 0
		case "local_size_y":
			dim = 1
		case "local_size_z":
			dim = 2
		case "std430", "std140", "shared", "packed", "binding":
			p.errorf(id.line, id.text, "only local_size_x/y/z input layouts are supported yet")
		default:
			p.errorf(id.line, id.text, "unknown layout qualifier")
		}
		if p.accept("=") {
			v := p.next()
			n, ok := layoutValue(v)
			limit := [3]int{MaxComputeWorkGroupSizeX, MaxComputeWorkGroupSizeY, MaxComputeWorkGroupSizeZ}
			names := [3]string{"X", "Y", "Z"}
			switch {
			case !ok:
				p.errorf(v.line, v.text, "layout qualifier value must be an integer literal")
			case dim < 0:
			case n <= 0:
				p.errorf(v.line, v.text, "local size must be at least 1")
			case n > uint64(limit[dim]):
				p.errorf(v.line, v.text, "local size exceeds GL_MAX_COMPUTE_WORK_GROUP_SIZE "+names[dim]+" = "+strconv.Itoa(limit[dim]))
			default:
				if seen[dim] {
					p.errorf(id.line, id.text, "layout qualifier given twice")
				}
				size[dim], seen[dim] = int(n), true
			}
		} else if dim >= 0 {
			p.errorf(id.line, id.text, "local size needs a value")
		}
		if !p.accept(",") {
			break
		}
	}
	p.expect(")")
	storage := p.next()
	if storage.text != "in" {
		p.skipStatement(storage, "only 'layout(local_size_...) in;' is supported yet")
		return
	}
	p.expect(";")
	if !seen[0] && !seen[1] && !seen[2] {
		return // every value was wrong: already reported
	}
	for i := range size {
		if size[i] == 0 {
			size[i] = 1
		}
	}
	if total := size[0] * size[1] * size[2]; total > MaxComputeWorkGroupInvocations {
		p.errorf(layoutTok.line, "local_size", "workgroup of "+strconv.Itoa(total)+" invocations exceeds GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS = "+strconv.Itoa(MaxComputeWorkGroupInvocations))
		return
	}
	if p.unit.LocalSize != [3]int{} && p.unit.LocalSize != size {
		p.errorf(layoutTok.line, "local_size", "local size redeclared with different values (GLSL ES 3.10 §4.4.1.1)")
		return
	}
	p.unit.LocalSize = size
}

// layoutValue reads an integer literal token (decimal, octal or hex)
// without overflow. (ES 3.10's u suffix needs uint literals in the lexer,
// which do not exist yet.)
func layoutValue(t token) (uint64, bool) {
	if t.kind != tNumber {
		return 0, false
	}
	v, err := strconv.ParseUint(t.text, 0, 32)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 1 << 32, true // over every limit; reported as such
		}
		return 0, false
	}
	return v, true
}
