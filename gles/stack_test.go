package gles_test

// End-to-end tests through the whole stack (tilegpu.NewContext: hw, kernel,
// driver/tg with the real compiler, gles) for driver features that only a
// real compiled shader exercises: uniform streams that rewind themselves
// (texture fetches inside loops), spill memory, and GL limits that must
// agree with what the compiler lets shaders use.

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/compiler"
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/internal/le"
)

func newStack(t *testing.T, w, h, cores int) (*tilegpu.Context, gl.Context) {
	t.Helper()
	ctx, err := tilegpu.NewContext(tilegpu.Config{Width: w, Height: h, Cores: cores})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Close() })
	return ctx, ctx.GL()
}

func f32s(fs ...float32) []byte { return le.Float32s(fs) }

func program(t *testing.T, g gl.Context, vsSrc, fsSrc string) gl.Program {
	t.Helper()
	p, err := bench.Program(g, vsSrc, fsSrc) // binds a_pos to attribute 0
	if err != nil {
		t.Fatal(err)
	}
	g.UseProgram(p)
	return p
}

// fullScreenQuad binds a quad covering [x0,x1]×[-1,1] in clip space to
// attribute 0.
func quad(g gl.Context, x0, x1 float32) {
	buf := g.CreateBuffer()
	g.BindBuffer(gl.ARRAY_BUFFER, buf)
	g.BufferData(gl.ARRAY_BUFFER, f32s(x0, -1, x1, -1, x0, 1, x1, 1), gl.STATIC_DRAW)
	g.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, 0)
	g.EnableVertexAttribArray(gl.Attrib{Value: 0})
}

func checkGL(t *testing.T, ctx *tilegpu.Context, what string) {
	t.Helper()
	if e := ctx.GL().GetError(); e != gl.NO_ERROR {
		t.Fatalf("%s: GL error %#x: %v", what, e, ctx.GLES().LastDriverError())
	}
}

// pixels reads the whole framebuffer, bottom row first, RGBA8.
func pixels(t *testing.T, ctx *tilegpu.Context, w, h int) []byte {
	t.Helper()
	px := make([]byte, 4*w*h)
	ctx.GL().ReadPixels(px, 0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE)
	checkGL(t, ctx, "ReadPixels")
	return px
}

// stageStats compiles src alone with a trivial partner and returns the
// statistics of the requested stage, to check that a test shader really
// exercises what the test is about.
func stageStats(t *testing.T, vs, fs string, fragment bool) compiler.Stats {
	t.Helper()
	v := compiler.CompileShader(compiler.Vertex, vs)
	f := compiler.CompileShader(compiler.Fragment, fs)
	if !v.OK || !f.OK {
		t.Fatalf("compile: %s%s", v.Log, f.Log)
	}
	p := compiler.Link(v, f, map[string]int{"a_pos": 0})
	if !p.OK {
		t.Fatalf("link: %s", p.Log)
	}
	vr, err := p.Variant(compiler.Key{})
	if err != nil {
		t.Fatal(err)
	}
	if fragment {
		return vr.FS.Stats
	}
	return vr.VS.Stats
}

