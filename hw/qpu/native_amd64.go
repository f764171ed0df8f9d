//go:build amd64 && !purego

package qpu

import (
	"encoding/binary"
	"reflect"
	"runtime"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/cpu"
	"golang.org/x/sys/unix"
)

// # Native code (amd64)
//
// compileNative turns every run of consecutive plain kernel uops of a
// translation (FADD, FSUB, FMUL, ADD, SUB, AND, OR, XOR, NOT, MOV, ITOF,
// FTOI, FABS, FNEG, FMIN, FMAX; with AVX2 also SHR, ASR, SHL, MUL24) into
// one straight-line x86-64 function: per uop it loads the
// three operand pointers from the core's operand table (xtab), computes the
// 16 lanes with AVX2 (two 8-lane halves) or, without AVX2, SSE2 (four
// 4-lane quarters), and stores the result. The code
//
//   - touches memory only through pointers it loads from the table (DI on
//     entry): the same arrays runVops and the Go kernels touch, which the
//     Go side built and keeps alive; it writes nothing but uint32 lane
//     data, never a pointer, and never the table itself;
//   - has no branch at all (it cannot loop: a run's cost is bounded by
//     its length, and the step accounting of budget.go is per block, as
//     for runVops);
//   - uses only AX, BX, CX, DX, SI, DI, R8–R11, R13 and X0–X14 (Y0–Y14):
//     never SP beyond the return address, BP, R12, R14 (g), R15 or X15
//     (Go's zero register), and ends with VZEROUPPER when it used AVX;
//   - contains no Go safe point: a preemption signal that lands in it
//     finds no Go function at the PC and resumes it (the runtime only
//     preempts at safe points), and it runs for a bounded time.
//
// The code of one translation lives in one mapping: written while it is
// read-write, then mprotect'ed read+execute (never writable and
// executable at once). It is unmapped by a cleanup when the translation
// becomes unreachable (a TranslationCache eviction drops the cache's
// reference; Programs still running it keep it alive), and the total
// mapped at any time is bounded by maxNativeBytes: beyond it translations
// simply get no native code and run through runVops.
//
// callNative (native_amd64.s) is the trampoline: an ABI0, NOSPLIT,
// frameless Go assembly function that puts the table pointer in DI and
// CALLs the code; the only stack the code uses is that CALL's return
// address, within the nosplit guard every Go stack keeps.

// nativeSupported reports whether this build and CPU can run native code
// (SSE2 is part of amd64; AVX2 only widens it).
const nativeSupported = true

// NativeSupported reports whether translations get native code in this
// build on this machine.
func NativeSupported() bool { return true }

// nativeAVX2 selects the AVX2 code generator; tests clear it to compare
// the SSE2 generator on AVX2 machines.
var nativeAVX2 = cpu.X86.HasAVX2

// maxNativeBytes bounds the native code mapped at any time.
const maxNativeBytes = 64 << 20

var nativeMapped atomic.Int64

//go:noescape
func callNative(code uintptr, t *xtab)

// Native op codes (uop.nat is 0 for uops native code does not cover).
const (
	natNone uint8 = iota
	natFAdd
	natFSub
	natFMul
	natIAdd
	natISub
	natIAnd
	natIOr
	natIXor
	natMov
	natNot
	natItof
	natFAbs
	natFNeg
	natFMin
	natFMax
	natFtoi
	natAVX2Only // the ops below need AVX2 (variable shifts, 32-bit multiply)
	natShr
	natAsr
	natShl
	natMul24
)

// natOp returns the native op of a kernel uop's function for the AVX2 or
// the SSE2 generator (natNone if that generator does not cover it).
func natOp(fn func(a, b, r *[Lanes]uint32), avx2 bool) uint8 {
	for k, f := range natKernels {
		if f != nil && funcPC(f) == funcPC(fn) {
			if k > int(natAVX2Only) && !avx2 {
				return natNone
			}
			return uint8(k)
		}
	}
	return natNone
}

