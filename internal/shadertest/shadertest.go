// Package shadertest runs piglit shader_runner files (.shader_test) on any
// gl.Context: the sections [require], [vertex shader], [vertex shader
// passthrough], [fragment shader], [vertex data] and [test], with the test
// commands uniform, draw rect, draw arrays, clear color, clear, probe all
// rgba|rgb, probe rgba|rgb x y, relative probe rect rgba|rgb, link success and
// link error. It is how GL and shader-compiler behaviour is checked against
// the large public body of piglit tests.
package shadertest

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/internal/le"
)

// Test is a parsed .shader_test file.
type Test struct {
	Name        string
	Require     []string // [require] lines, verbatim
	VertexSrc   string   // empty with Passthrough
	Passthrough bool
	FragmentSrc string
	VertexData  *VertexData
	Commands    []Command // the [test] section
}

// VertexData is the [vertex data] section: one attribute per column group.
type VertexData struct {
	Attribs []VertexAttrib
	Rows    [][]float32
}

// VertexAttrib is one "name/type/count" column header.
type VertexAttrib struct {
	Name  string
	Count int
}

// Command is one line of the [test] section.
type Command struct {
	Line int
	Text string
}

// Passthrough is the vertex shader piglit uses for [vertex shader passthrough].
const Passthrough = "attribute vec4 piglit_vertex;\nvoid main() { gl_Position = piglit_vertex; }\n"

