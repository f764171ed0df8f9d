package ir

import (
	"math"
	"strconv"
	"strings"
)

// resolver follows a replacement map to its end.
type resolver map[*Instr]*Instr

func (r resolver) get(v *Instr) *Instr {
	for {
		w, ok := r[v]
		if !ok || w == v {
			return v
		}
		v = w
	}
}

func (r resolver) apply(f *Func) {
	if len(r) > 0 {
		f.ReplaceUses(r.get)
	}
}

// CopyProp replaces values that merely copy another: one-argument OpVec,
// OpExtract of an OpVec component that is a scalar, phis whose arguments
// are equal (or, in a loop, the phi itself), and selects of equal operands.
func CopyProp(f *Func) {
	r := resolver{}
	copyOf := func(in *Instr, loop *Loop) *Instr {
		switch in.Op {
		case OpVec:
			if len(in.Args) == 1 && in.Args[0].Type == in.Type {
				return in.Args[0]
			}
		case OpExtract:
			src := r.get(in.Args[0])
			if src.Op == OpVec {
				k := in.Index
				for _, a := range src.Args {
					w := int(a.Type.Width)
					if k < w {
						if w == 1 {
							return r.get(a)
						}
						break
					}
					k -= w
				}
			}
			if src.Type == in.Type && in.Index == 0 {
				return src
			}
		case OpPhi:
			a, b := r.get(in.Args[0]), r.get(in.Args[1])
			if a == b {
				return a
			}
			if loop != nil && b == in {
				return a
			}
		case OpSelect:
			if r.get(in.Args[1]) == r.get(in.Args[2]) {
				return r.get(in.Args[1])
			}
		}
		return nil
	}
	// Iterate: a loop phi's back-edge copy may be found only after its body.
	for changed := true; changed; {
		changed = false
		var visit func(nodes []Node)
		visit = func(nodes []Node) {
			for _, n := range nodes {
				switch n := n.(type) {
				case *Block:
					for _, in := range n.Instrs {
						if _, done := r[in]; !done {
							if c := copyOf(in, nil); c != nil {
								r[in] = c
								changed = true
							}
						}
					}
				case *If:
					visit(n.Then)
					visit(n.Else)
					for _, p := range n.Phis {
						if _, done := r[p]; !done {
							if c := copyOf(p, nil); c != nil {
								r[p] = c
								changed = true
							}
						}
					}
				case *Loop:
					visit(n.Body)
					for _, p := range n.Phis {
						if _, done := r[p]; !done {
							if c := copyOf(p, n); c != nil {
								r[p] = c
								changed = true
							}
						}
					}
				}
			}
		}
		visit(f.Body)
	}
	r.apply(f)
	removeReplaced(f, r)
}

// removeReplaced deletes instructions and phis that r replaced.
func removeReplaced(f *Func, r resolver) {
	if len(r) == 0 {
		return
	}
	keep := func(in *Instr) bool { _, gone := r[in]; return !gone }
	var visit func(nodes []Node)
	visit = func(nodes []Node) {
		for _, n := range nodes {
			switch n := n.(type) {
			case *Block:
				n.Instrs = filterInstrs(n.Instrs, keep)
			case *If:
				visit(n.Then)
				visit(n.Else)
				n.Phis = filterInstrs(n.Phis, keep)
			case *Loop:
				n.Phis = filterInstrs(n.Phis, keep)
				visit(n.Body)
			}
		}
	}
	visit(f.Body)
}

func filterInstrs(list []*Instr, keep func(*Instr) bool) []*Instr {
	out := list[:0]
	for _, in := range list {
		if keep(in) {
			out = append(out, in)
		}
	}
	for i := len(out); i < len(list); i++ {
		list[i] = nil
	}
	return out
}

// ConstFold evaluates pure componentwise ops, vec and extract whose operands
// are constants, applies algebraic identities that hold bit-exactly for
// IEEE floats (x·1, x+(−0), select on a constant, bool ops with a constant),
// and removes Ifs and Loops whose conditions are constant.
func ConstFold(f *Func) {
	r := resolver{}
	f.Body = foldList(f, f.Body, r)
	r.apply(f)
	// Folded instructions may still sit in blocks; DCE removes them.
}

