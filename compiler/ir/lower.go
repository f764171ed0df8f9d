package ir

import (
	"fmt"
	"sort"

	"github.com/tilegpu/tilegpu/compiler/glsl"
)

// FromAST lowers a checked GLSL ES translation unit to IR (before Passes):
// main becomes the returned Func and every user function it calls one
// callee in its Funcs, called with OpCall (see lower_call.go; the "inline"
// pass splices them in); built-in functions are expanded into IR ops,
// locals kept in SSA form with phis at If merges and loop headers,
// break/continue/return/discard turned into flags that guard the code
// after them. Interface variables become Vars accessed with
// OpLoadVar/OpStoreVar; outputs are stored once, at the end of main.
func FromAST(tu *glsl.TranslationUnit) (f *Func, err error) {
	if tu == nil || tu.Main == nil || tu.Main.Body == nil {
		return nil, fmt.Errorf("ir: translation unit has no main")
	}
	stage := Vertex
	switch tu.Stage {
	case glsl.Fragment:
		stage = Fragment
	case glsl.Compute:
		stage = Compute
	}
	l := &lowerer{tu: tu, f: NewFunc("main", stage), vars: map[*glsl.Variable]*Var{}, env: env{}, seq: map[any]int{},
		callees: map[calleeKey]*callee{}, states: map[*glsl.Function]*fnState{}}
	l.main = l.f
	l.b = NewBuilder(l.f)
	if stage == Compute {
		l.f.Compute = computeInfo(tu)
	}
	defer func() {
		if r := recover(); r != nil {
			if le, ok := r.(lowerError); ok {
				f, err = nil, le.err
				return
			}
			panic(r)
		}
	}()
	l.lowerMain()
	if n := inlinedSize(l.main, map[*Func]int{}); n > MaxLoweredInstrs {
		l.fail("shader too large after inlining (over %d instructions)", MaxLoweredInstrs)
	}
	return l.main, nil
}

// inlinedSize estimates the instructions f has once its calls are inlined
// (saturating just above MaxLoweredInstrs), so that a call tree that
// doubles at every level is a compile error, as it was when lowering
// inlined, rather than a failure of the "inline" pass at link time.
func inlinedSize(f *Func, memo map[*Func]int) int {
	if n, ok := memo[f]; ok {
		return n
	}
	memo[f] = MaxLoweredInstrs + 1 // a cycle (never lowered) counts as too large
	n := 0
	walkNodes(f.Body, func(in *Instr) {
		n++
		if in.Op == OpCall && in.Callee != nil {
			n += inlinedSize(in.Callee, memo)
		}
		n = min(n, MaxLoweredInstrs+1)
	})
	memo[f] = n
	return n
}

type lowerError struct{ err error }

func (l *lowerer) fail(format string, args ...any) {
	panic(lowerError{fmt.Errorf("ir: lowering: "+format, args...)})
}

// leaf is one piece of a lowered GLSL value: a scalar or vector (one
// Instr; a matrix is one leaf per column) or a sampler (variable + slot).
type leaf struct {
	x    *Instr
	smp  *Var
	slot int
	// A sampler chosen at run time (a sampler array indexed by a loop
	// index): selCond ? *selA : *selB.
	selCond    *Instr
	selA, selB *leaf
}

func (lf leaf) isSampler() bool { return lf.x == nil }

// value is a GLSL value as its leaves in flattening order.
type value []leaf

// env maps a variable (*glsl.Variable or a *flag) to its current value.
type env map[any]value

func (e env) clone() env {
	c := make(env, len(e))
	for k, v := range e {
		c[k] = v
	}
	return c
}

// flag is a synthetic bool variable (return/break/continue/discard state).
type flag struct{ name string }

type fnCtx struct {
	ret    *flag      // set by return
	retVal *flag      // key of the return value
	retTy  *glsl.Type // nil for void
	loops  []*loopCtx // loops of this function, innermost last
}

type loopCtx struct {
	brk, cont *flag
}

