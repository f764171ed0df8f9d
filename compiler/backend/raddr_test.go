package backend

import (
	"fmt"
	"math"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
	"github.com/tilegpu/tilegpu/hw/isa"
	"github.com/tilegpu/tilegpu/hw/qpu"
)

// raddrOperand is one kind of ALU operand for the read-address tests.
type raddrOperand struct {
	name string
	reg  Reg
}

// The operand kinds: accumulator, file A, file B, the two stream reads
// that may use either read port, a small immediate (raddr_b), and the
// specials tied to one port.
var raddrOperands = []raddrOperand{
	{"r1", Acc(1)},
	{"ra1", RegA(1)},
	{"ra2", RegA(2)},
	{"rb1", RegB(1)},
	{"rb2", RegB(2)},
	{"unif", Spec(SpecUniform)},
	{"vary", Spec(SpecVarying)},
	{"imm3", imm(3)},
	{"imm-2", imm(-2)},
	{"elem_num(A)", Spec(SpecElementNumber)},
	{"qpu_num(B)", Spec(SpecQPUNumber)},
	{"frag_x(A)", Spec(SpecFragX)},
	{"frag_y(B)", Spec(SpecFragY)},
}

// raddrHarness builds straight-line fragment programs over physical
// registers and computes, in program order, what each operand reads.
type raddrHarness struct {
	p       *Program
	b       *Block
	nextVar int                // varyings read so far
	vals    map[Reg][16]uint32 // register contents (for the model)
}

const (
	raddrR1, raddrA1, raddrA2, raddrB1, raddrB2 = 0x30000, 0x100, 0x700, 0x2000, 0x5000
	raddrQPUNumber                              = 3
)

func raddrVarying(i, lane int) uint32 { return uint32(0x10000*(i+1) + 0x11*lane) }
func raddrUniform(entry int) uint32   { return uint32(0x1000000 + 0x10101*entry) }
func raddrFrag(y bool, lane int) float32 {
	if y {
		return float32(lane/4) + 0.5
	}
	return float32(lane%4) + 0.5
}

func newRaddrHarness() *raddrHarness {
	h := &raddrHarness{b: &Block{}, vals: map[Reg][16]uint32{}}
	h.p = &Program{Stage: ir.Fragment, Blocks: []*Block{h.b}}
	for _, c := range []struct {
		r Reg
		v uint32
	}{{Acc(1), raddrR1}, {RegA(1), raddrA1}, {RegA(2), raddrA2}, {RegB(1), raddrB1}, {RegB(2), raddrB2}} {
		li := newInst(OpLoadImm, c.r, Reg{}, Reg{})
		li.Imm = c.v
		h.b.Insts = append(h.b.Insts, li)
		var v [16]uint32
		for l := range v {
			v[l] = c.v
		}
		h.vals[c.r] = v
	}
	return h
}

// read returns what operand r of the next instruction holds in each lane;
// stream reads advance the model's streams once per instruction (a
// stream read twice by one instruction is the same word).
func (h *raddrHarness) read(r Reg, entry int, varying int) [16]uint32 {
	var v [16]uint32
	for l := range v {
		switch {
		case r.File == FileSmallImm:
			v[l], _ = isa.SmallImmediateValue(uint8(r.Index))
		case r == Spec(SpecUniform):
			v[l] = raddrUniform(entry)
		case r == Spec(SpecVarying):
			v[l] = raddrVarying(varying, l)
		case r == Spec(SpecElementNumber):
			v[l] = uint32(l)
		case r == Spec(SpecQPUNumber):
			v[l] = raddrQPUNumber
		case r == Spec(SpecFragX):
			v[l] = math.Float32bits(raddrFrag(false, l))
		case r == Spec(SpecFragY):
			v[l] = math.Float32bits(raddrFrag(true, l))
		default:
			v[l] = h.vals[r][l]
		}
	}
	return v
}