func foldList(f *Func, nodes []Node, r resolver) []Node {
	var out []Node
	for _, n := range nodes {
		switch n := n.(type) {
		case *Block:
			for _, in := range n.Instrs {
				for i, a := range in.Args {
					in.Args[i] = r.get(a)
				}
				if c := foldInstr(f, in); c != nil {
					if c.ID == 0 {
						// A new constant: in becomes it, keeping its place.
						in.Op, in.Args, in.Const = OpConst, nil, c.Const
					} else {
						r[in] = c
					}
				}
			}
			out = appendBlock(out, n)
		case *If:
			n.Cond = r.get(n.Cond)
			n.Then = foldList(f, n.Then, r)
			n.Else = foldList(f, n.Else, r)
			for _, p := range n.Phis {
				for i, a := range p.Args {
					p.Args[i] = r.get(a)
				}
			}
			if !n.Cond.IsConst() {
				if hoisted, ok := flattenIf(n); ok {
					out = appendBlock(out, hoisted)
					continue
				}
			}
			if n.Cond.IsConst() {
				take, arg := n.Then, 0
				if n.Cond.Const[0] == 0 {
					take, arg = n.Else, 1
				}
				for _, nn := range take {
					if b, ok := nn.(*Block); ok {
						out = appendBlock(out, b)
					} else {
						out = append(out, nn)
					}
				}
				for _, p := range n.Phis {
					r[p] = p.Args[arg]
				}
				continue
			}
			out = append(out, n)
		case *Loop:
			for _, p := range n.Phis {
				p.Args[0] = r.get(p.Args[0])
			}
			n.Body = foldList(f, n.Body, r)
			for _, p := range n.Phis {
				p.Args[1] = r.get(p.Args[1])
			}
			n.Cond = r.get(n.Cond)
			if n.Cond.IsConst() && n.Cond.Const[0] == 0 {
				// Runs exactly once: inside the body the phis are the entry
				// values, after it the back-edge values.
				inner := resolver{}
				for _, p := range n.Phis {
					inner[p] = p.Args[0]
				}
				replaceNodes(n.Body, inner.get)
				for _, p := range n.Phis {
					r[p] = inner.get(p.Args[1])
				}
				for _, nn := range n.Body {
					if b, ok := nn.(*Block); ok {
						out = appendBlock(out, b)
					} else {
						out = append(out, nn)
					}
				}
				continue
			}
			out = append(out, n)
		}
	}
	return out
}

// appendBlock appends b's instructions to a trailing block of out, merging
// adjacent blocks.
func appendBlock(out []Node, b *Block) []Node {
	if len(out) > 0 {
		if last, ok := out[len(out)-1].(*Block); ok {
			last.Instrs = append(last.Instrs, b.Instrs...)
			return out
		}
	}
	return append(out, b)
}

