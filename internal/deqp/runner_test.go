package deqp

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/compiler/glsl/deqptest"
	"github.com/tilegpu/tilegpu/gl"
)

// fakeGL is a gl.Context that records what the runner asks of it. Methods
// the runner should not call are left to the nil embedded interface and
// panic.
type fakeGL struct {
	gl.Context

	extensions string
	compileOK  func(src string) bool // nil: every shader compiles
	linkOK     bool
	attribs    map[string]uint // attribute locations of the linked program
	uniforms   []string        // uniform names the program has
	// pixel returns the colour ReadPixels reports at (x, y).
	pixel func(x, y int) [4]byte

	sources  []string // ShaderSource, in order
	viewport [4]int
	err      gl.Enum

	buffers   map[uint32][]byte
	bound     map[gl.Enum]uint32
	nextName  uint32
	pointers  map[uint]attribPointer
	enabled   map[uint]bool
	uniformed map[string][]float32 // last value set per uniform name
	live      map[string]int       // objects created and not deleted, by kind
	draws     []drawRecord
}

type attribPointer struct {
	buffer               uint32
	size, stride, offset int
}

// drawRecord is what one DrawElements saw: the per-vertex values of every
// enabled attribute and the uniforms set so far.
type drawRecord struct {
	mode, ty      gl.Enum
	count, offset int
	indices       []uint16
	attribs       map[uint][][]float32 // location → vertex → components
	uniforms      map[string][]float32
	clear         [4]float32
	cleared       bool
}

func newFakeGL() *fakeGL {
	return &fakeGL{
		linkOK:    true,
		attribs:   map[string]uint{"dEQP_Position": 0},
		pixel:     func(x, y int) [4]byte { return [4]byte{255, 255, 255, 255} },
		buffers:   map[uint32][]byte{},
		bound:     map[gl.Enum]uint32{},
		pointers:  map[uint]attribPointer{},
		enabled:   map[uint]bool{},
		uniformed: map[string][]float32{},
		live:      map[string]int{},
	}
}

func (f *fakeGL) name(kind string) uint32 {
	f.nextName++
	f.live[kind]++
	return f.nextName
}

