package qpu

import (
	"errors"
	"strings"
	"sync"
	"testing"
)

// reverseSrc reverses each 32-invocation workgroup's slice of an array
// through shared memory (store, barrier, load the mirrored word) and
// atomically counts its invocations in memory and in shared word 32.
// Uniforms: input VA, output VA, counter VA.
const reverseSrc = `
	or ra0, a.unif, a.unif
	or ra1, a.unif, a.unif
	or ra2, a.unif, a.unif
	or r1, local_index, local_index
	shl r0, r1, 2
	or r2, wg_id_x, wg_id_x
	shl r2, r2, 7
	add r2, r2, r0
	add r3, ra0, r2
	or tmu_addr, r3, r3
	nop ; nop ; ldtmu
	or tmu_stdata, r4, r4
	or shared_st, r0, r0
	nop ; nop ; barrier
	li r3, 0x7c
	sub r3, r3, r0
	or shared_ld, r3, r3
	nop ; nop ; ldtmu
	or tmu_stdata, r4, r4
	add r3, ra1, r2
	or tmu_staddr, r3, r3
	li tmu_stdata, 0x1
	or tmu_r, a.unif, a.unif
	or tmu_atomic, ra2, ra2
	li r3, 0x80
	or tmu_r, a.unif, a.unif
	or shared_atomic, r3, r3
	nop ; nop ; ldtmu
	nop ; nop ; ldtmu
	nop ; nop ; end
`

// runWorkgroup runs the batches of one workgroup of n invocations (1-D)
// concurrently, each on its own core, as the dispatch unit does.
func runWorkgroup(t *testing.T, m Mem, p *Program, wg, groups uint32, n int, interpreted bool) error {
	t.Helper()
	nb := (n + Lanes - 1) / Lanes
	shared := make([]uint32, 64)
	var bar WorkgroupBarrier
	bar.Reset(nb)
	errs := make([]error, nb)
	var wgDone sync.WaitGroup
	for k := 0; k < nb; k++ {
		b := &Batch{Stage: StageCompute, UniformsVA: unifVA}
		for l := 0; l < Lanes; l++ {
			i := uint32(k*Lanes + l)
			if int(i) < n {
				b.LaneMask |= 1 << l
			}
			b.Compute.LocalID[0][l] = i
			b.Compute.LocalIndex[l] = i
		}
		b.Compute.Workgroup = [3]uint32{wg, 0, 0}
		b.Compute.NumGroups = [3]uint32{groups, 1, 1}
		b.Compute.Shared = shared
		if nb > 1 {
			b.Compute.Barrier = bar.Wait
		}
		c := NewCore(m)
		c.Interpreted = interpreted
		wgDone.Add(1)
		go func() {
			defer wgDone.Done()
			errs[k] = c.Run(p, b)
			bar.Leave(errs[k])
		}()
	}
	wgDone.Wait()
	if shared[32] != uint32(n) {
		t.Errorf("workgroup %d: shared atomic count %d, want %d", wg, shared[32], n)
	}
	return errors.Join(errs...)
}

func TestComputeWorkgroupSharedBarrierAtomics(t *testing.T) {
	const inVA, outVA, ctrVA = dataVA, dataVA + 0x400, dataVA + 0x800
	for _, interpreted := range []bool{true, false} {
		for _, n := range []int{32, 28, 17, 16, 5} {
			fm := newFlatMem()
			m := pagedMem{fm}
			p := load(t, fm, reverseSrc)
			if !interpreted {
				var tc TranslationCache
				tc.Translate(p)
			}
			fm.put32(unifVA, inVA, outVA, ctrVA, AtomicAdd, AtomicAdd)
			const groups = 2
			for i := uint32(0); i < 64; i++ {
				fm.put32(inVA+4*i, 1000+i)
				fm.put32(outVA+4*i, 0xdead)
			}
			for wg := uint32(0); wg < groups; wg++ {
				if err := runWorkgroup(t, m, p, wg, groups, n, interpreted); err != nil {
					t.Fatalf("n=%d: %v", n, err)
				}
			}
			for wg := uint32(0); wg < groups; wg++ {
				for i := uint32(0); i < 32; i++ {
					// The CPU reference: lane i reads shared word 31-i, which
					// invocation 31-i wrote if it exists (else it is 0).
					want := uint32(0xdead)
					if int(i) < n {
						want = 0
						if int(31-i) < n {
							want = 1000 + wg*32 + 31 - i
						}
					}
					if got := fm.get32(outVA + 4*(wg*32+i)); got != want {
						t.Errorf("interpreted=%v n=%d: out[%d] = %d, want %d", interpreted, n, wg*32+i, got, want)
					}
				}
			}
			if got := fm.get32(ctrVA); got != uint32(groups*n) {
				t.Errorf("interpreted=%v n=%d: atomic counter %d, want %d", interpreted, n, got, groups*n)
			}
		}
	}
}

