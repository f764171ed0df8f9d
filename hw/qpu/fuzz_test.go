package qpu

import (
	"encoding/binary"
	"testing"

	"github.com/tilegpu/tilegpu/hw/isa"
)

// FuzzLoadRun feeds arbitrary code to Load and runs whatever loads, with a
// small step limit: neither may panic or hang, whatever the words are.
func FuzzLoadRun(f *testing.F) {
	add := func(src string) {
		code, err := isa.AssembleProgram(src, codeVA)
		if err != nil {
			f.Fatal(err)
		}
		buf := make([]byte, 8*len(code))
		for k, w := range code {
			binary.LittleEndian.PutUint64(buf[8*k:], w)
		}
		f.Add(buf)
	}
	add(aluProgram())
	add("loop: sub.setf r0, r0, 1 ; nop\nbrr.anyzc loop\nnop ; nop ; end")
	add("li tmu_addr, 0x16000\nnop ; nop ; ldtmu\nnop ; mov vpm, r4\nnop ; nop ; end")
	add("li tmu_t, 0.5\nnop ; mov tmu_s, r0\nnop ; nop ; ldtmu\nnop ; nop ; ldtmu\nnop ; nop ; ldtmu\nnop ; nop ; ldtmu\nnop ; nop ; end")
	add("b ra1, nop, sub\nnop ; nop ; end\nsub: b ra1+0")
	f.Fuzz(func(t *testing.T, code []byte) {
		if len(code) > 8*512 {
			return
		}
		m := newFlatMem()
		copy(m.data[codeVA-memBase:], code)
		// Texture descriptor for any TMU_S: a valid 2x2 texture.
		m.put32(unifVA, texVA, texVA, texVA, texVA)
		m.put32(texVA, texVA+0x100, 2|2<<16, 1<<8|0x15<<16, 0, 0x688)
		p, err := Load(m.fetch, codeVA)
		if err != nil {
			return
		}
		for _, stage := range []Stage{StageFragment, StageVertex} {
			c := NewCore(pagedMem{m})
			c.StepLimit = 5000
			b := newBatch(stage)
			_ = c.Run(p, b)
			if b.Instructions > 5000 {
				t.Fatalf("ran %d instructions past the step limit", b.Instructions)
			}
		}
	})
}

// FuzzRunValid builds programs of valid instructions from the fuzz input
// (every field forced into its defined range, branches kept inside the
// program) so the interpreter itself, not the decoder, gets exercised.
func FuzzRunValid(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24})
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, data []byte) {
		code := validCode(t, data)
		if code == nil {
			return
		}
		m := newFlatMem()
		for k, word := range code {
			m.put32(codeVA+uint32(8*k), uint32(word), uint32(word>>32))
		}
		m.put32(unifVA, texVA, texVA, texVA, texVA, texVA, texVA, texVA, texVA)
		m.put32(texVA, texVA+0x100, 2|2<<16, 1<<8|0x15<<16, 0, 0x688)
		p, err := Load(m.fetch, codeVA)
		if err != nil {
			t.Fatalf("Load of valid code: %v", err)
		}
		for _, stage := range []Stage{StageFragment, StageVertex, StageCompute} {
			c := NewCore(pagedMem{m})
			c.StepLimit = 5000
			b := newBatch(stage)
			b.Compute.Shared = make([]uint32, 16)
			b.Thread = int(data[0] & 1)
			_ = c.Run(p, b)
		}
	})
}

// validCode builds a program of valid instructions from data (every field
// forced into its defined range, branches kept inside the program, the last
// instruction END), or nil when data holds no or too many instructions.
func validCode(t testing.TB, data []byte) []uint64 {
	n := len(data) / 8
	if n == 0 || n > 256 {
		return nil
	}
	sigs := []isa.Sig{isa.SigNone, isa.SigTHRSW, isa.SigBarrier, isa.SigLDTMU, isa.SigSmallImm, isa.SigLastTHRSW, isa.SigLoadImm, isa.SigBranch}
	validW := func(x uint64) isa.Waddr {
		w := isa.Waddr(x & 63)
		if !w.Valid() {
			return isa.WaddrNOP
		}
		return w
	}
	validR := func(x uint64, fileB bool) isa.Raddr {
		r := isa.Raddr(x & 63)
		if !r.ValidA() || (fileB && !r.ValidB()) {
			return isa.RaddrNOP
		}
		return r
	}
	code := make([]uint64, n)
	for k := 0; k < n; k++ {
		w := binary.LittleEndian.Uint64(data[8*k:])
		in := isa.Instr{Sig: sigs[w&7], CondAdd: isa.Cond(w >> 3 & 7), CondMul: isa.Cond(w >> 6 & 7),
			SF: w>>9&1 != 0, WS: w>>10&1 != 0, WaddrAdd: validW(w >> 11), WaddrMul: validW(w >> 17),
			OpAdd: isa.AddOp((w >> 23 & 63) % isa.NumAddOps), OpMul: isa.MulOp((w >> 29 & 7) % isa.NumMulOps),
			RaddrA: validR(w>>32, false), RaddrB: validR(w>>38, true),
			AddA: isa.Mux(w >> 44 & 7), AddB: isa.Mux(w >> 47 & 7), MulA: isa.Mux(w >> 50 & 7), MulB: isa.Mux(w >> 53 & 7),
			Imm: uint32(w >> 24), CondBr: isa.BranchCond(w >> 56 & 15)}
		if in.Sig == isa.SigSmallImm {
			in.RaddrB %= isa.NumSmallImms
		}
		if in.Sig == isa.SigBranch {
			if in.CondBr > isa.BranchAnyCC {
				in.CondBr = isa.BranchAlways
			}
			in.WaddrAdd, in.WaddrMul = isa.WaddrNOP, isa.WaddrNOP
			in.BranchImm = int32(codeVA + 8*(uint32(w>>40)%uint32(n)))
		}
		if k == n-1 {
			in = isa.Instr{Sig: isa.SigEND}
		}
		if in.OpAdd != isa.OpNOP && in.OpMul != isa.OpMulNOP && in.WaddrAdd == in.WaddrMul && !in.WaddrAdd.IsRegFile() {
			in.WaddrMul = isa.WaddrNOP
		}
		word := isa.Encode(in)
		if _, err := isa.Decode(word); err != nil {
			t.Fatalf("built an invalid instruction %+v: %v", in, err)
		}
		code[k] = word
	}
	return code
}