type lowerer struct {
	tu     *glsl.TranslationUnit
	main   *Func // the entry point (Vars and Funcs live here)
	f      *Func // the function being lowered: main or a callee
	b      *Builder
	vars   map[*glsl.Variable]*Var
	env    env
	fn     *fnCtx
	killed *flag // discard state, nil if the shader never discards
	jumps  int   // return and discard statements lowered so far (in l.f)
	// callees are the user functions lowered so far; states what each
	// touches beyond its parameters (lower_call.go).
	callees map[calleeKey]*callee
	states  map[*glsl.Function]*fnState
	// seq numbers env keys in the order they were first bound, so that
	// walks over an env (phis of loops and ifs) are in a deterministic
	// order: Go's map order is random, and the compiled code must be the
	// same bits for the same source.
	seq map[any]int
}

// set binds k to v in the current env.
func (l *lowerer) set(k any, v value) {
	if _, ok := l.seq[k]; !ok {
		l.seq[k] = len(l.seq)
	}
	l.env[k] = v
}

// keys returns e's keys in the order they were first bound.
func (l *lowerer) keys(e env) []any {
	ks := make([]any, 0, len(e))
	for k := range e {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return l.seq[ks[i]] < l.seq[ks[j]] })
	return ks
}

// jump says whether lowering a statement may have set a jump flag.
type jump uint8

const (
	jumpNone   jump = iota
	jumpMaybe       // some lanes may have jumped: guard what follows
	jumpAlways      // every lane reaching the statement jumped
)

func (l *lowerer) lowerMain() {
	tu := l.tu
	// Outputs start as zero so that every path defines them.
	outs := l.outputs()
	for _, v := range outs {
		l.set(v, l.zero(v.Type))
	}
	// Before the global initialisers: they may call a function that
	// discards.
	if l.f.Stage == Fragment && hasDiscard(tu) {
		l.killed = &flag{"discard"}
		l.set(l.killed, l.boolConst(false))
	}
	// Global initialisers, in declaration order.
	for _, d := range tu.Decls {
		ds, ok := d.(*glsl.DeclStmt)
		if !ok {
			continue
		}
		for _, vd := range ds.Vars {
			if l.isInput(vd.Var) || vd.Var.Storage == glsl.StorageVarying {
				continue
			}
			l.declare(vd)
		}
	}
	l.fn = &fnCtx{ret: &flag{"return"}}
	l.set(l.fn.ret, l.boolConst(false))
	l.block(tu.Main.Body.Stmts)
	for _, v := range outs {
		iv := l.varFor(v)
		val := l.env[v]
		slot := 0
		for _, lf := range val {
			st := l.b.EmitIndex(OpStoreVar, Void, slot, lf.x)
			st.Var = iv
			slot += int(lf.x.Type.Width)
		}
	}
	if l.killed != nil {
		l.b.Emit(OpDiscardIf, Void, l.env[l.killed][0].x)
	}
}

// outputs lists the variables main writes at its end: gl_Position,
// gl_PointSize and varyings (vertex), gl_FragColor/gl_FragData (fragment),
// each only if the shader writes it.
func (l *lowerer) outputs() []*glsl.Variable {
	var outs []*glsl.Variable
	position, color := false, false
	for _, v := range l.tu.Builtins {
		switch v.Name {
		case "gl_Position", "gl_PointSize", "gl_FragColor", "gl_FragData":
			if v.Written {
				outs = append(outs, v)
				position = position || v.Name == "gl_Position"
				color = color || v.Name == "gl_FragColor" || v.Name == "gl_FragData"
			}
		}
	}
	// The hardware consumes these words whether or not the shader wrote
	// them (GL leaves the values undefined): write zeros.
	switch {
	case l.tu.Stage == glsl.Vertex && !position:
		outs = append(outs, &glsl.Variable{Name: "gl_Position", Type: glsl.TypeVec4, Builtin: true, Global: true})
	case l.tu.Stage == glsl.Fragment && !color:
		outs = append(outs, &glsl.Variable{Name: "gl_FragColor", Type: glsl.TypeVec4, Builtin: true, Global: true})
	}
	if l.tu.Stage == glsl.Vertex {
		// Every declared varying: the fragment shader may read one the
		// vertex shader never writes.
		for _, v := range l.tu.Globals {
			if v.Storage == glsl.StorageVarying {
				outs = append(outs, v)
			}
		}
	}
	return outs
}