func TestComputeReadsAndErrors(t *testing.T) {
	m := newFlatMem()
	b := newBatch(StageCompute)
	b.Compute.Workgroup = [3]uint32{7, 8, 9}
	b.Compute.NumGroups = [3]uint32{10, 11, 12}
	for l := 0; l < Lanes; l++ {
		b.Compute.LocalID[0][l] = uint32(l)
		b.Compute.LocalID[1][l] = uint32(2 * l)
		b.Compute.LocalID[2][l] = uint32(3 * l)
		b.Compute.LocalIndex[l] = uint32(100 + l)
	}
	mustRun(t, m, `
		or ra0, local_id_x, local_id_x
		or rb0, local_id_y, local_id_y ; mov ra1, local_id_y
		or ra2, local_id_z, local_id_z
		or rb1, local_index, local_index
		or ra3, wg_id_x, wg_id_x
		or rb2, wg_id_y, wg_id_y
		or ra4, wg_id_z, wg_id_z
		or rb3, num_wg_x, num_wg_x
		or ra5, num_wg_y, num_wg_y
		or rb4, num_wg_z, num_wg_z
		or vpm, ra0, ra0
		or vpm, ra1, ra1
		or vpm, ra2, ra2
		or vpm, rb1, rb1
		or vpm, ra3, ra3
		or vpm, rb2, rb2
		or vpm, ra4, ra4
		or vpm, rb3, rb3
		or vpm, ra5, ra5
		or vpm, rb4, rb4
		nop ; nop ; barrier
		nop ; nop ; end
	`, b)
	for l := 0; l < Lanes; l++ {
		want := []uint32{uint32(l), uint32(2 * l), uint32(3 * l), uint32(100 + l), 7, 8, 9, 10, 11, 12}
		for w, v := range want {
			if got := out(b, w)[l]; got != v {
				t.Errorf("lane %d word %d = %d, want %d", l, w, got, v)
			}
		}
	}
	if b.Compute.Barriers != 1 {
		t.Errorf("Barriers = %d, want 1", b.Compute.Barriers)
	}

	tests := []struct {
		name, src string
		stage     Stage
		want      string
	}{
		{"barrier in a fragment shader", "nop ; nop ; barrier\nnop ; nop ; end", StageFragment, "BARRIER in a non-compute shader"},
		{"shared store in a vertex shader", "or shared_st, r0, r0\nnop ; nop ; end", StageVertex, "non-compute"},
		{"shared load beyond the workgroup's memory", "li r0, 0x100\nor shared_ld, r0, r0\nnop ; nop ; ldtmu\nnop ; nop ; end", StageCompute, "byte offset 0x100, but the workgroup has 64 bytes"},
		{"atomic left in the FIFO", "li tmu_stdata, 0x1\nli r0, 0x16000\nor tmu_atomic, r0, r0\nnop ; nop ; end", StageCompute, "TMU results not popped"},
	}
	for _, tt := range tests {
		m := newFlatMem()
		b := newBatch(tt.stage)
		b.Compute.Shared = make([]uint32, 16)
		err := runProgram(t, m, tt.src, b)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

// A batch whose sibling fails releases the barrier with an error instead
// of waiting forever.
func TestWorkgroupBarrierFailure(t *testing.T) {
	var bar WorkgroupBarrier
	bar.Reset(3)
	done := make(chan error, 2)
	for range 2 {
		go func() { done <- bar.Wait() }()
	}
	bar.Leave(errors.New("page fault"))
	for range 2 {
		if err := <-done; !errors.Is(err, ErrWorkgroupFailed) {
			t.Errorf("Wait = %v, want ErrWorkgroupFailed", err)
		}
	}
	// An ended batch stops counting: the other two pass.
	bar.Reset(3)
	for range 2 {
		go func() { done <- bar.Wait() }()
	}
	bar.Leave(nil)
	for range 2 {
		if err := <-done; err != nil {
			t.Errorf("Wait after a batch ended = %v", err)
		}
	}
}

// Every atomic operation on memory and on shared memory: the lanes apply
// theirs in lane order within the instruction, so the word's final value
// and each lane's old value follow from folding the lanes' data.
func TestComputeAtomics(t *testing.T) {
	const word = dataVA + 0x100
	src := func(port string) string {
		addr := "0x16100"
		if port == "shared_atomic" {
			addr = "0x100"
		}
		return `
		li r0, ` + addr + `
		sub tmu_stdata, elem_num, 8
		li tmu_t, 0x64
		or tmu_r, a.unif, a.unif
		or ` + port + `, r0, r0
		nop ; nop ; ldtmu
		or vpm, r4, r4
		nop ; nop ; end`
	}
	data := func(l int) uint32 { return uint32(int32(l - 8)) }
	tests := []struct {
		op   uint32
		name string
		fold func(old, d uint32) uint32
	}{
		{AtomicAdd, "add", func(o, d uint32) uint32 { return o + d }},
		{AtomicMin, "min", func(o, d uint32) uint32 {
			if int32(d) < int32(o) {
				return d
			}
			return o
		}},
		{AtomicMax, "max", func(o, d uint32) uint32 {
			if int32(d) > int32(o) {
				return d
			}
			return o
		}},
		{AtomicUMin, "umin", func(o, d uint32) uint32 {
			if d < o {
				return d
			}
			return o
		}},
		{AtomicUMax, "umax", func(o, d uint32) uint32 {
			if d > o {
				return d
			}
			return o
		}},
		{AtomicAnd, "and", func(o, d uint32) uint32 { return o & d }},
		{AtomicOr, "or", func(o, d uint32) uint32 { return o | d }},
		{AtomicXor, "xor", func(o, d uint32) uint32 { return o ^ d }},
		{AtomicExchange, "exchange", func(o, d uint32) uint32 { return d }},
		{AtomicCompSwap, "comp_swap 100", func(o, d uint32) uint32 {
			if o == 100 {
				return d
			}
			return o
		}},
	}
	for _, port := range []string{"tmu_atomic", "shared_atomic"} {
		for _, tt := range tests {
			m := newFlatMem()
			m.put32(unifVA, tt.op)
			m.put32(word, 100)
			b := newBatch(StageCompute)
			b.Compute.Shared = make([]uint32, 0x41)
			b.Compute.Shared[0x40] = 100
			mustRun(t, m, src(port), b)
			v := uint32(100)
			for l := 0; l < Lanes; l++ {
				if got := out(b, 0)[l]; got != v {
					t.Errorf("%s %s: lane %d old value %d, want %d", port, tt.name, l, int32(got), int32(v))
				}
				v = tt.fold(v, data(l))
			}
			final := m.get32(word)
			if port == "shared_atomic" {
				final = b.Compute.Shared[0x40]
			}
			if final != v {
				t.Errorf("%s %s: final word %d, want %d", port, tt.name, int32(final), int32(v))
			}
		}
	}
	m := newFlatMem()
	m.put32(unifVA, NumAtomicOps)
	b := newBatch(StageCompute)
	if err := runProgram(t, m, src("tmu_atomic"), b); err == nil || !strings.Contains(err.Error(), "atomic operation 10 (TMU_R lane 0)") {
		t.Errorf("undefined atomic operation: %v", err)
	}
}