// Parse reads a .shader_test file. Errors name the line.
func Parse(name string, r io.Reader) (*Test, error) {
	t := &Test{Name: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	section := ""
	var src *strings.Builder
	var vs, fs strings.Builder
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		trim := strings.TrimSpace(text)
		if strings.HasPrefix(trim, "[") && strings.HasSuffix(trim, "]") {
			section = strings.ToLower(trim[1 : len(trim)-1])
			src = nil
			switch section {
			case "require", "test":
			case "vertex shader":
				src = &vs
			case "vertex shader passthrough":
				t.Passthrough = true
			case "fragment shader":
				src = &fs
			case "vertex data":
				t.VertexData = &VertexData{}
			default:
				return nil, fmt.Errorf("%s:%d: unsupported section [%s]", name, line, section)
			}
			continue
		}
		if src != nil {
			src.WriteString(text)
			src.WriteByte('\n')
			continue
		}
		if trim == "" || strings.HasPrefix(trim, "#") {
			continue
		}
		switch section {
		case "require":
			t.Require = append(t.Require, trim)
		case "vertex data":
			vd := t.VertexData
			if vd.Attribs == nil {
				for _, h := range strings.Fields(trim) {
					p := strings.Split(h, "/")
					if len(p) < 2 {
						return nil, fmt.Errorf("%s:%d: bad vertex data header %q (want name/type/count)", name, line, h)
					}
					n := 1
					if len(p) >= 3 {
						c, err := strconv.Atoi(p[len(p)-1])
						if err != nil || c < 1 || c > 4 {
							return nil, fmt.Errorf("%s:%d: bad component count in %q", name, line, h)
						}
						n = c
					}
					if p[1] != "float" {
						return nil, fmt.Errorf("%s:%d: vertex data type %q not supported (float only)", name, line, p[1])
					}
					vd.Attribs = append(vd.Attribs, VertexAttrib{Name: p[0], Count: n})
				}
				continue
			}
			vals, err := floats(strings.Fields(trim))
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, line, err)
			}
			want := 0
			for _, a := range vd.Attribs {
				want += a.Count
			}
			if len(vals) != want {
				return nil, fmt.Errorf("%s:%d: vertex data row has %d values, header needs %d", name, line, len(vals), want)
			}
			vd.Rows = append(vd.Rows, vals)
		case "test":
			t.Commands = append(t.Commands, Command{Line: line, Text: trim})
		case "":
			return nil, fmt.Errorf("%s:%d: text before the first section", name, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	t.VertexSrc, t.FragmentSrc = vs.String(), fs.String()
	if t.Passthrough {
		t.VertexSrc = Passthrough
	}
	return t, nil
}

// Result is the outcome of running a test.
type Result struct {
	Pass    bool
	Skip    string   // non-empty: not run, and why
	Failure []string // what failed, one line each
}

// Width and Height are the window size piglit's shader_runner uses.
const (
	Width  = 250
	Height = 250
)

// Tolerance is the default per-channel probe tolerance.
const Tolerance = 0.01

// Run executes t on ctx, whose default framebuffer must be Width×Height.
func Run(ctx gl.Context, t *Test) Result {
	for _, r := range t.Require {
		f := strings.Fields(r)
		if len(f) >= 3 && f[0] == "GLSL" && f[1] == "ES" {
			continue // GLSL ES >= 1.00
		}
		if len(f) >= 3 && f[0] == "GLSL" {
			if v, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil && v > 1.0 && !strings.Contains(r, "ES") {
				return Result{Skip: "requires desktop " + r}
			}
			continue
		}
		if len(f) >= 2 && f[0] == "GL" && f[1] == "ES" {
			if v, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil && v > 2.0 {
				return Result{Skip: "requires " + r}
			}
			continue
		}
		if len(f) >= 1 && strings.HasPrefix(f[0], "GL_") {
			if ctx.GetString(gl.EXTENSIONS) == "" || !strings.Contains(" "+ctx.GetString(gl.EXTENSIONS)+" ", " "+f[0]+" ") {
				return Result{Skip: "requires extension " + f[0]}
			}
			continue
		}
		if len(f) >= 2 && f[0] == "GL" {
			return Result{Skip: "requires desktop " + r}
		}
	}
	r := &runner{ctx: ctx, t: t}
	r.run()
	return Result{Pass: len(r.fail) == 0, Failure: r.fail}
}

type runner struct {
	ctx        gl.Context
	t          *Test
	prog       gl.Program
	linked     bool
	linkLog    string
	fail       []string
	clearColor [4]float32
}

func (r *runner) failf(c Command, format string, a ...any) {
	r.fail = append(r.fail, fmt.Sprintf("%s:%d: %s: %s", r.t.Name, c.Line, c.Text, fmt.Sprintf(format, a...)))
}

func (r *runner) build() {
	ctx := r.ctx
	r.prog = ctx.CreateProgram()
	ok := true
	for _, st := range []struct {
		ty  gl.Enum
		src string
	}{{gl.VERTEX_SHADER, r.t.VertexSrc}, {gl.FRAGMENT_SHADER, r.t.FragmentSrc}} {
		if st.src == "" {
			continue
		}
		s := ctx.CreateShader(st.ty)
		ctx.ShaderSource(s, st.src)
		ctx.CompileShader(s)
		if ctx.GetShaderi(s, gl.COMPILE_STATUS) == 0 {
			r.linkLog += ctx.GetShaderInfoLog(s)
			ok = false
		}
		ctx.AttachShader(r.prog, s)
	}
	ctx.BindAttribLocation(r.prog, gl.Attrib{Value: 0}, "piglit_vertex")
	ctx.BindAttribLocation(r.prog, gl.Attrib{Value: 1}, "piglit_texcoord")
	if r.t.VertexData != nil {
		for i, a := range r.t.VertexData.Attribs {
			if a.Name != "piglit_vertex" && a.Name != "piglit_texcoord" {
				ctx.BindAttribLocation(r.prog, gl.Attrib{Value: uint(2 + i)}, a.Name)
			}
		}
	}
	if ok {
		ctx.LinkProgram(r.prog)
		r.linked = ctx.GetProgrami(r.prog, gl.LINK_STATUS) != 0
		r.linkLog += ctx.GetProgramInfoLog(r.prog)
	}
	if r.linked {
		ctx.UseProgram(r.prog)
	}
}

func (r *runner) run() {
	r.build()
	needLink := true
	for _, c := range r.t.Commands {
		switch c.Text {
		case "link success", "link error":
			needLink = false
		}
	}
	if needLink && !r.linked {
		r.fail = append(r.fail, fmt.Sprintf("%s: program did not compile or link: %s", r.t.Name, strings.TrimSpace(r.linkLog)))
		return
	}
	for _, c := range r.t.Commands {
		r.command(c)
	}
}

func (r *runner) command(c Command) {
	ctx := r.ctx
	f := strings.Fields(c.Text)
	switch {
	case c.Text == "link success":
		if !r.linked {
			r.failf(c, "link failed: %s", strings.TrimSpace(r.linkLog))
		}
	case c.Text == "link error":
		if r.linked {
			r.failf(c, "link succeeded")
		}
	case !r.linked:
		r.failf(c, "no linked program")
	case f[0] == "uniform":
		r.uniform(c, f)
	case f[0] == "clear" && len(f) == 1:
		ctx.ClearColor(r.clearColor[0], r.clearColor[1], r.clearColor[2], r.clearColor[3])
		ctx.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	case len(f) == 6 && f[0] == "clear" && f[1] == "color":
		v, err := floats(f[2:])
		if err != nil {
			r.failf(c, "%v", err)
			return
		}
		copy(r.clearColor[:], v)
	case len(f) == 6 && f[0] == "draw" && f[1] == "rect":
		v, err := floats(f[2:])
		if err != nil {
			r.failf(c, "%v", err)
			return
		}
		r.drawRect(v[0], v[1], v[2], v[3])
	case len(f) == 5 && f[0] == "draw" && f[1] == "arrays":
		r.drawArrays(c, f[2:])
	case f[0] == "probe" || (f[0] == "relative" && len(f) > 1 && f[1] == "probe"):
		r.probe(c)
	default:
		r.failf(c, "unsupported command")
	}
	if e := ctx.GetError(); e != gl.NO_ERROR {
		r.failf(c, "GL error 0x%x", uint32(e))
	}
}

func (r *runner) uniform(c Command, f []string) {
	if len(f) < 4 {
		r.failf(c, "uniform needs a type, a name and values")
		return
	}
	ctx := r.ctx
	loc := ctx.GetUniformLocation(r.prog, f[2])
	if loc.Value < 0 {
		r.failf(c, "uniform %q not found", f[2])
		return
	}
	ty := f[1]
	n := map[string]int{"float": 1, "vec2": 2, "vec3": 3, "vec4": 4, "int": 1, "ivec2": 2, "ivec3": 3, "ivec4": 4,
		"bool": 1, "bvec2": 2, "bvec3": 3, "bvec4": 4, "mat2": 4, "mat3": 9, "mat4": 16, "mat2x2": 4, "mat3x3": 9, "mat4x4": 16}[ty]
	if n == 0 {
		r.failf(c, "uniform type %q not supported", ty)
		return
	}
	if len(f)-3 != n {
		r.failf(c, "uniform %s needs %d values, has %d", ty, n, len(f)-3)
		return
	}
	if strings.HasPrefix(ty, "int") || strings.HasPrefix(ty, "ivec") || strings.HasPrefix(ty, "bool") || strings.HasPrefix(ty, "bvec") {
		iv := make([]int32, n)
		for i, s := range f[3:] {
			x, err := strconv.ParseInt(s, 0, 32)
			if err != nil {
				r.failf(c, "bad integer %q", s)
				return
			}
			iv[i] = int32(x)
		}
		switch n {
		case 1:
			ctx.Uniform1iv(loc, iv)
		case 2:
			ctx.Uniform2iv(loc, iv)
		case 3:
			ctx.Uniform3iv(loc, iv)
		case 4:
			ctx.Uniform4iv(loc, iv)
		}
		return
	}
	v, err := floats(f[3:])
	if err != nil {
		r.failf(c, "%v", err)
		return
	}
	switch {
	case strings.HasPrefix(ty, "mat2"):
		ctx.UniformMatrix2fv(loc, v)
	case strings.HasPrefix(ty, "mat3"):
		ctx.UniformMatrix3fv(loc, v)
	case strings.HasPrefix(ty, "mat4"):
		ctx.UniformMatrix4fv(loc, v)
	case n == 1:
		ctx.Uniform1fv(loc, v)
	case n == 2:
		ctx.Uniform2fv(loc, v)
	case n == 3:
		ctx.Uniform3fv(loc, v)
	default:
		ctx.Uniform4fv(loc, v)
	}
}

// drawRect draws piglit_draw_rect's quad: piglit_vertex at location 0 and
// piglit_texcoord (0..1) at location 1, as a triangle strip.
func (r *runner) drawRect(x, y, w, h float32) {
	ctx := r.ctx
	verts := []float32{x, y, 0, 1, x + w, y, 0, 1, x, y + h, 0, 1, x + w, y + h, 0, 1}
	tex := []float32{0, 0, 1, 0, 0, 1, 1, 1}
	b := ctx.CreateBuffer()
	ctx.BindBuffer(gl.ARRAY_BUFFER, b)
	data := append(le.Float32s(verts), le.Float32s(tex)...)
	ctx.BufferData(gl.ARRAY_BUFFER, data, gl.STREAM_DRAW)
	ctx.EnableVertexAttribArray(gl.Attrib{Value: 0})
	ctx.VertexAttribPointer(gl.Attrib{Value: 0}, 4, gl.FLOAT, false, 0, 0)
	ctx.EnableVertexAttribArray(gl.Attrib{Value: 1})
	ctx.VertexAttribPointer(gl.Attrib{Value: 1}, 2, gl.FLOAT, false, 0, len(verts)*4)
	ctx.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	ctx.DisableVertexAttribArray(gl.Attrib{Value: 0})
	ctx.DisableVertexAttribArray(gl.Attrib{Value: 1})
	ctx.BindBuffer(gl.ARRAY_BUFFER, gl.Buffer{})
	ctx.DeleteBuffer(b)
}

var modes = map[string]gl.Enum{
	"GL_POINTS": gl.POINTS, "GL_LINES": gl.LINES, "GL_LINE_LOOP": gl.LINE_LOOP, "GL_LINE_STRIP": gl.LINE_STRIP,
	"GL_TRIANGLES": gl.TRIANGLES, "GL_TRIANGLE_STRIP": gl.TRIANGLE_STRIP, "GL_TRIANGLE_FAN": gl.TRIANGLE_FAN,
}

func (r *runner) drawArrays(c Command, f []string) {
	ctx := r.ctx
	mode, ok := modes[f[0]]
	if !ok {
		r.failf(c, "unknown primitive mode %q", f[0])
		return
	}
	first, err1 := strconv.Atoi(f[1])
	count, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		r.failf(c, "bad first/count")
		return
	}
	vd := r.t.VertexData
	if vd == nil {
		r.failf(c, "draw arrays without [vertex data]")
		return
	}
	stride := 0
	for _, a := range vd.Attribs {
		stride += a.Count
	}
	var data []float32
	for _, row := range vd.Rows {
		data = append(data, row...)
	}
	b := ctx.CreateBuffer()
	ctx.BindBuffer(gl.ARRAY_BUFFER, b)
	ctx.BufferData(gl.ARRAY_BUFFER, le.Float32s(data), gl.STREAM_DRAW)
	var enabled []gl.Attrib
	off := 0
	for _, a := range vd.Attribs {
		loc := ctx.GetAttribLocation(r.prog, a.Name)
		if int32(loc.Value) >= 0 && loc.Value < 64 {
			ctx.EnableVertexAttribArray(loc)
			ctx.VertexAttribPointer(loc, a.Count, gl.FLOAT, false, stride*4, off*4)
			enabled = append(enabled, loc)
		}
		off += a.Count
	}
	ctx.DrawArrays(mode, first, count)
	for _, l := range enabled {
		ctx.DisableVertexAttribArray(l)
	}
	ctx.DeleteBuffer(b)
}

