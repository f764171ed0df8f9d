package pal

import (
	"encoding/binary"
	"testing"

	"github.com/tilegpu/tilegpu/internal/computeconf"
)

// TestComputeConformanceSuite runs csf's whole compute conformance suite
// (internal/computeconf: dEQP-GLES31-style cases with CPU checkers) on
// the virtual GPU: each case's shader is compiled by the back end, its
// buffers are bound at their bindings, CmdDispatch runs it on the COMPUTE
// engine and the buffers read back must pass the case's checker.
func TestComputeConformanceSuite(t *testing.T) {
	r := newComputeRig(t)
	for _, c := range computeconf.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			p, err := r.dev.CreateComputePipeline(ComputePipelineCreateInfo{Shader: c.Source})
			if err != nil {
				t.Fatal(err)
			}
			pmem, err := r.dev.CreateGpuMemory(GpuMemoryCreateInfo{Size: p.GpuMemoryRequirements().Size})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.BindGpuMemory(pmem, 0); err != nil {
				t.Fatal(err)
			}
			if err := r.dev.AddGpuMemoryReferences(pmem); err != nil {
				t.Fatal(err)
			}
			in := c.Buffers()
			cb := r.cmdBuffer(t, EngineCompute)
			maps := map[int][]byte{}
			var mems []*GpuMemory
			for b, words := range in {
				m, bytes := r.buffer(t, words)
				maps[b] = bytes
				mems = append(mems, m)
				if err := cb.CmdBindStorageBuffers(b, []BufferView{{Memory: m, Size: uint64(4 * len(words))}}); err != nil {
					t.Fatal(err)
				}
			}
			g := c.NumWorkGroups
			for _, err := range []error{cb.CmdBindComputePipeline(p), cb.CmdDispatch(uint32(g[0]), uint32(g[1]), uint32(g[2]))} {
				if err != nil {
					t.Fatal(err)
				}
			}
			r.submit(t, EngineCompute, cb)
			out := map[int][]uint32{}
			for b, words := range in {
				got := make([]uint32, len(words))
				for i := range got {
					got[i] = binary.LittleEndian.Uint32(maps[b][4*i:])
				}
				out[b] = got
			}
			if err := c.Check(c.Buffers(), out); err != nil {
				t.Errorf("%v\n%s", err, p.Listing())
			}
			r.dev.RemoveGpuMemoryReferences(append(mems, pmem)...)
			for _, m := range append(mems, pmem) {
				m.Destroy()
			}
		})
	}
}
