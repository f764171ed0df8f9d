package gles_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/tilegpu/tilegpu/driver/tg"
	"github.com/tilegpu/tilegpu/driver/tg/platform"
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/gles"
	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/kernel"
	"github.com/tilegpu/tilegpu/pipe"
)

// TestContextsOnGoroutines is the C ABI's threading model without C
// (capi: one display = one GPU, kernel file and tg.Screen; each EGL
// context a tg.Context + gles.Context; a GL call locks only its share
// group): four goroutines with unrelated contexts compile, draw and read
// back at once, while two more share objects under their group's mutex.
// Run with -race it checks that nothing below gles is shared unguarded
// between contexts that share nothing.
func TestContextsOnGoroutines(t *testing.T) {
	gpu := hw.New(hw.Config{})
	t.Cleanup(gpu.Close)
	dev := kernel.NewDevice(gpu, kernel.Options{})
	f, err := dev.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	screen, err := tg.NewScreen(platform.Winsys{F: f}, platform.Compiler{}, tg.ScreenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const W, H = 32, 32
	newContext := func(share *gles.Context) *gles.Context {
		color, err := screen.ResourceCreate(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: pipe.FormatRGBA8, Width: W, Height: H, Levels: 1, Bind: pipe.BindRenderTarget})
		if err != nil {
			t.Error(err)
			return nil
		}
		g, err := gles.NewShared(screen.NewContext(), gles.DefaultFramebuffer{Width: W, Height: H, Color: color}, share)
		if err != nil {
			t.Error(err)
			return nil
		}
		return g
	}
	draw := func(g *gles.Context, id, round int) error {
		vs := fmt.Sprintf("attribute vec2 a_pos; void main() { gl_Position = vec4(a_pos * %d.0 / %d.0, 0.0, 1.0); }", round+1, round+1)
		fs := fmt.Sprintf("precision mediump float; void main() { gl_FragColor = vec4(%d.0 / 255.0, %d.0 / 255.0, 0.0, 1.0); }", id*40, round)
		p := g.CreateProgram()
		for _, src := range []struct {
			ty  gl.Enum
			src string
		}{{gl.VERTEX_SHADER, vs}, {gl.FRAGMENT_SHADER, fs}} {
			s := g.CreateShader(src.ty)
			g.ShaderSource(s, src.src)
			g.CompileShader(s)
			g.AttachShader(p, s)
		}
		g.BindAttribLocation(p, gl.Attrib{Value: 0}, "a_pos")
		g.LinkProgram(p)
		g.UseProgram(p)
		b := g.CreateBuffer()
		g.BindBuffer(gl.ARRAY_BUFFER, b)
		g.BufferData(gl.ARRAY_BUFFER, f32s(-1, -1, 1, -1, -1, 1, 1, 1), gl.STATIC_DRAW)
		g.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, 0)
		g.EnableVertexAttribArray(gl.Attrib{Value: 0})
		g.ClearColor(0, 0, 1, 1)
		g.Clear(gl.COLOR_BUFFER_BIT)
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		px := make([]byte, 4)
		g.ReadPixels(px, id, round, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE)
		g.DeleteBuffer(b)
		g.DeleteProgram(p)
		if e := g.GetError(); e != gl.NO_ERROR {
			return fmt.Errorf("context %d round %d: GL error %#x", id, round, e)
		}
		if px[0] != byte(id*40) || px[1] != byte(round) || px[2] != 0 {
			return fmt.Errorf("context %d round %d: pixel %v", id, round, px)
		}
		return nil
	}
	var wg sync.WaitGroup
	for id := 0; id < 4; id++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := newContext(nil)
			if g == nil {
				return
			}
			defer g.Destroy()
			for round := 0; round < 6; round++ {
				if err := draw(g, id, round); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	// A share group: the owner creates a texture the other samples; every
	// call of either goes through the group's mutex, as capi's lock does.
	var grp sync.Mutex
	owner := newContext(nil)
	member := newContext(owner)
	if owner == nil || member == nil {
		t.FailNow()
	}
	grp.Lock()
	tex := owner.CreateTexture()
	owner.BindTexture(gl.TEXTURE_2D, tex)
	owner.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, []byte{10, 20, 30, 255})
	owner.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	owner.Flush()
	grp.Unlock()
	for i, g := range []*gles.Context{owner, member} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := 0; round < 4; round++ {
				grp.Lock()
				p, err := buildSampler(g)
				if err == nil {
					g.BindTexture(gl.TEXTURE_2D, tex)
					g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
					px := make([]byte, 4)
					g.ReadPixels(px, 3, 3, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE)
					if px[0] != 10 || px[1] != 20 || px[2] != 30 {
						err = fmt.Errorf("share group context %d round %d: sampled %v", i, round, px)
					}
					g.DeleteProgram(p)
				}
				grp.Unlock()
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	member.Destroy()
	owner.Destroy()
}

// buildSampler makes and binds a program drawing texture unit 0 over a
// full-screen quad.
func buildSampler(g *gles.Context) (gl.Program, error) {
	p := g.CreateProgram()
	for _, src := range []struct {
		ty  gl.Enum
		src string
	}{{gl.VERTEX_SHADER, "attribute vec2 a_pos; varying vec2 v; void main() { v = a_pos * 0.5 + 0.5; gl_Position = vec4(a_pos, 0.0, 1.0); }"},
		{gl.FRAGMENT_SHADER, "precision mediump float; uniform sampler2D s; varying vec2 v; void main() { gl_FragColor = texture2D(s, v); }"}} {
		sh := g.CreateShader(src.ty)
		g.ShaderSource(sh, src.src)
		g.CompileShader(sh)
		g.AttachShader(p, sh)
	}
	g.BindAttribLocation(p, gl.Attrib{Value: 0}, "a_pos")
	g.LinkProgram(p)
	g.UseProgram(p)
	g.BindBuffer(gl.ARRAY_BUFFER, g.CreateBuffer())
	g.BufferData(gl.ARRAY_BUFFER, f32s(-1, -1, 1, -1, -1, 1, 1, 1), gl.STATIC_DRAW)
	g.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, 0)
	g.EnableVertexAttribArray(gl.Attrib{Value: 0})
	if e := g.GetError(); e != gl.NO_ERROR {
		return p, fmt.Errorf("sampler program: GL error %#x", e)
	}
	return p, nil
}
