package tilegpu

import (
	"image"
	"testing"

	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/internal/le"
)

func f32bytes(fs ...float32) []byte { return le.Float32s(fs) }

// positions uploads 2D positions to a new buffer and feeds them to
// attribute 0 (a_pos), returning the buffer.
func positions(g gl.Context, xy ...float32) gl.Buffer {
	vb := g.CreateBuffer()
	g.BindBuffer(gl.ARRAY_BUFFER, vb)
	g.BufferData(gl.ARRAY_BUFFER, f32bytes(xy...), gl.STATIC_DRAW)
	g.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, 0)
	g.EnableVertexAttribArray(gl.Attrib{Value: 0})
	return vb
}

// newTestContext creates a context closed when the test ends.
func newTestContext(t *testing.T, cfg Config) *Context {
	t.Helper()
	ctx, err := NewContext(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Close() })
	return ctx
}

// pixelWant is an expected RGBA value at (x, y), top row first.
type pixelWant struct {
	x, y int
	want [4]uint8
}

func expectPixels(t *testing.T, img *image.NRGBA, want []pixelWant) {
	t.Helper()
	for _, tc := range want {
		c := img.NRGBAAt(tc.x, tc.y)
		if got := [4]uint8{c.R, c.G, c.B, c.A}; got != tc.want {
			t.Errorf("pixel (%d,%d) = %v, want %v", tc.x, tc.y, got, tc.want)
		}
	}
}

func buildProgram(t *testing.T, g gl.Context, vsSrc, fsSrc string) gl.Program {
	t.Helper()
	p, err := bench.Program(g, vsSrc, fsSrc) // binds a_pos to attribute 0
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestColouredTriangle draws a triangle covering the left half of a 64×48
// framebuffer (diagonal from bottom-left to top-middle... see below) and
// checks pixels inside and outside it.
func TestColouredTriangle(t *testing.T) {
	ctx := newTestContext(t, Config{Width: 64, Height: 48, Cores: 2})
	g := ctx.GL()
	p := buildProgram(t, g,
		"attribute vec2 a_pos; void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }",
		"precision mediump float; uniform vec4 u_color; void main() { gl_FragColor = u_color; }")
	g.UseProgram(p)
	buf := g.CreateBuffer()
	g.BindBuffer(gl.ARRAY_BUFFER, buf)
	// Lower-left triangle: (-1,-1) (1,-1) (-1,1).
	g.BufferData(gl.ARRAY_BUFFER, f32bytes(-1, -1, 1, -1, -1, 1), gl.STATIC_DRAW)
	g.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, 0)
	g.EnableVertexAttribArray(gl.Attrib{Value: 0})
	g.Uniform4f(g.GetUniformLocation(p, "u_color"), 1, 0.5, 0, 1)
	g.ClearColor(0, 0, 1, 1)
	g.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	g.DrawArrays(gl.TRIANGLES, 0, 3)
	if e := g.GetError(); e != gl.NO_ERROR {
		t.Fatalf("GL error %#x: %v", e, ctx.GLES().LastDriverError())
	}
	img, err := ctx.Image()
	if err != nil {
		t.Fatal(err)
	}
	// Image rows are top first: the triangle covers the bottom-left.
	expectPixels(t, img, []pixelWant{
		{2, 45, [4]uint8{255, 128, 0, 255}}, // bottom-left: inside
		{60, 2, [4]uint8{0, 0, 255, 255}},   // top-right: clear colour
		{10, 30, [4]uint8{255, 128, 0, 255}},
		{50, 10, [4]uint8{0, 0, 255, 255}},
	})
	// ReadPixels is bottom row first.
	px := make([]byte, 4)
	g.ReadPixels(px, 2, 2, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE)
	if px[0] != 255 || px[2] != 0 {
		t.Errorf("ReadPixels(2,2) = %v, want the triangle colour", px)
	}
}

