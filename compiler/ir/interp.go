package ir

import (
	"errors"
	"fmt"
	"math"
)

// Env supplies the inputs of one Interpret run over Lanes lanes. Lanes that
// form 2×2 quads (lane l is pixel (l&1, (l>>1)&1) of quad l>>2, as in
// hardware.md §7.3) give fddx/fddy their meaning; with fewer than 4 lanes
// derivatives are 0.
type Env struct {
	Lanes int

	// Before I/O lowering: values of interface variables, by name, per lane
	// ([lane][slot] bit patterns). A uniform may give a single lane, used by
	// all.
	Vars map[string][][]uint32

	// After I/O lowering.
	Attributes [][]float32 // [lane][4·slot+comp]
	Varyings   [][]float32 // [lane][index]
	Storage    []uint32    // uniform storage; UniformStorage entries read it
	Derived    []uint32    // pre-shader outputs (PreShader.Eval); UniformDerived entries read it
	// StorageAddress is the address load_storage sees for Storage[0].
	StorageAddress uint32

	FragCoord   [][4]float32 // [lane]
	FrontFacing []bool       // [lane]
	PointCoord  [][2]float32 // [lane]

	// Texture samples texture unit (from storage, or a sampler variable's
	// value before I/O lowering). coord holds s, t (2D) or the direction
	// (cube); lod is the bias or explicit LOD per mode.
	Texture func(unit uint32, kind TexKind, coord [3]float32, mode LodMode, lod float32) [4]float32

	// MaxIterations bounds the iterations of any one loop (default 1<<16),
	// so a bad program ends with an error instead of hanging.
	MaxIterations int
}

// Result is what one Interpret run produced.
type Result struct {
	Outputs   [][]uint32            // [lane][word]: store_output values (bit patterns); unwritten words are 0
	Written   []bool                // [word]: stored by the program
	Discarded []bool                // [lane]
	Vars      map[string][][]uint32 // before I/O lowering: store_var values, [lane][slot]
}

// OutputF returns output word of lane as a float.
func (r *Result) OutputF(lane, word int) float32 {
	return math.Float32frombits(r.Outputs[lane][word])
}

// VarF returns slot of variable name in lane as a float (0 if never stored).
func (r *Result) VarF(name string, lane, slot int) float32 {
	v := r.Vars[name]
	if lane >= len(v) || slot >= len(v[lane]) {
		return 0
	}
	return math.Float32frombits(v[lane][slot])
}

// Interpret runs f on env.Lanes lanes in lockstep with per-lane execution
// masks, exactly as the hardware model does: both sides of an If execute
// under complementary masks, a Loop repeats while any lane is active. It is
// the reference the backend and the passes are tested against.
//
// It executes calls (before the "inline" pass) as calls: the callee runs
// in its own value space under the caller's mask, its parameters holding
// the arguments, and the OpCallResults read its results. Comparing a run
// before inlining with one after it checks the inliner.
func Interpret(f *Func, env *Env) (*Result, error) {
	if env.Lanes <= 0 || env.Lanes > 64 {
		return nil, fmt.Errorf("ir: interpret: %d lanes (want 1..64)", env.Lanes)
	}
	it := &interp{f: f, stage: f.Stage, env: env, vals: make([][]uint32, f.NumIDs()),
		res: &Result{Outputs: make([][]uint32, env.Lanes), Discarded: make([]bool, env.Lanes), Vars: map[string][][]uint32{}}}
	it.maxIter = env.MaxIterations
	if it.maxIter <= 0 {
		it.maxIter = 1 << 16
	}
	all := uint64(1)<<env.Lanes - 1
	if env.Lanes == 64 {
		all = ^uint64(0)
	}
	if err := it.nodes(f.Body, all); err != nil {
		return nil, err
	}
	return it.res, nil
}

type interp struct {
	f       *Func
	stage   Stage // of the entry point (f may be a callee)
	env     *Env
	vals    [][]uint32 // by ID: [comp*lanes + lane]
	arena   []uint32   // unused zeroed words slot carves values from
	res     *Result
	maxIter int
	depth   int                // call nesting
	results map[int][][]uint32 // by OpCall ID: the callee's results, as vals
	wave    *wave              // compute: the wave this interp runs (Dispatch); nil otherwise
}

var errBadProgram = errors.New("ir: interpret")

func (it *interp) get(v *Instr, comp, lane int) uint32 {
	return it.vals[v.ID][comp*it.env.Lanes+lane]
}

