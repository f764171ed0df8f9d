package robustness

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/driver/tg"
	"github.com/tilegpu/tilegpu/driver/tg/platform"
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/gles"
	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/internal/le"
	"github.com/tilegpu/tilegpu/kernel"
	"github.com/tilegpu/tilegpu/pipe"
)

// Failures that must not pass silently (issue 6 items 4–7): shaders the
// GPU stops, shaders that run long, calls after Close, and job order.

const passVS = "attribute vec2 a_pos; void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }"

// whileTrueFS is the issue's `while (true)`: the break depends on a
// uniform (u_zero is 0), so it never comes.
const whileTrueFS = `precision highp float;
uniform float u_zero;
void main() {
	float s = 1.0;
	while (true) {
		s += u_zero;
		if (s > 2.0) break;
	}
	gl_FragColor = vec4(s - 1.0, 0.0, 0.0, 1.0);
}`

// hugeUniformFS is a loop bounded by a huge uniform (u_n is set to
// 2^31-1): it ends, after hours of interpretation.
const hugeUniformFS = `precision highp float;
uniform int u_n;
void main() {
	float s = 0.0;
	for (int i = 0; i < 2147483647; i++) {
		if (i >= u_n) break;
		s += 1.0;
	}
	gl_FragColor = vec4(s, 0.0, 0.0, 1.0);
}`

// endlessFS loops until s overflows to infinity, which a float never does
// by adding 0 (u_zero is 0): the loop bound depends on a uniform, so the
// compiler cannot see it is infinite.
const endlessFS = `precision highp float;
uniform float u_zero;
void main() {
	float s = 1.0;
	for (int i = 0; i >= 0; i += 0) {
		s += u_zero;
		if (s > 2.0) break;
	}
	gl_FragColor = vec4(s - 1.0, 0.0, 0.0, 1.0);
}`

// longFS loops u_n times (a uniform, so the loop is not unrolled or
// folded) and writes green when the count came out right.
const longFS = `precision highp float;
uniform int u_n;
void main() {
	int k = 0;
	for (int i = 0; i < 2000000; i++) {
		if (i >= u_n) break;
		k += 1;
	}
	gl_FragColor = k == u_n ? vec4(0.0, 1.0, 0.0, 1.0) : vec4(1.0, 0.0, 0.0, 1.0);
}`

const redFS = "precision mediump float; void main() { gl_FragColor = vec4(1.0, 0.0, 0.0, 1.0); }"

// fullScreen feeds a full-screen triangle to attribute 0.
func fullScreen(g gl.Context) {
	vb := g.CreateBuffer()
	g.BindBuffer(gl.ARRAY_BUFFER, vb)
	g.BufferData(gl.ARRAY_BUFFER, le.Float32s([]float32{-1, -1, 3, -1, -1, 3}), gl.STATIC_DRAW)
	g.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, 0)
	g.EnableVertexAttribArray(gl.Attrib{Value: 0})
}

func program(t *testing.T, g gl.Context, vs, fs string) gl.Program {
	t.Helper()
	p, err := bench.Program(g, vs, fs)
	if err != nil {
		t.Fatal(err)
	}
	g.UseProgram(p)
	return p
}

func newContext(t *testing.T, cfg tilegpu.Config) *tilegpu.Context {
	t.Helper()
	ctx, err := tilegpu.NewContext(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Close() })
	return ctx
}

// TestEndlessShaderLosesContext (item 4): before, an endless loop ended in
// an all-zero frame, GL_NO_ERROR, no driver error. Now the watchdog resets
// the GPU, the frame is an error naming what happened, the context is
// lost with GL_KHR_robustness semantics, and Close returns promptly.
func TestEndlessShaderLosesContext(t *testing.T) {
	for _, tc := range []struct{ name, fs string }{
		{"for-ever", endlessFS}, {"while-true", whileTrueFS}, {"huge-uniform-bound", hugeUniformFS},
	} {
		t.Run(tc.name, func(t *testing.T) { endlessShaderLosesContext(t, tc.fs) })
	}
}

