package cmdbuf_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/cmdbuf"
	"github.com/tilegpu/tilegpu/gl"
)

// TestHelperProcess is the client half of the cross-process tests: the test
// binary re-runs itself with CMDBUF_HELPER set. Modes: "render" draws
// CMDBUF_SCENE and writes its pixels to CMDBUF_OUT; "loop" draws frames
// forever after printing "ready" (to be killed mid-frame); "upload" streams
// buffer uploads forever after "ready" (to be killed mid-upload).
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("CMDBUF_HELPER")
	if mode == "" {
		t.Skip("helper process for the cross-process tests")
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(3)
	}
	if mode == "serve" { // the service as a child process, until killed
		s, err := cmdbuf.NewService(cmdbuf.ServiceConfig{MemorySize: 256 << 20, Cores: 2})
		if err != nil {
			fail(err)
		}
		l, err := cmdbuf.ListenUnix(os.Getenv("CMDBUF_ADDR"))
		if err != nil {
			fail(err)
		}
		fmt.Println("ready")
		fail(s.ServeUnix(l))
	}
	tr, err := cmdbuf.Dial(os.Getenv("CMDBUF_ADDR"))
	if err != nil {
		fail(err)
	}
	c, err := cmdbuf.NewClient(tr, cmdbuf.Options{Width: 1, Height: 1})
	if err != nil {
		fail(err)
	}
	name := os.Getenv("CMDBUF_SCENE")
	switch mode {
	case "render":
		sc, err := bench.Setup(c, name, sceneOptions)
		if err != nil {
			fail(err)
		}
		sc.Frame()
		img := sc.ReadPixels()
		if e := c.GetError(); e != gl.NO_ERROR {
			fail(fmt.Errorf("GL error 0x%x", e))
		}
		if err := os.WriteFile(os.Getenv("CMDBUF_OUT"), img.Pix, 0o644); err != nil {
			fail(err)
		}
		c.Close()
		os.Exit(0)
	case "loop":
		sc, err := bench.Setup(c, name, sceneOptions)
		if err != nil {
			fail(err)
		}
		fmt.Println("ready")
		for {
			sc.Frame()
		}
	case "upload":
		// Into one buffer, so the stream holds a bounded amount of GPU
		// memory (per-client quotas are the kernel's business).
		b := c.CreateBuffer()
		c.BindBuffer(gl.ARRAY_BUFFER, b)
		data := make([]byte, 3<<20)
		c.BufferInit(gl.ARRAY_BUFFER, len(data), gl.STREAM_DRAW)
		fmt.Println("ready")
		for {
			c.BufferSubData(gl.ARRAY_BUFFER, 0, data)
		}
	}
	fail(fmt.Errorf("unknown helper mode %q", mode))
}

func helper(t *testing.T, mode, addr, scene, out string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "CMDBUF_HELPER="+mode, "CMDBUF_ADDR="+addr, "CMDBUF_SCENE="+scene, "CMDBUF_OUT="+out)
	cmd.Stderr = os.Stderr
	return cmd
}

// TestClientProcesses runs clients as separate processes over the Unix
// socket (shared memory across a real process boundary) and TCP: they
// render distinct scenes at once, each image equal to the in-process
// render, while two more clients are killed with SIGKILL mid-frame and
// mid-upload; the service goes on and gets all its GPU memory back.
func TestClientProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	ref := map[string][]byte{}
	for _, name := range bench.Names() {
		ref[name] = renderLocal(t, name, sceneOptions).Pix
	}
	for _, tr := range transports[1:] {
		t.Run(tr.name, func(t *testing.T) {
			s := newService(t, cmdbuf.ServiceConfig{})
			baseline := s.GPUMemoryInUse()
			dial, stop := tr.start(t, s)
			defer stop()
			probe, err := dial()
			if err != nil {
				t.Fatal(err)
			}
			addr := probe.(interface{ Addr() string }).Addr()
			probe.Close()

			// Two victims, killed once they are busy.
			var victims []*exec.Cmd
			for _, mode := range []string{"loop", "upload"} {
				cmd := helper(t, mode, addr, "tris", "")
				stdout, _ := cmd.StdoutPipe()
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
					t.Fatalf("%s helper said %q", mode, line)
				}
				victims = append(victims, cmd)
			}
			dir := t.TempDir()
			const n = 8
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					name := bench.Names()[i%4]
					out := filepath.Join(dir, strconv.Itoa(i))
					if err := helper(t, "render", addr, name, out).Run(); err != nil {
						t.Errorf("client process %d: %v", i, err)
						return
					}
					pix, err := os.ReadFile(out)
					if err != nil {
						t.Error(err)
					} else if !bytes.Equal(pix, ref[name]) {
						t.Errorf("client process %d (%s): image differs from the in-process render", i, name)
					}
				}()
				if i == 3 {
					time.Sleep(50 * time.Millisecond)
					for _, v := range victims {
						v.Process.Kill()
					}
				}
			}
			wg.Wait()
			for _, v := range victims {
				v.Wait()
			}
			waitClients(t, s, 0)
			waitMemory(t, s, baseline)
		})
	}
}

