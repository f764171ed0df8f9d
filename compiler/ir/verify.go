package ir

import (
	"fmt"
	"strings"
)

// Form names the invariants Verify checks beyond SSA well-formedness.
// Forms are ordered: each adds to the invariants of the ones before it.
type Form uint8

// Forms.
const (
	FormAny     Form = iota // any well-formed IR (vectors, Vars, calls allowed)
	FormInlined             // FormAny without calls: what the "inline" pass leaves
	FormScalar              // what the backend receives; see the package doc
)

// Verify checks the invariants of f and returns an error listing every
// violation found (nil if none). It never modifies f.
//
// Before inlining (FormAny) it also checks f.Funcs, the callees: each is
// well-formed on its own, with parameters OpParam 0..n-1 and results
// visible at the end of its body; it has no effects (outputs, variables
// and discard reach the caller as results); every OpCall names a function
// of f.Funcs with arguments of its parameter types; every OpCallResult
// reads an OpCall's result of the right type; and no function calls
// itself, directly or not. From FormInlined on, no calls, parameters or
// callees may remain.
func Verify(f *Func, form Form) error {
	known := map[*Func]bool{}
	for _, c := range f.Funcs {
		known[c] = true
	}
	errs := verifyFunc(f, form, known, false)
	if len(f.Params) > 0 || len(f.Results) > 0 {
		errs = append(errs, "entry point has parameters or results")
	}
	if form >= FormInlined && len(f.Funcs) > 0 {
		errs = append(errs, fmt.Sprintf("%d functions left after inlining", len(f.Funcs)))
	}
	if form == FormAny {
		for _, c := range f.Funcs {
			if c == nil {
				errs = append(errs, "nil function")
				continue
			}
			for _, e := range verifyFunc(c, FormAny, known, true) {
				errs = append(errs, "@"+c.Name+": "+e)
			}
		}
		errs = append(errs, callCycles(f)...)
	}
	if len(errs) == 0 {
		return nil
	}
	if len(errs) > 20 {
		errs = append(errs[:20], fmt.Sprintf("... and %d more", len(errs)-20))
	}
	return fmt.Errorf("ir: %s: invalid IR:\n  %s", f.Name, strings.Join(errs, "\n  "))
}

func verifyFunc(f *Func, form Form, known map[*Func]bool, callee bool) []string {
	n := f.NumIDs()
	v := &verifier{f: f, form: form, visible: newInstrSet(n), placed: newInstrSet(n), ids: newInstrSet(n),
		outputs: map[int]bool{}, funcs: known, callee: callee}
	if callee {
		if len(f.Funcs) > 0 {
			v.errorf("a callee has functions of its own")
		}
		for i, p := range f.Params {
			switch {
			case p == nil:
				v.errorf("parameter %d is nil", i)
				continue
			case p.Op != OpParam || p.Index != i:
				v.errorf("parameter %d is %s, want param %d", i, p, i)
			case p.Type.Width == 0 || p.Type.Width > 4:
				v.errorf("%s: parameter of width %d", p, p.Type.Width)
			}
			v.place(p)
			v.visible.add(p)
		}
	}
	v.list(f.Body, 0)
	if callee {
		for i, r := range f.Results {
			v.use(nil, fmt.Sprintf("result %d", i), r) // callees only, rare
		}
	}
	return v.errs
}

// callCycles reports functions that call themselves (GLSL ES forbids
// recursion; inlining such a call would never end).
func callCycles(f *Func) []string {
	const (
		unseen = iota
		active
		done
	)
	state := map[*Func]int{}
	var errs []string
	var visit func(fn *Func)
	visit = func(fn *Func) {
		state[fn] = active
		walkNodes(fn.Body, func(in *Instr) {
			c := in.Callee
			if in.Op != OpCall || c == nil {
				return
			}
			switch state[c] {
			case active:
				errs = append(errs, fmt.Sprintf("@%s calls @%s recursively", fn.Name, c.Name))
			case unseen:
				visit(c)
			}
		})
		state[fn] = done
	}
	visit(f)
	return errs
}

type verifier struct {
	f       *Func
	form    Form
	visible instrSet
	placed  instrSet
	ids     instrSet // the last instruction placed with each ID
	outputs map[int]bool
	discard bool
	errs    []string
	funcs   map[*Func]bool // the callees an OpCall may name
	callee  bool           // f is a callee: parameters, results, no effects
}

func (v *verifier) errorf(format string, args ...any) {
	v.errs = append(v.errs, fmt.Sprintf(format, args...))
}