func (f *fakeGL) GetString(p gl.Enum) string {
	switch p {
	case gl.EXTENSIONS:
		return f.extensions
	case gl.VERSION:
		return "OpenGL ES 2.0 fake"
	}
	return ""
}
func (f *fakeGL) GetError() gl.Enum { e := f.err; f.err = gl.NO_ERROR; return e }
func (f *fakeGL) GetIntegerv(dst []int32, p gl.Enum) {
	f.err = gl.INVALID_ENUM // ES 2.0 has no GL_MAX_DRAW_BUFFERS
}
func (f *fakeGL) CreateShader(ty gl.Enum) gl.Shader    { return gl.Shader{Value: f.name("shader")} }
func (f *fakeGL) DeleteShader(s gl.Shader)             { f.live["shader"]-- }
func (f *fakeGL) ShaderSource(s gl.Shader, src string) { f.sources = append(f.sources, src) }
func (f *fakeGL) CompileShader(s gl.Shader)            {}
func (f *fakeGL) GetShaderi(s gl.Shader, p gl.Enum) int {
	if p == gl.COMPILE_STATUS && f.compileOK != nil && !f.compileOK(f.sources[len(f.sources)-1]) {
		return 0
	}
	return 1
}
func (f *fakeGL) GetShaderInfoLog(s gl.Shader) string    { return "" }
func (f *fakeGL) CreateProgram() gl.Program              { return gl.Program{Init: true, Value: f.name("program")} }
func (f *fakeGL) DeleteProgram(p gl.Program)             { f.live["program"]-- }
func (f *fakeGL) AttachShader(p gl.Program, s gl.Shader) {}
func (f *fakeGL) LinkProgram(p gl.Program)               {}
func (f *fakeGL) GetProgrami(p gl.Program, pn gl.Enum) int {
	if pn == gl.LINK_STATUS && f.linkOK {
		return 1
	}
	return 0
}
func (f *fakeGL) GetProgramInfoLog(p gl.Program) string { return "" }
func (f *fakeGL) UseProgram(p gl.Program)               {}
func (f *fakeGL) Viewport(x, y, w, h int)               { f.viewport = [4]int{x, y, w, h} }
func (f *fakeGL) GetAttribLocation(p gl.Program, name string) gl.Attrib {
	if l, ok := f.attribs[name]; ok {
		return gl.Attrib{Value: l}
	}
	return gl.Attrib{Value: ^uint(0)}
}
func (f *fakeGL) GetUniformLocation(p gl.Program, name string) gl.Uniform {
	for i, u := range f.uniforms {
		if u == name {
			return gl.Uniform{Value: int32(i)}
		}
	}
	return gl.Uniform{Value: -1}
}
func (f *fakeGL) CreateBuffer() gl.Buffer                { return gl.Buffer{Value: f.name("buffer")} }
func (f *fakeGL) DeleteBuffer(b gl.Buffer)               { f.live["buffer"]-- }
func (f *fakeGL) BindBuffer(target gl.Enum, b gl.Buffer) { f.bound[target] = b.Value }
func (f *fakeGL) BufferData(target gl.Enum, src []byte, usage gl.Enum) {
	f.buffers[f.bound[target]] = append([]byte(nil), src...)
}
func (f *fakeGL) EnableVertexAttribArray(a gl.Attrib)  { f.enabled[a.Value] = true }
func (f *fakeGL) DisableVertexAttribArray(a gl.Attrib) { delete(f.enabled, a.Value) }
func (f *fakeGL) VertexAttribPointer(a gl.Attrib, size int, ty gl.Enum, norm bool, stride, offset int) {
	if ty != gl.FLOAT || norm {
		f.err = gl.INVALID_ENUM
	}
	f.pointers[a.Value] = attribPointer{buffer: f.bound[gl.ARRAY_BUFFER], size: size, stride: stride, offset: offset}
}

func (f *fakeGL) setUniform(u gl.Uniform, v []float32) {
	if u.Value < 0 || int(u.Value) >= len(f.uniforms) {
		f.err = gl.INVALID_OPERATION
		return
	}
	f.uniformed[f.uniforms[u.Value]] = append([]float32(nil), v...)
}
func ints(v []int32) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}
func (f *fakeGL) Uniform1fv(u gl.Uniform, v []float32) { f.setUniform(u, v) }
func (f *fakeGL) Uniform2fv(u gl.Uniform, v []float32) { f.setUniform(u, v) }
func (f *fakeGL) Uniform3fv(u gl.Uniform, v []float32) { f.setUniform(u, v) }
func (f *fakeGL) Uniform4fv(u gl.Uniform, v []float32) { f.setUniform(u, v) }
func (f *fakeGL) UniformMatrix2fv(u gl.Uniform, v []float32) {
	f.setUniform(u, append([]float32{-2}, v...))
}
func (f *fakeGL) UniformMatrix3fv(u gl.Uniform, v []float32) {
	f.setUniform(u, append([]float32{-3}, v...))
}
func (f *fakeGL) UniformMatrix4fv(u gl.Uniform, v []float32) {
	f.setUniform(u, append([]float32{-4}, v...))
}
func (f *fakeGL) Uniform1iv(u gl.Uniform, v []int32) { f.setUniform(u, ints(v)) }
func (f *fakeGL) Uniform2iv(u gl.Uniform, v []int32) { f.setUniform(u, ints(v)) }
func (f *fakeGL) Uniform3iv(u gl.Uniform, v []int32) { f.setUniform(u, ints(v)) }
func (f *fakeGL) Uniform4iv(u gl.Uniform, v []int32) { f.setUniform(u, ints(v)) }

func (f *fakeGL) ClearColor(r, g, b, a float32) {
	f.draws = append(f.draws, drawRecord{clear: [4]float32{r, g, b, a}})
}
func (f *fakeGL) Clear(mask gl.Enum) {
	if mask == gl.COLOR_BUFFER_BIT && len(f.draws) > 0 {
		f.draws[len(f.draws)-1].cleared = true
	}
}

