package tilegpu_test

import (
	"fmt"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/gl"
)

// Render a frame with the GL API and read it back, as README.md shows.
func Example() {
	ctx, err := tilegpu.NewContext(tilegpu.Config{Width: 64, Height: 64})
	if err != nil {
		panic(err)
	}
	defer ctx.Close()
	g := ctx.GL() // a gl.Context: the names and signatures of golang.org/x/mobile/gl
	g.ClearColor(0, 0.5, 1, 1)
	g.Clear(gl.COLOR_BUFFER_BIT)
	img, err := ctx.Image() // the default framebuffer, top row first
	if err != nil {
		panic(err)
	}
	fmt.Println(img.Bounds().Dx(), img.Bounds().Dy(), img.NRGBAAt(10, 10))
	// Output: 64 64 {0 128 255 255}
}

// Draw a textured triangle: a 2×2 texture (red, green / blue, white) with
// nearest filtering over a triangle that covers the left half of the
// frame; gl.Float32Bytes packs the vertex data.
func Example_texturedTriangle() {
	ctx, err := tilegpu.NewContext(tilegpu.Config{Width: 64, Height: 64})
	if err != nil {
		panic(err)
	}
	defer ctx.Close()
	g := ctx.GL()

	compile := func(ty gl.Enum, src string) gl.Shader {
		s := g.CreateShader(ty)
		g.ShaderSource(s, src)
		g.CompileShader(s)
		return s
	}
	p := g.CreateProgram()
	g.AttachShader(p, compile(gl.VERTEX_SHADER, `
		attribute vec2 a_pos;
		attribute vec2 a_uv;
		varying vec2 v_uv;
		void main() { v_uv = a_uv; gl_Position = vec4(a_pos, 0.0, 1.0); }`))
	g.AttachShader(p, compile(gl.FRAGMENT_SHADER, `
		precision mediump float;
		uniform sampler2D u_tex;
		varying vec2 v_uv;
		void main() { gl_FragColor = texture2D(u_tex, v_uv); }`))
	g.BindAttribLocation(p, gl.Attrib{Value: 0}, "a_pos")
	g.BindAttribLocation(p, gl.Attrib{Value: 1}, "a_uv")
	g.LinkProgram(p)
	g.UseProgram(p)

	// x, y, u, v per vertex: the triangle (-1,-1), (0,-1), (-1,1).
	vb := g.CreateBuffer()
	g.BindBuffer(gl.ARRAY_BUFFER, vb)
	g.BufferData(gl.ARRAY_BUFFER, gl.Float32Bytes(
		-1, -1, 0, 0,
		0, -1, 1, 0,
		-1, 1, 0, 1,
	), gl.STATIC_DRAW)
	g.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 16, 0)
	g.VertexAttribPointer(gl.Attrib{Value: 1}, 2, gl.FLOAT, false, 16, 8)
	g.EnableVertexAttribArray(gl.Attrib{Value: 0})
	g.EnableVertexAttribArray(gl.Attrib{Value: 1})

	tex := g.CreateTexture()
	g.BindTexture(gl.TEXTURE_2D, tex)
	g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 2, 2, gl.RGBA, gl.UNSIGNED_BYTE, []byte{
		255, 0, 0, 255, 0, 255, 0, 255, // first row uploaded: t = 0
		0, 0, 255, 255, 255, 255, 255, 255,
	})
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)

	g.ClearColor(0, 0, 0, 1)
	g.Clear(gl.COLOR_BUFFER_BIT)
	g.DrawArrays(gl.TRIANGLES, 0, 3)
	img, err := ctx.Image() // top row first
	if err != nil {
		panic(err)
	}
	// Bottom-left (t < 0.5, s < 0.5): red; top-left (t > 0.5): blue;
	// bottom, right of centre of the triangle's base (s > 0.5): green;
	// the right half is not covered.
	fmt.Println(img.NRGBAAt(2, 61), img.NRGBAAt(2, 10), img.NRGBAAt(20, 61), img.NRGBAAt(48, 32))
	// Output: {255 0 0 255} {0 0 255 255} {0 255 0 255} {0 0 0 255}
}
