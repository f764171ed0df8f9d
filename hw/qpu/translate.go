package qpu

import (
	"fmt"
	"math/bits"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tilegpu/tilegpu/hw/isa"
)

// # Translation
//
// Translate turns a predecoded Program into straight-line blocks of micro-
// ops ("uops"). A block starts at the entry point, at every static branch
// target and after every branch, and ends at a branch, an END or before the
// next block start. Every decision the interpreter makes per instruction is
// made once here: which operand arrays an op reads (an index into the
// core's pointer table, so register reads, small immediates, element
// numbers and fragment inputs cost nothing), whether a unit's result goes
// straight to its destination (a move of a uniform, varying or VPM word
// reads straight into it), whether a result is dead (NOP destination, no
// flags: not computed), where the SFU pipeline may deliver r4 (a tick uop
// only at the first two instructions of a block and the two after an SFU
// write, none in a program without SFU writes), and which kernel computes
// the op (a function value, no switch). What remains at run time is one
// loop over a block's uops; on amd64 a run of plain kernels (FADD, FMUL,
// MOV, …) is one call of runVops, an assembly loop of three table loads
// and four SSE2 operations per uop, elsewhere one indirect call per uop.
//
// Everything with side effects outside the registers — uniform, varying
// and VPM reads, conditional and special writes (TMU, SFU, VPM, TLB,
// uniform address), LDTMU, thread switches, branches, END — calls the same
// Go code as the interpreter, so every memory access still goes through
// Mem (the MMU model) and every error is the interpreter's. Steps are
// counted per block, before the block runs; a block that would cross the
// step limit, and an entry into the middle of a block (a dynamic branch),
// are executed one instruction at a time by the interpreter's step, so a
// translated run stops at exactly the instruction the interpreter stops at.
// The differential tests (translate_test.go) hold the two to identical
// registers, flags, memory and errors.

// Operand table layout: index → array, per register-file half (xtab).
const (
	tRegs  = 0  // 64 entries: A0–A31, B0–B31 (thread 1: the upper halves)
	tAcc   = 64 // 6: r0–r5
	tValA  = 70 // raddr_a read with side effects lands here
	tValB  = 71
	tRes   = 72 // 2: add and mul results that are not written directly
	tZero  = 74 // read-only
	tElem  = 75 // read-only: 0, 1, … 15
	tColor = 76 // 4: Batch.Color (bound per batch)
	tFrag  = 80 // 7: FragX, FragY, FragZ, FragW, FrontFacing, PointS, PointT (bound per batch)
	tSmall = 87 // 48 small immediates, read-only
	tUsed  = tSmall + isa.NumSmallImms
	// tabSize covers every uint8 index, so no uop index can leave the
	// table (runVops indexes it without bounds checks); the unused
	// entries point at scratch.
	tabSize = 256
)

type xtab [tabSize]*[Lanes]uint32

var elementNumbers = func() (t [Lanes]uint32) {
	for l := range t {
		t[l] = uint32(l)
	}
	return t
}()

// initTabs fills the batch-independent entries of both tables.
func (c *Core) initTabs() {
	for th := range c.tabs {
		t := &c.tabs[th]
		for r := 0; r < 64; r++ {
			t[tRegs+r] = &c.regs[r^16*th]
		}
		for k := 0; k < 6; k++ {
			t[tAcc+k] = &c.acc[k]
		}
		t[tValA], t[tValB] = &c.valA, &c.valB
		t[tRes], t[tRes+1] = &c.res[0], &c.res[1]
		t[tZero], t[tElem] = &zeroes, &elementNumbers
		for k := range isa.NumSmallImms {
			t[tSmall+k] = &broadcastSmallImm[k]
		}
		for k := tColor; k < tFrag+7; k++ {
			t[k] = &c.scratch // until bound to a batch
		}
		for k := tUsed; k < tabSize; k++ {
			t[k] = &c.scratch
		}
	}
}

