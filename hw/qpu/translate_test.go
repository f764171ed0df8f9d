package qpu

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand"
	"strconv"
	"testing"

	"github.com/tilegpu/tilegpu/hw/isa"
)

// diffMem sets up memory for a differential run of code: the code at
// codeVA, eight texture-descriptor addresses and then random words in the
// uniform stream, a valid 2×2 texture, random data at dataVA.
func diffMem(code []uint64, rng *rand.Rand) *flatMem {
	m := newFlatMem()
	for k, w := range code {
		m.put32(codeVA+uint32(8*k), uint32(w), uint32(w>>32))
	}
	m.put32(unifVA, texVA, texVA, texVA, texVA, texVA, texVA, texVA, texVA)
	for k := uint32(8); k < 256; k++ {
		m.put32(unifVA+4*k, randWord(rng))
	}
	m.put32(texVA, texVA+0x100, 2|2<<16, 1<<8|0x15<<16, 0, 0x688)
	for k := uint32(0); k < 16; k++ {
		m.put32(texVA+0x100+4*k, rng.Uint32())
	}
	for k := uint32(0); k < 256; k++ {
		m.put32(dataVA+4*k, randWord(rng))
	}
	return m
}

// randWord is a random word that is often a small float, an address in the
// data area, a small integer or a special value.
func randWord(rng *rand.Rand) uint32 {
	switch rng.Intn(6) {
	case 0:
		return math.Float32bits(float32(rng.NormFloat64() * 4))
	case 1:
		return dataVA + uint32(rng.Intn(256))*4
	case 2:
		return uint32(rng.Intn(64))
	case 3:
		return []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 1, 0xffffffff}[rng.Intn(7)]
	}
	return rng.Uint32()
}

func diffBatch(stage Stage, thread int, rng *rand.Rand) *Batch {
	b := newBatch(stage)
	b.Thread = thread
	b.QPUNumber = uint32(rng.Intn(8))
	if stage == StageCompute {
		// Compute inputs and a shared memory that random offsets
		// (small integers, often) can reach; some lanes beyond the
		// workgroup.
		ci := &b.Compute
		for l := 0; l < Lanes; l++ {
			for k := range ci.LocalID {
				ci.LocalID[k][l] = uint32(rng.Intn(16))
			}
			ci.LocalIndex[l] = uint32(l)
		}
		for k := range ci.Workgroup {
			ci.Workgroup[k], ci.NumGroups[k] = uint32(rng.Intn(4)), uint32(1+rng.Intn(4))
		}
		ci.Shared = make([]uint32, 64)
		for k := range ci.Shared {
			ci.Shared[k] = randWord(rng)
		}
		b.LaneMask = uint16(rng.Uint32()) | 1
	}
	for _, s := range [][]float32{b.VPMIn, b.Varyings, b.FragX[:], b.FragY[:], b.FragZ[:], b.FragW[:], b.PointS[:], b.PointT[:]} {
		for k := range s {
			s[k] = math.Float32frombits(randWord(rng))
		}
	}
	for l := range b.FrontFacing {
		b.FrontFacing[l] = uint32(rng.Intn(2))
	}
	return b
}

// checkDiff runs code (loaded at codeVA) both ways in every stage and
// thread and fails t on any difference in state, error or memory. It
// returns the first error the runs ended with.
func checkDiff(t *testing.T, code []uint64, seed int64, limit uint64) (first error) {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	m := diffMem(code, rng)
	if _, err := Load(m.fetch, codeVA); err != nil {
		return err // not a program: nothing to translate
	}
	for _, stage := range []Stage{StageFragment, StageVertex, StageCompute} {
		for thread := 0; thread < 2; thread++ {
			mi := &flatMem{base: m.base, data: bytes.Clone(m.data), roEnd: m.roEnd}
			mt := &flatMem{base: m.base, data: bytes.Clone(m.data), roEnd: m.roEnd}
			b := diffBatch(stage, thread, rng)
			// Fresh program per mode: the seed and the thread rotate
			// native code (best ISA), native SSE2 and no native code.
			mode := XlatMode((uint64(seed) + uint64(stage)*2 + uint64(thread)) % uint64(NumXlatModes))
			p, err := Load(m.fetch, codeVA)
			if err != nil {
				t.Fatal(err)
			}
			diff, err := DiffRunMode(p, pagedMem{mi}, pagedMem{mt}, CloneBatch(b), b, limit, mode)
			if first == nil {
				first = err
			}
			if diff != "" {
				var listing bytes.Buffer
				isa.DisasmProgram(&listing, p.Code(), p.Base())
				t.Fatalf("seed %d, stage %d, thread %d: translation and interpreter differ:\n%s\n%s",
					seed, stage, thread, diff, listing.String())
			}
			if !bytes.Equal(mi.data, mt.data) {
				t.Fatalf("seed %d, stage %d, thread %d: translation and interpreter leave different memory", seed, stage, thread)
			}
		}
	}
	return first
}

