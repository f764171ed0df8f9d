package gles

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/driver/tg"
	"github.com/tilegpu/tilegpu/driver/tg/tgtest"
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/pipe"
)

const testVS = `attribute vec2 a_pos;
attribute vec3 a_nrm;
uniform mat4 u_mvp;
uniform float u_arr[3];
void main() { gl_Position = u_mvp * vec4(a_pos, 0.0, 1.0); }
`

const testFS = `precision mediump float;
uniform vec4 u_color;
uniform int u_mode;
uniform bool u_flag;
uniform sampler2D u_tex;
uniform samplerCube u_cube;
void main() { gl_FragColor = u_color; }
`

// newTestContext returns a GL context over the TG driver with an in-memory
// kernel and a declarations-only compiler.
func newTestContext(t *testing.T) (*Context, *tgtest.Winsys) {
	t.Helper()
	ws := tgtest.NewWinsys()
	s, err := tg.NewScreen(ws, tgtest.Compiler{}, tg.ScreenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	color, err := s.ResourceCreate(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: pipe.FormatRGBA8, Width: 64, Height: 32, Levels: 1})
	if err != nil {
		t.Fatal(err)
	}
	zs, err := s.ResourceCreate(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: pipe.FormatZ24S8, Width: 64, Height: 32, Levels: 1})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(s.NewContext(), DefaultFramebuffer{Width: 64, Height: 32, Color: color, DepthStencil: zs})
	if err != nil {
		t.Fatal(err)
	}
	return c, ws
}

// linkTestProgram links testVS/testFS and makes it current.
func linkTestProgram(t *testing.T, c *Context) gl.Program {
	t.Helper()
	vs := c.CreateShader(gl.VERTEX_SHADER)
	c.ShaderSource(vs, testVS)
	c.CompileShader(vs)
	fs := c.CreateShader(gl.FRAGMENT_SHADER)
	c.ShaderSource(fs, testFS)
	c.CompileShader(fs)
	p := c.CreateProgram()
	c.AttachShader(p, vs)
	c.AttachShader(p, fs)
	c.BindAttribLocation(p, gl.Attrib{Value: 0}, "a_pos")
	c.LinkProgram(p)
	if c.GetProgrami(p, gl.LINK_STATUS) != 1 {
		t.Fatalf("link failed: %s", c.GetProgramInfoLog(p))
	}
	c.UseProgram(p)
	if e := c.GetError(); e != gl.NO_ERROR {
		t.Fatalf("setting up the program: error %#x", e)
	}
	return p
}

func floatBytes(fs ...float32) []byte {
	out := make([]byte, 0, 4*len(fs))
	for _, f := range fs {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(f))
	}
	return out
}

