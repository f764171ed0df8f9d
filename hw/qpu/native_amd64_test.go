//go:build amd64 && !purego

package qpu

import (
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/cpu"
)

// isas lists the code generators this CPU can run.
func isas() []bool {
	if cpu.X86.HasAVX2 {
		return []bool{false, true}
	}
	return []bool{false}
}

func isaName(avx2 bool) string {
	if avx2 {
		return "AVX2"
	}
	return "SSE2"
}

// TestNativeKernels: every op of the native code generators, in runs of
// several uops that reuse, alias and overwrite operands, gives bit for bit
// what the kernels the interpreter uses give (specials, NaN payloads,
// denormals, random words).
func TestNativeKernels(t *testing.T) {
	specials := []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7fc0dead, 0xffc01234,
		0x7f800001, 0xff812345, 1, 0x80000001, 0x007fffff, 0x3f800000, 0xbf800000, 0x7f7fffff, 0xffffffff,
		0x4f000000, 0xcf000000, 0x7fffffff}
	rng := rand.New(rand.NewSource(7))
	word := func() uint32 {
		switch rng.Intn(3) {
		case 0:
			return specials[rng.Intn(len(specials))]
		case 1:
			return math.Float32bits(float32(rng.NormFloat64() * 1e3))
		}
		return rng.Uint32()
	}
	const slots = nativeSlots
	for _, avx2 := range isas() {
		t.Run(isaName(avx2), func(t *testing.T) {
			old := nativeAVX2
			nativeAVX2 = avx2
			defer func() { nativeAVX2 = old }()
			for iter := 0; iter < 300; iter++ {
				// A random run of 1..40 uops over the slots.
				n := 1 + rng.Intn(40)
				us := make([]uop, n)
				for k := range us {
					op := uint8(1 + rng.Intn(len(natKernels)-1))
					for natKernels[op] == nil || natOp(natKernels[op], avx2) == natNone {
						op = uint8(1 + rng.Intn(len(natKernels)-1))
					}
					us[k] = uop{kind: uKernel, fn: natKernels[op], a: uint8(rng.Intn(slots)),
						b: uint8(rng.Intn(slots)), r: uint8(rng.Intn(slots)), pc: int32(k)}
				}
				var init [nativeSlots][Lanes]uint32
				for s := range init {
					for l := range init[s] {
						init[s][l] = word()
					}
				}
				checkNativeRun(t, us, &init)
			}
		})
	}
}

// nativeSlots: the table entries 0..11 are a test run's arrays.
const nativeSlots = 12

// checkNativeRun compiles us (kernel uops over the slots, every op one
// the current generator covers) and requires the native code to leave
// the slots, starting from init, exactly as the Go kernels do.
func checkNativeRun(t *testing.T, us []uop, init *[nativeSlots][Lanes]uint32) {
	t.Helper()
	x := &translation{uops: us, blocks: []xblock{{u0: 0, u1: int32(len(us))}}}
	nc := compileNative(x)
	// Beyond maxNativeBytes compileNative makes no code; a fuzzer makes
	// garbage translations faster than GC runs their cleanups.
	for try := 0; nc == nil && try < 100; try++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		nc = compileNative(x)
	}
	if nc == nil {
		t.Fatalf("compileNative produced no code (%d bytes mapped)", nativeMapped.Load())
	}
	if err := verifyNative(nc); err != nil {
		t.Fatal(err)
	}
	want, got := *init, *init
	var tw, tg xtab
	for s := range nativeSlots {
		tw[s], tg[s] = &want[s], &got[s]
	}
	for k := range us {
		us[k].fn(tw[us[k].a], tw[us[k].b], tw[us[k].r])
	}
	ran := 0
	for k := range us {
		if us[k].nat != 0 {
			r := nc.runs[us[k].imm]
			callNative(nc.base+uintptr(r.off), &tg)
			ran += int(r.n)
		}
	}
	runtime.KeepAlive(x)
	if ran != len(us) {
		t.Fatalf("native runs cover %d of %d uops", ran, len(us))
	}
	for s := range nativeSlots {
		if got[s] != want[s] {
			t.Fatalf("slot %d: native %x, kernels %x (run %+v)", s, got[s], want[s], us)
		}
	}
}

