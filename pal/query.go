package pal

import (
	"fmt"
	"sync"
	"time"

	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/kernel"
)

// Queries and performance experiments: counts of what the GPU did over a
// span of commands (PAL's IQueryPool and IPerfExperiment).
//
// On the TG GPU every count comes from the hardware's counter block as
// the kernel reads it around each job (the start- and end-of-pipe
// records, kernel.JobInfo.Counters). A tiler renders a job's draws tile by
// tile, interleaved, so counts exist per job, not per draw: beginning or
// ending a query or an experiment therefore ends the job being recorded
// (as CmdBarrier does), and a span's counts are the sums over the jobs
// recorded inside it. The queue names each such job with a kernel tag
// before submitting it, and the device's retire hook (Options.OnRetire)
// adds the job's counters to every span it belongs to.
//
// Departure from PAL: a QueryPool holds its results in driver memory, not
// in client-bound GPU memory — the counts are produced by the kernel at
// retirement, not written by the GPU into the pool — so it is not an
// IGpuMemoryBindable and there is no GPU-side result copy
// (CmdResolveQuery) yet.

// spanSink accumulates the counts of one execution of one span (a query
// slot's begin..end, or an experiment's). Each execution gets its own
// sink, so jobs of an earlier submission still in flight cannot add to a
// later one. Guarded by spanTable.mu.
type spanSink struct {
	counters [kernel.NumPerfCounters]uint64
	gpuTime  uint64 // nanoseconds of the jobs' binning and rendering passes
	jobs     int    // jobs retired
	pending  int    // jobs submitted, not yet retired
	ended    bool   // the span's end marker was submitted
	err      error  // the first failed job's error
}

// done says the span's counts are final.
func (s *spanSink) done() bool { return s.ended && s.pending == 0 }

// spanTable maps the kernel tags of submitted jobs to the spans they
// count for. The platform's retire hook calls retired with the kernel's
// device lock held, so the table's lock is never held across a kernel
// call (tags are registered before SubmitCL, which retires nothing).
type spanTable struct {
	mu      sync.Mutex
	changed *sync.Cond // broadcast when a span's counts change
	byTag   map[uint64][]*spanSink
	nextTag uint64
}

func newSpanTable() *spanTable {
	t := &spanTable{byTag: map[uint64][]*spanSink{}}
	t.changed = sync.NewCond(&t.mu)
	return t
}

// register names a job about to be submitted that counts for sinks.
func (t *spanTable) register(sinks []*spanSink) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.nextTag++
	t.byTag[t.nextTag] = append([]*spanSink(nil), sinks...)
	for _, s := range sinks {
		s.pending++
	}
	return t.nextTag
}

// cancel forgets a tag whose job the kernel refused.
func (t *spanTable) cancel(tag uint64, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, s := range t.byTag[tag] {
		s.pending--
		if s.err == nil {
			s.err = err
		}
	}
	delete(t.byTag, tag)
	t.changed.Broadcast()
}

// retired is the kernel's OnRetire hook: it adds a tagged job's counts to
// its spans.
func (t *spanTable) retired(info *kernel.JobInfo) {
	if info.Tag == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	sinks, ok := t.byTag[info.Tag]
	if !ok {
		return
	}
	delete(t.byTag, info.Tag)
	tm := &info.Times
	var gpu uint64
	if tm.BinEnd > tm.BinStart {
		gpu += tm.BinEnd - tm.BinStart
	}
	if tm.RenderEnd > tm.RenderStart {
		gpu += tm.RenderEnd - tm.RenderStart
	}
	if tm.ComputeEnd > tm.ComputeStart {
		gpu += tm.ComputeEnd - tm.ComputeStart
	}
	if tm.DMAEnd > tm.DMAStart {
		gpu += tm.DMAEnd - tm.DMAStart
	}
	for _, s := range sinks {
		for i, v := range info.Counters {
			s.counters[i] += v
		}
		s.gpuTime += gpu
		s.jobs++
		s.pending--
		if info.Err != nil && s.err == nil {
			s.err = fmt.Errorf("a job of the span failed: %w", info.Err)
		}
	}
	t.changed.Broadcast()
}

// wait waits until sink(), re-read under the lock, is done, for at most
// timeout (0: do not wait; negative: forever). It returns the sink.
func (t *spanTable) wait(sink func() *spanSink, timeout time.Duration) (*spanSink, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var expired bool
	if timeout > 0 {
		timer := time.AfterFunc(timeout, func() {
			t.mu.Lock()
			expired = true
			t.changed.Broadcast()
			t.mu.Unlock()
		})
		defer timer.Stop()
	}
	for {
		s := sink()
		switch {
		case s == nil:
			return nil, fmt.Errorf("%w: never begun and ended in a submitted command buffer", ErrNotReady)
		case s.done():
			return s, s.err
		case timeout == 0 || expired:
			return nil, fmt.Errorf("%w: %d of the span's jobs still running", ErrNotReady, s.pending)
		}
		t.changed.Wait()
	}
}