func (f *fakeGL) DrawElements(mode gl.Enum, count int, ty gl.Enum, offset int) {
	d := &f.draws[len(f.draws)-1]
	d.mode, d.count, d.ty, d.offset = mode, count, ty, offset
	ib := f.buffers[f.bound[gl.ELEMENT_ARRAY_BUFFER]]
	for i := 0; i+1 < len(ib); i += 2 {
		d.indices = append(d.indices, binary.LittleEndian.Uint16(ib[i:]))
	}
	d.attribs = map[uint][][]float32{}
	for loc := range f.enabled {
		p := f.pointers[loc]
		data := f.buffers[p.buffer]
		stride := p.stride
		if stride == 0 {
			stride = 4 * p.size
		}
		for v := 0; v < 4; v++ {
			var comps []float32
			for c := 0; c < p.size; c++ {
				at := p.offset + v*stride + 4*c
				if at+4 > len(data) {
					f.err = gl.INVALID_OPERATION
					return
				}
				comps = append(comps, math.Float32frombits(binary.LittleEndian.Uint32(data[at:])))
			}
			d.attribs[loc] = append(d.attribs[loc], comps)
		}
	}
	d.uniforms = map[string][]float32{}
	for k, v := range f.uniformed {
		d.uniforms[k] = v
	}
}

func (f *fakeGL) ReadPixels(dst []byte, x, y, w, h int, format, ty gl.Enum) {
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			p := f.pixel(x+i, y+j)
			copy(dst[(j*w+i)*4:], p[:])
		}
	}
}

func TestBuildVerdict(t *testing.T) {
	tests := []struct {
		expect            deqptest.Expect
		compileOK, linkOK bool
		want              string
	}{
		{deqptest.Pass, true, true, ""},
		{deqptest.Pass, false, false, "expected shaders to compile and link properly, but failed to compile"},
		{deqptest.Pass, true, false, "expected shaders to compile and link properly, but failed to link"},
		{deqptest.BuildSuccessful, true, true, ""},
		{deqptest.BuildSuccessful, true, false, "expected shaders to compile and link properly, but failed to link"},
		{deqptest.CompileFail, false, false, ""},
		{deqptest.CompileFail, true, false, "expected compilation to fail, but shaders compiled and link failed"},
		{deqptest.CompileFail, true, true, "expected compilation to fail, but shaders compiled correctly"},
		{deqptest.LinkFail, true, false, ""},
		{deqptest.LinkFail, false, false, "expected linking to fail, but unable to compile"},
		{deqptest.LinkFail, true, true, "expected linking to fail, but passed"},
	}
	for _, tt := range tests {
		if got := buildVerdict(tt.expect, tt.compileOK, tt.linkOK); got != tt.want {
			t.Errorf("buildVerdict(%v, compile %v, link %v) = %q; want %q", tt.expect, tt.compileOK, tt.linkOK, got, tt.want)
		}
	}
}

// parseCase parses one case from .test text.
func parseCase(t *testing.T, src string) *deqptest.Case {
	t.Helper()
	cases, err := deqptest.Parse(src)
	if err != nil || len(cases) != 1 {
		t.Fatalf("parsing the test case: %v (%d cases)", err, len(cases))
	}
	return &cases[0]
}

const setupCase = `
case setup
	values
	{
		input float in0 = [ 1.0 | 2.0 ];
		input ivec2 in1 = [ ivec2(3, 4) | ivec2(5, 6) ];
		input mat2 in2 = [ mat2(1.0, 2.0, 3.0, 4.0) | mat2(2.0) ];
		output vec2 out0 = [ vec2(7.0, 8.0) | vec2(9.0, 10.0) ];
		output bool out1 = [ true | false ];
		uniform float u = 0.5;
		uniform mat3 m = mat3(1.0);
	}
	both ""
		${DECLARATIONS}
		void main() { ${SETUP} ${OUTPUT} }
	""
end
`

