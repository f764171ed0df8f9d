package tilegpu

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/tilegpu/tilegpu/driver/tg"
	"github.com/tilegpu/tilegpu/driver/tg/platform"
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/gles"
	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/internal/gputrace"
	"github.com/tilegpu/tilegpu/kernel"
	"github.com/tilegpu/tilegpu/pipe"
)

// obs is a Context's observability state: the kernel perf monitor every
// submission of the context is attached to, and the trace.
type obs struct {
	perfMon uint32
	costMu  sync.Mutex
	costs   map[[2]int]*TileCost
	tr      struct {
		rec   *gputrace.Recorder
		cores [256]bool // render-core tracks named so far
	}
}

// startObservability creates the context's perf monitor (all counters).
func (c *Context) startObservability() error {
	all := make([]kernel.PerfCounter, kernel.NumPerfCounters)
	for i := range all {
		all[i] = kernel.PerfCounter(i)
	}
	a := kernel.PerfMonCreateArgs{Counters: all}
	if err := c.file.PerfMonCreate(&a); err != nil {
		return fmt.Errorf("tilegpu: creating the perf monitor: %w", err)
	}
	c.perfMon = a.ID
	return nil
}

// Counter is one hardware performance counter summed over the context's
// work (docs/hardware.md §8 lists them).
type Counter struct {
	Name  string // "fs.fragments_shaded", ...
	Value uint64
}

// Counters finishes the queued rendering and reads the context's perf
// monitor: every hardware counter, summed over all jobs the context has
// submitted, in counter order. Unlike Stats, which reads the GPU-wide
// registers, these are counted per job by the command processor's start-
// and end-of-pipe counter dumps, so they hold only this context's work.
func (c *Context) Counters() ([]Counter, error) {
	if c.closed {
		return nil, errors.New("tilegpu: context is closed")
	}
	c.gl.Finish()
	a := kernel.PerfMonGetArgs{ID: c.perfMon}
	if err := c.file.PerfMonGet(&a); err != nil {
		return nil, fmt.Errorf("tilegpu: reading the perf monitor: %w", err)
	}
	out := make([]Counter, len(a.Values))
	for i, v := range a.Values {
		out[i] = Counter{Name: kernel.PerfCounter(i).String(), Value: v}
	}
	return out, nil
}

// kernelOptions adds the observability options to the kernel's.
func (c *Context) kernelOptions(o kernel.Options) kernel.Options {
	o.DumpDir = c.cfg.CrashDumpDir
	o.DebugOverdraw = c.cfg.Overdraw
	if !c.cfg.Trace && !c.cfg.TileCosts {
		return o
	}
	if c.cfg.Trace {
		c.tr.rec = gputrace.New(c.cfg.TraceLimit)
		lo, hi := c.gpu.ReadReg(hw.RegTimestampLo), c.gpu.ReadReg(hw.RegTimestampHi)
		c.tr.rec.SyncGPUClock(uint64(hi)<<32 | uint64(lo))
	}
	o.TileTrace = true
	next := o.OnRetire
	o.OnRetire = func(j *kernel.JobInfo) {
		if c.tr.rec != nil {
			c.traceJob(j)
		}
		if c.cfg.TileCosts {
			c.addTileCosts(j)
		}
		if next != nil {
			next(j)
		}
	}
	return o
}

// TileCost is one tile's work summed over the context's jobs (Config.TileCosts).
type TileCost struct {
	Col, Row     int    // tile column and row (row 0 at the bottom, GL's window coordinates)
	X, Y, W, H   int    // the tile's rectangle in the default framebuffer, top row first (image coordinates)
	Instructions uint64 // vertex and fragment shader instructions (per 16-lane instruction)
	Fragments    uint64 // fragments shaded
	Nanoseconds  uint64 // render-core time spent on the tile
	Jobs         int    // jobs that rendered it
}

