package cmdbuf_test

import (
	"bytes"
	"fmt"
	"image"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/cmdbuf"
	"github.com/tilegpu/tilegpu/gl"
)

// sceneOptions keeps the scenes small: the point is equality with the
// in-process render, not speed. The tex scene's 4 MiB texture still goes
// through the transfer buffer in pieces when its maximum is small.
var sceneOptions = bench.Options{Width: 96, Height: 64, Quads: 12, Stacks: 12, Slices: 24}

// transport is one way of reaching a service; every test runs over each.
type transport struct {
	name string
	// start serves s and returns a dial function for its clients and a stop.
	start func(t testing.TB, s *cmdbuf.Service) (dial func() (cmdbuf.Transport, error), stop func())
}

var transports = []transport{
	{"inprocess", func(t testing.TB, s *cmdbuf.Service) (func() (cmdbuf.Transport, error), func()) {
		return func() (cmdbuf.Transport, error) { return cmdbuf.NewInProcess(s) }, func() {}
	}},
	{"unix", func(t testing.TB, s *cmdbuf.Service) (func() (cmdbuf.Transport, error), func()) {
		path := filepath.Join(t.TempDir(), "gpu.sock")
		l, err := cmdbuf.ListenUnix(path)
		if err != nil {
			t.Fatal(err)
		}
		go s.ServeUnix(l)
		return func() (cmdbuf.Transport, error) { return cmdbuf.Dial("unix:" + path) }, func() { l.Close() }
	}},
	{"tcp", func(t testing.TB, s *cmdbuf.Service) (func() (cmdbuf.Transport, error), func()) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go s.ServeTCP(l)
		return func() (cmdbuf.Transport, error) { return cmdbuf.Dial("tcp:" + l.Addr().String()) }, func() { l.Close() }
	}},
}

func newService(t testing.TB, cfg cmdbuf.ServiceConfig) *cmdbuf.Service {
	t.Helper()
	if cfg.MemorySize == 0 {
		cfg.MemorySize = 256 << 20
	}
	if cfg.Cores == 0 {
		cfg.Cores = 2
	}
	s, err := cmdbuf.NewService(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// renderLocal draws a bench scene on a private in-process GPU.
func renderLocal(t testing.TB, name string, opt bench.Options) *image.NRGBA {
	t.Helper()
	ctx, err := tilegpu.NewContext(tilegpu.Config{Width: 1, Height: 1, Cores: 2, MemorySize: 128 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	return drawScene(t, ctx.GL(), name, opt)
}

func drawScene(t testing.TB, ctx gl.Context, name string, opt bench.Options) *image.NRGBA {
	t.Helper()
	s, err := bench.Setup(ctx, name, opt)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return nil
	}
	s.Frame()
	ctx.Finish()
	if e := ctx.GetError(); e != gl.NO_ERROR {
		t.Errorf("%s: GL error 0x%x", name, e)
	}
	return s.ReadPixels()
}

func dialClient(t testing.TB, dial func() (cmdbuf.Transport, error), opt cmdbuf.Options) *cmdbuf.Client {
	t.Helper()
	tr, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	if opt.Width == 0 {
		opt.Width, opt.Height = 1, 1
	}
	c, err := cmdbuf.NewClient(tr, opt)
	if err != nil {
		tr.Close()
		t.Fatal(err)
	}
	return c
}

// waitClients waits (socket transports notice a disconnect asynchronously)
// until the service has n clients.
func waitClients(t testing.TB, s *cmdbuf.Service, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second) // generous: -race and a loaded machine
	for s.Clients() != n {
		if time.Now().After(deadline) {
			t.Fatalf("service has %d clients, want %d", s.Clients(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func sameImage(t testing.TB, what string, got, want *image.NRGBA) {
	t.Helper()
	if got == nil || want == nil {
		t.Errorf("%s: missing image", what)
		return
	}
	if !bytes.Equal(got.Pix, want.Pix) {
		d, _ := bench.Compare(got, want)
		t.Errorf("%s: image differs from the in-process render: %v", what, d)
	}
}

// TestScenesMatchInProcess renders every bench scene through the service
// and compares with the same scene on a private in-process GPU. A small
// transfer buffer (64 KiB, max 256 KiB) makes the tex scene's 4 MiB
// texture go through in row bands.
func TestScenesMatchInProcess(t *testing.T) {
	want := map[string]*image.NRGBA{}
	for _, name := range bench.Names() {
		want[name] = renderLocal(t, name, sceneOptions)
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := newService(t, cmdbuf.ServiceConfig{})
			dial, stop := tr.start(t, s)
			defer stop()
			for _, name := range bench.Names() {
				c := dialClient(t, dial, cmdbuf.Options{TransferSize: 64 << 10, MaxTransferSize: 256 << 10})
				got := drawScene(t, c, name, sceneOptions)
				sameImage(t, tr.name+"/"+name, got, want[name])
				if err := c.Err(); err != nil {
					t.Errorf("%s: %v", name, err)
				}
				c.Close()
			}
		})
	}
}

// TestManyClientsAtOnce has several clients render different scenes on one
// service at the same time; every image must equal the in-process one.
func TestManyClientsAtOnce(t *testing.T) {
	const clients = 16
	want := map[string]*image.NRGBA{}
	for _, name := range bench.Names() {
		want[name] = renderLocal(t, name, sceneOptions)
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := newService(t, cmdbuf.ServiceConfig{})
			dial, stop := tr.start(t, s)
			defer stop()
			var wg sync.WaitGroup
			imgs := make([]*image.NRGBA, clients)
			errs := make([]error, clients)
			for i := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					tr, err := dial()
					if err != nil {
						errs[i] = err
						return
					}
					c, err := cmdbuf.NewClient(tr, cmdbuf.Options{Width: 1, Height: 1})
					if err != nil {
						errs[i] = err
						return
					}
					defer c.Close()
					name := bench.Names()[i%4]
					sc, err := bench.Setup(c, name, sceneOptions)
					if err != nil {
						errs[i] = err
						return
					}
					sc.Frame()
					imgs[i] = sc.ReadPixels()
					if e := c.GetError(); e != gl.NO_ERROR {
						errs[i] = fmt.Errorf("GL error 0x%x", e)
					}
				}()
			}
			wg.Wait()
			for i := range clients {
				if errs[i] != nil {
					t.Errorf("client %d: %v", i, errs[i])
					continue
				}
				name := bench.Names()[i%4]
				sameImage(t, fmt.Sprintf("client %d (%s)", i, name), imgs[i], want[name])
			}
			waitClients(t, s, 0)
		})
	}
}