// TestSetup checks what reaches GL for each draw: the quad, the inputs as
// replicated float attributes (matrices one column per location), the
// ref_ uniforms of the outputs and the plain uniforms.
func TestSetup(t *testing.T) {
	c := parseCase(t, setupCase)
	f := newFakeGL()
	f.attribs = map[string]uint{"dEQP_Position": 0, "in0": 1, "a_in0": 1, "a_in1": 2, "in2": 4, "a_in2": 4}
	f.uniforms = []string{"ref_out0", "ref_out1", "u", "m"}
	res := NewRunner(f, false).RunCase("setup.test", c)
	if len(res) != 2 || res[0].Name != "setup_vertex" || res[1].Name != "setup_fragment" {
		t.Fatalf("results: %+v", res)
	}
	for _, r := range res {
		if r.Status != Pass {
			t.Errorf("%s: %v %s", r.Name, r.Status, r.Reason)
		}
	}
	if f.viewport != [4]int{0, 0, Width, Height} {
		t.Errorf("viewport %v", f.viewport)
	}
	if len(f.draws) != 4 {
		t.Fatalf("%d draws, want 2 sub-cases × 2 programs", len(f.draws))
	}
	quadVerts := [][]float32{{-1, -1, 0, 1}, {-1, 1, 0, 1}, {1, -1, 0, 1}, {1, 1, 0, 1}}
	rep := func(v ...float32) [][]float32 { return [][]float32{v, v, v, v} }
	want := []map[uint][][]float32{
		{0: quadVerts, 1: rep(1), 2: rep(3, 4), 4: rep(1, 2), 5: rep(3, 4)},
		{0: quadVerts, 1: rep(2), 2: rep(5, 6), 4: rep(2, 0), 5: rep(0, 2)},
	}
	wantUniforms := []map[string][]float32{
		{"ref_out0": {7, 8}, "ref_out1": {1}, "u": {0.5}, "m": {-3, 1, 0, 0, 0, 1, 0, 0, 0, 1}},
		{"ref_out0": {9, 10}, "ref_out1": {0}, "u": {0.5}, "m": {-3, 1, 0, 0, 0, 1, 0, 0, 0, 1}},
	}
	for i, d := range f.draws {
		k := i % 2
		if !d.cleared || d.clear != clearColor {
			t.Errorf("draw %d: clear %v (cleared %v)", i, d.clear, d.cleared)
		}
		if d.mode != gl.TRIANGLES || d.count != 6 || d.ty != gl.UNSIGNED_SHORT || d.offset != 0 ||
			!reflect.DeepEqual(d.indices, []uint16{0, 1, 2, 1, 3, 2}) {
			t.Errorf("draw %d: mode %v count %d type %v offset %d indices %v", i, d.mode, d.count, d.ty, d.offset, d.indices)
		}
		if !reflect.DeepEqual(d.attribs, want[k]) {
			t.Errorf("draw %d attributes:\n got %v\nwant %v", i, d.attribs, want[k])
		}
		if !reflect.DeepEqual(d.uniforms, wantUniforms[k]) {
			t.Errorf("draw %d uniforms:\n got %v\nwant %v", i, d.uniforms, wantUniforms[k])
		}
	}
	if len(f.enabled) != 0 {
		t.Errorf("attribute arrays left enabled: %v", f.enabled)
	}
	for kind, n := range f.live {
		if n != 0 {
			t.Errorf("%d %s objects not deleted", n, kind)
		}
	}
}

// TestAttributeNames checks dEQP's naming: a_ prefix for fragment-only
// programs and for non-float inputs, the plain name otherwise.
func TestAttributeNames(t *testing.T) {
	c := parseCase(t, setupCase)
	for _, tt := range []struct {
		program int
		attribs map[string]uint
	}{
		{0, map[string]uint{"dEQP_Position": 0, "in0": 1, "a_in1": 2, "in2": 4}},
		{1, map[string]uint{"dEQP_Position": 0, "a_in0": 1, "a_in1": 2, "a_in2": 4}},
	} {
		f := newFakeGL()
		f.attribs = tt.attribs
		res := NewRunner(f, false).RunCase("t", c)
		d := f.draws[2*tt.program] // the other program sees no inputs and its draws lack them
		if len(d.attribs) != 5 {
			t.Errorf("program %d (%s): attributes %v, want 5 locations", tt.program, res[tt.program].Name, d.attribs)
		}
	}
}