// spanOp is a begin or end marker in a command buffer's job list: the
// queue starts or stops counting the jobs that follow for the target.
type spanOp struct {
	target spanTarget
	begin  bool
}

// spanTarget is what a span counts for: a query slot or an experiment.
type spanTarget interface {
	// newExecution gives the target a fresh sink for an execution of the
	// span that is being submitted (spanTable.mu held).
	newExecution() *spanSink
	describe() string
	// exactCounts: the span's jobs must render every primitive
	// (kernel.SubmitExactCounts): an occlusion query counts the samples
	// the API drew, which hidden-surface removal would skip.
	exactCounts() bool
}

// addSpanMarker ends the job being recorded and appends a marker job.
func (cb *CmdBuffer) addSpanMarker(cmd string, target spanTarget, begin bool) error {
	if err := cb.check(cmd); err != nil {
		return err
	}
	if begin {
		for _, t := range cb.openSpans {
			if t == target {
				return cb.failf(ErrInvalidArgument, "%s: %s is already active in this command buffer", cmd, target.describe())
			}
		}
		cb.openSpans = append(cb.openSpans, target)
	} else {
		k := -1
		for i, t := range cb.openSpans {
			if t == target {
				k = i
			}
		}
		if k < 0 {
			return cb.failf(ErrInvalidArgument, "%s: %s was not begun in this command buffer", cmd, target.describe())
		}
		cb.openSpans = append(cb.openSpans[:k], cb.openSpans[k+1:]...)
	}
	cb.job = nil
	cb.newJob().span = &spanOp{target: target, begin: begin}
	return nil
}

// runSpanMarker executes a marker at submission: counting starts or stops
// for the jobs the queue submits next (q.mu held).
func (q *Queue) runSpanMarker(op *spanOp) {
	t := q.dev.spans
	t.mu.Lock()
	defer t.mu.Unlock()
	if op.begin {
		q.active = append(q.active, activeSpan{op.target, op.target.newExecution()})
		return
	}
	for i, a := range q.active {
		if a.target == op.target {
			a.sink.ended = true
			q.active = append(q.active[:i], q.active[i+1:]...)
			t.changed.Broadcast()
			return
		}
	}
}

// endSpans ends the spans still active (q.mu held).
func (q *Queue) endSpans() {
	if len(q.active) == 0 {
		return
	}
	t := q.dev.spans
	t.mu.Lock()
	for _, a := range q.active {
		a.sink.ended = true
	}
	t.changed.Broadcast()
	t.mu.Unlock()
	q.active = q.active[:0]
}

// activeSpan is a span the queue is counting jobs for.
type activeSpan struct {
	target spanTarget
	sink   *spanSink
}

// activeSinks lists the sinks the next job counts for, and whether one of
// them needs exact counts (q.mu held).
func (q *Queue) activeSinks() (sinks []*spanSink, exact bool) {
	q.sinks = q.sinks[:0]
	for _, a := range q.active {
		q.sinks = append(q.sinks, a.sink)
		exact = exact || a.target.exactCounts()
	}
	return q.sinks, exact
}

// QueryPoolType is what a query pool's slots count (PAL's QueryPoolType).
type QueryPoolType int

const (
	// QueryPoolOcclusion counts the samples that passed the depth and
	// stencil tests (the tlb.fragments_written counter); its jobs are
	// rendered without hidden-surface removal (kernel.SubmitExactCounts),
	// so hidden samples count as the API defines.
	QueryPoolOcclusion QueryPoolType = iota
	// QueryPoolPipelineStats counts the pipeline's work (PipelineStats).
	QueryPoolPipelineStats
)

// MaxQuerySlots bounds a query pool.
const MaxQuerySlots = 4096

// QueryPoolCreateInfo describes a query pool.
type QueryPoolCreateInfo struct {
	Type     QueryPoolType
	NumSlots int // 1..MaxQuerySlots
}

// QueryPool is PAL's IQueryPool: slots that each count one span of
// commands (CmdBeginQuery..CmdEndQuery). Safe for concurrent use.
type QueryPool struct {
	dev   *Device
	ci    QueryPoolCreateInfo
	slots []querySlot
}

type querySlot struct {
	pool    *QueryPool
	index   int
	current *spanSink // the last submitted execution; spanTable.mu
}

