package ir

import (
	"sort"
	"strconv"
	"strings"

	"github.com/tilegpu/tilegpu/compiler/glsl"
)

// ---- user functions: one IR function each, called with OpCall ------------
//
// A GLSL function becomes a callee Func (Func.Params, Func.Results) the
// first time a call of it is lowered; later calls reuse it. Arguments are
// passed by value-result, which is GLSL's own rule for out and inout
// (§6.1.1: copied in at the call, copied out at the return):
//
//	params:  in/inout parameters' leaves, in order (a sampler leaf that a
//	         dynamic index chose passes its selection conditions), then
//	         the leaves of every global the function (or one it calls)
//	         reads or writes, then the discard flag if it may discard;
//	results: the return value's leaves, the out/inout parameters' leaves
//	         in order, the globals it writes, then the discard flag.
//
// Inside the callee, return and discard are the same flags and guarded
// regions as in main, so its body ends in every lane with its results
// defined. Samplers are not values: a callee is specialised per binding of
// its sampler parameters (which uniform slots they name).

// calleeKey identifies one specialisation of a function.
type calleeKey struct {
	fn    *glsl.Function
	shape string // the sampler arguments (samplerShape), "" if none
}

type callee struct {
	f        *Func
	globals  []*glsl.Variable // passed in, in stateOrder
	written  []*glsl.Variable // returned, in stateOrder
	discards bool             // takes and returns the discard flag
}

// fnState is what a function touches beyond its parameters, including
// through the functions it calls.
type fnState struct {
	touched  map[*glsl.Variable]bool // globals read or written
	written  map[*glsl.Variable]bool
	discards bool
	done     bool
}

// isState reports globals that live in the env (non-interface globals,
// vertex-shader varyings and the written built-in outputs): a callee
// receives them as parameters and returns the ones it writes.
func (l *lowerer) isState(v *glsl.Variable) bool {
	if v == nil || !v.Global || l.isInput(v) || v.Value != nil || v.Type.IsSampler() || isMemory(v) {
		return false
	}
	if v.Builtin {
		switch v.Name {
		case "gl_Position", "gl_PointSize", "gl_FragColor", "gl_FragData":
			return true
		}
		return false
	}
	return true
}

// stateOf computes (once) the globals fn reads and writes and whether it
// may discard, including what its callees do.
func (l *lowerer) stateOf(fn *glsl.Function) *fnState {
	if s, ok := l.states[fn]; ok {
		if !s.done {
			l.fail("function %s calls itself (recursion is not allowed)", fn.Name)
		}
		return s
	}
	s := &fnState{touched: map[*glsl.Variable]bool{}, written: map[*glsl.Variable]bool{}}
	l.states[fn] = s
	var expr func(e glsl.Expr)
	// lval marks the root of an l-value written (and read: a partial write
	// keeps the rest of the old value).
	lval := func(e glsl.Expr) {
		for {
			switch x := e.(type) {
			case *glsl.Index:
				expr(x.Index)
				e = x.X
				continue
			case *glsl.FieldSelect:
				e = x.X
				continue
			case *glsl.Swizzle:
				e = x.X
				continue
			case *glsl.Ident:
				if l.isState(x.Var) {
					s.touched[x.Var] = true
					s.written[x.Var] = true
				}
			}
			return
		}
	}
	expr = func(e glsl.Expr) {
		switch e := e.(type) {
		case *glsl.Ident:
			if l.isState(e.Var) {
				s.touched[e.Var] = true
			}
		case *glsl.Unary:
			switch e.Op {
			case glsl.OpPreInc, glsl.OpPreDec, glsl.OpPostInc, glsl.OpPostDec:
				lval(e.X)
			default:
				expr(e.X)
			}
		case *glsl.Binary:
			expr(e.X)
			expr(e.Y)
		case *glsl.Assign:
			lval(e.LHS)
			expr(e.RHS)
		case *glsl.Cond:
			expr(e.Cond)
			expr(e.Then)
			expr(e.Else)
		case *glsl.Sequence:
			expr(e.X)
			expr(e.Y)
		case *glsl.Index:
			expr(e.X)
			expr(e.Index)
		case *glsl.FieldSelect:
			expr(e.X)
		case *glsl.Swizzle:
			expr(e.X)
		case *glsl.Construct:
			for _, a := range e.Args {
				expr(a)
			}
		case *glsl.Call:
			for i, a := range e.Args {
				if e.Func != nil && i < len(e.Func.Params) &&
					(e.Func.Params[i].Storage == glsl.StorageOut || e.Func.Params[i].Storage == glsl.StorageInOut) ||
					e.Func == nil && builtinOutArg(e.Builtin, i) {
					lval(a)
				} else {
					expr(a)
				}
			}
			if e.Func != nil && e.Func.Body != nil {
				cs := l.stateOf(e.Func)
				for v := range cs.touched {
					s.touched[v] = true
				}
				for v := range cs.written {
					s.written[v] = true
				}
				s.discards = s.discards || cs.discards
			}
		}
	}
	var stmt func(st glsl.Stmt)
	stmt = func(st glsl.Stmt) {
		switch st := st.(type) {
		case *glsl.BlockStmt:
			if st != nil {
				for _, x := range st.Stmts {
					stmt(x)
				}
			}
		case *glsl.DeclStmt:
			for _, vd := range st.Vars {
				if vd.Init != nil {
					expr(vd.Init)
				}
			}
		case *glsl.ExprStmt:
			if st.X != nil {
				expr(st.X)
			}
		case *glsl.IfStmt:
			expr(st.Cond)
			stmt(st.Then)
			if st.Else != nil {
				stmt(st.Else)
			}
		case *glsl.ForStmt:
			if st.Init != nil {
				stmt(st.Init)
			}
			if st.Cond != nil {
				expr(st.Cond)
			}
			if st.Post != nil {
				expr(st.Post)
			}
			stmt(st.Body)
		case *glsl.WhileStmt:
			if st.CondDecl != nil && st.CondDecl.Init != nil {
				expr(st.CondDecl.Init)
			}
			expr(st.Cond)
			stmt(st.Body)
		case *glsl.DoStmt:
			stmt(st.Body)
			expr(st.Cond)
		case *glsl.SwitchStmt:
			expr(st.Selector)
			for _, c := range st.Clauses {
				for _, x := range c.Body {
					stmt(x)
				}
			}
		case *glsl.ReturnStmt:
			if st.X != nil {
				expr(st.X)
			}
		case *glsl.DiscardStmt:
			s.discards = true
		}
	}
	stmt(fn.Body)
	s.done = true
	return s
}

