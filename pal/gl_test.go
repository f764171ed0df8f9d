package pal

import (
	"image"
	"testing"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/gl"
)

// glImage draws with the GL path (gles → pipe → driver/tg) and returns
// the frame bottom row first, like pal's images.
func glImage(t *testing.T, w, h int, draw func(g gl.Context)) []byte {
	t.Helper()
	ctx, err := tilegpu.NewContext(tilegpu.Config{Width: w, Height: h, MemorySize: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	draw(ctx.GL())
	img, err := ctx.Image()
	if err != nil {
		t.Fatal(err)
	}
	return bottomUp(img)
}

func bottomUp(img *image.NRGBA) []byte {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	out := make([]byte, 0, w*h*4)
	for y := h - 1; y >= 0; y-- {
		out = append(out, img.Pix[y*img.Stride:y*img.Stride+w*4]...)
	}
	return out
}

// TestTriangleMatchesGL draws the same triangle (edges at odd slopes, so
// the fill rule decides many pixels) through pal and through GL: the
// images must be identical bytes.
func TestTriangleMatchesGL(t *testing.T) {
	const w, h = 96, 80
	verts := []float32{-0.83, -0.91, 0.71, -0.33, -0.17, 0.87}
	r := newRig(t, w, h)
	copy(r.vbuf.bytes, floats(verts...))
	cb, err := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
	if err != nil {
		t.Fatal(err)
	}
	clear, col := [4]float32{0.1, 0.2, 0.3, 1}, [4]float32{0.9, 0.6, 0.25, 1}
	r.recordTriangle(t, cb, clear, col)
	r.submitAndWait(t, cb)

	want := glImage(t, w, h, func(g gl.Context) {
		vs, fs := g.CreateShader(gl.VERTEX_SHADER), g.CreateShader(gl.FRAGMENT_SHADER)
		g.ShaderSource(vs, triVS)
		g.ShaderSource(fs, triFS)
		g.CompileShader(vs)
		g.CompileShader(fs)
		p := g.CreateProgram()
		g.AttachShader(p, vs)
		g.AttachShader(p, fs)
		g.BindAttribLocation(p, gl.Attrib{Value: 0}, "a_pos")
		g.LinkProgram(p)
		g.UseProgram(p)
		b := g.CreateBuffer()
		g.BindBuffer(gl.ARRAY_BUFFER, b)
		g.BufferData(gl.ARRAY_BUFFER, gl.Float32Bytes(verts...), gl.STATIC_DRAW)
		g.EnableVertexAttribArray(gl.Attrib{Value: 0})
		g.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 8, 0)
		g.Uniform4f(g.GetUniformLocation(p, "u_color"), col[0], col[1], col[2], col[3])
		g.ClearColor(clear[0], clear[1], clear[2], clear[3])
		g.Clear(gl.COLOR_BUFFER_BIT)
		g.DrawArrays(gl.TRIANGLES, 0, 3)
	})
	got := r.mem.bytes[:w*h*4]
	diff, covered := 0, 0
	for i := 0; i < len(want); i += 4 {
		if [4]byte(got[i:i+4]) != [4]byte(want[i:i+4]) {
			diff++
		}
		if want[i] == 230 {
			covered++
		}
	}
	if covered == 0 || covered == w*h {
		t.Fatalf("GL reference covers %d of %d pixels", covered, w*h)
	}
	if diff != 0 {
		t.Fatalf("%d of %d pixels differ from GL", diff, w*h)
	}
}
