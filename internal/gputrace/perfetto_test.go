package gputrace

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestCheckPerfettoImport(t *testing.T) {
	ev := func(es ...string) string {
		return `{"displayTimeUnit":"ns","traceEvents":[` + strings.Join(es, ",") + `]}`
	}
	tests := []struct {
		name, doc, want string // want: a substring of the one problem, "" for none
	}{
		{"clean", ev(`{"name":"thread_name","ph":"M","pid":1,"tid":2,"args":{"name":"gl"}}`,
			`{"name":"a","ph":"X","ts":1,"dur":10,"pid":1,"tid":2}`, `{"name":"b","ph":"X","ts":2,"dur":3,"pid":1,"tid":2}`,
			`{"name":"c","ph":"X","ts":11,"dur":3,"pid":1,"tid":2}`,
			`{"name":"q","cat":"k","ph":"b","ts":1,"pid":3,"id":"0x1"}`, `{"name":"q","cat":"k","ph":"e","ts":4,"pid":3,"id":"0x1"}`), ""},
		{"not JSON", `{"traceEvents":[`, "not a trace-event JSON object"},
		{"no traceEvents", `{}`, `no "traceEvents"`},
		{"bad time unit", `{"displayTimeUnit":"us","traceEvents":[]}`, "displayTimeUnit"},
		{"no ph", ev(`{"name":"a","ts":1}`), "no ph"},
		{"no ts", ev(`{"name":"a","ph":"X","dur":1,"pid":1,"tid":1}`), "no numeric ts"},
		{"string ts", ev(`{"name":"a","ph":"X","ts":"1","dur":1,"pid":1,"tid":1}`), "event 0"},
		{"X without dur", ev(`{"name":"a","ph":"X","ts":1,"pid":1,"tid":1}`), "without a non-negative dur"},
		{"partial overlap", ev(`{"name":"a","ph":"X","ts":1,"dur":10,"pid":1,"tid":2}`, `{"name":"b","ph":"X","ts":5,"dur":10,"pid":1,"tid":2}`), "partially overlaps"},
		{"async without id", ev(`{"name":"q","ph":"b","ts":1,"pid":3}`), "without pid and id"},
		{"async end without begin", ev(`{"name":"q","cat":"k","ph":"e","ts":4,"pid":3,"id":"0x1"}`), "without a begin"},
		{"async end on another id", ev(`{"name":"q","cat":"k","ph":"b","ts":1,"pid":3,"id":"0x1"}`, `{"name":"q","cat":"k","ph":"e","ts":4,"pid":3,"id":"0x2"}`), "0x1"},
		{"thread name without name", ev(`{"name":"thread_name","ph":"M","pid":1,"tid":2,"args":{}}`), "string args.name"},
	}
	for _, tc := range tests {
		p := CheckPerfettoImport([]byte(tc.doc))
		switch {
		case tc.want == "" && len(p) != 0:
			t.Errorf("%s: problems %q, want none", tc.name, p)
		case tc.want != "" && len(p) == 0:
			t.Errorf("%s: no problem found, want %q", tc.name, tc.want)
		case tc.want != "" && !strings.Contains(strings.Join(p, "\n"), tc.want):
			t.Errorf("%s: problems %q, want one naming %q", tc.name, p, tc.want)
		}
	}
}

// The recorder's own output passes the importer's rules.
func TestRecorderOutputImportsCleanly(t *testing.T) {
	r := New(0)
	r.SyncGPUClock(0)
	t0 := time.Now()
	r.Span(PidApp, TidGL, "gl", "draw", t0, t0.Add(time.Millisecond))
	r.Span(PidApp, TidGL, "gl", "inner", t0.Add(100*time.Microsecond), t0.Add(200*time.Microsecond))
	r.GPUSpan(PidGPU, TidBinRing, "bin", "bin", 1000, 1500)
	r.GPUAsync(PidKernel, "kernel", "ctx 1 normal: queued", 1, 500, 900)
	r.GPUAsync(PidKernel, "kernel", "ctx 1 normal: queued", 2, 600, 1900)
	r.NameTrack(PidGPU, TidCore0, "render core 0: tiles")
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if p := CheckPerfettoImport(buf.Bytes()); len(p) != 0 {
		t.Errorf("Perfetto's importer would flag:\n%s\n%s", strings.Join(p, "\n"), buf.String())
	}
}