// TestTexturedDepthTestedScene draws two overlapping textured quads at
// different depths with LESS depth testing (the far one second) and checks
// that the near one wins, that the texture's texels land where the
// texture-coordinate convention puts them, and that the counters moved.
func TestTexturedDepthTestedScene(t *testing.T) {
	ctx := newTestContext(t, Config{Width: 32, Height: 32, Cores: 1})
	g := ctx.GL()
	p := buildProgram(t, g, `attribute vec2 a_pos;
uniform float u_z;
varying vec2 v_uv;
void main() { v_uv = a_pos * 0.5 + 0.5; gl_Position = vec4(a_pos, u_z, 1.0); }`,
		`precision mediump float;
uniform sampler2D u_tex;
uniform vec4 u_tint;
varying vec2 v_uv;
void main() { vec4 t = texture2D(u_tex, v_uv); gl_FragColor = vec4(t.rgb * u_tint.rgb, 1.0); }`)
	g.UseProgram(p)
	buf := g.CreateBuffer()
	g.BindBuffer(gl.ARRAY_BUFFER, buf)
	g.BufferData(gl.ARRAY_BUFFER, f32bytes(-1, -1, 1, -1, -1, 1, 1, 1), gl.STATIC_DRAW)
	g.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, 0)
	g.EnableVertexAttribArray(gl.Attrib{Value: 0})

	// 2×2 texture: bottom row red, green; top row blue, white.
	tex := g.CreateTexture()
	g.BindTexture(gl.TEXTURE_2D, tex)
	g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 2, 2, gl.RGBA, gl.UNSIGNED_BYTE, []byte{
		255, 0, 0, 255, 0, 255, 0, 255,
		0, 0, 255, 255, 255, 255, 255, 255,
	})
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, int(gl.NEAREST))
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, int(gl.NEAREST))
	g.Uniform1i(g.GetUniformLocation(p, "u_tex"), 0)

	g.Enable(gl.DEPTH_TEST)
	g.DepthFunc(gl.LESS)
	g.ClearColor(0, 0, 0, 1)
	g.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	uz, tint := g.GetUniformLocation(p, "u_z"), g.GetUniformLocation(p, "u_tint")
	g.Uniform1f(uz, -0.5) // near
	g.Uniform4f(tint, 1, 1, 1, 1)
	g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	g.Uniform1f(uz, 0.5) // far: must be hidden
	g.Uniform4f(tint, 0, 0, 0, 1)
	g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	g.Finish()
	if e := g.GetError(); e != gl.NO_ERROR {
		t.Fatalf("GL error %#x: %v", e, ctx.GLES().LastDriverError())
	}
	img, err := ctx.Image()
	if err != nil {
		t.Fatal(err)
	}
	expectPixels(t, img, []pixelWant{
		{4, 28, [4]uint8{255, 0, 0, 255}},     // bottom-left texel
		{28, 28, [4]uint8{0, 255, 0, 255}},    // bottom-right
		{4, 4, [4]uint8{0, 0, 255, 255}},      // top-left
		{28, 4, [4]uint8{255, 255, 255, 255}}, // top-right
	})
	s := ctx.Stats()
	if s.Instructions == 0 || s.Fragments == 0 || s.Jobs != 1 || s.Draws != 2 {
		t.Errorf("stats %+v: want instructions and fragments counted, 1 job, 2 draws", s)
	}
}

