package ir

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
)

// opsInLoops counts, per op name, the instructions of f that sit inside
// some loop; under the key "if:OP" it counts those of them that also sit
// under an If inside that loop (code the old LICM, which searched a loop's
// top level and its guard only, left alone).
func opsInLoops(f *Func) map[string]int {
	out := map[string]int{}
	var visit func(nodes []Node, inLoop, inIf bool)
	visit = func(nodes []Node, inLoop, inIf bool) {
		for _, n := range nodes {
			switch n := n.(type) {
			case *Block:
				if inLoop {
					for _, in := range n.Instrs {
						out[in.Op.String()]++
						if inIf {
							out["if:"+in.Op.String()]++
						}
					}
				}
			case *If:
				visit(n.Then, inLoop, inLoop)
				visit(n.Else, inLoop, inLoop)
			case *Loop:
				visit(n.Body, true, inIf)
			}
		}
	}
	visit(f.Body, false, false)
	return out
}

// lowerFragment runs the passes over a fragment shader up to stop ("" for
// all of them).
func lowerFragment(t *testing.T, src, stop string) (*Func, *IOLayout) {
	t.Helper()
	tu, errs := glsl.Parse(glsl.Fragment, src)
	if errs != nil {
		t.Fatalf("parse: %v\n%s", errs, src)
	}
	f, err := FromAST(tu)
	if err != nil {
		t.Fatal(err)
	}
	lay := SequentialLayout(f)
	if err := Run(f, Options{Layout: lay, Verify: true, Stop: stop}); err != nil {
		t.Fatalf("%v\n%s", err, Dump(f))
	}
	return f, lay
}

// licmEnv gives 16 lanes random varyings in [-2, 2], small uniforms and
// a texture that returns a function of its coordinates.
func licmEnv(seed int64) *Env {
	rng := rand.New(rand.NewSource(seed))
	env := &Env{Lanes: 16, Storage: make([]uint32, 64), StorageAddress: 0x1000, MaxIterations: 1 << 10}
	for i := range env.Storage {
		env.Storage[i] = FloatBits(float32(rng.Intn(9)) / 2)
	}
	for l := 0; l < 16; l++ {
		v := make([]float32, 16)
		for i := range v {
			v[i] = float32(rng.Intn(17)-8) / 4
		}
		env.Varyings = append(env.Varyings, v)
		env.FragCoord = append(env.FragCoord, [4]float32{float32(l), 0.5, 0.5, 1})
		env.FrontFacing = append(env.FrontFacing, true)
		env.PointCoord = append(env.PointCoord, [2]float32{})
	}
	env.Texture = func(unit uint32, _ TexKind, c [3]float32, _ LodMode, _ float32) [4]float32 {
		return [4]float32{c[0] + float32(unit), c[1], c[0] * c[1], 1}
	}
	return env
}

