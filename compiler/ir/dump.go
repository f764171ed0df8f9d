package ir

import (
	"fmt"
	"math"
	"strings"
)

// Dump returns the text form of f, one instruction per line. An If's phis
// follow its closing brace; a Loop's phis open its body:
//
//	%12:f32 = fadd %10, %11
//	if %7 {
//	  ...
//	} else {
//	  ...
//	}
//	%20:f32 = phi %13, %14
//	loop {
//	  %30:i32 = phi %2, %35
//	  ...
//	} while %36
//
// Before inlining, the functions the entry point calls come first, callees
// before callers, with their parameters and results:
//
//	func fragment @shade(float) (%1:f32 %2:f32) {
//	  ...
//	  return %9, %2
//	}
//	...
//	%40 = call @shade(float), %38, %39
//	%41:f32 = call_result 0, %40
func Dump(f *Func) string {
	var b strings.Builder
	for _, c := range f.Funcs {
		dumpFunc(&b, c, true)
		b.WriteByte('\n')
	}
	dumpFunc(&b, f, false)
	return b.String()
}

func dumpFunc(b *strings.Builder, f *Func, callee bool) {
	if !callee {
		fmt.Fprintf(b, "func %s %s {\n", f.Stage, f.Name)
	} else {
		params := make([]string, len(f.Params))
		for i, p := range f.Params {
			params[i] = fmt.Sprintf("%s:%s", ref(p), p.Type)
		}
		fmt.Fprintf(b, "func %s @%s (%s) {\n", f.Stage, f.Name, strings.Join(params, " "))
	}
	for _, v := range f.Vars {
		fmt.Fprintf(b, "  var %s %s[%d]\n", v.Kind, v.Name, v.Components)
	}
	if f.Compute != nil {
		b.WriteString(f.Compute.String())
	}
	dumpNodes(b, f.Body, "  ")
	if callee {
		res := make([]string, len(f.Results))
		for i, r := range f.Results {
			res[i] = ref(r)
		}
		fmt.Fprintf(b, "  return %s\n", strings.Join(res, ", "))
	}
	b.WriteString("}\n")
}

func dumpNodes(b *strings.Builder, nodes []Node, ind string) {
	for _, n := range nodes {
		switch n := n.(type) {
		case *Block:
			for _, in := range n.Instrs {
				b.WriteString(ind)
				b.WriteString(in.String())
				b.WriteByte('\n')
			}
		case *If:
			fmt.Fprintf(b, "%sif %s {\n", ind, ref(n.Cond))
			dumpNodes(b, n.Then, ind+"  ")
			fmt.Fprintf(b, "%s} else {\n", ind)
			dumpNodes(b, n.Else, ind+"  ")
			fmt.Fprintf(b, "%s}\n", ind)
			for _, p := range n.Phis {
				fmt.Fprintf(b, "%s%s\n", ind, p)
			}
		case *Loop:
			fmt.Fprintf(b, "%sloop {\n", ind)
			for _, p := range n.Phis {
				fmt.Fprintf(b, "%s  %s\n", ind, p)
			}
			dumpNodes(b, n.Body, ind+"  ")
			fmt.Fprintf(b, "%s} while %s\n", ind, ref(n.Cond))
		}
	}
}

func ref(v *Instr) string {
	if v == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%%%d", v.ID)
}

// String prints one instruction.
func (v *Instr) String() string {
	var b strings.Builder
	if v.Type.Width > 0 {
		fmt.Fprintf(&b, "%%%d:%s = ", v.ID, v.Type)
	} else if v.Op == OpCall {
		// Its results name it.
		fmt.Fprintf(&b, "%%%d = ", v.ID)
	}
	b.WriteString(v.Op.String())
	var ops []string
	switch v.Op {
	case OpConst:
		for i := 0; i < int(v.Type.Width); i++ {
			ops = append(ops, constString(v.Type.Base, v.Const[i]))
		}
	case OpExtract, OpLoadVarying, OpStoreOutput, OpCallResult, OpParam:
		ops = append(ops, fmt.Sprint(v.Index))
	case OpCall:
		name := "<nil>"
		if v.Callee != nil {
			name = v.Callee.Name
		}
		ops = append(ops, "@"+name)
	case OpFragCoord:
		ops = append(ops, string("xyzw"[v.Index&3]))
	case OpPointCoord:
		ops = append(ops, string("st"[v.Index&1]))
	case OpLoadUniform:
		ops = append(ops, v.Uniform.String())
	case OpLoadAttribute:
		ops = append(ops, fmt.Sprintf("%d.%c", v.Index, "xyzw"[v.Comp&3]))
	case OpTexture:
		kind := "2d"
		if v.Tex == TexCube {
			kind = "cube"
		}
		mode := [...]string{"", " bias", " lod"}[v.Lod]
		if v.Var != nil {
			ops = append(ops, fmt.Sprintf("%s[%d] %s%s", v.Var.Name, v.Index, kind, mode))
		} else {
			ops = append(ops, fmt.Sprintf("unit@%d %s%s", v.Index, kind, mode))
		}
	case OpLoadVar, OpStoreVar:
		name := "<nil>"
		if v.Var != nil {
			name = v.Var.Name
		}
		ops = append(ops, fmt.Sprintf("%s[%d]", name, v.Index))
	default:
		ops = append(ops, computeOperands(v)...)
	}
	for _, a := range v.Args {
		ops = append(ops, ref(a))
	}
	if len(ops) > 0 {
		b.WriteByte(' ')
		b.WriteString(strings.Join(ops, ", "))
	}
	return b.String()
}

func constString(base Base, bits uint32) string {
	switch base {
	case BaseFloat:
		f := math.Float32frombits(bits)
		return fmt.Sprint(f)
	case BaseBool:
		return fmt.Sprint(bits != 0)
	}
	return fmt.Sprint(int32(bits))
}