// foldInstr returns the value in reduces to, or nil. A returned constant
// with ID 0 is new: the caller turns in into it.
func foldInstr(f *Func, in *Instr) *Instr {
	if in.Op == OpLoadVar && len(in.Args) == 1 && in.Args[0].IsConst() {
		// A dynamic offset that became constant (after unrolling).
		in.Index += int(int32(in.Args[0].Const[0]))
		in.Args = nil
		return nil
	}
	if !in.Op.IsPure() || in.Op == OpConst || in.Type.Width == 0 {
		return nil
	}
	allConst := len(in.Args) > 0
	for _, a := range in.Args {
		if !a.IsConst() {
			allConst = false
		}
	}
	newConst := func() *Instr { return &Instr{Op: OpConst, Type: in.Type} }
	switch {
	case in.Op == OpVec && allConst:
		c := newConst()
		k := 0
		for _, a := range in.Args {
			for j := 0; j < int(a.Type.Width); j++ {
				c.Const[k] = a.Const[j]
				k++
			}
		}
		return c
	case in.Op == OpExtract && in.Args[0].IsConst():
		c := newConst()
		c.Const[0] = in.Args[0].Const[in.Index]
		return c
	case allConst && isComponentwise(in.Op):
		c := newConst()
		for k := 0; k < int(in.Type.Width); k++ {
			var ops [3]uint32
			for j, a := range in.Args {
				if a.Type.Width == 1 {
					ops[j] = a.Const[0]
				} else {
					ops[j] = a.Const[k]
				}
			}
			c.Const[k], _ = evalScalar(in.Op, ops[0], ops[1], ops[2])
		}
		return c
	}
	isF := func(v *Instr, x float32) bool {
		if !v.IsConst() || v.Type.Base != BaseFloat {
			return false
		}
		for k := 0; k < int(v.Type.Width); k++ {
			if v.Const[k] != math.Float32bits(x) {
				return false
			}
		}
		return true
	}
	isBits := func(v *Instr, bits uint32) bool {
		if !v.IsConst() {
			return false
		}
		for k := 0; k < int(v.Type.Width); k++ {
			if v.Const[k] != bits {
				return false
			}
		}
		return true
	}
	a := func(i int) *Instr { return in.Args[i] }
	switch in.Op {
	case OpFMul:
		if isF(a(1), 1) && a(0).Type == in.Type {
			return a(0)
		}
		if isF(a(0), 1) && a(1).Type == in.Type {
			return a(1)
		}
	case OpFAdd:
		// x + (−0) == x for every x, including −0 and NaN.
		if isBits(a(1), 0x80000000) && a(0).Type == in.Type {
			return a(0)
		}
		if isBits(a(0), 0x80000000) && a(1).Type == in.Type {
			return a(1)
		}
	case OpFSub:
		if isBits(a(1), 0) && a(0).Type == in.Type {
			return a(0)
		}
	case OpIAdd, OpIOr, OpIXor:
		if isBits(a(1), 0) {
			return a(0)
		}
		if isBits(a(0), 0) {
			return a(1)
		}
	case OpIMul:
		if isBits(a(1), 1) {
			return a(0)
		}
		if isBits(a(0), 1) {
			return a(1)
		}
	case OpSelect:
		if in.Type == Bool && isBits(a(1), 1) && isBits(a(2), 0) {
			return a(0)
		}
		if a(0).IsConst() && a(0).Type.Width == 1 {
			if a(0).Const[0] != 0 {
				return a(1)
			}
			return a(2)
		}
	case OpBAnd:
		for i := 0; i < 2; i++ {
			if isBits(a(i), 1) && a(1-i).Type == in.Type {
				return a(1 - i)
			}
			if isBits(a(i), 0) && a(i).Type == in.Type {
				return a(i)
			}
		}
	case OpBOr:
		for i := 0; i < 2; i++ {
			if isBits(a(i), 0) && a(1-i).Type == in.Type {
				return a(1 - i)
			}
			if isBits(a(i), 1) && a(i).Type == in.Type {
				return a(i)
			}
		}
	case OpBNot:
		if a(0).Op == OpBNot {
			return a(0).Args[0]
		}
	}
	return nil
}

// DCE removes pure instructions and phis whose values are never used by an
// effect (store, discard) or by the control flow leading to one, and
// control-flow nodes left empty.
func DCE(f *Func) {
	// Both maps get an entry per instruction: sized up front, they do not
	// regrow (rehashing was most of DCE's time and allocation).
	n := countInstrs(f.Body)
	live := make(map[*Instr]bool, n)
	var work []*Instr
	mark := func(v *Instr) {
		if v != nil && !live[v] {
			live[v] = true
			work = append(work, v)
		}
	}
	// ctrl maps an instruction to the conditions it is control dependent on
	// (its enclosing Ifs and Loops); a loop's phis depend on its condition.
	ctrl := make(map[*Instr][]*Instr, n)
	var visit func(nodes []Node, conds []*Instr)
	visit = func(nodes []Node, conds []*Instr) {
		for _, n := range nodes {
			switch n := n.(type) {
			case *Block:
				for _, in := range n.Instrs {
					ctrl[in] = conds
					if !in.Op.IsPure() {
						mark(in)
					}
				}
			case *If:
				inner := append(conds[:len(conds):len(conds)], n.Cond)
				visit(n.Then, inner)
				visit(n.Else, inner)
				for _, p := range n.Phis {
					ctrl[p] = inner
				}
			case *Loop:
				inner := append(conds[:len(conds):len(conds)], n.Cond)
				for _, p := range n.Phis {
					ctrl[p] = inner
				}
				visit(n.Body, inner)
			}
		}
	}
	visit(f.Body, nil)
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		for _, a := range v.Args {
			mark(a)
		}
		for _, c := range ctrl[v] {
			mark(c)
		}
	}
	f.Body = sweep(f.Body, live)
}

