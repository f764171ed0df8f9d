package gputrace

import (
	"encoding/json"
	"fmt"
	"sort"
)

// CheckPerfettoImport reports what in a trace-event JSON document
// Perfetto's JSON importer would reject or flag, so that every producer's
// tests can hold its traces to what ui.perfetto.dev loads cleanly. The
// rules are those of the importer's tokenizer and parser
// (src/trace_processor/importers/json/json_trace_tokenizer.cc and
// json_trace_parser.cc in github.com/google/perfetto, read at ec5d16b):
//
//   - the document is an object whose "traceEvents" is an array, and
//     "displayTimeUnit", when present, is "ns" or "ms";
//   - every event has "ph"; every event but metadata ('M') has a numeric
//     "ts" (json_tokenizer_failure otherwise);
//   - 'X' events have a "dur" (json_parser_failure otherwise), and the
//     complete events of one thread track (pid, tid) nest: one that
//     partially overlaps another is spilled to an overflow track and
//     flagged (slice_spill_overlapping_complete_event);
//   - 'b'/'e' events have a "pid" and an "id" (json_parser_failure
//     otherwise); an 'e' ends the newest open 'b' of its async track —
//     name, pid and (cat, id) — so every 'e' needs one, and none may be
//     left open;
//   - metadata events name processes and threads with a string
//     args.name, or sort them with a numeric args.sort_index.
//
// It returns one line per problem (nil for none). It does not replace
// loading a trace in the UI, which this machine cannot do.
func CheckPerfettoImport(data []byte) []string {
	var doc struct {
		DisplayTimeUnit *string           `json:"displayTimeUnit"`
		TraceEvents     []json.RawMessage `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return []string{fmt.Sprintf("not a trace-event JSON object: %v", err)}
	}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if doc.TraceEvents == nil {
		bad(`no "traceEvents" array`)
	}
	if u := doc.DisplayTimeUnit; u != nil && *u != "ns" && *u != "ms" {
		bad("displayTimeUnit %q (the importer accepts ns or ms)", *u)
	}
	type slice struct {
		name       string
		start, end float64
	}
	threads := map[[2]int64][]slice{}
	type asyncKey struct {
		name, cat, id string
		pid           int64
	}
	open := map[asyncKey][]float64{}
	for i, raw := range doc.TraceEvents {
		var e struct {
			Name string          `json:"name"`
			Cat  string          `json:"cat"`
			Ph   string          `json:"ph"`
			Ts   *float64        `json:"ts"`
			Dur  *float64        `json:"dur"`
			Pid  *int64          `json:"pid"`
			Tid  *int64          `json:"tid"`
			ID   json.RawMessage `json:"id"`
			Args map[string]any  `json:"args"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			bad("event %d: %v", i, err)
			continue
		}
		if e.Ph == "" {
			bad("event %d (%q): no ph", i, e.Name)
			continue
		}
		if e.Ph != "M" && e.Ts == nil {
			bad("event %d (%q, ph %s): no numeric ts", i, e.Name, e.Ph)
			continue
		}
		var pid, tid int64
		if e.Pid != nil {
			pid = *e.Pid
		}
		if e.Tid != nil {
			tid = *e.Tid
		} else {
			tid = pid // the importer's default
		}
		switch e.Ph {
		case "M":
			switch e.Name {
			case "process_name", "thread_name":
				if _, ok := e.Args["name"].(string); !ok {
					bad("event %d: %s without a string args.name", i, e.Name)
				}
			case "process_sort_index", "thread_sort_index":
				if _, ok := e.Args["sort_index"].(float64); !ok {
					bad("event %d: %s without a numeric args.sort_index", i, e.Name)
				}
			}
		case "X":
			if e.Dur == nil || *e.Dur < 0 {
				bad("event %d (%q): complete event without a non-negative dur", i, e.Name)
				continue
			}
			k := [2]int64{pid, tid}
			threads[k] = append(threads[k], slice{e.Name, *e.Ts, *e.Ts + *e.Dur})
		case "b", "e":
			if e.Pid == nil || len(e.ID) == 0 {
				bad("event %d (%q, ph %s): async event without pid and id", i, e.Name, e.Ph)
				continue
			}
			k := asyncKey{e.Name, e.Cat, string(e.ID), pid}
			if e.Ph == "b" {
				open[k] = append(open[k], *e.Ts)
				continue
			}
			st := open[k]
			if len(st) == 0 {
				bad("event %d (%q): async end without a begin on its track", i, e.Name)
				continue
			}
			if begin := st[len(st)-1]; *e.Ts < begin {
				bad("event %d (%q): async end at %v before its begin at %v", i, e.Name, *e.Ts, begin)
			}
			open[k] = st[:len(st)-1]
		}
	}
	for k, st := range open {
		if len(st) > 0 {
			bad("async slice %q (cat %q, id %s, pid %d) begun and never ended", k.name, k.cat, k.id, k.pid)
		}
	}
	// Complete events of a thread track must nest (the slice tracker's
	// stack): sorted by start, longer first, each one must end inside the
	// innermost open slice that contains its start.
	for k, ss := range threads {
		sort.SliceStable(ss, func(a, b int) bool {
			if ss[a].start != ss[b].start {
				return ss[a].start < ss[b].start
			}
			return ss[a].end > ss[b].end
		})
		var stack []slice
		for _, s := range ss {
			for len(stack) > 0 && stack[len(stack)-1].end <= s.start {
				stack = stack[:len(stack)-1]
			}
			if n := len(stack); n > 0 && s.end > stack[n-1].end {
				bad("track pid %d tid %d: %q [%v, %v] partially overlaps %q [%v, %v]", k[0], k[1],
					s.name, s.start, s.end, stack[n-1].name, stack[n-1].start, stack[n-1].end)
				continue
			}
			stack = append(stack, s)
		}
	}
	sort.Strings(problems)
	return problems
}
