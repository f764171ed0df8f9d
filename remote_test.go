package tilegpu_test

import (
	"bytes"
	"net"
	"path/filepath"
	"testing"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/cmdbuf"
	"github.com/tilegpu/tilegpu/scene"
)

// TestDialMatchesNewContext draws the default scene through tilegpu.Dial
// (Unix socket and TCP) and on a private GPU: the images are identical.
func TestDialMatchesNewContext(t *testing.T) {
	const size = 96
	local, err := tilegpu.NewContext(tilegpu.Config{Width: size, Height: size, Cores: 2, MemorySize: 128 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	if _, err := scene.DrawSpot(local.GL(), size, size); err != nil {
		t.Fatal(err)
	}
	want, err := local.Image()
	if err != nil {
		t.Fatal(err)
	}

	svc, err := cmdbuf.NewService(cmdbuf.ServiceConfig{Cores: 2, MemorySize: 128 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	sock := filepath.Join(t.TempDir(), "gpu.sock")
	ul, err := cmdbuf.ListenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	go svc.ServeUnix(ul)
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	go svc.ServeTCP(tl)

	for _, addr := range []string{"unix:" + sock, "tcp:" + tl.Addr().String()} {
		r, err := tilegpu.Dial(addr, tilegpu.Config{Width: size, Height: size})
		if err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		if _, err := scene.DrawSpot(r.GL(), size, size); err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		got, err := r.Image()
		if err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		if !bytes.Equal(got.Pix, want.Pix) {
			t.Errorf("%s: image differs from NewContext's", addr)
		}
		if err := r.Close(); err != nil {
			t.Errorf("%s: Close: %v", addr, err)
		}
	}
	for _, bad := range []string{"", "udp:x", "unix:" + filepath.Join(t.TempDir(), "none")} {
		if _, err := tilegpu.Dial(bad, tilegpu.Config{Width: 1, Height: 1}); err == nil {
			t.Errorf("Dial(%q) succeeded", bad)
		}
	}
	if _, err := tilegpu.Dial("unix:"+sock, tilegpu.Config{Width: 1, Height: 1, Cores: 3}); err == nil {
		t.Error("Dial accepted GPU settings that belong to the service")
	}
}
