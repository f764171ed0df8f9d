package qpu

import (
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"unsafe"

	"github.com/tilegpu/tilegpu/hw/isa"
)

// Mem is the MMU-translated memory a core reads uniforms, texture
// descriptors, texels and direct loads from and writes direct stores to.
// The methods return false on a page fault.
type Mem interface {
	Read32(va uint32) (uint32, bool)
	Write32(va uint32, v uint32) bool
}

// PageMem is an optional interface of Mem that lets the TMU read texels,
// direct loads and stores without one interface call per lane: Page returns
// the 4 KiB page that holds va (page[va&0xfff] is the byte at va), checked
// for writing when write is set, or false on a fault (which the
// implementation records exactly as Read32/Write32 would). The core keeps
// the slice only until Run returns, or with RetainPages(true) until
// FlushPages.
type PageMem interface {
	Page(va uint32, write bool) ([]byte, bool)
}

// Fault is a page fault taken by a core (uniform read, TMU read or store,
// instruction fetch in Load).
type Fault struct {
	VA    uint32
	Write bool
	PC    uint32 // address of the faulting instruction
}

// InstrError is a failure of the instruction at PC (other than a Fault).
type InstrError struct {
	PC  uint32
	Err error
}

func (e *InstrError) Error() string { return fmt.Sprintf("qpu: instruction at %#x: %v", e.PC, e.Err) }
func (e *InstrError) Unwrap() error { return e.Err }

func (f *Fault) Error() string {
	if f.Write {
		return fmt.Sprintf("qpu: page fault writing VA %#x", f.VA)
	}
	return fmt.Sprintf("qpu: page fault reading VA %#x", f.VA)
}

// Stage is the kind of shader a batch runs.
type Stage uint8

// Shader stages.
const (
	StageVertex Stage = iota
	StageCoordinate
	StageFragment
	StageCompute // a compute batch: up to 16 invocations of one workgroup (compute.go)
)

// MaxStages bounds the Stage values Core.Counts is indexed by (stages are
// masked into it, so a stage added later cannot index out of range).
const MaxStages = 8

// StageCounts is what a core counted for one shader stage.
type StageCounts struct {
	// DualIssued: ALU instructions in which both the add and the mul unit
	// ran an operation (the model issues one instruction per cycle, so
	// DualIssued/instructions is the dual-issue occupancy).
	DualIssued uint64
	// SFUOps: writes to the SFU (RECIP, RECIPSQRT, EXP2, LOG2), one per
	// 16-lane instruction and unit.
	SFUOps uint64
	// TMULanes: lanes of texture fetches (TMU_S writes).
	TMULanes uint64
	// TMUTexels: texel words the core's TMU read to filter those fetches
	// (1 per nearest sample, 4 per bilinear one).
	TMUTexels uint64
	// TMUPageMisses: accesses of the core's TMU (texels and descriptor
	// words) that missed its page cache and walked the MMU.
	TMUPageMisses uint64
}

// Batch is one 16-lane thread: inputs filled by the caller, results filled
// by Run. The caller reuses one Batch per worker; Run does not allocate.
type Batch struct {
	Stage      Stage
	UniformsVA uint32 // start of the uniform stream
	QPUNumber  uint32 // QPU_NUMBER
	Thread     int    // register-file half: 0 (or single-threaded) or 1
	LaneMask   uint16 // covered / valid lanes (informational: all lanes execute)

	VPMIn    []float32 // [word*16 + lane]; VPM reads
	VPMOut   []float32 // [word*16 + lane]; VPM writes
	Varyings []float32 // [index*16 + lane]; VARYING reads in order

	FragX, FragY, FragZ, FragW [Lanes]float32
	FrontFacing                [Lanes]uint32
	PointS, PointT             [Lanes]float32

	// Compute inputs (StageCompute, docs/hardware.md §9); see compute.go.
	Compute ComputeInputs

	// Results, reset by Run.
	Color        [4][Lanes]float32 // TLB_COLOR_R..A (0 where never written)
	Z            [Lanes]float32    // TLB_Z
	ZWritten     bool              // some lane wrote TLB_Z
	Kill         uint16            // lanes discarded with TLB_KILL
	Instructions uint64            // instructions executed (per 16-lane instruction)
}