// op appends dst = a op b (integer ADD on the add unit or MUL24 on the
// mul unit) and returns the expected result.
func (h *raddrHarness) op(mul bool, dst, a, b Reg) [16]uint32 {
	o := AddOp(isa.OpADD)
	if mul {
		o = OpMul24
	}
	in := newInst(o, dst, a, b)
	entry := -1
	if a == Spec(SpecUniform) || b == Spec(SpecUniform) {
		entry = len(h.p.UniformTable)
		in.Uniform = entry
		h.p.UniformTable = append(h.p.UniformTable, ir.UniformEntry{Kind: ir.UniformConstant, Value: raddrUniform(entry)})
	}
	varying := -1
	if a == Spec(SpecVarying) || b == Spec(SpecVarying) {
		varying = h.nextVar
		h.nextVar++
	}
	h.b.Insts = append(h.b.Insts, in)
	x, y := h.read(a, entry, varying), h.read(b, entry, varying)
	var r [16]uint32
	for l := range r {
		if mul {
			r[l] = (x[l] & 0xffffff) * (y[l] & 0xffffff)
		} else {
			r[l] = x[l] + y[l]
		}
	}
	h.vals[dst] = r
	return r
}

// out writes r to a TLB colour register (index 0..3).
func (h *raddrHarness) out(c int, r Reg) {
	h.b.Insts = append(h.b.Insts, newInst(OpMov, Magic(isa.WaddrTLBColorR+isa.Waddr(c)), r, Reg{}))
}

// run fixes the read-address conflicts, schedules, encodes and executes
// the program, and returns the TLB colour words.
func (h *raddrHarness) run(t *testing.T) (out [4][16]uint32, listing string) {
	t.Helper()
	fixupRaddrConflicts(h.p)
	s := Schedule(h.p)
	code, stream, err := Encode(h.p, s)
	if err != nil {
		t.Fatalf("%v\n%s", err, h.p)
	}
	listing = h.p.String() + Disasm(code)
	mem := mapMem{}
	for i, w := range code {
		mem[codeVA+uint32(8*i)] = uint32(w)
		mem[codeVA+uint32(8*i)+4] = uint32(w >> 32)
	}
	for i, e := range stream {
		mem[unifVA+uint32(4*i)] = e.Value
	}
	prog, err := qpu.Load(func(va uint32) (uint64, bool) {
		lo, ok1 := mem[va]
		hi, ok2 := mem[va+4]
		return uint64(hi)<<32 | uint64(lo), ok1 && ok2
	}, codeVA)
	if err != nil {
		t.Fatalf("load: %v\n%s", err, listing)
	}
	b := &qpu.Batch{Stage: qpu.StageFragment, UniformsVA: unifVA, QPUNumber: raddrQPUNumber, LaneMask: 0xffff}
	b.Varyings = make([]float32, 8*16)
	for i := 0; i < 8; i++ {
		for l := 0; l < 16; l++ {
			b.Varyings[i*16+l] = math.Float32frombits(raddrVarying(i, l))
		}
	}
	for l := 0; l < 16; l++ {
		b.FragX[l], b.FragY[l] = raddrFrag(false, l), raddrFrag(true, l)
	}
	if err := qpu.NewCore(mem).Run(prog, b); err != nil {
		t.Fatalf("run: %v\n%s", err, listing)
	}
	for c := range out {
		for l := range out[c] {
			out[c][l] = math.Float32bits(b.Color[c][l])
		}
	}
	return out, listing
}

// TestRaddrOperandFiles runs one add-unit and one mul-unit op over every
// pair of operand kinds and every destination file: whatever the
// read-address constraints (one A and one B read, small immediates and
// B-only specials in raddr_b, A-only specials in raddr_a, a stream read
// through either port consuming its word once) the allocated program must
// encode (fixupRaddrConflicts inserts the moves) and compute the right
// values, with the uniform and varying streams read in order afterwards.
func TestRaddrOperandFiles(t *testing.T) {
	for _, mul := range []bool{false, true} {
		for _, a := range raddrOperands {
			for _, b := range raddrOperands {
				for _, dst := range []Reg{Acc(0), RegA(5), RegB(5)} {
					name := fmt.Sprintf("add %s, %s, %s", dst, a.name, b.name)
					if mul {
						name = "mul24" + name[3:]
					}
					h := newRaddrHarness()
					want := h.op(mul, dst, a.reg, b.reg)
					h.out(0, dst)
					// The streams must still be in step after the op.
					wantU := h.op(false, Acc(2), Spec(SpecUniform), imm(0))
					h.out(1, Acc(2))
					wantV := h.op(false, Acc(2), Spec(SpecVarying), imm(0))
					h.out(2, Acc(2))
					got, listing := h.run(t)
					for c, w := range [][16]uint32{want, wantU, wantV} {
						if got[c] != w {
							t.Errorf("%s: output %d = %#x, want %#x\n%s", name, c, got[c], w, listing)
							break
						}
					}
				}
			}
		}
	}
}

