package backend

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/ir"
	"github.com/tilegpu/tilegpu/hw/qpu"
)

// Memory layout of the end-to-end harness.
const (
	codeVA    = 0x10000
	unifVA    = 0x20000
	storageVA = 0x30000
	scratchVA = 0x40000
	texDescVA = 0x50000 // fake descriptor VAs: texDescVA + 32·stream position
	qpuNumber = 3
)

type mapMem map[uint32]uint32

func (m mapMem) Read32(va uint32) (uint32, bool) {
	v, ok := m[va]
	return v, ok
}

func (m mapMem) Write32(va uint32, v uint32) bool {
	if _, ok := m[va]; !ok {
		return false
	}
	m[va] = v
	return true
}

// envSampler answers texture fetches with the interpreter's Env.Texture.
type envSampler struct {
	env   *ir.Env
	units map[uint32]uint32 // descriptor VA → texture unit
}

func (s envSampler) Sample(m qpu.Mem, desc uint32, req *qpu.TexRequest, out *[4][qpu.Lanes]float32) error {
	unit := s.units[desc]
	kind, mode := ir.Tex2D, ir.LodAuto
	if req.HasBias {
		mode = ir.LodBias
	} else if req.HasLOD {
		mode = ir.LodExplicit
	}
	for l := 0; l < qpu.Lanes; l++ {
		if req.Mask&(1<<l) == 0 {
			continue
		}
		c := [3]float32{req.S[l], req.T[l], req.R[l]}
		lod := req.Bias[l]
		if mode == ir.LodExplicit {
			lod = req.LOD[l]
		}
		if req.R[l] != 0 {
			kind = ir.TexCube
		}
		r := s.env.Texture(unit, kind, c, mode, lod)
		for k := 0; k < 4; k++ {
			out[k][l] = r[k]
		}
	}
	return nil
}

// run compiles f, executes it on the shader-core interpreter for one
// 16-lane batch with inputs from env, and returns the batch.
func run(t testing.TB, f *ir.Func, opts Options, env *ir.Env) (*qpu.Batch, *Binary) {
	t.Helper()
	bin, err := Compile(f, opts)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	mem := mapMem{}
	for i, w := range bin.Code {
		mem[codeVA+uint32(8*i)] = uint32(w)
		mem[codeVA+uint32(8*i)+4] = uint32(w >> 32)
	}
	for i, v := range env.Storage {
		mem[storageVA+uint32(4*i)] = v
	}
	for i := uint32(0); i < (qpuNumber+1)*bin.ScratchBytesPerThread/4; i++ {
		mem[scratchVA+4*i] = 0xdeadbeef
	}
	units := map[uint32]uint32{}
	for i, e := range bin.Uniforms {
		var v uint32
		switch e.Kind {
		case ir.UniformStorage:
			v = env.Storage[e.Index]
		case ir.UniformConstant:
			v = e.Value
		case ir.UniformTexture:
			v = texDescVA + 32*uint32(i)
			units[v] = env.Storage[e.Index]
		case ir.UniformStorageAddress:
			v = storageVA
		case ir.UniformScratchAddress:
			v = scratchVA
		case ir.UniformStreamAddress:
			v = unifVA
		default:
			t.Fatalf("unknown uniform kind %v", e.Kind)
		}
		mem[unifVA+uint32(4*i)] = v
	}
	fetch := func(va uint32) (uint64, bool) {
		lo, ok1 := mem[va]
		hi, ok2 := mem[va+4]
		return uint64(hi)<<32 | uint64(lo), ok1 && ok2
	}
	prog, err := qpu.Load(fetch, codeVA)
	if err != nil {
		t.Fatalf("load: %v\n%s", err, bin.Listing())
	}
	core := qpu.NewCore(mem)
	if env.Texture != nil {
		core.SetSampler(envSampler{env, units})
	}
	b := &qpu.Batch{UniformsVA: unifVA, QPUNumber: qpuNumber, LaneMask: 0xffff}
	switch f.Stage {
	case ir.Fragment:
		b.Stage = qpu.StageFragment
	case ir.Vertex:
		b.Stage = qpu.StageVertex
	default:
		b.Stage = qpu.StageCoordinate
	}
	nv := 0
	for _, v := range env.Varyings {
		if len(v) > nv {
			nv = len(v)
		}
	}
	b.Varyings = make([]float32, nv*16)
	for l, v := range env.Varyings {
		for i, x := range v {
			b.Varyings[i*16+l] = x
		}
	}
	na := 0
	for _, a := range env.Attributes {
		if len(a) > na {
			na = len(a)
		}
	}
	b.VPMIn = make([]float32, na*16)
	for l, a := range env.Attributes {
		for i, x := range a {
			b.VPMIn[i*16+l] = x
		}
	}
	b.VPMOut = make([]float32, 64*16)
	for l := 0; l < 16 && l < len(env.FragCoord); l++ {
		b.FragX[l], b.FragY[l], b.FragZ[l], b.FragW[l] = env.FragCoord[l][0], env.FragCoord[l][1], env.FragCoord[l][2], env.FragCoord[l][3]
	}
	for l := 0; l < 16 && l < len(env.PointCoord); l++ {
		b.PointS[l], b.PointT[l] = env.PointCoord[l][0], env.PointCoord[l][1]
	}
	for l := 0; l < 16 && l < len(env.FrontFacing); l++ {
		if env.FrontFacing[l] {
			b.FrontFacing[l] = 1
		}
	}
	if err := core.Run(prog, b); err != nil {
		t.Fatalf("run: %v\n%s", err, bin.Listing())
	}
	return b, bin
}