// TestIndexedDrawsScissorClearAndRenderToTexture covers u8/u16/u32
// indices, a scissored clear (drawn as a quad), and a texture rendered in
// an FBO then sampled in the default framebuffer (the FBO's job must be
// flushed before the sampling draw).
func TestIndexedDrawsScissorClearAndRenderToTexture(t *testing.T) {
	ctx := newTestContext(t, Config{Width: 32, Height: 32, Cores: 2})
	g := ctx.GL()
	solid := buildProgram(t, g,
		"attribute vec2 a_pos; void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }",
		"precision mediump float; uniform vec4 u_color; void main() { gl_FragColor = u_color; }")
	textured := buildProgram(t, g, `attribute vec2 a_pos;
varying vec2 v_uv;
void main() { v_uv = a_pos * 0.5 + 0.5; gl_Position = vec4(a_pos, 0.0, 1.0); }`,
		`precision mediump float;
uniform sampler2D u_tex;
varying vec2 v_uv;
void main() { gl_FragColor = texture2D(u_tex, v_uv); }`)
	vb := positions(g, -1, -1, 1, -1, -1, 1, 1, 1)
	ib := g.CreateBuffer()
	g.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, ib)

	// Render into a 16×16 texture: clear green, then a red scissored clear
	// of its left half.
	tex := g.CreateTexture()
	g.BindTexture(gl.TEXTURE_2D, tex)
	g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 16, 16, gl.RGBA, gl.UNSIGNED_BYTE, nil)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, int(gl.NEAREST))
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, int(gl.NEAREST))
	fb := g.CreateFramebuffer()
	g.BindFramebuffer(gl.FRAMEBUFFER, fb)
	g.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0)
	if st := g.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
		t.Fatalf("FBO status %#x", st)
	}
	g.Viewport(0, 0, 16, 16)
	g.ClearColor(0, 1, 0, 1)
	g.Clear(gl.COLOR_BUFFER_BIT)
	g.Enable(gl.SCISSOR_TEST)
	g.Scissor(0, 0, 8, 16)
	g.ClearColor(1, 0, 0, 1)
	g.Clear(gl.COLOR_BUFFER_BIT)
	g.Disable(gl.SCISSOR_TEST)

	// Default framebuffer: sample the texture over the whole window with
	// u16 indices.
	g.BindFramebuffer(gl.FRAMEBUFFER, gl.Framebuffer{})
	g.Viewport(0, 0, 32, 32)
	g.ClearColor(0, 0, 0, 1)
	g.Clear(gl.COLOR_BUFFER_BIT)
	g.UseProgram(textured)
	g.Uniform1i(g.GetUniformLocation(textured, "u_tex"), 0)
	g.BufferData(gl.ELEMENT_ARRAY_BUFFER, []byte{0, 0, 1, 0, 2, 0, 2, 0, 1, 0, 3, 0}, gl.STATIC_DRAW)
	g.DrawElements(gl.TRIANGLES, 6, gl.UNSIGNED_SHORT, 0)

	// Then blue over the top-right quarter with u8 and u32 indices (one
	// triangle each), drawn with the solid program.
	g.UseProgram(solid)
	g.Uniform4f(g.GetUniformLocation(solid, "u_color"), 0, 0, 1, 1)
	g.BindBuffer(gl.ARRAY_BUFFER, vb)
	g.BufferData(gl.ARRAY_BUFFER, f32bytes(0, 0, 1, 0, 0, 1, 1, 1), gl.STATIC_DRAW)
	g.BufferData(gl.ELEMENT_ARRAY_BUFFER, []byte{0, 1, 2, 0, 2, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0}, gl.STATIC_DRAW)
	g.DrawElements(gl.TRIANGLES, 3, gl.UNSIGNED_BYTE, 0)
	g.DrawElements(gl.TRIANGLES, 3, gl.UNSIGNED_INT, 4)
	if e := g.GetError(); e != gl.NO_ERROR {
		t.Fatalf("GL error %#x: %v", e, ctx.GLES().LastDriverError())
	}
	img, err := ctx.Image()
	if err != nil {
		t.Fatal(err)
	}
	expectPixels(t, img, []pixelWant{
		{4, 28, [4]uint8{255, 0, 0, 255}},  // bottom-left: texture's red half
		{4, 4, [4]uint8{255, 0, 0, 255}},   // top-left: red half
		{28, 28, [4]uint8{0, 255, 0, 255}}, // bottom-right: green half
		{28, 4, [4]uint8{0, 0, 255, 255}},  // top-right: blue quad over it
		{20, 12, [4]uint8{0, 0, 255, 255}},
	})
}

