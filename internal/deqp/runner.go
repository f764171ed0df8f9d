// Package deqp runs the Khronos dEQP GLES2 shader-library cases
// (data/gles2/shaders/*.test, parsed and specialised by
// compiler/glsl/deqptest) on any gl.Context, normally the full tilegpu
// stack: GL state tracker, driver, kernel, GPU. It is the engine behind
// `tilegpu deqp` and the conformance test of the whole stack.
//
// Each case is judged as dEQP's ShaderLibraryCase::execute judges it on a
// GLES2 context: both shaders are compiled and the program linked; the
// compile and link status must match the case's expectation (a case that
// requires full_glsl_es_100_support and fails to compile is "not
// supported"); a case expected to pass is then drawn as a 128×128 quad
// once per sub-case, with inputs as vertex attributes and outputs as
// ref_ uniforms the generated shaders compare against, and every interior
// pixel must come out white.
//
// A Runner owns one context and runs cases one after another on it,
// deleting its GL objects after each; Run spreads the cases of many files
// over several Runners (one context and goroutine each), replaces a
// context a case broke or hung, and collects a Report with per-file
// tallies.
package deqp

import (
	"fmt"
	"strings"

	"github.com/tilegpu/tilegpu/compiler/glsl/deqptest"
	"github.com/tilegpu/tilegpu/gl"
)

// Runner runs cases on one gl.Context. It is not safe for concurrent use:
// like the context, it belongs to one goroutine at a time.
type Runner struct {
	ctx     gl.Context
	verbose bool

	extensions map[string]bool // GetString(EXTENSIONS), read once
	es3        bool            // the context is ES 3.x compatible

	// Scratch reused across draws so that a run allocates little.
	pixels   []byte
	floats   []float32
	bytes    []byte
	bindings []attribBinding
	uniformF []float32
	uniformI []int32

	broken bool // a panic left the context in an unknown state
}

// NewRunner returns a Runner drawing on ctx, whose default framebuffer must
// be at least Width×Height. With verbose, failures carry shader sources,
// info logs and values in Result.Detail.
func NewRunner(ctx gl.Context, verbose bool) *Runner {
	r := &Runner{ctx: ctx, verbose: verbose, extensions: map[string]bool{}, pixels: make([]byte, Width*Height*4)}
	for _, e := range strings.Fields(ctx.GetString(gl.EXTENSIONS)) {
		r.extensions[e] = true
	}
	r.es3 = strings.HasPrefix(ctx.GetString(gl.VERSION), "OpenGL ES 3")
	return r
}

// Broken reports whether a panic below the GL API interrupted a case, so
// that the context should be replaced before running more cases.
func (r *Runner) Broken() bool { return r.broken }