// bindBatch points table th's colour and fragment-input entries at b.
func (c *Core) bindBatch(th int, b *Batch) *xtab {
	t := &c.tabs[th]
	if c.tabBatch[th] == b {
		return t
	}
	c.tabBatch[th] = b
	for k := range 4 {
		t[tColor+k] = (*[Lanes]uint32)(unsafe.Pointer(&b.Color[k]))
	}
	t[tFrag+0] = (*[Lanes]uint32)(unsafe.Pointer(&b.FragX))
	t[tFrag+1] = (*[Lanes]uint32)(unsafe.Pointer(&b.FragY))
	t[tFrag+2] = (*[Lanes]uint32)(unsafe.Pointer(&b.FragZ))
	t[tFrag+3] = (*[Lanes]uint32)(unsafe.Pointer(&b.FragW))
	t[tFrag+4] = &b.FrontFacing
	t[tFrag+5] = (*[Lanes]uint32)(unsafe.Pointer(&b.PointS))
	t[tFrag+6] = (*[Lanes]uint32)(unsafe.Pointer(&b.PointT))
	return t
}

// uop kinds
const (
	uKernel     uint8 = iota // fn(t[a], t[b], t[r])
	uTick                    // the SFU pipeline's step at an instruction's start
	uRead                    // side-effect read of kind aux (register code imm) into t[r]
	uDeriv                   // FDX/FDY (aux: the add op): reads other lanes, zero outside fragments
	uFlagsF                  // flags from t[a] as floats
	uFlagsI                  // flags from t[a] as integers
	uWriteLanes              // t[r] = t[a] in the lanes whose condition cond passes
	uWrite                   // Core.write(aux, condMask(cond), t[a])
	uImm                     // broadcast imm into t[r]
	uLDTMU
	uTHRSW
	uBarrier
)

// uop is one micro-op of a translated block.
type uop struct {
	fn      func(a, b, r *[Lanes]uint32)
	kind    uint8
	a, b, r uint8
	aux     uint8
	cond    isa.Cond
	vop     uint8 // vop* when runVops executes this kernel uop, else 0
	nat     uint8 // 1: a native run (native_amd64.go) starts here, imm is its index
	pc      int32 // code index of the instruction this uop belongs to
	imm     uint32
}

// block terminators
const (
	termNext   uint8 = iota // continue at end+1
	termBranch              // the last instruction is a branch
	termEnd                 // the last instruction has END
)

type xblock struct {
	start, end int32 // code indices of the first and last instruction
	u0, u1     int32 // uops[u0:u1]
	n          uint64
	dual       uint64 // of the n, instructions dual-issued (StageCounts)
	term       uint8
}

// translation is a Program's translated form. It is immutable and shared.
type translation struct {
	blocks  []xblock
	blockAt []int32 // code index → block starting there, or -1
	uops    []uop
	native  *nativeCode // the native code of its kernel runs, or nil
}

// Translate gives p a translated form (if it has none), which Core.Run
// then executes instead of interpreting p. It is safe to call
// concurrently and returns the translation's size in uops.
func Translate(p *Program) int {
	if x := p.xlat.Load(); x != nil {
		return len(x.uops)
	}
	x := translate(p)
	p.xlat.CompareAndSwap(nil, x)
	return len(x.uops)
}

// Translated reports whether p has a translated form.
func (p *Program) Translated() bool { return p.xlat.Load() != nil }

func translate(p *Program) *translation {
	n := len(p.code)
	leader := make([]bool, n+1)
	leader[p.entry] = true
	for k := range p.code {
		d := &p.code[k]
		if d.kind != kindBranch {
			continue
		}
		if d.target >= 0 && int(d.target) < n {
			leader[d.target] = true
		}
		leader[k+1] = true
	}
	x := &translation{blockAt: make([]int32, n)}
	for k := range x.blockAt {
		x.blockAt[k] = -1
	}
	var tr translator
	tr.x = x
	for k := range p.code {
		if d := &p.code[k]; d.kind != kindUndecoded && (isSFUDst(d.dstAdd) || isSFUDst(d.dstMul)) {
			tr.sfu = true // else sfuDelay stays 0 and no tick is needed
		}
	}
	for k := 0; k < n; k++ {
		if !leader[k] || p.code[k].kind == kindUndecoded {
			continue
		}
		blk := xblock{start: int32(k), u0: int32(len(x.uops))}
		if tr.sfu {
			tr.pending = 2 // the SFU may deliver in the first two instructions
		}
		for j := k; ; j++ {
			d := &p.code[j]
			tr.inst(int32(j), d)
			blk.end = int32(j)
			if d.dualIssue() {
				blk.dual++
			}
			if d.kind == kindBranch {
				blk.term = termBranch
				break
			}
			if d.sig == isa.SigEND {
				blk.term = termEnd
				break
			}
			if j+1 >= n || leader[j+1] || p.code[j+1].kind == kindUndecoded {
				break // termNext: Run checks where it lands
			}
		}
		blk.u1 = int32(len(x.uops))
		blk.n = uint64(blk.end-blk.start) + 1
		x.blockAt[k] = int32(len(x.blocks))
		x.blocks = append(x.blocks, blk)
	}
	if nativeSupported {
		x.native = compileNative(x)
	}
	return x
}