// DefaultStepLimit is the default Core.StepLimit: 16 Mi instructions, about
// a second of interpretation, far beyond any terminating GLSL ES shader.
const DefaultStepLimit = 1 << 24

// poison is what undefined registers hold: a quiet NaN with a recognisable
// payload, also a large odd integer.
const poison = 0x7fc0dead

// tmuDepth is the TMU FIFO depth (docs/hardware.md §7.1).
const tmuDepth = 4

type tmuResult struct {
	vals [4][Lanes]uint32
	n    int // components: 4 for a texture fetch, 1 for a direct load
}

// Core is one shader core: registers, flags, the SFU pipeline and the TMU
// FIFO. It is not safe for concurrent use.
type Core struct {
	// StepLimit bounds the instructions one Run may execute; exceeding it is
	// an error (an infinite loop in a shader must not hang the GPU). 0 means
	// no bound: the owner then stops runaway shaders through Poll (package
	// hw does: its watchdog, not the core, decides what is hung).
	StepLimit uint64

	// Poll, when set, is called every PollInterval instructions of a Run
	// with the instructions executed so far; an error it returns ends the
	// Run with that error. Package hw uses it to stop a shader when RESET
	// abandons its job.
	Poll func(steps uint64) error

	// Interpreted makes Run use the reference interpreter even for programs
	// that have a translation (the differential tests set it).
	Interpreted bool

	// XlatInstructions counts the instructions this core executed in
	// translated code (per 16-lane instruction); the owner reads and
	// resets it.
	XlatInstructions uint64

	// NoNative makes translated code run its kernel uops through runVops
	// and the Go kernels instead of native code (for comparison; builds
	// with the purego tag and other architectures have no native code).
	NoNative bool

	// NativeInstructions counts the translated instructions whose ALU
	// work (the ops native code covers) ran as native code — their reads,
	// flags and special writes still run in Go; a subset of
	// XlatInstructions. The owner reads and resets it.
	NativeInstructions uint64

	// Counts holds, per shader stage (indexed by Batch.Stage), the QPU and
	// TMU work of this core's batches that the GPU's counter block reports
	// (hw/perf.go); the owner reads and resets it.
	Counts [MaxStages]StageCounts
	// dual counts the dual-issued instructions of the running batch; Run
	// adds it to Counts at the end.
	dual uint64

	// tabs[t] maps the operand indices of translated code to the arrays
	// they name for register-file half t (translate.go).
	tabs     [2]xtab
	tabBatch [2]*Batch     // the batch each table's colour and input entries point into
	scratch  [Lanes]uint32 // what batch entries point to before a batch is bound

	mem      Mem
	sampler  Sampler
	tmu      *TMU // the core's own TMU while it is the sampler: it shares the page lifetime
	texDirty bool // tex holds staged parameters (TMU_T/R/B/LOD) to clear at Run start

	// retainPages: pages from PageMem stay cached across Runs until
	// FlushPages (see RetainPages); pagesStale forces a flush at the next Run.
	retainPages, pagesStale bool

	acc  [6][Lanes]uint32
	regs [64][Lanes]uint32
	valA [Lanes]uint32
	valB [Lanes]uint32
	res  [2][Lanes]uint32 // add, mul results
	srcs [8]*[Lanes]uint32

	flagZ, flagN, flagC uint16

	sfuDelay int
	sfuVal   [Lanes]uint32

	unifPtr  uint32
	varyNext int
	vpmRead  int
	vpmWrite int
	thrXor   uint8

	tex       TexRequest
	texOut    [4][Lanes]float32
	fifo      [tmuDepth]tmuResult
	fifoHead  int
	fifoLen   int
	fifoPop   int // components of the head entry already popped
	storeData [Lanes]uint32
	loads     pageCache

	epochSrc  PageEpoch // mem's shootdown counter, if it has one
	epochSeen uint64

	// memLanes masks the lanes that take part in direct loads, stores,
	// atomics and shared-memory accesses: every lane, except in a
	// compute batch whose last invocations lie beyond its workgroup.
	memLanes uint16
}

// NewCore returns a core that accesses memory through m and samples
// textures with the TMU of this package.
func NewCore(m Mem) *Core {
	t := NewTMU()
	c := &Core{StepLimit: DefaultStepLimit, mem: m, sampler: t, tmu: t}
	for k := 0; k < 6; k++ {
		c.srcs[k] = &c.acc[k]
	}
	c.loads.init(m)
	c.epochSrc, _ = m.(PageEpoch)
	if c.epochSrc != nil {
		c.epochSeen = c.epochSrc.PageEpoch()
	}
	c.initTabs()
	return c
}

