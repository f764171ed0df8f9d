package kernel

import (
	"encoding/binary"
	"slices"

	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/hw/cl"
)

// Job timing and performance counters (docs/interfaces.md "kernel:
// timestamps and perf monitors").
//
// Every job carries a report area at the end of its tile-allocation BO
// (kernel memory, written only by the command processors). Around each of
// the job's indirect buffers the kernel places EVENT_WRITE(TIMESTAMP |
// COUNTERS): before the IB the start-of-pipe record, after it the
// end-of-pipe record, each the GPU timestamp followed by that engine's
// counter block (as KGSL's memstore sop/eop and the v3d perfmon's counter
// snapshots). A command processor executes one packet at a time, so the
// difference of an engine's counters across its IB is exactly the job's
// work on that engine, even while the other engine runs another job.
//
// The area is mapped in the context's address space like the rest of the
// tile memory, so the context's own shaders could overwrite it: they can
// only falsify their own job's timing and counts, never another
// context's, and the kernel clamps impossible values (an end before its
// start reads as not reached).

// PerfCounter names a hardware performance counter (hw.Counter).
type PerfCounter uint32

// NumPerfCounters is the number of counters the GPU has.
const NumPerfCounters = int(hw.NumCounters)

// String is the counter's name ("fs.fragments_shaded", ...).
func (c PerfCounter) String() string { return hw.Counter(c).String() }

// Report area layout: per engine a start-of-pipe and an end-of-pipe record
// of 8 + 8·n bytes (timestamp, then the engine's n counters).
var (
	reportRecBytes = [numEngines]uint32{
		engineBin:     8 + 8*uint32(hw.NumBinCounters),
		engineRender:  8 + 8*uint32(hw.NumRenderCounters),
		engineCompute: 8 + 8*uint32(hw.NumComputeCounters),
		engineDMA:     8 + 8*uint32(hw.NumDMACounters),
	}
	reportBytes = 2*reportRecBytes[engineBin] + 2*reportRecBytes[engineRender]
)

// reportOff is where engine e's start (end=false) or end record lies in
// the report area of a graphics job (single-engine jobs: singleReportOff).
func reportOff(e int, end bool) uint32 {
	off := uint32(0)
	if e == engineRender {
		off = 2 * reportRecBytes[engineBin]
	}
	if end {
		off += reportRecBytes[e]
	}
	return off
}

// eventTimestampCounters is the EVENT_WRITE flag pair that writes a
// start- or end-of-pipe record.
const eventTimestampCounters = cl.EventTimestamp | cl.EventCounters

// JobTimes are a job's moments on the GPU's clock (nanoseconds of the
// TIMESTAMP register); 0 means the job never got there (a job failed
// before it reached the rings has only Queued and Retired).
type JobTimes struct {
	Queued      uint64 // SubmitCL accepted it
	Submitted   uint64 // its packets went into the rings
	BinStart    uint64 // start-of-pipe on BIN: the CP reached its bin list
	BinEnd      uint64 // end-of-pipe on BIN: the bin list finished
	RenderStart uint64 // start-of-pipe on RENDER
	RenderEnd   uint64 // end-of-pipe on RENDER: its pixels are in memory
	// A compute job's start- and end-of-pipe on COMPUTE, a DMA job's on
	// DMA (they have no bin or render times).
	ComputeStart, ComputeEnd uint64
	DMAStart, DMAEnd         uint64
	Retired                  uint64 // the kernel signalled its fence
}

// JobInfo is what the kernel knows of one job when it retires.
type JobInfo struct {
	Fence    uint64
	Tag      uint64 // SubmitCLArgs.Tag
	Context  uint32
	Priority Priority
	Times    JobTimes
	// Counters are the job's own counts, indexed by PerfCounter; an
	// engine whose end-of-pipe record is missing contributes zeros.
	Counters [NumPerfCounters]uint64
	Err      error // nil when the job succeeded
	// Tiles are the tiles the job rendered, in the order they finished
	// (Options.TileTrace; nil without it or when the job failed).
	Tiles []TileRecord
}

