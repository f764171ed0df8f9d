package ir

import (
	"math"

	"github.com/tilegpu/tilegpu/compiler/glsl"
)

// builtin expands a call of a GLSL ES 1.00 chapter 8 built-in function (and
// the OES_standard_derivatives ones) into IR ops.
func (l *lowerer) builtin(call *glsl.Call) value {
	if v, ok := l.computeCall(call); ok {
		return v
	}
	name := call.Builtin
	var args []value
	for _, a := range call.Args {
		args = append(args, l.expr(a))
	}
	arg := func(i int) *Instr { return args[i][0].x }
	// Widen scalar arguments to the width of the widest (genType, float).
	width := 1
	for _, a := range args {
		if len(a) == 1 && a[0].x != nil && int(a[0].x.Type.Width) > width {
			width = int(a[0].x.Type.Width)
		}
	}
	w := func(i int) *Instr { return l.splat(arg(i), width) }
	ft := Vec(BaseFloat, width)
	un := func(op Op) value { return single(l.emit(op, arg(0).Type, arg(0))) }
	switch name {
	case "radians":
		return single(l.emit(OpFMul, ft, arg(0), l.fconst(math.Pi/180, width)))
	case "degrees":
		return single(l.emit(OpFMul, ft, arg(0), l.fconst(180/math.Pi, width)))
	case "sin":
		return single(l.sin(arg(0), 0))
	case "cos":
		return single(l.sin(arg(0), 0.25))
	case "tan":
		return single(l.fdiv(l.sin(arg(0), 0), l.sin(arg(0), 0.25)))
	case "asin":
		x := arg(0)
		return single(l.atan2(x, l.sqrt(l.oneMinusSq(x))))
	case "acos":
		x := arg(0)
		return single(l.atan2(l.sqrt(l.oneMinusSq(x)), x))
	case "atan":
		if len(args) == 2 {
			return single(l.atan2(arg(0), arg(1)))
		}
		return single(l.atan2(arg(0), l.fconst(1, width)))
	case "pow":
		return single(l.emit(OpExp2, ft, l.emit(OpFMul, ft, arg(1), l.emit(OpLog2, ft, arg(0)))))
	case "exp":
		return single(l.emit(OpExp2, ft, l.emit(OpFMul, ft, arg(0), l.fconst(math.Log2E, width))))
	case "log":
		return single(l.emit(OpFMul, ft, l.emit(OpLog2, ft, arg(0)), l.fconst(math.Ln2, width)))
	case "exp2":
		return un(OpExp2)
	case "log2":
		return un(OpLog2)
	case "sqrt":
		return single(l.sqrt(arg(0)))
	case "inversesqrt":
		return un(OpRsq)
	case "abs":
		return un(OpFAbs)
	case "sign":
		return un(OpFSign)
	case "floor":
		return un(OpFFloor)
	case "ceil":
		return un(OpFCeil)
	case "fract":
		return un(OpFFract)
	case "mod":
		x, y := arg(0), w(1)
		q := l.emit(OpFFloor, ft, l.fdiv(x, y))
		return single(l.emit(OpFSub, ft, x, l.emit(OpFMul, ft, y, q)))
	case "min":
		return single(l.emit(OpFMin, ft, arg(0), w(1)))
	case "max":
		return single(l.emit(OpFMax, ft, arg(0), w(1)))
	case "clamp":
		return single(l.emit(OpFMin, ft, l.emit(OpFMax, ft, arg(0), w(1)), w(2)))
	case "mix":
		x, y, a := arg(0), arg(1), w(2)
		oneMinus := l.emit(OpFSub, ft, l.fconst(1, width), a)
		return single(l.emit(OpFAdd, ft, l.emit(OpFMul, ft, x, oneMinus), l.emit(OpFMul, ft, y, a)))
	case "step":
		edge, x := w(0), arg(1)
		lt := l.emit(OpFLt, Vec(BaseBool, width), x, edge)
		return single(l.emit(OpSelect, ft, lt, l.fconst(0, width), l.fconst(1, width)))
	case "smoothstep":
		e0, e1, x := w(0), w(1), arg(2)
		t := l.fdiv(l.emit(OpFSub, ft, x, e0), l.emit(OpFSub, ft, e1, e0))
		t = l.emit(OpFMin, ft, l.emit(OpFMax, ft, t, l.fconst(0, width)), l.fconst(1, width))
		poly := l.emit(OpFSub, ft, l.fconst(3, width), l.emit(OpFMul, ft, l.fconst(2, width), t))
		return single(l.emit(OpFMul, ft, l.emit(OpFMul, ft, t, t), poly))
	case "length":
		return single(l.sqrt(l.dot(arg(0), arg(0))))
	case "distance":
		d := l.emit(OpFSub, arg(0).Type, arg(0), arg(1))
		return single(l.sqrt(l.dot(d, d)))
	case "dot":
		return single(l.dot(arg(0), arg(1)))
	case "cross":
		a, b := l.comps(arg(0)), l.comps(arg(1))
		c := func(i, j int) *Instr {
			return l.emit(OpFSub, Float, l.emit(OpFMul, Float, a[i], b[j]), l.emit(OpFMul, Float, a[j], b[i]))
		}
		return single(l.vec([]*Instr{c(1, 2), c(2, 0), c(0, 1)}))
	case "normalize":
		x := arg(0)
		return single(l.emit(OpFMul, x.Type, x, l.splat(l.emit(OpRsq, Float, l.dot(x, x)), int(x.Type.Width))))
	case "faceforward":
		n, i, nref := arg(0), arg(1), arg(2)
		lt := l.emit(OpFLt, Bool, l.dot(nref, i), l.b.ConstF(0))
		return single(l.emit(OpSelect, n.Type, lt, n, l.emit(OpFNeg, n.Type, n)))
	case "reflect":
		i, n := arg(0), arg(1)
		d := l.dot(n, i)
		s := l.splat(l.emit(OpFMul, Float, l.b.ConstF(2), d), int(n.Type.Width))
		return single(l.emit(OpFSub, i.Type, i, l.emit(OpFMul, n.Type, s, n)))
	case "refract":
		i, n, eta := arg(0), arg(1), arg(2)
		t := i.Type
		d := l.dot(n, i)
		k := l.emit(OpFSub, Float, l.b.ConstF(1),
			l.emit(OpFMul, Float, l.emit(OpFMul, Float, eta, eta), l.oneMinusSq(d)))
		coef := l.emit(OpFAdd, Float, l.emit(OpFMul, Float, eta, d), l.sqrt(k))
		r := l.emit(OpFSub, t, l.emit(OpFMul, t, l.splat(eta, int(t.Width)), i),
			l.emit(OpFMul, t, l.splat(coef, int(t.Width)), n))
		neg := l.emit(OpFLt, Bool, k, l.b.ConstF(0))
		return single(l.emit(OpSelect, t, neg, l.b.Const(t, 0), r))
	case "matrixCompMult":
		out := make(value, len(args[0]))
		for c := range out {
			x := args[0][c].x
			out[c] = leaf{x: l.emit(OpFMul, x.Type, x, args[1][c].x)}
		}
		return out
	case "lessThan":
		return single(l.compare(glsl.OpLess, arg(0), arg(1)))
	case "lessThanEqual":
		return single(l.compare(glsl.OpLessEq, arg(0), arg(1)))
	case "greaterThan":
		return single(l.compare(glsl.OpGreater, arg(0), arg(1)))
	case "greaterThanEqual":
		return single(l.compare(glsl.OpGreaterEq, arg(0), arg(1)))
	case "equal":
		return single(l.equal(arg(0), arg(1)))
	case "notEqual":
		eq := l.equal(arg(0), arg(1))
		return single(l.emit(OpBNot, eq.Type, eq))
	case "any", "all":
		op := OpBOr
		if name == "all" {
			op = OpBAnd
		}
		cs := l.comps(arg(0))
		acc := cs[0]
		for _, c := range cs[1:] {
			acc = l.emit(op, Bool, acc, c)
		}
		return single(acc)
	case "not":
		return un(OpBNot)
	case "dFdx":
		return un(OpFDdx)
	case "dFdy":
		return un(OpFDdy)
	case "fwidth":
		x := arg(0)
		return single(l.emit(OpFAdd, x.Type, l.emit(OpFAbs, x.Type, l.emit(OpFDdx, x.Type, x)),
			l.emit(OpFAbs, x.Type, l.emit(OpFDdy, x.Type, x))))
	case "texture2D", "texture2DBias", "texture2DProj", "texture2DLod", "texture2DProjLod",
		"textureCube", "textureCubeLod":
		return l.texture(name, args)
	}
	l.fail("line %d: unsupported built-in function %s", call.Pos(), name)
	return nil
}