func TestOutcomes(t *testing.T) {
	const pass = `case c
	values { output float out0 = [ 1.0 | 2.0 ]; }
	vertex ""
		${VERTEX_DECLARATIONS}
		void main() { ${VERTEX_OUTPUT} }
	""
	fragment ""
		${FRAGMENT_DECLARATIONS}
		void main() { ${FRAGMENT_OUTPUT} }
	""
end`
	white := func(x, y int) [4]byte { return [4]byte{255, 255, 255, 0} }
	tests := []struct {
		name       string
		src        string
		setup      func(f *fakeGL)
		want       Status
		wantReason string
	}{
		{"pass", pass, nil, Pass, ""},
		{"edge pixels ignored", pass, func(f *fakeGL) {
			f.pixel = func(x, y int) [4]byte {
				if x == 0 || y == 0 {
					return [4]byte{32, 64, 128, 255}
				}
				return [4]byte{255, 255, 255, 255}
			}
		}, Pass, ""},
		{"alpha ignored", pass, func(f *fakeGL) { f.pixel = white }, Pass, ""},
		{"interior pixel wrong on second draw", pass, func(f *fakeGL) {
			f.pixel = func(x, y int) [4]byte {
				if len(f.draws) == 2 && x == 127 && y == 127 {
					return [4]byte{255, 255, 254, 255}
				}
				return [4]byte{255, 255, 255, 255}
			}
		}, Fail, "image comparison failed for sub-case 2 of 2"},
		{"no position", pass, func(f *fakeGL) { f.attribs = nil }, Fail, "no location found for attribute 'dEQP_Position'"},
		{"compile failure", pass, func(f *fakeGL) { f.compileOK = func(string) bool { return false } }, Fail,
			"expected shaders to compile and link properly, but failed to compile"},
		{"full glsl compile failure", strings.Replace(pass, "case c", "case c\nrequire full_glsl_es_100_support", 1),
			func(f *fakeGL) { f.compileOK = func(string) bool { return false } }, NotSupported, "Full GLSL ES 100 is not supported"},
		{"full glsl link failure", strings.Replace(pass, "case c", "case c\nrequire full_glsl_es_100_support", 1),
			func(f *fakeGL) { f.linkOK = false }, Fail, "expected shaders to compile and link properly, but failed to link (dEQP quality warning)"},
		{"compile_fail expected", strings.Replace(pass, "case c", "case c\nexpect compile_fail", 1),
			func(f *fakeGL) { f.compileOK = func(s string) bool { return !strings.Contains(s, "gl_FragColor") } }, Pass, ""},
		{"compile_fail but link failed", strings.Replace(pass, "case c", "case c\nexpect compile_fail", 1),
			func(f *fakeGL) { f.linkOK = false }, Fail, "expected compilation to fail, but shaders compiled and link failed"},
		{"version 300 es", strings.Replace(pass, "case c", "case c\nversion 300 es", 1), nil, NotSupported, "GLSL ES 3.00 is not supported"},
		{"version 100 es", strings.Replace(pass, "case c", "case c\nversion 100 es", 1), nil, Pass, ""},
		{"unknown version", strings.Replace(pass, "case c", "case c\nversion 110", 1), nil, Fail, `unknown GLSL ES version "110"`},
		{"only glsl 100 on ES 2 runs", strings.Replace(pass, "case c", "case c\nrequire only_glsl_es_100_support\nrequire exactly_one_draw_buffer", 1),
			func(f *fakeGL) { f.linkOK = false }, Fail, "expected shaders to compile and link properly, but failed to link"},
		{"missing extension", strings.Replace(pass, "case c", `case c
require extension { "GL_OES_standard_derivatives" | "GL_EXT_other" } in { fragment }`, 1), nil,
			NotSupported, "Test requires any extension of GL_OES_standard_derivatives, GL_EXT_other"},
		{"present extension injected", strings.Replace(pass, "case c", `case c
require extension { "GL_OES_standard_derivatives" } in { fragment }`, 1),
			func(f *fakeGL) {
				f.extensions = "GL_OES_standard_derivatives GL_OES_rgb8_rgba8"
				f.compileOK = func(s string) bool {
					return strings.Contains(s, "gl_FragColor") == strings.HasPrefix(s, "#extension GL_OES_standard_derivatives : require\n")
				}
			}, Pass, ""},
		{"unknown requirement", strings.Replace(pass, "case c", "case c\nrequire limit \"GL_MAX_VERTEX_ATTRIBS\" > 4", 1), nil,
			Fail, `unsupported requirement "limit \"GL_MAX_VERTEX_ATTRIBS\" > 4"`},
		{"bad value", strings.Replace(pass, "[ 1.0 | 2.0 ]", "[ 1.0 | vec2(1.0) ]", 1), nil,
			Fail, `value out0: float "vec2(1.0)": value has type vec2`},
		{"missing uniforms ignored", pass, func(f *fakeGL) { f.uniforms = nil }, Pass, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeGL()
			f.uniforms = []string{"ref_out0"}
			if tt.setup != nil {
				tt.setup(f)
			}
			res := NewRunner(f, true).RunCase("x.test", parseCase(t, tt.src))
			if len(res) != 1 || res[0].Status != tt.want || res[0].Reason != tt.wantReason {
				t.Fatalf("got %+v; want %v %q", res, tt.want, tt.wantReason)
			}
			if res[0].File != "x.test" || res[0].Name != "c" {
				t.Errorf("result names %q %q", res[0].File, res[0].Name)
			}
			if tt.want == Fail && !strings.Contains(res[0].Detail, "fragment shader:") {
				t.Errorf("verbose failure lacks the shaders: %q", res[0].Detail)
			}
		})
	}
}

