// Package qpu is the TG shader core: an interpreter of the hw/isa
// instruction set that runs one 16-lane batch ("thread") at a time, and the
// texture unit (TMU) that serves its texture fetches. It carries §7 and §6.2
// of docs/hardware.md for package hw, which owns memory, the MMU and the
// pipeline around the cores.
//
// # Use
//
//	p, err := qpu.Load(fetch, pc)   // predecode once; cache by address
//	core := qpu.NewCore(mem)        // one per worker goroutine
//	err = core.Run(p, &batch)       // *qpu.Fault on a page fault
//
// A Program is immutable and may be shared by any number of goroutines. A
// Core is not safe for concurrent use; each worker goroutine owns one. A
// Batch is the core's whole view of the outside world for one run: its
// inputs (uniform stream address, VPM input, varyings, FRAG_* values) and
// its results (colour, depth, kill mask, VPM output, instruction count).
//
// # How it executes
//
// Load decodes every reachable instruction exactly once (following the
// straight line until END or an unconditional jump, and every static branch
// target) into a dense slice of small structs indexed by (address−base)/8.
// Read addresses, write addresses, conditions and muxes are resolved into
// small integers so that Run does no map lookups and no per-lane dispatch:
// each op is one switch case over [16]uint32 arrays (the common lane-wise
// ops unrolled, kernels_gen.go). Per-lane flags Z, N, C and conditions are
// 16-bit masks. When a unit's condition is ALWAYS and its destination is a
// register the other unit does not read, the op computes straight into the
// destination; otherwise into a temporary that is then copied (full mask)
// or selected per lane. BenchmarkRun measured about 35–45 ns per dual-issue
// instruction (16 lanes, two ops) on the shared 2-core development machine
// before translation and the SSE2 kernels.
//
// Within one instruction the order is: the A read, the B read (each may
// consume a uniform, varying or VPM word), both ops, flags, the add unit's
// write, the mul unit's write, then the signal (LDTMU, THRSW, END). A write
// to TMU_S or VPM happens (consuming a uniform or advancing the VPM word)
// even when no lane's condition passes, so the streams stay in step with
// the program text.
//
// # Translation
//
// Translate (or a TranslationCache, which package hw shares GPU-wide)
// turns a Program into blocks of pre-bound micro-ops (translate.go); Run
// executes that form when a program has it. The interpreter above remains
// the reference: Core.Interpreted forces it, and the differential tests
// (translate_test.go, corpus_xlat_test.go, FuzzTranslate) require both to
// leave identical registers, flags, memory, errors and instruction counts.
// Core.XlatInstructions counts the instructions run as translated code.
// The commonest lane kernels (FADD, FSUB, FMUL, integer add, sub, and, or,
// xor) are SSE2 assembly on amd64 (kernels_amd64.s), used by both.
// On amd64 each run of ALU kernel micro-ops of a translation is also
// compiled to straight-line native code (native_amd64.go: AVX2 or SSE2,
// mapped read-write then read+execute, entered through callNative);
// Core.NoNative and the purego build tag turn it off, and
// Core.NativeInstructions counts the instructions whose ALU ops ran there.
//
// # Behaviour beyond the hardware document (chosen here, tested)
//
//   - Dual issue: both units read their operands (and the A and B reads
//     happen, A first) before either unit writes.
//   - Flags are set in every lane, whatever the write conditions.
//   - Load immediate with sf sets flags from the immediate read as an integer.
//   - MOV and OR are integer ops for flags; FMIN/FMAX are IEEE 754-2008 minNum/
//     maxNum (a single NaN operand yields the other one) and order −0 below +0; FSIGN of NaN is 0; FMULABS behaves as FMUL (hardware.md).
//   - Writes to single-value registers (ACC5 broadcast, UNIFORMS_ADDRESS,
//     VPM_*_SETUP) take lane 0's value and happen only if lane 0's condition
//     passes (ACC5: in every lane whose condition passes).
//   - r4 reads in the instruction right after an SFU write return the
//     poison value 0x7fc0dead (a NaN); so does every accumulator after THRSW
//     or LAST_THRSW and every register not yet written in this batch, so a
//     program that depends on an undefined value gives visibly wrong output
//     instead of scheduling-dependent output.
//   - TMU_T/R/B/LOD writes stage parameters for the next TMU_S write only.
//     Staging takes every lane's value (so derivatives see the whole quad);
//     the TMU_S write condition decides which lanes receive results.
//   - LDTMU with an empty FIFO, a fifth outstanding TMU request, and END with
//     results still in the FIFO are errors.
//   - Batch.Thread selects the register-file half: 0 uses the registers as
//     named, 1 adds 16. A program run as thread 1 that names a register
//     ≥ 16 is an error (it would corrupt thread 0's half).
//   - A branch writes its link address in every lane; its register operand
//     (lane 0) may only lead to addresses Load decoded (a return address
//     after a linking branch, or a static target).
//   - Direct loads and stores (TMU_ADDR, TMU_STORE_ADDR) access the aligned
//     word atomically (sync/atomic): cores on other goroutines may load and
//     store the same word at the same time; one store wins, whole.
//   - A Mem that implements PageEpoch can revoke pages while a core runs
//     (a TLB shootdown): the core drops its cached pages before its next
//     TMU access or at its next taken branch.
//   - Core.StepLimit (default 1<<24, 0 unbounded) bounds the instructions of one
//     Run; Core.Poll, when set, runs every PollInterval instructions (budget.go).
package qpu