// addTileCosts adds a retired job's tiles; it runs in OnRetire (device
// lock held).
func (c *Context) addTileCosts(j *kernel.JobInfo) {
	c.costMu.Lock()
	defer c.costMu.Unlock()
	if c.costs == nil {
		c.costs = map[[2]int]*TileCost{}
	}
	for _, t := range j.Tiles {
		k := [2]int{t.Col, t.Row}
		tc := c.costs[k]
		if tc == nil {
			tc = &TileCost{Col: t.Col, Row: t.Row}
			c.costs[k] = tc
		}
		tc.Instructions += uint64(t.Instructions)
		tc.Fragments += uint64(t.Fragments)
		tc.Nanoseconds += t.End - t.Start
		tc.Jobs++
	}
}

// TileCosts finishes the queued rendering and returns every tile's cost
// summed over the context's jobs (all render targets share tile
// coordinates), row-major from the top of the image. It needs
// Config.TileCosts.
func (c *Context) TileCosts() ([]TileCost, error) {
	if !c.cfg.TileCosts {
		return nil, errors.New("tilegpu: TileCosts needs Config.TileCosts")
	}
	if c.closed {
		return nil, errors.New("tilegpu: context is closed")
	}
	c.gl.Finish()
	a := kernel.GetParamArgs{Param: kernel.ParamTileSize}
	if err := c.file.GetParam(&a); err != nil {
		return nil, err
	}
	ts := int(a.Value)
	c.costMu.Lock()
	defer c.costMu.Unlock()
	var out []TileCost
	for _, tc := range c.costs {
		t := *tc
		x0, y0 := t.Col*ts, t.Row*ts
		if x0 >= c.cfg.Width || y0 >= c.cfg.Height {
			continue // a larger render target's tile
		}
		t.W, t.H = min(ts, c.cfg.Width-x0), min(ts, c.cfg.Height-y0)
		t.X, t.Y = x0, c.cfg.Height-y0-t.H
		out = append(out, t)
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].Y != out[b].Y {
			return out[a].Y < out[b].Y
		}
		return out[a].X < out[b].X
	})
	return out, nil
}

var prioNames = [...]string{"normal", "high"}

// traceJob puts a retired job on the kernel and GPU tracks; it runs in
// the kernel's OnRetire (device lock held, so it only records).
func (c *Context) traceJob(j *kernel.JobInfo) {
	r := c.tr.rec
	t := j.Times
	prio := fmt.Sprint(j.Priority)
	if int(j.Priority) < len(prioNames) {
		prio = prioNames[j.Priority]
	}
	status := "ok"
	if j.Err != nil {
		status = j.Err.Error()
	}
	args := []gputrace.Arg{{Key: "fence", Value: j.Fence}, {Key: "context", Value: j.Context}, {Key: "priority", Value: prio}, {Key: "status", Value: status}}
	track := fmt.Sprintf("ctx %d %s", j.Context, prio)
	name := fmt.Sprintf("fence %d", j.Fence)
	// Async slices are grouped into tracks by name (Perfetto and
	// chrome://tracing), so the name is the track and the fence an arg.
	if t.Submitted != 0 {
		r.GPUAsync(gputrace.PidKernel, "kernel", track+": queued", j.Fence, t.Queued, t.Submitted, args...)
		r.GPUAsync(gputrace.PidKernel, "kernel", track+": submitted", j.Fence, t.Submitted, t.Retired, args...)
	} else {
		r.GPUAsync(gputrace.PidKernel, "kernel", track+": queued", j.Fence, t.Queued, t.Retired, args...)
	}
	counters := func(engine int) []gputrace.Arg {
		out := append([]gputrace.Arg(nil), args[:1]...)
		for _, c := range hw.EngineCounters(engine) {
			if v := j.Counters[c]; v != 0 {
				out = append(out, gputrace.Arg{Key: kernel.PerfCounter(c).String(), Value: v})
			}
		}
		return out
	}
	if t.BinEnd != 0 {
		r.GPUSpan(gputrace.PidGPU, gputrace.TidBinRing, "bin", "bin "+name, t.BinStart, t.BinEnd, counters(hw.EngineBin)...)
	}
	if t.RenderEnd != 0 {
		r.GPUSpan(gputrace.PidGPU, gputrace.TidRender, "render", "render "+name, t.RenderStart, t.RenderEnd, counters(hw.EngineRender)...)
	}
	for _, tile := range j.Tiles {
		tid := gputrace.TidCore0 + tile.Core
		if !c.tr.cores[tile.Core%len(c.tr.cores)] {
			c.tr.cores[tile.Core%len(c.tr.cores)] = true
			r.NameTrack(gputrace.PidGPU, tid, fmt.Sprintf("render core %d: tiles", tile.Core))
		}
		r.GPUSpan(gputrace.PidGPU, tid, "tile", fmt.Sprintf("tile %d,%d", tile.Col, tile.Row), tile.Start, tile.End,
			gputrace.Arg{Key: "fence", Value: j.Fence}, gputrace.Arg{Key: "instructions", Value: tile.Instructions},
			gputrace.Arg{Key: "fragments", Value: tile.Fragments})
	}
}