type translator struct {
	x       *translation
	sfu     bool // the program writes the SFU somewhere
	pending int  // instructions ahead in which the SFU may still deliver r4
}

func (tr *translator) emit(u uop) {
	if u.kind == uKernel && simdKernels {
		u.vop = vopOf(u.fn)
	}
	tr.x.uops = append(tr.x.uops, u)
}

// vop codes: the kernels runVops executes (vops_amd64.s).
const (
	vopNone uint8 = iota
	vopFAdd
	vopFSub
	vopFMul
	vopIAdd
	vopISub
	vopIAnd
	vopIOr
	vopIXor
	vopMov
)

// vopKernels lists the kernel of each vop code, for vopOf and for the
// portable runVops.
var vopKernels = [...]func(a, b, r *[Lanes]uint32){
	vopFAdd: vfadd, vopFSub: vfsub, vopFMul: vfmul, vopIAdd: viadd, vopISub: visub,
	vopIAnd: viand, vopIOr: vior, vopIXor: vixor, vopMov: kmov,
}

// vopOf returns the vop code of a kernel (vopNone if runVops has none).
func vopOf(fn func(a, b, r *[Lanes]uint32)) uint8 {
	p := reflect.ValueOf(fn).Pointer()
	for k, f := range vopKernels {
		if f != nil && reflect.ValueOf(f).Pointer() == p {
			return uint8(k)
		}
	}
	return vopNone
}

// operand returns the table index a read resolves to, emitting a uRead for
// reads with side effects (into slot).
func (tr *translator) operand(pc int32, kind, reg, slot uint8) uint8 {
	switch kind {
	case rdReg:
		return tRegs + reg
	case rdSmallImm:
		return tSmall + reg
	case rdNone, rdZero:
		return tZero
	case rdElement:
		return tElem
	case rdFragX, rdFragY, rdFragZ, rdFragW:
		return tFrag + kind - rdFragX
	case rdFrontFacing:
		return tFrag + 4
	case rdPointS:
		return tFrag + 5
	case rdPointT:
		return tFrag + 6
	}
	tr.emit(uop{kind: uRead, aux: kind, imm: uint32(reg), r: slot, pc: pc})
	return slot
}

// simpleDst reports whether dst is a register-file entry or r0–r3, and its
// table index.
func simpleDst(dst uint8) (uint8, bool) {
	switch {
	case dst < 64:
		return tRegs + dst, true
	case dst >= dstR0 && dst <= dstR3:
		return tAcc + dst - dstR0, true
	}
	return 0, false
}

func isColorDst(dst uint8) bool { return dst >= dstTLBColorR && dst <= dstTLBColorA }

func isSFUDst(dst uint8) bool { return dst >= dstSFURecip && dst <= dstSFULog2 }

// write emits one unit's write of t[src] to dst under cond.
func (tr *translator) write(pc int32, dst uint8, cond isa.Cond, src uint8) {
	if idx, ok := simpleDst(dst); ok {
		switch cond {
		case isa.CondNever:
		case isa.CondAlways:
			tr.emit(uop{kind: uKernel, fn: kmov, a: src, b: src, r: idx, pc: pc})
		default:
			tr.emit(uop{kind: uWriteLanes, a: src, r: idx, cond: cond, pc: pc})
		}
		return
	}
	if dst == dstNop {
		return
	}
	// Special destinations act (consume a uniform, advance VPM) even when
	// no lane's condition passes: always through Core.write.
	tr.emit(uop{kind: uWrite, aux: dst, cond: cond, a: src, pc: pc})
	if isSFUDst(dst) {
		tr.pending = 3 // this instruction's remaining uops, then two ticks
	}
}