var natKernels = [...]func(a, b, r *[Lanes]uint32){
	natFAdd: vfadd, natFSub: vfsub, natFMul: vfmul, natIAdd: viadd, natISub: visub,
	natIAnd: viand, natIOr: vior, natIXor: vixor, natMov: kmov,
	natNot: addKernelNOT, natItof: kitof, natFAbs: addKernelFABS, natFNeg: addKernelFNEG,
	natFMin: kfmin, natFMax: kfmax, natFtoi: kftoi,
	natShr: kishr, natAsr: kiasr, natShl: kishl, natMul24: kmul24,
}

// x86 register numbers.
const (
	rAX = 0
	rCX = 1
	rDX = 2
	rBX = 3
	rSI = 6
	rDI = 7
	r8  = 8
	r9  = 9
	r10 = 10
	r11 = 11
	r13 = 13
)

// pointerRegs hold operand pointers; none needs a SIB byte (SP, R12) and
// none is reserved by Go's ABI (R14, R15) or the frame pointer (BP).
var pointerRegs = [...]uint8{rAX, rBX, rCX, rDX, rSI, r8, r9, r10, r11, r13}

// vector constants (loaded at the start of a run that needs them)
const (
	xOnes = 14 // all bits set
	xAbs  = 13 // 0x7fffffff
	xSign = 12 // 0x80000000
)

type asm struct {
	b    []byte
	avx2 bool
	// pointer register cache: which table index each pointer register
	// holds (-1: none), round-robin replacement
	held [len(pointerRegs)]int
	next int
}

// vecOp emits a vector instruction reg ← op(vvvv, rm): pp 0 (none), 1
// (0x66) or 2 (0xF3), mp 1 (0F) or 2 (0F38). With mem, rm is a base register and
// disp its 8-bit displacement; else rm is a vector register. vvvv is the
// second source (AVX only; 0 when unused).
func (a *asm) vecOp(pp, mp, op, reg, vvvv, rm uint8, mem bool, disp int8) {
	if a.avx2 {
		b1 := mp | 0x40 // X̄ = 1: no index register
		if reg < 8 {
			b1 |= 0x80
		}
		if rm < 8 {
			b1 |= 0x20
		}
		b2 := (^vvvv&15)<<3 | 1<<2 | pp // W0, L=256
		a.b = append(a.b, 0xC4, b1, b2, op)
	} else {
		switch pp {
		case 1:
			a.b = append(a.b, 0x66)
		case 2:
			a.b = append(a.b, 0xF3)
		}
		if rex := (reg>>3)<<2 | rm>>3; rex != 0 {
			a.b = append(a.b, 0x40|rex)
		}
		a.b = append(a.b, 0x0F)
		if mp == 2 {
			a.b = append(a.b, 0x38)
		}
		a.b = append(a.b, op)
	}
	if mem {
		a.b = append(a.b, 0x40|(reg&7)<<3|rm&7, byte(disp))
	} else {
		a.b = append(a.b, 0xC0|(reg&7)<<3|rm&7)
	}
}

// load: x ← [base+disp] (MOVUPS / VMOVUPS)
func (a *asm) load(x, base uint8, disp int8) { a.vecOp(0, 1, 0x10, x, 0, base, true, disp) }

// store: [base+disp] ← x
func (a *asm) store(base uint8, disp int8, x uint8) { a.vecOp(0, 1, 0x11, x, 0, base, true, disp) }

// binop: x ← x op y (SSE two-operand form; the AVX form with vvvv = x)
func (a *asm) binop(pp, op, x, y uint8) { a.vecOp(pp, 1, op, x, x, y, false, 0) }

// shiftImm: x ← y shifted by imm (66 0F 72 /digit ib); SSE needs x == y.
func (a *asm) shiftImm(digit, x, y, imm uint8) {
	if a.avx2 {
		a.vecOp(1, 1, 0x72, digit, x, y, false, 0)
	} else {
		a.vecOp(1, 1, 0x72, digit, 0, x, false, 0)
	}
	a.b = append(a.b, imm)
}