func (v *verifier) place(in *Instr) {
	if v.placed.has(in) {
		v.errorf("%%%d placed twice", in.ID)
	}
	v.placed.add(in)
	if o := v.ids.byID(in.ID); o != nil && o != in {
		v.errorf("ID %%%d used by two instructions", in.ID)
	}
	v.ids.setID(in)
	if in.ID <= 0 || in.ID >= v.f.NumIDs() {
		v.errorf("%%%d: ID out of range (NumIDs %d)", in.ID, v.f.NumIDs())
	}
}

// instrSet is a set of a function's instructions, indexed by ID (IDs are
// dense: 1..NumIDs). Verify runs after every pass, and the three maps it
// kept per call were a tenth of a small compile. An instruction whose ID
// is out of range, or shares its slot with another (both invalid, and
// reported), is kept in a map, so membership stays exact.
type instrSet struct {
	slot  []*Instr
	other map[*Instr]bool
}

func newInstrSet(n int) instrSet { return instrSet{slot: make([]*Instr, n)} }

func (s *instrSet) inRange(id int) bool { return id >= 0 && id < len(s.slot) }

func (s *instrSet) has(in *Instr) bool {
	if s.inRange(in.ID) && s.slot[in.ID] == in {
		return true
	}
	return s.other[in]
}

func (s *instrSet) add(in *Instr) {
	if s.inRange(in.ID) && (s.slot[in.ID] == nil || s.slot[in.ID] == in) {
		s.slot[in.ID] = in
		return
	}
	if s.other == nil {
		s.other = map[*Instr]bool{}
	}
	s.other[in] = true
}

func (s *instrSet) remove(in *Instr) {
	if s.inRange(in.ID) && s.slot[in.ID] == in {
		s.slot[in.ID] = nil
		return
	}
	delete(s.other, in)
}

// byID and setID use the set as a map from ID to the last instruction
// given for it (out-of-range IDs are reported by place and not tracked).
func (s *instrSet) byID(id int) *Instr {
	if s.inRange(id) {
		return s.slot[id]
	}
	return nil
}

func (s *instrSet) setID(in *Instr) {
	if s.inRange(in.ID) {
		s.slot[in.ID] = in
	}
}

// use checks operand a of user: instruction in (nil for none) followed by
// note. The label is formatted only when an error is reported: printing
// every instruction of a valid function was a sixth of the compiler's
// differential fuzzer's time.
func (v *verifier) use(in *Instr, note string, a *Instr) {
	switch {
	case a == nil:
		v.errorf("%s: nil operand", userLabel(in, note))
	case !v.visible.has(a):
		v.errorf("%s: uses %%%d which is not defined before it in an enclosing scope", userLabel(in, note), a.ID)
	case a.Type.Width == 0:
		v.errorf("%s: uses %%%d which has no value", userLabel(in, note), a.ID)
	}
}

// instrLabel names an instruction in an error message, formatted only
// when one is reported.
type instrLabel struct{ in *Instr }

func (l instrLabel) String() string { return l.in.String() }

func userLabel(in *Instr, note string) string {
	if in == nil {
		return note
	}
	return in.String() + note
}

// list checks nodes and returns the values defined at its top level, which
// stay visible until the caller hides them.
func (v *verifier) list(nodes []Node, depth int) []*Instr {
	var defs []*Instr
	for _, n := range nodes {
		switch n := n.(type) {
		case *Block:
			if n == nil {
				v.errorf("nil block")
				continue
			}
			for _, in := range n.Instrs {
				v.place(in)
				if in.Op == OpPhi {
					v.errorf("%s: phi inside a block", in)
				}
				for _, a := range in.Args {
					if in.Op == OpCallResult && a != nil && a.Op == OpCall {
						// A call defines no value of its own.
						if !v.visible.has(a) {
							v.errorf("%s: call %%%d is not defined before it in an enclosing scope", in, a.ID)
						}
						continue
					}
					v.use(in, "", a)
				}
				v.instr(in, depth)
				v.visible.add(in)
				defs = append(defs, in)
			}
		case *If:
			v.use(nil, "if condition", n.Cond)
			v.isBoolScalar("if condition", n.Cond)
			thenDefs := v.list(n.Then, depth+1)
			for _, p := range n.Phis {
				v.phiShape(p)
				if len(p.Args) == 2 {
					v.use(p, " (then arg)", p.Args[0])
				}
			}
			v.hide(thenDefs)
			elseDefs := v.list(n.Else, depth+1)
			for _, p := range n.Phis {
				if len(p.Args) == 2 {
					v.use(p, " (else arg)", p.Args[1])
				}
			}
			v.hide(elseDefs)
			for _, p := range n.Phis {
				v.place(p)
				v.visible.add(p)
				defs = append(defs, p)
			}
		case *Loop:
			for _, p := range n.Phis {
				v.phiShape(p)
				if len(p.Args) == 2 {
					v.use(p, " (entry arg)", p.Args[0])
				}
			}
			for _, p := range n.Phis {
				v.place(p)
				v.visible.add(p)
				defs = append(defs, p)
			}
			body := v.list(n.Body, depth+1)
			for _, p := range n.Phis {
				if len(p.Args) == 2 {
					v.use(p, " (back-edge arg)", p.Args[1])
				}
			}
			v.use(nil, "loop condition", n.Cond)
			v.isBoolScalar("loop condition", n.Cond)
			v.hide(body)
		default:
			v.errorf("unknown node %T", n)
		}
	}
	return defs
}