// panicGL panics in the middle of a case, as a bug below GL would.
type panicGL struct{ *fakeGL }

func (p panicGL) LinkProgram(gl.Program) { panic("BUG: link exploded") }

func TestPanicIsFailure(t *testing.T) {
	c := parseCase(t, setupCase)
	r := NewRunner(panicGL{newFakeGL()}, false)
	res := r.RunCase("p.test", c)
	if len(res) != 2 || res[0].Status != Fail || !strings.Contains(res[0].Reason, "link exploded") || res[1].Status != Fail {
		t.Errorf("results %+v", res)
	}
	if !r.Broken() {
		t.Error("runner not marked broken")
	}
}

func TestInjectExtension(t *testing.T) {
	tests := []struct{ src, want string }{
		{"void main() {}\n", "#extension GL_X : require\nvoid main() {}\n"},
		{"#version 100\nvoid main() {}\n", "#version 100\n#extension GL_X : require\nvoid main() {}\n"},
		{"\n// c\n#version 100\nx\n", "\n// c\n#version 100\n#extension GL_X : require\nx\n"},
	}
	for _, tt := range tests {
		if got := injectExtension(tt.src, "GL_X"); got != tt.want {
			t.Errorf("injectExtension(%q) = %q; want %q", tt.src, got, tt.want)
		}
	}
}