// TestLICMBeyondLoopTop: invariant work anywhere in a loop body — under
// Ifs, in nested loops — leaves the loop; texture fetches, discards and
// loop-variant work stay. Each case gives the count of some ops inside
// loops before LICM (the IR after dce3) and after it, and the program's
// results must be bit-identical before and after on random inputs.
func TestLICMBeyondLoopTop(t *testing.T) {
	const head = `precision highp float;
uniform vec4 u;
uniform float n;
uniform sampler2D s;
varying vec4 v;
`
	tests := []struct {
		name          string
		body          string
		before, after map[string]int
	}{
		{"invariant under an If", `void main() {
	vec4 acc = vec4(0.0);
	float i = 0.0;
	while (i < n) {
		if (v.x > i) { acc += normalize(u) + normalize(v * i + u.wzyx); }
		i += 1.0;
	}
	gl_FragColor = acc;
}`, map[string]int{"if:rsq": 2}, map[string]int{"if:rsq": 1, "rsq": 1}},
		{"chain under nested Ifs", `void main() {
	vec4 acc = vec4(0.0);
	float i = 0.0;
	while (i < n) {
		if (v.x > i) {
			float a = exp2(u.x);
			if (v.y > i) { acc.x += log2(a + u.y); acc += normalize(v * i + u.wzyx); }
			acc += normalize(v.wzyx * i + u) * a;
		}
		i += 1.0;
	}
	gl_FragColor = acc;
}`, map[string]int{"if:exp2": 1, "if:log2": 1}, map[string]int{"exp2": 0, "log2": 0}},
		{"nested loop inside an If", `void main() {
	vec4 acc = vec4(0.0);
	float i = 0.0;
	while (i < n) {
		if (v.x > i) {
			float j = 0.0;
			while (j < n) { acc.x += exp2(u.y) * j; j += 1.0; }
			acc += normalize(v * i + u.wzyx);
		}
		i += 1.0;
	}
	gl_FragColor = acc;
}`, map[string]int{"exp2": 1}, map[string]int{"exp2": 0}},
		{"texture fetch under an If stays", `void main() {
	vec4 acc = vec4(0.0);
	float i = 0.0;
	while (i < n) {
		if (v.x > i) { acc += texture2D(s, u.xy * 0.5); }
		i += 1.0;
	}
	gl_FragColor = acc;
}`, map[string]int{"if:texture": 1, "if:fmul": 2}, map[string]int{"if:texture": 1, "fmul": 0}},
		{"guarded memory read stays, its address computation leaves", `uniform vec4 arr[4];
void main() {
	vec4 acc = vec4(0.0);
	float i = 0.0;
	while (i < n) {
		if (v.x > i) { acc += normalize(arr[int(u.x)] + v) * exp2(v.y); }
		i += 1.0;
	}
	gl_FragColor = acc;
}`, map[string]int{"if:load_storage": 4, "if:ftoi": 1}, map[string]int{"if:load_storage": 4, "ftoi": 0}},
		{"loop-variant work stays", `void main() {
	vec4 acc = vec4(0.0);
	float i = 0.0;
	while (i < n) {
		if (v.x > i) { acc += normalize(u + i) + normalize(v * i + u.wzyx); }
		i += 1.0;
	}
	gl_FragColor = acc;
}`, map[string]int{"if:rsq": 2}, map[string]int{"if:rsq": 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := head + tc.body
			pre, _ := lowerFragment(t, src, "dce3")
			post, _ := lowerFragment(t, src, "")
			for _, c := range []struct {
				f    *Func
				want map[string]int
				when string
			}{{pre, tc.before, "before"}, {post, tc.after, "after"}} {
				got := opsInLoops(c.f)
				for op, n := range c.want {
					if got[op] != n {
						t.Errorf("%s LICM: %d %s in loops, want %d\n%s", c.when, got[op], op, n, Dump(c.f))
					}
				}
			}
			for seed := int64(0); seed < 8; seed++ {
				a, err := Interpret(pre, licmEnv(seed))
				if err != nil {
					t.Fatal(err)
				}
				b, err := Interpret(post, licmEnv(seed))
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(a.Outputs, a.Discarded) != fmt.Sprint(b.Outputs, b.Discarded) {
					t.Fatalf("seed %d: results differ before and after LICM:\n%v %v\n%v %v", seed, a.Outputs, a.Discarded, b.Outputs, b.Discarded)
				}
			}
		})
	}
}

// TestLICMIRBeforeAfter shows the pass on hand-built IR: an invariant
// product under an If in a loop moves before the loop, the If keeps its
// phi, and a texture fetch beside it stays.
func TestLICMIRBeforeAfter(t *testing.T) {
	f := NewFunc("main", Fragment)
	b := NewBuilder(f)
	u := b.Emit(OpLoadUniform, Float)
	u.Uniform = UniformEntry{Kind: UniformStorage}
	x := b.EmitIndex(OpLoadVarying, Float, 0)
	zero, one, four := b.ConstF(0), b.ConstF(1), b.ConstF(4)
	l := b.Loop()
	ph := b.Phi(Float, zero, nil)
	l.Phis = []*Instr{ph}
	b.SetList(&l.Body)
	c := b.Emit(OpFLt, Bool, ph, x)
	n := b.If(c)
	b.SetList(&n.Then)
	sq := b.Emit(OpFMul, Float, u, u)
	tex := b.EmitIndex(OpTexture, Vec(BaseFloat, 4), 0, u, sq)
	r := b.EmitIndex(OpExtract, Float, 0, tex)
	sum := b.Emit(OpFAdd, Float, r, sq)
	b.SetList(&l.Body)
	p := b.Phi(Float, sum, ph)
	n.Phis = []*Instr{p}
	next := b.Emit(OpFAdd, Float, p, one)
	ph.Args[1] = next
	l.Cond = b.Emit(OpFLt, Bool, next, four)
	b.SetList(&f.Body)
	b.EmitIndex(OpStoreOutput, Void, 0, ph)
	if err := Verify(f, FormScalar); err != nil {
		t.Fatalf("%v\n%s", err, Dump(f))
	}
	before := Dump(f)
	LICM(f)
	after := Dump(f)
	if err := Verify(f, FormScalar); err != nil {
		t.Fatalf("after LICM: %v\n%s", err, after)
	}
	// The product is now before "loop {", the texture still inside.
	loopAt := strings.Index(after, "loop {")
	mulAt := strings.Index(after, "fmul")
	texAt := strings.Index(after, "texture")
	if mulAt < 0 || loopAt < 0 || mulAt > loopAt || texAt < loopAt {
		t.Errorf("want fmul before the loop and texture inside it\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if strings.Index(before, "fmul") < strings.Index(before, "loop {") {
		t.Errorf("test setup: fmul already outside the loop:\n%s", before)
	}
}