// RetainPages(true) lets the core keep the pages PageMem returned (for
// uniforms, direct loads and stores, and its TMU's texels) from one Run to
// the next, until FlushPages. The owner must call FlushPages whenever the
// translations behind Mem may change; package hw does it at every job
// start, when it also empties its MMU's TLB. By default pages live for one
// Run. At 1080p the "tex" scene re-translated two or three texture rows
// per 16-lane batch with per-Run pages: 15% of its time (profile of
// 2026-11-21).
func (c *Core) RetainPages(on bool) {
	c.retainPages = on
	c.pagesStale = true
}

// FlushPages forgets every cached page.
func (c *Core) FlushPages() {
	c.loads.reset()
	if c.tmu != nil {
		c.tmu.beginRun(c.mem)
	}
	c.pagesStale = false
}

// SetSampler replaces the texture filtering unit (tests use it to check
// what the core hands the TMU).
func (c *Core) SetSampler(s Sampler) {
	c.sampler = s
	c.tmu, _ = s.(*TMU)
	c.pagesStale = true
}

var broadcastSmallImm = func() (t [isa.NumSmallImms][Lanes]uint32) {
	for code := range t {
		v, _ := isa.SmallImmediateValue(uint8(code))
		for l := range t[code] {
			t[code][l] = v
		}
	}
	return t
}()

var zeroes [Lanes]uint32

var poisoned = func() (t [Lanes]uint32) {
	for l := range t {
		t[l] = poison
	}
	return t
}()

func ff(u uint32) float32 { return math.Float32frombits(u) }
func fb(f float32) uint32 { return math.Float32bits(f) }

// Run executes p on batch b until END. It returns a *Fault on a page fault
// and a descriptive error when the program misbehaves (step limit, TMU FIFO
// misuse, VPM or varying reads out of range, bad dynamic branch). A program
// with a translation (Translate, TranslationCache) runs its translated form
// unless Core.Interpreted is set; the result is the same (translate.go).
func (c *Core) Run(p *Program, b *Batch) error {
	if err := c.begin(p, b); err != nil {
		return err
	}
	var err error
	if x := p.xlat.Load(); x != nil && !c.Interpreted {
		err = c.runTranslated(p, x, b)
		runtime.KeepAlive(x) // its native code must stay mapped while it runs
	} else {
		err = c.interpret(p, b)
	}
	c.Counts[b.Stage%MaxStages].DualIssued += c.dual
	c.dual = 0
	return err
}

// begin resets the core's and the batch's state for a run of p.
func (c *Core) begin(p *Program, b *Batch) error {
	b.Color = [4][Lanes]float32{}
	b.Z = [Lanes]float32{}
	b.ZWritten, b.Kill, b.Instructions = false, 0, 0
	switch b.Thread {
	case 0:
		c.thrXor = 0
	case 1:
		if p.upperRegs {
			return fmt.Errorf("qpu: program %#x names A16–A31/B16–B31 but runs as thread 1", p.Entry())
		}
		c.thrXor = 16
	default:
		return fmt.Errorf("qpu: batch thread %d (must be 0 or 1)", b.Thread)
	}
	for used := p.regsUsed; used != 0; used &= used - 1 {
		r := uint8(bits.TrailingZeros64(used))
		c.regs[r^c.thrXor] = poisoned
	}
	// Only the accumulators the program names: the others cannot be
	// observed by it (FS_FLAT names none; 384 bytes of stores per batch).
	c.poisonAccs(p.accsUsed)
	c.flagZ, c.flagN, c.flagC = 0, 0, 0
	c.sfuDelay = 0
	c.unifPtr = b.UniformsVA
	c.memLanes = 0xffff
	if b.Stage == StageCompute {
		c.memLanes = b.LaneMask
		b.Compute.Barriers, b.Compute.SharedAccesses = 0, 0
	}
	c.varyNext, c.vpmRead, c.vpmWrite = 0, 0, 0
	c.fifoHead, c.fifoLen, c.fifoPop = 0, 0, 0
	if c.texDirty {
		c.tex.reset()
		c.texDirty = false
	}
	if !c.retainPages || c.pagesStale {
		c.FlushPages()
	}
	c.checkShootdown()
	return nil
}

