package main

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestX11Window runs testdata/x11window.c under a private Xvfb: an X window
// drawn with GLES2 through an EGL window surface, read back from the X
// server with XGetImage. Skipped when Xvfb or the X11 headers are missing
// (Debian: apt-get install xvfb libx11-dev; .ci/run installs them).
func TestX11Window(t *testing.T) {
	xvfb, err := exec.LookPath("Xvfb")
	if err != nil {
		t.Skip("Xvfb not found: the X11 window-surface test needs it (Debian: apt-get install xvfb)")
	}
	if _, err := os.Stat("/usr/include/X11/Xlib.h"); err != nil {
		t.Skip("X11 headers not found: the X11 window-surface test needs them (Debian: apt-get install libx11-dev)")
	}
	display := startXvfb(t, xvfb)
	for _, tc := range []struct{ name, noShm string }{
		{"MIT-SHM", "0"},   // XShmPutImage (Xvfb offers MIT-SHM)
		{"XPutImage", "1"}, // the path for servers without it
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := []string{"DISPLAY=" + display, "EGL_PLATFORM=", "TILEGPU_NO_MITSHM=" + tc.noShm}
			out := runCEnv(t, "x11window", env, "-lEGL", "-lGLESv2", "-lX11")
			t.Log(strings.TrimSpace(out))
		})
	}
}

// startXvfb starts Xvfb on a display number it chooses itself (-displayfd)
// and stops it when the test ends.
func startXvfb(t *testing.T, xvfb string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(xvfb, "-displayfd", "3", "-screen", "0", "320x240x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting Xvfb: %v", err)
	}
	w.Close()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		r.Close()
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if n == "" {
			t.Fatal("Xvfb exited without naming its display")
		}
		return ":" + n
	case <-time.After(20 * time.Second):
		t.Fatal("Xvfb did not start within 20 s")
	}
	return ""
}