// sameBits compares results bit for bit (the sign of zero included: the
// interpreter's fmin/fmax order −0 below +0 as the hardware does), except
// that any NaN equals any NaN.
func sameBits(a, b uint32) bool {
	fa, fb := math.Float32frombits(a), math.Float32frombits(b)
	if fa != fa && fb != fb {
		return true
	}
	return a == b
}

// check runs f on the interpreter and the compiled code and compares every
// output word of every lane (and the discard mask).
func check(t testing.TB, f *ir.Func, opts Options, env *ir.Env) *Binary {
	t.Helper()
	mustVerify(t, f)
	env.Lanes = 16
	want, err := ir.Interpret(f, env)
	if err != nil {
		t.Fatalf("interpret: %v", err)
	}
	b, bin := run(t, f, opts, env)
	for l := 0; l < 16; l++ {
		if f.Stage == ir.Fragment {
			if got, w := b.Kill&(1<<l) != 0, want.Discarded[l]; got != w {
				t.Fatalf("lane %d: discarded %v, want %v\n%s", l, got, w, bin.Listing())
			}
			if want.Discarded[l] {
				continue
			}
		}
		for w, written := range want.Written {
			if !written {
				continue
			}
			var got uint32
			if f.Stage == ir.Fragment {
				got = math.Float32bits(b.Color[w][l])
			} else {
				got = math.Float32bits(b.VPMOut[w*16+l])
			}
			if !sameBits(got, want.Outputs[l][w]) {
				t.Fatalf("lane %d word %d: got %v (%#x), want %v (%#x)\n%s", l, w,
					math.Float32frombits(got), got, math.Float32frombits(want.Outputs[l][w]), want.Outputs[l][w], bin.Listing())
			}
		}
	}
	return bin
}

func fbits(x float32) uint32 { return math.Float32bits(x) }

// laneEnv gives every lane distinct varyings, frag coords and facing.
func laneEnv(nvary int, storage ...uint32) *ir.Env {
	env := &ir.Env{Lanes: 16, Storage: storage}
	rng := rand.New(rand.NewSource(1))
	for l := 0; l < 16; l++ {
		v := make([]float32, nvary)
		for i := range v {
			v[i] = float32(rng.Intn(2000)-1000) / 100
		}
		env.Varyings = append(env.Varyings, v)
		env.FragCoord = append(env.FragCoord, [4]float32{float32(l&3) + 0.5, float32(l>>2) + 0.5, 0.25, 1})
		env.FrontFacing = append(env.FrontFacing, l%3 != 0)
		env.PointCoord = append(env.PointCoord, [2]float32{float32(l) / 16, 1 - float32(l)/32})
	}
	return env
}