func (it *interp) slot(v *Instr) []uint32 {
	n := int(v.Type.Width) * it.env.Lanes
	s := it.vals[v.ID]
	if len(s) != n {
		// Carved from a zeroed chunk (as make would give), a growing
		// one at a time, instead of one allocation per value.
		if len(it.arena) < n {
			size := max(n, 2*cap(it.arena), 256)
			it.arena = make([]uint32, min(size, max(n, 8192)))
		}
		s, it.arena = it.arena[:n:n], it.arena[n:]
		it.vals[v.ID] = s
	}
	return s
}

func (it *interp) nodes(nodes []Node, mask uint64) error {
	L := it.env.Lanes
	for _, n := range nodes {
		switch n := n.(type) {
		case *Block:
			for _, in := range n.Instrs {
				if err := it.instr(in, mask); err != nil {
					return err
				}
			}
		case *If:
			var tm uint64
			for l := 0; l < L; l++ {
				if mask&(1<<l) != 0 && it.get(n.Cond, 0, l) != 0 {
					tm |= 1 << l
				}
			}
			em := mask &^ tm
			if err := it.nodes(n.Then, tm); err != nil {
				return err
			}
			if err := it.nodes(n.Else, em); err != nil {
				return err
			}
			for _, p := range n.Phis {
				dst := it.slot(p)
				for c := 0; c < int(p.Type.Width); c++ {
					for l := 0; l < L; l++ {
						switch {
						case tm&(1<<l) != 0:
							dst[c*L+l] = it.get(p.Args[0], c, l)
						case em&(1<<l) != 0:
							dst[c*L+l] = it.get(p.Args[1], c, l)
						}
					}
				}
			}
		case *Loop:
			for _, p := range n.Phis {
				it.copyMasked(p, p.Args[0], mask)
			}
			active := mask
			for iter := 0; active != 0; iter++ {
				if iter >= it.maxIter {
					return fmt.Errorf("%w: loop ran more than %d iterations", errBadProgram, it.maxIter)
				}
				if it.wave != nil {
					if err := it.wave.step(); err != nil {
						return err
					}
				}
				if err := it.nodes(n.Body, active); err != nil {
					return err
				}
				// Read all back-edge values before writing any phi: a phi
				// may feed another's back edge.
				backs := make([][]uint32, len(n.Phis))
				for i, p := range n.Phis {
					backs[i] = append([]uint32(nil), it.vals[p.Args[1].ID]...)
				}
				for i, p := range n.Phis {
					dst := it.slot(p)
					for c := 0; c < int(p.Type.Width); c++ {
						for l := 0; l < L; l++ {
							if active&(1<<l) != 0 {
								dst[c*L+l] = backs[i][c*L+l]
							}
						}
					}
				}
				var next uint64
				for l := 0; l < L; l++ {
					if active&(1<<l) != 0 && it.get(n.Cond, 0, l) != 0 {
						next |= 1 << l
					}
				}
				active = next
			}
		}
	}
	return nil
}

func (it *interp) copyMasked(dst, src *Instr, mask uint64) {
	L := it.env.Lanes
	d := it.slot(dst)
	for c := 0; c < int(dst.Type.Width); c++ {
		for l := 0; l < L; l++ {
			if mask&(1<<l) != 0 {
				d[c*L+l] = it.get(src, c, l)
			}
		}
	}
}

