package deqp

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/tilegpu/tilegpu/compiler/glsl/deqptest"
	"github.com/tilegpu/tilegpu/gl"
)

// Width and Height are the render target size dEQP's shader-library cases
// use (VIEWPORT_WIDTH/HEIGHT = 128). A context given to Runner should have
// a default framebuffer of at least this size; with exactly this size the
// viewport is at (0, 0), as in dEQP when the window is not larger.
const (
	Width  = 128
	Height = 128
)

// clearColor is what dEQP clears to before each draw.
var clearColor = [4]float32{0.125, 0.25, 0.5, 1}

// quad is dEQP_Position: a full-viewport quad, drawn with quadIndices.
var (
	quad = [16]float32{
		-1, -1, 0, 1,
		-1, 1, 0, 1,
		1, -1, 0, 1,
		1, 1, 0, 1,
	}
	quadIndices = [6]uint16{0, 1, 2, 1, 3, 2}
)

// verticesPerDraw is the number of quad vertices each input is replicated for.
const verticesPerDraw = 4

// checkMin and checkMax bound the pixels compared (inclusive), as dEQP
// computes them for a 128-pixel viewport: ceil(0*128 + 1) = 1 and
// floor(128 - 0.5) = 127, leaving out the edge where the two triangles'
// coverage is decided by the fill rule.
const (
	checkMin = 1
	checkMax = 127
)

// maxDrawBuffers is GL_MAX_DRAW_BUFFERS (ES 3.0 / EXT_draw_buffers); it is
// not in the ES 2.0 enum list.
const maxDrawBuffers gl.Enum = 0x8824

// Status is the outcome of one run.
type Status int

// Run outcomes.
const (
	Pass Status = iota
	Fail
	NotSupported
)

func (s Status) String() string {
	return [...]string{"Pass", "Fail", "NotSupported"}[s]
}

// Result is the outcome of one run: one program of a case (a "both" case
// gives two runs, <name>_vertex and <name>_fragment).
type Result struct {
	File   string // the .test file the case came from
	Name   string // dotted group path and program name
	Status Status
	Reason string // why it failed or is not supported; empty on Pass
	// Detail is the evidence of a failure: shader sources, info logs and
	// the values of the failing sub-case. Set only with Options.Verbose.
	Detail string
}

// caseKind is dEQP's case type, which decides attribute naming.
type caseKind int

const (
	kindComplete caseKind = iota
	kindVertexOnly
	kindFragmentOnly
)

// value is a values-block entry with its elements evaluated.
type value struct {
	deqptest.Value
	typ      Type
	elements [][]float64
}

// element returns the element of sub-case k; a single element is used by
// every sub-case, as dEQP does.
func (v *value) element(k int) []float64 {
	if len(v.elements) == 1 {
		return v.elements[0]
	}
	return v.elements[k]
}

// parseValues evaluates a case's values block and returns the values and
// the number of sub-cases (elements of the first output, 1 if none).
func parseValues(vals []deqptest.Value) ([]value, int, error) {
	out := make([]value, len(vals))
	n := 1
	for i, v := range vals {
		t, err := ParseType(v.Type)
		if err != nil {
			return nil, 0, fmt.Errorf("value %s: %v", v.Name, err)
		}
		if t.Kind == Sampler && v.Storage != deqptest.Uniform {
			return nil, 0, fmt.Errorf("value %s: a %s can only be a uniform", v.Name, v.Type)
		}
		if len(v.Elements) == 0 {
			return nil, 0, fmt.Errorf("value %s has no elements", v.Name)
		}
		out[i] = value{Value: v, typ: t}
		for _, e := range v.Elements {
			c, err := ParseElement(t, e)
			if err != nil {
				return nil, 0, fmt.Errorf("value %s: %v", v.Name, err)
			}
			out[i].elements = append(out[i].elements, c)
		}
	}
	for _, v := range out {
		if v.Storage == deqptest.Output {
			n = len(v.elements)
			break
		}
	}
	for _, v := range out {
		if len(v.elements) != 1 && len(v.elements) != n {
			return nil, 0, fmt.Errorf("value %s has %d elements, the case has %d sub-cases", v.Name, len(v.elements), n)
		}
	}
	return out, n, nil
}

// requirements is what a case's require lines ask of the context.
type requirements struct {
	fullGLSL100     bool
	onlyGLSL100     bool
	oneDrawBuffer   bool
	extensions      [][]string // each: any one of these names
	extensionStages [][]string // "vertex", "fragment" for each extensions entry
}