func TestErrorRules(t *testing.T) {
	type tc struct {
		name string
		call func(c *Context, p gl.Program)
		want gl.Enum
	}
	loc := func(c *Context, p gl.Program, n string) gl.Uniform { return c.GetUniformLocation(p, n) }
	cases := []tc{
		// Enable / state
		{"Enable bad cap", func(c *Context, _ gl.Program) { c.Enable(gl.TEXTURE_2D) }, gl.INVALID_ENUM},
		{"Enable ok", func(c *Context, _ gl.Program) { c.Enable(gl.DEPTH_TEST) }, gl.NO_ERROR},
		{"DepthFunc bad", func(c *Context, _ gl.Program) { c.DepthFunc(gl.BLEND) }, gl.INVALID_ENUM},
		{"BlendFunc dst saturate", func(c *Context, _ gl.Program) { c.BlendFunc(gl.ONE, gl.SRC_ALPHA_SATURATE) }, gl.INVALID_ENUM},
		{"BlendFunc src saturate", func(c *Context, _ gl.Program) { c.BlendFunc(gl.SRC_ALPHA_SATURATE, gl.ONE) }, gl.NO_ERROR},
		{"BlendEquation bad", func(c *Context, _ gl.Program) { c.BlendEquation(gl.ONE) }, gl.INVALID_ENUM},
		{"CullFace bad", func(c *Context, _ gl.Program) { c.CullFace(gl.CW) }, gl.INVALID_ENUM},
		{"FrontFace bad", func(c *Context, _ gl.Program) { c.FrontFace(gl.BACK) }, gl.INVALID_ENUM},
		{"LineWidth zero", func(c *Context, _ gl.Program) { c.LineWidth(0) }, gl.INVALID_VALUE},
		{"Viewport negative", func(c *Context, _ gl.Program) { c.Viewport(0, 0, -1, 4) }, gl.INVALID_VALUE},
		{"Scissor negative", func(c *Context, _ gl.Program) { c.Scissor(0, 0, 4, -4) }, gl.INVALID_VALUE},
		{"StencilFuncSeparate bad face", func(c *Context, _ gl.Program) { c.StencilFuncSeparate(gl.CCW, gl.ALWAYS, 0, 1) }, gl.INVALID_ENUM},
		{"StencilOp bad", func(c *Context, _ gl.Program) { c.StencilOp(gl.KEEP, gl.ONE, gl.KEEP) }, gl.INVALID_ENUM},
		{"PixelStorei bad value", func(c *Context, _ gl.Program) { c.PixelStorei(gl.UNPACK_ALIGNMENT, 3) }, gl.INVALID_VALUE},
		{"PixelStorei bad name", func(c *Context, _ gl.Program) { c.PixelStorei(gl.TEXTURE_2D, 4) }, gl.INVALID_ENUM},
		{"Hint bad target", func(c *Context, _ gl.Program) { c.Hint(gl.TEXTURE_2D, gl.NICEST) }, gl.INVALID_ENUM},
		{"GetIntegerv bad", func(c *Context, _ gl.Program) { c.GetIntegerv(make([]int32, 4), gl.TEXTURE_2D) }, gl.INVALID_ENUM},
		{"GetString bad", func(c *Context, _ gl.Program) { c.GetString(gl.TEXTURE_2D) }, gl.INVALID_ENUM},
		{"Clear bad bits", func(c *Context, _ gl.Program) { c.Clear(0x1) }, gl.INVALID_VALUE},

		// buffers
		{"BindBuffer bad target", func(c *Context, _ gl.Program) { c.BindBuffer(gl.TEXTURE_2D, c.CreateBuffer()) }, gl.INVALID_ENUM},
		{"BufferData no buffer", func(c *Context, _ gl.Program) { c.BufferData(gl.ARRAY_BUFFER, []byte{1}, gl.STATIC_DRAW) }, gl.INVALID_OPERATION},
		{"BufferData bad usage", func(c *Context, _ gl.Program) {
			c.BindBuffer(gl.ARRAY_BUFFER, c.CreateBuffer())
			c.BufferData(gl.ARRAY_BUFFER, []byte{1}, gl.RGBA)
		}, gl.INVALID_ENUM},
		{"BufferInit negative", func(c *Context, _ gl.Program) {
			c.BindBuffer(gl.ARRAY_BUFFER, c.CreateBuffer())
			c.BufferInit(gl.ARRAY_BUFFER, -1, gl.STATIC_DRAW)
		}, gl.INVALID_VALUE},
		{"BufferSubData out of range", func(c *Context, _ gl.Program) {
			c.BindBuffer(gl.ARRAY_BUFFER, c.CreateBuffer())
			c.BufferData(gl.ARRAY_BUFFER, make([]byte, 8), gl.STATIC_DRAW)
			c.BufferSubData(gl.ARRAY_BUFFER, 4, make([]byte, 5))
		}, gl.INVALID_VALUE},

		// textures
		{"BindTexture bad target", func(c *Context, _ gl.Program) { c.BindTexture(gl.ARRAY_BUFFER, c.CreateTexture()) }, gl.INVALID_ENUM},
		{"BindTexture wrong target", func(c *Context, _ gl.Program) {
			t := c.CreateTexture()
			c.BindTexture(gl.TEXTURE_2D, t)
			c.BindTexture(gl.TEXTURE_CUBE_MAP, t)
		}, gl.INVALID_OPERATION},
		{"ActiveTexture out of range", func(c *Context, _ gl.Program) { c.ActiveTexture(gl.TEXTURE0 + 100) }, gl.INVALID_ENUM},
		{"TexImage2D negative level", func(c *Context, _ gl.Program) {
			c.BindTexture(gl.TEXTURE_2D, c.CreateTexture())
			c.TexImage2D(gl.TEXTURE_2D, -1, gl.RGBA, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, nil)
		}, gl.INVALID_VALUE},
		{"TexImage2D format mismatch", func(c *Context, _ gl.Program) {
			c.BindTexture(gl.TEXTURE_2D, c.CreateTexture())
			c.TexImage2D(gl.TEXTURE_2D, 0, gl.RGB, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, nil)
		}, gl.INVALID_OPERATION},
		{"TexImage2D 565 with RGBA", func(c *Context, _ gl.Program) {
			c.BindTexture(gl.TEXTURE_2D, c.CreateTexture())
			c.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 1, 1, gl.RGBA, gl.UNSIGNED_SHORT_5_6_5, nil)
		}, gl.INVALID_OPERATION},
		{"TexImage2D bad type", func(c *Context, _ gl.Program) {
			c.BindTexture(gl.TEXTURE_2D, c.CreateTexture())
			c.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 1, 1, gl.RGBA, gl.FLOAT, nil)
		}, gl.INVALID_ENUM},
		{"TexImage2D cube not square", func(c *Context, _ gl.Program) {
			c.BindTexture(gl.TEXTURE_CUBE_MAP, c.CreateTexture())
			c.TexImage2D(gl.TEXTURE_CUBE_MAP_POSITIVE_X, 0, gl.RGBA, 2, 1, gl.RGBA, gl.UNSIGNED_BYTE, nil)
		}, gl.INVALID_VALUE},
		{"TexImage2D too large", func(c *Context, _ gl.Program) {
			c.BindTexture(gl.TEXTURE_2D, c.CreateTexture())
			c.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 1<<20, 1, gl.RGBA, gl.UNSIGNED_BYTE, nil)
		}, gl.INVALID_VALUE},
		{"TexSubImage2D undefined level", func(c *Context, _ gl.Program) {
			c.BindTexture(gl.TEXTURE_2D, c.CreateTexture())
			c.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, make([]byte, 4))
		}, gl.INVALID_OPERATION},
		{"TexSubImage2D outside", func(c *Context, _ gl.Program) {
			c.BindTexture(gl.TEXTURE_2D, c.CreateTexture())
			c.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 2, 2, gl.RGBA, gl.UNSIGNED_BYTE, nil)
			c.TexSubImage2D(gl.TEXTURE_2D, 0, 1, 1, 2, 1, gl.RGBA, gl.UNSIGNED_BYTE, make([]byte, 8))
		}, gl.INVALID_VALUE},
		{"TexParameteri bad value", func(c *Context, _ gl.Program) {
			c.BindTexture(gl.TEXTURE_2D, c.CreateTexture())
			c.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, int(gl.LINEAR_MIPMAP_LINEAR))
		}, gl.INVALID_ENUM},
		{"GenerateMipmap without level 0", func(c *Context, _ gl.Program) {
			c.BindTexture(gl.TEXTURE_2D, c.CreateTexture())
			c.GenerateMipmap(gl.TEXTURE_2D)
		}, gl.INVALID_OPERATION},
		{"CompressedTexImage2D", func(c *Context, _ gl.Program) {
			c.CompressedTexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 4, 4, 0, nil)
		}, gl.INVALID_ENUM},

		// shaders and programs
		{"CreateShader bad", func(c *Context, _ gl.Program) { c.CreateShader(gl.TEXTURE_2D) }, gl.INVALID_ENUM},
		{"ShaderSource unknown", func(c *Context, _ gl.Program) { c.ShaderSource(gl.Shader{Value: 999}, "") }, gl.INVALID_VALUE},
		{"ShaderSource on program", func(c *Context, p gl.Program) { c.ShaderSource(gl.Shader{Value: p.Value}, "") }, gl.INVALID_OPERATION},
		{"AttachShader twice", func(c *Context, _ gl.Program) {
			q := c.CreateProgram()
			s := c.CreateShader(gl.VERTEX_SHADER)
			c.AttachShader(q, s)
			c.AttachShader(q, s)
		}, gl.INVALID_OPERATION},
		{"DetachShader not attached", func(c *Context, _ gl.Program) {
			c.DetachShader(c.CreateProgram(), c.CreateShader(gl.VERTEX_SHADER))
		}, gl.INVALID_OPERATION},
		{"UseProgram unlinked", func(c *Context, _ gl.Program) { c.UseProgram(c.CreateProgram()) }, gl.INVALID_OPERATION},
		{"GetUniformLocation unlinked", func(c *Context, _ gl.Program) { c.GetUniformLocation(c.CreateProgram(), "x") }, gl.INVALID_OPERATION},
		{"BindAttribLocation gl_ prefix", func(c *Context, p gl.Program) { c.BindAttribLocation(p, gl.Attrib{Value: 1}, "gl_Vertex") }, gl.INVALID_OPERATION},
		{"BindAttribLocation too large", func(c *Context, p gl.Program) { c.BindAttribLocation(p, gl.Attrib{Value: 99}, "a") }, gl.INVALID_VALUE},
		{"GetActiveUniform index", func(c *Context, p gl.Program) { c.GetActiveUniform(p, 100) }, gl.INVALID_VALUE},
		{"GetProgrami bad pname", func(c *Context, p gl.Program) { c.GetProgrami(p, gl.TEXTURE_2D) }, gl.INVALID_ENUM},

		// uniforms
		{"Uniform -1 ignored", func(c *Context, _ gl.Program) { c.Uniform1f(gl.Uniform{Value: -1}, 1) }, gl.NO_ERROR},
		{"Uniform4f ok", func(c *Context, p gl.Program) { c.Uniform4f(loc(c, p, "u_color"), 1, 2, 3, 4) }, gl.NO_ERROR},
		{"Uniform3f on vec4", func(c *Context, p gl.Program) { c.Uniform3f(loc(c, p, "u_color"), 1, 2, 3) }, gl.INVALID_OPERATION},
		{"Uniform4i on vec4", func(c *Context, p gl.Program) { c.Uniform4i(loc(c, p, "u_color"), 1, 2, 3, 4) }, gl.INVALID_OPERATION},
		{"Uniform1f on int", func(c *Context, p gl.Program) { c.Uniform1f(loc(c, p, "u_mode"), 1) }, gl.INVALID_OPERATION},
		{"Uniform1f on bool", func(c *Context, p gl.Program) { c.Uniform1f(loc(c, p, "u_flag"), 1) }, gl.NO_ERROR},
		{"Uniform1i on bool", func(c *Context, p gl.Program) { c.Uniform1i(loc(c, p, "u_flag"), 1) }, gl.NO_ERROR},
		{"Uniform1f on sampler", func(c *Context, p gl.Program) { c.Uniform1f(loc(c, p, "u_tex"), 1) }, gl.INVALID_OPERATION},
		{"Uniform1i sampler out of range", func(c *Context, p gl.Program) { c.Uniform1i(loc(c, p, "u_tex"), 1000) }, gl.INVALID_VALUE},
		{"Uniform4fv count 2 on non-array", func(c *Context, p gl.Program) { c.Uniform4fv(loc(c, p, "u_color"), make([]float32, 8)) }, gl.INVALID_OPERATION},
		{"Uniform1fv array", func(c *Context, p gl.Program) { c.Uniform1fv(loc(c, p, "u_arr[1]"), []float32{1, 2}) }, gl.NO_ERROR},
		{"UniformMatrix4fv ok", func(c *Context, p gl.Program) { c.UniformMatrix4fv(loc(c, p, "u_mvp"), make([]float32, 16)) }, gl.NO_ERROR},
		{"Uniform4fv on mat2-sized", func(c *Context, p gl.Program) { c.Uniform4fv(loc(c, p, "u_mvp"), make([]float32, 4)) }, gl.INVALID_OPERATION},
		{"UniformMatrix4fv on vec4", func(c *Context, p gl.Program) { c.UniformMatrix2fv(loc(c, p, "u_color"), make([]float32, 4)) }, gl.INVALID_OPERATION},
		{"Uniform bad location", func(c *Context, _ gl.Program) { c.Uniform1f(gl.Uniform{Value: 1000}, 1) }, gl.INVALID_OPERATION},
		{"Uniform without program", func(c *Context, p gl.Program) {
			c.UseProgram(gl.Program{})
			c.Uniform1f(gl.Uniform{Value: 0}, 1)
		}, gl.INVALID_OPERATION},

		// vertex attributes and draws
		{"VertexAttribPointer size 5", func(c *Context, _ gl.Program) { c.VertexAttribPointer(gl.Attrib{Value: 0}, 5, gl.FLOAT, false, 0, 0) }, gl.INVALID_VALUE},
		{"VertexAttribPointer bad type", func(c *Context, _ gl.Program) { c.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.INT, false, 0, 0) }, gl.INVALID_ENUM},
		{"VertexAttribPointer index", func(c *Context, _ gl.Program) { c.VertexAttribPointer(gl.Attrib{Value: 99}, 2, gl.FLOAT, false, 0, 0) }, gl.INVALID_VALUE},
		{"EnableVertexAttribArray index", func(c *Context, _ gl.Program) { c.EnableVertexAttribArray(gl.Attrib{Value: 99}) }, gl.INVALID_VALUE},
		{"DrawArrays bad mode", func(c *Context, _ gl.Program) { c.DrawArrays(gl.Enum(0x0007), 0, 3) }, gl.INVALID_ENUM},
		{"DrawArrays negative count", func(c *Context, _ gl.Program) { c.DrawArrays(gl.TRIANGLES, 0, -1) }, gl.INVALID_VALUE},
		{"DrawElements bad type", func(c *Context, _ gl.Program) { c.DrawElements(gl.TRIANGLES, 3, gl.FLOAT, 0) }, gl.INVALID_ENUM},
		{"DrawElements no element buffer", func(c *Context, _ gl.Program) { c.DrawElements(gl.TRIANGLES, 3, gl.UNSIGNED_SHORT, 0) }, gl.INVALID_OPERATION},
		{"DrawArrays sampler type conflict", func(c *Context, p gl.Program) {
			c.Uniform1i(loc(c, p, "u_tex"), 2)
			c.Uniform1i(loc(c, p, "u_cube"), 2)
			c.DrawArrays(gl.TRIANGLES, 0, 3)
		}, gl.INVALID_OPERATION},

		// framebuffers
		{"BindFramebuffer bad target", func(c *Context, _ gl.Program) { c.BindFramebuffer(gl.TEXTURE_2D, gl.Framebuffer{}) }, gl.INVALID_ENUM},
		{"FramebufferRenderbuffer on default", func(c *Context, _ gl.Program) {
			c.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, c.CreateRenderbuffer())
		}, gl.INVALID_OPERATION},
		{"FramebufferTexture2D level 1", func(c *Context, _ gl.Program) {
			c.BindFramebuffer(gl.FRAMEBUFFER, c.CreateFramebuffer())
			t := c.CreateTexture()
			c.BindTexture(gl.TEXTURE_2D, t)
			c.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, t, 1)
		}, gl.INVALID_VALUE},
		{"RenderbufferStorage no rb", func(c *Context, _ gl.Program) { c.RenderbufferStorage(gl.RENDERBUFFER, gl.RGBA4, 4, 4) }, gl.INVALID_OPERATION},
		{"RenderbufferStorage bad format", func(c *Context, _ gl.Program) {
			c.BindRenderbuffer(gl.RENDERBUFFER, c.CreateRenderbuffer())
			c.RenderbufferStorage(gl.RENDERBUFFER, gl.RGBA, 4, 4)
		}, gl.INVALID_ENUM},
		{"Draw to incomplete framebuffer", func(c *Context, _ gl.Program) {
			c.BindFramebuffer(gl.FRAMEBUFFER, c.CreateFramebuffer())
			c.DrawArrays(gl.TRIANGLES, 0, 3)
		}, gl.INVALID_FRAMEBUFFER_OPERATION},
		{"Clear incomplete framebuffer", func(c *Context, _ gl.Program) {
			c.BindFramebuffer(gl.FRAMEBUFFER, c.CreateFramebuffer())
			c.Clear(gl.COLOR_BUFFER_BIT)
		}, gl.INVALID_FRAMEBUFFER_OPERATION},
		{"ReadPixels bad format", func(c *Context, _ gl.Program) {
			c.ReadPixels(make([]byte, 16), 0, 0, 1, 1, gl.DEPTH_COMPONENT, gl.UNSIGNED_BYTE)
		}, gl.INVALID_ENUM},
		{"ReadPixels unsupported combination", func(c *Context, _ gl.Program) { c.ReadPixels(make([]byte, 16), 0, 0, 1, 1, gl.RGB, gl.UNSIGNED_BYTE) }, gl.INVALID_OPERATION},
		{"ReadPixels negative", func(c *Context, _ gl.Program) { c.ReadPixels(nil, 0, 0, -1, 1, gl.RGBA, gl.UNSIGNED_BYTE) }, gl.INVALID_VALUE},
		{"BindVertexArray of a name never generated", func(c *Context, _ gl.Program) { c.BindVertexArray(gl.VertexArray{Value: 1}) }, gl.INVALID_OPERATION},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestContext(t)
			p := linkTestProgram(t, c)
			tc.call(c, p)
			if got := c.GetError(); got != tc.want {
				t.Errorf("error %#x, want %#x", got, tc.want)
			}
			if got := c.GetError(); got != gl.NO_ERROR {
				t.Errorf("second GetError %#x, want NO_ERROR", got)
			}
		})
	}
}