// interpret is the reference interpreter: one predecoded instruction at a
// time from the entry point.
func (c *Core) interpret(p *Program, b *Batch) error {
	pc := p.entry
	stop := c.firstStop()
	var steps uint64
	for {
		if steps >= stop {
			var err error
			if stop, err = c.checkpoint(p, steps); err != nil {
				b.Instructions = steps
				return err
			}
		}
		steps++
		next, end, err := c.step(p, pc, b)
		if err != nil || end {
			b.Instructions = steps
			return err
		}
		pc = next
	}
}

// step executes the instruction at code index pc and returns the index of
// the next one, or end when the program ended (err nil) or failed.
func (c *Core) step(p *Program, pc int32, b *Batch) (next int32, end bool, err error) {
	code := p.code
	in := &code[pc]
	if c.sfuDelay != 0 {
		c.sfuDelay--
		if c.sfuDelay == 0 {
			c.acc[4] = c.sfuVal
		}
	}
	next = pc + 1
	switch in.kind {
	case kindALU:
		if in.dualIssue() {
			c.dual++
		}
		if err := c.alu(in, b); err != nil {
			return 0, true, c.located(in, err)
		}
	case kindLoadImm:
		r := &c.res[0]
		broadcast(r, in.imm)
		if in.sf == sfImm {
			c.setFlagsInt(r)
		}
		if err := c.write(in.dstAdd, c.condMask(in.condAdd), r, b); err != nil {
			return 0, true, c.located(in, err)
		}
		if err := c.write(in.dstMul, c.condMask(in.condMul), r, b); err != nil {
			return 0, true, c.located(in, err)
		}
	case kindBranch:
		t, err := c.branch(p, in, b)
		if err != nil {
			return 0, true, c.located(in, err)
		}
		if t >= 0 {
			next = t
			c.checkShootdown()
		}
	default:
		return 0, true, fmt.Errorf("qpu: program %#x: executed undecoded address %#x", p.Entry(), p.base+uint32(pc)*isa.InstrBytes)
	}
	switch in.sig {
	case isa.SigLDTMU:
		if err := c.ldtmu(); err != nil {
			return 0, true, c.located(in, err)
		}
	case isa.SigTHRSW, isa.SigLastTHRSW:
		c.poisonAccs(p.accsUsed)
		c.sfuDelay = 0
	case isa.SigEND:
		return 0, true, c.endCheck(in)
	case isa.SigBarrier:
		if err := c.barrier(b); err != nil {
			return 0, true, c.located(in, err)
		}
	}
	if int(next) >= len(code) || next < 0 {
		return 0, true, ranPast(p, in)
	}
	return next, false, nil
}

// endCheck is END's check that the TMU FIFO was drained.
func (c *Core) endCheck(in *inst) error {
	if c.fifoLen != 0 {
		return c.located(in, fmt.Errorf("program ended with %d TMU results not popped", c.fifoLen))
	}
	return nil
}

func ranPast(p *Program, in *inst) error {
	return fmt.Errorf("qpu: program %#x: ran past the last decoded instruction at %#x", p.Entry(), in.addr)
}

func (c *Core) poisonAccs(used uint8) {
	for ; used != 0; used &= used - 1 {
		c.acc[bits.TrailingZeros8(used)] = poisoned
	}
}

func (c *Core) located(in *inst, err error) error {
	if f, ok := err.(*Fault); ok {
		f.PC = in.addr
		return err
	}
	return &InstrError{PC: in.addr, Err: err}
}

// condMask returns the lanes whose condition passes.
func (c *Core) condMask(cond isa.Cond) uint16 {
	switch cond {
	case isa.CondAlways:
		return 0xffff
	case isa.CondZS:
		return c.flagZ
	case isa.CondZC:
		return ^c.flagZ
	case isa.CondNS:
		return c.flagN
	case isa.CondNC:
		return ^c.flagN
	case isa.CondCS:
		return c.flagC
	case isa.CondCC:
		return ^c.flagC
	}
	return 0
}

