// Package gputrace records a timeline of the whole stack — the
// application's GL calls, the driver's job submissions and shader
// compiles, the kernel's queues, each engine's ring and each render core's
// tiles — and writes it in the Chrome trace-event JSON format that
// ui.perfetto.dev and chrome://tracing open.
//
// It carries the observability side of the architecture: it instruments
// nothing itself. CPU-side events are timed by their callers; GPU-side
// events come from the hardware's own timestamps (the command processor's
// start/end-of-pipe records and the render engine's tile trace, delivered
// by the kernel's JobInfo), placed on the CPU timeline through one clock
// offset measured at start.
//
// A Recorder is safe for concurrent use. It keeps at most its limit of
// events and counts the ones it had to drop.
package gputrace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Process ids of the trace: one "process" per layer, so Perfetto groups
// the tracks by layer.
const (
	PidApp    = 1 // GL calls and the driver
	PidKernel = 2 // the kernel's queues
	PidGPU    = 3 // rings and render cores
)

// Thread (track) ids within the processes.
const (
	TidGL      = 1 // PidApp: GL calls
	TidSubmit  = 2 // PidApp: driver job submissions (SUBMIT_CL)
	TidCompile = 3 // PidApp: shader compiles, links and variant builds
	TidBinRing = 1 // PidGPU: the BIN engine's ring
	TidRender  = 2 // PidGPU: the RENDER engine's ring
	// TidCore0 + k is PidGPU's track of render core k's tiles.
	TidCore0 = 10
)

// Arg is one named argument of an event (shown in the event's details).
type Arg struct {
	Key   string
	Value any
}

type event struct {
	name, cat string
	ph        byte // 'X' complete, 'b'/'e' async begin/end
	ts, dur   int64
	pid, tid  int
	id        uint64
	args      []Arg
}

// Recorder collects events. The zero value is not usable; call New.
type Recorder struct {
	mu        sync.Mutex
	base      time.Time
	gpuOffset int64 // CPU ns since base = GPU ns + gpuOffset
	events    []event
	limit     int
	dropped   int
	names     map[[2]int]string
	procs     map[int]string
}

// New returns a Recorder that keeps at most limit events (≤ 0: 1<<20).
func New(limit int) *Recorder {
	if limit <= 0 {
		limit = 1 << 20
	}
	r := &Recorder{base: time.Now(), limit: limit, names: map[[2]int]string{}, procs: map[int]string{
		PidApp: "application (CPU)", PidKernel: "kernel", PidGPU: "GPU",
	}}
	r.names[[2]int{PidApp, TidGL}] = "GL calls"
	r.names[[2]int{PidApp, TidSubmit}] = "driver: job flushes (SUBMIT_CL)"
	r.names[[2]int{PidApp, TidCompile}] = "driver: shader compiles"
	r.names[[2]int{PidGPU, TidBinRing}] = "BIN ring"
	r.names[[2]int{PidGPU, TidRender}] = "RENDER ring"
	return r
}

// SyncGPUClock places the GPU's clock on the CPU timeline: gpuNow is the
// GPU TIMESTAMP read just now.
func (r *Recorder) SyncGPUClock(gpuNow uint64) {
	r.mu.Lock()
	r.gpuOffset = int64(time.Since(r.base)) - int64(gpuNow)
	r.mu.Unlock()
}

// NameTrack names track (pid, tid).
func (r *Recorder) NameTrack(pid, tid int, name string) {
	r.mu.Lock()
	r.names[[2]int{pid, tid}] = name
	r.mu.Unlock()
}

func (r *Recorder) add(e event) {
	r.mu.Lock()
	if len(r.events) >= r.limit {
		r.dropped++
	} else {
		r.events = append(r.events, e)
	}
	r.mu.Unlock()
}

// Span records a CPU-side slice on track (pid, tid) from start to end.
func (r *Recorder) Span(pid, tid int, cat, name string, start, end time.Time, args ...Arg) {
	r.add(event{name: name, cat: cat, ph: 'X', ts: int64(start.Sub(r.base)), dur: int64(end.Sub(start)), pid: pid, tid: tid, args: args})
}

// GPUSpan records a slice timed by GPU timestamps (nanoseconds).
func (r *Recorder) GPUSpan(pid, tid int, cat, name string, start, end uint64, args ...Arg) {
	r.mu.Lock()
	off := r.gpuOffset
	r.mu.Unlock()
	r.add(event{name: name, cat: cat, ph: 'X', ts: int64(start) + off, dur: int64(end - start), pid: pid, tid: tid, args: args})
}