func usesUniformKind(t *testing.T, vs, fs string, kind compiler.UniformEntry) bool {
	t.Helper()
	v := compiler.CompileShader(compiler.Vertex, vs)
	f := compiler.CompileShader(compiler.Fragment, fs)
	p := compiler.Link(v, f, map[string]int{"a_pos": 0})
	if !p.OK {
		t.Fatalf("link: %s%s%s", v.Log, f.Log, p.Log)
	}
	vr, err := p.Variant(compiler.Key{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []*compiler.Binary{vr.VS, vr.CS, vr.FS} {
		for _, u := range b.Uniforms {
			if u.Kind == kind.Kind {
				return true
			}
		}
	}
	return false
}

const passVS = `attribute vec2 a_pos;
void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }`

// loopFS sums u_count texels of row 0 of u_tex (texel i at s = (i+0.5)/8)
// in a loop whose trip count is a uniform, then adds one texel of u_tex2:
// every fetch rewinds the uniform stream to its own descriptor entry
// (compiler.UniformStreamAddress).
const loopFS = `precision mediump float;
uniform sampler2D u_tex;
uniform sampler2D u_tex2;
uniform int u_count;
void main() {
	vec4 acc = vec4(0.0);
	for (int i = 0; i < u_count; i++) {
		acc += texture2D(u_tex, vec2((float(i) + 0.5) / 8.0, 0.5));
	}
	gl_FragColor = acc + texture2D(u_tex2, vec2(0.5, 0.5));
}`

func TestTextureFetchInUniformLoop(t *testing.T) {
	if !usesUniformKind(t, passVS, loopFS, compiler.UniformEntry{Kind: compiler.UniformStreamAddress}) {
		t.Fatal("the loop shader does not use a stream-address uniform; the test would not test it")
	}
	const w, h = 64, 16
	ctx, g := newStack(t, w, h, 2)
	program(t, g, passVS, loopFS)

	// u_tex: 8×1 texels, texel i = (10(i+1), i+1, 3i, 0); u_tex2: 1×1 (0, 0, 5, 7).
	texels := make([]byte, 0, 32)
	for i := range 8 {
		texels = append(texels, byte(10*(i+1)), byte(i+1), byte(3*i), 0)
	}
	mk := func(unit int, w int, data []byte) {
		g.ActiveTexture(gl.Enum(gl.TEXTURE0 + unit))
		tex := g.CreateTexture()
		g.BindTexture(gl.TEXTURE_2D, tex)
		g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, w, 1, gl.RGBA, gl.UNSIGNED_BYTE, data)
		g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
		g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
		g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
		g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE)
	}
	mk(0, 8, texels)
	mk(1, 1, []byte{0, 0, 5, 7})
	p := gl.Program{Init: true, Value: uint32(g.GetInteger(gl.CURRENT_PROGRAM))}
	g.Uniform1i(g.GetUniformLocation(p, "u_tex"), 0)
	g.Uniform1i(g.GetUniformLocation(p, "u_tex2"), 1)
	count := g.GetUniformLocation(p, "u_count")
	g.ClearColor(0, 0, 0, 0)
	g.Clear(gl.COLOR_BUFFER_BIT)

	// Four vertical strips, each drawn with its own trip count (0 runs the
	// loop body never, 8 over the whole texture).
	counts := []int{0, 3, 5, 8}
	for k, n := range counts {
		x0 := -1 + 2*float32(k)/float32(len(counts))
		quad(g, x0, x0+2/float32(len(counts)))
		g.Uniform1i(count, n)
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		checkGL(t, ctx, fmt.Sprintf("draw with u_count %d", n))
	}
	px := pixels(t, ctx, w, h)
	for k, n := range counts {
		var want [4]int
		for i := range n {
			for c := range 4 {
				want[c] += int(texels[4*i+c])
			}
		}
		want[2] += 5
		want[3] += 7
		for y := 0; y < h; y += 5 {
			for x := k * w / len(counts); x < (k+1)*w/len(counts); x += 3 {
				o := 4 * (y*w + x)
				for c := range 4 {
					if int(px[o+c]) != min(want[c], 255) {
						t.Fatalf("u_count %d: pixel (%d,%d) = %v, want %v", n, x, y, px[o:o+4], want)
					}
				}
			}
		}
	}
}

// spillValues is the number of values the spilling shaders keep live at
// once: far more than the 64 registers (32 in a threaded fragment shader)
// and accumulators a thread has.
const spillValues = 96

// spillSource returns GLSL statements computing spillValues independent
// values a0..a95 = mod(src_i·k_i + u[i/4][i%4], 128) and s = Σ a_i·a_{95−i},
// so that all a_i are live when the sum starts. Every step is exact in
// float32 (integers below 2^24).
func spillSource(srcs [2]string, uniform string) string {
	var b strings.Builder
	for i := range spillValues {
		fmt.Fprintf(&b, "\tfloat a%d = mod(%s * %d.0 + %s[%d].%c, 128.0);\n", i, srcs[i%2], i%13+1, uniform, i/4, "xyzw"[i%4])
	}
	b.WriteString("\tfloat s = 0.0;\n")
	for i := range spillValues / 2 {
		fmt.Fprintf(&b, "\ts += a%d * a%d;\n", i, spillValues-1-i)
	}
	return b.String()
}

// spillSum is spillSource's s computed in Go.
func spillSum(src [2]int, u []int) int {
	var a [spillValues]int
	for i := range a {
		a[i] = (src[i%2]*(i%13+1) + u[i]) % 128
	}
	s := 0
	for i := range spillValues / 2 {
		s += a[i] * a[spillValues-1-i]
	}
	return s
}