func TestFirstErrorIsKept(t *testing.T) {
	c, _ := newTestContext(t)
	c.Enable(gl.TEXTURE_2D) // INVALID_ENUM
	c.LineWidth(-1)         // INVALID_VALUE, not recorded
	if e := c.GetError(); e != gl.INVALID_ENUM {
		t.Fatalf("got %#x, want the first error INVALID_ENUM", e)
	}
}

func TestUniformStorageLayout(t *testing.T) {
	c, _ := newTestContext(t)
	p := linkTestProgram(t, c)
	prog := c.programs[p.Value]
	mvp := make([]float32, 16)
	for i := range mvp {
		mvp[i] = float32(i)
	}
	c.UniformMatrix4fv(c.GetUniformLocation(p, "u_mvp"), mvp)
	c.Uniform1fv(c.GetUniformLocation(p, "u_arr[1]"), []float32{7, 8, 9}) // 9 is beyond the end: ignored
	c.Uniform1i(c.GetUniformLocation(p, "u_flag"), 5)
	if e := c.GetError(); e != gl.NO_ERROR {
		t.Fatalf("error %#x", e)
	}
	// Storage: u_mvp 0..15, u_arr 16..18, u_color 19..22, u_mode 23, u_flag 24, samplers 25, 26.
	if got := math.Float32frombits(prog.storage[15]); got != 15 {
		t.Errorf("u_mvp[15] slot = %v", got)
	}
	if a, b := math.Float32frombits(prog.storage[17]), math.Float32frombits(prog.storage[18]); a != 7 || b != 8 {
		t.Errorf("u_arr[1..2] = %v %v, want 7 8", a, b)
	}
	if prog.storage[24] != 1 {
		t.Errorf("bool stored as %d, want 1", prog.storage[24])
	}
	var got [3]float32
	c.GetUniformfv(got[:], c.GetUniformLocation(p, "u_arr[2]"), p)
	if got[0] != 8 {
		t.Errorf("GetUniformfv(u_arr[2]) = %v, want 8", got[0])
	}
	if l := c.GetUniformLocation(p, "u_arr[3]"); l.Value != -1 {
		t.Errorf("location of u_arr[3] = %d, want -1", l.Value)
	}
}

