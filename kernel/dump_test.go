package kernel

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/internal/crashdec"
)

// offscreenThenFull is a triangle outside the view (draw 1, rejected by
// the binner) and a full-screen one (draw 2).
var offscreenThenFull = [][2]float32{{5, 5}, {6, 5}, {5, 6}, {-1, -1}, {3, -1}, {-1, 3}}

// twoMarkedDraws rewrites hwJob's single VERTEX_ARRAY_PRIMITIVES of six
// vertices into MARKER 1, draw of vertices 0..2, MARKER 2, draw of 3..5,
// as the driver does with DrawMarkers.
func twoMarkedDraws(t *testing.T, a *SubmitCLArgs) {
	t.Helper()
	var out []byte
	put := func(r cl.Record) {
		off := len(out)
		out = append(out, make([]byte, r.Size())...)
		r.Pack(out[off:])
	}
	found := false
	for off := 0; off < len(a.BinCL); {
		l, err := cl.NextRecord(a.BinCL, off)
		if err != nil {
			t.Fatal(err)
		}
		if l.Opcode == cl.OpVertexArrayPrimitives {
			found = true
			put(cl.Marker{Id: 1})
			put(cl.VertexArrayPrimitives{Mode: cl.PrimTriangles, Length: 3, FirstIndex: 0})
			put(cl.Marker{Id: 2})
			put(cl.VertexArrayPrimitives{Mode: cl.PrimTriangles, Length: 3, FirstIndex: 3})
		} else {
			out = append(out, a.BinCL[off:off+l.Size]...)
		}
		off += l.Size
	}
	if !found {
		t.Fatal("no VERTEX_ARRAY_PRIMITIVES to split")
	}
	a.BinCL = out
}

// dumpDevice is a real-GPU device writing crash dumps into a temporary
// directory.
func dumpDevice(t *testing.T, timeout time.Duration) (*Device, string) {
	t.Helper()
	dir := t.TempDir()
	g := hw.New(hw.Config{MemorySize: 64 << 20, Cores: 2})
	d := NewDevice(g, Options{JobTimeout: timeout, DumpDir: dir})
	t.Cleanup(func() { d.Close(); g.Close() })
	return d, dir
}

// decodedDump waits for the device's first dump and returns crashdec's text.
func decodedDump(t *testing.T, d *Device) (string, *crashdec.Dump) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(d.DumpPaths()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no crash dump written")
		}
		time.Sleep(time.Millisecond)
	}
	data, err := os.ReadFile(d.DumpPaths()[0])
	if err != nil {
		t.Fatal(err)
	}
	dp, err := crashdec.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := crashdec.Decode(&buf, dp); err != nil {
		t.Fatal(err)
	}
	return buf.String(), dp
}

// markedLines returns the lines crashdec marked with "=>".
func markedLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "=> ") {
			out = append(out, l)
		}
	}
	return out
}

func wantAll(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("crashdec output lacks %q", w)
		}
	}
	if t.Failed() {
		t.Logf("crashdec output:\n%s", text)
	}
}

