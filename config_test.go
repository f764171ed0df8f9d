package tilegpu

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/cmdbuf"
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/hw"
)

// TestNewContextRejectsBadConfigs: every configuration outside the
// documented ranges is an error naming what was wrong, never a panic.
// MemorySize 1<<16 used to panic in the kernel ("GPU memory too small for
// the rings").
func TestNewContextRejectsBadConfigs(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string // in the error
	}{
		{"zero size", Config{}, "framebuffer size 0x0"},
		{"negative width", Config{Width: -1, Height: 8}, "framebuffer size"},
		{"too wide", Config{Width: MaxSize + 1, Height: 8}, "not in 1..4096"},
		{"too tall", Config{Width: 8, Height: 8192}, "not in 1..4096"},
		{"negative cores", Config{Width: 8, Height: 8, Cores: -1}, "must not be negative"},
		{"too many cores", Config{Width: 8, Height: 8, Cores: 1 << 20}, "cores not in 0..256"},
		{"negative memory", Config{Width: 8, Height: 8, MemorySize: -1}, "must not be negative"},
		{"negative timeout", Config{Width: 8, Height: 8, JobTimeout: -time.Second}, "must not be negative"},
		{"memory below the rings", Config{Width: 8, Height: 8, MemorySize: 1 << 16}, "memory size out of range"},
		{"memory of one byte", Config{Width: 8, Height: 8, MemorySize: 1}, "memory size out of range"},
		{"memory not whole pages", Config{Width: 8, Height: 8, MemorySize: 1<<20 + 1}, "multiple of 4096"},
		{"memory above 32-bit addresses", Config{Width: 8, Height: 8, MemorySize: 1 << 33}, "memory size out of range"},
		{"framebuffer larger than memory", Config{Width: 1024, Height: 1024, MemorySize: 1 << 20}, "out of GPU memory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, err := NewContext(tt.cfg)
			if err == nil {
				ctx.Close()
				t.Fatalf("NewContext(%+v) succeeded", tt.cfg)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewContext(%+v) = %v, want an error containing %q", tt.cfg, err, tt.want)
			}
		})
	}
	if _, err := NewContext(Config{Width: 8, Height: 8, MemorySize: 1 << 16}); !errors.Is(err, hw.ErrMemorySize) {
		t.Errorf("a too small MemorySize gives %v, want hw.ErrMemorySize", err)
	}
}

// TestLimitsAgree: the documented largest framebuffer (MaxSize) is what the
// GL reports and what a context can be created and rendered at.
func TestLimitsAgree(t *testing.T) {
	ctx := newTestContext(t, Config{Width: MaxSize, Height: 4, Cores: 1, MemorySize: hw.MinMemorySize * 16})
	g := ctx.GL()
	if cmdbuf.MaxFramebufferSide != MaxSize {
		t.Errorf("cmdbuf.MaxFramebufferSide = %d, want MaxSize %d (the GPU process must accept what a local context accepts)", cmdbuf.MaxFramebufferSide, MaxSize)
	}
	if got := g.GetInteger(gl.MAX_RENDERBUFFER_SIZE); got != MaxSize {
		t.Errorf("GL_MAX_RENDERBUFFER_SIZE = %d, want MaxSize %d", got, MaxSize)
	}
	var dims [2]int32
	g.GetIntegerv(dims[:], gl.MAX_VIEWPORT_DIMS)
	if dims != [2]int32{MaxSize, MaxSize} {
		t.Errorf("GL_MAX_VIEWPORT_DIMS = %v, want %d²", dims, MaxSize)
	}
	g.ClearColor(1, 0, 0, 1)
	g.Clear(gl.COLOR_BUFFER_BIT)
	img, err := ctx.Image()
	if err != nil {
		t.Fatal(err)
	}
	expectPixels(t, img, []pixelWant{{0, 0, [4]uint8{255, 0, 0, 255}}, {MaxSize - 1, 3, [4]uint8{255, 0, 0, 255}}})
}

// TestSmallestMemory: a context with hw.MinMemorySize renders a small
// framebuffer.
func TestSmallestMemory(t *testing.T) {
	ctx := newTestContext(t, Config{Width: 16, Height: 16, Cores: 1, MemorySize: hw.MinMemorySize})
	g := ctx.GL()
	g.ClearColor(0, 1, 0, 1)
	g.Clear(gl.COLOR_BUFFER_BIT)
	img, err := ctx.Image()
	if err != nil {
		t.Fatal(err)
	}
	expectPixels(t, img, []pixelWant{{15, 15, [4]uint8{0, 255, 0, 255}}})
}