// FuzzNative: runs of kernel uops built from the input (op, operands and
// result slots, lane data), compiled by the AVX2 (where the CPU has it)
// and the SSE2 generators, against the Go kernels.
func FuzzNative(f *testing.F) {
	f.Add([]byte{1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, []byte{0, 0, 0x80, 0x7f, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{14, 1, 2, 3, 15, 3, 4, 5, 16, 0, 0, 0}, []byte{0, 0, 0, 0x4f, 1, 0, 0xc0, 0x7f})
	f.Fuzz(func(t *testing.T, prog, data []byte) {
		if len(prog) < 4 || len(prog) > 4*64 || len(data) == 0 {
			return
		}
		var init [nativeSlots][Lanes]uint32
		for s := range init {
			for l := range init[s] {
				k := 4 * (s*Lanes + l)
				var w uint32
				for j := range 4 {
					w |= uint32(data[(k+j)%len(data)]) << (8 * j)
				}
				init[s][l] = w ^ uint32(k/len(data))
			}
		}
		for _, avx2 := range isas() {
			old := nativeAVX2
			nativeAVX2 = avx2
			var us []uop
			for k := 0; k+4 <= len(prog); k += 4 {
				op := 1 + prog[k]%uint8(len(natKernels)-1)
				if natKernels[op] == nil || natOp(natKernels[op], avx2) == natNone {
					continue
				}
				us = append(us, uop{kind: uKernel, fn: natKernels[op], a: prog[k+1] % nativeSlots,
					b: prog[k+2] % nativeSlots, r: prog[k+3] % nativeSlots, pc: int32(k / 4)})
			}
			if len(us) > 0 {
				checkNativeRun(t, us, &init)
			}
			nativeAVX2 = old
		}
	})
}

// TestNativeCoverage: a program of every op the native code covers runs
// those instructions natively (counted), with both generators, and agrees
// with the interpreter; with Core.NoNative nothing runs natively.
func TestNativeCoverage(t *testing.T) {
	src := `
		nop ; mov r0, a.vary
		nop ; mov r1, b.unif
		fadd r2, r0, r1 ; fmul r3, r0, r1
		fsub ra0, r2, r3 ; mov rb0, r2
		add r2, r2, r3 ; nop
		sub ra1, r2, r0 ; nop
		and rb1, r2, r3 ; nop
		or ra2, r2, r0 ; nop
		xor rb2, r2, r1 ; nop
		not ra3, r2 ; nop
		itof rb3, r2 ; nop
		fabs ra4, r3 ; nop
		fneg rb4, r3 ; nop
		fmin ra5, r2, r3 ; nop
		fmax rb5, r2, r3 ; nop
		ftoi ra6, r3 ; nop
		shr rb6, r2, r3 ; nop
		asr ra7, r2, r3 ; nop
		shl rb7, r2, r3 ; mul24 r1, r2, r3
		fadd r0, ra0, rb0 ; fmul r1, ra0, rb0
		nop ; mov tlb_r, r0 ; end`
	// Every instruction but the last has ALU work native code covers:
	// the two reads are uops of their own (uRead into a scratch slot),
	// their mul-unit moves are kernels, as are the twelve ALU
	// instructions and the colour write (a move straight into the
	// batch's colour). FMIN, FMAX and FTOI are native with both
	// generators, the shifts and MUL24 with AVX2 only.
	const native = 15 + 3
	for _, avx2 := range isas() {
		for _, noNative := range []bool{false, true} {
			old := nativeAVX2
			nativeAVX2 = avx2
			m := newFlatMem()
			m.put32(unifVA, f32(1.5))
			p := load(t, m, src)
			Translate(p)
			nativeAVX2 = old
			if !p.HasNative() {
				t.Fatalf("%s: no native code", isaName(avx2))
			}
			ref := &flatMem{base: m.base, data: append([]byte(nil), m.data...), roEnd: m.roEnd}
			b := newBatch(StageFragment)
			ci, ct := NewCore(pagedMem{ref}), NewCore(pagedMem{m})
			ci.Interpreted = true
			ct.NoNative = noNative
			bi := CloneBatch(b)
			erri, errt := ci.Run(p, bi), ct.Run(p, b)
			if d := diffStates(snapshot(ci, bi, erri), snapshot(ct, b, errt)); d != "" {
				t.Fatalf("%s, NoNative %v: %s", isaName(avx2), noNative, d)
			}
			want := uint64(native)
			if avx2 {
				want += 3 // the shift instructions (the last one with MUL24)
			}
			if noNative {
				want = 0
			}
			if ct.NativeInstructions != want {
				t.Errorf("%s, NoNative %v: %d instructions ran natively, want %d", isaName(avx2), noNative, ct.NativeInstructions, want)
			}
		}
	}
}

// TestNativeCodeUnmapped: native code of translations nobody references
// is unmapped (the mapped total returns to where it was).
func TestNativeCodeUnmapped(t *testing.T) {
	// Let the cleanups of earlier tests' translations settle first.
	before := nativeMapped.Load()
	for settle := 0; settle < 100; settle++ {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
		if now := nativeMapped.Load(); now == before && settle > 3 {
			break
		} else {
			before = now
		}
	}
	var tc TranslationCache
	for k := 0; k < 50; k++ {
		m := newFlatMem()
		p := load(t, m, fmt.Sprintf("li r1, %d\nfadd r0, r0, r1 ; fmul r1, r0, r0\nnop ; mov tlb_r, r0 ; end", k))
		tc.Translate(p)
		if !p.HasNative() {
			t.Fatal("no native code")
		}
	}
	if got := tc.Stats().NativeRuns; got == 0 {
		t.Fatal("TranslationStats.NativeRuns = 0")
	}
	if nativeMapped.Load() < before+50*pageSize {
		t.Fatalf("mapped %d bytes, before %d", nativeMapped.Load(), before)
	}
	tc = TranslationCache{} // drop the cache: the translations become unreachable
	deadline := time.Now().Add(5 * time.Second)
	for nativeMapped.Load() > before {
		if time.Now().After(deadline) {
			t.Fatalf("native code still mapped: %d bytes (before %d)", nativeMapped.Load(), before)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}
