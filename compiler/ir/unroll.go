package ir

// MaxUnrollTrips bounds the trip count Unroll will evaluate.
const MaxUnrollTrips = 1024

// Unroll fully unrolls loops whose trip count is a compile-time constant
// (GLSL ES Appendix A loops: constant init, constant-step update, comparison
// with a constant), innermost first, when trips × body size ≤ limit
// instructions. The trip count is found by evaluating the loop condition's
// dependencies with the loop phis' constant values, iteration by iteration;
// an If on the way is followed when its condition evaluates too, so a
// lowered `break` under a constant condition is understood.
func Unroll(f *Func, limit int) {
	f.Body = unrollList(f, f.Body, limit)
}

func unrollList(f *Func, nodes []Node, limit int) []Node {
	var out []Node
	for _, n := range nodes {
		switch n := n.(type) {
		case *Block:
			out = appendBlock(out, n)
		case *If:
			n.Then = unrollList(f, n.Then, limit)
			n.Else = unrollList(f, n.Else, limit)
			out = append(out, n)
		case *Loop:
			n.Body = unrollList(f, n.Body, limit)
			body, ok := unrollLoop(f, n, limit)
			if !ok {
				out = append(out, n)
				continue
			}
			for _, nn := range body {
				if b, ok := nn.(*Block); ok {
					out = appendBlock(out, b)
				} else {
					out = append(out, nn)
				}
			}
		}
	}
	return out
}

// countInstrs counts instructions and phis in nodes.
func countInstrs(nodes []Node) int {
	n := 0
	walkNodes(nodes, func(*Instr) { n++ })
	return n
}