// GPUAsync records an async slice (a slice that may overlap others of
// the same track, such as jobs waiting in a queue), timed by GPU
// timestamps; id tells overlapping slices apart.
func (r *Recorder) GPUAsync(pid int, cat, name string, id uint64, start, end uint64, args ...Arg) {
	r.mu.Lock()
	off := r.gpuOffset
	r.mu.Unlock()
	r.add(event{name: name, cat: cat, ph: 'b', ts: int64(start) + off, pid: pid, id: id, args: args})
	r.add(event{name: name, cat: cat, ph: 'e', ts: int64(end) + off, pid: pid, id: id})
}

// Dropped is the number of events not kept because the limit was reached.
func (r *Recorder) Dropped() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// WriteJSON writes the trace as {"traceEvents": [...]} with metadata
// events naming every process and track, then the events sorted by time.
// Timestamps are microseconds with nanosecond decimals.
func (r *Recorder) WriteJSON(w io.Writer) error {
	r.mu.Lock()
	evs := append([]event(nil), r.events...)
	dropped := r.dropped
	names := make(map[[2]int]string, len(r.names))
	for k, v := range r.names {
		names[k] = v
	}
	procs := make(map[int]string, len(r.procs))
	for k, v := range r.procs {
		procs[k] = v
	}
	r.mu.Unlock()
	sort.SliceStable(evs, func(a, b int) bool { return evs[a].ts < evs[b].ts })

	bw := bufio.NewWriter(w)
	bw.WriteString(`{"displayTimeUnit":"ns","otherData":{"dropped_events":`)
	bw.WriteString(strconv.Itoa(dropped))
	bw.WriteString("},\"traceEvents\":[\n")
	first := true
	sep := func() {
		if !first {
			bw.WriteString(",\n")
		}
		first = false
	}
	meta := func(name string, pid, tid int, value string) {
		sep()
		fmt.Fprintf(bw, `{"name":%q,"ph":"M","pid":%d,"tid":%d,"args":{"name":%s}}`, name, pid, tid, jsonString(value))
	}
	pids := make([]int, 0, len(procs))
	for p := range procs {
		pids = append(pids, p)
	}
	sort.Ints(pids)
	for _, p := range pids {
		meta("process_name", p, 0, procs[p])
		sep()
		fmt.Fprintf(bw, `{"name":"process_sort_index","ph":"M","pid":%d,"tid":0,"args":{"sort_index":%d}}`, p, p)
	}
	keys := make([][2]int, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if keys[a][0] != keys[b][0] {
			return keys[a][0] < keys[b][0]
		}
		return keys[a][1] < keys[b][1]
	})
	for _, k := range keys {
		meta("thread_name", k[0], k[1], names[k])
		sep()
		fmt.Fprintf(bw, `{"name":"thread_sort_index","ph":"M","pid":%d,"tid":%d,"args":{"sort_index":%d}}`, k[0], k[1], k[1])
	}
	for i := range evs {
		e := &evs[i]
		sep()
		fmt.Fprintf(bw, `{"name":%s,"cat":%s,"ph":"%c","ts":%s,"pid":%d,"tid":%d`,
			jsonString(e.name), jsonString(e.cat), e.ph, micros(e.ts), e.pid, e.tid)
		if e.ph == 'X' {
			fmt.Fprintf(bw, `,"dur":%s`, micros(e.dur))
		}
		if e.ph == 'b' || e.ph == 'e' {
			fmt.Fprintf(bw, `,"id":"0x%x"`, e.id)
		}
		if len(e.args) > 0 {
			bw.WriteString(`,"args":{`)
			for k, a := range e.args {
				if k > 0 {
					bw.WriteByte(',')
				}
				v, err := json.Marshal(a.Value)
				if err != nil {
					v = []byte(jsonString(fmt.Sprint(a.Value)))
				}
				bw.WriteString(jsonString(a.Key))
				bw.WriteByte(':')
				bw.Write(v)
			}
			bw.WriteByte('}')
		}
		bw.WriteByte('}')
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// micros formats nanoseconds as microseconds with three decimals.
func micros(ns int64) string {
	neg := ns < 0
	if neg {
		ns = -ns
	}
	s := strconv.FormatInt(ns/1000, 10) + "." + fmt.Sprintf("%03d", ns%1000)
	if neg {
		s = "-" + s
	}
	return s
}
