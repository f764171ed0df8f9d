// Package difftest is the compiler's differential test: the reference
// interpreter of the IR (compiler/ir.Interpret) is the oracle, and the code
// the real pipeline produces (compiler/glsl → compiler/ir passes →
// compiler/backend) runs on the shader-core interpreter (hw/qpu) over one
// 16-lane batch with different inputs in every lane. It carries the
// "differential testing" habit of ../shared/design/STYLE.md for the
// compiler: a slow, obviously correct reference checks the fast path.
//
// Generate turns a byte string into a random, well-typed GLSL ES 1.00
// fragment shader (float, int and bool scalars and vectors; arithmetic,
// comparisons, ?:, swizzles, built-ins; if/else, for, while and do-while
// loops with per-lane trip counts, break, continue, discard; user functions
// with early returns, inlined by the lowering). Check compiles it and
// compares three runs lane by lane:
//
//  1. ir.Interpret on the IR straight from the AST (before any pass),
//  2. ir.Interpret on the scalar IR the backend receives, and
//  3. the machine code on hw/qpu, compiled as compiler.Program.Variant
//     does (two threads per core unless that spills; a two-thread shader
//     runs as thread 1, in the upper register-file half).
//
// 1 ≠ 2 is a bug in an IR pass, 2 ≠ 3 a bug in the backend (or the
// hardware model). Both interpretations follow the hardware's arithmetic
// (hardware.md §7.2), so 1 and 2 must agree exactly. Between 2 and 3 an
// output word that depends on an SFU op (rcp, rsq, exp2, log2 — the
// approximate units of real hardware) may differ by a relative 2^-16;
// every other word must be bit-identical (NaN equals NaN, +0 equals −0).
// A disagreement is a *Mismatch carrying the GLSL source, the IR dumps, the
// disassembly and the lanes that differ with their inputs.
package difftest