func TestE2EFragmentInputs(t *testing.T) {
	x := newFB(ir.Fragment)
	ps := x.b.EmitIndex(ir.OpPointCoord, ir.Float, 0)
	pt := x.b.EmitIndex(ir.OpPointCoord, ir.Float, 1)
	fz := x.b.EmitIndex(ir.OpFragCoord, ir.Float, 2)
	fw := x.b.EmitIndex(ir.OpFragCoord, ir.Float, 3)
	fy := x.b.EmitIndex(ir.OpFragCoord, ir.Float, 1)
	x.out(0, x.op(ir.OpFAdd, ir.Float, ps, fz))
	x.out(1, x.op(ir.OpFMul, ir.Float, pt, fw))
	x.out(2, x.op(ir.OpFDdx, ir.Float, x.op(ir.OpFMul, ir.Float, fy, ps)))
	x.out(3, x.op(ir.OpFDdy, ir.Float, x.op(ir.OpFMul, ir.Float, fy, fy)))
	check(t, x.f, Options{Stage: ir.Fragment}, laneEnv(0))
}

func TestE2EStraightLine(t *testing.T) {
	x := newFB(ir.Fragment)
	u := x.uniform(0, ir.Float)
	v0, v1 := x.varying(0), x.varying(1)
	a := x.op(ir.OpFMul, ir.Float, v0, u)
	b := x.op(ir.OpFAdd, ir.Float, a, v1)
	r := x.op(ir.OpRcp, ir.Float, b)
	s := x.op(ir.OpRsq, ir.Float, x.op(ir.OpFAbs, ir.Float, a))
	i := x.op(ir.OpFToI, ir.Int, b)
	im := x.op(ir.OpIMul, ir.Int, i, x.b.ConstI(-70001))
	c := x.op(ir.OpILt, ir.Bool, im, x.b.ConstI(3))
	sel := x.op(ir.OpSelect, ir.Float, c, r, s)
	x.out(0, sel)
	x.out(1, x.op(ir.OpIToF, ir.Float, im))
	x.out(2, x.op(ir.OpFFract, ir.Float, x.op(ir.OpLog2, ir.Float, x.op(ir.OpFAbs, ir.Float, v1))))
	fc := x.b.EmitIndex(ir.OpFragCoord, ir.Float, 0)
	ff := x.b.Emit(ir.OpFrontFacing, ir.Bool)
	x.out(3, x.op(ir.OpSelect, ir.Float, ff, fc, x.op(ir.OpExp2, ir.Float, v0)))
	bin := check(t, x.f, Options{Stage: ir.Fragment}, laneEnv(2, fbits(1.5)))
	t.Logf("stats %+v", bin.Stats)
}

func TestE2EComparisons(t *testing.T) {
	ops := []ir.Op{ir.OpFLt, ir.OpFGe, ir.OpFEq, ir.OpFNe, ir.OpILt, ir.OpIGe, ir.OpIEq, ir.OpINe}
	for _, op := range ops {
		t.Run(op.String(), func(t *testing.T) {
			x := newFB(ir.Fragment)
			a, b := x.varying(0), x.varying(1)
			if op >= ir.OpILt {
				a = x.op(ir.OpFToI, ir.Int, a)
				b = x.op(ir.OpFToI, ir.Int, b)
			}
			c := x.op(op, ir.Bool, a, b)
			d := x.op(op, ir.Bool, b, a)
			e := x.op(op, ir.Bool, a, a)
			x.out(0, x.op(ir.OpSelect, ir.Float, c, x.b.ConstF(1), x.b.ConstF(0)))
			x.out(1, x.op(ir.OpSelect, ir.Float, d, x.b.ConstF(1), x.b.ConstF(0)))
			x.out(2, x.op(ir.OpSelect, ir.Float, e, x.b.ConstF(1), x.b.ConstF(0)))
			x.out(3, x.op(ir.OpSelect, ir.Float, x.op(ir.OpBXor, ir.Bool, c, d), x.b.ConstF(1), x.b.ConstF(0)))
			env := laneEnv(2)
			for l := 0; l < 16; l += 3 {
				env.Varyings[l][1] = env.Varyings[l][0] // equal operands in some lanes
			}
			check(t, x.f, Options{Stage: ir.Fragment}, env)
		})
	}
}