func endlessShaderLosesContext(t *testing.T, fs string) {
	ctx := newContext(t, tilegpu.Config{Width: 16, Height: 16, Cores: 1, MemorySize: 32 << 20, JobTimeout: 200 * time.Millisecond})
	g := ctx.GL()
	if s := g.GetInteger(gl.RESET_NOTIFICATION_STRATEGY); s != gl.LOSE_CONTEXT_ON_RESET {
		t.Errorf("RESET_NOTIFICATION_STRATEGY = %#x, want LOSE_CONTEXT_ON_RESET", s)
	}
	p := program(t, g, passVS, fs)
	g.Uniform1i(g.GetUniformLocation(p, "u_n"), 2147483647) // hugeUniformFS only
	fullScreen(g)
	g.ClearColor(0, 0, 1, 1)
	g.Clear(gl.COLOR_BUFFER_BIT)
	g.DrawArrays(gl.TRIANGLES, 0, 3)
	start := time.Now()
	img, err := ctx.Image()
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("Image took %v with JobTimeout 200ms", el)
	}
	if err == nil {
		t.Fatalf("Image of a frame the GPU abandoned succeeded (first pixel %v)", img.Pix[:4])
	}
	if !errors.Is(err, tilegpu.ErrContextLost) {
		t.Errorf("Image error %v does not wrap ErrContextLost", err)
	}
	for _, want := range []string{"made no progress for 200ms", "context 1: job (fence", "watchdog"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Image error %q does not say %q", err, want)
		}
	}
	if ctx.GLES().LastDriverError() == nil {
		t.Error("LastDriverError is nil after the reset")
	}
	if err := ctx.Err(); !errors.Is(err, tilegpu.ErrContextLost) {
		t.Errorf("Err() = %v", err)
	}
	r, ok := g.(gles.Robustness)
	if !ok {
		t.Fatal("GL() does not implement gles.Robustness")
	}
	if s := r.GetGraphicsResetStatus(); s != gl.GUILTY_CONTEXT_RESET {
		t.Errorf("GetGraphicsResetStatus = %#x, want GUILTY_CONTEXT_RESET", s)
	}
	if s := r.GetGraphicsResetStatus(); s != gl.NO_ERROR {
		t.Errorf("second GetGraphicsResetStatus = %#x, want NO_ERROR (the reset is over)", s)
	}
	// Lost: calls do nothing and report CONTEXT_LOST once each.
	for g.GetError() != gl.NO_ERROR {
	}
	g.Clear(gl.COLOR_BUFFER_BIT)
	if e := g.GetError(); e != gl.CONTEXT_LOST {
		t.Errorf("GetError after a call on a lost context = %#x, want CONTEXT_LOST", e)
	}
	if e := g.GetError(); e != gl.NO_ERROR {
		t.Errorf("second GetError = %#x, want NO_ERROR", e)
	}
	if b := g.CreateBuffer(); b.Value != 0 {
		t.Errorf("CreateBuffer on a lost context = %v", b)
	}
	start = time.Now()
	ctx.Close()
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("Close took %v", el)
	}
}