// parseRequirements reads require lines: full_glsl_es_100_support,
// only_glsl_es_100_support, exactly_one_draw_buffer and
// extension { "A" | "B" } in { vertex, fragment }.
func parseRequirements(lines []string) (requirements, error) {
	var r requirements
	for _, l := range lines {
		l = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(l), ";"))
		f := strings.Fields(l)
		if len(f) == 0 {
			return r, fmt.Errorf("empty requirement")
		}
		switch f[0] {
		case "full_glsl_es_100_support":
			r.fullGLSL100 = true
		case "only_glsl_es_100_support":
			r.onlyGLSL100 = true
		case "exactly_one_draw_buffer":
			r.oneDrawBuffer = true
		case "extension":
			rest := strings.TrimSpace(strings.TrimPrefix(l, "extension"))
			names, after, ok := braces(rest)
			if !ok {
				return r, fmt.Errorf("requirement %q: expected extension { \"NAME\" | ... }", l)
			}
			var exts []string
			for _, n := range strings.Split(names, "|") {
				n = strings.Trim(strings.TrimSpace(n), `"`)
				if n == "" {
					return r, fmt.Errorf("requirement %q: empty extension name", l)
				}
				exts = append(exts, n)
			}
			after = strings.TrimSpace(after)
			if !strings.HasPrefix(after, "in") {
				return r, fmt.Errorf("requirement %q: expected 'in { stages }'", l)
			}
			stageList, _, ok := braces(strings.TrimSpace(after[2:]))
			if !ok {
				return r, fmt.Errorf("requirement %q: expected 'in { stages }'", l)
			}
			var stages []string
			for _, s := range strings.Split(stageList, ",") {
				s = strings.TrimSpace(s)
				if s != "vertex" && s != "fragment" {
					return r, fmt.Errorf("requirement %q: unknown stage %q", l, s)
				}
				stages = append(stages, s)
			}
			r.extensions = append(r.extensions, exts)
			r.extensionStages = append(r.extensionStages, stages)
		default:
			return r, fmt.Errorf("unsupported requirement %q", l)
		}
	}
	return r, nil
}

// braces splits "{ inner } rest".
func braces(s string) (inner, rest string, ok bool) {
	if !strings.HasPrefix(s, "{") {
		return "", "", false
	}
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return "", "", false
	}
	return s[1:end], s[end+1:], true
}

// injectExtension adds "#extension name : require" after the #version
// line of src (or at its top), as dEQP does for extension requirements.
func injectExtension(src, name string) string {
	line := "#extension " + name + " : require\n"
	lines := strings.SplitAfter(src, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "//") {
			continue
		}
		if strings.HasPrefix(t, "#version") {
			return strings.Join(lines[:i+1], "") + line + strings.Join(lines[i+1:], "")
		}
		break
	}
	return line + src
}

// build is a compiled and linked program and its objects.
type build struct {
	program    gl.Program
	vs, fs     gl.Shader
	compileOK  bool
	linkOK     bool
	vsLog      string
	fsLog      string
	programLog string
}

func (r *Runner) compile(vsSrc, fsSrc string) *build {
	ctx := r.ctx
	b := &build{compileOK: true}
	b.vs = ctx.CreateShader(gl.VERTEX_SHADER)
	b.fs = ctx.CreateShader(gl.FRAGMENT_SHADER)
	for _, s := range []struct {
		sh  gl.Shader
		src string
		log *string
	}{{b.vs, vsSrc, &b.vsLog}, {b.fs, fsSrc, &b.fsLog}} {
		ctx.ShaderSource(s.sh, s.src)
		ctx.CompileShader(s.sh)
		if ctx.GetShaderi(s.sh, gl.COMPILE_STATUS) == 0 {
			b.compileOK = false
		}
		*s.log = ctx.GetShaderInfoLog(s.sh)
	}
	// dEQP links even when a shader failed to compile.
	b.program = ctx.CreateProgram()
	ctx.AttachShader(b.program, b.vs)
	ctx.AttachShader(b.program, b.fs)
	ctx.LinkProgram(b.program)
	b.linkOK = ctx.GetProgrami(b.program, gl.LINK_STATUS) != 0
	b.programLog = ctx.GetProgramInfoLog(b.program)
	return b
}

func (r *Runner) release(b *build) {
	ctx := r.ctx
	ctx.UseProgram(gl.Program{})
	ctx.DeleteProgram(b.program)
	ctx.DeleteShader(b.vs)
	ctx.DeleteShader(b.fs)
}

// buildVerdict applies ShaderLibraryCase::execute's expectation check. It
// returns the failure reason, or "" if the build matched the expectation.
func buildVerdict(expect deqptest.Expect, compileOK, linkOK bool) string {
	switch expect {
	case deqptest.Pass, deqptest.BuildSuccessful:
		if !compileOK {
			return "expected shaders to compile and link properly, but failed to compile"
		}
		if !linkOK {
			return "expected shaders to compile and link properly, but failed to link"
		}
	case deqptest.CompileFail:
		if compileOK && !linkOK {
			return "expected compilation to fail, but shaders compiled and link failed"
		}
		if compileOK {
			return "expected compilation to fail, but shaders compiled correctly"
		}
	case deqptest.LinkFail:
		if !compileOK {
			return "expected linking to fail, but unable to compile"
		}
		if linkOK {
			return "expected linking to fail, but passed"
		}
	}
	return ""
}

// vertexData lays out one sub-case's vertex attributes in a buffer.
type attribBinding struct {
	name   string // for messages
	loc    gl.Attrib
	size   int // components
	stride int // bytes
	offset int // bytes
}