func (v *verifier) hide(defs []*Instr) {
	for _, d := range defs {
		v.visible.remove(d)
	}
}

func (v *verifier) isBoolScalar(what string, c *Instr) {
	if c != nil && c.Type != Bool {
		v.errorf("%s %%%d has type %s, want b32", what, c.ID, c.Type)
	}
}

func (v *verifier) phiShape(p *Instr) {
	if p.Op != OpPhi {
		v.errorf("%s in a phi list", p)
		return
	}
	if len(p.Args) != 2 {
		v.errorf("%s: phi needs 2 args", p)
		return
	}
	for _, a := range p.Args {
		if a != nil && a.Type != p.Type {
			v.errorf("%s: arg %%%d has type %s", p, a.ID, a.Type)
		}
	}
	if v.form == FormScalar && p.Type.Width != 1 {
		v.errorf("%s: vector phi in scalar form", p)
	}
}

func (v *verifier) instr(in *Instr, depth int) {
	s := instrLabel{in: in}
	if in.Op == OpInvalid || in.Op >= numOps {
		v.errorf("%s: bad op", s)
		return
	}
	if n := in.Op.NumArgs(); n >= 0 && len(in.Args) != n {
		v.errorf("%s: %d args, want %d", s, len(in.Args), n)
		return
	}
	for _, a := range in.Args {
		if a == nil {
			return
		}
	}
	if in.Type.Width > 4 {
		v.errorf("%s: width %d", s, in.Type.Width)
	}
	if v.form == FormScalar {
		if !in.Op.IsBackend() {
			v.errorf("%s: op not allowed in scalar form", s)
		}
		switch {
		case in.Op == OpTexture:
			if in.Type != Vec4 {
				v.errorf("%s: texture must be vec4", s)
			}
		case in.Op == OpExtract:
			if in.Args[0].Op != OpTexture {
				v.errorf("%s: extract of a non-texture in scalar form", s)
			}
		case in.Type.Width > 1:
			v.errorf("%s: vector value in scalar form", s)
		}
		if in.Op == OpStoreOutput {
			if depth > 0 {
				v.errorf("%s: store_output inside control flow", s)
			}
			if v.outputs[in.Index] {
				v.errorf("%s: output %d stored twice", s, in.Index)
			}
			v.outputs[in.Index] = true
		}
		if in.Op == OpDiscardIf {
			if depth > 0 || v.discard {
				v.errorf("%s: discard_if must appear once, at top level", s)
			}
			v.discard = true
		}
		if in.Op == OpTexture && in.Var != nil {
			v.errorf("%s: texture still names a variable", s)
		}
	}
	switch in.Op {
	case OpCall, OpCallResult, OpParam:
		v.callInstr(in)
		return
	case OpStoreVar, OpStoreOutput, OpDiscardIf:
		if v.callee {
			v.errorf("%s: effect in a callee (it must be a result)", s)
		}
	}
	t := in.Type
	argsAre := func(want Type) {
		for _, a := range in.Args {
			if a.Type != want {
				v.errorf("%s: arg %%%d is %s, want %s", s, a.ID, a.Type, want)
			}
		}
	}
	switch in.Op {
	case OpConst:
		if t.Width == 0 {
			v.errorf("%s: void constant", s)
		}
	case OpFAdd, OpFSub, OpFMul, OpFMin, OpFMax, OpFAbs, OpFNeg, OpFFloor, OpFCeil, OpFTrunc, OpFFract,
		OpFSign, OpRcp, OpRsq, OpExp2, OpLog2, OpFDdx, OpFDdy:
		if t.Base != BaseFloat {
			v.errorf("%s: result must be float", s)
		}
		argsAre(t)
	case OpIAdd, OpISub, OpIMul, OpIShl, OpIShr, OpUShr, OpIAnd, OpIOr, OpIXor, OpINot, OpIMin, OpIMax:
		if t.Base != BaseInt {
			v.errorf("%s: result must be int", s)
		}
		argsAre(t)
	case OpBAnd, OpBOr, OpBXor, OpBNot:
		if t.Base != BaseBool {
			v.errorf("%s: result must be bool", s)
		}
		argsAre(t)
	case OpFToI:
		if t.Base != BaseInt {
			v.errorf("%s: result must be int", s)
		}
		argsAre(Vec(BaseFloat, int(t.Width)))
	case OpIToF:
		if t.Base != BaseFloat {
			v.errorf("%s: result must be float", s)
		}
		argsAre(Vec(BaseInt, int(t.Width)))
	case OpFLt, OpFGe, OpFEq, OpFNe, OpILt, OpIGe, OpIEq, OpINe:
		base := BaseFloat
		if in.Op >= OpILt {
			base = BaseInt
		}
		if t.Base != BaseBool {
			v.errorf("%s: comparison result must be bool", s)
		}
		argsAre(Vec(base, int(t.Width)))
	case OpSelect:
		c := in.Args[0].Type
		if c.Base != BaseBool || (c.Width != 1 && c.Width != t.Width) {
			v.errorf("%s: condition must be bool scalar or of the result's width", s)
		}
		if in.Args[1].Type != t || in.Args[2].Type != t {
			v.errorf("%s: operands must have the result type", s)
		}
	case OpVec:
		n := 0
		for _, a := range in.Args {
			if a.Type.Base != t.Base {
				v.errorf("%s: component kind mismatch", s)
			}
			n += int(a.Type.Width)
		}
		if n != int(t.Width) {
			v.errorf("%s: %d components, want %d", s, n, t.Width)
		}
	case OpExtract:
		a := in.Args[0].Type
		if in.Index < 0 || in.Index >= int(a.Width) || t != a.Scalar() {
			v.errorf("%s: bad extract from %s", s, a)
		}
	case OpStoreOutput, OpStoreVar, OpDiscardIf:
		if t.Width != 0 {
			v.errorf("%s: has a value", s)
		}
		if in.Op == OpDiscardIf {
			argsAre(Bool)
			if v.f.Stage != Fragment {
				v.errorf("%s: discard outside a fragment shader", s)
			}
		}
	case OpLoadStorage:
		argsAre(Int)
	case OpTexture:
		want := 2
		if in.Tex == TexCube {
			want = 3
		}
		if in.Lod != LodAuto {
			want++
		}
		if len(in.Args) != want {
			v.errorf("%s: %d args, want %d", s, len(in.Args), want)
		}
		argsAre(Float)
	case OpLoadVar:
		if in.Var == nil || len(in.Args) > 1 {
			v.errorf("%s: needs a Var and at most one dynamic offset", s)
		} else if len(in.Args) == 0 && in.Index+int(t.Width) > in.Var.Components {
			v.errorf("%s: slots out of range", s)
		}
	}
	if (in.Op == OpStoreVar) && (in.Var == nil || in.Index+int(in.Args[0].Type.Width) > in.Var.Components) {
		v.errorf("%s: bad variable slot", s)
	}
	if in.Op >= OpLocalInvocationID {
		v.computeInstr(in)
	}
}

