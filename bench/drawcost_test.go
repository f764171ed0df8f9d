package bench_test

import (
	"testing"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/internal/le"
)

const (
	vsSprite = `attribute vec2 a_pos;
uniform vec2 u_offset;
void main(){ gl_Position = vec4(a_pos*0.03 + u_offset, 0.0, 1.0); }
`
	fsSprite = `precision mediump float;
uniform vec4 u_color;
void main(){ gl_FragColor = u_color; }
`
)

// setupSmallDraws makes a context with a program that places a small quad
// by a uniform offset and colours it by a uniform colour: the per-draw
// pattern of many applications (one uniform change, one small draw).
func setupSmallDraws(tb testing.TB, size int) (*tilegpu.Context, gl.Uniform, gl.Uniform) {
	tb.Helper()
	ctx, err := tilegpu.NewContext(tilegpu.Config{Width: size, Height: size})
	if err != nil {
		tb.Fatal(err)
	}
	g := ctx.GL()
	compile := func(kind gl.Enum, src string) gl.Shader {
		s := g.CreateShader(kind)
		g.ShaderSource(s, src)
		g.CompileShader(s)
		if g.GetShaderi(s, gl.COMPILE_STATUS) == 0 {
			tb.Fatalf("compile: %s", g.GetShaderInfoLog(s))
		}
		return s
	}
	p := g.CreateProgram()
	g.AttachShader(p, compile(gl.VERTEX_SHADER, vsSprite))
	g.AttachShader(p, compile(gl.FRAGMENT_SHADER, fsSprite))
	g.BindAttribLocation(p, gl.Attrib{Value: 0}, "a_pos")
	g.LinkProgram(p)
	if g.GetProgrami(p, gl.LINK_STATUS) == 0 {
		tb.Fatalf("link: %s", g.GetProgramInfoLog(p))
	}
	g.UseProgram(p)
	vbo := g.CreateBuffer()
	g.BindBuffer(gl.ARRAY_BUFFER, vbo)
	g.BufferData(gl.ARRAY_BUFFER, le.Float32s([]float32{-1, -1, 1, -1, -1, 1, 1, 1}), gl.STATIC_DRAW)
	g.EnableVertexAttribArray(gl.Attrib{Value: 0})
	g.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, 0)
	if e := g.GetError(); e != gl.NO_ERROR {
		tb.Fatalf("setup: GL error 0x%x", e)
	}
	return ctx, g.GetUniformLocation(p, "u_offset"), g.GetUniformLocation(p, "u_color")
}

// BenchmarkSmallDrawsUniform measures the whole stack's cost of one small
// draw with one uniform change (gles → driver/tg → kernel → hw): each
// iteration is a Uniform2f, a Uniform4f and a 2-triangle DrawArrays of
// about 4×4 pixels; every 1000 draws the frame is cleared, flushed and
// finished, so the GPU's share is included.
func BenchmarkSmallDrawsUniform(b *testing.B) {
	ctx, uOffset, uColor := setupSmallDraws(b, 128)
	defer ctx.Close()
	g := ctx.GL()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		k := i % 1000
		if k == 0 {
			g.Clear(gl.COLOR_BUFFER_BIT)
		}
		g.Uniform2f(uOffset, float32(k%31)/16-0.95, float32(k/31)/16-0.95)
		g.Uniform4f(uColor, float32(k%10)/10, float32(k%7)/7, float32(k%3)/3, 1)
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		if k == 999 {
			g.Finish()
		}
	}
	g.Finish()
	if e := g.GetError(); e != gl.NO_ERROR {
		b.Fatalf("GL error 0x%x", e)
	}
}

// TestSmallDrawAllocations bounds the heap allocations of a small draw with
// a uniform change, flushed and validated by the kernel every 100 draws:
// the draw path must not allocate per draw beyond the kernel's record of
// the new shader state and its share of the flush (4.7 measured; was 34).
func TestSmallDrawAllocations(t *testing.T) {
	ctx, uOffset, uColor := setupSmallDraws(t, 64)
	defer ctx.Close()
	g := ctx.GL()
	frame := func() {
		g.Clear(gl.COLOR_BUFFER_BIT)
		for k := 0; k < 100; k++ {
			g.Uniform2f(uOffset, float32(k%31)/16-0.95, float32(k/31)/16-0.95)
			g.Uniform4f(uColor, float32(k%10)/10, float32(k%7)/7, float32(k%3)/3, 1)
			g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		}
		g.Finish()
	}
	frame()
	perDraw := testing.AllocsPerRun(5, frame) / 100
	if e := g.GetError(); e != gl.NO_ERROR {
		t.Fatalf("GL error 0x%x", e)
	}
	if perDraw > 8 {
		t.Errorf("%.1f allocations per draw, want at most 8", perDraw)
	}
	t.Logf("%.2f allocations per draw", perDraw)
}
