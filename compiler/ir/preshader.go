package ir

import "fmt"

// Pre-shader: work that does not vary per vertex or pixel, done once per
// draw on the CPU (as Adreno's and Mali's drivers do).
//
// HoistUniformExprs finds the values of a scalar-form function that depend
// only on uniform storage slots and constants — normalize(u_light),
// u_proj * u_view, 1.0 / u_size — and replaces each such value that a
// per-lane instruction uses by a UniformDerived stream entry. The work
// itself moves into a PreShader, which the driver evaluates when the
// uniform storage changed and whose outputs it writes into the stream.
//
// Exactness rule: only ops the hardware executes as ONE instruction whose
// result hardware.md §7.1/§7.2 defines bit for bit, and which evalScalar
// (the IR interpreter's arithmetic) computes identically, are hoisted:
// IEEE float32 add/sub/mul, minNum/maxNum, abs/neg, floor/ceil/trunc/
// fract/sign, ftoi/itof, the SFU's correctly rounded recip/recipsqrt and its
// exp2/log2 (Go's math package on float32 inputs, as the core computes
// them), and the 32-bit integer add/sub/shift/logic/min/max. Multi-
// instruction sequences (integer multiply and division, comparisons with
// their infinity correction, selects, bools) stay in the shader, so the
// CPU value is the value the shader would have computed, bit for bit
// (difftest runs every generated program both ways and compares the
// words exactly).

// preshaderExact is the set of hoistable ops (see the rule above). Each
// maps to exactly one QPU instruction in compiler/backend (its binary,
// unary and sfu tables).
var preshaderExact = [numOps]bool{
	OpFAdd: true, OpFSub: true, OpFMul: true, OpFMin: true, OpFMax: true,
	OpFAbs: true, OpFNeg: true, OpFFloor: true, OpFCeil: true, OpFTrunc: true,
	OpFFract: true, OpFSign: true, OpFToI: true, OpIToF: true,
	OpRcp: true, OpRsq: true, OpExp2: true, OpLog2: true,
	OpIAdd: true, OpISub: true, OpIShl: true, OpIShr: true, OpUShr: true,
	OpIAnd: true, OpIOr: true, OpIXor: true, OpINot: true, OpIMin: true, OpIMax: true,
}

// maxCheapRootRounds bounds the rounds HoistUniformExprs spends keeping
// unprofitable roots in the shader (a chain of negations would otherwise
// take one round per link).
const maxCheapRootRounds = 8

// PreOp is one step of a PreShader. Its value is stored at its own index
// in the value table.
type PreOp struct {
	Op Op // OpConst (Value), OpLoadUniform (storage slot Slot), or a hoistable op
	// Args index earlier PreOps.
	Args  [2]int32
	Slot  uint32
	Value uint32
}

// PreShader computes a stage's UniformDerived words from the uniform
// storage. The zero PreShader computes nothing.
type PreShader struct {
	Ops []PreOp
	// Outputs[k] is the PreOp whose value is UniformDerived word First+k.
	Outputs []int32
	// First is the UniformDerived index of Outputs[0] (stages of one
	// program number their outputs consecutively).
	First int
}

// Len is the number of derived words p computes.
func (p *PreShader) Len() int {
	if p == nil {
		return 0
	}
	return len(p.Outputs)
}

// ValueWords is the length of the value table Eval needs.
func (p *PreShader) ValueWords() int {
	if p == nil {
		return 0
	}
	return len(p.Ops)
}

// Eval computes the derived words into derived[p.First:], using vals
// (len ≥ len(p.Ops)) as its value table so a draw allocates nothing.
// Storage slots beyond the end of storage read 0, as the driver's stream
// writer does.
func (p *PreShader) Eval(storage, vals, derived []uint32) {
	if p == nil {
		return
	}
	for i, op := range p.Ops {
		var v uint32
		switch op.Op {
		case OpConst:
			v = op.Value
		case OpLoadUniform:
			if int(op.Slot) < len(storage) {
				v = storage[op.Slot]
			}
		default:
			v, _ = evalScalar(op.Op, vals[op.Args[0]], vals[op.Args[1]], 0)
		}
		vals[i] = v
	}
	for k, o := range p.Outputs {
		derived[p.First+k] = vals[o]
	}
}

