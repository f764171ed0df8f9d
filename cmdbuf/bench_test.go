package cmdbuf_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/cmdbuf"
	"github.com/tilegpu/tilegpu/gl"
)

// nullTransport is a service that consumes everything instantly: it
// isolates the client's encoding cost.
type nullTransport struct{ put uint32 }

func (t *nullTransport) CreateBuffer(id uint32, size int) ([]byte, error) {
	return make([]byte, size), nil
}
func (t *nullTransport) DestroyBuffer(uint32) error            { return nil }
func (t *nullTransport) Written(uint32, int, int)              {}
func (t *nullTransport) Start(uint32, int, int) error          { return nil }
func (t *nullTransport) Flush(put uint32) error                { t.put = put; return nil }
func (t *nullTransport) Wait(put uint32) (cmdbuf.State, error) { return cmdbuf.State{Get: put}, nil }
func (t *nullTransport) Close() error                          { return nil }

// BenchmarkEncodeUniform4fDrawArrays measures the client's encoding rate of
// small commands (one Uniform4f + one DrawArrays per iteration, so two
// commands), including the ring's flushes and wraps.
func BenchmarkEncodeUniform4fDrawArrays(b *testing.B) {
	c, err := cmdbuf.NewClient(&nullTransport{}, cmdbuf.Options{Width: 1, Height: 1})
	if err != nil {
		b.Fatal(err)
	}
	loc := gl.Uniform{Value: 3}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Uniform4f(loc, 1, 0.5, 0.25, 1)
		c.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	}
	b.StopTimer()
	b.ReportMetric(2*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mcmds/s")
}

// BenchmarkDecodeUniform4fDrawArrays runs the same pairs through the
// in-process service: decode, validation and the gles calls (no program is
// bound, so DrawArrays stops at GL's own check).
func BenchmarkDecodeUniform4fDrawArrays(b *testing.B) {
	s := newService(b, cmdbuf.ServiceConfig{})
	tr, _ := cmdbuf.NewInProcess(s)
	c, err := cmdbuf.NewClient(tr, cmdbuf.Options{Width: 1, Height: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	loc := gl.Uniform{Value: -1}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Uniform4f(loc, 1, 0.5, 0.25, 1)
		c.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	}
	c.Finish()
	b.StopTimer()
	b.ReportMetric(2*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mcmds/s")
}

var sink []byte

// BenchmarkMemcpy4MiB is the reference for the upload benchmark.
func BenchmarkMemcpy4MiB(b *testing.B) {
	src, dst := make([]byte, 4<<20), make([]byte, 4<<20)
	b.SetBytes(int64(len(src)))
	for i := 0; i < b.N; i++ {
		copy(dst, src)
	}
	sink = dst
}

// BenchmarkUpload4MiB uploads 4 MiB with BufferSubData through the
// transfer buffer, to the buffer object on the GPU, per transport.
func BenchmarkUpload4MiB(b *testing.B) {
	for _, tr := range transports {
		b.Run(tr.name, func(b *testing.B) {
			s := newService(b, cmdbuf.ServiceConfig{})
			dial, stop := tr.start(b, s)
			defer stop()
			c := dialClient(b, dial, cmdbuf.Options{})
			defer c.Close()
			data := make([]byte, 4<<20)
			buf := c.CreateBuffer()
			c.BindBuffer(gl.ARRAY_BUFFER, buf)
			c.BufferInit(gl.ARRAY_BUFFER, len(data), gl.STREAM_DRAW)
			c.Finish()
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.BufferSubData(gl.ARRAY_BUFFER, 0, data)
			}
			c.Finish()
			if e := c.GetError(); e != gl.NO_ERROR {
				b.Fatalf("GL error 0x%x", e)
			}
		})
	}
}

var benchSceneOptions = bench.Options{Width: 320, Height: 180, Quads: 20, Stacks: 40, Slices: 80}

// BenchmarkScenes runs the bench scenes on a private GPU ("direct") and
// through each transport of a service.
func BenchmarkScenes(b *testing.B) {
	for _, name := range bench.Names() {
		b.Run(name+"/direct", func(b *testing.B) {
			ctx, err := tilegpu.NewContext(tilegpu.Config{Width: 1, Height: 1, MemorySize: 256 << 20})
			if err != nil {
				b.Fatal(err)
			}
			defer ctx.Close()
			runScene(b, ctx.GL(), name)
		})
		for _, tr := range transports {
			b.Run(fmt.Sprintf("%s/%s", name, tr.name), func(b *testing.B) {
				s := newService(b, cmdbuf.ServiceConfig{Cores: runtime.GOMAXPROCS(0)})
				dial, stop := tr.start(b, s)
				defer stop()
				c := dialClient(b, dial, cmdbuf.Options{})
				defer c.Close()
				runScene(b, c, name)
			})
		}
	}
}

func runScene(b *testing.B, ctx gl.Context, name string) {
	sc, err := bench.Setup(ctx, name, benchSceneOptions)
	if err != nil {
		b.Fatal(err)
	}
	sc.Frame()
	ctx.Finish()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sc.Frame()
	}
	ctx.Finish()
}

// BenchmarkSharedService has N clients (goroutines over the Unix transport)
// each draw b.N frames of the fill scene on one service: total frames per
// second, and fairness = slowest client's frame rate / fastest client's.
func BenchmarkSharedService(b *testing.B) {
	opt := bench.Options{Width: 160, Height: 90, Quads: 10}
	for _, n := range []int{1, 2, 4, 8, 16} {
		b.Run(fmt.Sprintf("clients=%d", n), func(b *testing.B) {
			s := newService(b, cmdbuf.ServiceConfig{})
			dial, stop := transports[1].start(b, s)
			defer stop()
			clients := make([]*cmdbuf.Client, n)
			scenes := make([]*bench.Scene, n)
			for i := range clients {
				clients[i] = dialClient(b, dial, cmdbuf.Options{})
				defer clients[i].Close()
				sc, err := bench.Setup(clients[i], "fill", opt)
				if err != nil {
					b.Fatal(err)
				}
				scenes[i] = sc
				sc.Frame()
				clients[i].Finish()
			}
			took := make([]time.Duration, n)
			var wg sync.WaitGroup
			b.ResetTimer()
			t0 := time.Now()
			for i := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range b.N {
						scenes[i].Frame()
					}
					clients[i].Finish()
					took[i] = time.Since(t0)
				}()
			}
			wg.Wait()
			b.StopTimer()
			fast, slow := took[0], took[0]
			for _, d := range took {
				fast, slow = min(fast, d), max(slow, d)
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "frames/s")
			b.ReportMetric(fast.Seconds()/slow.Seconds(), "fairness")
		})
	}
}

// TestEncodeDoesNotAllocate: encoding small commands (ring wraps and
// flushes included) costs no heap allocation.
func TestEncodeDoesNotAllocate(t *testing.T) {
	c, err := cmdbuf.NewClient(&nullTransport{}, cmdbuf.Options{Width: 1, Height: 1, RingSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	loc := gl.Uniform{Value: 3}
	v := []float32{1, 2, 3, 4}
	allocs := testing.AllocsPerRun(1000, func() {
		c.Uniform4f(loc, 1, 0.5, 0.25, 1)
		c.Uniform4fv(loc, v)
		c.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		c.Flush()
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per frame of three commands", allocs)
	}
}
