package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/cmdbuf"
	"github.com/tilegpu/tilegpu/gl"
)

// TestReplayCommand records a client at a service, then replays the file
// with `tilegpu replay` (image and -decode).
func TestReplayCommand(t *testing.T) {
	dir := t.TempDir()
	s, err := cmdbuf.NewService(cmdbuf.ServiceConfig{RecordDir: dir, MemorySize: 64 << 20, Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := cmdbuf.NewInProcess(s)
	c, err := cmdbuf.NewClient(tr, cmdbuf.Options{Width: 16, Height: 8})
	if err != nil {
		t.Fatal(err)
	}
	c.ClearColor(0, 0, 1, 1)
	c.Clear(gl.COLOR_BUFFER_BIT)
	c.Close()
	s.Close()
	rec := filepath.Join(dir, "client-1.tgcb")
	png := filepath.Join(dir, "out.png")
	out, _, err := runCLI(t, cmdReplay, "-o", png, rec)
	if err != nil || !strings.Contains(out, "16x8 framebuffer") {
		t.Fatalf("replay: %v\n%s", err, out)
	}
	if fi, err := os.Stat(png); err != nil || fi.Size() == 0 {
		t.Errorf("replay wrote no PNG: %v", err)
	}
	out, _, err = runCLI(t, cmdReplay, "-decode", rec)
	if err != nil || !strings.Contains(out, "ClearColor red=0 green=0 blue=1 alpha=1") || !strings.Contains(out, "Clear mask=0x4000") {
		t.Errorf("replay -decode: %v\n%s", err, out)
	}
	if _, _, err := runCLI(t, cmdReplay, filepath.Join(dir, "missing")); err == nil {
		t.Error("replay of a missing file succeeded")
	}
}

func TestServeFlags(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{}, {"-socket", "x", "-max-clients", "0"}, {"-listen", "127.0.0.1:0", "-memory", "-1"},
		{"-listen", "127.0.0.1:0", "-crashdump", notDir}, {"-listen", "127.0.0.1:0", "-crashdump", notDir + "/missing"}} {
		if _, _, err := runCLI(t, cmdServe, args...); err == nil {
			t.Errorf("serve %v succeeded", args)
		} else if len(args) == 4 && args[2] == "-crashdump" && !strings.Contains(err.Error(), "not a directory") {
			t.Errorf("serve %v: %v, want a not-a-directory error", args, err)
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeAndRenderRemote runs `tilegpu serve -socket` and `tilegpu render
// -remote unix:...`: the PNG equals a local render's, and the service logs
// the client's connection and departure.
func TestServeAndRenderRemote(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "gpu.sock")
	logs := &syncBuffer{}
	stop := make(chan os.Signal, 1)
	done := make(chan error, 1)
	go func() {
		done <- serve([]string{"-socket", sock, "-cores", "1", "-memory", "128", "-max-clients", "2"}, stop, logs)
	}()
	for i := 0; ; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if i == 500 {
			t.Fatal("serve did not create its socket")
		}
		time.Sleep(10 * time.Millisecond)
	}
	local, remote := filepath.Join(dir, "local.png"), filepath.Join(dir, "remote.png")
	if _, _, err := runCLI(t, cmdRender, "-size", "64", "-cores", "1", "-o", local); err != nil {
		t.Fatal(err)
	}
	if out, _, err := runCLI(t, cmdRender, "-size", "64", "-remote", "unix:"+sock, "-o", remote); err != nil || !strings.Contains(out, "through unix:") {
		t.Fatalf("render -remote: %v\n%s", err, out)
	}
	a, _ := os.ReadFile(local)
	b, _ := os.ReadFile(remote)
	if len(a) == 0 || string(a) != string(b) {
		t.Error("render -remote wrote a different PNG than a local render")
	}
	if _, _, err := runCLI(t, cmdRender, "-size", "64", "-remote", "unix:"+sock, "-cores", "2", "-o", remote); err == nil {
		t.Error("render -remote accepted -cores")
	}
	// The service sees the client's departure asynchronously (its
	// connection goroutine reads the closed socket): wait for the log line
	// before shutting down, or shutdown can overtake it.
	for i := 0; !strings.Contains(logs.String(), "client 1: disconnected"); i++ {
		if i == 1000 {
			t.Fatalf("serve never logged client 1's disconnection:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop <- os.Interrupt
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"listening on unix:" + sock, "client 1: connected (unix)", "client 1: context created (64x64", "client 1: disconnected, resources released", "shutting down"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("serve log lacks %q:\n%s", want, logs.String())
		}
	}
}