func TestDrawAndReadPixelsPath(t *testing.T) {
	c, ws := newTestContext(t)
	p := linkTestProgram(t, c)
	buf := c.CreateBuffer()
	c.BindBuffer(gl.ARRAY_BUFFER, buf)
	c.BufferData(gl.ARRAY_BUFFER, floatBytes(-1, -1, 1, -1, 0, 1), gl.STATIC_DRAW)
	c.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, 0)
	c.EnableVertexAttribArray(gl.Attrib{Value: 0})
	c.Uniform4f(c.GetUniformLocation(p, "u_color"), 1, 0, 0, 1)
	// Both samplers default to unit 0; different sampler types on one unit
	// are a draw-time INVALID_OPERATION, so move the cube sampler.
	c.Uniform1i(c.GetUniformLocation(p, "u_cube"), 1)
	c.ClearColor(0, 0, 1, 1)
	c.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	c.DrawArrays(gl.TRIANGLES, 0, 3)
	if e := c.GetError(); e != gl.NO_ERROR {
		t.Fatalf("error %#x (%v)", e, c.LastDriverError())
	}
	if len(ws.Submits) != 0 {
		t.Fatal("submitted before Flush or a read")
	}
	px := make([]byte, 4)
	c.ReadPixels(px, 0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE)
	if len(ws.Submits) != 1 {
		t.Fatalf("ReadPixels did not flush the job (%d submissions)", len(ws.Submits))
	}
	s := ws.Submits[0]
	if !s.Color.Clear || s.ClearColor != 0xffff0000 || s.ClearDepth != 0xffffff {
		t.Errorf("clear values colour %#x depth %#x", s.ClearColor, s.ClearDepth)
	}
	// a_nrm (location 1) is not enabled: a constant attribute, plus a_pos.
	if s.Width != 64 || s.Height != 32 {
		t.Errorf("size %dx%d", s.Width, s.Height)
	}
}

