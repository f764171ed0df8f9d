package ir

import "fmt"

// Output word layout (hardware.md §7.4).
const (
	OutPosition  = 0 // VS: clip x, y, z, w at 0..3
	OutPointSize = 4 // VS: point size, if written
	OutColor     = 0 // FS: colour r, g, b, a at 0..3
)

// LowerIO replaces OpLoadVar/OpStoreVar and variable-named textures with the
// hardware intrinsics, placing variables by layout:
//   - attribute slot i of a vector → load_attribute(Attributes[name], i);
//     of a matN → load_attribute(base + i/N, i%N);
//   - varyings: VS stores → store_output(4 [+1] + Varyings[name][i]) (dropped
//     for the coordinate shader and for components the FS does not read);
//     FS loads → load_varying(Varyings[name][i]);
//   - uniforms: constant slot → load_uniform(storage[Uniforms[name]+i]);
//     dynamic slot → load_storage(storage_address + 4·(slot + offset));
//     bools are loaded as ints and compared with 0;
//   - gl_Position → outputs 0..3, gl_PointSize → 4, gl_FragColor and
//     gl_FragData[0] → 0..3 (in the coordinate shader only position and
//     point size are kept).
//
// Afterwards f.Vars is empty.
func LowerIO(f *Func, layout *IOLayout) error {
	if len(f.Vars) == 0 {
		return nil
	}
	if layout == nil {
		return fmt.Errorf("ir: %s has interface variables but no layout", f.Name)
	}
	l := &ioLowerer{f: f, layout: layout}
	l.nodes(f.Body)
	if l.err != nil {
		return l.err
	}
	f.Vars = nil
	return nil
}

type ioLowerer struct {
	f      *Func
	layout *IOLayout
	err    error
}

func (l *ioLowerer) fail(format string, args ...any) {
	if l.err == nil {
		l.err = fmt.Errorf("ir: lower_io: "+format, args...)
	}
}

func (l *ioLowerer) nodes(nodes []Node) {
	for _, n := range nodes {
		switch n := n.(type) {
		case *Block:
			var out []*Instr
			for _, in := range n.Instrs {
				out = l.instr(in, out)
			}
			n.Instrs = out
		case *If:
			l.nodes(n.Then)
			l.nodes(n.Else)
		case *Loop:
			l.nodes(n.Body)
		}
	}
}

func (l *ioLowerer) newInstr(out *[]*Instr, op Op, t Type, args ...*Instr) *Instr {
	in := l.f.NewInstr(op, t, args...)
	*out = append(*out, in)
	return in
}

// instr appends the lowered form of in to out. A load becomes a vec of
// scalar loads that takes over in's identity (in is rewritten as the OpVec
// or the single load), so uses need no rewriting.
func (l *ioLowerer) instr(in *Instr, out []*Instr) []*Instr {
	switch in.Op {
	case OpTexture:
		if in.Var != nil {
			base, ok := l.layout.Uniforms[in.Var.Name]
			if !ok {
				l.fail("sampler %s has no storage slot", in.Var.Name)
			}
			in.Index += base
			in.Var = nil
		}
		return append(out, in)
	case OpLoadVar:
		return l.load(in, out)
	case OpStoreVar:
		return l.store(in, out)
	}
	return append(out, in)
}

