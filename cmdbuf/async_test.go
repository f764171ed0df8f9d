package cmdbuf_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tilegpu/tilegpu/cmdbuf"
	"github.com/tilegpu/tilegpu/gl"
)

// texturedQuad sets up a program drawing a full-viewport quad that samples
// unit 0 with NEAREST filtering at pixel centres, so that with a texture
// the size of the viewport every pixel shows exactly one texel.
func texturedQuad(t *testing.T, c gl.Context) {
	t.Helper()
	vs := "attribute vec2 p; varying vec2 uv; void main(){ uv = p * 0.5 + 0.5; gl_Position = vec4(p, 0.0, 1.0); }"
	fs := "precision mediump float; varying vec2 uv; uniform sampler2D tex; void main(){ gl_FragColor = texture2D(tex, uv); }"
	prog := c.CreateProgram()
	for _, sh := range []struct {
		ty  gl.Enum
		src string
	}{{gl.VERTEX_SHADER, vs}, {gl.FRAGMENT_SHADER, fs}} {
		s := c.CreateShader(sh.ty)
		c.ShaderSource(s, sh.src)
		c.CompileShader(s)
		c.AttachShader(prog, s)
	}
	c.BindAttribLocation(prog, gl.Attrib{Value: 0}, "p")
	c.LinkProgram(prog)
	if c.GetProgrami(prog, gl.LINK_STATUS) == 0 {
		t.Fatalf("link: %s", c.GetProgramInfoLog(prog))
	}
	c.UseProgram(prog)
	c.Uniform1i(c.GetUniformLocation(prog, "tex"), 0)
	vbo := c.CreateBuffer()
	c.BindBuffer(gl.ARRAY_BUFFER, vbo)
	quad := []float32{-1, -1, 1, -1, -1, 1, 1, 1}
	buf := make([]byte, 4*len(quad))
	for i, f := range quad {
		putF32(buf[4*i:], f)
	}
	c.BufferData(gl.ARRAY_BUFFER, buf, gl.STATIC_DRAW)
	c.EnableVertexAttribArray(gl.Attrib{Value: 0})
	c.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, 0)
}

func putF32(b []byte, f float32) {
	u := math.Float32bits(f)
	b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
}

// expandBits widens an n-bit normalised value to 8 bits (round to nearest).
func expandBits(v, n uint32) byte {
	m := uint32(1)<<n - 1
	return byte((v*255 + m/2) / m)
}

