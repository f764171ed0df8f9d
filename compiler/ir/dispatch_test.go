package ir

import (
	"errors"
	"strings"
	"testing"
)

// computeFunc returns an empty compute Func with the given local size and
// shared bytes, reading one buffer at binding 0.
func computeFunc(x, y, z, shared int) (*Func, *Builder) {
	f := NewFunc("main", Compute)
	f.Compute = &ComputeInfo{LocalSize: [3]int{x, y, z}, SharedSize: shared,
		Buffers: []BufferBinding{{Binding: 0, Name: "B", Stride: 4}}}
	return f, NewBuilder(f)
}

// globalIndex emits gl_WorkGroupID.x * local_size_x + gl_LocalInvocationID.x.
func globalIndex(b *Builder, lx int) *Instr {
	wg := b.EmitIndex(OpWorkGroupID, Int, 0)
	lid := b.EmitIndex(OpLocalInvocationID, Int, 0)
	return b.Emit(OpIAdd, Int, b.Emit(OpIMul, Int, wg, b.ConstI(int32(lx))), lid)
}

func wordOffset(b *Builder, i *Instr) *Instr { return b.Emit(OpIShl, Int, i, b.ConstI(2)) }

// TestDispatchSharedReduction: each work group of n invocations copies its
// n words into shared memory, then in log2(n) barrier-separated steps adds
// pairs (a tree reduction written straight-line, as after unrolling), and
// invocation 0 writes the group's sum over its first word. Every step reads
// what other waves stored before the barrier, so a wave size smaller than
// n checks that barriers order the waves.
func TestDispatchSharedReduction(t *testing.T) {
	for _, n := range []int{1, 2, 16, 32, 64, 128} {
		for _, lanes := range []int{1, 4, 16, 64} {
			f, b := computeFunc(n, 1, 1, 4*n)
			lid := b.EmitIndex(OpLocalInvocationID, Int, 0)
			gi := globalIndex(b, n)
			v := b.EmitIndex(OpLoadBuffer, Int, 0, wordOffset(b, gi))
			b.Emit(OpStoreShared, Void, wordOffset(b, lid), v)
			b.Emit(OpBarrier, Void)
			for s := n / 2; s >= 1; s /= 2 {
				in := b.If(b.Emit(OpILt, Bool, lid, b.ConstI(int32(s))))
				old := b.SetList(&in.Then)
				a := b.Emit(OpLoadShared, Int, wordOffset(b, lid))
				c := b.Emit(OpLoadShared, Int, wordOffset(b, b.Emit(OpIAdd, Int, lid, b.ConstI(int32(s)))))
				b.Emit(OpStoreShared, Void, wordOffset(b, lid), b.Emit(OpIAdd, Int, a, c))
				b.SetList(old)
				b.Emit(OpBarrier, Void)
			}
			in := b.If(b.Emit(OpIEq, Bool, lid, b.ConstI(0)))
			old := b.SetList(&in.Then)
			b.Emit(OpStoreBuffer, Void, wordOffset(b, gi), b.Emit(OpLoadShared, Int, b.ConstI(0)))
			b.SetList(old)
			if err := Verify(f, FormAny); err != nil {
				t.Fatal(err)
			}
			const groups = 3
			buf := make([]uint32, groups*n)
			want := make([]uint32, groups)
			for i := range buf {
				buf[i] = uint32(i*7 + 1)
				want[i/n] += buf[i]
			}
			err := Dispatch(f, &DispatchEnv{NumWorkGroups: [3]int{groups, 1, 1}, Buffers: map[int][]uint32{0: buf}, WaveLanes: lanes, DetectRaces: true})
			if err != nil {
				t.Fatalf("n=%d lanes=%d: %v", n, lanes, err)
			}
			for g := range groups {
				if buf[g*n] != want[g] {
					t.Errorf("n=%d lanes=%d: group %d sum %d, want %d", n, lanes, g, buf[g*n], want[g])
				}
			}
		}
	}
}