// WriteTrace finishes the queued rendering and writes the trace recorded
// since NewContext (Config.Trace) as Chrome trace-event JSON, which
// ui.perfetto.dev and chrome://tracing open.
func (c *Context) WriteTrace(w io.Writer) error {
	if c.tr.rec == nil {
		return errors.New("tilegpu: WriteTrace needs Config.Trace")
	}
	if c.closed {
		return errors.New("tilegpu: context is closed")
	}
	c.gl.Finish()
	return c.tr.rec.WriteJSON(w)
}

// winsys and shaderCompiler are the driver's kernel and compiler
// adapters, timed when tracing.
func (c *Context) winsys(ws platform.Winsys) tg.Winsys {
	if c.tr.rec == nil {
		return ws
	}
	return tracedWinsys{ws, c.tr.rec}
}

func (c *Context) shaderCompiler(sc platform.Compiler) tg.ShaderCompiler {
	if c.tr.rec == nil {
		return sc
	}
	return tracedCompiler{sc, c.tr.rec}
}

type tracedWinsys struct {
	platform.Winsys
	rec *gputrace.Recorder
}

func (w tracedWinsys) Submit(s *tg.Submit) (uint64, error) {
	t0 := time.Now()
	fence, err := w.Winsys.Submit(s)
	args := []gputrace.Arg{{Key: "fence", Value: fence}, {Key: "size", Value: fmt.Sprintf("%dx%d", s.Width, s.Height)},
		{Key: "bin_cl_bytes", Value: len(s.BinCL)}, {Key: "bos", Value: len(s.BOs)}}
	if err != nil {
		args = append(args, gputrace.Arg{Key: "error", Value: err.Error()})
	}
	w.rec.Span(gputrace.PidApp, gputrace.TidSubmit, "driver", "SUBMIT_CL", t0, time.Now(), args...)
	return fence, err
}

type tracedCompiler struct {
	platform.Compiler
	rec *gputrace.Recorder
}

func (tc tracedCompiler) Compile(stage pipe.ShaderStage, source string) pipe.CompiledShader {
	t0 := time.Now()
	s := tc.Compiler.Compile(stage, source)
	name := "compile vertex shader"
	if stage == pipe.StageFragment {
		name = "compile fragment shader"
	}
	tc.rec.Span(gputrace.PidApp, gputrace.TidCompile, "compiler", name, t0, time.Now(), gputrace.Arg{Key: "ok", Value: s.OK()}, gputrace.Arg{Key: "source_bytes", Value: len(source)})
	return s
}

func (tc tracedCompiler) Link(vs, fs pipe.CompiledShader, bindings map[string]int) tg.LinkedProgram {
	t0 := time.Now()
	p := tc.Compiler.Link(vs, fs, bindings)
	tc.rec.Span(gputrace.PidApp, gputrace.TidCompile, "compiler", "link program", t0, time.Now(), gputrace.Arg{Key: "ok", Value: p.OK()})
	return tracedProgram{p, tc.rec}
}