// read performs one raddr read (A or B) and returns the operand array.
func (c *Core) read(kind, reg uint8, val *[Lanes]uint32, b *Batch) (*[Lanes]uint32, error) {
	switch kind {
	case rdReg:
		return &c.regs[reg^c.thrXor], nil
	case rdSmallImm:
		return &broadcastSmallImm[reg], nil
	case rdUniform:
		// Through the page cache: FS_FLAT is four uniform reads and
		// nothing else, and the interface call plus MMU walk per read
		// was a tenth of the "fill" scene (profile of 2026-11-21).
		v, ok := c.loads.hit(c.unifPtr)
		if !ok || c.unifPtr&3 != 0 {
			if v, ok = c.loads.read32(c.unifPtr); !ok {
				return nil, &Fault{VA: c.unifPtr}
			}
		}
		c.unifPtr += 4
		broadcast(val, v)
	case rdVarying:
		k := c.varyNext
		if (k+1)*Lanes > len(b.Varyings) {
			return nil, fmt.Errorf("VARYING read %d, but the batch has %d varyings", k, len(b.Varyings)/Lanes)
		}
		c.varyNext++
		floatsToBits(val, (*[Lanes]float32)(b.Varyings[k*Lanes:]))
	case rdVPM:
		k := c.vpmRead
		if k < 0 || (k+1)*Lanes > len(b.VPMIn) {
			return nil, fmt.Errorf("VPM read of input word %d, but the batch has %d", k, len(b.VPMIn)/Lanes)
		}
		c.vpmRead++
		floatsToBits(val, (*[Lanes]float32)(b.VPMIn[k*Lanes:]))
	case rdElement:
		for l := range val {
			val[l] = uint32(l)
		}
	case rdQPU:
		broadcast(val, b.QPUNumber)
	case rdZero:
		return &zeroes, nil
	case rdFragX:
		floatsToBits(val, &b.FragX)
	case rdFragY:
		floatsToBits(val, &b.FragY)
	case rdFragZ:
		floatsToBits(val, &b.FragZ)
	case rdFragW:
		floatsToBits(val, &b.FragW)
	case rdFrontFacing:
		*val = b.FrontFacing
	case rdPointS:
		floatsToBits(val, &b.PointS)
	case rdPointT:
		floatsToBits(val, &b.PointT)
	case rdLocalX, rdLocalY, rdLocalZ, rdLocalIndex, rdWorkgroupX, rdWorkgroupY, rdWorkgroupZ,
		rdNumGroupsX, rdNumGroupsY, rdNumGroupsZ:
		b.Compute.read(kind, val)
	default:
		return &zeroes, nil
	}
	return val, nil
}

// floatsToBits and floatsFromBits copy the lanes' bits unchanged (what fb
// and ff per lane give) as one 64-byte copy.
func floatsToBits(dst *[Lanes]uint32, src *[Lanes]float32) {
	*dst = *(*[Lanes]uint32)(unsafe.Pointer(src))
}

// broadcast stores v in every lane: eight 64-bit stores (both halves hold
// v, so the result does not depend on byte order). The 16-iteration loop
// it replaces was the costliest line of the "fill" scene's shader (a
// uniform read per instruction; profile of 2026-11-21).
func broadcast(dst *[Lanes]uint32, v uint32) {
	v2 := uint64(v) | uint64(v)<<32
	d := (*[Lanes / 2]uint64)(unsafe.Pointer(dst))
	d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7] = v2, v2, v2, v2, v2, v2, v2, v2
}

func (c *Core) alu(in *inst, b *Batch) error {
	if in.readA == rdReg {
		c.srcs[6] = &c.regs[in.regA^c.thrXor]
	} else if in.readA != rdNone {
		a, err := c.read(in.readA, in.regA, &c.valA, b)
		if err != nil {
			return err
		}
		c.srcs[6] = a
	}
	if in.readB == rdReg {
		c.srcs[7] = &c.regs[in.regB^c.thrXor]
	} else if in.readB != rdNone {
		v, err := c.read(in.readB, in.regB, &c.valB, b)
		if err != nil {
			return err
		}
		c.srcs[7] = v
	}
	radd, rmul := &c.res[0], &c.res[1]
	if in.opAdd != isa.OpNOP {
		if in.addDirect {
			radd = c.regPtr(in.dstAdd)
		} else if in.addTLB {
			radd = colorBits(b, in.dstAdd)
		}
		execAdd(in.opAdd, c.srcs[in.addA], c.srcs[in.addB], radd, b.Stage == StageFragment)
	}
	if in.opMul != isa.OpMulNOP {
		if in.mulDirect {
			rmul = c.regPtr(in.dstMul)
		} else if in.mulTLB {
			rmul = colorBits(b, in.dstMul)
		}
		execMul(in.opMul, c.srcs[in.mulA], c.srcs[in.mulB], rmul)
	}
	switch in.sf {
	case sfAddFloat:
		c.setFlagsFloat(radd)
	case sfAddInt:
		c.setFlagsInt(radd)
	case sfMulFloat:
		c.setFlagsFloat(rmul)
	case sfMulInt:
		c.setFlagsInt(rmul)
	}
	if in.dstAdd != dstNop && !in.addDirect && !in.addTLB {
		if err := c.write(in.dstAdd, c.condMask(in.condAdd), radd, b); err != nil {
			return err
		}
	}
	if in.dstMul != dstNop && !in.mulDirect && !in.mulTLB {
		if err := c.write(in.dstMul, c.condMask(in.condMul), rmul, b); err != nil {
			return err
		}
	}
	return nil
}

