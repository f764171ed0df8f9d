// Package tilegpu is the entry point of the tilegpu stack: NewContext builds
// a virtual TG GPU (hw), its kernel-mode driver (kernel), the user-mode
// driver (driver/tg) with the shader compiler, and an OpenGL ES 2.0 context
// (gles) drawing into a default framebuffer, and hands back a gl.Context.
//
// It carries the "application-facing" end of the architecture — the part an
// EGL implementation plays for a real driver stack: it owns the window-system
// framebuffer (Width×Height RGBA8 colour plus a depth24/stencil8 buffer),
// reads it back as an image, and reports the GPU's performance counters.
//
// A Context is used by one goroutine at a time, like the GL context it holds.
package tilegpu

import (
	"errors"
	"fmt"
	"image"
	"math"
	"time"

	"github.com/tilegpu/tilegpu/driver/tg"
	"github.com/tilegpu/tilegpu/driver/tg/platform"
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/gles"
	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/kernel"
	"github.com/tilegpu/tilegpu/pipe"
)

// Config describes the context to create. Zero fields take the defaults.
type Config struct {
	Width, Height int // default framebuffer size in pixels (required, 1..MaxSize)
	Cores         int // render worker cores, 0..256; 0: runtime.GOMAXPROCS(0)
	// MemorySize is the GPU's physical memory in bytes, a multiple of 4096
	// in hw.MinMemorySize..hw.MaxMemorySize; 0: hw.DefaultMemorySize
	// (256 MiB). Only the memory the GPU uses is committed, and Close
	// returns it to the OS, so a large size costs address space, not RAM.
	// A size too small for the framebuffer is an error from NewContext.
	MemorySize int
	// JobTimeout is the kernel watchdog: how long the GPU may go without
	// finishing any work (a shader batch, vertex or tile) before it is
	// reset and the job blamed; 0: kernel.DefaultJobTimeout (10 s).
	JobTimeout time.Duration
	// FaultPolicy decides what a GPU fault, shader error or hang costs
	// (kernel.FaultPolicy); the zero value replays innocent work and loses
	// the guilty context.
	FaultPolicy kernel.FaultPolicy
	// Capture, when set, sees every job as the kernel hands it to the GPU:
	// ring packets, the validated and relocated binning list, the generated
	// render list, shader records and the job's memory (for command-stream
	// decoders such as `tilegpu render -decode`). See kernel.Options.Capture.
	Capture func(c *kernel.Capture)
	// Samples is 0 for a single-sampled default framebuffer or 4 for 4×
	// MSAA: four samples per pixel in the tile buffer, resolved into the
	// colour buffer as tiles are stored (docs/hardware.md §5.2).
	Samples int
	// Trace records a timeline of the context's GL calls, driver job
	// submissions and shader compiles, kernel queues, rings and render
	// cores' tiles (the kernel's tile trace is turned on) for WriteTrace.
	// Off, it costs nothing.
	Trace bool
	// TraceLimit bounds the events Trace keeps; 0: 1<<20.
	TraceLimit int
	// CrashDumpDir, when set, is where the kernel writes a crash dump when
	// a job page-faults, fails in the hardware or hangs (decode it with
	// `tilegpu crashdec`); the driver then puts a draw marker before each
	// draw so the dump names the draw.
	CrashDumpDir string
	// TileCosts turns on the render engine's tile trace and sums each
	// tile's cost over the context's jobs for TileCosts (heat maps).
	TileCosts bool
	// Overdraw makes the GPU render an overdraw view: the framebuffer's
	// red channel counts the fragments shaded at each pixel (saturating
	// at 255; alpha 255) instead of holding colours. Image returns it.
	Overdraw bool
}

// Context is a GL ES 2.0 context on its own virtual GPU.
type Context struct {
	cfg    Config
	gpu    *hw.GPU
	dev    *kernel.Device
	file   *kernel.File
	screen *tg.Screen
	pctx   *tg.Context
	gl     *gles.Context
	color  pipe.Resource
	zs     pipe.Resource
	closed bool
	obs    // observability.go
}

