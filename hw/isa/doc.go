// Package isa is the TG shader-core (QPU) instruction set: the 64-bit
// encoding of docs/hardware.md §7.2, its decoder, a disassembler and a
// one-line assembler that is the exact inverse of the disassembler.
//
// It is the shared vocabulary between the compiler back end (which builds
// Instr values and calls Encode) and the virtual hardware (hw/qpu, which
// calls Decode once per instruction when it predecodes a program).
//
// # Canonical encodings
//
// Every field an instruction does not use must be zero: the condition,
// write address and muxes of a unit whose op is NOP; the second mux of a
// unary op; raddr_a when no operand reads mux A; raddr_b when no operand
// reads mux B; ws when no unit writes a register file; a load-immediate
// half's write address when its condition is NEVER; the branch register
// when Reg is false. Decode rejects a word that breaks this rule (the
// hardware refuses to run it), and Encode produces canonical words from any
// Instr by clearing unused fields. Because of this rule, Disasm shows every
// bit of a valid word and Assemble(Disasm(w)) == w for every w that decodes.
//
// Branch link destinations are the exception to "unused is zero": a branch
// always writes its link address to both WaddrAdd and WaddrMul, so a branch
// that does not link names WaddrNOP for both (the assembler's default).
//
// # Assembly syntax
//
// An ALU instruction is the add-unit part, the mul-unit part and an optional
// signal, separated by ';':
//
//	fadd.ifzs.setf r0, ra1, rb2 ; fmul rb3, r4, r1 ; ldtmu
//	nop ; nop ; thrsw
//	add r1, r1, -1 ; mov tmu_s, r0          (small immediate: shown as its value)
//	fmul.ifnc r2, a.unif, 0.5 ; nop
//
// A part is `op[.cond][.setf] dst, a[, b]` or `nop`. Conditions: .never,
// (always: no suffix), .ifzs .ifzc .ifns .ifnc .ifcs .ifcc; the assembler
// also accepts .ifz .ifnz .ifn .ifnn .ifc. `.setf` goes on the add part, or
// on the mul part when the add part is nop. Operands: r0–r5, ra0–ra31,
// rb0–rb31, the read-only specials a.unif b.unif a.vary b.vary a.vpm b.vpm
// a.nop b.nop elem_num qpu_num frag_x frag_y frag_z frag_w front_facing
// point_s point_t, the compute inputs local_id_x local_id_y local_id_z
// local_index wg_id_x wg_id_y wg_id_z num_wg_x num_wg_y num_wg_z, and small immediates (-16..15, 1.0, 2.0 … 128.0,
// 0.00390625 … 0.5). The assembler accepts plain unif/vary/vpm and picks the
// free file. Destinations: r0–r3, r5, ra0–ra31, rb0–rb31 (the add unit
// writes A and the mul unit B unless ws swaps them; the assembler sets ws
// from the names), nop, unif_addr, tlb_kill, tlb_z, tlb_r, tlb_g, tlb_b,
// tlb_a, vpm, vpm_rd_setup, vpm_wr_setup, sfu_recip, sfu_recipsqrt,
// sfu_exp2, sfu_log2, tmu_s, tmu_t, tmu_r, tmu_b, tmu_lod, tmu_addr,
// tmu_stdata, tmu_staddr, and the compute memory ports shared_ld,
// shared_st, shared_atomic, tmu_atomic. Signals: thrsw, end, ldtmu,
// lthrsw, barrier.
//
// Load immediate writes the 32-bit value through both halves:
//
//	li ra3, 0x3f800000
//	li.ifzs.setf r0, 0x1 ; li.ifzc rb2, 0x1
//	nop ; li rb2, 0x7
//
// Branches (no delay slots): `b` is absolute, `brr` relative to the next
// instruction; an optional register (lane 0 of an A read) is added; two
// optional link destinations come first:
//
//	b.anyzc 0x40
//	brr.allns -16
//	b ra1, nop, ra3+0x10
//
// Comments start with '#' or "//". `.word 0x…` assembles a raw word
// unchecked (Disasm prints undecodable words that way).
package isa
