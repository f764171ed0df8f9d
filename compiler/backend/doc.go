// Package backend turns the scalar SSA IR of compiler/ir into TG shader-core
// (QPU) machine code: the code generator at the bottom of the compiler
// (docs/ARCHITECTURE: compiler/glsl → compiler/ir → compiler/backend),
// modelled on Mesa's vc4 back end (QIR, vc4_register_allocate.c,
// vc4_qpu_schedule.c, vc4_qpu_emit.c).
//
// # Phases
//
// Each phase is a separate exported function with its own tests, in the
// wazero style, and Compile runs them in order:
//
//  1. Select: ir.Func → *Program, the machine IR ("QIR"): instructions over
//     virtual registers (temps) that already name the hardware's read
//     specials (UNIFORM, VARYING, VPM, FRAG_*, …), magic write addresses
//     (SFU, TMU, TLB, VPM), r4 results, conditions and flags. A comparison
//     used only by a select becomes flags and conditional moves directly;
//     dead code is removed and single-use values are sunk next to their
//     reader so that they fit accumulators; uniform and attribute reads
//     then sink to their first reader too (inputs.go).
//  2. RegAlloc: class-based graph colouring with spilling (below). The
//     result is the same Program with every temp replaced by r0–r4, A or B,
//     plus the moves into r3 that make every instruction encodable on its
//     own, checked with the encoder's own packing: one A and one B read,
//     small immediates and B-only specials through raddr_b, A-only
//     specials through raddr_a, a UNIFORM/VARYING/VPM read through either
//     port (one word per instruction: an operand pair naming one stream
//     twice is one word, read into r3 first).
//  3. Schedule: per basic block list scheduling (critical-path priority)
//     over the allocated code. It honours register, flag and stream
//     dependencies, the SFU→r4 latency (result readable from the second
//     instruction after the write, also across block boundaries), the TMU
//     FIFO order, and pairs an add-unit op with a mul-unit op (and a
//     signal such as LDTMU) into one instruction when the raddr constraints
//     allow (one A and one B read, small immediates in B). Operands are read
//     before results are written, so an instruction may overwrite a
//     register that the same instruction reads. It runs after allocation,
//     as vc4_qpu_schedule.c does, because pairing depends on which file
//     each operand ended up in.
//  4. Encode: bundles → isa.Instr → 64-bit words (hw/isa), resolving branch
//     offsets and building the uniform stream in final code order.
//
// # Control flow
//
// The hardware runs all 16 lanes through every instruction. Structured
// If/Loop nodes become per-lane execution masks: a temp "exec" holds 0 in
// active lanes. Writes that must not disturb inactive lanes (loop-carried
// phis, If-merge phis written from the Else side, TMU direct loads) are
// conditional on it (mov.setf of exec, then cond ZS). Everything else is
// computed unconditionally: an inactive lane's temps are garbage nobody
// reads. Real branches (b.allzc / b.anyzs on exec) skip a region no lane
// executes and leave a loop once no lane runs another iteration, so loops
// with per-lane trip counts iterate until the last lane finishes. An If
// whose condition is a comparison used by nothing else, computed right
// before it, sets exec from the comparison's flags (no 0/1 value); at top
// level, where every lane is active, Then is skipped by a branch on those
// flags (b.allnc after fsub.setf for a < b), and Else's mask is derived
// from Then's (exec ^ 1, or'ed with the enclosing mask when nested).
//
// Two-thread fragment shaders switch threads (THRSW) after every texture
// request, or batch of requests (below). The switch of the last fetch is LAST_THRSW when every run
// executes it exactly once and no switch follows: it is outside loops and
// not in a region a branch may skip. With a fetch in a loop no switch is
// marked last, since none is statically the last one executed.
//
// # Uniform stream
//
// The stream is sequential and Binary.Uniforms is built from the final code
// order, so each read must execute exactly once per batch, in code order.
// Uniforms, varyings and attributes are read where they are first needed
// (inputs.go): a value used in top-level code at that use, one used inside
// an If or Loop just before that top-level If or Loop; varyings in index
// order and VPM words ascending (a read of a later one first reads the
// earlier ones). A read whose value has a single user that is one plain
// ALU op or output write at top level is folded into the user as its
// UNIFORM, VARYING or VPM operand (as vc4 does for uniforms). A
// texture fetch's TMU_S write consumes one entry, its descriptor. If no
// fetch sits inside a Loop, fetches consume their entries in program order
// and regions that contain one are never skipped by a uniform branch: the
// TMU_S write executes unconditionally-in-order (its lanes masked by the
// coordinates only). If a fetch sits inside a loop, all uniforms are
// read at the start of the entry block and every TMU_S write is preceded by a write of
// UNIFORMS_ADDRESS = stream base + 4·(its entry's position), the stream
// base being itself an entry (ir.UniformStreamAddress); then no fetch
// depends on how many others ran before it.
//
// # Register allocation
//
// Classes follow vc4: accumulators r0–r2 (r3 is kept for the moves that fix
// two reads from one register file, and for spill addresses), r4 (only for
// a value moved out of r4 right after an SFU/TMU result and not live across
// another r4 write), file A and file B (A0–31/B0–31, or 0–15 for a
// threaded fragment shader). Values live across a THRSW may not be in
// accumulators, nor values read where some path has not written them (an
// If phi when branches may skip both Then and Else): Validate requires an
// accumulator to be written on every path before it is read. Live intervals come from block-level dataflow liveness
// (restricted to where some definition reaches, so a conditionally written
// temp does not look live from the program start) over the linear block
// order, extended over whole loops for loop-carried values. Two temps
// interfere when their intervals overlap. The phi of an If counts as
// defined where the If starts and by its Else-side write (conditional on
// the Else lanes: the other lanes ran Then, which defined it before in
// the linear order, or are inactive), so it is not live around an
// enclosing loop through the paths that skip Then or Else.
//
// Colouring is Runeson & Nyström's class-based scheme as in Mesa's
// register_allocate.c: a node of class C is trivially colourable when
// Σ q(C, class(n)) over its neighbours n is below p(C), where p(C) is the
// number of registers of C and q(C, D) the most registers of C one
// neighbour of class D can block. Simplify removes such nodes; when none is
// left the node with the lowest spill cost per degree is removed
// optimistically. Select pops nodes and takes the first free register in a
// per-node order: short-lived values try the accumulators first, long-lived
// ones the register files first (so accumulators go to short-lived values,
// vc4's sort by interval length). Between A and B, a breadth-first greedy
// max-cut of the "read together" graph picks each value's file, so that
// the two operands of an instruction (a uniform and an attribute in a
// matrix product) sit in different files; a remaining conflict costs one
// move into r3.
//
// When select cannot colour a node, the spill candidate is the spillable
// temp with the lowest cost/degree among that node and its coloured
// neighbours (only they free a register there), where cost is
// Σ 10^loopdepth over its defs and uses, and not chosen yet this round:
// every failing node needs a register of its own. A chosen neighbour
// gives its register to the failing node, so the rest of the round sees
// the pressure the next round will, and one round spills what the
// colouring needs (the difftest reproducer with ~140 values live at once
// for 35 registers converges in 3 rounds); then liveness and colouring
// run again. Temps created by
// spilling (and the scratch base) are never chosen; they are coloured
// first. A spilled temp is stored
// after each def (TMU_STORE_DATA, then TMU_STORE_ADDR with the def's
// condition) and filled before each use (TMU_ADDR, LDTMU, move from r4),
// at ScratchAddress + QPU_NUMBER·ScratchBytesPerThread + lane·4 + slot·64.
// The scratch base comes from the uniform stream (ir.UniformScratchAddress);
// fills go before atomic SFU/TMU sequences, never inside them (one fill
// per spilled temp for the whole sequence); stores of values a sequence
// defines follow each definition inside it (a store does not use the TMU
// FIFO), so a texture batch's sixteen results need not be live at once.
//
// # Texture batches
//
// Up to four independent fetches of one IR block are queued before the
// first result is popped (hardware.md §7.1: FIFO depth 4), with one thread
// switch for the batch. Output writes and discards between them do not end
// a batch; other effects and load_storage do. When the stream is rewound
// each request writes UNIFORMS_ADDRESS for its own descriptor (offset via
// r3). A batch takes at most as many distinct operands as the allocator's
// registers less two, since all are live (or filled) at its start.
package backend