// TestTranslateRandomPrograms runs random valid programs (every op, mux,
// condition, signal and flag setting; branches and loops inside the
// program; TMU, SFU, VPM, TLB and uniform-address writes) both ways.
func TestTranslateRandomPrograms(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	for seed := int64(0); seed < int64(n); seed++ {
		rng := rand.New(rand.NewSource(seed))
		data := make([]byte, 8*(1+rng.Intn(64)))
		rng.Read(data)
		code := validCode(t, data)
		// An LDTMU without a request ends a run early: keep few of them.
		for k, w := range code {
			if in, err := isa.Decode(w); err == nil && in.Sig == isa.SigLDTMU && rng.Intn(4) != 0 {
				in.Sig = isa.SigNone
				code[k] = isa.Encode(in)
			}
		}
		// Mostly a small step limit, sometimes one a loop reaches.
		limit := uint64(5000)
		if seed%3 == 0 {
			limit = uint64(1 + rng.Intn(40))
		}
		checkDiff(t, code, seed, limit)
	}
}

// TestTranslateStepLimit: a translated loop stops at exactly the step
// limit, whatever the limit is relative to its blocks.
func TestTranslateStepLimit(t *testing.T) {
	code, err := isa.AssembleProgram(`
		li r0, 0
	loop:	add r0, r0, 1 ; nop
		add r1, r0, r0 ; nop
		brr loop
		nop ; nop ; end`, codeVA)
	if err != nil {
		t.Fatal(err)
	}
	for limit := uint64(1); limit < 20; limit++ {
		checkDiff(t, code, int64(limit), limit)
	}
}

// TestTranslationCache: identical code at the same address shares one
// translation; rewritten code is translated anew and runs as written.
func TestTranslationCache(t *testing.T) {
	var tc TranslationCache
	m := newFlatMem()
	m.put32(unifVA, f32(2))
	p1 := load(t, m, "nop ; mov r0, b.unif\nfadd tlb_r, r0, r0 ; nop ; end")
	tc.Translate(p1)
	p2, err := Load(m.fetch, codeVA)
	if err != nil {
		t.Fatal(err)
	}
	tc.Translate(p2)
	if got := tc.Stats(); got != (TranslationStats{Translated: 1, Hits: 1, Misses: 1, Uops: got.Uops, NativeRuns: got.NativeRuns}) || got.Uops == 0 ||
		(nativeSupported && got.NativeRuns != 1) || (!nativeSupported && got.NativeRuns != 0) {
		t.Fatalf("after two loads of one program: %+v, want 1 translated, 1 hit, 1 miss, one native run where native code exists", got)
	}
	if p1.xlat.Load() != p2.xlat.Load() {
		t.Fatal("identical code got two translations")
	}
	// A client rewrites the shader: fadd becomes fmul.
	p3 := load(t, m, "nop ; mov r0, b.unif\nnop ; fmul tlb_r, r0, r0 ; end")
	tc.Translate(p3)
	if got := tc.Stats(); got.Translated != 2 || got.Misses != 2 || got.Hits != 1 {
		t.Fatalf("after rewriting the code: %+v, want 2 translated, 2 misses, 1 hit", got)
	}
	for _, c := range []struct {
		p    *Program
		want float32
	}{{p1, 4}, {p2, 4}, {p3, 4}} {
		b := newBatch(StageFragment)
		if err := NewCore(m).Run(c.p, b); err != nil {
			t.Fatal(err)
		}
		if b.Color[0][0] != c.want {
			t.Fatalf("red = %v, want %v", b.Color[0][0], c.want)
		}
	}
	// 3 * 3 = 9 vs 3 + 3 = 6: the two translations really differ.
	m.put32(unifVA, f32(3))
	for _, c := range []struct {
		p    *Program
		want float32
	}{{p1, 6}, {p3, 9}} {
		b := newBatch(StageFragment)
		if err := NewCore(m).Run(c.p, b); err != nil {
			t.Fatal(err)
		}
		if b.Color[0][0] != c.want {
			t.Fatalf("red = %v, want %v", b.Color[0][0], c.want)
		}
	}
}

// TestTranslationCacheBounded: a client loading ever new programs cannot
// grow the cache beyond MaxTranslations.
func TestTranslationCacheBounded(t *testing.T) {
	var tc TranslationCache
	m := newFlatMem()
	for k := 0; k < MaxTranslations+10; k++ {
		code, err := isa.AssembleProgram("li r0, "+strconv.Itoa(k)+"\nnop ; nop ; end", codeVA)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range code {
			m.put32(codeVA+uint32(8*i), uint32(w), uint32(w>>32))
		}
		p, err := Load(m.fetch, codeVA)
		if err != nil {
			t.Fatal(err)
		}
		tc.Translate(p)
		if len(tc.m) > MaxTranslations {
			t.Fatalf("cache holds %d translations, bound %d", len(tc.m), MaxTranslations)
		}
	}
	if got := tc.Stats().Translated; got != MaxTranslations+10 {
		t.Fatalf("%d programs translated, want %d", got, MaxTranslations+10)
	}
}