// TestLongShaderCompletes (item 5): 10^6 loop iterations on a few pixels
// exceeded the shader core's old per-batch step limit and the frame was
// silently dropped. The watchdog judges progress, so it completes.
func TestLongShaderCompletes(t *testing.T) {
	// One 16-lane batch runs all 10^6 iterations: about a second normally,
	// over 10 s (the default JobTimeout) under -race on a loaded host. A
	// batch that finishes nothing for JobTimeout is a hang by definition,
	// so give the watchdog room; what this test checks is that no
	// per-batch step limit drops the work.
	ctx := newContext(t, tilegpu.Config{Width: 4, Height: 4, Cores: 1, JobTimeout: time.Minute})
	g := ctx.GL()
	p := program(t, g, passVS, longFS)
	fullScreen(g)
	g.Uniform1i(g.GetUniformLocation(p, "u_n"), 1_000_000)
	g.DrawArrays(gl.TRIANGLES, 0, 3)
	img, err := ctx.Image()
	if err != nil {
		t.Fatal(err)
	}
	if e := g.GetError(); e != gl.NO_ERROR {
		t.Fatalf("GL error %#x: %v", e, ctx.GLES().LastDriverError())
	}
	for y := 0; y < 4; y++ {
		for x := 0; x < 4; x++ {
			if c := img.NRGBAAt(x, y); c.R != 0 || c.G != 255 || c.A != 255 {
				t.Fatalf("pixel (%d,%d) = %v, want green", x, y, c)
			}
		}
	}
}

// argSets builds argument lists for a method: the zero values, and for
// each of a few enums that reach real work (clears, draws, uploads,
// reads), every Enum parameter set to it, ints to 4, floats to 1, slices
// of 64 elements, names "a_pos" and object handles 1 — so that calls get
// past argument checks into the driver.
func argSets(m reflect.Value) [][]reflect.Value {
	enums := []gl.Enum{gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT | gl.STENCIL_BUFFER_BIT, gl.TRIANGLES,
		gl.TEXTURE_2D, gl.ARRAY_BUFFER, gl.FRAMEBUFFER, gl.RGBA, gl.UNSIGNED_BYTE, gl.STATIC_DRAW}
	ty := m.Type()
	sets := [][]reflect.Value{make([]reflect.Value, ty.NumIn())}
	for i := range sets[0] {
		sets[0][i] = reflect.Zero(ty.In(i))
	}
	for _, e := range enums {
		args := make([]reflect.Value, ty.NumIn())
		for i := range args {
			pt := ty.In(i)
			v := reflect.New(pt).Elem()
			switch {
			case pt == reflect.TypeOf(gl.Enum(0)):
				v.SetUint(uint64(e))
			case pt.Kind() == reflect.Int || pt.Kind() == reflect.Int32:
				v.SetInt(4)
			case pt.Kind() == reflect.Uint32:
				v.SetUint(4)
			case pt.Kind() == reflect.Float32:
				v.SetFloat(1)
			case pt.Kind() == reflect.Bool:
				v.SetBool(true)
			case pt.Kind() == reflect.String:
				v.SetString("a_pos")
			case pt.Kind() == reflect.Slice:
				v.Set(reflect.MakeSlice(pt, 64, 64))
			case pt.Kind() == reflect.Struct:
				for f := 0; f < v.NumField(); f++ {
					switch fv := v.Field(f); fv.Kind() {
					case reflect.Bool:
						fv.SetBool(true)
					case reflect.Uint, reflect.Uint32:
						fv.SetUint(1)
					case reflect.Int32:
						fv.SetInt(0)
					}
				}
			}
			args[i] = v
		}
		sets = append(sets, args)
	}
	return sets
}

