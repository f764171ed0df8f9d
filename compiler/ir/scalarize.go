package ir

// Scalarize splits every vector value into scalar components: a vector
// instruction becomes one scalar instruction per component, OpVec and
// OpExtract disappear (except OpExtract of OpTexture, which stays a vec4),
// and a vector phi becomes one phi per component. Run it after LowerIO so no
// OpLoadVar/OpStoreVar remain.
func Scalarize(f *Func) {
	s := &scalarizer{f: f, comps: map[*Instr][]*Instr{}, repl: resolver{}}
	f.Body = s.list(f.Body)
	// Loop phi back-edge args may have been defined after the phi.
	for _, fix := range s.fixups {
		for k, p := range fix.phis {
			p.Args[1] = s.comp(fix.back, k)
		}
	}
	for _, fix := range s.scalarFix {
		fix.Args[1] = s.comp(fix.Args[1], 0)
	}
	s.repl.apply(f)
}

type scalarizer struct {
	f         *Func
	comps     map[*Instr][]*Instr // vector value → its components
	repl      resolver            // scalar value → replacement (extracts)
	fixups    []phiFixup
	scalarFix []*Instr
}

type phiFixup struct {
	phis []*Instr
	back *Instr
}

// comp returns component k of v (v itself for a scalar).
func (s *scalarizer) comp(v *Instr, k int) *Instr {
	if c, ok := s.comps[v]; ok {
		return c[k]
	}
	return s.repl.get(v)
}

func (s *scalarizer) list(nodes []Node) []Node {
	for _, n := range nodes {
		switch n := n.(type) {
		case *Block:
			var out []*Instr
			for _, in := range n.Instrs {
				out = s.instr(in, out)
			}
			n.Instrs = out
		case *If:
			n.Cond = s.comp(n.Cond, 0)
			n.Then = s.list(n.Then)
			n.Else = s.list(n.Else)
			n.Phis = s.phis(n.Phis, false)
		case *Loop:
			n.Phis = s.phis(n.Phis, true)
			n.Body = s.list(n.Body)
			n.Cond = s.comp(n.Cond, 0)
		}
	}
	return nodes
}

func (s *scalarizer) phis(phis []*Instr, loop bool) []*Instr {
	var out []*Instr
	for _, p := range phis {
		if p.Type.Width <= 1 {
			p.Args[0] = s.comp(p.Args[0], 0)
			if loop {
				s.scalarFix = append(s.scalarFix, p)
			} else {
				p.Args[1] = s.comp(p.Args[1], 0)
			}
			out = append(out, p)
			continue
		}
		cs := make([]*Instr, p.Type.Width)
		for k := range cs {
			c := s.f.NewInstr(OpPhi, p.Type.Scalar(), s.comp(p.Args[0], k), nil)
			if !loop {
				c.Args[1] = s.comp(p.Args[1], k)
			}
			cs[k] = c
			out = append(out, c)
		}
		s.comps[p] = cs
		if loop {
			s.fixups = append(s.fixups, phiFixup{cs, p.Args[1]})
		}
	}
	return out
}

func (s *scalarizer) instr(in *Instr, out []*Instr) []*Instr {
	switch {
	case in.Op == OpExtract:
		s.repl[in] = s.comp(in.Args[0], in.Index)
		return out
	case in.Op == OpTexture:
		// The fetch stays a vec4; its components are extracts of it.
		for i, a := range in.Args {
			in.Args[i] = s.comp(a, 0)
		}
		out = append(out, in)
		cs := make([]*Instr, 4)
		for k := range cs {
			c := s.f.NewInstr(OpExtract, Float, in)
			c.Index = k
			cs[k] = c
			out = append(out, c)
		}
		s.comps[in] = cs
		return out
	case in.Op == OpVec:
		var cs []*Instr
		for _, a := range in.Args {
			for k := 0; k < int(a.Type.Width); k++ {
				cs = append(cs, s.comp(a, k))
			}
		}
		s.comps[in] = cs
		return out
	case in.Type.Width <= 1:
		for i, a := range in.Args {
			in.Args[i] = s.comp(a, 0)
		}
		return append(out, in)
	case in.Op == OpConst:
		cs := make([]*Instr, in.Type.Width)
		for k := range cs {
			c := s.f.NewInstr(OpConst, in.Type.Scalar())
			c.Const[0] = in.Const[k]
			cs[k] = c
			out = append(out, c)
		}
		s.comps[in] = cs
		return out
	}
	cs := make([]*Instr, in.Type.Width)
	for k := range cs {
		c := s.f.NewInstr(in.Op, in.Type.Scalar())
		c.Index, c.Comp, c.Var, c.Uniform, c.Tex, c.Lod = in.Index, in.Comp, in.Var, in.Uniform, in.Tex, in.Lod
		c.Args = make([]*Instr, len(in.Args))
		for i, a := range in.Args {
			if a.Type.Width == 1 {
				c.Args[i] = s.comp(a, 0) // splat operand (select condition)
			} else {
				c.Args[i] = s.comp(a, k)
			}
		}
		cs[k] = c
		out = append(out, c)
	}
	s.comps[in] = cs
	return out
}