// MaxSize is the largest default framebuffer side, in pixels: the
// driver's render-target limit (GL_MAX_RENDERBUFFER_SIZE and
// GL_MAX_VIEWPORT_DIMS report the same). The kernel's render-list
// generator would accept 8192 (256 tiles of 32 pixels per side), but a
// 4096² RGBA8 colour plus depth/stencil buffer is already 128 MiB.
const MaxSize = 4096

// NewContext builds the whole stack. The default framebuffer starts with
// undefined contents (zero); the viewport and scissor box cover it.
func NewContext(cfg Config) (*Context, error) {
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxSize || cfg.Height > MaxSize {
		return nil, fmt.Errorf("tilegpu: framebuffer size %dx%d not in 1..%d", cfg.Width, cfg.Height, MaxSize)
	}
	if cfg.Cores < 0 || cfg.MemorySize < 0 || cfg.JobTimeout < 0 {
		return nil, errors.New("tilegpu: Cores, MemorySize and JobTimeout must not be negative")
	}
	if cfg.Samples != 0 && cfg.Samples != 4 {
		return nil, fmt.Errorf("tilegpu: %d samples per pixel (0 or 4)", cfg.Samples)
	}
	if !cfg.FaultPolicy.Valid() {
		return nil, fmt.Errorf("tilegpu: unknown fault policy %d", cfg.FaultPolicy)
	}
	gpu, err := hw.Open(hw.Config{MemorySize: cfg.MemorySize, Cores: cfg.Cores})
	if err != nil {
		return nil, fmt.Errorf("tilegpu: %w", err)
	}
	c := &Context{cfg: cfg, gpu: gpu}
	// A Context is the only client of its device, so its quota is all of
	// the GPU's memory (the kernel caps it there); the default quota of
	// half exists to protect other clients of a shared device.
	c.dev = kernel.NewDevice(c.gpu, c.kernelOptions(kernel.Options{JobTimeout: cfg.JobTimeout, FaultPolicy: cfg.FaultPolicy,
		MemoryQuota: math.MaxInt64, Capture: cfg.Capture}))
	f, err := c.dev.Open()
	if err != nil {
		c.teardown()
		return nil, fmt.Errorf("tilegpu: opening the kernel device: %w", err)
	}
	c.file = f
	if err := c.startObservability(); err != nil {
		c.teardown()
		return nil, err
	}
	if c.screen, err = tg.NewScreen(c.winsys(platform.Winsys{F: f, PerfMon: c.perfMon}), c.shaderCompiler(platform.Compiler{}), tg.ScreenOptions{DrawMarkers: c.cfg.CrashDumpDir != "" || c.cfg.Trace}); err != nil {
		c.teardown()
		return nil, err
	}
	c.pctx = c.screen.NewContext()
	c.color, err = c.screen.ResourceCreate(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: pipe.FormatRGBA8,
		Width: cfg.Width, Height: cfg.Height, Levels: 1, Bind: pipe.BindRenderTarget})
	if err != nil {
		c.teardown()
		return nil, fmt.Errorf("tilegpu: allocating the colour buffer: %w", err)
	}
	c.zs, err = c.screen.ResourceCreate(pipe.ResourceTemplate{Target: pipe.TargetRenderbuffer, Format: pipe.FormatZ24S8,
		Width: cfg.Width, Height: cfg.Height, Levels: 1, Bind: pipe.BindDepthStencil, Samples: cfg.Samples})
	if err != nil {
		c.teardown()
		return nil, fmt.Errorf("tilegpu: allocating the depth/stencil buffer: %w", err)
	}
	c.gl, err = gles.New(c.pctx, gles.DefaultFramebuffer{Width: cfg.Width, Height: cfg.Height, Color: c.color, DepthStencil: c.zs, Samples: cfg.Samples})
	if err != nil {
		c.teardown()
		return nil, err
	}
	return c, nil
}