func (l *lowerer) texture(name string, args []value) value {
	smp := args[0][0]
	if !smp.isSampler() {
		l.fail("%s: first argument is not a sampler", name)
	}
	coord := args[1][0].x
	cs := l.comps(coord)
	kind := Tex2D
	switch name {
	case "textureCube", "textureCubeLod":
		kind = TexCube
		cs = cs[:3]
	case "texture2DProj", "texture2DProjLod":
		q := cs[len(cs)-1]
		inv := l.emit(OpRcp, Float, q)
		cs = []*Instr{l.emit(OpFMul, Float, cs[0], inv), l.emit(OpFMul, Float, cs[1], inv)}
	default:
		cs = cs[:2]
	}
	mode := LodAuto
	if len(args) > 2 {
		mode = LodBias
		if name == "texture2DLod" || name == "texture2DProjLod" || name == "textureCubeLod" {
			mode = LodExplicit
		}
		cs = append(cs, args[2][0].x)
	}
	if l.f.Stage != Fragment && mode != LodExplicit {
		// No derivatives outside fragment shaders: level 0 (§8.7), and a
		// bias has nothing to add to.
		if mode == LodBias {
			cs = cs[:len(cs)-1]
		}
		mode = LodExplicit
		cs = append(cs, l.b.ConstF(0))
	}
	return single(l.fetch(smp, kind, mode, cs))
}