// TestCubeMapSampling samples a cube map whose faces have different colours
// along +X and −Z.
func TestCubeMapSampling(t *testing.T) {
	ctx := newTestContext(t, Config{Width: 8, Height: 8, Cores: 1})
	g := ctx.GL()
	p := buildProgram(t, g, "attribute vec2 a_pos; void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }",
		"precision mediump float; uniform samplerCube u_cube; uniform vec3 u_dir; void main() { gl_FragColor = textureCube(u_cube, u_dir); }")
	g.UseProgram(p)
	positions(g, -1, -1, 1, -1, -1, 1, 1, 1)
	cube := g.CreateTexture()
	g.BindTexture(gl.TEXTURE_CUBE_MAP, cube)
	colours := [6][4]byte{{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {255, 255, 0, 255}, {0, 255, 255, 255}, {255, 0, 255, 255}}
	for f, col := range colours {
		px := make([]byte, 0, 16)
		for i := 0; i < 4; i++ {
			px = append(px, col[:]...)
		}
		g.TexImage2D(gl.TEXTURE_CUBE_MAP_POSITIVE_X+gl.Enum(f), 0, gl.RGBA, 2, 2, gl.RGBA, gl.UNSIGNED_BYTE, px)
	}
	g.TexParameteri(gl.TEXTURE_CUBE_MAP, gl.TEXTURE_MIN_FILTER, int(gl.NEAREST))
	dir := g.GetUniformLocation(p, "u_dir")
	for _, tc := range []struct {
		dir  [3]float32
		face int
	}{{[3]float32{1, 0.1, 0.1}, 0}, {[3]float32{0.1, 0.2, -1}, 5}, {[3]float32{0, 1, 0}, 2}} {
		g.Uniform3f(dir, tc.dir[0], tc.dir[1], tc.dir[2])
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		px := make([]byte, 4)
		g.ReadPixels(px, 4, 4, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE)
		if e := g.GetError(); e != gl.NO_ERROR {
			t.Fatalf("GL error %#x: %v", e, ctx.GLES().LastDriverError())
		}
		if [4]byte(px) != colours[tc.face] {
			t.Errorf("direction %v: %v, want face %d %v", tc.dir, px, tc.face, colours[tc.face])
		}
	}
}

// TestDynamicUniformIndexAndGenericAttribute reads a uniform array with a
// dynamic index (the storage-block copy) and a colour from a disabled
// attribute array (a stride-0 attribute holding glVertexAttrib4f's value).
func TestDynamicUniformIndexAndGenericAttribute(t *testing.T) {
	ctx := newTestContext(t, Config{Width: 8, Height: 8, Cores: 1})
	g := ctx.GL()
	p := buildProgram(t, g, `attribute vec2 a_pos;
attribute vec4 a_col;
varying vec4 v_col;
void main() { v_col = a_col; gl_Position = vec4(a_pos, 0.0, 1.0); }`,
		`precision mediump float;
uniform vec4 u_cols[3];
uniform int u_i;
varying vec4 v_col;
void main() { gl_FragColor = u_cols[u_i] + v_col; }`)
	g.UseProgram(p)
	positions(g, -1, -1, 1, -1, -1, 1, 1, 1)
	col := g.GetAttribLocation(p, "a_col")
	g.DisableVertexAttribArray(col)
	g.VertexAttrib4f(col, 0, 0, 0.5, 0)
	g.Uniform4fv(g.GetUniformLocation(p, "u_cols"), []float32{1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 1})
	for i, want := range [][4]byte{{255, 0, 128, 255}, {0, 255, 128, 255}, {0, 0, 128, 255}} {
		g.Uniform1i(g.GetUniformLocation(p, "u_i"), i)
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		px := make([]byte, 4)
		g.ReadPixels(px, 3, 3, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE)
		if e := g.GetError(); e != gl.NO_ERROR {
			t.Fatalf("GL error %#x: %v", e, ctx.GLES().LastDriverError())
		}
		if [4]byte(px) != want {
			t.Errorf("u_i=%d: %v, want %v", i, px, want)
		}
	}
}

// TestRGBTextureAlphaIsOne renders alpha 0 into an RGB texture and samples
// it: RGB textures have no alpha, so the sampled alpha must be 1 (the
// sampler view's swizzle supplies it).
func TestRGBTextureAlphaIsOne(t *testing.T) {
	ctx := newTestContext(t, Config{Width: 8, Height: 8, Cores: 1})
	g := ctx.GL()
	p := buildProgram(t, g, "attribute vec2 a_pos; varying vec2 v_uv; void main() { v_uv = a_pos * 0.5 + 0.5; gl_Position = vec4(a_pos, 0.0, 1.0); }",
		"precision mediump float; uniform sampler2D u_tex; varying vec2 v_uv; void main() { gl_FragColor = texture2D(u_tex, v_uv); }")
	positions(g, -1, -1, 1, -1, -1, 1, 1, 1)
	tex := g.CreateTexture()
	g.BindTexture(gl.TEXTURE_2D, tex)
	g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGB, 4, 4, gl.RGB, gl.UNSIGNED_BYTE, nil)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, int(gl.NEAREST))
	fb := g.CreateFramebuffer()
	g.BindFramebuffer(gl.FRAMEBUFFER, fb)
	g.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0)
	g.ClearColor(0.2, 0.4, 0.6, 0)
	g.Clear(gl.COLOR_BUFFER_BIT)
	g.BindFramebuffer(gl.FRAMEBUFFER, gl.Framebuffer{})
	g.UseProgram(p)
	g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	px := make([]byte, 4)
	g.ReadPixels(px, 4, 4, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE)
	if e := g.GetError(); e != gl.NO_ERROR {
		t.Fatalf("GL error %#x: %v", e, ctx.GLES().LastDriverError())
	}
	if want := [4]byte{51, 102, 153, 255}; [4]byte(px) != want {
		t.Errorf("sampled %v, want %v", px, want)
	}
}