// colorBits views the TLB colour component dst as raw lane bits.
func colorBits(b *Batch, dst uint8) *[Lanes]uint32 {
	return (*[Lanes]uint32)(unsafe.Pointer(&b.Color[dst-dstTLBColorR]))
}

// regPtr returns the array of a register-file entry or r0–r3.
func (c *Core) regPtr(dst uint8) *[Lanes]uint32 {
	if dst < 64 {
		return &c.regs[dst^c.thrXor]
	}
	return &c.acc[dst-dstR0]
}

func (c *Core) setFlagsFloat(r *[Lanes]uint32) {
	var z, n, p uint16
	for l := range r {
		v := r[l]
		mag := v & 0x7fffffff
		if mag > 0x7f800000 { // NaN: all clear
			continue
		}
		bit := uint16(1) << l
		switch {
		case mag == 0:
			z |= bit
		case v>>31 != 0:
			n |= bit
		default:
			p |= bit
		}
	}
	c.flagZ, c.flagN, c.flagC = z, n, p
}

func (c *Core) setFlagsInt(r *[Lanes]uint32) {
	var z, n, p uint16
	for l := range r {
		v := int32(r[l])
		bit := uint16(1) << l
		switch {
		case v == 0:
			z |= bit
		case v < 0:
			n |= bit
		default:
			p |= bit
		}
	}
	c.flagZ, c.flagN, c.flagC = z, n, p
}

// writeLanes stores r into dst in the lanes of mask.
func writeLanes(dst, r *[Lanes]uint32, mask uint16) {
	if mask == 0xffff {
		*dst = *r
		return
	}
	for l := range dst {
		if mask&(1<<l) != 0 {
			dst[l] = r[l]
		}
	}
}

