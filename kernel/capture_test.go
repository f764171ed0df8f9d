package kernel

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/hw/isa"
)

// TestCaptureShowsWhatTheGPUSees: Options.Capture sees the job's ring
// packets, the relocated bin list (with the kernel's tile configuration),
// the generated render list and the shader code in the context's memory.
func TestCaptureShowsWhatTheGPUSees(t *testing.T) {
	var caps []*Capture
	g := hw.New(hw.Config{MemorySize: 64 << 20, Cores: 2})
	d := NewDevice(g, Options{JobTimeout: 5 * time.Second, Capture: func(c *Capture) {
		cp := *c
		cp.BinCL = bytes.Clone(c.BinCL)
		cp.RenderCL = bytes.Clone(c.RenderCL)
		cp.ShaderRecords = bytes.Clone(c.ShaderRecords)
		var rec cl.ShaderRecord
		if err := rec.Unpack(c.ShaderRecords); err != nil {
			t.Errorf("shader record: %v", err)
		} else if code, err := c.Read(rec.FragmentCodeAddress, 8); err != nil {
			t.Errorf("reading the fragment shader: %v", err)
		} else if _, err := isa.Decode(binary.LittleEndian.Uint64(code)); err != nil {
			t.Errorf("fragment shader's first word: %v", err)
		}
		if _, err := c.Read(0x10, 4); err == nil {
			t.Error("Read of the unmapped null page succeeded")
		}
		caps = append(caps, &cp)
	}})
	t.Cleanup(func() { d.Close(); g.Close() })
	f := mustOpen(t, d)
	a, _ := hwJob(t, f, 64, 64, redFS, fullScreen, 1)
	if err := f.SubmitCL(a); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, f, a.OutFence); err != nil {
		t.Fatal(err)
	}
	if len(caps) != 1 {
		t.Fatalf("%d captures, want 1", len(caps))
	}
	c := caps[0]
	if c.Fence != a.OutFence {
		t.Errorf("capture fence %d, job fence %d", c.Fence, a.OutFence)
	}
	var ring strings.Builder
	if err := cl.DecodeRing(&ring, c.Rings[hw.EngineRender]); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"SET_CONTEXT", "WAIT_MEM", "INDIRECT_BUFFER", "EVENT_WRITE"} {
		if !strings.Contains(ring.String(), want) {
			t.Errorf("render ring decode lacks %s:\n%s", want, ring.String())
		}
	}
	var bin, rcl strings.Builder
	if err := cl.DecodeCL(&bin, c.BinCL, c.BinCLAddress); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(bin.String(), "TILE_BINNING_MODE_CONFIGURATION") || strings.Contains(bin.String(), "tile_allocation_address=0x00000000") {
		t.Errorf("bin CL lacks the kernel's tile configuration:\n%s", bin.String())
	}
	if err := cl.DecodeCL(&rcl, c.RenderCL, c.RenderCLAddress); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"TILE_RENDERING_MODE_CONFIGURATION", "TILE_COORDINATES", "BRANCH_TO_SUB_LIST", "STORE_TILE_BUFFER_GENERAL", "HALT"} {
		if !strings.Contains(rcl.String(), want) {
			t.Errorf("render CL decode lacks %s:\n%s", want, rcl.String())
		}
	}
}

// TestPerfCounterParams: the performance counters are readable through
// GetParam and count the work of a job.
func TestPerfCounterParams(t *testing.T) {
	d := newHWDevice(t, 5*time.Second)
	f := mustOpen(t, d)
	a, _ := hwJob(t, f, 64, 64, redFS, fullScreen, 1)
	if err := f.SubmitCL(a); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, f, a.OutFence); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p    Param
		name string
	}{{ParamPerfQPUInstructions, "instructions"}, {ParamPerfTriangles, "triangles"}, {ParamPerfTiles, "tiles"},
		{ParamPerfFragments, "fragments"}, {ParamPerfVertices, "vertices"}} {
		g := GetParamArgs{Param: tc.p}
		if err := f.GetParam(&g); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if g.Value == 0 {
			t.Errorf("%s counter is 0 after a full-screen draw", tc.name)
		}
	}
}