func TestScissoredClearDrawsAQuad(t *testing.T) {
	c, ws := newTestContext(t)
	c.Enable(gl.SCISSOR_TEST)
	c.Scissor(1, 1, 4, 4)
	c.Clear(gl.COLOR_BUFFER_BIT)
	c.Flush()
	if e := c.GetError(); e != gl.NO_ERROR {
		t.Fatalf("error %#x (%v)", e, c.LastDriverError())
	}
	if len(ws.Submits) != 1 {
		t.Fatalf("%d submissions", len(ws.Submits))
	}
	s := ws.Submits[0]
	if s.Color.Clear || !s.Color.Load {
		t.Errorf("scissored clear cleared the whole buffer: %+v", s.Color)
	}
	if len(s.ShaderRecords) == 0 {
		t.Error("no quad drawn")
	}
}

func TestTextureCompletenessAndFormats(t *testing.T) {
	c, _ := newTestContext(t)
	tex := c.CreateTexture()
	c.BindTexture(gl.TEXTURE_2D, tex)
	x := c.textures[tex.Value]
	c.TexImage2D(gl.TEXTURE_2D, 0, gl.LUMINANCE, 2, 2, gl.LUMINANCE, gl.UNSIGNED_BYTE, []byte{10, 20, 0, 0, 30, 40, 0, 0})
	if x.complete() {
		t.Error("default min filter needs mipmaps: must be incomplete")
	}
	c.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, int(gl.LINEAR))
	if !x.complete() {
		t.Error("single level with LINEAR must be complete")
	}
	c.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, int(gl.LINEAR_MIPMAP_LINEAR))
	c.GenerateMipmap(gl.TEXTURE_2D)
	if !x.complete() || x.resLv != 2 {
		t.Errorf("after GenerateMipmap: complete %v, levels %d", x.complete(), x.resLv)
	}
	got := make([]byte, 16)
	if err := c.pipe.ResourceRead(x.res, 0, 0, 0, 0, 2, 2, got); err != nil {
		t.Fatal(err)
	}
	// Unpack alignment 4: rows are 2 bytes + 2 padding.
	want := []byte{10, 10, 10, 255, 20, 20, 20, 255, 30, 30, 30, 255, 40, 40, 40, 255}
	if string(got) != string(want) {
		t.Errorf("stored texels %v, want %v", got, want)
	}
	mip := make([]byte, 4)
	c.pipe.ResourceRead(x.res, 0, 1, 0, 0, 1, 1, mip)
	if mip[0] != 25 || mip[3] != 255 {
		t.Errorf("level 1 = %v, want 25,25,25,255", mip)
	}
	if v := c.samplerView(x); v == nil {
		t.Error("no sampler view for a complete texture")
	}
	// OES_texture_npot: NPOT textures repeat and mipmap like any other.
	c.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 5, 3, gl.RGBA, gl.UNSIGNED_BYTE, nil)
	c.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, int(gl.LINEAR))
	if !x.complete() {
		t.Error("NPOT texture with REPEAT and LINEAR must be complete")
	}
	c.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, int(gl.LINEAR_MIPMAP_LINEAR))
	if x.complete() {
		t.Error("NPOT texture without its mipmaps must be incomplete")
	}
	c.GenerateMipmap(gl.TEXTURE_2D)
	if e := c.GetError(); e != gl.NO_ERROR {
		t.Fatalf("GenerateMipmap of a 5×3 texture: error %#x", e)
	}
	if !x.complete() || x.resLv != 3 {
		t.Errorf("5×3 texture after GenerateMipmap: complete %v, %d levels, want 3 (5×3, 2×1, 1×1)", x.complete(), x.resLv)
	}
}