// Size returns the default framebuffer's width and height in pixels.
func (c *Context) Size() (width, height int) { return c.cfg.Width, c.cfg.Height }

// GL returns the GL ES 2.0 context. It also implements gles.Robustness
// (GetGraphicsResetStatus, GL_KHR_robustness): after the GPU reset the
// context or after Close, every call does nothing and GetError reports
// GL_CONTEXT_LOST. With Config.Trace its calls are recorded in the trace.
func (c *Context) GL() gl.Context {
	if c.tr.rec != nil {
		return tracedGL{c.gl.GL(), c.tr.rec}
	}
	return c.gl.GL()
}

// ErrContextLost is wrapped by the errors of Image and Err once the
// context is lost.
var ErrContextLost = gles.ErrContextLost

// Err returns nil while the context is usable, and once the GPU has lost
// it (a fault, shader error or watchdog reset caused by its work or, with
// FaultPolicy kernel.FaultNoReplay, by another context's) an error
// wrapping ErrContextLost that says what happened: the kernel's message
// names the context, the job and the cause. It does not wait for queued
// work; Image does.
func (c *Context) Err() error {
	if c.closed {
		return errors.New("tilegpu: context is closed")
	}
	return c.gl.LostError()
}

// GLES returns the GL context with its tilegpu-specific methods.
func (c *Context) GLES() *gles.Context { return c.gl }

// Image reads the default framebuffer after all queued rendering, top row
// first (GL's rows are bottom-up).
func (c *Context) Image() (*image.NRGBA, error) {
	if c.closed {
		return nil, errors.New("tilegpu: context is closed")
	}
	w, h := c.cfg.Width, c.cfg.Height
	// The frame ends here: a job of it that failed is an error (also in
	// LastDriverError) and a reset loses the context, so a lost frame is
	// an error, never a blank image.
	ferr := c.gl.FinishFrame()
	if err := c.gl.LostError(); err != nil {
		return nil, fmt.Errorf("tilegpu: reading the framebuffer: %w", err)
	}
	if ferr != nil {
		return nil, fmt.Errorf("tilegpu: the frame failed on the GPU: %w", ferr)
	}
	buf := make([]byte, w*h*4)
	if err := c.pctx.ResourceRead(c.color, 0, 0, 0, 0, w, h, buf); err != nil {
		return nil, fmt.Errorf("tilegpu: reading the framebuffer: %w", err)
	}
	if err := c.gl.LostError(); err != nil {
		return nil, fmt.Errorf("tilegpu: reading the framebuffer: %w", err)
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		copy(img.Pix[y*img.Stride:y*img.Stride+w*4], buf[(h-1-y)*w*4:])
	}
	return img, nil
}

// Stats are the GPU's performance counters since the context was created.
type Stats struct {
	Instructions uint64 // QPU instructions executed (per 16-lane instruction)
	Triangles    uint64 // triangles after culling
	Tiles        uint64 // tiles rendered
	Fragments    uint64 // fragments shaded
	Vertices     uint64 // vertices shaded
	// Shader translation (docs/hardware.md §7.6): instructions executed
	// by translated code, programs translated, and translation cache hits
	// and misses (a hit is identical code at the same address).
	XlatInstructions, ProgramsTranslated, XlatHits, XlatMisses uint64
	// HSRPrimitives counts primitives never rasterised because a later
	// opaque run covered their tile (hidden-surface removal).
	HSRPrimitives uint64
	// RasterBlocks counts 4×4 pixel blocks the rasteriser accepted whole
	// (no per-pixel edge tests).
	RasterBlocks uint64
	// EarlyZRejected counts fragments the depth test rejected before they
	// were shaded.
	EarlyZRejected uint64
	// Native shader code (amd64): instructions whose ALU ops ran as
	// native code, and runs of kernel uops compiled to native code.
	NativeInstructions, NativeRuns uint64
	// BinParallelVertices counts vertices whose coordinate shader ran on
	// the binner's helper threads (parallel binning).
	BinParallelVertices uint64
	Jobs                int // jobs submitted to the kernel
	Draws               int // draws the driver accepted
}