// TestSpillingShaders draws with a vertex shader and a fragment shader that
// both spill (with different per-thread scratch sizes, so each stage needs
// its own scratch region) on several render cores, twice with different
// uniforms, and compares every pixel with the values computed in Go.
func TestSpillingShaders(t *testing.T) {
	vs := "attribute vec2 a_pos;\nuniform vec4 u_w[24];\nuniform vec2 u_vin;\nvarying float v_k;\nvoid main() {\n" +
		spillSource([2]string{"u_vin.x", "u_vin.y"}, "u_w") +
		"\tv_k = mod(s, 251.0) / 256.0;\n\tgl_Position = vec4(a_pos, 0.0, 1.0);\n}\n"
	fs := "precision highp float;\nuniform vec4 u_v[24];\nvarying float v_k;\nvoid main() {\n" +
		"\tfloat fx = floor(gl_FragCoord.x);\n\tfloat fy = floor(gl_FragCoord.y);\n" +
		spillSource([2]string{"fx", "fy"}, "u_v") +
		"\tgl_FragColor = vec4(mod(s, 256.0) / 255.0, mod(floor(s / 256.0), 256.0) / 255.0, floor(v_k * 256.0 + 0.5) / 255.0, 1.0);\n}\n"
	fsStats, vsStats := stageStats(t, vs, fs, true), stageStats(t, vs, fs, false)
	if fsStats.Spills == 0 || vsStats.Spills == 0 {
		t.Fatalf("shaders do not spill (vertex %d, fragment %d spills); the test would not test scratch", vsStats.Spills, fsStats.Spills)
	}
	t.Logf("spills: vertex %d (%d slots), fragment %d (%d slots)", vsStats.Spills, vsStats.SpillSlots, fsStats.Spills, fsStats.SpillSlots)

	const w, h = 80, 70 // two tile columns and rows
	ctx, g := newStack(t, w, h, 3)
	p := program(t, g, vs, fs)
	quad(g, -1, 1)
	for round := range 2 {
		u, uw := make([]int, spillValues), make([]int, spillValues)
		vals, wvals := make([]float32, spillValues), make([]float32, spillValues)
		for i := range u {
			u[i] = (i*37 + round*11) % 50
			uw[i] = (i*53 + 7 + round*5) % 90
			vals[i], wvals[i] = float32(u[i]), float32(uw[i])
		}
		vin := [2]int{3 + round, 17 - round}
		g.Uniform4fv(g.GetUniformLocation(p, "u_v"), vals)
		g.Uniform4fv(g.GetUniformLocation(p, "u_w"), wvals)
		g.Uniform2f(g.GetUniformLocation(p, "u_vin"), float32(vin[0]), float32(vin[1]))
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		checkGL(t, ctx, "spilling draw")
		px := pixels(t, ctx, w, h)
		vk := spillSum(vin, uw) % 251
		bad := 0
		for y := range h {
			for x := range w {
				s := spillSum([2]int{x, y}, u)
				want := [4]byte{byte(s % 256), byte(s / 256 % 256), byte(vk), 255}
				o := 4 * (y*w + x)
				if got := [4]byte(px[o : o+4]); got != want {
					if bad++; bad <= 5 {
						t.Errorf("round %d: pixel (%d,%d) = %v, want %v", round, x, y, got, want)
					}
				}
			}
		}
		if bad > 0 {
			t.Fatalf("round %d: %d of %d pixels wrong", round, bad, w*h)
		}
	}
}

// limitChecks compares each gl_Max* constant a shader sees with the value
// GetIntegerv reported (passed in as uniforms), setting bit k of the
// result when check k disagrees.
const limitChecks = `
uniform mediump int u_lim[7];
float limitMismatches() {
	float m = 0.0;
	if (gl_MaxVertexAttribs != u_lim[0]) m += 1.0;
	if (gl_MaxVertexUniformVectors != u_lim[1]) m += 2.0;
	if (gl_MaxVaryingVectors != u_lim[2]) m += 4.0;
	if (gl_MaxVertexTextureImageUnits != u_lim[3]) m += 8.0;
	if (gl_MaxCombinedTextureImageUnits != u_lim[4]) m += 16.0;
	if (gl_MaxTextureImageUnits != u_lim[5]) m += 32.0;
	if (gl_MaxFragmentUniformVectors != u_lim[6]) m += 64.0;
	return m;
}
`