// setupInputs writes the position and input attributes of sub-case k into
// the array buffer currently bound and enables them. It returns the
// bindings it enabled. Inputs with no attribute location are skipped, as
// in dEQP (the shader may have optimised them away).
func (r *Runner) setupInputs(prog gl.Program, kind caseKind, vals []value, k int, posLoc gl.Attrib) []attribBinding {
	ctx := r.ctx
	data := r.floats[:0]
	data = append(data, quad[:]...)
	bindings := r.bindings[:0]
	bindings = append(bindings, attribBinding{name: "dEQP_Position", loc: posLoc, size: 4, stride: 0, offset: 0})
	for i := range vals {
		v := &vals[i]
		if v.Storage != deqptest.Input {
			continue
		}
		name := v.Name
		if kind == kindFragmentOnly || v.typ.Kind != Float {
			name = "a_" + name
		}
		loc := ctx.GetAttribLocation(prog, name)
		if int32(loc.Value) < 0 {
			continue
		}
		off := len(data) * 4
		el := v.element(k)
		for range verticesPerDraw {
			for _, x := range el {
				data = append(data, float32(x))
			}
		}
		size := v.typ.Size()
		if v.typ.IsMatrix() {
			for c := 0; c < v.typ.Cols; c++ {
				bindings = append(bindings, attribBinding{name: fmt.Sprintf("%s[%d]", name, c),
					loc: gl.Attrib{Value: loc.Value + uint(c)}, size: v.typ.Rows, stride: size * 4, offset: off + c*v.typ.Rows*4})
			}
		} else {
			bindings = append(bindings, attribBinding{name: name, loc: loc, size: size, offset: off})
		}
	}
	r.floats = data
	r.bytes = appendFloats(r.bytes[:0], data)
	ctx.BufferData(gl.ARRAY_BUFFER, r.bytes, gl.STREAM_DRAW)
	for _, b := range bindings {
		ctx.EnableVertexAttribArray(b.loc)
		ctx.VertexAttribPointer(b.loc, b.size, gl.FLOAT, false, b.stride, b.offset)
	}
	r.bindings = bindings
	return bindings
}

func appendFloats(b []byte, f []float32) []byte {
	for _, x := range f {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// setUniform sets a uniform to element k of v, as dEQP's setUniformValue:
// float types with Uniform*fv / UniformMatrix*fv, int, bool and sampler
// types with Uniform*iv. A uniform the program does not have is ignored.
func (r *Runner) setUniform(prog gl.Program, name string, v *value, k int) {
	ctx := r.ctx
	loc := ctx.GetUniformLocation(prog, name)
	if loc.Value < 0 {
		return
	}
	el := v.element(k)
	if v.typ.Kind == Float {
		f := r.uniformF[:0]
		for _, x := range el {
			f = append(f, float32(x))
		}
		r.uniformF = f
		switch {
		case v.typ.Cols == 2:
			ctx.UniformMatrix2fv(loc, f)
		case v.typ.Cols == 3:
			ctx.UniformMatrix3fv(loc, f)
		case v.typ.Cols == 4:
			ctx.UniformMatrix4fv(loc, f)
		case len(f) == 1:
			ctx.Uniform1fv(loc, f)
		case len(f) == 2:
			ctx.Uniform2fv(loc, f)
		case len(f) == 3:
			ctx.Uniform3fv(loc, f)
		default:
			ctx.Uniform4fv(loc, f)
		}
		return
	}
	iv := r.uniformI[:0]
	for _, x := range el {
		iv = append(iv, int32(x))
	}
	r.uniformI = iv
	switch len(iv) {
	case 1:
		ctx.Uniform1iv(loc, iv)
	case 2:
		ctx.Uniform2iv(loc, iv)
	case 3:
		ctx.Uniform3iv(loc, iv)
	default:
		ctx.Uniform4iv(loc, iv)
	}
}

// describeValues formats the values of sub-case k for failure details.
func describeValues(vals []value, k int) string {
	var b strings.Builder
	for i := range vals {
		v := &vals[i]
		src := v.Elements[0]
		if len(v.Elements) > 1 {
			src = v.Elements[k]
		}
		storage := [...]string{"input", "output", "uniform"}[v.Storage]
		fmt.Fprintf(&b, "  %s %s %s = %s\n", storage, v.Type, v.Name, src)
	}
	return b.String()
}

// checkImage reports whether every compared pixel is white in RGB, and
// the first pixel that is not.
func checkImage(px []byte) (ok bool, x, y int, rgb [3]byte) {
	for y := checkMin; y <= checkMax; y++ {
		row := px[y*Width*4:]
		for x := checkMin; x <= checkMax; x++ {
			p := row[x*4 : x*4+3]
			if p[0] != 255 || p[1] != 255 || p[2] != 255 {
				return false, x, y, [3]byte{p[0], p[1], p[2]}
			}
		}
	}
	return true, 0, 0, [3]byte{}
}