func (r *runner) probe(c Command) {
	f := strings.Fields(strings.NewReplacer("(", " ", ")", " ", ",", " ").Replace(c.Text))
	relative := f[0] == "relative"
	if relative {
		f = f[1:]
	}
	// f: probe [all|rect] rgba|rgb args...
	if len(f) < 3 {
		r.failf(c, "malformed probe")
		return
	}
	x0, y0, w, h := 0, 0, Width, Height
	var kind string
	var args []string
	switch f[1] {
	case "all":
		kind, args = f[2], f[3:]
	case "rect":
		kind = f[2]
		if len(f) < 7 {
			r.failf(c, "malformed probe rect")
			return
		}
		v, err := floats(f[3:7])
		if err != nil {
			r.failf(c, "%v", err)
			return
		}
		if relative {
			x0, y0 = int(v[0]*Width), int(v[1]*Height)
			w, h = int(v[2]*Width), int(v[3]*Height)
		} else {
			x0, y0, w, h = int(v[0]), int(v[1]), int(v[2]), int(v[3])
		}
		args = f[7:]
	default:
		kind = f[1]
		if len(f) < 4 {
			r.failf(c, "malformed probe")
			return
		}
		v, err := floats(f[2:4])
		if err != nil {
			r.failf(c, "%v", err)
			return
		}
		if relative {
			x0, y0 = int(v[0]*Width), int(v[1]*Height)
		} else {
			x0, y0 = int(v[0]), int(v[1])
		}
		w, h = 1, 1
		args = f[4:]
	}
	n := map[string]int{"rgba": 4, "rgb": 3}[kind]
	if n == 0 || len(args) != n {
		r.failf(c, "probe %s needs %d values", kind, n)
		return
	}
	want, err := floats(args)
	if err != nil {
		r.failf(c, "%v", err)
		return
	}
	if w <= 0 || h <= 0 || x0 < 0 || y0 < 0 || x0+w > Width || y0+h > Height {
		r.failf(c, "probe rectangle (%d,%d %dx%d) outside the %dx%d window", x0, y0, w, h, Width, Height)
		return
	}
	px := make([]byte, w*h*4)
	r.ctx.ReadPixels(px, x0, y0, w, h, gl.RGBA, gl.UNSIGNED_BYTE)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			p := px[(y*w+x)*4:]
			for ch := 0; ch < n; ch++ {
				got := float32(p[ch]) / 255
				if math.Abs(float64(got-want[ch])) > Tolerance {
					r.failf(c, "pixel (%d,%d): got %v, want %v", x0+x, y0+y, rgba(p[:n]), want)
					return
				}
			}
		}
	}
}

func rgba(p []byte) []float32 {
	v := make([]float32, len(p))
	for i, b := range p {
		v[i] = float32(math.Round(float64(b)/255*1000)) / 1000
	}
	return v
}

func floats(s []string) ([]float32, error) {
	v := make([]float32, len(s))
	for i, x := range s {
		f, err := strconv.ParseFloat(x, 32)
		if err != nil {
			return nil, fmt.Errorf("bad number %q", x)
		}
		v[i] = float32(f)
	}
	return v, nil
}