var limitNames = []gl.Enum{gl.MAX_VERTEX_ATTRIBS, gl.MAX_VERTEX_UNIFORM_VECTORS, gl.MAX_VARYING_VECTORS,
	gl.MAX_VERTEX_TEXTURE_IMAGE_UNITS, gl.MAX_COMBINED_TEXTURE_IMAGE_UNITS, gl.MAX_TEXTURE_IMAGE_UNITS,
	gl.MAX_FRAGMENT_UNIFORM_VECTORS}

// TestLimitsMatchShaderConstants checks that every GL_MAX_* query agrees
// with the gl_Max* constant of both shader stages, by rendering the
// comparison, and that a program really gets GL_MAX_VARYING_VECTORS vec4
// varyings through.
func TestLimitsMatchShaderConstants(t *testing.T) {
	ctx, g := newStack(t, 16, 16, 1)
	vs := "attribute vec2 a_pos;\nvarying float v_vsMismatch;\n" + limitChecks +
		"void main() { v_vsMismatch = limitMismatches(); gl_Position = vec4(a_pos, 0.0, 1.0); }\n"
	fs := "precision mediump float;\nvarying float v_vsMismatch;\n" + limitChecks +
		"void main() { gl_FragColor = vec4(limitMismatches() / 255.0, v_vsMismatch / 255.0, 0.0, 1.0); }\n"
	p := program(t, g, vs, fs)
	lims := make([]int32, len(limitNames))
	for k, name := range limitNames {
		v := make([]int32, 1)
		g.GetIntegerv(v, name)
		lims[k] = v[0]
	}
	checkGL(t, ctx, "GetIntegerv")
	g.Uniform1iv(g.GetUniformLocation(p, "u_lim"), lims)
	quad(g, -1, 1)
	g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	checkGL(t, ctx, "draw")
	px := pixels(t, ctx, 16, 16)
	for stage, m := range map[string]byte{"fragment": px[0], "vertex": px[1]} {
		for k := range limitNames {
			if m&(1<<k) != 0 {
				t.Errorf("%s shader: GetIntegerv(%#x) = %d disagrees with its gl_Max* constant", stage, limitNames[k], lims[k])
			}
		}
	}

	// All GL_MAX_VARYING_VECTORS rows in use: vec4 varying k carries
	// (k, k+1, k+2, k+3)·step.
	n := int(lims[2])
	var decl, write, read strings.Builder
	for k := range n {
		fmt.Fprintf(&decl, "varying vec4 v%d;\n", k)
		fmt.Fprintf(&write, "\tv%d = vec4(%d.0, %d.0, %d.0, %d.0) * u_step;\n", k, 4*k, 4*k+1, 4*k+2, 4*k+3)
		fmt.Fprintf(&read, "\tsum += v%d * vec4(%d.0, %d.0, %d.0, %d.0);\n", k, k%3, (k+1)%3, (k+2)%3, 1)
	}
	vs = "attribute vec2 a_pos;\nuniform float u_step;\n" + decl.String() +
		"void main() {\n" + write.String() + "\tgl_Position = vec4(a_pos, 0.0, 1.0);\n}\n"
	fs = "precision highp float;\n" + decl.String() + "void main() {\n\tvec4 sum = vec4(0.0);\n" + read.String() +
		"\tgl_FragColor = sum / 4096.0;\n}\n"
	p = program(t, g, vs, fs)
	g.Uniform1f(g.GetUniformLocation(p, "u_step"), 1)
	g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	checkGL(t, ctx, fmt.Sprintf("draw with %d varying vectors", n))
	var want [4]int
	for k := range n {
		w := [4]int{k % 3, (k + 1) % 3, (k + 2) % 3, 1}
		for c := range 4 {
			want[c] += (4*k + c) * w[c]
		}
	}
	px = pixels(t, ctx, 16, 16)
	for c := range 4 {
		// sum/4096 → byte round(sum·255/4096); interpolation of a value
		// constant over the quad is exact to far below half a step.
		exp := int(math.Round(float64(want[c]) * 255 / 4096))
		if int(px[c]) != exp {
			t.Errorf("%d varying vectors: channel %d = %d, want %d (sum %d)", n, c, px[c], exp, want[c])
		}
	}
}

