package backend

import (
	"fmt"

	"github.com/tilegpu/tilegpu/hw/isa"
)

// Validate checks a scheduled, encoded program against the rules of the
// instruction set that no single instruction's encoding can show
// (docs/hardware.md §7), as Mesa's vc4_qpu_validate.c does for VideoCore
// IV. Compile runs it on every program it produces, so every test that
// compiles a shader checks its code. threaded says the program runs as one
// of two threads per core (hardware.md §7: it owns half of each register
// file).
//
// Each instruction must decode (isa.Decode checks fields and reserved
// values). Along every path of the control-flow graph, from the entry to
// an END:
//
//   - r4 after SFU: an SFU result reaches r4 at the second instruction
//     after the write, so the next instruction must not read r4, and
//     neither it nor the writing instruction may signal LDTMU or a thread
//     switch or write the SFU again (each of those would lose the result).
//   - TMU FIFO: a write to TMU_S queues a texture fetch (four LDTMU pops),
//     one to TMU_ADDR, SHARED_LOAD, TMU_ATOMIC or SHARED_ATOMIC a direct
//     or shared load or an atomic (one pop); at most four requests are
//     outstanding, LDTMU needs one, all are popped at END, and paths that
//     meet hold the same requests.
//   - Accumulators: r0–r5 are read only after a write on every path since
//     the start of the program or the last thread switch (THRSW and
//     LAST_THRSW lose them); r4 is written by LDTMU and by SFU results.
//   - Thread switches: none follows a LAST_THRSW on any path (so a
//     LAST_THRSW runs at most once and is the last).
//   - Half register files: a threaded program names only A0–A15/B0–B15.
//   - Branches are relative, land inside the program, and no path runs
//     past the last instruction.
func Validate(code []uint64, threaded bool) error {
	n := len(code)
	if n == 0 {
		return fmt.Errorf("validate: empty program")
	}
	ins := make([]isa.Instr, n)
	for pc, w := range code {
		in, err := isa.Decode(w)
		if err != nil {
			return fmt.Errorf("validate: instruction %d (%#016x): %v", pc, w, err)
		}
		ins[pc] = in
		if threaded {
			if err := checkHalfFile(in); err != nil {
				return fmt.Errorf("validate: instruction %d (%s): %v", pc, isa.Disasm(w), err)
			}
		}
	}
	// One state per instruction, by value (allocating each on first
	// reach was a twentieth of a small compile's allocations).
	states := make([]vstate, n)
	reached := make([]bool, n)
	reached[0] = true
	var succBuf [2]int
	work := []int{0}
	queued := make([]bool, n)
	queued[0] = true
	for len(work) > 0 {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		queued[pc] = false
		out, err := step(ins[pc], states[pc])
		if err != nil {
			return fmt.Errorf("validate: instruction %d (%s): %v", pc, isa.Disasm(code[pc]), err)
		}
		succs, err := successors(ins[pc], pc, n, succBuf[:0])
		if err != nil {
			return fmt.Errorf("validate: instruction %d (%s): %v", pc, isa.Disasm(code[pc]), err)
		}
		for _, s := range succs {
			changed, err := merge(&states[s], &reached[s], out)
			if err != nil {
				return fmt.Errorf("validate: instruction %d (%s), reached from %d: %v", s, isa.Disasm(code[s]), pc, err)
			}
			if changed && !queued[s] {
				queued[s] = true
				work = append(work, s)
			}
		}
	}
	return nil
}

// vstate is what the rules need to know before an instruction, on every
// path reaching it.
type vstate struct {
	acc       uint8 // r0–r5 written (bit k: rk) on every path
	sfu       bool  // the previous instruction wrote an SFU register
	afterLast bool  // a LAST_THRSW executed on some path
	nfifo     uint8
	fifo      [4]uint8 // pops left per outstanding TMU request, oldest first
}

// merge folds in into *d (taking it as is on first reach) and reports
// whether *d changed.
func merge(d *vstate, reached *bool, in vstate) (bool, error) {
	if !*reached {
		*d, *reached = in, true
		return true, nil
	}
	if d.nfifo != in.nfifo || d.fifo != in.fifo {
		// Copies, so that only this path moves the state to the heap.
		df, inf := d.fifo, in.fifo
		return false, fmt.Errorf("paths meet with different TMU requests outstanding (%v vs %v)",
			df[:d.nfifo], inf[:in.nfifo])
	}
	old := *d
	d.acc &= in.acc
	d.sfu = d.sfu || in.sfu
	d.afterLast = d.afterLast || in.afterLast
	return *d != old, nil
}