// fetch emits the texture fetch of sampler leaf smp; a sampler chosen at
// run time fetches from every candidate and selects the result.
func (l *lowerer) fetch(smp leaf, kind TexKind, mode LodMode, args []*Instr) *Instr {
	if smp.selCond != nil {
		a := l.fetch(*smp.selA, kind, mode, args)
		b := l.fetch(*smp.selB, kind, mode, args)
		return l.emit(OpSelect, Vec4, smp.selCond, a, b)
	}
	if smp.smp == nil {
		l.fail("texture fetch from an uninitialised sampler")
	}
	in := l.f.NewInstr(OpTexture, Vec4, args...)
	in.Tex, in.Lod = kind, mode
	in.Var, in.Index = smp.smp, smp.slot
	l.b.Add(in)
	return in
}

func (l *lowerer) sqrt(x *Instr) *Instr {
	// rcp(rsq(x)) is exact for 0 (rsq(0) = +Inf) where x·rsq(x) is NaN.
	return l.emit(OpRcp, x.Type, l.emit(OpRsq, x.Type, x))
}

func (l *lowerer) oneMinusSq(x *Instr) *Instr {
	return l.emit(OpFSub, x.Type, l.b.Const(x.Type, FloatBits(1)), l.emit(OpFMul, x.Type, x, x))
}

// horner evaluates Σ c[i]·t^i.
func (l *lowerer) horner(t *Instr, c []float64) *Instr {
	n := int(t.Type.Width)
	acc := l.fconst(float32(c[len(c)-1]), n)
	for i := len(c) - 2; i >= 0; i-- {
		acc = l.emit(OpFAdd, t.Type, l.emit(OpFMul, t.Type, acc, t), l.fconst(float32(c[i]), n))
	}
	return acc
}