func sweep(nodes []Node, live map[*Instr]bool) []Node {
	keep := func(in *Instr) bool { return live[in] }
	out := nodes[:0]
	for _, n := range nodes {
		switch n := n.(type) {
		case *Block:
			n.Instrs = filterInstrs(n.Instrs, keep)
			if len(n.Instrs) > 0 {
				out = appendBlock(out, n)
			}
		case *If:
			n.Then = sweep(n.Then, live)
			n.Else = sweep(n.Else, live)
			n.Phis = filterInstrs(n.Phis, keep)
			if len(n.Then) > 0 || len(n.Else) > 0 || len(n.Phis) > 0 {
				out = append(out, n)
			}
		case *Loop:
			if !live[n.Cond] {
				// Nothing observable depends on the loop.
				continue
			}
			n.Phis = filterInstrs(n.Phis, keep)
			n.Body = sweep(n.Body, live)
			out = append(out, n)
		}
	}
	for i := len(out); i < len(nodes); i++ {
		nodes[i] = nil
	}
	return out
}

// CSE merges identical pure instructions where the first dominates the
// second (defined earlier in the same node list or an enclosing one).
func CSE(f *Func) {
	r := resolver{}
	table := map[cseKey]*Instr{}
	var more strings.Builder
	keyOf := func(in *Instr) cseKey {
		k := cseKey{op: in.Op, typ: in.Type, index: in.Index, comp: in.Comp, v: in.Var,
			uniform: in.Uniform, tex: in.Tex, lod: in.Lod, nargs: len(in.Args)}
		if in.Op == OpConst {
			k.c = in.Const
		}
		for i, a := range in.Args {
			a = r.get(a)
			if i < len(k.args) {
				k.args[i] = a
				continue
			}
			if i == len(k.args) {
				more.Reset()
			}
			more.WriteString(strconv.Itoa(a.ID))
			more.WriteByte(' ')
		}
		if len(in.Args) > len(k.args) {
			k.more = more.String()
		}
		return k
	}
	var visit func(nodes []Node)
	visit = func(nodes []Node) {
		// The instructions this list added to the table, whose keys are
		// rebuilt to remove them when it ends (the same keys: their
		// arguments were resolved before they were visited).
		var added []*Instr
		defer func() {
			for _, in := range added {
				delete(table, keyOf(in))
			}
		}()
		for _, n := range nodes {
			switch n := n.(type) {
			case *Block:
				for _, in := range n.Instrs {
					if !in.Op.IsPure() {
						continue
					}
					k := keyOf(in)
					if prev, ok := table[k]; ok {
						r[in] = prev
						continue
					}
					table[k] = in
					added = append(added, in)
				}
			case *If:
				visit(n.Then)
				visit(n.Else)
			case *Loop:
				visit(n.Body)
			}
		}
	}
	visit(f.Body)
	r.apply(f)
	removeReplaced(f, r)
}

// cseKey identifies a pure instruction's value: two instructions with equal
// keys compute the same thing. It is a comparable struct, not a formatted
// string (formatting one per instruction was a twentieth of a compile).
// Arguments are the resolved instructions themselves; the rare arguments
// beyond the fourth are listed by ID in more.
type cseKey struct {
	op      Op
	typ     Type
	index   int
	comp    int
	v       *Var
	uniform UniformEntry
	tex     TexKind
	lod     LodMode
	c       [4]uint32
	nargs   int
	args    [4]*Instr
	more    string
}

// MaxFlattenInstrs bounds the instructions an If may hold to be turned into
// straight-line code with selects. Executing both sides costs at most this
// many extra instructions; a branch costs a flag-setting instruction, the
// branch and, on divergence, both sides anyway (the hardware has no delay
// slots but every lane executes every instruction it reaches).
const MaxFlattenInstrs = 24

// flattenIf turns an If whose branches are short straight-line arithmetic
// into that arithmetic followed by one select per phi. Loads from memory
// (load_storage, texture) are not hoisted: a lane that would not have run
// them may hold an address outside the storage block.
func flattenIf(n *If) (*Block, bool) {
	var body []*Instr
	for _, side := range [][]Node{n.Then, n.Else} {
		for _, nn := range side {
			b, ok := nn.(*Block)
			if !ok {
				return nil, false
			}
			for _, in := range b.Instrs {
				if !in.Op.IsPure() || in.Op == OpLoadStorage || in.Op == OpTexture || in.Op == OpLoadVar && len(in.Args) > 0 {
					return nil, false
				}
				body = append(body, in)
			}
		}
	}
	if len(body) > MaxFlattenInstrs {
		return nil, false
	}
	for _, p := range n.Phis {
		p.Op = OpSelect
		p.Args = []*Instr{n.Cond, p.Args[0], p.Args[1]}
		body = append(body, p)
	}
	return &Block{Instrs: body}, true
}
