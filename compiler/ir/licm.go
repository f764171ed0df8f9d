package ir

// LICM (loop-invariant code motion) moves pure instructions whose operands
// are all defined outside a loop from the loop body to just before the
// loop, so they run once instead of once per iteration.
//
// Every block of the body is searched, at any depth of If nesting: the
// top-level blocks, which a lane active at the loop's entry executes at
// least once (the body runs before Cond is first tested), the blocks of
// the loop's guard (how for and while loops are lowered: test, then
// `if (cond) { body }`), and those of any other If. Code under an If may
// not run at all, so moving it out is speculation; that is safe for the
// instructions licmMovable allows: they are pure and cannot fault (the ISA
// has no traps: division by zero, overflow and NaN all give values), and
// the back end computes an If's code in every lane anyway (masked, not
// branched per lane), so only the one computation before the loop can be
// wasted. Memory reads (texture fetches, load_storage: a guarded index may
// be out of bounds), derivatives (they read neighbour lanes) and effects
// (discard, stores) stay where they are: the TMU FIFO discipline, the
// lanes a derivative sees and what a discard depends on belong to their
// place. Inner loops are processed first, so code an inner loop hoists
// into the outer body (or into an If in it) can leave the outer loop as
// well; blocks inside a nested loop are not searched again (what is left
// there depends on that loop).
func LICM(f *Func) {
	f.Body = licmList(f, f.Body)
}

func licmList(f *Func, nodes []Node) []Node {
	var out []Node
	for _, n := range nodes {
		switch n := n.(type) {
		case *If:
			n.Then = licmList(f, n.Then)
			n.Else = licmList(f, n.Else)
		case *Loop:
			n.Body = licmList(f, n.Body)
			if hoisted := hoistInvariants(n); len(hoisted) > 0 {
				out = appendBlock(out, &Block{Instrs: hoisted})
			}
		}
		if b, ok := n.(*Block); ok {
			out = appendBlock(out, b)
			continue
		}
		out = append(out, n)
	}
	return out
}

// licmMovable says whether an instruction with op o may leave a loop.
func licmMovable(o Op) bool {
	switch o {
	case OpPhi, OpTexture, OpExtract, OpLoadStorage, OpFDdx, OpFDdy:
		return false
	}
	return o.IsPure() && o.IsBackend()
}

// hoistInvariants removes l's invariant top-level instructions from its
// body and returns them in program order.
func hoistInvariants(l *Loop) []*Instr {
	inLoop := map[*Instr]bool{}
	for _, p := range l.Phis {
		inLoop[p] = true
	}
	walkNodes(l.Body, func(in *Instr) { inLoop[in] = true })
	var hoisted []*Instr
	blocks := bodyBlocks(l.Body, nil)
	for _, b := range blocks {
		kept := b.Instrs[:0]
		for _, in := range b.Instrs {
			if licmMovable(in.Op) && in != l.Cond && invariantArgs(in, inLoop) {
				delete(inLoop, in)
				hoisted = append(hoisted, in)
				continue
			}
			kept = append(kept, in)
		}
		b.Instrs = kept
	}
	return hoisted
}

func invariantArgs(in *Instr, inLoop map[*Instr]bool) bool {
	for _, a := range in.Args {
		if inLoop[a] {
			return false
		}
	}
	return true
}

// bodyBlocks appends the blocks of nodes and of the Ifs nested in them, in
// program order (so a definition is seen before its uses), without
// entering nested loops.
func bodyBlocks(nodes []Node, out []*Block) []*Block {
	for _, n := range nodes {
		switch n := n.(type) {
		case *Block:
			out = append(out, n)
		case *If:
			out = bodyBlocks(n.Then, out)
			out = bodyBlocks(n.Else, out)
		}
	}
	return out
}