// closedContext returns a context with a program, a vertex buffer and a
// texture bound and a draw queued, closed.
func closedContext(t *testing.T) *tilegpu.Context {
	t.Helper()
	ctx, err := tilegpu.NewContext(tilegpu.Config{Width: 8, Height: 8, Cores: 1, MemorySize: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	g := ctx.GL()
	program(t, g, passVS, redFS)
	fullScreen(g)
	tex := g.CreateTexture()
	g.BindTexture(gl.TEXTURE_2D, tex)
	g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 4, 4, gl.RGBA, gl.UNSIGNED_BYTE, make([]byte, 64))
	g.DrawArrays(gl.TRIANGLES, 0, 3)
	ctx.Close()
	return ctx
}

// TestEveryCallAfterCloseIsHarmless (item 6): Clear on a closed context
// panicked in driver/tg. Every gl.Context method, found by reflection so
// new ones are covered, is called after Close with several argument sets,
// each on a fresh closed context — through GL() (the lost table: must
// record CONTEXT_LOST) and on the *gles.Context itself (the destroyed
// driver context: must not panic).
func TestEveryCallAfterCloseIsHarmless(t *testing.T) {
	ctx := closedContext(t)
	ctx.Close() // twice is harmless
	if _, err := ctx.Image(); err == nil {
		t.Error("Image after Close succeeded")
	}
	if ctx.Err() == nil {
		t.Error("Err after Close is nil")
	}
	ty := reflect.TypeOf((*gl.Context)(nil)).Elem()
	for i := 0; i < ty.NumMethod(); i++ {
		name := ty.Method(i).Name
		ctx := closedContext(t)
		g, direct := ctx.GL(), ctx.GLES()
		for _, tc := range []struct {
			via string
			c   any
		}{{"GL()", g}, {"GLES()", direct}} {
			m := reflect.ValueOf(tc.c).MethodByName(name)
			for k, args := range argSets(m) {
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("%s.%s (argument set %d) after Close panicked: %v", tc.via, name, k, r)
						}
					}()
					m.Call(args)
				}()
			}
		}
		if name == "GetError" {
			continue
		}
		if e := g.GetError(); e != gl.CONTEXT_LOST {
			t.Errorf("GL().%s after Close: GetError = %#x, want CONTEXT_LOST", name, e)
		}
	}
}

// TestReadersFlushedBeforeWriter (item 7): draw sampling T into the left
// half of the screen, render green into T, draw sampling T into the right
// half. The first draw must see T's old contents (red).
func TestReadersFlushedBeforeWriter(t *testing.T) {
	ctx := newContext(t, tilegpu.Config{Width: 16, Height: 8, Cores: 1})
	g := ctx.GL()
	sample := program(t, g, "attribute vec2 a_pos; uniform float u_x; varying vec2 v; void main() { v = a_pos * 0.5 + 0.5; gl_Position = vec4(a_pos.x * 0.5 + u_x, a_pos.y, 0.0, 1.0); }",
		"precision mediump float; uniform sampler2D u_t; varying vec2 v; void main() { gl_FragColor = texture2D(u_t, v); }")
	green := program(t, g, passVS, "precision mediump float; void main() { gl_FragColor = vec4(0.0, 1.0, 0.0, 1.0); }")
	vb := g.CreateBuffer()
	g.BindBuffer(gl.ARRAY_BUFFER, vb)
	g.BufferData(gl.ARRAY_BUFFER, le.Float32s([]float32{-1, -1, 1, -1, -1, 1, 1, 1}), gl.STATIC_DRAW)
	g.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, 0)
	g.EnableVertexAttribArray(gl.Attrib{Value: 0})
	tex := g.CreateTexture()
	g.BindTexture(gl.TEXTURE_2D, tex)
	red := make([]byte, 4*4*4)
	for i := 0; i < len(red); i += 4 {
		red[i], red[i+3] = 255, 255
	}
	g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 4, 4, gl.RGBA, gl.UNSIGNED_BYTE, red)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
	g.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
	fbo := g.CreateFramebuffer()
	g.BindFramebuffer(gl.FRAMEBUFFER, fbo)
	g.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0)
	g.BindFramebuffer(gl.FRAMEBUFFER, gl.Framebuffer{})

	g.UseProgram(sample)
	g.Uniform1f(g.GetUniformLocation(sample, "u_x"), -0.5)
	g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4) // left half: old T
	g.BindFramebuffer(gl.FRAMEBUFFER, fbo)
	g.Viewport(0, 0, 4, 4)
	g.UseProgram(green)
	g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4) // T becomes green
	g.BindFramebuffer(gl.FRAMEBUFFER, gl.Framebuffer{})
	g.Viewport(0, 0, 16, 8)
	g.UseProgram(sample)
	g.Uniform1f(g.GetUniformLocation(sample, "u_x"), 0.5)
	g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4) // right half: new T
	img, err := ctx.Image()
	if err != nil {
		t.Fatal(err)
	}
	if e := g.GetError(); e != gl.NO_ERROR {
		t.Fatalf("GL error %#x: %v", e, ctx.GLES().LastDriverError())
	}
	if c := img.NRGBAAt(2, 4); c.R != 255 || c.G != 0 {
		t.Errorf("left half (drawn before T changed) = %v, want red", c)
	}
	if c := img.NRGBAAt(13, 4); c.R != 0 || c.G != 255 {
		t.Errorf("right half (drawn after T changed) = %v, want green", c)
	}
}