// FuzzTranslate runs arbitrary words (data[0] odd) or valid programs built
// from the input (data[0] even) with the interpreter and the translation
// and requires identical state, errors and memory; neither may panic.
func FuzzTranslate(f *testing.F) {
	for _, src := range []string{
		aluProgram(),
		"loop: sub.setf r0, r0, 1 ; nop\nbrr.anyzc loop\nnop ; nop ; end",
		"li tmu_addr, 0x16000\nnop ; nop ; ldtmu\nnop ; mov vpm, r4\nnop ; nop ; end",
		"nop ; mov sfu_recip, r0\nnop ; nop\nfadd r1, r4, r4 ; nop ; thrsw\nnop ; mov tlb_z, r1 ; end",
	} {
		code, err := isa.AssembleProgram(src, codeVA)
		if err != nil {
			f.Fatal(err)
		}
		buf := []byte{1}
		for _, w := range code {
			buf = binary.LittleEndian.AppendUint64(buf, w)
		}
		f.Add(buf)
	}
	f.Add(append([]byte{0}, make([]byte, 64)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 9 || len(data) > 1+8*256 {
			return
		}
		var code []uint64
		if data[0]&1 != 0 {
			for k := 1; k+8 <= len(data); k += 8 {
				code = append(code, binary.LittleEndian.Uint64(data[k:]))
			}
		} else if code = validCode(t, data[1:]); code == nil {
			return
		}
		checkDiff(t, code, int64(data[0]), 3000)
	})
}

// TestTranslateEdgeCases: programs aimed at the translator's block and
// pipeline decisions, run both ways.
func TestTranslateEdgeCases(t *testing.T) {
	for name, src := range map[string]string{
		// A linking branch and a return through a register: the return
		// lands after the call, a block start.
		"call and return": `
			b ra1, nop, sub
			nop ; mov tlb_r, r0 ; end
		sub:	li r0, 1.5
			b ra1+0`,
		// A register branch into the middle of a block: single steps
		// until the next block start.
		"branch into a block": `
			li ra2, 0x10018
			b rb1, nop, ra2+0
			li r0, 1.0
			fadd r0, r0, r0 ; nop
			fadd r1, r0, r0 ; nop
			nop ; mov tlb_g, r1 ; end`,
		// The branch's link written to the SFU: r4 arrives two
		// instructions later, in the next block.
		"link to the SFU": `
			li r0, 4.0
			b sfu_recipsqrt, nop, next
		next:	nop ; mov ra0, r4
			nop ; mov rb1, r4
			nop ; mov ra2, r4
			fadd tlb_r, ra2, rb1 ; nop ; end`,
		// An SFU write as the last instruction before a branch target.
		"SFU across a block boundary": `
			li r2, 3
			li r0, 2.0
			nop ; mov sfu_exp2, r0
		tgt:	fadd ra0, r4, r4 ; nop
			fadd ra1, r4, r4 ; nop
			sub.setf r2, r2, 1 ; nop
			brr.anyzc tgt
			nop ; mov tlb_b, ra1 ; end`,
		// LDTMU and THRSW while the SFU is busy, and flags from a mov.
		"SFU then LDTMU and THRSW": `
			li tmu_addr, 0x16000
			nop ; mov sfu_log2, r0
			nop ; nop ; ldtmu
			or.setf ra0, r4, r4 ; nop ; thrsw
			nop ; mov sfu_recip, ra0
			nop ; nop ; lthrsw
			fadd.ifzc tlb_a, r4, ra0 ; nop ; end`,
		// Moves of side-effect reads straight into their destination,
		// with the other unit reading the same operand.
		"fused reads": `
			or r0, a.unif, a.unif ; fmul r1, a.unif, r2
			or ra3, a.vary, a.vary ; nop
			or rb3, b.vary, b.vary ; mov r2, b.vary
			or.ifz tlb_r, a.unif, a.unif ; nop
			fadd tlb_g, r0, ra3 ; fmul tlb_b, r1, rb3
			nop ; mov tlb_a, r2 ; end`,
	} {
		t.Run(name, func(t *testing.T) {
			code, err := isa.AssembleProgram(src, codeVA)
			if err != nil {
				t.Fatal(err)
			}
			for seed := int64(0); seed < 20; seed++ {
				if err := checkDiff(t, code, seed, 5000); err != nil {
					t.Fatalf("seed %d: %v", seed, err) // each runs to END
				}
			}
		})
	}
}