// isInput reports variables read through OpLoadVar: uniforms, attributes,
// and varyings in the fragment shader.
func (l *lowerer) isInput(v *glsl.Variable) bool {
	switch v.Storage {
	case glsl.StorageUniform, glsl.StorageAttribute:
		return true
	case glsl.StorageVarying:
		return l.tu.Stage == glsl.Fragment
	}
	return false
}

// varFor returns the IR Var of an interface variable.
func (l *lowerer) varFor(v *glsl.Variable) *Var {
	if iv, ok := l.vars[v]; ok {
		return iv
	}
	iv := &Var{Name: v.Name, Bases: slotBases(v.Type, nil)}
	iv.Components = len(iv.Bases)
	switch {
	case v.Builtin && v.Storage != glsl.StorageUniform: // gl_DepthRange is a uniform
		iv.Kind = VarOutput
	case v.Storage == glsl.StorageUniform:
		iv.Kind = VarUniform
	case v.Storage == glsl.StorageAttribute:
		iv.Kind = VarAttribute
		if v.Type.IsMatrix() {
			iv.ColumnSize = v.Type.Size()
		}
	case v.Storage == glsl.StorageVarying:
		iv.Kind = VarVarying
	}
	l.vars[v] = iv
	l.main.Vars = append(l.main.Vars, iv)
	return iv
}

// slotBases flattens t into scalar slots (samplers: one int slot).
func slotBases(t *glsl.Type, out []Base) []Base {
	switch {
	case t.IsSampler():
		return append(out, BaseInt)
	case t.Kind == glsl.Array:
		for i := 0; i < t.Len; i++ {
			out = slotBases(t.Elem, out)
		}
		return out
	case t.Kind == glsl.Struct:
		for _, fl := range t.Struct.Fields {
			out = slotBases(fl.Type, out)
		}
		return out
	}
	b := baseOf(t.Scalar())
	for i := 0; i < t.Components(); i++ {
		out = append(out, b)
	}
	return out
}

// SlotCount is the number of uniform-storage slots of a GLSL type: its
// scalar components, with one slot per sampler.
func SlotCount(t *glsl.Type) int { return len(slotBases(t, nil)) }

func baseOf(k glsl.Kind) Base {
	switch k {
	case glsl.Int, glsl.Uint: // uint is int bits; its ops differ (lower_compute.go)
		return BaseInt
	case glsl.Bool:
		return BaseBool
	}
	return BaseFloat
}

// leafTypes flattens t into leaf IR types; samplers are Void.
func leafTypes(t *glsl.Type, out []Type) []Type {
	switch {
	case t.IsSampler():
		return append(out, Void)
	case t.Kind == glsl.Array:
		for i := 0; i < t.Len; i++ {
			out = leafTypes(t.Elem, out)
		}
		return out
	case t.Kind == glsl.Struct:
		for _, fl := range t.Struct.Fields {
			out = leafTypes(fl.Type, out)
		}
		return out
	case t.IsMatrix():
		for i := 0; i < t.Size(); i++ {
			out = append(out, Vec(BaseFloat, t.Size()))
		}
		return out
	case t.IsScalar() || t.IsVector():
		return append(out, Vec(baseOf(t.Scalar()), t.Size()))
	}
	return out
}

func leafCount(t *glsl.Type) int { return len(leafTypes(t, nil)) }

func irType(t *glsl.Type) Type { return Vec(baseOf(t.Scalar()), t.Size()) }

// ---- constants -----------------------------------------------------------

func (l *lowerer) zero(t *glsl.Type) value {
	var v value
	for _, lt := range leafTypes(t, nil) {
		if lt.Width == 0 {
			v = append(v, leaf{})
			continue
		}
		v = append(v, leaf{x: l.b.Const(lt, 0)})
	}
	return v
}