// TestPointsAndLines draws 4-pixel points (gl_PointSize) and a line.
func TestPointsAndLines(t *testing.T) {
	ctx := newTestContext(t, Config{Width: 16, Height: 16, Cores: 1})
	g := ctx.GL()
	p := buildProgram(t, g, "attribute vec2 a_pos; void main() { gl_PointSize = 4.0; gl_Position = vec4(a_pos, 0.0, 1.0); }",
		"precision mediump float; void main() { gl_FragColor = vec4(1.0, 1.0, 0.0, 1.0); }")
	g.UseProgram(p)
	vb := g.CreateBuffer()
	g.BindBuffer(gl.ARRAY_BUFFER, vb)
	// The line runs through the centres of GL row 12 (image row 3).
	g.BufferData(gl.ARRAY_BUFFER, f32bytes(0, 0, -0.75, -0.75, 0.5, 0.5625, -0.5, 0.5625), gl.STATIC_DRAW)
	g.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, 0)
	g.EnableVertexAttribArray(gl.Attrib{Value: 0})
	g.Clear(gl.COLOR_BUFFER_BIT)
	g.DrawArrays(gl.POINTS, 0, 2)
	g.DrawArrays(gl.LINES, 2, 2)
	img, err := ctx.Image()
	if err != nil {
		t.Fatal(err)
	}
	if e := g.GetError(); e != gl.NO_ERROR {
		t.Fatalf("GL error %#x: %v", e, ctx.GLES().LastDriverError())
	}
	lit := func(x, y int) bool { return img.NRGBAAt(x, y).R == 255 }
	for _, tc := range []struct {
		x, y int
		want bool
	}{
		{6, 6, true}, {9, 9, true}, {5, 6, false}, {10, 9, false}, // point at the centre, top row first
		{0, 12, true}, {3, 15, true}, {4, 12, false}, // point at (-0.75, -0.75)
		{5, 3, true}, {10, 3, true}, {8, 2, false}, {8, 4, false}, // the line
	} {
		if got := lit(tc.x, tc.y); got != tc.want {
			t.Errorf("pixel (%d,%d) lit %v, want %v", tc.x, tc.y, got, tc.want)
		}
	}
}