// TileRecord is one tile of a job's render pass, from the render
// engine's tile trace.
type TileRecord struct {
	Col, Row     int
	Core         int    // render worker core
	Start, End   uint64 // GPU timestamps
	Instructions uint32 // vertex and fragment shader instructions in the tile
	Fragments    uint32 // fragments shaded in the tile
}

// tileTraceState is the kernel's side of the tile trace: the buffer and
// the records read from it that no retired job has claimed yet.
type tileTraceState struct {
	on    bool
	pa    uint32
	slots uint32 // records the buffer holds
	read  uint32 // TILE_TRACE_COUNT up to which records were read
	recs  []tileTraceRec
}

type tileTraceRec struct {
	ctx uint32
	TileRecord
}

const (
	tileTraceBytes = 1 << 20 // 16,384 records
	// maxUnclaimedTiles bounds the records kept for jobs not retired yet
	// (older ones are dropped first).
	maxUnclaimedTiles = 1 << 16
)

func (d *Device) startTileTrace() {
	pg, ok := d.phys.alloc(tileTraceBytes>>pageShift, 1)
	if !ok {
		return // no room: the trace stays off
	}
	t := &d.tiles
	t.on, t.pa, t.slots = true, pg<<pageShift, tileTraceBytes/hw.TileTraceRecordBytes
	d.m.WriteReg(reg(hw.RegTileTraceBase), t.pa)
	d.m.WriteReg(reg(hw.RegTileTraceSize), tileTraceBytes)
}

// claimTiles reads the new tile-trace records and hands j the ones of its
// render pass: its context's records inside [RenderStart, RenderEnd]. The
// render engine runs one render list at a time, so those are exactly the
// job's tiles. Records wait for their job (the two priorities retire in
// their own orders). d.mu is held.
func (d *Device) claimTiles(ctx uint32, start, end uint64) []TileRecord {
	t := &d.tiles
	n := d.m.ReadReg(reg(hw.RegTileTraceCount))
	if n-t.read > t.slots {
		t.read = n - t.slots // the ring wrapped: the oldest are lost
	}
	for ; t.read != n; t.read++ {
		at := t.pa + (t.read%t.slots)*hw.TileTraceRecordBytes
		if loadSync32(d.mem, at+hw.TileTraceSeqOffset) != t.read+1 {
			break // still being written (a later job's tile): next time
		}
		b := d.mem[at:][:hw.TileTraceRecordBytes]
		t.recs = append(t.recs, tileTraceRec{ctx: binary.LittleEndian.Uint32(b[4:]), TileRecord: TileRecord{
			Col: int(b[0]), Row: int(b[1]), Core: int(binary.LittleEndian.Uint16(b[2:])),
			Start: binary.LittleEndian.Uint64(b[8:]), End: binary.LittleEndian.Uint64(b[16:]),
			Instructions: binary.LittleEndian.Uint32(b[24:]), Fragments: binary.LittleEndian.Uint32(b[28:]),
		}})
	}
	var out []TileRecord
	keep := t.recs[:0]
	for _, r := range t.recs {
		if r.ctx == ctx && r.Start >= start && r.End <= end {
			out = append(out, r.TileRecord)
			continue
		}
		if r.End > start || r.ctx != ctx {
			keep = append(keep, r)
		}
	}
	if over := len(keep) - maxUnclaimedTiles; over > 0 {
		keep = append(keep[:0], keep[over:]...)
	}
	t.recs = keep
	return out
}

// jobHistory is how many retired jobs' JobInfo a context keeps for
// QueryJob.
const jobHistory = 64

// maxPerfMons bounds the perf monitors one File may hold.
const maxPerfMons = 64

// perfMon is a perf-monitor object: the chosen counters, summed over the
// retired jobs it was attached to.
type perfMon struct {
	counters []PerfCounter
	values   []uint64
	jobs     uint64 // jobs retired with their counts added
	pending  int    // attached jobs not yet retired
}