// callInstr checks OpCall, OpCallResult and OpParam, which exist only
// before inlining.
func (v *verifier) callInstr(in *Instr) {
	s := instrLabel{in: in}
	if v.form >= FormInlined {
		v.errorf("%s: %s left after inlining", s, in.Op)
		return
	}
	switch in.Op {
	case OpParam:
		v.errorf("%s: parameter inside a block", s)
	case OpCall:
		c := in.Callee
		if c == nil || !v.funcs[c] {
			v.errorf("%s: callee is not one of the entry point's functions", s)
			return
		}
		if in.Type.Width != 0 {
			v.errorf("%s: a call has no value of its own (read its results)", s)
		}
		if len(in.Args) != len(c.Params) {
			v.errorf("%s: %d args, @%s has %d parameters", s, len(in.Args), c.Name, len(c.Params))
			return
		}
		for i, a := range in.Args {
			if p := c.Params[i]; p != nil && a.Type != p.Type {
				v.errorf("%s: arg %d (%%%d) is %s, parameter is %s", s, i, a.ID, a.Type, p.Type)
			}
		}
	case OpCallResult:
		call := in.Args[0]
		if call.Op != OpCall || call.Callee == nil {
			v.errorf("%s: reads a result of %%%d, which is not a call", s, call.ID)
			return
		}
		res := call.Callee.Results
		switch {
		case in.Index < 0 || in.Index >= len(res):
			v.errorf("%s: @%s has %d results", s, call.Callee.Name, len(res))
		case res[in.Index] != nil && res[in.Index].Type != in.Type:
			v.errorf("%s: result %d of @%s is %s", s, in.Index, call.Callee.Name, res[in.Index].Type)
		}
	}
}