// TestAsyncUploadDrawsExactImage: a texture uploaded asynchronously and
// drawn right away, without waiting for its token, gives exactly the
// uploaded texels, over every transport: a whole RGB image with padded
// rows (larger than the transfer buffer, so it goes in row bands), then a
// 5-6-5 sub-rectangle uploaded while another texture is bound (the
// upload goes to the texture bound when it was issued). The async token
// passes.
func TestAsyncUploadDrawsExactImage(t *testing.T) {
	const w, h = 61, 45
	rng := rand.New(rand.NewPCG(9, 9))
	const stride = (w*3 + 3) &^ 3 // UNPACK_ALIGNMENT 4
	rgb := make([]byte, stride*h)
	for i := range rgb {
		rgb[i] = byte(rng.Uint32())
	}
	const sx, sy, sw, sh = 7, 5, 30, 21
	rgb565 := make([]byte, 2*sw*sh) // 60-byte rows: aligned
	for i := range rgb565 {
		rgb565[i] = byte(rng.Uint32())
	}
	want := make([]byte, w*h*4)
	for y := range h {
		for x := range w {
			copy(want[(y*w+x)*4:], rgb[y*stride+3*x:y*stride+3*x+3])
			want[(y*w+x)*4+3] = 255
		}
	}
	wantSub := bytes.Clone(want)
	for y := range sh {
		for x := range sw {
			v := uint32(rgb565[2*(y*sw+x)]) | uint32(rgb565[2*(y*sw+x)+1])<<8
			p := wantSub[((sy+y)*w+sx+x)*4:]
			p[0], p[1], p[2], p[3] = expandBits(v>>11, 5), expandBits(v>>5&63, 6), expandBits(v&31, 5), 255
		}
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := newService(t, cmdbuf.ServiceConfig{})
			dial, stop := tr.start(t, s)
			defer stop()
			c := dialClient(t, dial, cmdbuf.Options{Width: w, Height: h, TransferSize: 4096, MaxTransferSize: 4096})
			defer c.Close()
			texturedQuad(t, c)
			tex, other := c.CreateTexture(), c.CreateTexture()
			c.BindTexture(gl.TEXTURE_2D, tex)
			for _, p := range []gl.Enum{gl.TEXTURE_MIN_FILTER, gl.TEXTURE_MAG_FILTER} {
				c.TexParameteri(gl.TEXTURE_2D, p, int(gl.NEAREST))
			}
			tok := c.AsyncTexImage2D(gl.TEXTURE_2D, 0, int(gl.RGB), w, h, gl.RGB, gl.UNSIGNED_BYTE, rgb)
			c.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
			got := make([]byte, w*h*4)
			c.ReadPixels(got, 0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE)
			if !c.TokenPassed(tok) {
				t.Error("async token not passed after a read-back of a draw that sampled the texture")
			}
			checkPixels(t, "whole RGB image", got, want, w)

			c.BindTexture(gl.TEXTURE_2D, other)
			c.BindTexture(gl.TEXTURE_2D, tex)
			tok = c.AsyncTexSubImage2D(gl.TEXTURE_2D, 0, sx, sy, sw, sh, gl.RGB, gl.UNSIGNED_SHORT_5_6_5, rgb565)
			// Rebinding while the upload is pending must not redirect it:
			// the first draw (which completes the upload) runs with the
			// other, empty texture bound; the second samples tex.
			c.BindTexture(gl.TEXTURE_2D, other)
			c.ClearColor(0, 0, 1, 1)
			c.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
			c.BindTexture(gl.TEXTURE_2D, tex)
			c.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
			c.WaitForToken(tok)
			if !c.TokenPassed(tok) {
				t.Error("async token not passed after WaitForToken")
			}
			c.ReadPixels(got, 0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE)
			checkPixels(t, "5-6-5 sub-rectangle", got, wantSub, w)
			if e := c.GetError(); e != gl.NO_ERROR {
				t.Errorf("GL error 0x%x", e)
			}
			if err := c.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func checkPixels(t *testing.T, what string, got, want []byte, w int) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	bad, first := 0, ""
	for i := 0; i < len(got); i += 4 {
		if !bytes.Equal(got[i:i+4], want[i:i+4]) {
			if bad == 0 {
				first = fmt.Sprintf("(%d,%d) = %v, want %v", i/4%w, i/4/w, got[i:i+4], want[i:i+4])
			}
			bad++
		}
	}
	t.Errorf("%s: %d pixels differ, first %s", what, bad, first)
}

// TestAsyncUploadGLErrors: an asynchronous upload raises the GL errors
// TexSubImage2D raises, and the context survives them.
func TestAsyncUploadGLErrors(t *testing.T) {
	s := newService(t, cmdbuf.ServiceConfig{})
	tr, err := cmdbuf.NewInProcess(s)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cmdbuf.NewClient(tr, cmdbuf.Options{Width: 8, Height: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tex := c.CreateTexture()
	c.BindTexture(gl.TEXTURE_2D, tex)
	c.TexImage2D(gl.TEXTURE_2D, 0, int(gl.RGBA), 4, 4, gl.RGBA, gl.UNSIGNED_BYTE, nil)
	px := make([]byte, 4*4*4)
	tests := []struct {
		name    string
		upload  func()
		wantErr gl.Enum
	}{
		{"fits", func() { c.AsyncTexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, 4, 4, gl.RGBA, gl.UNSIGNED_BYTE, px) }, gl.NO_ERROR},
		{"outside the image", func() { c.AsyncTexSubImage2D(gl.TEXTURE_2D, 0, 2, 2, 4, 4, gl.RGBA, gl.UNSIGNED_BYTE, px) }, gl.INVALID_VALUE},
		{"format differs from the image's", func() { c.AsyncTexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, 4, 4, gl.RGB, gl.UNSIGNED_BYTE, px) }, gl.INVALID_OPERATION},
		{"undefined level", func() { c.AsyncTexSubImage2D(gl.TEXTURE_2D, 1, 0, 0, 2, 2, gl.RGBA, gl.UNSIGNED_BYTE, px) }, gl.INVALID_OPERATION},
		{"bad type", func() { c.AsyncTexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, 4, 4, gl.RGBA, gl.FLOAT, px) }, gl.INVALID_ENUM},
		{"bad target", func() { c.AsyncTexSubImage2D(gl.TEXTURE_CUBE_MAP, 0, 0, 0, 4, 4, gl.RGBA, gl.UNSIGNED_BYTE, px) }, gl.INVALID_ENUM},
		{"too little data", func() { c.AsyncTexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, 4, 4, gl.RGBA, gl.UNSIGNED_BYTE, px[:20]) }, gl.INVALID_VALUE},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.upload()
			if e := c.GetError(); e != tt.wantErr {
				t.Errorf("GetError = 0x%x, want 0x%x", e, tt.wantErr)
			}
			if err := c.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// BenchmarkTexUpload uploads a 512×512 image into a texture per iteration
// with TexSubImage2D ("sync": the decoder converts and stores it) or
// AsyncTexSubImage2D ("async": a worker converts, the decoder stores),
// for the stored layout (RGBA) and one that needs conversion (RGB), per
// transport. Bytes are the client's pixel bytes.
func BenchmarkTexUpload(b *testing.B) {
	const size = 512
	for _, tr := range transports[:2] {
		for _, f := range []struct {
			name   string
			format gl.Enum
			bpp    int
		}{{"RGBA", gl.RGBA, 4}, {"RGB", gl.RGB, 3}} {
			for _, async := range []bool{false, true} {
				mode := "sync"
				if async {
					mode = "async"
				}
				b.Run(tr.name+"/"+f.name+"/"+mode, func(b *testing.B) {
					s := newService(b, cmdbuf.ServiceConfig{})
					dial, stop := tr.start(b, s)
					defer stop()
					c := dialClient(b, dial, cmdbuf.Options{MaxTransferSize: 16 << 20})
					defer c.Close()
					data := make([]byte, size*size*f.bpp)
					for i := range data {
						data[i] = byte(i)
					}
					tex := c.CreateTexture()
					c.BindTexture(gl.TEXTURE_2D, tex)
					c.TexImage2D(gl.TEXTURE_2D, 0, int(f.format), size, size, f.format, gl.UNSIGNED_BYTE, nil)
					c.Finish()
					b.SetBytes(int64(len(data)))
					b.ResetTimer()
					for range b.N {
						if async {
							c.AsyncTexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, size, size, f.format, gl.UNSIGNED_BYTE, data)
						} else {
							c.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, size, size, f.format, gl.UNSIGNED_BYTE, data)
						}
					}
					c.Finish()
					if e := c.GetError(); e != gl.NO_ERROR {
						b.Fatalf("GL error 0x%x", e)
					}
				})
			}
		}
	}
}
