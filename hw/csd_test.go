package hw

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// scanCS is an inclusive prefix sum of each 64-invocation workgroup's
// slice (Hillis–Steele in shared memory, two barriers per step).
// Uniforms: input VA, output VA.
const scanCS = `
	or ra0, a.unif, a.unif
	or ra1, a.unif, a.unif
	or r1, local_index, local_index
	shl ra3, r1, 2
	or r2, wg_id_x, wg_id_x
	or r1, wg_id_y, wg_id_y
	or r3, num_wg_x, num_wg_x
	nop ; mul24 r1, r1, r3
	add r2, r2, r1
	li r3, 0x100
	nop ; mul24 r2, r2, r3
	add rb0, ra3, r2
	add r0, ra0, rb0
	or tmu_addr, r0, r0
	nop ; nop ; ldtmu
	or tmu_stdata, r4, r4
	or shared_st, ra3, ra3
	li rb2, 0x4
loop:
	nop ; nop ; barrier
	or shared_ld, ra3, ra3
	sub.setf r1, ra3, rb2
	or.ifnc shared_ld, r1, r1
	nop ; nop ; ldtmu
	or r2, r4, r4
	nop ; nop ; ldtmu
	add r2, r2, r4
	nop ; nop ; barrier
	or tmu_stdata, r2, r2
	or shared_st, ra3, ra3
	add rb2, rb2, rb2
	li r3, 0x100
	sub.setf nop, rb2, r3
	brr.anyns loop
	add r0, ra1, rb0
	or tmu_stdata, r2, r2
	or tmu_staddr, r0, r0
	nop ; nop ; end
`

type computeRun struct {
	k        *testKernel
	codeVA   uint32
	unifVA   uint32
	inVA     uint32
	outVA    uint32
	in, out  []byte
	listVA   uint32
	list     []byte
	listUsed uint32
}

func newComputeRun(t *testing.T, src string, n int) *computeRun {
	k := newTestKernel(t, 2, 16<<20)
	r := &computeRun{k: k}
	r.codeVA = k.boWith(asm(t, src), false)
	r.inVA, r.in = k.bo(4*n, false)
	r.outVA, r.out = k.bo(4*n, true)
	r.unifVA = k.boWith(le32(r.inVA, r.outVA), false)
	r.listVA, r.list = k.bo(4096, false)
	return r
}