func TestExtensionsWork(t *testing.T) {
	const w, h = 24, 16
	ctx, g := newStack(t, w, h, 2)
	ext := strings.Fields(g.GetString(gl.EXTENSIONS))
	has := map[string]bool{}
	for _, e := range ext {
		has[e] = true
	}
	for _, e := range []string{"GL_OES_standard_derivatives", "GL_OES_element_index_uint", "GL_OES_depth24",
		"GL_OES_packed_depth_stencil", "GL_OES_texture_npot", "GL_OES_rgb8_rgba8"} {
		if !has[e] {
			t.Errorf("GL_EXTENSIONS %q lacks %s", ext, e)
		}
	}
	at := func(px []byte, x, y int) [4]byte { return [4]byte(px[4*(y*w+x):]) }

	t.Run("standard_derivatives", func(t *testing.T) {
		g.Hint(gl.FRAGMENT_SHADER_DERIVATIVE_HINT_OES, gl.NICEST)
		if v := g.GetInteger(gl.FRAGMENT_SHADER_DERIVATIVE_HINT_OES); gl.Enum(v) != gl.NICEST {
			t.Errorf("derivative hint = %#x, want NICEST", v)
		}
		checkGL(t, ctx, "derivative hint")
		// v grows by 0.25 per pixel in x and 0.75 per pixel in y.
		program(t, g, `attribute vec2 a_pos;
varying vec2 v;
void main() { v = (a_pos * 0.5 + 0.5) * vec2(24.0 * 0.25, 16.0 * 0.75); gl_Position = vec4(a_pos, 0.0, 1.0); }`,
			`#extension GL_OES_standard_derivatives : enable
precision highp float;
varying vec2 v;
void main() { gl_FragColor = vec4(dFdx(v.x), dFdy(v.y) - 0.5, fwidth(v.x), 1.0); }`)
		quad(g, -1, 1)
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		checkGL(t, ctx, "draw")
		px := pixels(t, ctx, w, h)
		want := [4]byte{64, 64, 64, 255} // 0.25·255 = 63.75
		for y := range h {
			for x := range w {
				if got := at(px, x, y); got != want {
					t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, got, want)
				}
			}
		}
	})

	t.Run("element_index_uint", func(t *testing.T) {
		p := program(t, g, passVS, "precision mediump float;\nuniform vec4 u_c;\nvoid main() { gl_FragColor = u_c; }")
		// Vertices 70000..70003 form the quad; 32-bit indices reach them.
		const first = 70000
		verts := make([]float32, 2*(first+4))
		copy(verts[2*first:], []float32{-1, -1, 1, -1, -1, 1, 1, 1})
		vb := g.CreateBuffer()
		g.BindBuffer(gl.ARRAY_BUFFER, vb)
		g.BufferData(gl.ARRAY_BUFFER, f32s(verts...), gl.STATIC_DRAW)
		g.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, 0)
		g.EnableVertexAttribArray(gl.Attrib{Value: 0})
		var idx []byte
		for _, i := range []uint32{first, first + 1, first + 2, first + 2, first + 1, first + 3} {
			idx = binary.LittleEndian.AppendUint32(idx, i)
		}
		ib := g.CreateBuffer()
		g.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, ib)
		g.BufferData(gl.ELEMENT_ARRAY_BUFFER, idx, gl.STATIC_DRAW)
		g.Uniform4f(g.GetUniformLocation(p, "u_c"), 0, 1, 0, 1)
		g.ClearColor(0, 0, 0, 1)
		g.Clear(gl.COLOR_BUFFER_BIT)
		g.DrawElements(gl.TRIANGLES, 6, gl.UNSIGNED_INT, 0)
		checkGL(t, ctx, "DrawElements UNSIGNED_INT")
		px := pixels(t, ctx, w, h)
		for _, xy := range [][2]int{{0, 0}, {w - 1, h - 1}, {w / 2, h / 2}} {
			if got := at(px, xy[0], xy[1]); got != [4]byte{0, 255, 0, 255} {
				t.Errorf("pixel %v = %v, want green", xy, got)
			}
		}
		g.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, gl.Buffer{})
	})

	t.Run("depth24_packed_depth_stencil", func(t *testing.T) {
		p := program(t, g, `attribute vec2 a_pos;
uniform float u_z;
void main() { gl_Position = vec4(a_pos, u_z, 1.0); }`, "precision mediump float;\nuniform vec4 u_c;\nvoid main() { gl_FragColor = u_c; }")
		quad(g, -1, 1)
		fbo := g.CreateFramebuffer()
		g.BindFramebuffer(gl.FRAMEBUFFER, fbo)
		col := g.CreateRenderbuffer()
		g.BindRenderbuffer(gl.RENDERBUFFER, col)
		g.RenderbufferStorage(gl.RENDERBUFFER, gl.RGBA8_OES, w, h)
		g.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, col)
		for _, format := range []gl.Enum{gl.DEPTH_COMPONENT24_OES, gl.DEPTH24_STENCIL8_OES} {
			ds := g.CreateRenderbuffer()
			g.BindRenderbuffer(gl.RENDERBUFFER, ds)
			g.RenderbufferStorage(gl.RENDERBUFFER, format, w, h)
			g.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, ds)
			stencil := format == gl.DEPTH24_STENCIL8_OES
			if stencil {
				g.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.STENCIL_ATTACHMENT, gl.RENDERBUFFER, ds)
			}
			if s := g.CheckFramebufferStatus(gl.FRAMEBUFFER); s != gl.FRAMEBUFFER_COMPLETE {
				t.Fatalf("%#x: framebuffer status %#x", format, s)
			}
			if d := g.GetRenderbufferParameteri(gl.RENDERBUFFER, gl.RENDERBUFFER_DEPTH_SIZE); d < 24 {
				t.Errorf("%#x: RENDERBUFFER_DEPTH_SIZE %d < 24", format, d)
			}
			if s := g.GetRenderbufferParameteri(gl.RENDERBUFFER, gl.RENDERBUFFER_STENCIL_SIZE); stencil && s != 8 {
				t.Errorf("%#x: RENDERBUFFER_STENCIL_SIZE %d, want 8", format, s)
			}
			g.Enable(gl.DEPTH_TEST)
			g.DepthFunc(gl.LESS)
			g.ClearDepthf(1)
			g.ClearStencil(0)
			g.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT | gl.STENCIL_BUFFER_BIT)
			// Window depths 0.5 + k·2^-24 differ by k/2^24·(2^24−1) ≈ k
			// units of a 24-bit buffer; a 16-bit one could not tell them apart.
			draw := func(k int, c [4]float32) {
				g.Uniform1f(g.GetUniformLocation(p, "u_z"), float32(k)/(1<<23))
				g.Uniform4f(g.GetUniformLocation(p, "u_c"), c[0], c[1], c[2], c[3])
				g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
			}
			if stencil {
				g.Enable(gl.STENCIL_TEST)
				g.StencilFunc(gl.ALWAYS, 1, 0xff)
				g.StencilOp(gl.KEEP, gl.KEEP, gl.REPLACE)
			}
			draw(0, [4]float32{1, 0, 0, 1}) // red at 0.5
			draw(3, [4]float32{0, 0, 1, 1}) // blue 3 units behind: fails
			px := pixels(t, ctx, w, h)
			if got := at(px, 5, 5); got != [4]byte{255, 0, 0, 255} {
				t.Errorf("%#x: after a draw 3/2^24 behind, pixel = %v, want red", format, got)
			}
			draw(-3, [4]float32{0, 1, 0, 1}) // green 3 units in front: passes
			px = pixels(t, ctx, w, h)
			if got := at(px, 5, 5); got != [4]byte{0, 255, 0, 255} {
				t.Errorf("%#x: after a draw 3/2^24 in front, pixel = %v, want green", format, got)
			}
			if stencil {
				// Only pixels with stencil 1 (all of them) pass EQUAL 1;
				// EQUAL 2 passes none.
				g.Disable(gl.DEPTH_TEST)
				g.StencilOp(gl.KEEP, gl.KEEP, gl.KEEP)
				g.StencilFunc(gl.EQUAL, 2, 0xff)
				draw(0, [4]float32{1, 1, 1, 1})
				g.StencilFunc(gl.EQUAL, 1, 0xff)
				draw(0, [4]float32{1, 0, 1, 1})
				px = pixels(t, ctx, w, h)
				if got := at(px, 5, 5); got != [4]byte{255, 0, 255, 255} {
					t.Errorf("%#x: stencil EQUAL draws: pixel = %v, want magenta", format, got)
				}
				g.Disable(gl.STENCIL_TEST)
				g.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.STENCIL_ATTACHMENT, gl.RENDERBUFFER, gl.Renderbuffer{})
			}
			g.Disable(gl.DEPTH_TEST)
			checkGL(t, ctx, "depth/stencil draws")
		}
		g.BindFramebuffer(gl.FRAMEBUFFER, gl.Framebuffer{})
	})

	t.Run("texture_npot", func(t *testing.T) {
		p := program(t, g, `attribute vec2 a_pos;
uniform vec2 u_scale;
varying vec2 v_st;
void main() { v_st = (a_pos * 0.5 + 0.5) * u_scale; gl_Position = vec4(a_pos, 0.0, 1.0); }`,
			"precision highp float;\nuniform sampler2D u_tex;\nvarying vec2 v_st;\nvoid main() { gl_FragColor = texture2D(u_tex, v_st); }")
		quad(g, -1, 1)
		g.ActiveTexture(gl.TEXTURE0)
		tex := g.CreateTexture()
		g.BindTexture(gl.TEXTURE_2D, tex)
		g.Uniform1i(g.GetUniformLocation(p, "u_tex"), 0)
		scale := g.GetUniformLocation(p, "u_scale")

		// REPEAT on a 3×1 texture: s runs over [0, 8) across 24 pixels,
		// so pixel x samples texel x mod 3.
		rgb := []byte{255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255}
		g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 3, 1, gl.RGBA, gl.UNSIGNED_BYTE, rgb)
		g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
		g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
		g.Uniform2f(scale, 8, 0.5)
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		checkGL(t, ctx, "NPOT REPEAT draw")
		px := pixels(t, ctx, w, h)
		for x := range w {
			if got, want := at(px, x, 3), [4]byte(rgb[4*(x%3):]); got != want {
				t.Errorf("REPEAT: pixel x=%d = %v, want texel %d %v", x, got, x%3, want)
			}
		}

		// Mipmaps of a 12×6 texture: levels 12×6, 6×3, 3×1, 1×1, each a
		// flat colour. s over [0, 8) across 24 pixels is 4 texels of level
		// 0 per pixel: λ = 2 selects the 3×1 level with NEAREST_MIPMAP_NEAREST.
		levelColours := [][4]byte{{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {255, 255, 255, 255}}
		for l, c := range levelColours {
			lw, lh := max(12>>l, 1), max(6>>l, 1)
			data := make([]byte, 0, 4*lw*lh)
			for range lw * lh {
				data = append(data, c[:]...)
			}
			g.TexImage2D(gl.TEXTURE_2D, l, gl.RGBA, lw, lh, gl.RGBA, gl.UNSIGNED_BYTE, data)
		}
		g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST_MIPMAP_NEAREST)
		g.Uniform2f(scale, 8, 0)
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		checkGL(t, ctx, "NPOT mipmapped draw")
		px = pixels(t, ctx, w, h)
		for _, xy := range [][2]int{{0, 0}, {11, 7}, {w - 1, h - 1}} {
			if got := at(px, xy[0], xy[1]); got != levelColours[2] {
				t.Errorf("mipmapped NPOT: pixel %v = %v, want level 2's %v", xy, got, levelColours[2])
			}
		}

		// GenerateMipmap on an NPOT texture: a 6×2 red/blue column pattern
		// (even columns red, odd blue) averages to purple in level 1 (3×1).
		var data []byte
		for i := range 12 {
			if i%2 == 0 {
				data = append(data, 255, 0, 0, 255)
			} else {
				data = append(data, 0, 0, 255, 255)
			}
		}
		g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 6, 2, gl.RGBA, gl.UNSIGNED_BYTE, data)
		g.GenerateMipmap(gl.TEXTURE_2D)
		checkGL(t, ctx, "GenerateMipmap 6×2")
		// s over [0, 8) across 24 pixels: 2 texels of level 0 per pixel, λ = 1.
		g.Uniform2f(scale, 8, 0)
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		checkGL(t, ctx, "NPOT generated-mipmap draw")
		px = pixels(t, ctx, w, h)
		if got, want := at(px, 7, 7), [4]byte{128, 0, 128, 255}; got != want {
			t.Errorf("generated level 1 of a 6×2 texture: pixel = %v, want %v", got, want)
		}
	})
}