// pointer returns a register holding t[idx], loading it (MOVQ
// disp32(DI), reg) unless cached; pinned registers are not replaced.
func (a *asm) pointer(idx uint8, pinned ...uint8) uint8 {
	for k, h := range a.held {
		if h == int(idx) {
			return pointerRegs[k]
		}
	}
	k := a.next
	for {
		ok := true
		for _, p := range pinned {
			if pointerRegs[k] == p {
				ok = false
			}
		}
		if ok {
			break
		}
		k = (k + 1) % len(pointerRegs)
	}
	a.next = (k + 1) % len(pointerRegs)
	a.held[k] = int(idx)
	r := pointerRegs[k]
	a.b = append(a.b, 0x48|(r>>3)<<2, 0x8B, 0x80|(r&7)<<3|rDI)
	a.b = binary.LittleEndian.AppendUint32(a.b, uint32(idx)*8)
	return r
}

// run emits the function for uops us (all with a native op).
func (a *asm) run(us []uop) {
	for k := range a.held {
		a.held[k] = -1
	}
	a.next = 0
	consts := false
	for k := range us {
		switch natOp(us[k].fn, a.avx2) {
		case natNot, natFAbs, natFNeg, natFtoi, natShr, natAsr, natShl, natMul24:
			consts = true
		}
	}
	if consts {
		a.binop(1, 0x76, xOnes, xOnes) // PCMPEQD: all ones
		if !a.avx2 {
			// SSE shifts work in place: copy the ones first.
			a.mov(xAbs, xOnes)
			a.mov(xSign, xOnes)
		}
		a.shiftImm(2, xAbs, xOnes, 1)   // PSRLD: 0x7fffffff
		a.shiftImm(6, xSign, xOnes, 31) // PSLLD: 0x80000000
	}
	chunks, width := 4, int8(16)
	if a.avx2 {
		chunks, width = 2, 32
	}
	for k := range us {
		u := &us[k]
		op := natOp(u.fn, a.avx2)
		pa := a.pointer(u.a)
		pb := pa
		binary := op != natMov && op != natNot && op != natItof && op != natFAbs && op != natFNeg && op != natFtoi
		if binary {
			pb = a.pointer(u.b, pa)
		}
		pr := a.pointer(u.r, pa, pb)
		for h := range chunks {
			x, y := uint8(2*h), uint8(2*h+1)
			disp := int8(h) * width
			a.load(x, pa, disp)
			if binary {
				a.load(y, pb, disp)
			}
			switch op {
			case natFAdd:
				a.binop(0, 0x58, x, y)
			case natFSub:
				a.binop(0, 0x5C, x, y)
			case natFMul:
				a.binop(0, 0x59, x, y)
			case natIAdd:
				a.binop(1, 0xFE, x, y)
			case natISub:
				a.binop(1, 0xFA, x, y)
			case natIAnd:
				a.binop(1, 0xDB, x, y)
			case natIOr:
				a.binop(1, 0xEB, x, y)
			case natIXor:
				a.binop(1, 0xEF, x, y)
			case natNot:
				a.binop(1, 0xEF, x, xOnes)
			case natFAbs:
				a.binop(1, 0xDB, x, xAbs)
			case natFNeg:
				a.binop(1, 0xEF, x, xSign)
			case natItof:
				a.vecOp(0, 1, 0x5B, x, 0, x, false, 0) // CVTDQ2PS
			case natFMin, natFMax:
				a.minMax(op == natFMax, x, y)
			case natFtoi:
				a.ftoi(x)
			case natShr, natAsr, natShl: // AVX2 only
				a.shiftImm(2, t1, xOnes, 27) // 31
				a.binop(1, 0xDB, y, t1)      // count & 31
				a.vecOp(1, 2, variableShift[op-natShr], x, x, y, false, 0)
			case natMul24: // AVX2 only
				a.shiftImm(2, t1, xOnes, 8) // 0xffffff
				a.binop(1, 0xDB, x, t1)
				a.binop(1, 0xDB, y, t1)
				a.vecOp(1, 2, 0x40, x, x, y, false, 0) // VPMULLD
			}
			a.store(pr, disp, x)
		}
	}
	if a.avx2 {
		a.b = append(a.b, 0xC5, 0xF8, 0x77) // VZEROUPPER
	}
	a.b = append(a.b, 0xC3) // RET
}