func (l *lowerer) boolConst(b bool) value { return value{{x: l.b.ConstB(b)}} }

func scalarBits(s glsl.Scalar) uint32 {
	switch s.Kind {
	case glsl.Float:
		return FloatBits(s.F)
	case glsl.Int, glsl.Uint:
		return uint32(s.I)
	}
	return BoolBits(s.B)
}

// constValue materialises a folded constant.
func (l *lowerer) constValue(t *glsl.Type, cv glsl.Value) value {
	var v value
	k := 0
	for _, lt := range leafTypes(t, nil) {
		if lt.Width == 0 {
			v = append(v, leaf{})
			continue
		}
		bits := make([]uint32, lt.Width)
		for i := range bits {
			if k < len(cv) {
				bits[i] = scalarBits(cv[k])
			}
			k++
		}
		v = append(v, leaf{x: l.b.Const(lt, bits...)})
	}
	return v
}

// ---- statements ----------------------------------------------------------

// guardFlags returns the flags whose being set means "skip the rest".
func (l *lowerer) guardFlags() []*flag {
	fl := []*flag{l.fn.ret}
	for _, lc := range l.fn.loops {
		fl = append(fl, lc.brk)
		if lc == l.fn.loops[len(l.fn.loops)-1] {
			fl = append(fl, lc.cont)
		}
	}
	if l.killed != nil {
		fl = append(fl, l.killed)
	}
	return fl
}

// anyFlag ORs the current values of flags.
func (l *lowerer) anyFlag(flags []*flag) *Instr {
	var acc *Instr
	for _, fl := range flags {
		v, ok := l.env[fl]
		if !ok {
			continue
		}
		if acc == nil {
			acc = v[0].x
		} else {
			acc = l.b.Emit(OpBOr, Bool, acc, v[0].x)
		}
	}
	if acc == nil {
		acc = l.b.ConstB(false)
	}
	return acc
}

// block lowers a statement list; after a statement that may jump, the rest
// runs under `if (!jumped)`.
func (l *lowerer) block(stmts []glsl.Stmt) jump {
	for i, s := range stmts {
		j := l.stmt(s)
		switch j {
		case jumpAlways:
			return jumpAlways
		case jumpMaybe:
			rest := stmts[i+1:]
			if len(rest) == 0 {
				return jumpMaybe
			}
			cond := l.b.Emit(OpBNot, Bool, l.anyFlag(l.guardFlags()))
			l.ifThen(cond, func() jump { return l.block(rest) }, nil)
			return jumpMaybe
		}
	}
	return jumpNone
}

// ifThen lowers an If with the given branch builders and merges the
// environment with phis. It returns the combined jump state.
func (l *lowerer) ifThen(cond *Instr, then, els func() jump) jump {
	pre := l.env
	n := l.b.If(cond)
	saved := l.b.SetList(&n.Then)
	l.env = pre.clone()
	jt := jumpNone
	if then != nil {
		jt = then()
	}
	thenEnv := l.env
	l.b.SetList(&n.Else)
	l.env = pre.clone()
	je := jumpNone
	if els != nil {
		je = els()
	}
	elseEnv := l.env
	l.b.SetList(saved)
	l.env = pre.clone()
	for _, k := range l.keys(pre) {
		pv := pre[k]
		tv, ev := thenEnv[k], elseEnv[k]
		merged := make(value, len(pv))
		changed := false
		for i := range pv {
			if pv[i].x == nil {
				merged[i] = pv[i]
				continue
			}
			if tv[i].x == ev[i].x {
				merged[i] = tv[i]
				if tv[i].x != pv[i].x {
					changed = true
				}
				continue
			}
			p := l.b.Phi(tv[i].x.Type, tv[i].x, ev[i].x)
			n.Phis = append(n.Phis, p)
			merged[i] = leaf{x: p}
			changed = true
		}
		if changed {
			l.set(k, merged)
		}
	}
	switch {
	case jt == jumpAlways && je == jumpAlways:
		return jumpAlways
	case jt != jumpNone || je != jumpNone:
		return jumpMaybe
	}
	return jumpNone
}