func unrollLoop(f *Func, l *Loop, limit int) ([]Node, bool) {
	size := countInstrs(l.Body) + 1
	// Where each value of the body is defined: at the body's top level, in
	// a nested If (phis: its If), or in a nested loop (not evaluable).
	ifOf := map[*Instr]*If{}
	inside := map[*Instr]bool{}
	var index func(nodes []Node, nested bool)
	index = func(nodes []Node, nested bool) {
		for _, n := range nodes {
			switch n := n.(type) {
			case *Block:
				for _, in := range n.Instrs {
					inside[in] = true
				}
			case *If:
				index(n.Then, true)
				index(n.Else, true)
				for _, p := range n.Phis {
					inside[p] = true
					ifOf[p] = n
				}
			case *Loop:
				walkNodes(n.Body, func(in *Instr) { inside[in] = true; ifOf[in] = nil })
				for _, p := range n.Phis {
					inside[p] = true
				}
			}
		}
	}
	index(l.Body, false)
	isPhi := map[*Instr]bool{}
	for _, p := range l.Phis {
		isPhi[p] = true
	}

	type val struct {
		bits [4]uint32
		ok   bool
	}
	cur := map[*Instr]val{}
	var memo map[*Instr]val
	var eval func(v *Instr, depth int) val
	eval = func(v *Instr, depth int) val {
		if r, ok := memo[v]; ok {
			return r
		}
		if depth > 200 {
			return val{}
		}
		var r val
		switch {
		case v.IsConst():
			r = val{v.Const, true}
		case isPhi[v]:
			r = cur[v]
		case !inside[v]:
			r = val{}
		case v.Op == OpPhi:
			n := ifOf[v]
			if n == nil {
				break
			}
			c := eval(n.Cond, depth+1)
			if !c.ok {
				break
			}
			if c.bits[0] != 0 {
				r = eval(v.Args[0], depth+1)
			} else {
				r = eval(v.Args[1], depth+1)
			}
		case (v.Op == OpBAnd || v.Op == OpBOr) && v.Type.Width == 1:
			// Short-circuit: one known operand may decide.
			x, y := eval(v.Args[0], depth+1), eval(v.Args[1], depth+1)
			decide := BoolBits(v.Op == OpBOr)
			switch {
			case x.ok && x.bits[0] == decide, y.ok && y.bits[0] == decide:
				r = val{[4]uint32{decide}, true}
			case x.ok && y.ok:
				r = val{[4]uint32{x.bits[0] & y.bits[0]}, true}
				if v.Op == OpBOr {
					r.bits[0] = x.bits[0] | y.bits[0]
				}
			}
		case v.Op == OpSelect && v.Args[0].Type.Width == 1:
			c := eval(v.Args[0], depth+1)
			if c.ok {
				if c.bits[0] != 0 {
					r = eval(v.Args[1], depth+1)
				} else {
					r = eval(v.Args[2], depth+1)
				}
			}
		case v.Op.IsPure() && (isComponentwise(v.Op) || v.Op == OpVec || v.Op == OpExtract):
			var args [3]val
			for i, a := range v.Args {
				if i >= 3 && v.Op != OpVec {
					return val{}
				}
				av := eval(a, depth+1)
				if !av.ok {
					memo[v] = val{}
					return val{}
				}
				if i < 3 {
					args[i] = av
				}
			}
			r.ok = true
			switch v.Op {
			case OpVec:
				k := 0
				for _, a := range v.Args {
					av := eval(a, depth+1)
					for j := 0; j < int(a.Type.Width); j++ {
						r.bits[k] = av.bits[j]
						k++
					}
				}
			case OpExtract:
				r.bits[0] = args[0].bits[v.Index]
			default:
				for k := 0; k < int(v.Type.Width); k++ {
					var ops [3]uint32
					for i, a := range v.Args {
						if a.Type.Width == 1 {
							ops[i] = args[i].bits[0]
						} else {
							ops[i] = args[i].bits[k]
						}
					}
					r.bits[k], _ = evalScalar(v.Op, ops[0], ops[1], ops[2])
				}
			}
		}
		memo[v] = r
		return r
	}

	// Evaluate iteration by iteration. cur holds the phis' values at the
	// start of iteration k for the lanes that run it; after an iteration the
	// next values are evaluated assuming Cond was true (only lanes for
	// which it was true run the next iteration), which sees through the
	// break/continue flags of the lowering.
	assume := func(m map[*Instr]val) {
		var walk func(v *Instr, truth bool)
		walk = func(v *Instr, truth bool) {
			m[v] = val{[4]uint32{BoolBits(truth)}, true}
			switch {
			case v.Op == OpBNot:
				walk(v.Args[0], !truth)
			case v.Op == OpBOr && !truth, v.Op == OpBAnd && truth:
				walk(v.Args[0], truth)
				walk(v.Args[1], truth)
			}
		}
		walk(l.Cond, true)
	}
	for _, p := range l.Phis {
		if p.Args[0].IsConst() {
			cur[p] = val{p.Args[0].Const, true}
		}
	}
	type iteration struct {
		phis  map[*Instr]val // known phi values at entry
		known bool           // the condition at its end is known true
	}
	var iters []iteration
	// One memo map, emptied for each evaluation: clear keeps its table,
	// where a new map per evaluation regrew it every time (most of a
	// difftest execution's IR-pass allocation).
	memo = map[*Instr]val{}
	for {
		if len(iters) >= MaxUnrollTrips || (len(iters)+1)*size > limit {
			return nil, false
		}
		clear(memo)
		c := eval(l.Cond, 0)
		it := iteration{phis: cur, known: c.ok && c.bits[0] != 0}
		iters = append(iters, it)
		if c.ok && c.bits[0] == 0 {
			break
		}
		clear(memo)
		assume(memo)
		next := map[*Instr]val{}
		for _, p := range l.Phis {
			if v := eval(p.Args[1], 0); v.ok {
				next[p] = v
			}
		}
		cur = next
	}

	// Emit one copy of the body per iteration. While every condition so far
	// was known true, copies run unguarded; afterwards copy k runs under
	// If(active_k), and its phis merge the loop variables with their values
	// from lanes that already left.
	var out []Node
	b := &Builder{F: f, list: &out}
	entry := map[*Instr]*Instr{}  // phi → value at entry of the next copy (active lanes)
	merged := map[*Instr]*Instr{} // phi → value after the copies so far (all lanes)
	for _, p := range l.Phis {
		entry[p] = p.Args[0]
	}
	var active *Instr        // nil: all lanes
	m := map[*Instr]*Instr{} // original → copy, for the copy being made
	for k, it := range iters {
		clear(m)
		for _, p := range l.Phis {
			m[p] = entry[p]
		}
		if active == nil {
			// In phi order, not map order: constants are numbered as
			// they are made, and the output must be deterministic.
			for _, p := range l.Phis {
				if v, ok := it.phis[p]; ok && k > 0 {
					m[p] = b.Const(p.Type, v.bits[:p.Type.Width]...)
				}
			}
			out = append(out, cloneNodes(f, l.Body, m)...)
			for _, p := range l.Phis {
				merged[p] = mapVal(m, p.Args[1])
				entry[p] = merged[p]
			}
			if k < len(iters)-1 && !it.known {
				active = mapVal(m, l.Cond)
			}
			continue
		}
		n := b.If(active)
		saved := b.SetList(&n.Then)
		for _, p := range l.Phis {
			if v, ok := it.phis[p]; ok {
				m[p] = b.Const(p.Type, v.bits[:p.Type.Width]...)
			}
		}
		*b.list = append(*b.list, cloneNodes(f, l.Body, m)...)
		b.SetList(saved)
		for _, p := range l.Phis {
			ph := b.Phi(p.Type, mapVal(m, p.Args[1]), merged[p])
			n.Phis = append(n.Phis, ph)
			merged[p] = ph
			entry[p] = ph
		}
		if k < len(iters)-1 {
			if !it.known {
				ph := b.Phi(Bool, mapVal(m, l.Cond), nil)
				// false for lanes that did not run this copy; the constant
				// must be defined before the If.
				fl := f.NewInstr(OpConst, Bool)
				insertBefore(&out, n, fl)
				ph.Args[1] = fl
				n.Phis = append(n.Phis, ph)
				active = ph
			}
		}
	}
	// After the loop, the phis are their merged values.
	r := resolver{}
	for _, p := range l.Phis {
		r[p] = merged[p]
	}
	r.apply(f)
	return out, true
}