// TestDispatchIDs writes every invocation's IDs and checks them against
// the numbering Dispatch documents, over a 3-D local size and 3-D grid.
func TestDispatchIDs(t *testing.T) {
	lx, ly, lz := 3, 2, 5
	gx, gy, gz := 2, 3, 2
	f, b := computeFunc(lx, ly, lz, 0)
	// slot = ((((wz*gy+wy)*gx+wx)*lz+z)*ly+y)*lx+x; 8 words each.
	idx := b.EmitIndex(OpWorkGroupID, Int, 2)
	for _, s := range []struct {
		op  Op
		c   int
		mul int
	}{{OpWorkGroupID, 1, gy}, {OpWorkGroupID, 0, gx}, {OpLocalInvocationID, 2, lz}, {OpLocalInvocationID, 1, ly}, {OpLocalInvocationID, 0, lx}} {
		idx = b.Emit(OpIAdd, Int, b.Emit(OpIMul, Int, idx, b.ConstI(int32(s.mul))), b.EmitIndex(s.op, Int, s.c))
	}
	base := b.Emit(OpIMul, Int, idx, b.ConstI(32))
	k := 0
	for _, op := range []Op{OpLocalInvocationID, OpWorkGroupID} {
		for c := 0; c < 3; c++ {
			b.EmitIndex(OpStoreBuffer, Void, 0, b.Emit(OpIAdd, Int, base, b.ConstI(int32(4*k))), b.EmitIndex(op, Int, c))
			k++
		}
	}
	b.EmitIndex(OpStoreBuffer, Void, 0, b.Emit(OpIAdd, Int, base, b.ConstI(24)), b.EmitIndex(OpNumWorkGroups, Int, 1))
	b.EmitIndex(OpStoreBuffer, Void, 0, b.Emit(OpIAdd, Int, base, b.ConstI(28)), b.EmitIndex(OpBufferSize, Int, 0))
	total := lx * ly * lz * gx * gy * gz
	buf := make([]uint32, 8*total)
	if err := Dispatch(f, &DispatchEnv{NumWorkGroups: [3]int{gx, gy, gz}, Buffers: map[int][]uint32{0: buf}, WaveLanes: 4}); err != nil {
		t.Fatal(err)
	}
	i := 0
	for wz := range gz {
		for wy := range gy {
			for wx := range gx {
				for z := range lz {
					for y := range ly {
						for x := range lx {
							want := []uint32{uint32(x), uint32(y), uint32(z), uint32(wx), uint32(wy), uint32(wz), uint32(gy), uint32(4 * len(buf))}
							for j, w := range want {
								if buf[8*i+j] != w {
									t.Fatalf("invocation %d word %d = %d, want %d", i, j, buf[8*i+j], w)
								}
							}
							i++
						}
					}
				}
			}
		}
	}
}

// TestDispatchAtomics: every invocation of 4 groups of 40 adds its index to
// one counter, takes the max and min, and records the order it got from
// an atomic counter (a permutation of 0..159).
func TestDispatchAtomics(t *testing.T) {
	f, b := computeFunc(40, 1, 1, 4)
	gi := globalIndex(b, 40)
	atomic := func(op AtomicOp, off int32, args ...*Instr) *Instr {
		in := f.NewInstr(OpAtomicBuffer, Int, append([]*Instr{b.ConstI(off)}, args...)...)
		in.Atomic = op
		return b.Add(in)
	}
	atomic(AtomicAdd, 0, gi)
	atomic(AtomicMax, 4, gi)
	atomic(AtomicUMin, 8, gi)
	ticket := atomic(AtomicAdd, 12, b.ConstI(1))
	b.EmitIndex(OpStoreBuffer, Void, 0, b.Emit(OpIAdd, Int, wordOffset(b, ticket), b.ConstI(16)), gi)
	// comp_swap: only the invocation that sees 0 at word 5... sets 1+gi.
	cs := f.NewInstr(OpAtomicShared, Int, b.ConstI(0), b.ConstI(0), b.Emit(OpIAdd, Int, gi, b.ConstI(1)))
	cs.Atomic = AtomicCompSwap
	b.Add(cs)
	b.Emit(OpBarrier, Void)
	lid := b.EmitIndex(OpLocalInvocationID, Int, 0)
	in := b.If(b.Emit(OpIEq, Bool, lid, b.ConstI(0)))
	old := b.SetList(&in.Then)
	winner := b.Emit(OpLoadShared, Int, b.ConstI(0))
	b.EmitIndex(OpStoreBuffer, Void, 0, b.Emit(OpIAdd, Int, wordOffset(b, b.EmitIndex(OpWorkGroupID, Int, 0)), b.ConstI(4*(4+160))), winner)
	b.SetList(old)
	if err := Verify(f, FormAny); err != nil {
		t.Fatal(err)
	}
	buf := make([]uint32, 4+160+4)
	buf[2] = ^uint32(0)
	if err := Dispatch(f, &DispatchEnv{NumWorkGroups: [3]int{4, 1, 1}, Buffers: map[int][]uint32{0: buf}}); err != nil {
		t.Fatal(err)
	}
	if buf[0] != 159*160/2 || buf[1] != 159 || buf[2] != 0 || buf[3] != 160 {
		t.Errorf("counters %v, want [12720 159 0 160]", buf[:4])
	}
	seen := map[uint32]bool{}
	for _, v := range buf[4 : 4+160] {
		seen[v] = true
	}
	if len(seen) != 160 {
		t.Errorf("tickets give %d distinct invocations, want 160", len(seen))
	}
	for g := range 4 {
		// Exactly one invocation of the group swapped 0 for its 1+gi.
		if w := buf[4+160+g]; w < uint32(40*g+1) || w > uint32(40*g+40) {
			t.Errorf("group %d: comp_swap winner %d, not one of the group's", g, w)
		}
	}
}