// write performs one unit's write of r to dst in the lanes of mask.
func (c *Core) write(dst uint8, mask uint16, r *[Lanes]uint32, b *Batch) error {
	if dst < 64 {
		if mask != 0 {
			writeLanes(&c.regs[dst^c.thrXor], r, mask)
		}
		return nil
	}
	switch dst {
	case dstR0, dstR1, dstR2, dstR3:
		if mask != 0 {
			writeLanes(&c.acc[dst-dstR0], r, mask)
		}
	case dstNop:
	case dstACC5:
		v := r[0]
		a := &c.acc[5]
		for l := range a {
			if mask&(1<<l) != 0 {
				a[l] = v
			}
		}
	case dstUniformsAddress:
		if mask&1 != 0 {
			c.unifPtr = r[0]
		}
	case dstVPMReadSetup:
		if mask&1 != 0 {
			c.vpmRead = int(r[0])
		}
	case dstVPMWriteSetup:
		if mask&1 != 0 {
			c.vpmWrite = int(r[0])
		}
	case dstVPM:
		k := c.vpmWrite
		if k < 0 || (k+1)*Lanes > len(b.VPMOut) {
			return fmt.Errorf("VPM write of output word %d, but the batch has %d", k, len(b.VPMOut)/Lanes)
		}
		c.vpmWrite++
		out := (*[Lanes]float32)(b.VPMOut[k*Lanes:])
		for l := range out {
			if mask&(1<<l) != 0 {
				out[l] = ff(r[l])
			}
		}
	case dstTLBKill:
		for l := range r {
			if mask&(1<<l) != 0 && r[l] != 0 {
				b.Kill |= 1 << l
			}
		}
	case dstTLBZ:
		if mask == 0xffff {
			b.Z = *fl(r)
			b.ZWritten = true
			return nil
		}
		for l := range r {
			if mask&(1<<l) != 0 {
				b.Z[l] = ff(r[l])
			}
		}
		if mask != 0 {
			b.ZWritten = true
		}
	case dstTLBColorR, dstTLBColorG, dstTLBColorB, dstTLBColorA:
		col := &b.Color[dst-dstTLBColorR]
		if mask == 0xffff {
			*col = *fl(r) // the bits as they are, as ff would give them
			return nil
		}
		for l := range r {
			if mask&(1<<l) != 0 {
				col[l] = ff(r[l])
			}
		}
	case dstSFURecip, dstSFURecipSqrt, dstSFUExp2, dstSFULog2:
		c.Counts[b.Stage%MaxStages].SFUOps++
		sfu(dst, mask, r, &c.sfuVal)
		c.sfuDelay = 2
		c.acc[4] = poisoned
	case dstTMUS:
		return c.texFetch(mask, r, b)
	case dstTMUT:
		floatsFromBits(&c.tex.T, r)
		c.texDirty = true
	case dstTMUR:
		floatsFromBits(&c.tex.R, r)
		c.texDirty = true
	case dstTMUB:
		floatsFromBits(&c.tex.Bias, r)
		c.tex.HasBias = true
		c.texDirty = true
	case dstTMULOD:
		floatsFromBits(&c.tex.LOD, r)
		c.tex.HasLOD = true
		c.texDirty = true
	case dstTMUAddr:
		return c.directLoad(mask, r)
	case dstTMUStoreData:
		writeLanes(&c.storeData, r, mask)
	case dstTMUStoreAddr:
		c.checkShootdown()
		mask &= c.memLanes
		for l := range r {
			if mask&(1<<l) != 0 {
				if !c.loads.storeWord(r[l], c.storeData[l]) {
					return &Fault{VA: r[l] &^ 3, Write: true}
				}
			}
		}
	case dstSharedLoad, dstSharedStore, dstSharedAtomic, dstTMUAtomic:
		return c.memoryPort(dst, mask&c.memLanes, r, b)
	default:
		panic(fmt.Sprintf("BUG: qpu: write to unknown destination %d", dst))
	}
	return nil
}

func floatsFromBits(dst *[Lanes]float32, src *[Lanes]uint32) {
	*dst = *(*[Lanes]float32)(unsafe.Pointer(src))
}

// sfu computes an SFU function for the lanes of mask (0 elsewhere). The
// function is chosen once per batch, not per lane (the "tris" scene's
// Phong shader normalises three vectors and raises a power per fragment).
func sfu(dst uint8, mask uint16, r, out *[Lanes]uint32) {
	switch dst {
	case dstSFURecip:
		vrecip(r, out)
	case dstSFURecipSqrt:
		vrsqrt(r, out)
	case dstSFUExp2:
		for l := range r {
			if mask&(1<<l) != 0 {
				out[l] = fb(float32(math.Exp2(float64(ff(r[l])))))
			}
		}
	default:
		for l := range r {
			if mask&(1<<l) != 0 {
				out[l] = fb(float32(math.Log2(float64(ff(r[l])))))
			}
		}
	}
	if mask != 0xffff {
		for l := range out {
			if mask&(1<<l) == 0 {
				out[l] = 0
			}
		}
	}
}

func (c *Core) push() (*tmuResult, error) {
	if c.fifoLen == tmuDepth {
		return nil, fmt.Errorf("TMU request with %d results outstanding (FIFO depth %d)", c.fifoLen, tmuDepth)
	}
	e := &c.fifo[(c.fifoHead+c.fifoLen)%tmuDepth]
	c.fifoLen++
	return e, nil
}