// A fragment shader's page fault in the second draw: the dump names the
// fault, the draw (marker 2, not the off-screen draw 1), the tile and the
// core, and marks the instruction that faulted.
func TestCrashDumpPageFault(t *testing.T) {
	d, _ := dumpDevice(t, 5*time.Second)
	f := mustOpen(t, d)
	a, _ := hwJob(t, f, 64, 64, faultFS, offscreenThenFull, 1)
	twoMarkedDraws(t, a)
	if err := f.SubmitCL(a); err != nil {
		t.Fatal(err)
	}
	if err := waitFence(t, f, a.OutFence); !errors.Is(err, EIO) {
		t.Fatalf("wait: %v, want EIO", err)
	}
	text, dp := decodedDump(t, d)
	if dp.Fence != a.OutFence {
		t.Errorf("dump of fence %d, want %d", dp.Fence, a.OutFence)
	}
	if dp.Fault == nil || dp.Fault.IB != dp.RenderCLAddress {
		t.Errorf("dump's fault %+v: want the IB of the job's render list %#x", dp.Fault, dp.RenderCLAddress)
	}
	wantAll(t, text, "tilegpu crash dump: page fault",
		fmt.Sprintf("fault: read of VA 0x0bad0000 by the RENDER engine in the IB at 0x%08x (outside every BO the job referenced)", dp.RenderCLAddress),
		"shader: fragment shader at 0x", "draw: 2 (", "tile: column 0, row 0 (render core",
		"== ring RENDER, priority 0", "EVENT_WRITE", "== state bound for draw 2 ==", "GL_SHADER_STATE",
		"== fragment shader @0x", "— failed at PC 0x", "== buffers the job referenced ==")
	marked := markedLines(text)
	var markerLine, instrLine bool
	for _, l := range marked {
		markerLine = markerLine || strings.Contains(l, "MARKER") && strings.Contains(l, "0x2")
		instrLine = instrLine || strings.Contains(l, "tmu_addr") || strings.Contains(l, "ldtmu")
		if strings.Contains(l, "MARKER") && strings.Contains(l, "0x1") {
			t.Errorf("draw 1 marked: %s", l)
		}
	}
	if !markerLine || !instrLine {
		t.Errorf("marked lines %q: want draw 2's MARKER and the memory instruction", marked)
	}
}

// A shader that pops an empty TMU FIFO is aborted (CL_ERROR): the dump
// marks the LDTMU instruction.
func TestCrashDumpAbortedShader(t *testing.T) {
	d, _ := dumpDevice(t, 5*time.Second)
	f := mustOpen(t, d)
	const badFS = `
		li tlb_r, 1.0
		nop ; nop ; ldtmu
		nop ; nop ; end`
	a, _ := hwJob(t, f, 64, 64, badFS, offscreenThenFull, 1)
	twoMarkedDraws(t, a)
	if err := f.SubmitCL(a); err != nil {
		t.Fatal(err)
	}
	_ = waitFence(t, f, a.OutFence) // the outcome of a CL error is the fail branch's business
	text, dp := decodedDump(t, d)
	if dp.Fence != a.OutFence {
		t.Errorf("dump of fence %d, want %d", dp.Fence, a.OutFence)
	}
	wantAll(t, text, "tilegpu crash dump: cl error", "last failed shader batch", "shader: fragment shader at 0x",
		"draw: 2 (", "— failed at PC 0x")
	found := false
	for _, l := range markedLines(text) {
		found = found || strings.Contains(l, "ldtmu")
	}
	if !found {
		t.Errorf("the LDTMU is not marked: %q", markedLines(text))
	}
}

// A job that runs past the watchdog's hard cap is dumped before the
// reset: the dump shows its render IB still at the read pointer.
func TestCrashDumpHang(t *testing.T) {
	d, _ := dumpDevice(t, 30*time.Millisecond)
	f := mustOpen(t, d)
	a, _ := hwJob(t, f, 64, 64, redFS, fullScreen, 150000)
	if err := f.SubmitCL(a); err != nil {
		t.Fatal(err)
	}
	if err := waitFence(t, f, a.OutFence); !errors.Is(err, EIO) {
		t.Fatalf("wait: %v, want EIO", err)
	}
	text, dp := decodedDump(t, d)
	if dp.Fence != a.OutFence {
		t.Errorf("dump of fence %d, want %d", dp.Fence, a.OutFence)
	}
	wantAll(t, text, "tilegpu crash dump: hang", "job (fence", "=> RPTR", "INDIRECT_BUFFER",
		"== binning control list", "VERTEX_ARRAY_PRIMITIVES")
	if !strings.Contains(text, "CP_STATUS(") {
		t.Error("no CP_STATUS registers")
	}
}

// crashdec rejects what is not a dump with an error naming the problem.
func TestCrashdecRejectsBadInput(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "not a tilegpu crash dump"},
		{`{"Format":"other"}`, "format"},
		{`{"Format":"tilegpu-devcoredump-1","Rings":[{"Size":4096,"WordsBeforeRPTR":3,"Words":[1]}]}`, "words before RPTR"},
		{`{"Format":"tilegpu-devcoredump-1","Rings":[{"Size":100,"Words":[]}]}`, "power of two"},
	} {
		if _, err := crashdec.Parse([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tc.in, err, tc.want)
		}
	}
}