// PerfMonCreateArgs is the argument of File.PerfMonCreate.
type PerfMonCreateArgs struct {
	Counters []PerfCounter // 1..NumPerfCounters distinct counters
	ID       uint32        // out: nonzero, unique within the File
}

// PerfMonGetArgs is the argument of File.PerfMonGet.
type PerfMonGetArgs struct {
	ID      uint32
	Values  []uint64 // out: one per counter, in the order given at creation
	Jobs    uint64   // out: retired jobs counted
	Pending int      // out: attached jobs that have not retired yet
}

// PerfMonDestroyArgs is the argument of File.PerfMonDestroy.
type PerfMonDestroyArgs struct{ ID uint32 }

// QueryJobArgs is the argument of File.QueryJob.
type QueryJobArgs struct {
	Fence uint64
	Info  JobInfo // out
}

// PerfMonCreate makes a perf monitor counting the given counters; attach
// it to submissions with SubmitCLArgs.PerfMon. EINVAL names an unknown or
// repeated counter; EBUSY when the File holds maxPerfMons already.
func (f *File) PerfMonCreate(a *PerfMonCreateArgs) error {
	if len(a.Counters) == 0 || len(a.Counters) > NumPerfCounters {
		return errorf(EINVAL, "PerfMonCreate: %d counters (want 1..%d)", len(a.Counters), NumPerfCounters)
	}
	var seen [NumPerfCounters]bool
	for i, c := range a.Counters {
		if int(c) >= NumPerfCounters {
			return errorf(EINVAL, "PerfMonCreate: counter %d (index %d) is unknown (have %d)", c, i, NumPerfCounters)
		}
		if seen[c] {
			return errorf(EINVAL, "PerfMonCreate: counter %v given twice", c)
		}
		seen[c] = true
	}
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := f.check(); err != nil {
		return err
	}
	c := f.ctx
	if len(c.perfMons) >= maxPerfMons {
		return errorf(EBUSY, "PerfMonCreate: the file holds %d perf monitors already", maxPerfMons)
	}
	if c.perfMons == nil {
		c.perfMons = map[uint32]*perfMon{}
	}
	c.nextPerfMon++
	for c.nextPerfMon == 0 || c.perfMons[c.nextPerfMon] != nil {
		c.nextPerfMon++
	}
	c.perfMons[c.nextPerfMon] = &perfMon{counters: slices.Clone(a.Counters), values: make([]uint64, len(a.Counters))}
	a.ID = c.nextPerfMon
	return nil
}

// PerfMonGet reads a perf monitor: the sums over its retired jobs. Wait
// for the fences of the jobs first to count them all (Pending says how
// many are still out).
func (f *File) PerfMonGet(a *PerfMonGetArgs) error {
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := f.check(); err != nil {
		return err
	}
	pm := f.ctx.perfMons[a.ID]
	if pm == nil {
		return errorf(ENOENT, "PerfMonGet: no perf monitor %d", a.ID)
	}
	a.Values = slices.Clone(pm.values)
	a.Jobs, a.Pending = pm.jobs, pm.pending
	return nil
}

// PerfMonDestroy destroys a perf monitor; jobs still attached finish
// without counting into it.
func (f *File) PerfMonDestroy(a *PerfMonDestroyArgs) error {
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := f.check(); err != nil {
		return err
	}
	if f.ctx.perfMons[a.ID] == nil {
		return errorf(ENOENT, "PerfMonDestroy: no perf monitor %d", a.ID)
	}
	delete(f.ctx.perfMons, a.ID)
	return nil
}

// QueryJob reports a job of this File: its times and counters once it
// has retired (the last jobHistory jobs are kept), or the times known so
// far while it is pending (Retired 0). ENOENT for a fence that is not
// this File's or has left the history.
func (f *File) QueryJob(a *QueryJobArgs) error {
	d := f.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := f.check(); err != nil {
		return err
	}
	c := f.ctx
	for i := range c.history {
		if h := &c.history[i]; h.Fence == a.Fence && a.Fence != 0 {
			a.Info = *h
			return nil
		}
	}
	if fc := d.pending[a.Fence]; fc != nil && fc.owner == c && fc.job != nil {
		j := fc.job
		a.Info = JobInfo{Fence: a.Fence, Tag: j.tag, Context: c.id, Priority: Priority(j.prio), Times: JobTimes{Queued: j.queuedAt, Submitted: j.submittedAt}}
		return nil
	}
	return errorf(ENOENT, "QueryJob: fence %d is not a recent job of this file", a.Fence)
}