// insertBefore puts in into a block just before node n of *list.
func insertBefore(list *[]Node, n Node, in *Instr) {
	for i, x := range *list {
		if x != n {
			continue
		}
		if i > 0 {
			if blk, ok := (*list)[i-1].(*Block); ok {
				blk.Instrs = append(blk.Instrs, in)
				return
			}
		}
		*list = append((*list)[:i], append([]Node{&Block{Instrs: []*Instr{in}}}, (*list)[i:]...)...)
		return
	}
	panic("BUG: insertBefore: node not in list")
}

func mapVal(m map[*Instr]*Instr, v *Instr) *Instr {
	if w, ok := m[v]; ok {
		return w
	}
	return v
}

// cloneNodes deep-copies nodes with fresh IDs; m maps old values to new
// ones (pre-seeded with substitutions) and is extended with every copy.
func cloneNodes(f *Func, nodes []Node, m map[*Instr]*Instr) []Node {
	cloneInstr := func(in *Instr) *Instr {
		c := *in
		f.nextID++
		c.ID = f.nextID
		c.Args = make([]*Instr, len(in.Args))
		for i, a := range in.Args {
			c.Args[i] = mapVal(m, a)
		}
		m[in] = &c
		return &c
	}
	var out []Node
	for _, n := range nodes {
		switch n := n.(type) {
		case *Block:
			// The block's copies and their argument lists come from one
			// array each instead of two allocations per instruction.
			b := &Block{Instrs: make([]*Instr, len(n.Instrs))}
			nargs := 0
			for _, in := range n.Instrs {
				nargs += len(in.Args)
			}
			copies := make([]Instr, len(n.Instrs))
			args := make([]*Instr, nargs)
			for i, in := range n.Instrs {
				c := &copies[i]
				*c = *in
				f.nextID++
				c.ID = f.nextID
				c.Args, args = args[:len(in.Args):len(in.Args)], args[len(in.Args):]
				for j, a := range in.Args {
					c.Args[j] = mapVal(m, a)
				}
				m[in] = c
				b.Instrs[i] = c
			}
			out = append(out, b)
		case *If:
			c := &If{Cond: mapVal(m, n.Cond)}
			c.Then = cloneNodes(f, n.Then, m)
			c.Else = cloneNodes(f, n.Else, m)
			for _, p := range n.Phis {
				c.Phis = append(c.Phis, cloneInstr(p))
			}
			out = append(out, c)
		case *Loop:
			c := &Loop{}
			var phis []*Instr
			for _, p := range n.Phis {
				cp := cloneInstr(p) // back-edge arg fixed below
				phis = append(phis, cp)
			}
			c.Phis = phis
			c.Body = cloneNodes(f, n.Body, m)
			for i, p := range n.Phis {
				phis[i].Args[1] = mapVal(m, p.Args[1])
			}
			c.Cond = mapVal(m, n.Cond)
			out = append(out, c)
		}
	}
	return out
}