// variableShift: the 0F38 opcodes of VPSRLVD, VPSRAVD and VPSLLVD, by
// natShr, natAsr, natShl.
var variableShift = [3]uint8{0x45, 0x46, 0x47}

// temporaries of the longer sequences
const (
	t1 = 8
	t2 = 9
	t3 = 10
	t4 = 11
)

// cmpps: x ← x pred y (CMPPS: 0 EQ_OQ, 1 LT_OS, 3 UNORD_Q)
func (a *asm) cmpps(x, y, pred uint8) {
	a.binop(0, 0xC2, x, y)
	a.b = append(a.b, pred)
}

// pandn: x ← ^x & y
func (a *asm) pandn(x, y uint8) { a.binop(1, 0xDF, x, y) }

// minMax: x ← fmin(x, y) or fmax(x, y) (ops.go: IEEE minNum/maxNum, −0
// below +0, one NaN operand gives the other operand, two give y), with
// compares and bit selects only, so the bits are the Go kernel's.
func (a *asm) minMax(max bool, x, y uint8) {
	if max {
		a.mov(t1, y)
		a.cmpps(t1, x, 1) // y < x
	} else {
		a.mov(t1, x)
		a.cmpps(t1, y, 1) // x < y
	}
	a.mov(t2, y)
	a.cmpps(t2, y, 3) // y NaN
	a.mov(t3, x)
	a.cmpps(t3, x, 3)        // x NaN
	a.pandn(t3, t2)          // y NaN and x not
	a.binop(1, 0xEB, t1, t3) // selX: x wins
	a.mov(t4, x)
	a.cmpps(t4, y, 0) // equal (±0 too)
	if max {
		a.mov(t2, x)
		a.pandn(t2, t4) // equal lanes: ^x
		a.mov(t4, x)
		a.binop(1, 0xDB, t4, t1) // x & selX
		a.pandn(t1, y)           // y & ^selX
		a.binop(1, 0xEB, t4, t1)
		a.pandn(t2, t4) // equal lanes: x & y (+0 wins)
		a.mov(x, t2)
		return
	}
	a.binop(1, 0xEB, t4, t1) // selX | equal
	a.binop(1, 0xDB, t4, x)  // x there
	a.pandn(t1, y)           // y & ^selX
	a.binop(1, 0xEB, t4, t1) // equal lanes: x | y (−0 wins)
	a.mov(x, t4)
}

// ftoi: x ← ftoi(x) (ops.go: truncation, NaN to 0, saturating). CVTTPS2DQ
// gives 0x80000000 for NaN and out-of-range lanes; positive overflows
// become 0x7fffffff and NaNs 0.
func (a *asm) ftoi(x uint8) {
	a.vecOp(2, 1, 0x5B, t1, 0, x, false, 0) // CVTTPS2DQ
	a.mov(t2, xSign)
	a.binop(1, 0x76, t2, t1) // PCMPEQD: "integer indefinite"
	if a.avx2 {
		a.shiftImm(4, t3, x, 31) // VPSRAD: x negative
	} else {
		a.mov(t3, x)
		a.shiftImm(4, t3, t3, 31)
	}
	a.mov(t4, x)
	a.cmpps(t4, x, 3)        // x NaN
	a.binop(1, 0xEB, t3, t4) // negative or NaN
	a.pandn(t3, t2)          // positive overflow
	a.binop(1, 0xEF, t1, t3) // 0x80000000 → 0x7fffffff there
	a.pandn(t4, t1)          // NaN → 0
	a.mov(x, t4)
}

