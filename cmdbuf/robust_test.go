package cmdbuf_test

import (
	"encoding/binary"
	"errors"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/cmdbuf"
	"github.com/tilegpu/tilegpu/gl"
)

func hdr(size int, id cmdbuf.CommandID) uint32 { return uint32(size) | uint32(id)<<21 }

// rawSession is a hand-driven connection: a 4 KiB ring (id 1) and a 4 KiB
// transfer buffer (id 3) with a started context.
type rawSession struct {
	t    cmdbuf.Transport
	ring []byte
	tb   []byte
	put  uint32
}

func newRaw(t testing.TB, dial func() (cmdbuf.Transport, error)) *rawSession {
	t.Helper()
	tr, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	r := &rawSession{t: tr}
	if r.ring, err = tr.CreateBuffer(1, 4096); err != nil {
		t.Fatal(err)
	}
	if r.tb, err = tr.CreateBuffer(3, 4096); err != nil {
		t.Fatal(err)
	}
	if err := tr.Start(1, 8, 8); err != nil {
		t.Fatal(err)
	}
	return r
}

// write appends entries to the ring (no wrap: tests stay small).
func (r *rawSession) write(words ...uint32) {
	for _, w := range words {
		binary.LittleEndian.PutUint32(r.ring[4*r.put:], w)
		r.t.Written(1, int(4*r.put), 4)
		r.put++
	}
}

func TestParseErrorsLoseTheContext(t *testing.T) {
	cases := []struct {
		name  string
		words []uint32
		put   uint32 // 0: after the words
		want  string
	}{
		{"size 0", []uint32{0}, 0, "size 0"},
		{"unknown id", []uint32{hdr(1, 1000)}, 0, "unknown command id 1000"},
		{"unused common id", []uint32{hdr(1, 100)}, 0, "unknown command id 100"},
		{"wrong size", []uint32{hdr(3, cmdbuf.CmdUniform4f), 0, 0}, 0, "size 3 entries is wrong"},
		{"past put", []uint32{hdr(10, cmdbuf.CmdNoop), 0}, 0, "past the put offset"},
		{"put outside ring", nil, 5000, "put offset 5000 outside"},
		{"unregistered shm", []uint32{hdr(6, cmdbuf.CmdBufferData), gl.ARRAY_BUFFER, 16, 99, 0, gl.STATIC_DRAW}, 0, "shared memory id 99 is not registered"},
		{"shm out of range", []uint32{hdr(6, cmdbuf.CmdBufferData), gl.ARRAY_BUFFER, 100, 3, 4090, gl.STATIC_DRAW}, 0, "outside shared memory 3"},
		{"shm offset overflow", []uint32{hdr(6, cmdbuf.CmdBufferData), gl.ARRAY_BUFFER, 16, 3, 0xfffffff8, gl.STATIC_DRAW}, 0, "outside shared memory 3"},
		{"bool", []uint32{hdr(5, cmdbuf.CmdColorMask), 1, 2, 0, 1}, 0, "not a boolean"},
		{"huge bucket", []uint32{hdr(3, cmdbuf.CmdSetBucketSize), 1, 0xffffffff}, 0, "exceeds"},
		{"missing bucket", []uint32{hdr(3, cmdbuf.CmdShaderSource), 1, 7}, 0, "bucket 7 does not exist"},
		{"bucket range", []uint32{hdr(3, cmdbuf.CmdSetBucketSize), 1, 8, hdr(6, cmdbuf.CmdSetBucketData), 1, 4, 8, 3, 0}, 0, "outside bucket 1"},
		{"immediate count", []uint32{hdr(4, cmdbuf.CmdUniform4fv), 0, 9, 0}, 0, "size 4 entries is wrong"},
		{"duplicate object id", []uint32{hdr(2, cmdbuf.CmdCreateBuffer), 5, hdr(2, cmdbuf.CmdCreateBuffer), 5}, 0, "already in use"},
		{"reserved object id", []uint32{hdr(2, cmdbuf.CmdCreateTexture), 0}, 0, "reserved"},
		{"result not registered", []uint32{hdr(3, cmdbuf.CmdGetError), 42, 0}, 0, "shared memory id 42"},
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := newService(t, cmdbuf.ServiceConfig{MaxBucketBytes: 1 << 20})
			dial, stop := tr.start(t, s)
			defer stop()
			for _, tc := range cases {
				r := newRaw(t, dial)
				r.write(tc.words...)
				put := r.put
				if tc.put != 0 {
					put = tc.put
				}
				st, err := r.t.Wait(put)
				if err != nil {
					t.Errorf("%s: %v", tc.name, err)
				} else if !st.Lost || !strings.Contains(st.Reason, tc.want) {
					t.Errorf("%s: state %+v, want the context lost with %q", tc.name, st, tc.want)
				}
				r.t.Close()
			}
			// Nobody else was affected: a new client renders exactly.
			c := dialClient(t, dial, cmdbuf.Options{})
			defer c.Close()
			sameImage(t, "after garbage", drawScene(t, c, "blend", sceneOptions), renderLocal(t, "blend", sceneOptions))
		})
	}
}