func le32(vs ...uint32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

// add appends a descriptor to the compute list.
func (r *computeRun) add(d cl.ComputeDispatch) {
	if d.CodeAddress == 0 {
		d.CodeAddress = r.codeVA
	}
	if d.UniformsAddress == 0 {
		d.UniformsAddress = r.unifVA
	}
	d.Pack(r.list[r.listUsed:])
	r.listUsed += cl.SizeComputeDispatch
}

// run submits the list on the COMPUTE ring and waits for it.
func (r *computeRun) run() {
	k := r.k
	k.setContext(EngineCompute)
	k.submit(EngineCompute, PacketHeader(PktIndirectBuffer, 2), r.listVA, r.listUsed)
	k.idle(EngineCompute)
	r.listUsed = 0
}

func TestComputeDispatchPrefixSum(t *testing.T) {
	const gx, gy, local = 3, 2, 64
	const n = gx * gy * local
	r := newComputeRun(t, scanCS, n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(r.in[4*i:], uint32(i*7%13+1))
	}
	before := make([]uint64, NumCounters)
	for c := range before {
		before[c] = r.k.g.counters[c].Load()
	}
	r.add(cl.ComputeDispatch{NumGroupsX: gx, NumGroupsY: gy, NumGroupsZ: 1, LocalSizeX: 8, LocalSizeY: 8, LocalSizeZ: 1, SharedBytes: 4 * local})
	r.run()
	if st := r.k.g.ReadReg(RegIntrStatus); st&(IntrCLError|IntrMMUFault) != 0 {
		t.Fatalf("INTR_STATUS %#x (CL_ERROR_STATUS %#x, fault VA %#x)", st, r.k.g.ReadReg(RegCLErrorStatus), r.k.g.ReadReg(RegMMUFaultVA))
	}
	// The CPU reference: an inclusive scan of each workgroup's slice.
	for w := 0; w < gx*gy; w++ {
		sum := uint32(0)
		for i := w * local; i < (w+1)*local; i++ {
			sum += binary.LittleEndian.Uint32(r.in[4*i:])
			if got := binary.LittleEndian.Uint32(r.out[4*i:]); got != sum {
				t.Fatalf("out[%d] = %d, want %d", i, got, sum)
			}
		}
	}
	want := map[Counter]uint64{
		CtrComputeDispatches:   1,
		CtrComputeWorkgroups:   gx * gy,
		CtrComputeBatches:      gx * gy * local / 16,
		CtrComputeInvocations:  n,
		CtrComputeBarriers:     gx * gy * local / 16 * 12, // 6 steps, 2 barriers each
		CtrComputeInstructions: 0,                         // checked below: nonzero
	}
	for c, w := range want {
		got := r.k.g.counters[c].Load() - before[c]
		if c == CtrComputeInstructions {
			if got == 0 {
				t.Errorf("%v did not count", c)
			}
			continue
		}
		if got != w {
			t.Errorf("%v = %d, want %d", c, got, w)
		}
	}
	if got := r.k.g.ReadReg(RegPerfCounter(CtrComputeWorkgroups)); uint64(got) != r.k.g.counters[CtrComputeWorkgroups].Load() {
		t.Errorf("PERF_COUNTER(compute.workgroups) reads %d", got)
	}
	if got := r.k.g.ReadReg(RegCSDCfg(0)); got != gx {
		t.Errorf("CSD_CFG(0) = %d, want %d", got, gx)
	}
	if got := r.k.g.ReadReg(RegCSDWorkgroupsDone); got != gx*gy {
		t.Errorf("CSD_WORKGROUPS_DONE = %d, want %d", got, gx*gy)
	}

	// DispatchIndirect: the group counts come from memory at dispatch time.
	clear(r.out)
	cntVA := r.k.boWith(le32(2, 1, 1), false)
	r.add(cl.ComputeDispatch{Flags: cl.ComputeFlagIndirect, IndirectAddress: cntVA, LocalSizeX: 64, LocalSizeY: 1, LocalSizeZ: 1, SharedBytes: 4 * local})
	r.run()
	for i := 0; i < n; i++ {
		got := binary.LittleEndian.Uint32(r.out[4*i:])
		if i >= 2*local {
			if got != 0 {
				t.Fatalf("indirect dispatch of 2 groups wrote out[%d]", i)
			}
			continue
		}
		if i%local == 0 && got != binary.LittleEndian.Uint32(r.in[4*i:]) {
			t.Fatalf("indirect: out[%d] = %d", i, got)
		}
	}
}

func TestComputeDispatchErrors(t *testing.T) {
	// A workgroup whose first batch stores to an unmapped page while the
	// other three wait at the barrier: the fault is reported on COMPUTE and
	// the engine moves on (no batch waits forever).
	const faultCS = `
		or r0, local_index, local_index
		li r1, 0x10
		sub.setf nop, r0, r1
		li r2, 0x4000
		or tmu_stdata, r0, r0
		or.ifns tmu_staddr, r2, r2
		nop ; nop ; barrier
		nop ; nop ; end
	`
	r := newComputeRun(t, faultCS, 64)
	r.add(cl.ComputeDispatch{NumGroupsX: 4, NumGroupsY: 1, NumGroupsZ: 1, LocalSizeX: 64, LocalSizeY: 1, LocalSizeZ: 1})
	done := make(chan struct{})
	go func() { r.run(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("a faulting workgroup left the COMPUTE engine hung")
	}
	g := r.k.g
	if g.ReadReg(RegIntrStatus)&IntrMMUFault == 0 {
		t.Fatal("no MMU fault")
	}
	if va, st := g.ReadReg(RegMMUFaultVA), g.ReadReg(RegMMUFaultStatus); va != 0x4000 || st != FaultStatusWrite|EngineCompute<<FaultStatusEngineShift {
		t.Errorf("fault VA %#x status %#x", va, st)
	}
	g.WriteReg(RegMMUFaultPop, 1)
	g.WriteReg(RegIntrAck, ^uint32(0))

	bad := []struct {
		name string
		d    cl.ComputeDispatch
	}{
		{"no invocations", cl.ComputeDispatch{NumGroupsX: 1, NumGroupsY: 1, NumGroupsZ: 1}},
		{"too many invocations", cl.ComputeDispatch{NumGroupsX: 1, NumGroupsY: 1, NumGroupsZ: 1, LocalSizeX: 32, LocalSizeY: 9, LocalSizeZ: 1}},
		{"too much shared memory", cl.ComputeDispatch{NumGroupsX: 1, NumGroupsY: 1, NumGroupsZ: 1, LocalSizeX: 1, LocalSizeY: 1, LocalSizeZ: 1, SharedBytes: MaxComputeSharedBytes + 4}},
		{"unknown flag", cl.ComputeDispatch{NumGroupsX: 1, NumGroupsY: 1, NumGroupsZ: 1, LocalSizeX: 1, LocalSizeY: 1, LocalSizeZ: 1, Flags: 2}},
		{"too many groups", cl.ComputeDispatch{NumGroupsX: MaxComputeGroups + 1, NumGroupsY: 1, NumGroupsZ: 1, LocalSizeX: 1, LocalSizeY: 1, LocalSizeZ: 1}},
	}
	for _, tt := range bad {
		r.add(tt.d)
		r.run()
		if g.ReadReg(RegIntrStatus)&IntrCLError == 0 {
			t.Errorf("%s: no CL error", tt.name)
		}
		if st := g.ReadReg(RegCLErrorStatus); st != CLErrorCauseList|EngineCompute<<CLErrorEngineShift {
			t.Errorf("%s: CL_ERROR_STATUS %#x", tt.name, st)
		}
		g.WriteReg(RegIntrAck, ^uint32(0))
	}
	// A list whose size is not whole descriptors.
	r.k.setContext(EngineCompute)
	r.k.submit(EngineCompute, PacketHeader(PktIndirectBuffer, 2), r.listVA, 20)
	r.k.idle(EngineCompute)
	if g.ReadReg(RegIntrStatus)&IntrCLError == 0 {
		t.Error("a 20-byte compute list: no CL error")
	}
}

// RESET stops a dispatch whose shader never ends.
func TestComputeDispatchReset(t *testing.T) {
	r := newComputeRun(t, "loop:\n\tbrr loop\n\tnop ; nop ; end\n", 16)
	r.add(cl.ComputeDispatch{NumGroupsX: 8, NumGroupsY: 1, NumGroupsZ: 1, LocalSizeX: 48, LocalSizeY: 1, LocalSizeZ: 1})
	k := r.k
	k.setContext(EngineCompute)
	k.submit(EngineCompute, PacketHeader(PktIndirectBuffer, 2), r.listVA, r.listUsed)
	deadline := time.Now().Add(10 * time.Second)
	for k.g.ReadReg(RegCSDStatus)&CSDStatusBusy == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the dispatch never started")
		}
		time.Sleep(time.Millisecond)
	}
	k.g.WriteReg(RegReset, 1<<EngineCompute)
	for k.g.ReadReg(RegCSDStatus)&CSDStatusBusy != 0 || k.g.ReadReg(RegCPStatus(EngineCompute))&CPStatusBusy != 0 {
		if time.Now().After(deadline) {
			t.Fatal("RESET did not stop the dispatch")
		}
		time.Sleep(time.Millisecond)
	}
}