// TestStencilAndBlend marks the left half in the stencil buffer with the
// colour mask off, then draws a full-window quad only where stencil == 1,
// blended 50% over the clear colour.
func TestStencilAndBlend(t *testing.T) {
	ctx := newTestContext(t, Config{Width: 16, Height: 16, Cores: 1})
	g := ctx.GL()
	p := buildProgram(t, g, "attribute vec2 a_pos; void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }",
		"precision mediump float; uniform vec4 u_color; void main() { gl_FragColor = u_color; }")
	g.UseProgram(p)
	col := g.GetUniformLocation(p, "u_color")
	positions(g, -1, -1, 0, -1, -1, 1, 0, 1, -1, -1, 1, -1, -1, 1, 1, 1)
	g.ClearColor(0, 0, 1, 1)
	g.ClearStencil(0)
	g.Clear(gl.COLOR_BUFFER_BIT | gl.STENCIL_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	g.Enable(gl.STENCIL_TEST)
	g.StencilFunc(gl.ALWAYS, 1, 0xff)
	g.StencilOp(gl.KEEP, gl.KEEP, gl.REPLACE)
	g.ColorMask(false, false, false, false)
	g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4) // left half
	g.ColorMask(true, true, true, true)
	g.StencilFunc(gl.EQUAL, 1, 0xff)
	g.StencilOp(gl.KEEP, gl.KEEP, gl.KEEP)
	g.Enable(gl.BLEND)
	g.BlendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA)
	g.Uniform4f(col, 1, 0, 0, 0.5)
	g.DrawArrays(gl.TRIANGLE_STRIP, 4, 4) // whole window
	img, err := ctx.Image()
	if err != nil {
		t.Fatal(err)
	}
	if e := g.GetError(); e != gl.NO_ERROR {
		t.Fatalf("GL error %#x: %v", e, ctx.GLES().LastDriverError())
	}
	expectPixels(t, img, []pixelWant{{3, 8, [4]uint8{128, 0, 128, 191}}, {12, 8, [4]uint8{0, 0, 255, 255}}})
}

// TestBufferUpdateBetweenDraws rewrites a vertex buffer between two draws
// of one frame: the first draw must still see the old vertices (the driver
// renames the buffer instead of flushing).
func TestBufferUpdateBetweenDraws(t *testing.T) {
	ctx := newTestContext(t, Config{Width: 16, Height: 16, Cores: 1})
	g := ctx.GL()
	p := buildProgram(t, g, "attribute vec2 a_pos; void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }",
		"precision mediump float; void main() { gl_FragColor = vec4(1.0); }")
	g.UseProgram(p)
	vb := g.CreateBuffer()
	g.BindBuffer(gl.ARRAY_BUFFER, vb)
	g.BufferData(gl.ARRAY_BUFFER, f32bytes(-1, -1, 0, -1, -1, 1, 0, 1), gl.STATIC_DRAW) // left half
	g.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, 0)
	g.EnableVertexAttribArray(gl.Attrib{Value: 0})
	g.Clear(gl.COLOR_BUFFER_BIT)
	g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	g.BufferSubData(gl.ARRAY_BUFFER, 0, f32bytes(0, -1, 1, -1, 0, 1, 1, 1)) // right half
	g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	img, err := ctx.Image()
	if err != nil {
		t.Fatal(err)
	}
	if e := g.GetError(); e != gl.NO_ERROR {
		t.Fatalf("GL error %#x: %v", e, ctx.GLES().LastDriverError())
	}
	if l, r := img.NRGBAAt(3, 8).R, img.NRGBAAt(12, 8).R; l != 255 || r != 255 {
		t.Errorf("left %d right %d: both draws must show", l, r)
	}
	if s := ctx.Stats(); s.Jobs != 1 {
		t.Errorf("%d jobs: the buffer update should not split the frame", s.Jobs)
	}
}

// TestMaskedClear clears with a colour mask (drawn as a quad by the state
// tracker) and checks only the unmasked channel changed.
func TestMaskedClear(t *testing.T) {
	ctx := newTestContext(t, Config{Width: 8, Height: 8, Cores: 1})
	g := ctx.GL()
	g.ClearColor(0, 0, 1, 1)
	g.Clear(gl.COLOR_BUFFER_BIT)
	g.ColorMask(true, false, false, false)
	g.ClearColor(1, 1, 1, 1)
	g.Clear(gl.COLOR_BUFFER_BIT)
	px := make([]byte, 4)
	g.ReadPixels(px, 5, 5, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE)
	if e := g.GetError(); e != gl.NO_ERROR {
		t.Fatalf("GL error %#x: %v", e, ctx.GLES().LastDriverError())
	}
	if want := [4]byte{255, 0, 255, 255}; [4]byte(px) != want {
		t.Errorf("masked clear gave %v, want %v", px, want)
	}
}