func (l *ioLowerer) load(in *Instr, out []*Instr) []*Instr {
	v := in.Var
	w := int(in.Type.Width)
	comps := make([]*Instr, w)
	var dyn *Instr
	if len(in.Args) == 1 {
		dyn = in.Args[0]
	}
	var storageBase *Instr
	for k := 0; k < w; k++ {
		slot := in.Index + k
		t := in.Type.Scalar()
		switch v.Kind {
		case VarAttribute:
			loc, ok := l.layout.Attributes[v.Name]
			if !ok {
				l.fail("attribute %s has no slot", v.Name)
				return out
			}
			c := l.newInstr(&out, OpLoadAttribute, t)
			c.Index, c.Comp = loc, slot
			if v.ColumnSize > 0 {
				c.Index, c.Comp = loc+slot/v.ColumnSize, slot%v.ColumnSize
			}
			comps[k] = c
		case VarVarying:
			idx, ok := l.layout.Varyings[v.Name]
			if !ok || slot >= len(idx) || idx[slot] < 0 {
				l.fail("varying %s component %d has no index", v.Name, slot)
				return out
			}
			c := l.newInstr(&out, OpLoadVarying, t)
			c.Index = idx[slot]
			comps[k] = c
		case VarUniform:
			base, ok := l.layout.Uniforms[v.Name]
			if !ok {
				l.fail("uniform %s has no storage slot", v.Name)
				return out
			}
			lt := t
			if t.Base == BaseBool {
				lt = Int
			}
			var c *Instr
			if dyn == nil {
				c = l.newInstr(&out, OpLoadUniform, lt)
				c.Uniform = UniformEntry{Kind: UniformStorage, Index: uint32(base + slot)}
			} else {
				if storageBase == nil {
					storageBase = l.newInstr(&out, OpLoadUniform, Int)
					storageBase.Uniform = UniformEntry{Kind: UniformStorageAddress}
				}
				off := l.newInstr(&out, OpConst, Int)
				off.Const[0] = uint32(4 * (base + slot))
				four := l.newInstr(&out, OpConst, Int)
				four.Const[0] = 4
				scaled := l.newInstr(&out, OpIMul, Int, dyn, four)
				a1 := l.newInstr(&out, OpIAdd, Int, storageBase, off)
				addr := l.newInstr(&out, OpIAdd, Int, a1, scaled)
				c = l.newInstr(&out, OpLoadStorage, lt, addr)
			}
			if t.Base == BaseBool {
				zero := l.newInstr(&out, OpConst, Int)
				c = l.newInstr(&out, OpINe, Bool, c, zero)
			}
			comps[k] = c
		default:
			l.fail("load from %s %s", v.Kind, v.Name)
			return out
		}
	}
	// in becomes the vec (or a copy of the single component).
	in.Op, in.Var, in.Index = OpVec, nil, 0
	in.Args = comps
	return append(out, in)
}

func (l *ioLowerer) store(in *Instr, out []*Instr) []*Instr {
	v := in.Var
	val := in.Args[0]
	w := int(val.Type.Width)
	for k := 0; k < w; k++ {
		slot := in.Index + k
		word := -1
		switch {
		case v.Kind == VarOutput && v.Name == "gl_Position":
			word = OutPosition + slot
		case v.Kind == VarOutput && v.Name == "gl_PointSize":
			if !l.layout.PointSize {
				l.fail("gl_PointSize written but the layout has no point size")
				return out
			}
			word = OutPointSize
		case v.Kind == VarOutput && (v.Name == "gl_FragColor" || v.Name == "gl_FragData"):
			if slot < 4 {
				word = OutColor + slot
			}
		case v.Kind == VarVarying:
			if l.f.Stage == Coordinate {
				continue
			}
			idx, ok := l.layout.Varyings[v.Name]
			if !ok || slot >= len(idx) {
				continue // not read by the fragment shader
			}
			if idx[slot] >= 0 {
				word = OutPointSize + idx[slot]
				if l.layout.PointSize {
					word++
				}
			}
		default:
			l.fail("store to %s %s", v.Kind, v.Name)
			return out
		}
		if word < 0 {
			continue
		}
		c := val
		if w > 1 {
			c = l.newInstr(&out, OpExtract, val.Type.Scalar(), val)
			c.Index = k
		}
		st := l.newInstr(&out, OpStoreOutput, Void, c)
		st.Index = word
	}
	return out
}

// SequentialLayout places f's interface variables in declaration order:
// attributes in slots 0, 1, ... (a matN takes N), varyings in consecutive
// scalar indices, uniforms in consecutive storage slots. It suits a shader
// compiled on its own (tests, `tilegpu glsl`); a linked program uses the
// layout the linker chose.
func SequentialLayout(f *Func) *IOLayout {
	lay := &IOLayout{Attributes: map[string]int{}, Varyings: map[string][]int{}, Uniforms: map[string]int{}}
	attr, vary, uni := 0, 0, 0
	for _, v := range f.Vars {
		switch v.Kind {
		case VarAttribute:
			lay.Attributes[v.Name] = attr
			if v.ColumnSize > 0 {
				attr += v.ColumnSize
			} else {
				attr++
			}
		case VarVarying:
			idx := make([]int, v.Components)
			for i := range idx {
				idx[i] = vary
				vary++
			}
			lay.Varyings[v.Name] = idx
		case VarUniform:
			lay.Uniforms[v.Name] = uni
			uni += v.Components
		case VarOutput:
			if v.Name == "gl_PointSize" {
				lay.PointSize = true
			}
		}
	}
	return lay
}
