package ir

// SpecializeNonPoints specialises a scalar-form, I/O-lowered function for
// draws that rasterise no points (a variant keyed by the primitive type):
//
//   - vertex/coordinate stage, layout with PointSize: the gl_PointSize
//     store (output word OutPointSize) is dropped and the varyings after it
//     move down one word, so each vertex carries one output word less and
//     the point-size computation becomes dead;
//   - fragment stage: gl_PointCoord reads 0 (GLSL ES 1.00 §7.2: its value
//     is undefined unless points are drawn), which then folds.
//
// It runs ConstFold and DCE after the change. The driver must describe the
// variant's vertex output without a point size.
func SpecializeNonPoints(f *Func, pointSizeInLayout bool) {
	changed := false
	f.Walk(func(in *Instr) {
		switch {
		case in.Op == OpPointCoord && f.Stage == Fragment:
			in.Op, in.Index, in.Args = OpConst, 0, nil
			in.Const = [4]uint32{}
			changed = true
		case in.Op == OpStoreOutput && f.Stage != Fragment && pointSizeInLayout && in.Index >= OutPointSize:
			if in.Index == OutPointSize {
				// A void store: removed below.
				in.Index = -1
			} else {
				in.Index--
			}
			changed = true
		}
	})
	if !changed {
		return
	}
	dropPointSizeStores(f.Body)
	ConstFold(f)
	DCE(f)
}

// dropPointSizeStores removes the stores SpecializeNonPoints marked with
// output index -1.
func dropPointSizeStores(nodes []Node) {
	for _, n := range nodes {
		switch n := n.(type) {
		case *Block:
			out := n.Instrs[:0]
			for _, in := range n.Instrs {
				if in.Op == OpStoreOutput && in.Index == -1 {
					continue
				}
				out = append(out, in)
			}
			n.Instrs = out
		case *If:
			dropPointSizeStores(n.Then)
			dropPointSizeStores(n.Else)
		case *Loop:
			dropPointSizeStores(n.Body)
		}
	}
}