// RunCase runs every program of c and returns one Result per program, in
// the order of c.Programs(). file names the source of the case in results.
// A panic in the layers below is reported as a failure of the run in
// progress (and of the runs not yet made) and marks the Runner Broken.
func (r *Runner) RunCase(file string, c *deqptest.Case) (results []Result) {
	progs := c.Programs()
	results = make([]Result, len(progs))
	for i, p := range progs {
		name := p.Name
		if c.Group != "" {
			name = c.Group + "." + p.Name
		}
		results[i] = Result{File: file, Name: name, Status: Fail, Reason: "not run"}
	}
	setAll := func(s Status, reason string) []Result {
		for i := range results {
			results[i].Status, results[i].Reason = s, reason
			if s == Fail && r.verbose {
				results[i].Detail = fmt.Sprintf("vertex shader:\n%sfragment shader:\n%s",
					numbered(progs[i].Vertex), numbered(progs[i].Fragment))
			}
		}
		return results
	}
	done := 0
	defer func() {
		if e := recover(); e != nil {
			r.broken = true
			for i := done; i < len(results); i++ {
				results[i].Status = Fail
				results[i].Reason = fmt.Sprintf("panic: %v", e)
			}
		}
	}()

	switch v := strings.Join(strings.Fields(c.Version), " "); v {
	case "100", "100 es":
	case "300 es":
		return setAll(NotSupported, "GLSL ES 3.00 is not supported")
	default:
		return setAll(Fail, fmt.Sprintf("unknown GLSL ES version %q", c.Version))
	}
	req, err := parseRequirements(c.Requirements)
	if err != nil {
		return setAll(Fail, err.Error())
	}
	if req.onlyGLSL100 && r.es3 {
		// dEQP passes these cases on ES 3 contexts without running them.
		return setAll(Pass, "")
	}
	if req.oneDrawBuffer {
		r.clearErrors()
		var n [1]int32
		r.ctx.GetIntegerv(n[:], maxDrawBuffers)
		// ES 2.0 without EXT_draw_buffers has one draw buffer and no query.
		if r.ctx.GetError() == gl.NO_ERROR && n[0] > 1 {
			return setAll(NotSupported, "Test requires exactly one draw buffer")
		}
	}
	var inject [][2]string // stage, extension
	for i, alts := range req.extensions {
		found := ""
		for _, e := range alts {
			if r.extensions[e] {
				found = e
				break
			}
		}
		if found == "" {
			return setAll(NotSupported, fmt.Sprintf("Test requires any extension of %s", strings.Join(alts, ", ")))
		}
		for _, s := range req.extensionStages[i] {
			inject = append(inject, [2]string{s, found})
		}
	}
	vals, subCases, err := parseValues(c.Values)
	if err != nil {
		return setAll(Fail, err.Error())
	}

	for i, p := range progs {
		kind := kindComplete
		if c.Both != "" {
			kind = kindFragmentOnly
			if strings.HasSuffix(p.Name, "_vertex") {
				kind = kindVertexOnly
			}
		}
		for _, in := range inject {
			if in[0] == "vertex" {
				p.Vertex = injectExtension(p.Vertex, in[1])
			} else {
				p.Fragment = injectExtension(p.Fragment, in[1])
			}
		}
		results[i].Status, results[i].Reason, results[i].Detail = r.runProgram(c, req, kind, p, vals, subCases)
		done = i + 1
	}
	return results
}

// clearErrors drains the GL error flags.
func (r *Runner) clearErrors() {
	for range 16 {
		if r.ctx.GetError() == gl.NO_ERROR {
			return
		}
	}
}