// A new compute job whose uniforms sit at the VA of the last job's, in
// another physical page, reads the new page: the dispatch unit's cores
// drop the pages they retained when a job starts (found by the kernel's
// second compute job reading the first one's stale uniforms).
func TestComputeDispatchNewJobRemapsUniforms(t *testing.T) {
	const storeCS = `
		or r0, a.unif, a.unif
		or tmu_stdata, a.unif, a.unif
		or tmu_staddr, r0, r0
		nop ; nop ; end
	`
	k := newTestKernel(t, 1, 16<<20)
	code := k.boWith(asm(t, storeCS), false)
	outVA, out := k.bo(4096, true)
	unifVA, unif := k.bo(4096, false)
	copy(unif, le32(outVA, 111))
	listVA, list := k.bo(4096, false)
	cl.ComputeDispatch{NumGroupsX: 1, NumGroupsY: 1, NumGroupsZ: 1, LocalSizeX: 1, LocalSizeY: 1, LocalSizeZ: 1,
		CodeAddress: code, UniformsAddress: unifVA}.Pack(list)
	for _, v := range []uint32{111, 222} {
		if v == 222 {
			// The next job: the same VA, a new physical page.
			pa := k.allocPA(pageSize)
			copy(k.mem[pa:], le32(outVA, 222))
			k.mapPages(unifVA, pa, 1, false)
		}
		k.setContext(EngineCompute)
		k.submit(EngineCompute, PacketHeader(PktIndirectBuffer, 2), listVA, cl.SizeComputeDispatch)
		k.idle(EngineCompute)
		if got := binary.LittleEndian.Uint32(out); got != v {
			t.Fatalf("job storing %d stored %d", v, got)
		}
	}
}