func (s *querySlot) newExecution() *spanSink {
	s.current = &spanSink{}
	return s.current
}

func (s *querySlot) describe() string { return fmt.Sprintf("query slot %d", s.index) }

func (s *querySlot) exactCounts() bool { return s.pool.ci.Type == QueryPoolOcclusion }

// CreateQueryPool creates a query pool.
func (d *Device) CreateQueryPool(ci QueryPoolCreateInfo) (*QueryPool, error) {
	if ci.Type != QueryPoolOcclusion && ci.Type != QueryPoolPipelineStats {
		return nil, fmt.Errorf("%w: query pool type %d", ErrInvalidArgument, ci.Type)
	}
	if ci.NumSlots < 1 || ci.NumSlots > MaxQuerySlots {
		return nil, fmt.Errorf("%w: query pool of %d slots (1..%d)", ErrInvalidArgument, ci.NumSlots, MaxQuerySlots)
	}
	p := &QueryPool{dev: d, ci: ci, slots: make([]querySlot, ci.NumSlots)}
	for i := range p.slots {
		p.slots[i] = querySlot{pool: p, index: i}
	}
	return p, nil
}

func (p *QueryPool) slot(cmd string, cb *CmdBuffer, i int) (*querySlot, error) {
	if p == nil || p.dev != cb.dev {
		return nil, cb.failf(ErrWrongDevice, "%s: nil query pool or another device's", cmd)
	}
	if i < 0 || i >= len(p.slots) {
		return nil, cb.failf(ErrInvalidArgument, "%s: slot %d of a %d-slot pool", cmd, i, len(p.slots))
	}
	return &p.slots[i], nil
}

// CmdBeginQuery starts counting for a slot of pool: the jobs recorded
// until CmdEndQuery count for it (the job being recorded ends here).
// Each submission of the buffer starts a new execution of the slot.
func (cb *CmdBuffer) CmdBeginQuery(pool *QueryPool, slot int) error {
	s, err := pool.slot("CmdBeginQuery", cb, slot)
	if err != nil {
		return err
	}
	return cb.addSpanMarker("CmdBeginQuery", s, true)
}

// CmdEndQuery stops counting for the slot; it must follow CmdBeginQuery
// of the same slot in the same command buffer.
func (cb *CmdBuffer) CmdEndQuery(pool *QueryPool, slot int) error {
	s, err := pool.slot("CmdEndQuery", cb, slot)
	if err != nil {
		return err
	}
	return cb.addSpanMarker("CmdEndQuery", s, false)
}

// PipelineStats are a pipeline-statistics query's counts (PAL's
// PipelineStatsData, for the stages the TG GPU has).
type PipelineStats struct {
	IaVertices    uint64 // vertices fetched by the binner (cs.vertices)
	IaPrimitives  uint64 // primitives assembled (bin.primitives)
	VsInvocations uint64 // vertex-shader runs: binning (coordinate) and rendering passes (cs.vertices + vs.vertices)
	CInvocations  uint64 // primitives that reached clipping, after facing culls (bin.primitives − bin.culled)
	CPrimitives   uint64 // primitives that reached a tile list (bin.binned)
	PsInvocations uint64 // fragment-shader runs on covered pixels (fs.fragments_shaded)
}

// QueryResult is one slot's result.
type QueryResult struct {
	Occlusion uint64        // QueryPoolOcclusion: samples passed
	Stats     PipelineStats // QueryPoolPipelineStats
	Jobs      int           // jobs the span covered
}

// GetResults returns the results of slots first..first+count-1 of their
// last submitted executions, waiting for each at most timeout (0: do not
// wait, ErrNotReady if running; negative: forever). A slot never begun
// and ended in a submitted command buffer is ErrNotReady; a span with a
// failed job returns that job's error.
func (p *QueryPool) GetResults(first, count int, timeout time.Duration) ([]QueryResult, error) {
	if first < 0 || count < 0 || first+count > len(p.slots) {
		return nil, fmt.Errorf("%w: GetResults: slots %d..%d of a %d-slot pool", ErrInvalidArgument, first, first+count-1, len(p.slots))
	}
	out := make([]QueryResult, count)
	for i := range out {
		sl := &p.slots[first+i]
		s, err := p.dev.spans.wait(func() *spanSink { return sl.current }, timeout)
		if err != nil {
			return nil, fmt.Errorf("QueryPool.GetResults: slot %d: %w", first+i, err)
		}
		c := &s.counters
		out[i] = QueryResult{Jobs: s.jobs}
		if p.ci.Type == QueryPoolOcclusion {
			out[i].Occlusion = c[hw.CtrFragmentsWritten]
			continue
		}
		out[i].Stats = PipelineStats{
			IaVertices:    c[hw.CtrCSVertices],
			IaPrimitives:  c[hw.CtrBinPrimitives],
			VsInvocations: c[hw.CtrCSVertices] + c[hw.CtrVSVertices],
			CInvocations:  c[hw.CtrBinPrimitives] - min(c[hw.CtrBinCulled], c[hw.CtrBinPrimitives]),
			CPrimitives:   c[hw.CtrBinBinned],
			PsInvocations: c[hw.CtrFragmentsShaded],
		}
	}
	return out, nil
}