func TestFramebufferCompleteness(t *testing.T) {
	c, _ := newTestContext(t)
	fb := c.CreateFramebuffer()
	c.BindFramebuffer(gl.FRAMEBUFFER, fb)
	if s := c.CheckFramebufferStatus(gl.FRAMEBUFFER); s != gl.FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT {
		t.Errorf("empty: %#x", s)
	}
	tex := c.CreateTexture()
	c.BindTexture(gl.TEXTURE_2D, tex)
	c.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 16, 16, gl.RGBA, gl.UNSIGNED_BYTE, nil)
	c.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0)
	if s := c.CheckFramebufferStatus(gl.FRAMEBUFFER); s != gl.FRAMEBUFFER_COMPLETE {
		t.Errorf("texture only: %#x", s)
	}
	rb := c.CreateRenderbuffer()
	c.BindRenderbuffer(gl.RENDERBUFFER, rb)
	c.RenderbufferStorage(gl.RENDERBUFFER, gl.DEPTH_COMPONENT16, 8, 8)
	c.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, rb)
	if s := c.CheckFramebufferStatus(gl.FRAMEBUFFER); s != gl.FRAMEBUFFER_INCOMPLETE_DIMENSIONS {
		t.Errorf("mismatched sizes: %#x", s)
	}
	c.RenderbufferStorage(gl.RENDERBUFFER, gl.DEPTH_COMPONENT16, 16, 16)
	if s := c.CheckFramebufferStatus(gl.FRAMEBUFFER); s != gl.FRAMEBUFFER_COMPLETE {
		t.Errorf("texture + depth: %#x", s)
	}
	c.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, rb)
	if s := c.CheckFramebufferStatus(gl.FRAMEBUFFER); s != gl.FRAMEBUFFER_INCOMPLETE_ATTACHMENT {
		t.Errorf("depth format as colour: %#x", s)
	}
	if e := c.GetError(); e != gl.NO_ERROR {
		t.Errorf("error %#x", e)
	}
}