// client is one GL context on a shared device: what one application
// process would hold.
type client struct {
	g     *gles.Context
	pctx  *tg.Context
	color pipe.Resource
	w, h  int
}

func newClient(t *testing.T, dev *kernel.Device, w, h int) *client {
	t.Helper()
	f, err := dev.Open()
	if err != nil {
		t.Fatal(err)
	}
	scr, err := tg.NewScreen(platform.Winsys{F: f}, platform.Compiler{}, tg.ScreenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pctx := scr.NewContext()
	color, err := scr.ResourceCreate(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: pipe.FormatRGBA8, Width: w, Height: h, Levels: 1, Bind: pipe.BindRenderTarget})
	if err != nil {
		t.Fatal(err)
	}
	g, err := gles.New(pctx, gles.DefaultFramebuffer{Width: w, Height: h, Color: color})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Destroy(); f.Close() })
	return &client{g: g, pctx: pctx, color: color, w: w, h: h}
}

func (c *client) pixels(t *testing.T) []byte {
	t.Helper()
	c.g.Finish()
	buf := make([]byte, c.w*c.h*4)
	if err := c.pctx.ResourceRead(c.color, 0, 0, 0, 0, c.w, c.h, buf); err != nil {
		t.Fatal(err)
	}
	return buf
}

// TestAttackerShaderHangDoesNotHurtVictim: an attacker's endless shader
// and a victim's frames on one GPU. Under every fault policy but
// no-replay, the victim's image is exactly what it is without the
// attacker, its status stays NO_ERROR, and the attacker is told.
func TestAttackerShaderHangDoesNotHurtVictim(t *testing.T) {
	for _, policy := range []kernel.FaultPolicy{kernel.FaultReplayInnocent, kernel.FaultSkipIB, kernel.FaultNoReplay} {
		t.Run(policy.String(), func(t *testing.T) {
			gpu := hw.New(hw.Config{MemorySize: 64 << 20, Cores: 1})
			dev := kernel.NewDevice(gpu, kernel.Options{JobTimeout: 200 * time.Millisecond, FaultPolicy: policy})
			t.Cleanup(func() { dev.Close(); gpu.Close() })
			att, vic := newClient(t, dev, 16, 16), newClient(t, dev, 16, 16)
			victimFrame := func() {
				g := vic.g.GL()
				g.ClearColor(0, 0, 1, 1)
				g.Clear(gl.COLOR_BUFFER_BIT)
				program(t, g, passVS, redFS)
				g.Viewport(0, 0, 8, 16)
				fullScreen(g)
				g.DrawArrays(gl.TRIANGLES, 0, 3)
			}
			ag := att.g.GL()
			program(t, ag, passVS, endlessFS)
			fullScreen(ag)
			ag.DrawArrays(gl.TRIANGLES, 0, 3)
			ag.Flush()
			victimFrame()
			vic.g.Flush()
			att.g.Finish()
			if att.g.LastDriverError() == nil {
				t.Error("the attacker's hang reported no error")
			}
			wantAtt := gl.Enum(gl.GUILTY_CONTEXT_RESET)
			if policy == kernel.FaultSkipIB {
				wantAtt = gl.NO_ERROR // only the job failed; the context goes on
			}
			if s := att.g.GetGraphicsResetStatus(); s != wantAtt {
				t.Errorf("attacker's reset status %#x, want %#x", s, wantAtt)
			}
			if policy == kernel.FaultNoReplay {
				// The victim's frame was in the rings when the GPU was
				// reset and nothing is replayed: the victim is told.
				vic.g.Finish()
				if s := vic.g.GetGraphicsResetStatus(); s != gl.INNOCENT_CONTEXT_RESET {
					t.Errorf("victim's status %#x, want INNOCENT_CONTEXT_RESET", s)
				}
				if !errors.Is(vic.g.LostError(), gles.ErrContextLost) || !strings.Contains(vic.g.LostError().Error(), "reset caused by context") {
					t.Errorf("victim's LostError: %v", vic.g.LostError())
				}
				return
			}
			got := vic.pixels(t)
			if e := vic.g.GetError(); e != gl.NO_ERROR {
				t.Fatalf("victim GL error %#x: %v", e, vic.g.LastDriverError())
			}
			if s := vic.g.GetGraphicsResetStatus(); s != gl.NO_ERROR {
				t.Errorf("victim's reset status %#x", s)
			}
			// The same frame on a GPU with no attacker.
			gpu2 := hw.New(hw.Config{MemorySize: 64 << 20, Cores: 1})
			dev2 := kernel.NewDevice(gpu2, kernel.Options{})
			t.Cleanup(func() { dev2.Close(); gpu2.Close() })
			vic = newClient(t, dev2, 16, 16)
			victimFrame()
			want := vic.pixels(t)
			if string(got) != string(want) {
				t.Error("the victim's image differs from the same frame rendered without the attacker")
			}
		})
	}
}