func (tr *translator) inst(pc int32, d *inst) {
	if tr.pending > 0 {
		tr.emit(uop{kind: uTick, pc: pc})
		tr.pending--
	}
	switch d.kind {
	case kindALU:
		tr.alu(pc, d)
	case kindLoadImm:
		tr.loadImm(pc, d)
	case kindBranch:
		return // Run calls Core.branch after the block's uops
	}
	switch d.sig {
	case isa.SigLDTMU:
		tr.emit(uop{kind: uLDTMU, pc: pc})
		tr.pending = 0
	case isa.SigTHRSW, isa.SigLastTHRSW:
		tr.emit(uop{kind: uTHRSW, pc: pc})
		tr.pending = 0
	case isa.SigBarrier:
		tr.emit(uop{kind: uBarrier, pc: pc})
	}
	if tr.pending == 3 {
		tr.pending = 2
	}
}

func (tr *translator) loadImm(pc int32, d *inst) {
	ai, aok := simpleDst(d.dstAdd)
	mi, mok := simpleDst(d.dstMul)
	switch {
	case d.sf == sfNone && aok && d.condAdd == isa.CondAlways && d.dstMul == dstNop:
		tr.emit(uop{kind: uImm, r: ai, imm: d.imm, pc: pc})
		return
	case d.sf == sfNone && mok && d.condMul == isa.CondAlways && d.dstAdd == dstNop:
		tr.emit(uop{kind: uImm, r: mi, imm: d.imm, pc: pc})
		return
	}
	tr.emit(uop{kind: uImm, r: tRes, imm: d.imm, pc: pc})
	if d.sf == sfImm {
		tr.emit(uop{kind: uFlagsI, a: tRes, pc: pc})
	}
	tr.write(pc, d.dstAdd, d.condAdd, tRes)
	tr.write(pc, d.dstMul, d.condMul, tRes)
}

