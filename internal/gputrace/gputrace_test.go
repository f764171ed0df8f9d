package gputrace

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

func TestWriteJSONOrderLimitAndEscaping(t *testing.T) {
	r := New(3)
	r.SyncGPUClock(0)
	t0 := time.Now()
	r.Span(PidApp, TidGL, "gl", `draw "quoted"`, t0.Add(2*time.Millisecond), t0.Add(3*time.Millisecond), Arg{"count", 6})
	r.GPUSpan(PidGPU, TidBinRing, "bin", "bin", 1000, 1500)
	r.GPUAsync(PidKernel, "kernel", "ctx 1 normal: queued", 1, 500, 900) // two events: the second is dropped
	if r.Dropped() != 1 {
		t.Fatalf("dropped %d, want 1", r.Dropped())
	}
	r.NameTrack(PidGPU, TidCore0, "render core 0: tiles")
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OtherData   map[string]int `json:"otherData"`
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Ts   float64        `json:"ts"`
			Dur  float64        `json:"dur"`
			ID   string         `json:"id"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if doc.OtherData["dropped_events"] != 1 {
		t.Errorf("otherData %v", doc.OtherData)
	}
	var names []string
	last := -1.0
	core := false
	for _, e := range doc.TraceEvents {
		if e.Ph == "M" {
			core = core || e.Args["name"] == "render core 0: tiles"
			continue
		}
		if e.Ts < last {
			t.Errorf("%s at %v not in time order", e.Name, e.Ts)
		}
		last = e.Ts
		names = append(names, e.Name)
		if e.Name == "bin" && e.Dur != 0.5 {
			t.Errorf("bin lasts %vµs, want 0.5", e.Dur)
		}
		if e.Ph == "b" && e.ID != "0x1" {
			t.Errorf("async id %q", e.ID)
		}
		if e.Name == `draw "quoted"` && e.Args["count"] != 6.0 {
			t.Errorf("draw args %v", e.Args)
		}
	}
	if !core {
		t.Error("named track missing")
	}
	// GPU time 500 ns ≈ CPU time 0 here, so the async begin comes first,
	// then the bin span, then the CPU draw 2 ms in.
	if len(names) != 3 || names[0] != "ctx 1 normal: queued" || names[1] != "bin" || names[2] != `draw "quoted"` {
		t.Errorf("events %q", names)
	}
}

func TestMicros(t *testing.T) {
	for ns, want := range map[int64]string{0: "0.000", 1: "0.001", 1500: "1.500", -2500: "-2.500", 12345678: "12345.678"} {
		if got := micros(ns); got != want {
			t.Errorf("micros(%d) = %s, want %s", ns, got, want)
		}
	}
}