func (c *Core) texFetch(mask uint16, r *[Lanes]uint32, b *Batch) error {
	c.checkShootdown()
	e, err := c.push()
	if err != nil {
		return err
	}
	desc, ok := c.loads.read32(c.unifPtr)
	if !ok {
		return &Fault{VA: c.unifPtr}
	}
	c.unifPtr += 4
	floatsFromBits(&c.tex.S, r)
	c.tex.Mask = mask
	c.tex.Derivatives = b.Stage == StageFragment
	err = c.sampler.Sample(c.mem, desc, &c.tex, &c.texOut)
	sc := &c.Counts[b.Stage%MaxStages]
	sc.TMULanes += uint64(bits.OnesCount16(mask))
	if c.tmu != nil {
		sc.TMUTexels += c.tmu.texels
		sc.TMUPageMisses += c.tmu.pages.fills
		c.tmu.texels, c.tmu.pages.fills = 0, 0
	}
	if err != nil {
		return err
	}
	for k := 0; k < 4; k++ {
		if mask == 0xffff {
			e.vals[k] = *(*[Lanes]uint32)(unsafe.Pointer(&c.texOut[k]))
			continue
		}
		for l := 0; l < Lanes; l++ {
			v := uint32(0)
			if mask&(1<<l) != 0 {
				v = fb(c.texOut[k][l])
			}
			e.vals[k][l] = v
		}
	}
	e.n = 4
	c.tex.reset()
	c.texDirty = false
	return nil
}

func (c *Core) directLoad(mask uint16, r *[Lanes]uint32) error {
	c.checkShootdown()
	e, err := c.push()
	if err != nil {
		return err
	}
	e.n = 1
	out := &e.vals[0]
	mask &= c.memLanes
	for l := range r {
		if mask&(1<<l) == 0 {
			out[l] = 0
			continue
		}
		v, ok := c.loads.loadWord(r[l])
		if !ok {
			return &Fault{VA: r[l] &^ 3}
		}
		out[l] = v
	}
	return nil
}

func (c *Core) ldtmu() error {
	if c.fifoLen == 0 {
		return fmt.Errorf("LDTMU with an empty TMU FIFO")
	}
	e := &c.fifo[c.fifoHead]
	c.acc[4] = e.vals[c.fifoPop]
	c.sfuDelay = 0
	c.fifoPop++
	if c.fifoPop == e.n {
		c.fifoPop = 0
		c.fifoHead = (c.fifoHead + 1) % tmuDepth
		c.fifoLen--
	}
	return nil
}

// branch evaluates a branch, writes the link address and returns the
// target's instruction index, or -1 when not taken.
func (c *Core) branch(p *Program, in *inst, b *Batch) (int32, error) {
	link := in.addr + isa.InstrBytes
	var reg uint32
	if in.brReg {
		v, err := c.read(in.readA, in.regA, &c.valA, b)
		if err != nil {
			return -1, err
		}
		reg = v[0]
	}
	if in.dstAdd != dstNop || in.dstMul != dstNop {
		var lr [Lanes]uint32
		for l := range lr {
			lr[l] = link
		}
		if err := c.write(in.dstAdd, 0xffff, &lr, b); err != nil {
			return -1, err
		}
		if err := c.write(in.dstMul, 0xffff, &lr, b); err != nil {
			return -1, err
		}
	}
	if !c.taken(in.brCond) {
		return -1, nil
	}
	if !in.brReg {
		return in.target, nil
	}
	t := in.imm + reg
	if in.brRel {
		t += link
	}
	k := (t - p.base) / isa.InstrBytes
	if t%isa.InstrBytes != 0 || t < p.base || int(k) >= len(p.code) || p.code[k].kind == kindUndecoded {
		return -1, fmt.Errorf("branch to %#x, which is not a decoded instruction of this program", t)
	}
	return int32(k), nil
}

func (c *Core) taken(cond isa.BranchCond) bool {
	switch cond {
	case isa.BranchAllZS:
		return c.flagZ == 0xffff
	case isa.BranchAllZC:
		return c.flagZ == 0
	case isa.BranchAnyZS:
		return c.flagZ != 0
	case isa.BranchAnyZC:
		return c.flagZ != 0xffff
	case isa.BranchAllNS:
		return c.flagN == 0xffff
	case isa.BranchAllNC:
		return c.flagN == 0
	case isa.BranchAnyNS:
		return c.flagN != 0
	case isa.BranchAnyNC:
		return c.flagN != 0xffff
	case isa.BranchAllCS:
		return c.flagC == 0xffff
	case isa.BranchAllCC:
		return c.flagC == 0
	case isa.BranchAnyCS:
		return c.flagC != 0
	case isa.BranchAnyCC:
		return c.flagC != 0xffff
	}
	return true
}