func (l *lowerer) declare(vd *glsl.VarDecl) {
	v := vd.Var
	if v.Type.IsSampler() {
		return
	}
	switch {
	case vd.Init != nil:
		l.set(v, l.expr(vd.Init))
	case v.Value != nil:
		l.set(v, l.constValue(v.Type, v.Value))
	default:
		l.set(v, l.zero(v.Type))
	}
}

func (l *lowerer) stmt(s glsl.Stmt) jump {
	switch s := s.(type) {
	case nil:
		return jumpNone
	case *glsl.BlockStmt:
		return l.block(s.Stmts)
	case *glsl.DeclStmt:
		for _, vd := range s.Vars {
			l.declare(vd)
		}
	case *glsl.PrecisionStmt, *glsl.InvariantStmt, *glsl.FuncDecl:
	case *glsl.ExprStmt:
		if s.X != nil {
			l.expr(s.X)
		}
	case *glsl.IfStmt:
		c := l.expr(s.Cond)[0].x
		var els func() jump
		if s.Else != nil {
			els = func() jump { return l.stmt(s.Else) }
		}
		return l.ifThen(c, func() jump { return l.stmt(s.Then) }, els)
	case *glsl.ForStmt:
		if s.Init != nil {
			l.stmt(s.Init)
		}
		var cond func() *Instr
		if s.Cond != nil {
			cond = func() *Instr { return l.expr(s.Cond)[0].x }
		}
		var post func()
		if s.Post != nil {
			post = func() { l.expr(s.Post) }
		}
		return l.loop(cond, func() jump { return l.stmt(s.Body) }, post, false)
	case *glsl.WhileStmt:
		cond := func() *Instr {
			if s.CondDecl != nil {
				l.declare(s.CondDecl)
			}
			return l.expr(s.Cond)[0].x
		}
		return l.loop(cond, func() jump { return l.stmt(s.Body) }, nil, false)
	case *glsl.DoStmt:
		return l.loop(func() *Instr { return l.expr(s.Cond)[0].x }, func() jump { return l.stmt(s.Body) }, nil, true)
	case *glsl.SwitchStmt:
		return l.switchStmt(s)
	case *glsl.BranchStmt:
		if len(l.fn.loops) == 0 {
			l.fail("line %d: break/continue outside a loop", s.Line)
		}
		lc := l.fn.loops[len(l.fn.loops)-1]
		if s.Continue {
			l.set(lc.cont, l.boolConst(true))
		} else {
			l.set(lc.brk, l.boolConst(true))
		}
		return jumpAlways
	case *glsl.ReturnStmt:
		if s.X != nil && l.fn.retVal != nil {
			l.set(l.fn.retVal, l.expr(s.X))
		}
		l.set(l.fn.ret, l.boolConst(true))
		l.jumps++
		return jumpAlways
	case *glsl.DiscardStmt:
		if l.f.Stage != Fragment {
			l.fail("line %d: discard in a vertex shader", s.Line)
		}
		l.set(l.killed, l.boolConst(true))
		l.jumps++
		return jumpAlways
	default:
		l.fail("unsupported statement %T", s)
	}
	return jumpNone
}