func (tr *translator) alu(pc int32, d *inst) {
	ia, ib := uint8(tZero), uint8(tZero)
	readAt := [2]int{-1, -1} // uop index of the side-effect read into tValA, tValB
	if d.readA != rdNone {
		ia = tr.operand(pc, d.readA, d.regA, tValA)
		if ia == tValA {
			readAt[0] = len(tr.x.uops) - 1
		}
	}
	if d.readB != rdNone {
		ib = tr.operand(pc, d.readB, d.regB, tValB)
		if ib == tValB {
			readAt[1] = len(tr.x.uops) - 1
		}
	}
	mux := func(m uint8) uint8 {
		switch {
		case m < 6:
			return tAcc + m
		case m == 6:
			return ia
		}
		return ib
	}
	addFlags := d.sf == sfAddFloat || d.sf == sfAddInt
	mulFlags := d.sf == sfMulFloat || d.sf == sfMulInt
	// A unit's result is needed if it is written (special destinations act
	// even under CondNever) or sets the flags.
	needed := func(dst uint8, cond isa.Cond, flags bool) bool {
		if flags {
			return true
		}
		if _, ok := simpleDst(dst); ok {
			return cond != isa.CondNever
		}
		return dst != dstNop
	}
	target := func(dst uint8, cond isa.Cond, direct bool, res uint8) (uint8, bool) {
		if cond == isa.CondAlways && direct {
			if idx, ok := simpleDst(dst); ok {
				return idx, true
			}
			if isColorDst(dst) {
				return tColor + dst - dstTLBColorR, true
			}
		}
		return res, false
	}
	ra, addDirect := uint8(tRes), false
	if d.opAdd != isa.OpNOP && needed(d.dstAdd, d.condAdd, addFlags) {
		a, b := mux(d.addA), mux(d.addB)
		if d.opAdd == isa.OpFDX || d.opAdd == isa.OpFDY {
			tr.emit(uop{kind: uDeriv, aux: uint8(d.opAdd), a: a, b: b, r: tRes, pc: pc})
		} else {
			ra, addDirect = target(d.dstAdd, d.condAdd, isColorDst(d.dstAdd) || directOK(d, d.dstAdd), tRes)
			fn := addKernels[d.opAdd]
			if d.opAdd == isa.OpOR && a == b {
				fn = kmov
			}
			// "mov dst, unif" (or vary, vpm, qpu_num) computed straight
			// into dst: the read itself lands there, if the mul unit does
			// not read the operand too (directOK already said it does not
			// read dst).
			slot := -1
			if fn != nil && a == b && (a == tValA || a == tValB) {
				slot = int(a - tValA)
			}
			mulReads := func(x uint8) bool {
				return d.opMul != isa.OpMulNOP && (mux(d.mulA) == x || (!d.opMul.IsUnary() && mux(d.mulB) == x))
			}
			if d.opAdd == isa.OpOR && addDirect && slot >= 0 && readAt[slot] >= 0 && !mulReads(a) {
				tr.x.uops[readAt[slot]].r = ra
			} else {
				tr.emit(uop{kind: uKernel, fn: fn, a: a, b: b, r: ra, pc: pc})
			}
		}
	}
	rm, mulDirect := uint8(tRes+1), false
	mulNeeded := d.opMul != isa.OpMulNOP && needed(d.dstMul, d.condMul, mulFlags)
	if mulNeeded {
		rm, mulDirect = target(d.dstMul, d.condMul, true, tRes+1)
		tr.emit(uop{kind: uKernel, fn: mulKernels[d.opMul], a: mux(d.mulA), b: mux(d.mulB), r: rm, pc: pc})
	}
	switch d.sf {
	case sfAddFloat:
		tr.emit(uop{kind: uFlagsF, a: ra, pc: pc})
	case sfAddInt:
		tr.emit(uop{kind: uFlagsI, a: ra, pc: pc})
	case sfMulFloat:
		tr.emit(uop{kind: uFlagsF, a: rm, pc: pc})
	case sfMulInt:
		tr.emit(uop{kind: uFlagsI, a: rm, pc: pc})
	}
	if d.opAdd != isa.OpNOP && !addDirect && needed(d.dstAdd, d.condAdd, false) {
		tr.write(pc, d.dstAdd, d.condAdd, ra)
	}
	if mulNeeded && !mulDirect {
		tr.write(pc, d.dstMul, d.condMul, rm)
	}
}

// Kernels by op. The lane-wise common ops are the SSE2 kernels of
// kernels_amd64.s (elsewhere kernels_gen.go's unrolled Go) and the other
// unrolled kernels of kernels_gen.go; the rest run execAdd's loop.
var addKernels = func() (t [isa.NumAddOps]func(a, b, r *[Lanes]uint32)) {
	for op := range t {
		o := isa.AddOp(op)
		t[op] = func(a, b, r *[Lanes]uint32) { execAdd(o, a, b, r, true) }
	}
	t[isa.OpFADD], t[isa.OpFSUB] = vfadd, vfsub
	t[isa.OpADD], t[isa.OpSUB] = viadd, visub
	t[isa.OpSHR], t[isa.OpASR], t[isa.OpSHL] = kishr, kiasr, kishl
	t[isa.OpAND], t[isa.OpOR], t[isa.OpXOR] = viand, vior, vixor
	t[isa.OpNOT] = addKernelNOT
	t[isa.OpFABS] = addKernelFABS
	t[isa.OpFNEG] = addKernelFNEG
	t[isa.OpFMIN] = kfmin
	t[isa.OpFMAX] = kfmax
	t[isa.OpITOF] = kitof
	t[isa.OpFTOI] = kftoi
	return t
}()

var mulKernels = func() (t [isa.NumMulOps]func(a, b, r *[Lanes]uint32)) {
	for op := range t {
		t[op] = kmov // OpMulNOP is never emitted
	}
	t[isa.OpFMUL], t[isa.OpFMULABS] = vfmul, vfmul
	t[isa.OpMUL24] = kmul24
	t[isa.OpMOV] = kmov
	return t
}()