// step applies the rules to one instruction and returns the state after
// it.
func step(in isa.Instr, s vstate) (vstate, error) {
	isSwitch := in.Sig == isa.SigTHRSW || in.Sig == isa.SigLastTHRSW
	// Reads (ALU operands; the branch register is a register file read).
	for m := isa.MuxR0; m <= isa.MuxR5; m++ {
		if !in.ReadsMux(m) {
			continue
		}
		if m == isa.MuxR4 && s.sfu {
			return s, fmt.Errorf("reads r4 in the instruction after an SFU write (the result arrives one instruction later)")
		}
		if s.acc&(1<<m) == 0 {
			return s, fmt.Errorf("reads r%d, which no path has written since the start or the last thread switch", m)
		}
	}
	if s.sfu {
		switch {
		case in.Sig == isa.SigLDTMU:
			return s, fmt.Errorf("LDTMU in the instruction after an SFU write loses the SFU result")
		case isSwitch:
			return s, fmt.Errorf("thread switch in the instruction after an SFU write loses the SFU result")
		case writesSFU(in):
			return s, fmt.Errorf("SFU write in the instruction after an SFU write loses the first result")
		}
		s.acc |= 1 << 4 // the result lands before the next instruction
		s.sfu = false
	}
	// Writes, in the order the hardware applies them: ALU and load
	// immediate results, then the signal.
	ws, nw := writes(in)
	for _, w := range ws[:nw] {
		switch {
		case w >= isa.WaddrR0 && w <= isa.WaddrR3:
			s.acc |= 1 << (w - isa.WaddrR0)
		case w == isa.WaddrACC5:
			s.acc |= 1 << 5
		case w.QueuesResult():
			if s.nfifo == 4 {
				return s, fmt.Errorf("a fifth TMU request while four are outstanding (FIFO depth 4)")
			}
			pops := uint8(1) // direct and shared loads, atomics
			if w == isa.WaddrTMUS {
				pops = 4
			}
			s.fifo[s.nfifo] = pops
			s.nfifo++
		}
	}
	if writesSFU(in) {
		if in.Sig == isa.SigLDTMU || isSwitch {
			return s, fmt.Errorf("signal %v in the instruction that writes the SFU loses the SFU result", in.Sig)
		}
		s.sfu = true
	}
	switch {
	case in.Sig == isa.SigLDTMU:
		if s.nfifo == 0 {
			return s, fmt.Errorf("LDTMU with no TMU request outstanding")
		}
		s.fifo[0]--
		if s.fifo[0] == 0 {
			copy(s.fifo[:], s.fifo[1:])
			s.fifo[3] = 0
			s.nfifo--
		}
		s.acc |= 1 << 4
	case isSwitch:
		if s.afterLast {
			return s, fmt.Errorf("thread switch after a LAST_THRSW")
		}
		s.afterLast = in.Sig == isa.SigLastTHRSW
		s.acc = 0
	case in.Sig == isa.SigEND:
		if s.nfifo != 0 {
			return s, fmt.Errorf("END with %d TMU requests not popped", s.nfifo)
		}
	}
	return s, nil
}

// writes lists the write addresses an instruction writes (units whose op
// is NOP write nothing; a branch writes its link address), in a fixed
// array (no allocation per instruction) with their count.
func writes(in isa.Instr) ([2]isa.Waddr, int) {
	var buf [2]isa.Waddr
	out := buf[:0]
	switch {
	case in.Sig == isa.SigLoadImm:
		if in.CondAdd != isa.CondNever {
			out = append(out, in.WaddrAdd)
		}
		if in.CondMul != isa.CondNever {
			out = append(out, in.WaddrMul)
		}
	case in.Sig == isa.SigBranch:
		out = append(out, in.WaddrAdd, in.WaddrMul)
	default:
		if in.OpAdd != isa.OpNOP {
			out = append(out, in.WaddrAdd)
		}
		if in.OpMul != isa.OpMulNOP {
			out = append(out, in.WaddrMul)
		}
	}
	return buf, len(out)
}

func writesSFU(in isa.Instr) bool {
	ws, nw := writes(in)
	for _, w := range ws[:nw] {
		if w.IsSFU() {
			return true
		}
	}
	return false
}

// successors returns the instructions that may run after the one at pc.
func successors(in isa.Instr, pc, n int, out []int) ([]int, error) {
	if in.Sig == isa.SigEND {
		return nil, nil
	}
	if in.Sig == isa.SigBranch {
		if in.Reg {
			return nil, fmt.Errorf("branch through a register: targets cannot be checked")
		}
		if !in.Rel {
			return nil, fmt.Errorf("absolute branch: the program's load address is not known")
		}
		off := int(in.BranchImm)
		if off%isa.InstrBytes != 0 {
			return nil, fmt.Errorf("branch offset %d is not a multiple of %d", off, isa.InstrBytes)
		}
		t := pc + 1 + off/isa.InstrBytes
		if t < 0 || t >= n {
			return nil, fmt.Errorf("branch target %d outside the program (0..%d)", t, n-1)
		}
		out = append(out, t)
		if in.CondBr == isa.BranchAlways {
			return out, nil
		}
	}
	if pc+1 >= n {
		return nil, fmt.Errorf("runs past the last instruction without END")
	}
	return append(out, pc+1), nil
}

// checkHalfFile reports a register-file access outside A0–A15/B0–B15.
func checkHalfFile(in isa.Instr) error {
	if in.ReadsA() && in.RaddrA < 32 && in.RaddrA >= 16 {
		return fmt.Errorf("threaded program reads A%d (only A0–A15 are its own)", in.RaddrA)
	}
	if in.ReadsB() && in.RaddrB < 32 && in.RaddrB >= 16 {
		return fmt.Errorf("threaded program reads B%d (only B0–B15 are its own)", in.RaddrB)
	}
	ws, nw := writes(in)
	for _, w := range ws[:nw] {
		if w.IsRegFile() && w >= 16 {
			return fmt.Errorf("threaded program writes register %d of a file (only 0–15 are its own)", w)
		}
	}
	return nil
}