func TestShaderCompileFailureLog(t *testing.T) {
	c, _ := newTestContext(t)
	s := c.CreateShader(gl.FRAGMENT_SHADER)
	c.ShaderSource(s, "void main() {}\n#error broken\n")
	c.CompileShader(s)
	if c.GetShaderi(s, gl.COMPILE_STATUS) != 0 {
		t.Fatal("COMPILE_STATUS true for a failing shader")
	}
	if log := c.GetShaderInfoLog(s); log == "" || c.GetShaderi(s, gl.INFO_LOG_LENGTH) != len(log)+1 {
		t.Errorf("log %q, length %d", log, c.GetShaderi(s, gl.INFO_LOG_LENGTH))
	}
	p := c.CreateProgram()
	v := c.CreateShader(gl.VERTEX_SHADER)
	c.ShaderSource(v, testVS)
	c.CompileShader(v)
	c.AttachShader(p, v)
	c.AttachShader(p, s)
	c.LinkProgram(p)
	if c.GetProgrami(p, gl.LINK_STATUS) != 0 || c.GetProgramInfoLog(p) == "" {
		t.Error("linking a failed shader must fail with a log")
	}
	// Deleting an attached shader only flags it.
	c.DeleteShader(v)
	if !c.IsShader(v) || c.GetShaderi(v, gl.DELETE_STATUS) != 1 {
		t.Error("attached shader deleted immediately")
	}
	c.DetachShader(p, v)
	if c.IsShader(v) {
		t.Error("flagged shader survived detaching")
	}
}

