package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	for _, args := range [][]string{{}, {"-socket", "x", "-max-clients", "0"}, {"-listen", "127.0.0.1:0", "-memory", "-1"}} {
		if _, _, err := runCLI(t, cmdServe, args...); err == nil {
			t.Errorf("serve %v succeeded", args)
		}
	}
}