// TestCloseDuringEndlessShaderIsPrompt (item 5): Close blocked until the
// watchdog fired (about 35 s in the case). With the default
// JobTimeout (10 s) and a shader that never ends still running, Close
// returns at once.
func TestCloseDuringEndlessShaderIsPrompt(t *testing.T) {
	ctx, err := tilegpu.NewContext(tilegpu.Config{Width: 16, Height: 16, Cores: 1, MemorySize: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	g := ctx.GL()
	program(t, g, passVS, endlessFS)
	fullScreen(g)
	g.DrawArrays(gl.TRIANGLES, 0, 3)
	g.Flush()
	// Let the GPU get into the fragment shader: vertices are shaded,
	// then the endless batch starts.
	for ctx.Stats().Vertices == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	ctx.Close()
	if el := time.Since(start); el > time.Second {
		t.Errorf("Close took %v with a shader running", el)
	}
}

// TestFaultPolicyAtGLLevel: a frame whose first job (rendering into a
// texture with a shader that never ends) is reset. Under skip-frame and
// skip-ib the frame is reported failed but the context survives and the
// next frame renders; under replay-innocent the context is lost.
func TestFaultPolicyAtGLLevel(t *testing.T) {
	for _, tc := range []struct {
		policy kernel.FaultPolicy
		lost   bool
	}{{kernel.FaultSkipFrame, false}, {kernel.FaultSkipIB, false}, {kernel.FaultReplayInnocent, true}} {
		t.Run(tc.policy.String(), func(t *testing.T) {
			ctx := newContext(t, tilegpu.Config{Width: 16, Height: 16, Cores: 1, MemorySize: 32 << 20,
				JobTimeout: 200 * time.Millisecond, FaultPolicy: tc.policy})
			g := ctx.GL()
			endless := program(t, g, passVS, endlessFS)
			red := program(t, g, passVS, redFS)
			fullScreen(g)
			tex := g.CreateTexture()
			g.BindTexture(gl.TEXTURE_2D, tex)
			g.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 4, 4, gl.RGBA, gl.UNSIGNED_BYTE, nil)
			fbo := g.CreateFramebuffer()
			g.BindFramebuffer(gl.FRAMEBUFFER, fbo)
			g.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0)
			g.Viewport(0, 0, 4, 4)
			g.UseProgram(endless)
			g.DrawArrays(gl.TRIANGLES, 0, 3) // job 1: never ends
			g.BindFramebuffer(gl.FRAMEBUFFER, gl.Framebuffer{})
			g.Viewport(0, 0, 16, 16)
			g.UseProgram(red)
			g.DrawArrays(gl.TRIANGLES, 0, 3) // job 2: the end of the frame
			_, err := ctx.Image()
			if err == nil {
				t.Fatal("a frame with a reset job was read without error")
			}
			if errors.Is(err, tilegpu.ErrContextLost) != tc.lost {
				t.Fatalf("frame error %v: context lost %v, want %v", err, !tc.lost, tc.lost)
			}
			if !strings.Contains(err.Error(), "made no progress") {
				t.Errorf("frame error %q does not say what happened", err)
			}
			want := gl.Enum(gl.NO_ERROR)
			if tc.lost {
				want = gl.GUILTY_CONTEXT_RESET
			}
			if s := g.(gles.Robustness).GetGraphicsResetStatus(); s != want {
				t.Errorf("reset status %#x, want %#x", s, want)
			}
			// The next frame.
			for g.GetError() != gl.NO_ERROR {
			}
			g.ClearColor(0, 0, 1, 1)
			g.Clear(gl.COLOR_BUFFER_BIT)
			g.DrawArrays(gl.TRIANGLES, 0, 3)
			img, err := ctx.Image()
			if tc.lost {
				if !errors.Is(err, tilegpu.ErrContextLost) {
					t.Errorf("next frame on a lost context: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("next frame: %v", err)
			}
			if c := img.NRGBAAt(8, 8); c.R != 255 || c.G != 0 || c.B != 0 {
				t.Errorf("next frame pixel %v, want red", c)
			}
		})
	}
}

// TestUnknownFaultPolicyIsRefused: a Config naming no policy is an error
// that says so, not a silent default.
func TestUnknownFaultPolicyIsRefused(t *testing.T) {
	_, err := tilegpu.NewContext(tilegpu.Config{Width: 8, Height: 8, FaultPolicy: 99})
	if err == nil || !strings.Contains(err.Error(), "fault policy 99") {
		t.Errorf("NewContext with fault policy 99: %v", err)
	}
}

// TestResetSeenByPolling: an application that polls
// GetGraphicsResetStatus once a frame learns of the reset without any call
// failing first; the Go error it gets afterwards still says what happened.
func TestResetSeenByPolling(t *testing.T) {
	ctx := newContext(t, tilegpu.Config{Width: 16, Height: 16, Cores: 1, MemorySize: 32 << 20, JobTimeout: 200 * time.Millisecond})
	g := ctx.GL()
	program(t, g, passVS, endlessFS)
	fullScreen(g)
	g.DrawArrays(gl.TRIANGLES, 0, 3)
	g.Flush()
	r := g.(gles.Robustness)
	status := gl.Enum(gl.NO_ERROR)
	for deadline := time.Now().Add(10 * time.Second); status == gl.NO_ERROR && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		status = r.GetGraphicsResetStatus()
	}
	if status != gl.GUILTY_CONTEXT_RESET {
		t.Fatalf("GetGraphicsResetStatus never reported the reset (last %#x)", status)
	}
	if e := g.GetError(); e != gl.CONTEXT_LOST {
		t.Errorf("GetError after the reset was seen = %#x, want CONTEXT_LOST", e)
	}
	_, err := ctx.Image()
	if !errors.Is(err, tilegpu.ErrContextLost) || !strings.Contains(err.Error(), "made no progress for 200ms") {
		t.Errorf("Image after the reset: %v", err)
	}
}

// oobFS indexes a uniform array far out of range (u_i = 10^8): the load
// lands on an address the context has not mapped, an MMU fault.
const oobFS = `precision highp float;
uniform vec4 u[4];
uniform int u_i;
void main() { gl_FragColor = u[u_i]; }`

// drawVictimFrame draws the victim's frame: blue clear, red left half.
func drawVictimFrame(t *testing.T, c *client) {
	g := c.g.GL()
	g.ClearColor(0, 0, 1, 1)
	g.Clear(gl.COLOR_BUFFER_BIT)
	program(t, g, passVS, redFS)
	g.Viewport(0, 0, c.w/2, c.h)
	fullScreen(g)
	g.DrawArrays(gl.TRIANGLES, 0, 3)
}

// soloVictimPixels renders the victim's frame on a GPU of its own.
func soloVictimPixels(t *testing.T) []byte {
	gpu := hw.New(hw.Config{MemorySize: 64 << 20, Cores: 1})
	dev := kernel.NewDevice(gpu, kernel.Options{})
	t.Cleanup(func() { dev.Close(); gpu.Close() })
	c := newClient(t, dev, 16, 16)
	drawVictimFrame(t, c)
	px := c.pixels(t)
	// Row 0: red left half, blue right half — the comparison is not vacuous.
	if string(px[0:4]) != "\xff\x00\x00\xff" || string(px[15*4:16*4]) != "\x00\x00\xff\xff" {
		t.Fatalf("victim frame alone: row 0 starts %v, ends %v", px[0:4], px[15*4:16*4])
	}
	return px
}

// TestAttackerFaultDoesNotHurtVictim: an attacker whose shader reads far
// out of bounds (a GPU page fault) and a victim on one GPU. The victim's
// image is byte-identical to a run without the attacker; the attacker
// gets an error naming the fault and — unless the policy skips only the
// job — GUILTY_CONTEXT_RESET. Before, the attacker's Finish reported a
// bare GL_OUT_OF_MEMORY with no driver error and no reset status.
func TestAttackerFaultDoesNotHurtVictim(t *testing.T) {
	want := soloVictimPixels(t)
	for _, policy := range []kernel.FaultPolicy{kernel.FaultReplayInnocent, kernel.FaultSkipIB} {
		t.Run(policy.String(), func(t *testing.T) {
			gpu := hw.New(hw.Config{MemorySize: 64 << 20, Cores: 1})
			dev := kernel.NewDevice(gpu, kernel.Options{FaultPolicy: policy})
			t.Cleanup(func() { dev.Close(); gpu.Close() })
			att, vic := newClient(t, dev, 16, 16), newClient(t, dev, 16, 16)
			ag := att.g.GL()
			p := program(t, ag, passVS, oobFS)
			ag.Uniform1i(ag.GetUniformLocation(p, "u_i"), 100_000_000)
			fullScreen(ag)
			ag.DrawArrays(gl.TRIANGLES, 0, 3)
			ag.Flush()
			drawVictimFrame(t, vic)
			err := att.g.FinishFrame()
			if err == nil || !strings.Contains(err.Error(), "GPU page fault: read of VA") {
				t.Errorf("attacker's frame: %v", err)
			}
			wantStatus := gl.Enum(gl.GUILTY_CONTEXT_RESET)
			if policy == kernel.FaultSkipIB {
				wantStatus = gl.NO_ERROR
			}
			if s := att.g.GetGraphicsResetStatus(); s != wantStatus {
				t.Errorf("attacker's reset status %#x, want %#x", s, wantStatus)
			}
			got := vic.pixels(t)
			if e := vic.g.GetError(); e != gl.NO_ERROR {
				t.Fatalf("victim GL error %#x: %v", e, vic.g.LastDriverError())
			}
			if s := vic.g.GetGraphicsResetStatus(); s != gl.NO_ERROR {
				t.Errorf("victim's reset status %#x", s)
			}
			if string(got) != string(want) {
				t.Error("the victim's image differs from the same frame rendered without the attacker")
			}
		})
	}
}