// TestDispatchErrors: bad programs and requests end with errors naming the
// problem, never a hang.
func TestDispatchErrors(t *testing.T) {
	tests := []struct {
		name  string
		build func(f *Func, b *Builder)
		env   DispatchEnv
		want  string
	}{
		{"store past the end", func(f *Func, b *Builder) {
			b.EmitIndex(OpStoreBuffer, Void, 0, b.ConstI(64), b.ConstI(1))
		}, DispatchEnv{}, "byte offset 64 outside the buffer at binding 0 (64 bytes)"},
		{"negative offset", func(f *Func, b *Builder) {
			b.EmitIndex(OpLoadBuffer, Int, 0, b.ConstI(-4))
		}, DispatchEnv{}, "byte offset -4 outside"},
		{"unaligned offset", func(f *Func, b *Builder) {
			b.EmitIndex(OpLoadShared, Int, 0, b.ConstI(2))
		}, DispatchEnv{}, "byte offset 2 outside shared memory"},
		{"unbound binding", func(f *Func, b *Builder) {
			b.EmitIndex(OpLoadBuffer, Int, 3, b.ConstI(0))
		}, DispatchEnv{}, "no buffer bound at binding 3"},
		{"divergent barrier", func(f *Func, b *Builder) {
			in := b.If(b.Emit(OpILt, Bool, b.EmitIndex(OpLocalInvocationID, Int, 0), b.ConstI(3)))
			old := b.SetList(&in.Then)
			b.Emit(OpBarrier, Void)
			b.SetList(old)
		}, DispatchEnv{}, "reached by only some invocations"},
		{"barrier skipped by a wave", func(f *Func, b *Builder) {
			in := b.If(b.Emit(OpILt, Bool, b.EmitIndex(OpLocalInvocationID, Int, 0), b.ConstI(16)))
			old := b.SetList(&in.Then)
			b.Emit(OpBarrier, Void)
			b.SetList(old)
		}, DispatchEnv{}, "some invocations finished while others wait"},
		{"endless loop", func(f *Func, b *Builder) {
			lp := &Loop{}
			b.SetList(&[]Node{})
			*b.list = append(*b.list, lp)
			old := b.SetList(&lp.Body)
			lp.Cond = b.ConstB(true)
			b.SetList(old)
			f.Body = append(f.Body, lp)
		}, DispatchEnv{MaxSteps: 1000, MaxIterations: 1 << 30}, "more than 1000 loop iterations"},
		{"too many groups", func(f *Func, b *Builder) {}, DispatchEnv{NumWorkGroups: [3]int{65536, 1, 1}}, "65536 work groups in x"},
		{"buffer too small", func(f *Func, b *Builder) { f.Compute.Buffers[0].FixedSize = 128 }, DispatchEnv{}, "has 64 bytes, the block needs at least 128"},
	}
	for _, tc := range tests {
		f, b := computeFunc(32, 1, 1, 16)
		tc.build(f, b)
		env := tc.env
		if env.NumWorkGroups == [3]int{} {
			env.NumWorkGroups = [3]int{2, 1, 1}
		}
		env.Buffers = map[int][]uint32{0: make([]uint32, 16)}
		err := Dispatch(f, &env)
		if err == nil || !errors.Is(err, ErrDispatch) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an ErrDispatch containing %q", tc.name, err, tc.want)
		}
	}
	// Compute ops outside Dispatch are an error of Interpret.
	f, b := computeFunc(1, 1, 1, 0)
	b.EmitIndex(OpLocalInvocationID, Int, 0)
	if _, err := Interpret(f, &Env{Lanes: 1}); err == nil || !strings.Contains(err.Error(), "outside a compute dispatch") {
		t.Errorf("Interpret of a compute op: %v", err)
	}
	// Verify rejects compute ops in a fragment shader and bad atomics.
	g := NewFunc("main", Fragment)
	gb := NewBuilder(g)
	gb.EmitIndex(OpLoadShared, Int, 0, gb.ConstI(0))
	a := g.NewInstr(OpAtomicShared, Int, gb.ConstI(0), gb.ConstI(1))
	a.Atomic = AtomicCompSwap
	gb.Add(a)
	err := Verify(g, FormAny)
	if err == nil || !strings.Contains(err.Error(), "compute operation in a fragment shader") || !strings.Contains(err.Error(), "needs 3 args") {
		t.Errorf("Verify: %v", err)
	}
}