func kmov(a, _, r *[Lanes]uint32) { *r = *a }

// The unary kernels as binary ones (named, so native code can recognise them).
func addKernelNOT(a, _, r *[Lanes]uint32)  { kinot(a, r) }
func addKernelFABS(a, _, r *[Lanes]uint32) { kfabsBits(a, r) }
func addKernelFNEG(a, _, r *[Lanes]uint32) { kfnegBits(a, r) }

func kfmin(a, b, r *[Lanes]uint32) {
	af, bf, rf := fl(a), fl(b), fl(r)
	for l := range rf {
		rf[l] = fmin(af[l], bf[l])
	}
}

func kfmax(a, b, r *[Lanes]uint32) {
	af, bf, rf := fl(a), fl(b), fl(r)
	for l := range rf {
		rf[l] = fmax(af[l], bf[l])
	}
}

func kitof(a, _, r *[Lanes]uint32) {
	rf := fl(r)
	for l := range rf {
		rf[l] = float32(int32(a[l]))
	}
}

func kftoi(a, _, r *[Lanes]uint32) {
	af := fl(a)
	for l := range r {
		r[l] = ftoi(af[l])
	}
}

// runTranslated executes p's translation x (Run has called begin).
func (c *Core) runTranslated(p *Program, x *translation, b *Batch) error {
	th := 0
	if c.thrXor != 0 {
		th = 1
	}
	t := c.bindBatch(th, b)
	uops, blocks, blockAt := x.uops, x.blocks, x.blockAt
	var native *nativeCode
	if !c.NoNative {
		native = x.native
	}
	pc := p.entry
	stop := c.firstStop()
	var steps uint64
	for {
		bi := blockAt[pc]
		if bi < 0 || blocks[bi].n > stop-steps {
			// Not a block start (a dynamic branch's target) or the block
			// would cross the next checkpoint (budget.go): one
			// instruction as the interpreter runs it, so checkpoints see
			// exactly the interpreter's counts.
			if steps >= stop {
				var err error
				if stop, err = c.checkpoint(p, steps); err != nil {
					b.Instructions = steps
					return err
				}
				continue // the block may fit before the new stop
			}
			steps++
			next, end, err := c.step(p, pc, b)
			if err != nil || end {
				b.Instructions = steps
				return err
			}
			pc = next
			continue
		}
		blk := &blocks[bi]
		for i := blk.u0; i < blk.u1; i++ {
			u := &uops[i]
			if u.nat != 0 && native != nil {
				// A run of kernels as one straight-line native
				// function (native_amd64.go).
				r := &native.runs[u.imm]
				callNative(native.base+uintptr(r.off), t)
				c.NativeInstructions += r.instrs
				i += r.n - 1
				continue
			}
			if u.vop != 0 {
				// A run of SSE2 kernels in one assembly loop
				// (vops_amd64.s); it returns how many it ran.
				i += int32(runVops(u, int(blk.u1-i), t)) - 1
				continue
			}
			if u.kind == uKernel {
				u.fn(t[u.a], t[u.b], t[u.r])
				continue
			}
			if err := c.special(p, u, t, b); err != nil {
				done := uint64(u.pc-blk.start) + 1
				b.Instructions = steps + done
				c.XlatInstructions += done
				for k := blk.start; k <= u.pc; k++ {
					if p.code[k].dualIssue() {
						c.dual++
					}
				}
				return c.located(&p.code[u.pc], err)
			}
		}
		steps += blk.n
		c.XlatInstructions += blk.n
		c.dual += blk.dual
		last := &p.code[blk.end]
		next := blk.end + 1
		switch blk.term {
		case termEnd:
			b.Instructions = steps
			return c.endCheck(last)
		case termBranch:
			k, err := c.branch(p, last, b)
			if err != nil {
				b.Instructions = steps
				return c.located(last, err)
			}
			if k >= 0 {
				next = k
				c.checkShootdown()
			}
		}
		if int(next) >= len(p.code) || next < 0 {
			b.Instructions = steps
			return ranPast(p, last)
		}
		pc = next
	}
}