// gpuTime reads the GPU's TIMESTAMP register (hi, lo, hi until stable).
func (d *Device) gpuTime() uint64 {
	for {
		hi := d.m.ReadReg(regTimestampHi)
		lo := d.m.ReadReg(regTimestampLo)
		if d.m.ReadReg(regTimestampHi) == hi {
			return uint64(hi)<<32 | uint64(lo)
		}
	}
}

// load64 reads a u64 the command processor wrote with two atomic stores.
func (d *Device) load64(pa uint32) uint64 {
	return uint64(loadSync32(d.mem, pa)) | uint64(loadSync32(d.mem, pa+4))<<32
}

// jobInfo reads j's report area and builds its JobInfo; d.mu is held and
// the job has retired or been abandoned.
func (d *Device) jobInfo(j *job, err *Error) JobInfo {
	info := JobInfo{Fence: j.fence.seqno, Tag: j.tag, Context: j.ctx.id, Priority: Priority(j.prio)}
	if err != nil {
		info.Err = err
	}
	t := &info.Times
	t.Queued, t.Submitted, t.Retired = j.queuedAt, j.submittedAt, d.gpuTime()
	if j.tile == nil || j.submittedAt == 0 {
		return info
	}
	base := j.tile.pa + j.reportOff
	for e := range numEngines {
		if !j.kind.uses(e) {
			continue // the job has no records of that engine
		}
		off := reportOff
		if j.kind != kindGraphics {
			off = singleReportOff
		}
		start, end := d.load64(base+off(e, false)), d.load64(base+off(e, true))
		if start == 0 || end < start {
			continue // not reached (reset), or forged
		}
		first, n := hw.CounterBinFirst, hw.NumBinCounters
		switch e {
		case engineBin:
			t.BinStart, t.BinEnd = start, end
		case engineRender:
			t.RenderStart, t.RenderEnd = start, end
			first, n = hw.CounterRenderFirst, hw.NumRenderCounters
		case engineCompute:
			t.ComputeStart, t.ComputeEnd = start, end
			first, n = hw.CounterComputeFirst, hw.NumComputeCounters
		default:
			t.DMAStart, t.DMAEnd = start, end
			first, n = hw.CounterDMAFirst, hw.NumDMACounters
		}
		for i := 0; i < n; i++ {
			c := first + hw.Counter(i)
			a := d.load64(base + off(e, false) + 8 + 8*uint32(i))
			b := d.load64(base + off(e, true) + 8 + 8*uint32(i))
			if b >= a {
				info.Counters[c] = b - a
			}
		}
	}
	return info
}

// recordJob files j's JobInfo when its fence signals: the context's
// history, its perf monitor and Options.OnRetire. d.mu is held.
func (d *Device) recordJob(j *job, err *Error) {
	info := d.jobInfo(j, err)
	c := j.ctx
	c.history[c.historyNext%jobHistory] = info
	c.historyNext++
	if pm := j.perfMon; pm != nil {
		pm.pending--
		if c.perfMons[j.perfMonID] == pm {
			for i, ctr := range pm.counters {
				pm.values[i] += info.Counters[ctr]
			}
			pm.jobs++
		}
		j.perfMon = nil
	}
	if d.tiles.on && err == nil && info.Times.RenderEnd != 0 {
		info.Tiles = d.claimTiles(c.id, info.Times.RenderStart, info.Times.RenderEnd)
		c.history[(c.historyNext-1)%jobHistory].Tiles = info.Tiles
	}
	if d.opts.OnRetire != nil {
		d.opts.OnRetire(&info)
	}
}