func (it *interp) instr(in *Instr, mask uint64) error {
	L := it.env.Lanes
	env := it.env
	for _, a := range in.Args {
		if len(it.vals[a.ID]) != int(a.Type.Width)*L {
			return fmt.Errorf("%w: %s reads %%%d before it is computed", errBadProgram, in, a.ID)
		}
	}
	active := func(l int) bool { return mask&(1<<l) != 0 }
	var dst []uint32
	if in.Type.Width > 0 {
		dst = it.slot(in)
	}
	W := int(in.Type.Width)
	switch {
	case in.Op == OpConst:
		for c := 0; c < W; c++ {
			for l := 0; l < L; l++ {
				dst[c*L+l] = in.Const[c]
			}
		}
	case in.Op == OpVec:
		k := 0
		for _, a := range in.Args {
			for j := 0; j < int(a.Type.Width); j++ {
				copy(dst[k*L:(k+1)*L], it.vals[a.ID][j*L:(j+1)*L])
				k++
			}
		}
	case in.Op == OpExtract:
		copy(dst, it.vals[in.Args[0].ID][in.Index*L:(in.Index+1)*L])
	case in.Op == OpFDdx || in.Op == OpFDdy:
		for c := 0; c < W; c++ {
			for l := 0; l < L; l++ {
				if L < 4 || it.stage != Fragment {
					dst[c*L+l] = 0
					continue
				}
				bit := 1
				if in.Op == OpFDdy {
					bit = 2
				}
				hi := math.Float32frombits(it.get(in.Args[0], c, l|bit))
				lo := math.Float32frombits(it.get(in.Args[0], c, l&^bit))
				dst[c*L+l] = math.Float32bits(hi - lo)
			}
		}
	case isComponentwise(in.Op):
		for c := 0; c < W; c++ {
			for l := 0; l < L; l++ {
				var ops [3]uint32
				for i, a := range in.Args {
					if a.Type.Width == 1 {
						ops[i] = it.get(a, 0, l)
					} else {
						ops[i] = it.get(a, c, l)
					}
				}
				dst[c*L+l], _ = evalScalar(in.Op, ops[0], ops[1], ops[2])
			}
		}
	case in.Op == OpCall:
		return it.call(in, mask)
	case in.Op == OpCallResult:
		r := it.results[in.Args[0].ID]
		if in.Index >= len(r) || len(r[in.Index]) != len(dst) {
			return fmt.Errorf("%w: %s reads a result its call did not produce", errBadProgram, in)
		}
		copy(dst, r[in.Index])
	case in.Op == OpLoadUniform:
		var v uint32
		switch in.Uniform.Kind {
		case UniformStorage:
			if int(in.Uniform.Index) >= len(env.Storage) {
				return fmt.Errorf("%w: %s: storage has %d slots", errBadProgram, in, len(env.Storage))
			}
			v = env.Storage[in.Uniform.Index]
		case UniformDerived:
			if int(in.Uniform.Index) >= len(env.Derived) {
				return fmt.Errorf("%w: %s: the pre-shader has %d outputs", errBadProgram, in, len(env.Derived))
			}
			v = env.Derived[in.Uniform.Index]
		case UniformConstant:
			v = in.Uniform.Value
		case UniformStorageAddress:
			v = env.StorageAddress
		default:
			return fmt.Errorf("%w: %s: unexpected uniform kind", errBadProgram, in)
		}
		for l := 0; l < L; l++ {
			dst[l] = v
		}
	case in.Op == OpLoadStorage:
		for l := 0; l < L; l++ {
			dst[l] = 0
			if !active(l) {
				continue
			}
			off := it.get(in.Args[0], 0, l) - env.StorageAddress
			if off%4 != 0 || int(off/4) >= len(env.Storage) {
				return fmt.Errorf("%w: %s: address %#x outside the storage block", errBadProgram, in, it.get(in.Args[0], 0, l))
			}
			dst[l] = env.Storage[off/4]
		}
	case in.Op == OpLoadAttribute:
		for l := 0; l < L; l++ {
			w := 4*in.Index + in.Comp
			if l >= len(env.Attributes) || w >= len(env.Attributes[l]) {
				return fmt.Errorf("%w: %s: no attribute word %d for lane %d", errBadProgram, in, w, l)
			}
			dst[l] = math.Float32bits(env.Attributes[l][w])
		}
	case in.Op == OpLoadVarying:
		for l := 0; l < L; l++ {
			if l >= len(env.Varyings) || in.Index >= len(env.Varyings[l]) {
				return fmt.Errorf("%w: %s: no varying %d for lane %d", errBadProgram, in, in.Index, l)
			}
			dst[l] = math.Float32bits(env.Varyings[l][in.Index])
		}
	case in.Op == OpFragCoord:
		for l := 0; l < L; l++ {
			if l < len(env.FragCoord) {
				dst[l] = math.Float32bits(env.FragCoord[l][in.Index&3])
			}
		}
	case in.Op == OpPointCoord:
		for l := 0; l < L; l++ {
			if l < len(env.PointCoord) {
				dst[l] = math.Float32bits(env.PointCoord[l][in.Index&1])
			}
		}
	case in.Op == OpFrontFacing:
		for l := 0; l < L; l++ {
			dst[l] = BoolBits(l < len(env.FrontFacing) && env.FrontFacing[l])
		}
	case in.Op == OpTexture:
		if env.Texture == nil {
			return fmt.Errorf("%w: %s: no texture sampler in Env", errBadProgram, in)
		}
		for l := 0; l < L; l++ {
			var unit uint32
			if in.Var != nil {
				unit = it.varValue(in.Var.Name, l, in.Index)
			} else if in.Index < len(env.Storage) {
				unit = env.Storage[in.Index]
			}
			var coord [3]float32
			n := 2
			if in.Tex == TexCube {
				n = 3
			}
			for i := 0; i < n; i++ {
				coord[i] = math.Float32frombits(it.get(in.Args[i], 0, l))
			}
			var lod float32
			if in.Lod != LodAuto {
				lod = math.Float32frombits(it.get(in.Args[n], 0, l))
			}
			rgba := env.Texture(unit, in.Tex, coord, in.Lod, lod)
			for c := 0; c < 4; c++ {
				dst[c*L+l] = math.Float32bits(rgba[c])
			}
		}
	case in.Op == OpStoreOutput:
		for len(it.res.Written) <= in.Index {
			it.res.Written = append(it.res.Written, false)
		}
		it.res.Written[in.Index] = true
		for l := 0; l < L; l++ {
			o := it.res.Outputs[l]
			for len(o) <= in.Index {
				o = append(o, 0)
			}
			if active(l) {
				o[in.Index] = it.get(in.Args[0], 0, l)
			}
			it.res.Outputs[l] = o
		}
	case in.Op == OpDiscardIf:
		for l := 0; l < L; l++ {
			if active(l) && it.get(in.Args[0], 0, l) != 0 {
				it.res.Discarded[l] = true
			}
		}
	case in.Op == OpLoadVar:
		for c := 0; c < W; c++ {
			for l := 0; l < L; l++ {
				slot := in.Index + c
				if len(in.Args) == 1 {
					slot += int(int32(it.get(in.Args[0], 0, l)))
				}
				if slot < 0 || slot >= in.Var.Components {
					// Out-of-range dynamic index: GLSL leaves it undefined; read 0.
					dst[c*L+l] = 0
					continue
				}
				dst[c*L+l] = it.varValue(in.Var.Name, l, slot)
			}
		}
	case in.Op == OpStoreVar:
		v := in.Var
		rows := it.res.Vars[v.Name]
		if rows == nil {
			rows = make([][]uint32, L)
			for l := range rows {
				rows[l] = make([]uint32, v.Components)
			}
			it.res.Vars[v.Name] = rows
		}
		for c := 0; c < int(in.Args[0].Type.Width); c++ {
			for l := 0; l < L; l++ {
				if active(l) {
					rows[l][in.Index+c] = it.get(in.Args[0], c, l)
				}
			}
		}
	default:
		if in.Op >= OpLocalInvocationID && in.Op < numOps && in.Op != OpBitcast {
			return it.computeInstr(in, mask, dst)
		}
		return fmt.Errorf("%w: cannot interpret %s", errBadProgram, in)
	}
	return nil
}