// sin computes sin(2π(x/2π + phase)) (phase 0.25 gives cos). Range
// reduction in turns: u = fract(x/2π + phase + 1/2) − 1/2 ∈ [−1/2, 1/2),
// folded into [−1/4, 1/4] by sin(π − a) = sin a, then a Taylor polynomial
// of degree 11 on a ∈ [−π/2, π/2] (error < 6e-8 before float rounding).
func (l *lowerer) sin(x *Instr, phase float32) *Instr {
	t := x.Type
	n := int(t.Width)
	bt := Vec(BaseBool, n)
	u := l.emit(OpFAdd, t, l.emit(OpFMul, t, x, l.fconst(float32(1/(2*math.Pi)), n)), l.fconst(phase+0.5, n))
	u = l.emit(OpFSub, t, l.emit(OpFFract, t, u), l.fconst(0.5, n))
	hi := l.emit(OpFLt, bt, l.fconst(0.25, n), u)
	u = l.emit(OpSelect, t, hi, l.emit(OpFSub, t, l.fconst(0.5, n), u), u)
	lo := l.emit(OpFLt, bt, u, l.fconst(-0.25, n))
	u = l.emit(OpSelect, t, lo, l.emit(OpFSub, t, l.fconst(-0.5, n), u), u)
	a := l.emit(OpFMul, t, u, l.fconst(float32(2*math.Pi), n))
	a2 := l.emit(OpFMul, t, a, a)
	p := l.horner(a2, []float64{1, -1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880, -1.0 / 39916800})
	return l.emit(OpFMul, t, a, p)
}

// atan2 computes atan(y/x) in (−π, π]. With r = min(|x|,|y|)/max(|x|,|y|)
// ∈ [0, 1], r > tan(π/8) is reduced by atan r = π/4 + atan((r−1)/(r+1)) to
// |z| ≤ tan(π/8), where the Taylor series to z^13 is within 1.3e-7. Octant
// corrections follow.
func (l *lowerer) atan2(y, x *Instr) *Instr {
	t := y.Type
	n := int(t.Width)
	bt := Vec(BaseBool, n)
	ax, ay := l.emit(OpFAbs, t, x), l.emit(OpFAbs, t, y)
	mn, mx := l.emit(OpFMin, t, ax, ay), l.emit(OpFMax, t, ax, ay)
	zero := l.fconst(0, n)
	r := l.fdiv(mn, mx)
	r = l.emit(OpSelect, t, l.emit(OpFEq, bt, mx, zero), zero, r)
	big := l.emit(OpFLt, bt, l.fconst(float32(math.Sqrt2-1), n), r)
	one := l.fconst(1, n)
	z := l.emit(OpSelect, t, big, l.fdiv(l.emit(OpFSub, t, r, one), l.emit(OpFAdd, t, r, one)), r)
	z2 := l.emit(OpFMul, t, z, z)
	p := l.horner(z2, []float64{1, -1.0 / 3, 1.0 / 5, -1.0 / 7, 1.0 / 9, -1.0 / 11, 1.0 / 13})
	a := l.emit(OpFMul, t, z, p)
	a = l.emit(OpSelect, t, big, l.emit(OpFAdd, t, a, l.fconst(math.Pi/4, n)), a)
	a = l.emit(OpSelect, t, l.emit(OpFLt, bt, ax, ay), l.emit(OpFSub, t, l.fconst(math.Pi/2, n), a), a)
	a = l.emit(OpSelect, t, l.emit(OpFLt, bt, x, zero), l.emit(OpFSub, t, l.fconst(math.Pi, n), a), a)
	return l.emit(OpSelect, t, l.emit(OpFLt, bt, y, zero), l.emit(OpFNeg, t, a), a)
}