// Stats reads the performance counters (through the kernel, like any
// client would). Call Finish first to count all queued work.
func (c *Context) Stats() Stats {
	rd := func(p kernel.Param) uint64 {
		a := kernel.GetParamArgs{Param: p}
		if c.file.GetParam(&a) != nil {
			return 0
		}
		return a.Value
	}
	ds := c.pctx.Stats()
	return Stats{
		Instructions:        rd(kernel.ParamPerfQPUInstructions),
		Triangles:           rd(kernel.ParamPerfTriangles),
		Tiles:               rd(kernel.ParamPerfTiles),
		Fragments:           rd(kernel.ParamPerfFragments),
		Vertices:            rd(kernel.ParamPerfVertices),
		HSRPrimitives:       rd(kernel.ParamPerfHSRPrimitives),
		RasterBlocks:        rd(kernel.ParamPerfRasterBlocks),
		EarlyZRejected:      rd(kernel.ParamPerfEarlyZRejected),
		XlatInstructions:    rd(kernel.ParamPerfXlatInstructions),
		ProgramsTranslated:  rd(kernel.ParamPerfXlatPrograms),
		XlatHits:            rd(kernel.ParamPerfXlatHits),
		XlatMisses:          rd(kernel.ParamPerfXlatMisses),
		NativeInstructions:  rd(kernel.ParamPerfNativeInstructions),
		NativeRuns:          rd(kernel.ParamPerfNativeRuns),
		BinParallelVertices: rd(kernel.ParamPerfBinParallelVertices),
		Jobs:                ds.JobsSubmitted,
		Draws:               ds.Draws,
	}
}

// TileProgress reports how many tiles the GPU has rendered since it was
// created (the kernel's ParamPerfTiles, which the render cores count as
// each tile finishes) and the tile edge in pixels, so that a caller can
// show the progress of a long frame. Unlike the other methods it may be
// called from another goroutine while the context renders (it reads only
// the kernel File, which is safe for concurrent use), but not after
// Close.
func (c *Context) TileProgress() (tiles uint64, tileSize int) {
	a := kernel.GetParamArgs{Param: kernel.ParamPerfTiles}
	if c.file.GetParam(&a) != nil {
		return 0, 0
	}
	ts := kernel.GetParamArgs{Param: kernel.ParamTileSize}
	if c.file.GetParam(&ts) != nil {
		return 0, 0
	}
	return a.Value, int(ts.Value)
}

// Close frees the GPU. Queued work is abandoned, not waited for: nothing
// can read its results after Close, and a shader that never ends would
// otherwise hold Close until the watchdog fired. Calls through GL()
// afterwards record GL_CONTEXT_LOST and do nothing.
func (c *Context) Close() error {
	if c.closed {
		return nil
	}
	// Stopping the device first fails every fence at once and stops a
	// running shader within one Poll interval (64Ki instructions).
	c.dev.Close()
	c.teardown()
	return nil
}

func (c *Context) teardown() {
	c.closed = true
	if c.gl != nil {
		c.gl.Destroy() // finishes queued work, destroys the driver context
	} else if c.pctx != nil {
		c.pctx.Destroy()
	}
	if c.screen != nil {
		if c.color != nil {
			c.screen.ResourceDestroy(c.color)
		}
		if c.zs != nil {
			c.screen.ResourceDestroy(c.zs)
		}
		c.screen.Destroy()
	}
	if c.file != nil {
		c.file.Close()
	}
	if c.dev != nil {
		c.dev.Close()
	}
	if c.gpu != nil {
		c.gpu.Close()
	}
}