// TestGLErrorsStayGLErrors: arguments GL itself rejects are GL errors, not
// parse errors.
func TestGLErrorsStayGLErrors(t *testing.T) {
	s := newService(t, cmdbuf.ServiceConfig{})
	tr, _ := cmdbuf.NewInProcess(s)
	c, err := cmdbuf.NewClient(tr, cmdbuf.Options{Width: 4, Height: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tc := range []struct {
		name string
		call func()
		want gl.Enum
	}{
		{"Enable(bad cap)", func() { c.Enable(0x1234) }, gl.INVALID_ENUM},
		{"Viewport(-1 width)", func() { c.Viewport(0, 0, -1, 4) }, gl.INVALID_VALUE},
		{"UseProgram(unknown)", func() { c.UseProgram(gl.Program{Init: true, Value: 77}) }, gl.INVALID_VALUE},
		{"BindBuffer(bad target)", func() { c.BindBuffer(0x1, c.CreateBuffer()) }, gl.INVALID_ENUM},
		{"DrawArrays(negative count)", func() { c.DrawArrays(gl.TRIANGLES, 0, -3) }, gl.INVALID_VALUE},
		{"CreateShader(bad type)", func() { c.CreateShader(0x42) }, gl.INVALID_ENUM},
		{"TexImage2D(bad level)", func() { c.TexImage2D(gl.TEXTURE_2D, -1, gl.RGBA, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, make([]byte, 4)) }, gl.INVALID_VALUE},
	} {
		tc.call()
		if got := c.GetError(); got != tc.want {
			t.Errorf("%s: GetError = 0x%x, want 0x%x", tc.name, got, tc.want)
		}
		if err := c.Err(); err != nil {
			t.Fatalf("%s lost the context: %v", tc.name, err)
		}
	}
}

// corruptingTransport sends an out-of-range put on its n-th flush or wait,
// so a client built on the real encoder sees its context lost.
type corruptingTransport struct {
	cmdbuf.Transport
	n int
}

func (t *corruptingTransport) bad(put uint32) uint32 {
	t.n--
	if t.n == 0 {
		return 1 << 30
	}
	return put
}

func (t *corruptingTransport) Flush(put uint32) error { return t.Transport.Flush(t.bad(put)) }
func (t *corruptingTransport) Wait(put uint32) (cmdbuf.State, error) {
	return t.Transport.Wait(t.bad(put))
}

// TestLostContextClient: after the loss every call is harmless, GetError
// says CONTEXT_LOST, Err wraps ErrContextLost, and other clients go on.
func TestLostContextClient(t *testing.T) {
	s := newService(t, cmdbuf.ServiceConfig{})
	inner, _ := cmdbuf.NewInProcess(s)
	c, err := cmdbuf.NewClient(&corruptingTransport{inner, 1}, cmdbuf.Options{Width: 4, Height: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.ClearColor(1, 0, 0, 1)
	c.Clear(gl.COLOR_BUFFER_BIT)
	c.Finish()
	if e := c.GetError(); e != cmdbuf.ContextLost {
		t.Fatalf("GetError = 0x%x, want CONTEXT_LOST", e)
	}
	if err := c.Err(); !errors.Is(err, cmdbuf.ErrContextLost) || !strings.Contains(err.Error(), "put offset") {
		t.Fatalf("Err = %v", err)
	}
	// Everything afterwards is a harmless no-op.
	b := c.CreateBuffer()
	c.BindBuffer(gl.ARRAY_BUFFER, b)
	c.BufferData(gl.ARRAY_BUFFER, make([]byte, 1<<20), gl.STATIC_DRAW)
	c.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, 512, 512, gl.RGBA, gl.UNSIGNED_BYTE, make([]byte, 1<<20))
	c.ShaderSource(c.CreateShader(gl.VERTEX_SHADER), "void main(){}")
	if loc := c.GetUniformLocation(gl.Program{Init: true, Value: 1}, "x"); loc.Value != -1 {
		t.Errorf("GetUniformLocation after loss = %d", loc.Value)
	}
	c.ReadPixels(make([]byte, 64), 0, 0, 4, 4, gl.RGBA, gl.UNSIGNED_BYTE)
	if _, err := c.Image(); err == nil {
		t.Error("Image after loss succeeded")
	}
	c.Finish()
	if e := c.GetError(); e != cmdbuf.ContextLost {
		t.Errorf("GetError = 0x%x, want CONTEXT_LOST", e)
	}
	// Another client on the same service is unaffected.
	tr2, _ := cmdbuf.NewInProcess(s)
	c2, err := cmdbuf.NewClient(tr2, cmdbuf.Options{Width: 1, Height: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	sameImage(t, "other client", drawScene(t, c2, "fill", sceneOptions), renderLocal(t, "fill", sceneOptions))
}

// TestGarbageClientWhileOthersRender: one client sends random rings (and
// reconnects each time it is cut off) while others render; only it loses
// its contexts, and the others' images are exact.
func TestGarbageClientWhileOthersRender(t *testing.T) {
	ref := map[string][]byte{}
	for _, name := range bench.Names() {
		ref[name] = renderLocal(t, name, sceneOptions).Pix
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := newService(t, cmdbuf.ServiceConfig{MaxBucketBytes: 1 << 20})
			dial, stop := tr.start(t, s)
			defer stop()
			done := make(chan struct{})
			var lost int
			var gwg sync.WaitGroup
			gwg.Add(1)
			go func() {
				defer gwg.Done()
				rng := rand.New(rand.NewSource(1))
				for {
					select {
					case <-done:
						return
					default:
					}
					r := newRaw(t, dial)
					n := 1 + rng.Intn(200)
					for range n {
						w := rng.Uint32()
						switch rng.Intn(4) {
						case 0: // a plausible header
							w = hdr(1+rng.Intn(8), cmdbuf.CommandID(rng.Intn(400)))
						case 1:
							w = uint32(rng.Intn(16))
						}
						r.write(w)
					}
					rng.Read(r.tb)
					st, err := r.t.Wait(r.put)
					if err == nil && st.Lost {
						lost++
					}
					r.t.Close()
				}
			}()
			var wg sync.WaitGroup
			for i, name := range bench.Names() {
				wg.Add(1)
				go func() {
					defer wg.Done()
					tr, err := dial()
					if err != nil {
						t.Error(err)
						return
					}
					c, err := cmdbuf.NewClient(tr, cmdbuf.Options{Width: 1, Height: 1})
					if err != nil {
						t.Error(err)
						return
					}
					defer c.Close()
					sc, err := bench.Setup(c, name, sceneOptions)
					if err != nil {
						t.Errorf("client %d: %v", i, err)
						return
					}
					sc.Frame()
					img := sc.ReadPixels()
					if err := c.Err(); err != nil {
						t.Errorf("client %d (%s): %v", i, name, err)
					} else if string(img.Pix) != string(ref[name]) {
						t.Errorf("client %d (%s): image differs from the in-process render", i, name)
					}
				}()
			}
			wg.Wait()
			close(done)
			gwg.Wait()
			if lost == 0 {
				t.Error("the garbage client never lost its context")
			}
			t.Logf("garbage client lost %d contexts", lost)
			waitClients(t, s, 0)
		})
	}
}

// TestSharedMemoryLimits: a client cannot register unbounded shared memory,
// in bytes or in buffers (each one a mapping in the service), and the
// ring cannot be destroyed under the decoder.
func TestSharedMemoryLimits(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := newService(t, cmdbuf.ServiceConfig{MaxSharedMemory: 1 << 20})
			dial, stop := tr.start(t, s)
			defer stop()
			r := newRaw(t, dial)
			defer r.t.Close()
			if _, err := r.t.CreateBuffer(10, 2<<20); err == nil {
				t.Error("a 2 MiB buffer beyond the 1 MiB limit was accepted")
			}
			n := 2
			for id := uint32(10); id < 200; id++ {
				if _, err := r.t.CreateBuffer(id, 16); err != nil {
					if !strings.Contains(err.Error(), "maximum of") {
						t.Errorf("buffer %d refused for the wrong reason: %v", id, err)
					}
					break
				}
				n++
			}
			if n != 64 {
				t.Errorf("client registered %d buffers, want the limit of 64", n)
			}
			if err := r.t.DestroyBuffer(1); err == nil || !strings.Contains(err.Error(), "is the ring") {
				t.Errorf("destroying the ring: %v", err)
			}
			if err := r.t.DestroyBuffer(999); err == nil {
				t.Error("destroying an unknown buffer succeeded")
			}
			r.write(hdr(2, cmdbuf.CmdSetToken), 9)
			if st, err := r.t.Wait(r.put); err != nil || st.Lost || st.Token != 9 {
				t.Errorf("after refusals the session is %+v, %v; want alive with token 9", st, err)
			}
		})
	}
}