func (it *interp) varValue(name string, lane, slot int) uint32 {
	rows := it.env.Vars[name]
	if len(rows) == 0 {
		return 0
	}
	if lane >= len(rows) {
		lane = 0
	}
	if slot >= len(rows[lane]) {
		return 0
	}
	return rows[lane][slot]
}

// call runs the callee of in under mask in a value space of its own.
func (it *interp) call(in *Instr, mask uint64) error {
	c := in.Callee
	if c == nil || len(in.Args) != len(c.Params) {
		return fmt.Errorf("%w: %s: bad call", errBadProgram, in)
	}
	if it.depth >= maxInlineDepth {
		return fmt.Errorf("%w: %s: calls nested more than %d deep", errBadProgram, in, maxInlineDepth)
	}
	sub := &interp{f: c, stage: it.stage, env: it.env, vals: make([][]uint32, c.NumIDs()), res: it.res,
		maxIter: it.maxIter, depth: it.depth + 1, wave: it.wave}
	for i, p := range c.Params {
		if p.ID <= 0 || p.ID >= len(sub.vals) {
			return fmt.Errorf("%w: @%s: parameter %s out of range", errBadProgram, c.Name, p)
		}
		sub.vals[p.ID] = append([]uint32(nil), it.vals[in.Args[i].ID]...)
	}
	if err := sub.nodes(c.Body, mask); err != nil {
		return err
	}
	out := make([][]uint32, len(c.Results))
	for k, r := range c.Results {
		v := sub.vals[r.ID]
		if len(v) != int(r.Type.Width)*it.env.Lanes {
			return fmt.Errorf("%w: @%s: result %d (%%%d) is never computed", errBadProgram, c.Name, k, r.ID)
		}
		out[k] = append([]uint32(nil), v...)
	}
	if it.results == nil {
		it.results = map[int][][]uint32{}
	}
	it.results[in.ID] = out
	return nil
}