// TestRaddrPairedUnits puts an independent add-unit op and mul-unit op
// next to each other so that the scheduler tries to pair them in one
// instruction: it may only do so when the four operands fit the two read
// ports, and two stream reads of one stream in a pair must not share a
// word.
func TestRaddrPairedUnits(t *testing.T) {
	kinds := []raddrOperand{
		{"r1", Acc(1)}, {"ra1", RegA(1)}, {"rb1", RegB(1)}, {"rb2", RegB(2)},
		{"unif", Spec(SpecUniform)}, {"vary", Spec(SpecVarying)}, {"imm3", imm(3)}, {"frag_y(B)", Spec(SpecFragY)},
	}
	paired := 0
	for _, a := range kinds {
		for _, b := range kinds {
			for _, c := range kinds {
				for _, d := range kinds {
					h := newRaddrHarness()
					wantAdd := h.op(false, RegA(6), a.reg, b.reg)
					wantMul := h.op(true, RegB(6), c.reg, d.reg)
					h.out(0, RegA(6))
					h.out(1, RegB(6))
					wantU := h.op(false, Acc(2), Spec(SpecUniform), Spec(SpecVarying))
					h.out(2, Acc(2))
					got, listing := h.run(t)
					for k, w := range [][16]uint32{wantAdd, wantMul, wantU} {
						if got[k] != w {
							t.Fatalf("add %s, %s ; mul24 %s, %s: output %d = %#x, want %#x\n%s",
								a.name, b.name, c.name, d.name, k, got[k], w, listing)
						}
					}
					if countLines(listing, "; mul24") > 0 && countLines(listing, "add ra6") > 0 {
						paired++
					}
				}
			}
		}
	}
	if paired == 0 {
		t.Error("the scheduler never paired the add and the mul")
	}
}

// TestMatrixTimesAttribute is the reproducer of a read-address bug:
// gl_Position = u_mvp * a_pos folds each uniform into the fmul that reads
// it, whose other operand (an attribute) may sit in file A, so the uniform
// must be read through raddr_b ("fmul rb3, unif, ra1" once failed to
// encode). It compiles for both vertex stages and must match the
// interpreter.
func TestMatrixTimesAttribute(t *testing.T) {
	for _, src := range []string{
		`uniform mat4 u_mvp; attribute vec4 a_pos; void main(){ gl_Position = u_mvp * a_pos; }`,
		`attribute vec4 a_pos; attribute vec2 a_uv; varying vec2 v_uv; uniform mat4 u_mvp;
void main() { v_uv = a_uv; gl_Position = u_mvp * a_pos; }`,
		`uniform mat4 u_mvp; attribute vec4 a_pos; void main(){ gl_Position = a_pos * u_mvp + u_mvp[1].x * a_pos.x; }`,
	} {
		for _, stage := range []ir.Stage{ir.Vertex, ir.Coordinate} {
			f := lowerGLSLStage(t, src, stage)
			env := laneEnv(8)
			env.Storage = make([]uint32, 64)
			for i := range env.Storage {
				env.Storage[i] = fbits(float32(i%7)*0.25 - 0.5)
			}
			for l := 0; l < 16; l++ {
				a := make([]float32, 16)
				for i := range a {
					a[i] = float32((l*7+i*3)%11)/5 - 1
				}
				env.Attributes = append(env.Attributes, a)
			}
			check(t, f, Options{Stage: stage}, env)
		}
	}
}

// lowerGLSLStage lowers a vertex shader as stage (vertex or coordinate).
func lowerGLSLStage(t testing.TB, src string, stage ir.Stage) *ir.Func {
	t.Helper()
	tu, errs := glsl.Parse(glsl.Vertex, src)
	if len(errs) > 0 {
		t.Fatalf("parse: %v", errs)
	}
	f, err := ir.FromAST(tu)
	if err != nil {
		t.Fatalf("lower: %v", err)
	}
	f.Stage = stage
	if err := ir.Run(f, ir.Options{Layout: ir.SequentialLayout(f), Verify: true}); err != nil {
		t.Fatalf("passes: %v", err)
	}
	return f
}