// stateList returns the variables of set in a deterministic order: user
// globals in declaration order, then built-ins.
func (l *lowerer) stateList(set map[*glsl.Variable]bool) []*glsl.Variable {
	out := make([]*glsl.Variable, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	rank := func(v *glsl.Variable) int {
		for i, g := range l.tu.Globals {
			if g == v {
				return i
			}
		}
		for i, g := range l.tu.Builtins {
			if g == v {
				return len(l.tu.Globals) + i
			}
		}
		return len(l.tu.Globals) + len(l.tu.Builtins)
	}
	sort.Slice(out, func(i, j int) bool {
		ri, rj := rank(out[i]), rank(out[j])
		if ri != rj {
			return ri < rj
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// samplerShape describes a sampler leaf for the specialisation key.
func samplerShape(b *strings.Builder, lf leaf) {
	switch {
	case lf.selCond != nil:
		b.WriteByte('(')
		samplerShape(b, *lf.selA)
		b.WriteByte('|')
		samplerShape(b, *lf.selB)
		b.WriteByte(')')
	case lf.smp != nil:
		b.WriteString(lf.smp.Name)
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(lf.slot))
		b.WriteByte(']')
	default:
		b.WriteByte('-')
	}
}

// samplerConds appends the selection conditions of a sampler leaf, in the
// order the callee's samplerParam takes them.
func samplerConds(args []*Instr, lf leaf) []*Instr {
	if lf.selCond == nil {
		return args
	}
	args = append(args, lf.selCond)
	args = samplerConds(args, *lf.selA)
	return samplerConds(args, *lf.selB)
}

// samplerParam rebuilds a sampler leaf shaped like lf inside a callee, its
// selection conditions taken from new parameters.
func samplerParam(lf leaf, param func(Type) *Instr) leaf {
	if lf.selCond == nil {
		return leaf{smp: lf.smp, slot: lf.slot}
	}
	c := param(Bool)
	a := samplerParam(*lf.selA, param)
	b := samplerParam(*lf.selB, param)
	return leaf{selCond: c, selA: &a, selB: &b}
}

// call lowers a call of a user function to OpCall and its OpCallResults.
func (l *lowerer) call(call *glsl.Call) value {
	fn := call.Func
	if fn.Body == nil {
		l.fail("line %d: function %s is declared but not defined", call.Pos(), fn.Name)
	}
	// Arguments in order: in values, and l-values for out/inout.
	type outArg struct {
		param *glsl.Variable
		lv    lvalue
	}
	var outs []outArg
	bind := make([]value, len(fn.Params))
	var shape strings.Builder
	for i, p := range fn.Params {
		a := call.Args[i]
		switch p.Storage {
		case glsl.StorageOut:
			outs = append(outs, outArg{p, l.lvalue(a)})
		case glsl.StorageInOut:
			lv := l.lvalue(a)
			outs = append(outs, outArg{p, lv})
			bind[i] = l.load(lv)
		default:
			bind[i] = l.expr(a)
			for _, lf := range bind[i] {
				if lf.isSampler() {
					samplerShape(&shape, lf)
					shape.WriteByte(' ')
				}
			}
		}
	}
	c := l.callee(fn, shape.String(), bind)
	var args []*Instr
	for i, p := range fn.Params {
		if p.Storage == glsl.StorageOut {
			continue
		}
		for _, lf := range bind[i] {
			if lf.isSampler() {
				args = samplerConds(args, lf)
			} else {
				args = append(args, lf.x)
			}
		}
	}
	for _, g := range c.globals {
		for _, lf := range l.ident(g) {
			args = append(args, lf.x)
		}
	}
	if c.discards {
		args = append(args, l.env[l.killed][0].x)
	}
	in := l.emit(OpCall, Void, args...)
	in.Callee = c.f
	k := 0
	take := func(t *glsl.Type) value {
		var v value
		for range leafTypes(t, nil) {
			v = append(v, leaf{x: l.b.EmitIndex(OpCallResult, c.f.Results[k].Type, k, in)})
			k++
		}
		return v
	}
	var result value
	if fn.Return != nil && fn.Return.Kind != glsl.Void {
		result = take(fn.Return)
	}
	outVals := make([]value, len(outs))
	for i, o := range outs {
		outVals[i] = take(o.param.Type)
	}
	// Globals first, then the out arguments: an out argument naming a
	// global the callee also wrote gets the argument's value, as when the
	// copy-out happens at the return.
	for _, g := range c.written {
		l.set(g, take(g.Type))
	}
	if c.discards {
		l.set(l.killed, take(glsl.TypeBool))
		l.jumps++ // the lane may have discarded: loops around stop for it
	}
	for i, o := range outs {
		l.storeLV(o.lv, outVals[i])
	}
	return result
}

// callee returns the IR function of fn for sampler arguments of the given
// shape, lowering it on first use. bind holds the call's in and inout
// argument values, whose leaf types (and sampler bindings) it takes.
func (l *lowerer) callee(fn *glsl.Function, shape string, bind []value) *callee {
	key := calleeKey{fn, shape}
	if c, ok := l.callees[key]; ok {
		return c
	}
	st := l.stateOf(fn)
	var name strings.Builder
	name.WriteString(fn.Name)
	name.WriteByte('(')
	for i, p := range fn.Params {
		if i > 0 {
			name.WriteByte(',')
		}
		if p.Storage == glsl.StorageOut || p.Storage == glsl.StorageInOut {
			name.WriteString(p.Storage.String())
			name.WriteByte(' ')
		}
		name.WriteString(p.Type.String())
	}
	name.WriteByte(')')
	if shape != "" {
		name.WriteString("[" + strings.TrimSpace(shape) + "]")
	}
	f := NewFunc(name.String(), l.main.Stage)
	c := &callee{f: f, globals: l.stateList(st.touched), written: l.stateList(st.written),
		discards: st.discards && l.killed != nil}

	savedF, savedB, savedEnv, savedFn, savedJumps := l.f, l.b, l.env, l.fn, l.jumps
	l.f, l.b, l.env, l.jumps = f, NewBuilder(f), env{}, 0
	param := func(t Type) *Instr {
		p := f.NewInstr(OpParam, t)
		p.Index = len(f.Params)
		f.Params = append(f.Params, p)
		return p
	}
	for i, p := range fn.Params {
		if p.Storage == glsl.StorageOut {
			l.set(p, l.zero(p.Type))
			continue
		}
		v := make(value, len(bind[i]))
		for j, lf := range bind[i] {
			if lf.isSampler() {
				v[j] = samplerParam(lf, param)
			} else {
				v[j] = leaf{x: param(lf.x.Type)}
			}
		}
		l.set(p, v)
	}
	for _, g := range c.globals {
		var v value
		for _, t := range leafTypes(g.Type, nil) {
			v = append(v, leaf{x: param(t)})
		}
		l.set(g, v)
	}
	if c.discards {
		l.set(l.killed, single(param(Bool)))
	}
	ctx := &fnCtx{ret: &flag{"return " + fn.Name}}
	l.set(ctx.ret, l.boolConst(false))
	if fn.Return != nil && fn.Return.Kind != glsl.Void {
		ctx.retVal = &flag{"value of " + fn.Name}
		ctx.retTy = fn.Return
		l.set(ctx.retVal, l.zero(fn.Return))
	}
	l.fn = ctx
	l.block(fn.Body.Stmts)

	results := func(v value) {
		for _, lf := range v {
			if lf.isSampler() {
				l.fail("function %s returns a sampler", fn.Name)
			}
			f.Results = append(f.Results, lf.x)
		}
	}
	if ctx.retVal != nil {
		results(l.env[ctx.retVal])
	}
	for _, p := range fn.Params {
		if p.Storage == glsl.StorageOut || p.Storage == glsl.StorageInOut {
			results(l.env[p])
		}
	}
	for _, g := range c.written {
		results(l.env[g])
	}
	if c.discards {
		results(l.env[l.killed])
	}
	l.f, l.b, l.env, l.fn, l.jumps = savedF, savedB, savedEnv, savedFn, savedJumps
	l.main.Funcs = append(l.main.Funcs, f)
	l.callees[key] = c
	return c
}