// String lists the pre-shader's steps, for listings and tests.
func (p *PreShader) String() string {
	if p.Len() == 0 {
		return ""
	}
	s := ""
	for i, op := range p.Ops {
		switch op.Op {
		case OpConst:
			s += fmt.Sprintf("p%d = const %#x\n", i, op.Value)
		case OpLoadUniform:
			s += fmt.Sprintf("p%d = storage[%d]\n", i, op.Slot)
		default:
			if op.Op.NumArgs() == 1 {
				s += fmt.Sprintf("p%d = %s p%d\n", i, op.Op, op.Args[0])
			} else {
				s += fmt.Sprintf("p%d = %s p%d, p%d\n", i, op.Op, op.Args[0], op.Args[1])
			}
		}
	}
	for k, o := range p.Outputs {
		s += fmt.Sprintf("derived[%d] = p%d\n", p.First+k, o)
	}
	return s
}

// HoistUniformExprs moves the uniform-only computations of f (scalar form)
// into a PreShader whose outputs are numbered from first, and runs DCE. It
// returns nil when nothing is worth hoisting (every uniform-only value f
// uses is a plain uniform or constant).
func HoistUniformExprs(f *Func, first int) *PreShader {
	// uniformOnly: a constant, a storage uniform, or an exact op of such.
	// work: uniformOnly and computed (not a leaf).
	uniformOnly := map[*Instr]bool{}
	work := map[*Instr]bool{}
	f.Walk(func(in *Instr) {
		if in.Type.Base == BaseBool || in.Type.Width > 1 {
			return
		}
		switch {
		case in.Op == OpConst:
			uniformOnly[in] = true
		case in.Op == OpLoadUniform && (in.Uniform.Kind == UniformStorage || in.Uniform.Kind == UniformConstant):
			uniformOnly[in] = true
		case preshaderExact[in.Op] && len(in.Args) == in.Op.NumArgs():
			for _, a := range in.Args {
				if !uniformOnly[a] {
					return
				}
			}
			uniformOnly[in] = true
			work[in] = true
		}
	})
	if len(work) == 0 {
		return nil
	}
	// Roots: computed values some per-lane instruction (one not hoisted)
	// reads. A root costs a uniform stream word; one that is a single op
	// on leaves or other roots, with an operand the shader reads anyway,
	// saves one instruction at the price of one uniform read (u_m[3]·0.0
	// next to u_m[3]·x, or −l next to l): such roots stay in the shader
	// and their operands become the roots. This repeats a few rounds
	// (each drops the cheap roots found) — correctness never depends on it.
	var roots []*Instr
	isRoot := map[*Instr]bool{}
	findRoots := func() {
		roots = roots[:0]
		clear(isRoot)
		f.Walk(func(in *Instr) {
			if work[in] {
				return
			}
			for _, a := range in.Args {
				if work[a] && !isRoot[a] {
					isRoot[a] = true
					roots = append(roots, a)
				}
			}
		})
	}
	shaderReads := map[*Instr]bool{} // leaves a non-hoisted instruction reads
	for round := 0; ; round++ {
		findRoots()
		if round == maxCheapRootRounds {
			break
		}
		clear(shaderReads)
		f.Walk(func(in *Instr) {
			if !work[in] {
				for _, a := range in.Args {
					shaderReads[a] = true
				}
			}
		})
		dropped := false
		for _, r := range roots {
			cheap, readAnyway := true, false
			for _, a := range r.Args {
				switch {
				case isRoot[a]:
					readAnyway = true
				case a.Op == OpConst:
				case a.Op == OpLoadUniform:
					readAnyway = readAnyway || shaderReads[a]
				default:
					cheap = false
				}
			}
			if cheap && readAnyway {
				delete(work, r)
				dropped = true
			}
		}
		if !dropped {
			break
		}
	}
	if len(roots) == 0 {
		return nil
	}
	p := &PreShader{First: first}
	index := map[*Instr]int32{}
	var emit func(in *Instr) int32
	emit = func(in *Instr) int32 {
		if i, ok := index[in]; ok {
			return i
		}
		op := PreOp{Op: in.Op}
		switch in.Op {
		case OpConst:
			op.Value = in.Const[0]
		case OpLoadUniform:
			op.Slot = in.Uniform.Index
			if in.Uniform.Kind == UniformConstant {
				op.Op, op.Value = OpConst, in.Uniform.Value
			}
		default:
			for k, a := range in.Args {
				op.Args[k] = emit(a)
			}
		}
		i := int32(len(p.Ops))
		p.Ops = append(p.Ops, op)
		index[in] = i
		return i
	}
	for _, r := range roots {
		p.Outputs = append(p.Outputs, emit(r))
	}
	for k, r := range roots {
		r.Op, r.Args = OpLoadUniform, nil
		r.Uniform = UniformEntry{Kind: UniformDerived, Index: uint32(first + k)}
	}
	DCE(f)
	return p
}