// TestShortDataIsAGLError: bulk data shorter than its command needs (a
// client can claim any size) is GL's business: gles reports an error and
// the context survives; nothing reads past the range.
func TestShortDataIsAGLError(t *testing.T) {
	s := newService(t, cmdbuf.ServiceConfig{})
	r := newRaw(t, func() (cmdbuf.Transport, error) { return cmdbuf.NewInProcess(s) })
	defer r.t.Close()
	r.write(hdr(2, cmdbuf.CmdCreateTexture), 5, hdr(3, cmdbuf.CmdBindTexture), gl.TEXTURE_2D, 5)
	r.write(hdr(2, cmdbuf.CmdCreateBuffer), 6, hdr(3, cmdbuf.CmdBindBuffer), gl.ARRAY_BUFFER, 6)
	r.write(hdr(6, cmdbuf.CmdBufferData), gl.ARRAY_BUFFER, 16, 3, 0, gl.STATIC_DRAW)
	for _, tc := range []struct {
		name  string
		words []uint32
	}{
		{"TexImage2D", []uint32{hdr(11, cmdbuf.CmdTexImage2D), gl.TEXTURE_2D, 0, gl.RGBA, 64, 64, gl.RGBA, gl.UNSIGNED_BYTE, 4, 3, 0}},
		{"TexSubImage2D", []uint32{hdr(12, cmdbuf.CmdTexSubImage2D), gl.TEXTURE_2D, 0, 0, 0, 64, 64, gl.RGBA, gl.UNSIGNED_BYTE, 4, 3, 0}},
		{"ReadPixels", []uint32{hdr(10, cmdbuf.CmdReadPixels), 0, 0, 8, 8, gl.RGBA, gl.UNSIGNED_BYTE, 4, 3, 0}},
		{"BufferSubData past the end", []uint32{hdr(6, cmdbuf.CmdBufferSubData), gl.ARRAY_BUFFER, 8, 16, 3, 0}},
	} {
		r.write(tc.words...)
		r.write(hdr(3, cmdbuf.CmdGetError), 3, 1024)
		st, err := r.t.Wait(r.put)
		if err != nil || st.Lost {
			t.Fatalf("%s: %+v %v: the context was lost", tc.name, st, err)
		}
		if e := binary.LittleEndian.Uint32(r.tb[1024:]); e != gl.INVALID_VALUE && e != gl.INVALID_OPERATION {
			t.Errorf("%s with 4 bytes of data: GetError = 0x%x, want INVALID_VALUE or INVALID_OPERATION", tc.name, e)
		}
	}
}

// TestServiceShutdownLosesContexts: when the service shuts down, its
// clients see their contexts lost (with the reason) instead of hanging.
func TestServiceShutdownLosesContexts(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := newService(t, cmdbuf.ServiceConfig{})
			dial, stop := tr.start(t, s)
			defer stop()
			c := dialClient(t, dial, cmdbuf.Options{Width: 4, Height: 4})
			defer c.Close()
			c.Clear(gl.COLOR_BUFFER_BIT)
			c.Finish()
			if err := c.Err(); err != nil {
				t.Fatal(err)
			}
			s.Close()
			c.Clear(gl.COLOR_BUFFER_BIT)
			c.Finish()
			if err := c.Err(); !errors.Is(err, cmdbuf.ErrContextLost) {
				t.Fatalf("after the service shut down: Err = %v", err)
			}
			if e := c.GetError(); e != cmdbuf.ContextLost {
				t.Errorf("GetError = 0x%x, want CONTEXT_LOST", e)
			}
		})
	}
}