// TestRunPool runs a file over several fake contexts and checks the
// report: order, tallies, and that every context is released.
func TestRunPool(t *testing.T) {
	src := setupCase + strings.Replace(setupCase, "case setup", "case second\nversion 300 es", 1) +
		strings.Replace(setupCase, "case setup", "case third\nexpect compile_fail", 1)
	cases, err := deqptest.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	files := []File{{Path: "dir/a.test", Cases: cases}, {Path: "dir/b.test", Cases: cases[:1]}}
	var mu sync.Mutex // contexts are made and released on worker goroutines
	made, released := 0, 0
	newCtx := func() (gl.Context, func(), error) {
		mu.Lock()
		defer mu.Unlock()
		made++
		f := newFakeGL()
		f.attribs = map[string]uint{"dEQP_Position": 0}
		return f, func() { mu.Lock(); released++; mu.Unlock() }, nil
	}
	progress := 0
	rep, err := Run(newCtx, files, Options{Workers: 3, Progress: func(r []Result) { progress += len(r) }})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rep.Results {
		names = append(names, r.File+":"+r.Name+":"+r.Status.String())
	}
	want := []string{
		"a.test:setup_vertex:Pass", "a.test:setup_fragment:Pass",
		"a.test:second_vertex:NotSupported", "a.test:second_fragment:NotSupported",
		"a.test:third_vertex:Fail", "a.test:third_fragment:Fail",
		"b.test:setup_vertex:Pass", "b.test:setup_fragment:Pass",
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("results:\n got %v\nwant %v", names, want)
	}
	if rep.Files[0].Passed != 2 || rep.Files[0].Failed != 2 || rep.Files[0].Skipped != 2 || rep.Files[1].Total() != 2 {
		t.Errorf("tallies %+v", rep.Files)
	}
	if got := rep.Summary(); got != "4 passed, 2 failed, 2 skipped" {
		t.Errorf("summary %q", got)
	}
	if progress != 8 {
		t.Errorf("progress saw %d runs", progress)
	}
	if made == 0 || made > 3 || made != released {
		t.Errorf("%d contexts made, %d released", made, released)
	}
	if tab := rep.Table(); !strings.Contains(tab, "a.test") || !strings.Contains(tab, "total") {
		t.Errorf("table:\n%s", tab)
	}
}

// hangGL blocks in CompileShader until released, like a compiler that
// loops forever.
type hangGL struct {
	*fakeGL
	hang chan struct{}
}

func (h hangGL) CompileShader(gl.Shader) { <-h.hang }

// TestRunTimeout checks that a case that hangs fails with a timeout and
// that the cases after it run on a fresh context.
func TestRunTimeout(t *testing.T) {
	cases, err := deqptest.Parse(setupCase + strings.Replace(setupCase, "case setup", "case next", 1))
	if err != nil {
		t.Fatal(err)
	}
	hang := make(chan struct{})
	defer close(hang) // let the abandoned goroutine finish
	var mu sync.Mutex
	made := 0
	newCtx := func() (gl.Context, func(), error) {
		mu.Lock()
		defer mu.Unlock()
		made++
		f := newFakeGL()
		if made == 1 {
			return hangGL{f, hang}, func() {}, nil
		}
		return f, func() {}, nil
	}
	rep, err := Run(newCtx, []File{{Path: "h.test", Cases: cases}}, Options{Workers: 1, CaseTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, r := range rep.Results {
		got = append(got, r.Name+": "+r.Status.String()+" "+r.Reason)
	}
	want := []string{
		"setup_vertex: Fail timed out after 50ms", "setup_fragment: Fail timed out after 50ms",
		"next_vertex: Pass ", "next_fragment: Pass ",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("results:\n got %q\nwant %q", got, want)
	}
	if made != 2 {
		t.Errorf("%d contexts made, want 2", made)
	}
}

func TestRunContextError(t *testing.T) {
	cases, err := deqptest.Parse(setupCase)
	if err != nil {
		t.Fatal(err)
	}
	newCtx := func() (gl.Context, func(), error) { return nil, nil, errors.New("no GPU") }
	rep, err := Run(newCtx, []File{{Path: "e.test", Cases: cases}}, Options{})
	if err == nil || !strings.Contains(err.Error(), "no GPU") {
		t.Errorf("error %v", err)
	}
	if tot := rep.Totals(); tot.Failed != 2 || rep.Results[0].Reason != "not run: creating a context: no GPU" {
		t.Errorf("report %+v", rep)
	}
}