// mov: x ← y (MOVAPS register form)
func (a *asm) mov(x, y uint8) { a.vecOp(0, 1, 0x28, x, 0, y, false, 0) }

// nativeCode is the mapped code of one translation.
type nativeCode struct {
	base uintptr
	mem  []byte // the mapping (read+execute), for tests to inspect
	runs []nativeRun
}

type nativeRun struct {
	off    uint32 // code offset
	n      int32  // uops
	instrs uint64 // instructions whose ALU work the run does (nativeInstrs)
}

// compileNative generates the native code of x's kernel runs and marks
// each run's first uop (nat = 1, imm = run index). It leaves x unchanged
// and returns nil when there is nothing to compile or the code cannot be
// mapped (the translation then runs through runVops).
func compileNative(x *translation) *nativeCode {
	type span struct{ u0, u1 int32 }
	var spans []span
	for _, blk := range x.blocks {
		for i := blk.u0; i < blk.u1; {
			j := i
			for j < blk.u1 && x.uops[j].kind == uKernel && natOp(x.uops[j].fn, nativeAVX2) != natNone {
				j++
			}
			if j > i {
				spans = append(spans, span{i, j})
				i = j
			} else {
				i++
			}
		}
	}
	if len(spans) == 0 {
		return nil
	}
	a := &asm{avx2: nativeAVX2}
	nc := &nativeCode{}
	for _, s := range spans {
		// Align each run's entry to 16 bytes (INT3 padding).
		for len(a.b)%16 != 0 {
			a.b = append(a.b, 0xCC)
		}
		off := uint32(len(a.b))
		a.run(x.uops[s.u0:s.u1])
		nc.runs = append(nc.runs, nativeRun{off: off, n: s.u1 - s.u0, instrs: nativeInstrs(x.uops, s.u0, s.u1)})
	}
	size := (len(a.b) + pageSize - 1) &^ (pageSize - 1)
	if nativeMapped.Add(int64(size)) > maxNativeBytes {
		nativeMapped.Add(-int64(size))
		return nil
	}
	mem, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		nativeMapped.Add(-int64(size))
		return nil
	}
	copy(mem, a.b)
	for k := len(a.b); k < len(mem); k++ {
		mem[k] = 0xCC
	}
	if err := unix.Mprotect(mem, unix.PROT_READ|unix.PROT_EXEC); err != nil {
		unix.Munmap(mem)
		nativeMapped.Add(-int64(size))
		return nil
	}
	nc.base, nc.mem = uintptr(unsafePointer(mem)), mem
	for k, s := range spans {
		x.uops[s.u0].nat = 1
		x.uops[s.u0].imm = uint32(k)
	}
	registerUnmap(x, mem)
	return nc
}

const pageSize = 4096

// nativeInstrs counts the instructions whose ALU work (kernel uops) runs
// in us[u0:u1]: each instruction with a uop there, except one whose
// earlier kernel uop belongs to an earlier run (an instruction is counted
// once even when a flags uop splits its add and mul ops into two runs).
func nativeInstrs(us []uop, u0, u1 int32) uint64 {
	var n uint64
	for i := u0; i < u1; i++ {
		pc := us[i].pc
		if i > u0 && us[i-1].pc == pc {
			continue // counted at its first uop in the run
		}
		earlier := false
		for j := i - 1; j >= 0 && us[j].pc == pc; j-- {
			if us[j].kind == uKernel && natOp(us[j].fn, nativeAVX2) != natNone {
				earlier = true
			}
		}
		if !earlier {
			n++
		}
	}
	return n
}

func funcPC(f func(a, b, r *[Lanes]uint32)) uintptr { return reflect.ValueOf(f).Pointer() }

func unsafePointer(b []byte) unsafe.Pointer { return unsafe.Pointer(&b[0]) }

// registerUnmap unmaps mem once x is unreachable.
func registerUnmap(x *translation, mem []byte) {
	runtime.AddCleanup(x, func(m []byte) {
		unix.Munmap(m)
		nativeMapped.Add(-int64(len(m)))
	}, mem)
}