func TestE2EIfElse(t *testing.T) {
	x := newFB(ir.Fragment)
	v0, v1 := x.varying(0), x.varying(1)
	c := x.op(ir.OpFLt, ir.Bool, v0, v1)
	ph := x.ifElse(c, func() *ir.Instr {
		// nested if inside then
		c2 := x.op(ir.OpFLt, ir.Bool, v0, x.b.ConstF(0))
		return x.ifElse(c2, func() *ir.Instr {
			return x.op(ir.OpFMul, ir.Float, v0, v1)
		}, func() *ir.Instr {
			return x.op(ir.OpRcp, ir.Float, v0)
		})
	}, func() *ir.Instr {
		return x.op(ir.OpFSub, ir.Float, v1, v0)
	})
	x.out(0, ph)
	x.out(1, v0)
	check(t, x.f, Options{Stage: ir.Fragment}, laneEnv(2))
}

// loopSum builds: i = 0; acc = 0; do { acc += v·i; i++ } while (i < n(lane)).
func loopSum(x *fb, n, v *ir.Instr) *ir.Instr {
	zi, zf := x.b.ConstI(0), x.b.ConstF(0)
	l := x.b.Loop()
	pi := x.b.Phi(ir.Int, zi, nil)
	pa := x.b.Phi(ir.Float, zf, nil)
	l.Phis = []*ir.Instr{pi, pa}
	old := x.b.SetList(&l.Body)
	fi := x.op(ir.OpIToF, ir.Float, pi)
	na := x.op(ir.OpFAdd, ir.Float, pa, x.op(ir.OpFMul, ir.Float, v, fi))
	// an If inside the loop body: odd iterations add one more
	odd := x.op(ir.OpIEq, ir.Bool, x.op(ir.OpIAnd, ir.Int, pi, x.b.ConstI(1)), x.b.ConstI(1))
	na2 := x.ifElse(odd, func() *ir.Instr {
		return x.op(ir.OpFAdd, ir.Float, na, x.b.ConstF(1))
	}, func() *ir.Instr { return na })
	ni := x.op(ir.OpIAdd, ir.Int, pi, x.b.ConstI(1))
	l.Cond = x.op(ir.OpILt, ir.Bool, ni, n)
	pi.Args[1], pa.Args[1] = ni, na2
	x.b.SetList(old)
	return pa
}

func TestE2ELoopPerLaneTripCount(t *testing.T) {
	x := newFB(ir.Fragment)
	v0, v1 := x.varying(0), x.varying(1)
	n := x.op(ir.OpIAnd, ir.Int, x.op(ir.OpFToI, ir.Int, x.op(ir.OpFAbs, ir.Float, v1)), x.b.ConstI(7))
	sum := loopSum(x, n, v0)
	x.out(0, sum)
	// a loop nested in an If
	c := x.op(ir.OpFLt, ir.Bool, v0, x.b.ConstF(0))
	ph := x.ifElse(c, func() *ir.Instr { return loopSum(x, n, v1) }, func() *ir.Instr { return v1 })
	x.out(1, ph)
	check(t, x.f, Options{Stage: ir.Fragment}, laneEnv(2))
}

func TestE2EDiscard(t *testing.T) {
	x := newFB(ir.Fragment)
	v0 := x.varying(0)
	c := x.op(ir.OpFLt, ir.Bool, v0, x.b.ConstF(0))
	x.b.Emit(ir.OpDiscardIf, ir.Void, c)
	x.out(0, v0)
	check(t, x.f, Options{Stage: ir.Fragment}, laneEnv(1))
}

func TestE2EVertex(t *testing.T) {
	x := newFB(ir.Vertex)
	var attrs []*ir.Instr
	for k := 0; k < 2; k++ {
		for c := 0; c < 3; c++ {
			a := x.f.NewInstr(ir.OpLoadAttribute, ir.Float)
			a.Index, a.Comp = k, c
			attrs = append(attrs, x.b.Add(a))
		}
	}
	m := make([]*ir.Instr, 4)
	for i := range m {
		m[i] = x.uniform(i, ir.Float)
	}
	for w := 0; w < 4; w++ {
		x.out(w, x.op(ir.OpFAdd, ir.Float, x.op(ir.OpFMul, ir.Float, attrs[w%3], m[w]), attrs[3+w%3]))
	}
	x.out(4, attrs[5])
	x.out(6, attrs[0]) // skip word 5: a new write setup
	env := &ir.Env{Storage: []uint32{fbits(1), fbits(2), fbits(-1), fbits(0.5)}}
	for l := 0; l < 16; l++ {
		a := make([]float32, 8)
		for i := range a {
			a[i] = float32(l*10 + i)
		}
		env.Attributes = append(env.Attributes, a)
	}
	check(t, x.f, Options{Stage: ir.Vertex}, env)
}