// noDerivatives is a compiler without GL_OES_standard_derivatives.
type noDerivatives struct{ tgtest.Compiler }

func (c noDerivatives) Compile(stage pipe.ShaderStage, src string) pipe.CompiledShader {
	if strings.Contains(src, "GL_OES_standard_derivatives") {
		src = "#error GL_OES_standard_derivatives is not supported"
	}
	return c.Compiler.Compile(stage, src)
}

// TestDerivativesExtensionFollowsTheCompiler checks that
// GL_OES_standard_derivatives and its hint exist exactly when the screen's
// compiler accepts the extension.
func TestDerivativesExtensionFollowsTheCompiler(t *testing.T) {
	for _, tc := range []struct {
		name     string
		compiler tg.ShaderCompiler
		want     bool
	}{{"supported", tgtest.Compiler{}, true}, {"unsupported", noDerivatives{}, false}} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tg.NewScreen(tgtest.NewWinsys(), tc.compiler, tg.ScreenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			color, err := s.ResourceCreate(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: pipe.FormatRGBA8, Width: 4, Height: 4, Levels: 1})
			if err != nil {
				t.Fatal(err)
			}
			c, err := New(s.NewContext(), DefaultFramebuffer{Width: 4, Height: 4, Color: color})
			if err != nil {
				t.Fatal(err)
			}
			ext := c.GetString(gl.EXTENSIONS)
			if got := strings.Contains(ext, "GL_OES_standard_derivatives"); got != tc.want {
				t.Errorf("GL_EXTENSIONS %q: derivatives listed %v, want %v", ext, got, tc.want)
			}
			if !strings.Contains(ext, "GL_OES_texture_npot") || !strings.Contains(ext, "GL_OES_element_index_uint") {
				t.Errorf("GL_EXTENSIONS %q lacks the extensions gles implements", ext)
			}
			c.Hint(gl.FRAGMENT_SHADER_DERIVATIVE_HINT_OES, gl.FASTEST)
			v := make([]int32, 1)
			c.GetIntegerv(v, gl.FRAGMENT_SHADER_DERIVATIVE_HINT_OES)
			e := c.GetError()
			if tc.want && (e != gl.NO_ERROR || gl.Enum(v[0]) != gl.FASTEST) {
				t.Errorf("derivative hint: error %#x, value %#x; want FASTEST", e, v[0])
			}
			if !tc.want && e != gl.INVALID_ENUM {
				t.Errorf("derivative hint without the extension: error %#x, want INVALID_ENUM", e)
			}
		})
	}
}

// TestLimitsComeFromTheCompiler checks every GL_MAX_* shader limit against
// the compiler's gl_Max* constants.
func TestLimitsComeFromTheCompiler(t *testing.T) {
	c, _ := newTestContext(t)
	for _, tc := range []struct {
		pname gl.Enum
		want  int
	}{
		{gl.MAX_VERTEX_ATTRIBS, glsl.MaxVertexAttribs},
		{gl.MAX_VERTEX_UNIFORM_VECTORS, glsl.MaxVertexUniformVectors},
		{gl.MAX_FRAGMENT_UNIFORM_VECTORS, glsl.MaxFragmentUniformVectors},
		{gl.MAX_VARYING_VECTORS, glsl.MaxVaryingVectors},
		{gl.MAX_TEXTURE_IMAGE_UNITS, glsl.MaxTextureImageUnits},
		{gl.MAX_VERTEX_TEXTURE_IMAGE_UNITS, glsl.MaxVertexTextureImageUnits},
		{gl.MAX_COMBINED_TEXTURE_IMAGE_UNITS, glsl.MaxCombinedTextureImageUnits},
	} {
		if got := c.GetInteger(tc.pname); got != tc.want {
			t.Errorf("GetInteger(%#x) = %d, want %d", tc.pname, got, tc.want)
		}
	}
}