type tracedProgram struct {
	tg.LinkedProgram
	rec *gputrace.Recorder
}

func (p tracedProgram) Variant(key tg.VariantKey) (*tg.Variant, error) {
	t0 := time.Now()
	v, err := p.LinkedProgram.Variant(key)
	p.rec.Span(gputrace.PidApp, gputrace.TidCompile, "compiler", "shader variant (back end)", t0, time.Now(), gputrace.Arg{Key: "points", Value: key.PrimitivePoints})
	return v, err
}

// tracedGL times the GL calls that do work (draws, clears, uploads,
// read-backs, flushes, compiles and links); every other call goes
// straight to the context (gles's dispatch table, so a lost context
// stays lost through the wrapper).
type tracedGL struct {
	gl.Context
	rec *gputrace.Recorder
}

// GetGraphicsResetStatus forwards gles.Robustness through the wrapper.
func (g tracedGL) GetGraphicsResetStatus() gl.Enum {
	if r, ok := g.Context.(gles.Robustness); ok {
		return r.GetGraphicsResetStatus()
	}
	return gl.NO_ERROR
}

func (g tracedGL) span(name string, t0 time.Time, args ...gputrace.Arg) {
	g.rec.Span(gputrace.PidApp, gputrace.TidGL, "gl", name, t0, time.Now(), args...)
}

func (g tracedGL) DrawArrays(mode gl.Enum, first, count int) {
	t0 := time.Now()
	g.Context.DrawArrays(mode, first, count)
	g.span("glDrawArrays", t0, gputrace.Arg{Key: "mode", Value: uint32(mode)}, gputrace.Arg{Key: "count", Value: count})
}

func (g tracedGL) DrawElements(mode gl.Enum, count int, ty gl.Enum, offset int) {
	t0 := time.Now()
	g.Context.DrawElements(mode, count, ty, offset)
	g.span("glDrawElements", t0, gputrace.Arg{Key: "mode", Value: uint32(mode)}, gputrace.Arg{Key: "count", Value: count})
}

func (g tracedGL) Clear(mask gl.Enum) {
	t0 := time.Now()
	g.Context.Clear(mask)
	g.span("glClear", t0, gputrace.Arg{Key: "mask", Value: fmt.Sprintf("%#x", uint32(mask))})
}

func (g tracedGL) Flush() {
	t0 := time.Now()
	g.Context.Flush()
	g.span("glFlush", t0)
}

func (g tracedGL) Finish() {
	t0 := time.Now()
	g.Context.Finish()
	g.span("glFinish", t0)
}

func (g tracedGL) ReadPixels(dst []byte, x, y, width, height int, format, ty gl.Enum) {
	t0 := time.Now()
	g.Context.ReadPixels(dst, x, y, width, height, format, ty)
	g.span("glReadPixels", t0, gputrace.Arg{Key: "size", Value: fmt.Sprintf("%dx%d", width, height)})
}

func (g tracedGL) BufferData(target gl.Enum, src []byte, usage gl.Enum) {
	t0 := time.Now()
	g.Context.BufferData(target, src, usage)
	g.span("glBufferData", t0, gputrace.Arg{Key: "bytes", Value: len(src)})
}

func (g tracedGL) TexImage2D(target gl.Enum, level int, internalFormat int, width, height int, format gl.Enum, ty gl.Enum, data []byte) {
	t0 := time.Now()
	g.Context.TexImage2D(target, level, internalFormat, width, height, format, ty, data)
	g.span("glTexImage2D", t0, gputrace.Arg{Key: "size", Value: fmt.Sprintf("%dx%d", width, height)}, gputrace.Arg{Key: "level", Value: level})
}

func (g tracedGL) CompileShader(s gl.Shader) {
	t0 := time.Now()
	g.Context.CompileShader(s)
	g.span("glCompileShader", t0)
}

func (g tracedGL) LinkProgram(p gl.Program) {
	t0 := time.Now()
	g.Context.LinkProgram(p)
	g.span("glLinkProgram", t0)
}