// PerfExperimentCreateInfo chooses an experiment's counters by name
// (kernel.PerfCounter names, as `tilegpu render -stats` prints them);
// empty means all of them.
type PerfExperimentCreateInfo struct {
	Counters []string
}

// PerfExperiment is PAL's IPerfExperiment: the GPU's performance counters
// and GPU time over a span of commands (CmdBeginPerfExperiment ..
// CmdEndPerfExperiment). Safe for concurrent use.
type PerfExperiment struct {
	dev      *Device
	counters []kernel.PerfCounter
	current  *spanSink // spanTable.mu
}

// CreatePerfExperiment creates an experiment; an unknown or repeated
// counter name is an error naming it.
func (d *Device) CreatePerfExperiment(ci PerfExperimentCreateInfo) (*PerfExperiment, error) {
	byName := make(map[string]kernel.PerfCounter, kernel.NumPerfCounters)
	for c := range kernel.NumPerfCounters {
		byName[kernel.PerfCounter(c).String()] = kernel.PerfCounter(c)
	}
	e := &PerfExperiment{dev: d}
	if len(ci.Counters) == 0 {
		for c := range kernel.NumPerfCounters {
			e.counters = append(e.counters, kernel.PerfCounter(c))
		}
		return e, nil
	}
	seen := map[string]bool{}
	for _, name := range ci.Counters {
		c, ok := byName[name]
		switch {
		case !ok:
			return nil, fmt.Errorf("%w: PerfExperiment: no counter %q", ErrInvalidArgument, name)
		case seen[name]:
			return nil, fmt.Errorf("%w: PerfExperiment: counter %q given twice", ErrInvalidArgument, name)
		}
		seen[name] = true
		e.counters = append(e.counters, c)
	}
	return e, nil
}

func (e *PerfExperiment) newExecution() *spanSink {
	e.current = &spanSink{}
	return e.current
}

func (e *PerfExperiment) describe() string { return "the perf experiment" }

// exactCounts: an experiment measures the work the GPU really did, with
// hidden-surface removal.
func (e *PerfExperiment) exactCounts() bool { return false }

// CmdBeginPerfExperiment starts the experiment's span (ending the job
// being recorded).
func (cb *CmdBuffer) CmdBeginPerfExperiment(e *PerfExperiment) error {
	if e == nil || e.dev != cb.dev {
		return cb.failf(ErrWrongDevice, "CmdBeginPerfExperiment: nil experiment or another device's")
	}
	return cb.addSpanMarker("CmdBeginPerfExperiment", e, true)
}

// CmdEndPerfExperiment ends the experiment's span.
func (cb *CmdBuffer) CmdEndPerfExperiment(e *PerfExperiment) error {
	if e == nil || e.dev != cb.dev {
		return cb.failf(ErrWrongDevice, "CmdEndPerfExperiment: nil experiment or another device's")
	}
	return cb.addSpanMarker("CmdEndPerfExperiment", e, false)
}

// PerfCounterResult is one counter's value over an experiment's span.
type PerfCounterResult struct {
	Name  string
	Value uint64
}

// PerfExperimentResults are an experiment's results.
type PerfExperimentResults struct {
	Counters []PerfCounterResult // in the order the experiment chose them
	GPUTime  time.Duration       // the jobs' binning plus rendering time on the GPU's clock
	Jobs     int
}

// Results returns the counts of the experiment's last submitted span,
// waiting at most timeout as QueryPool.GetResults does.
func (e *PerfExperiment) Results(timeout time.Duration) (PerfExperimentResults, error) {
	s, err := e.dev.spans.wait(func() *spanSink { return e.current }, timeout)
	if err != nil {
		return PerfExperimentResults{}, fmt.Errorf("PerfExperiment.Results: %w", err)
	}
	r := PerfExperimentResults{GPUTime: time.Duration(s.gpuTime), Jobs: s.jobs}
	for _, c := range e.counters {
		r.Counters = append(r.Counters, PerfCounterResult{Name: c.String(), Value: s.counters[c]})
	}
	return r, nil
}
