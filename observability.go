package tilegpu

import (
	"errors"
	"fmt"

	"github.com/tilegpu/tilegpu/kernel"
)

// obs is a Context's observability state: the kernel perf monitor every
// submission of the context is attached to.
type obs struct {
	perfMon uint32
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
