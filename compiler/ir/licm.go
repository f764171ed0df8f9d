package ir

// LICM (loop-invariant code motion) moves pure instructions whose operands
// are all defined outside a loop from the loop body to just before the
// loop, so they run once instead of once per iteration.
//
// Two places in the body are searched: its top-level blocks, which a lane
// active at the loop's entry executes at least once (the body runs before
// Cond is first tested), and the top-level blocks of the loop's guard, an
// If of the body's top level whose condition is Cond itself: that is how
// for and while loops are lowered (test, then `if (cond) { body }`), and
// its blocks run on every iteration but the last test. Hoisting from the
// guard computes the values once even for a lane that runs no iteration;
// they are pure and cannot fault, so only that one computation is wasted.
// Instructions inside any other If may never run and stay. Memory reads (texture fetches, load_storage) and derivatives stay
// too: the TMU FIFO discipline and the neighbour lanes a derivative reads
// belong to their place in the loop. Inner loops are processed first, so
// code an inner loop hoists into the outer body can leave the outer loop
// as well.
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
	var blocks []*Block
	for _, n := range l.Body {
		switch n := n.(type) {
		case *Block:
			blocks = append(blocks, n)
		case *If:
			if n.Cond != l.Cond {
				continue
			}
			for _, m := range n.Then {
				if b, ok := m.(*Block); ok {
					blocks = append(blocks, b)
				}
			}
		}
	}
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