func TestE2ELoadStorage(t *testing.T) {
	x := newFB(ir.Fragment)
	v := x.varying(0)
	base := x.f.NewInstr(ir.OpLoadUniform, ir.Int)
	base.Uniform = ir.UniformEntry{Kind: ir.UniformStorageAddress}
	x.b.Add(base)
	idx := x.op(ir.OpIAnd, ir.Int, x.op(ir.OpFToI, ir.Int, x.op(ir.OpFAbs, ir.Float, v)), x.b.ConstI(3))
	addr := x.op(ir.OpIAdd, ir.Int, base, x.op(ir.OpIShl, ir.Int, idx, x.b.ConstI(2)))
	c := x.op(ir.OpFLt, ir.Bool, v, x.b.ConstF(0))
	ph := x.ifElse(c, func() *ir.Instr {
		return x.op(ir.OpLoadStorage, ir.Float, addr)
	}, func() *ir.Instr { return v })
	x.out(0, ph)
	env := laneEnv(1, fbits(10), fbits(20), fbits(30), fbits(40))
	env.StorageAddress = storageVA
	check(t, x.f, Options{Stage: ir.Fragment}, env)
}

func texEnv(env *ir.Env) *ir.Env {
	env.Texture = func(unit uint32, kind ir.TexKind, c [3]float32, mode ir.LodMode, lod float32) [4]float32 {
		return [4]float32{c[0] + float32(unit), c[1] * 2, c[2] + lod, float32(mode)}
	}
	return env
}

func TestE2ETexture(t *testing.T) {
	for _, inLoop := range []bool{false, true} {
		t.Run(fmt.Sprint("inLoop=", inLoop), func(t *testing.T) {
			x := newFB(ir.Fragment)
			s, tt := x.varying(0), x.varying(1)
			tex := func(unitSlot int, a, b *ir.Instr, lod ir.LodMode, extra *ir.Instr) *ir.Instr {
				args := []*ir.Instr{a, b}
				if extra != nil {
					args = append(args, extra)
				}
				in := x.f.NewInstr(ir.OpTexture, ir.Vec4, args...)
				in.Index, in.Lod = unitSlot, lod
				return x.b.Add(in)
			}
			t0 := tex(0, s, tt, ir.LodAuto, nil)
			r := x.b.EmitIndex(ir.OpExtract, ir.Float, 0, t0)
			if inLoop {
				zero := x.b.ConstI(0)
				l := x.b.Loop()
				ph := x.b.Phi(ir.Float, r, nil)
				cnt := x.b.Phi(ir.Int, zero, nil)
				l.Phis = []*ir.Instr{ph, cnt}
				old := x.b.SetList(&l.Body)
				t1 := tex(1, ph, tt, ir.LodBias, x.b.ConstF(0.5))
				nx := x.b.EmitIndex(ir.OpExtract, ir.Float, 0, t1)
				nc := x.op(ir.OpIAdd, ir.Int, cnt, x.b.ConstI(1))
				l.Cond = x.op(ir.OpILt, ir.Bool, nc, x.op(ir.OpIAnd, ir.Int, x.op(ir.OpFToI, ir.Int, x.op(ir.OpFAbs, ir.Float, tt)), x.b.ConstI(3)))
				ph.Args[1], cnt.Args[1] = nx, nc
				x.b.SetList(old)
				r = ph
			}
			t2 := tex(2, r, s, ir.LodExplicit, x.b.ConstF(2))
			x.out(0, r)
			for k := 1; k < 4; k++ {
				x.out(k, x.b.EmitIndex(ir.OpExtract, ir.Float, k, t2))
			}
			for _, threaded := range []bool{false, true} {
				bin := check(t, x.f, Options{Stage: ir.Fragment, Threaded: threaded}, texEnv(laneEnv(2, 5, 7, 9)))
				if threaded && countLines(bin.Listing(), "thrsw") == 0 {
					t.Fatal("threaded texture fetch without THRSW")
				}
			}
		})
	}
}