// waitMemory waits for the GPU's allocated memory to return to want.
func waitMemory(t testing.TB, s *cmdbuf.Service, want int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for s.GPUMemoryInUse() != want {
		if time.Now().After(deadline) {
			t.Fatalf("GPU memory in use %d bytes, want %d (leak)", s.GPUMemoryInUse(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestDisconnectReleasesEverything connects, draws and drops the
// connection (without Finish or Close: as if the client died) many times;
// the GPU's allocated memory returns exactly to its starting level and the
// service's heap does not grow. CMDBUF_CYCLES overrides the cycle count.
func TestDisconnectReleasesEverything(t *testing.T) {
	cycles := 30
	if v, err := strconv.Atoi(os.Getenv("CMDBUF_CYCLES")); err == nil && v > 0 {
		cycles = v
	}
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := newService(t, cmdbuf.ServiceConfig{})
			dial, stop := tr.start(t, s)
			defer stop()
			baseline := s.GPUMemoryInUse()
			var heap0 uint64
			for i := range cycles {
				if i == 2 { // after the first cycles warmed caches (compiled shaders)
					waitClients(t, s, 0)
					runtime.GC()
					var ms runtime.MemStats
					runtime.ReadMemStats(&ms)
					heap0 = ms.HeapAlloc
				}
				raw, err := dial()
				if err != nil {
					t.Fatal(err)
				}
				c, err := cmdbuf.NewClient(raw, cmdbuf.Options{Width: 64, Height: 64})
				if err != nil {
					t.Fatal(err)
				}
				sc, err := bench.Setup(c, bench.Names()[i%4], sceneOptions)
				if err != nil {
					t.Fatal(err)
				}
				sc.Frame()
				if i%2 == 0 {
					c.BufferData(gl.ARRAY_BUFFER, make([]byte, 1<<20), gl.STATIC_DRAW)
					c.Flush()
				}
				raw.Close() // dies with work queued
			}
			waitClients(t, s, 0)
			waitMemory(t, s, baseline)
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			growth := int64(ms.HeapAlloc) - int64(heap0)
			t.Logf("%d cycles: GPU memory back to %d bytes; heap %d → %d bytes", cycles, baseline, heap0, ms.HeapAlloc)
			if growth > 16<<20 {
				t.Errorf("service heap grew by %d bytes over %d cycles", growth, cycles)
			}
		})
	}
}

// TestMaxClients: the service refuses clients beyond its maximum with a
// clear error and admits them again once others leave.
func TestMaxClients(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			s := newService(t, cmdbuf.ServiceConfig{MaxClients: 2})
			dial, stop := tr.start(t, s)
			defer stop()
			a, err := dial()
			if err != nil {
				t.Fatal(err)
			}
			b, err := dial()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := dial(); err == nil || !bytes.Contains([]byte(err.Error()), []byte("maximum of 2 clients")) {
				t.Fatalf("third client: %v, want a refusal naming the maximum", err)
			}
			a.Close()
			waitClients(t, s, 1)
			c, err := dial()
			if err != nil {
				t.Fatalf("client after one left: %v", err)
			}
			b.Close()
			c.Close()
		})
	}
}

// TestServiceProcess runs the service in a child process: goroutine clients
// in this process render exact images over the Unix transport (memfds
// mapped in two processes); then the service is killed with SIGKILL and
// every client sees its context lost instead of hanging.
func TestServiceProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	sock := filepath.Join(t.TempDir(), "gpu.sock")
	cmd := helper(t, "serve", sock, "", "")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		t.Fatalf("service helper said %q", line)
	}
	var clients []*cmdbuf.Client
	for i, name := range bench.Names() {
		tr, err := cmdbuf.Dial("unix:" + sock)
		if err != nil {
			t.Fatal(err)
		}
		c, err := cmdbuf.NewClient(tr, cmdbuf.Options{Width: 1, Height: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		clients = append(clients, c)
		sameImage(t, fmt.Sprintf("client %d (%s)", i, name), drawScene(t, c, name, sceneOptions), renderLocal(t, name, sceneOptions))
	}
	cmd.Process.Kill()
	cmd.Wait()
	for i, c := range clients {
		c.Clear(gl.COLOR_BUFFER_BIT)
		c.Finish()
		if err := c.Err(); !errors.Is(err, cmdbuf.ErrContextLost) || !strings.Contains(err.Error(), "transport") {
			t.Errorf("client %d after the service died: Err = %v", i, err)
		}
	}
}