// special executes a uop other than a plain kernel.
func (c *Core) special(p *Program, u *uop, t *xtab, b *Batch) error {
	switch u.kind {
	case uTick:
		if c.sfuDelay != 0 {
			c.sfuDelay--
			if c.sfuDelay == 0 {
				c.acc[4] = c.sfuVal
			}
		}
	case uRead:
		_, err := c.read(u.aux, uint8(u.imm), t[u.r], b)
		return err
	case uDeriv:
		execAdd(isa.AddOp(u.aux), t[u.a], t[u.b], t[u.r], b.Stage == StageFragment)
	case uFlagsF:
		c.setFlagsFloat(t[u.a])
	case uFlagsI:
		c.setFlagsInt(t[u.a])
	case uWriteLanes:
		writeLanes(t[u.r], t[u.a], c.condMask(u.cond))
	case uWrite:
		return c.write(u.aux, c.condMask(u.cond), t[u.a], b)
	case uImm:
		broadcast(t[u.r], u.imm)
	case uLDTMU:
		return c.ldtmu()
	case uTHRSW:
		c.poisonAccs(p.accsUsed)
		c.sfuDelay = 0
	case uBarrier:
		return c.barrier(b)
	default:
		panic(fmt.Sprintf("BUG: qpu: uop kind %d", u.kind))
	}
	return nil
}

// TranslationCache shares translations between the Programs that hw loads
// for each job: a program is keyed by its entry address, its base and a
// hash of its code words, and a hit is confirmed by comparing the words,
// so a client that rewrites shader memory gets a new translation, never a
// stale one. It holds at most MaxTranslations entries (when full it starts
// over: a client cannot make it grow without bound). Safe for concurrent
// use.
type TranslationCache struct {
	mu sync.Mutex
	m  map[xkey]*xentry

	translated, hits, misses, uops, nativeRuns atomic.Uint64
}

// MaxTranslations bounds a TranslationCache.
const MaxTranslations = 1024

type xkey struct {
	entry, base uint32
	hash        uint64
}

type xentry struct {
	words []uint64
	x     *translation
}

// TranslationStats are a TranslationCache's counters.
type TranslationStats struct {
	Translated uint64 // programs translated (cache misses that translated)
	Hits       uint64 // lookups that found a translation of identical code
	Misses     uint64 // lookups that did not
	Uops       uint64 // uops produced by all translations
	NativeRuns uint64 // runs of kernel uops compiled to native code (native_amd64.go)
}

// Stats returns the cache's counters.
func (tc *TranslationCache) Stats() TranslationStats {
	return TranslationStats{Translated: tc.translated.Load(), Hits: tc.hits.Load(),
		Misses: tc.misses.Load(), Uops: tc.uops.Load(), NativeRuns: tc.nativeRuns.Load()}
}

// Translate gives p the cached translation of identical code at the same
// addresses, or translates it and caches the result.
func (tc *TranslationCache) Translate(p *Program) {
	if p.xlat.Load() != nil {
		return
	}
	k := xkey{entry: p.Entry(), base: p.base, hash: hashWords(p.words)}
	tc.mu.Lock()
	if e, ok := tc.m[k]; ok && slices.Equal(e.words, p.words) {
		tc.mu.Unlock()
		tc.hits.Add(1)
		p.xlat.CompareAndSwap(nil, e.x)
		return
	}
	tc.mu.Unlock()
	tc.misses.Add(1)
	x := translate(p)
	tc.translated.Add(1)
	tc.uops.Add(uint64(len(x.uops)))
	if x.native != nil {
		tc.nativeRuns.Add(uint64(len(x.native.runs)))
	}
	p.xlat.CompareAndSwap(nil, x)
	tc.mu.Lock()
	if tc.m == nil || len(tc.m) >= MaxTranslations {
		tc.m = make(map[xkey]*xentry)
	}
	tc.m[k] = &xentry{words: p.words, x: x}
	tc.mu.Unlock()
}

// hashWords is FNV-1a over the words, 64 bits at a time, with a final mix.
func hashWords(w []uint64) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range w {
		h ^= v
		h *= 1099511628211
		h = bits.RotateLeft64(h, 29)
	}
	h ^= uint64(len(w))
	h *= 0x9e3779b97f4a7c15
	return h ^ h>>32
}