// loop lowers for/while (cond checked before the body) and do-while
// (checked after). Every variable live at entry is loop-carried (CopyProp
// removes the phis of those the loop does not change).
func (l *lowerer) loop(cond func() *Instr, body func() jump, post func(), condAfter bool) jump {
	if l.f.nextID > MaxLoweredInstrs {
		l.fail("shader too large (over %d instructions)", MaxLoweredInstrs)
	}
	lc := &loopCtx{brk: &flag{"break"}, cont: &flag{"continue"}}
	l.set(lc.brk, l.boolConst(false))
	jumpsBefore := l.jumps
	n := l.b.Loop()
	type carried struct {
		key  any
		phis []*Instr
	}
	var cs []carried
	for _, k := range l.keys(l.env) {
		v := l.env[k]
		c := carried{key: k}
		nv := make(value, len(v))
		for i, lf := range v {
			if lf.x == nil {
				nv[i] = lf
				continue
			}
			p := l.b.Phi(lf.x.Type, lf.x, nil)
			n.Phis = append(n.Phis, p)
			c.phis = append(c.phis, p)
			nv[i] = leaf{x: p}
		}
		l.set(k, nv)
		cs = append(cs, c)
	}
	saved := l.b.SetList(&n.Body)
	l.fn.loops = append(l.fn.loops, lc)
	l.set(lc.cont, l.boolConst(false))
	if !condAfter && cond != nil {
		c := cond()
		l.ifThen(l.b.Emit(OpBNot, Bool, c), func() jump {
			l.set(lc.brk, l.boolConst(true))
			return jumpAlways
		}, nil)
		stop := l.anyFlag([]*flag{lc.brk})
		l.ifThen(l.b.Emit(OpBNot, Bool, stop), body, nil)
	} else {
		body()
	}
	// Continue target: post (for) or the condition (do-while), skipped by
	// break, return and discard but not by continue.
	skip := []*flag{lc.brk, l.fn.ret}
	if l.killed != nil {
		skip = append(skip, l.killed)
	}
	if post != nil || (condAfter && cond != nil) {
		l.ifThen(l.b.Emit(OpBNot, Bool, l.anyFlag(skip)), func() jump {
			if post != nil {
				post()
			}
			if condAfter && cond != nil {
				c := cond()
				l.ifThen(l.b.Emit(OpBNot, Bool, c), func() jump {
					l.set(lc.brk, l.boolConst(true))
					return jumpAlways
				}, nil)
			}
			return jumpNone
		}, nil)
	}
	n.Cond = l.b.Emit(OpBNot, Bool, l.anyFlag(skip))
	l.fn.loops = l.fn.loops[:len(l.fn.loops)-1]
	l.b.SetList(saved)
	for _, c := range cs {
		v := l.env[c.key]
		k := 0
		for _, lf := range v {
			if lf.x == nil {
				continue
			}
			c.phis[k].Args[1] = lf.x
			k++
		}
		nv := make(value, len(v))
		k = 0
		for i, lf := range v {
			if lf.x == nil {
				nv[i] = lf
				continue
			}
			nv[i] = leaf{x: c.phis[k]}
			k++
		}
		l.set(c.key, nv)
	}
	// Only loop-carried variables are in scope after the loop.
	after := env{}
	for _, c := range cs {
		if c.key != lc.brk {
			after[c.key] = l.env[c.key]
		}
	}
	l.env = after
	if l.jumps != jumpsBefore {
		return jumpMaybe // a return or discard inside the loop
	}
	return jumpNone
}

// hasDiscard reports whether main or any function contains discard.
func hasDiscard(tu *glsl.TranslationUnit) bool {
	var walk func(s glsl.Stmt) bool
	walk = func(s glsl.Stmt) bool {
		switch s := s.(type) {
		case *glsl.DiscardStmt:
			return true
		case *glsl.BlockStmt:
			if s == nil {
				return false
			}
			for _, x := range s.Stmts {
				if walk(x) {
					return true
				}
			}
		case *glsl.IfStmt:
			return walk(s.Then) || walk(s.Else)
		case *glsl.ForStmt:
			return walk(s.Body)
		case *glsl.WhileStmt:
			return walk(s.Body)
		case *glsl.DoStmt:
			return walk(s.Body)
		case *glsl.SwitchStmt:
			for _, c := range s.Clauses {
				for _, x := range c.Body {
					if walk(x) {
						return true
					}
				}
			}
		}
		return false
	}
	for _, fn := range tu.Functions {
		if fn.Body != nil && walk(fn.Body) {
			return true
		}
	}
	return tu.Main.Body != nil && walk(tu.Main.Body)
}