// runProgram builds and, for cases expected to pass, draws one program.
func (r *Runner) runProgram(c *deqptest.Case, req requirements, kind caseKind, p deqptest.Program,
	vals []value, subCases int) (Status, string, string) {
	ctx := r.ctx
	r.clearErrors()
	b := r.compile(p.Vertex, p.Fragment)
	defer r.release(b)
	detail := func(extra string) string {
		if !r.verbose {
			return ""
		}
		var d strings.Builder
		d.WriteString(extra)
		fmt.Fprintf(&d, "vertex shader:\n%s", numbered(p.Vertex))
		if b.vsLog != "" {
			fmt.Fprintf(&d, "vertex shader log:\n%s\n", strings.TrimRight(b.vsLog, "\n"))
		}
		fmt.Fprintf(&d, "fragment shader:\n%s", numbered(p.Fragment))
		if b.fsLog != "" {
			fmt.Fprintf(&d, "fragment shader log:\n%s\n", strings.TrimRight(b.fsLog, "\n"))
		}
		if b.programLog != "" {
			fmt.Fprintf(&d, "program log:\n%s\n", strings.TrimRight(b.programLog, "\n"))
		}
		return d.String()
	}
	if reason := buildVerdict(c.Expect, b.compileOK, b.linkOK); reason != "" {
		if req.fullGLSL100 {
			if !b.compileOK {
				return NotSupported, "Full GLSL ES 100 is not supported", ""
			}
			// dEQP reports this as a quality warning: the features are
			// detectable at compile time, so failing only at link time is a
			// defect, and it is counted as a failure here.
			return Fail, reason + " (dEQP quality warning)", detail("")
		}
		return Fail, reason, detail("")
	}
	if c.Expect != deqptest.Pass {
		return Pass, "", ""
	}

	ctx.Viewport(0, 0, Width, Height)
	ctx.UseProgram(b.program)
	posLoc := ctx.GetAttribLocation(b.program, "dEQP_Position")
	if int32(posLoc.Value) < 0 {
		return Fail, "no location found for attribute 'dEQP_Position'", detail("")
	}
	vbo, ibo := ctx.CreateBuffer(), ctx.CreateBuffer()
	defer func() {
		ctx.BindBuffer(gl.ARRAY_BUFFER, gl.Buffer{})
		ctx.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, gl.Buffer{})
		ctx.DeleteBuffer(vbo)
		ctx.DeleteBuffer(ibo)
	}()
	ctx.BindBuffer(gl.ARRAY_BUFFER, vbo)
	ctx.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, ibo)
	var idx [2 * len(quadIndices)]byte
	for i, v := range quadIndices {
		idx[2*i], idx[2*i+1] = byte(v), byte(v>>8)
	}
	ctx.BufferData(gl.ELEMENT_ARRAY_BUFFER, idx[:], gl.STATIC_DRAW)

	for k := 0; k < subCases; k++ {
		fail := func(reason string, extra string) (Status, string, string) {
			return Fail, reason, detail(fmt.Sprintf("sub-case %d of %d values:\n%s%s", k+1, subCases, describeValues(vals, k), extra))
		}
		bindings := r.setupInputs(b.program, kind, vals, k, posLoc)
		for i := range vals {
			v := &vals[i]
			if v.Storage == deqptest.Output {
				r.setUniform(b.program, "ref_"+v.Name, v, k)
			}
		}
		for i := range vals {
			v := &vals[i]
			if v.Storage == deqptest.Uniform {
				r.setUniform(b.program, v.Name, v, k)
			}
		}
		if e := ctx.GetError(); e != gl.NO_ERROR {
			r.disable(bindings)
			return fail(fmt.Sprintf("GL error 0x%04x setting attributes and uniforms", uint32(e)), "")
		}
		ctx.ClearColor(clearColor[0], clearColor[1], clearColor[2], clearColor[3])
		ctx.Clear(gl.COLOR_BUFFER_BIT)
		ctx.DrawElements(gl.TRIANGLES, len(quadIndices), gl.UNSIGNED_SHORT, 0)
		r.disable(bindings)
		if e := ctx.GetError(); e != gl.NO_ERROR {
			return fail(fmt.Sprintf("GL error 0x%04x from draw", uint32(e)), "")
		}
		ctx.ReadPixels(r.pixels, 0, 0, Width, Height, gl.RGBA, gl.UNSIGNED_BYTE)
		if e := ctx.GetError(); e != gl.NO_ERROR {
			return fail(fmt.Sprintf("GL error 0x%04x from ReadPixels", uint32(e)), "")
		}
		if ok, x, y, rgb := checkImage(r.pixels); !ok {
			return fail(fmt.Sprintf("image comparison failed for sub-case %d of %d", k+1, subCases),
				fmt.Sprintf("first non-white pixel: (%d,%d) = rgb(%d,%d,%d)\n", x, y, rgb[0], rgb[1], rgb[2]))
		}
	}
	return Pass, "", ""
}

func (r *Runner) disable(bindings []attribBinding) {
	for _, b := range bindings {
		r.ctx.DisableVertexAttribArray(b.loc)
	}
}

// numbered prefixes each source line with its number, as compiler logs
// refer to lines.
func numbered(src string) string {
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimRight(src, "\n"), "\n") {
		fmt.Fprintf(&b, "%4d  %s\n", i+1, l)
	}
	return b.String()
}
