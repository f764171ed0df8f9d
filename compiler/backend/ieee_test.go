package backend

import (
	"math"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
)

// ieeeValues are the operands that tell IEEE 754 comparisons from
// comparisons of a − b: equal infinities (whose difference is NaN), NaN,
// signed zeros, denormals (whose differences are denormal) and the
// largest finite values (whose differences overflow).
var ieeeValues = []float32{
	float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 0, float32(math.Copysign(0, -1)),
	1, -1, math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
	2 * math.SmallestNonzeroFloat32,
}

// TestIEEEComparisons runs <, >=, == and != on the shader core for every
// pair of ieeeValues, with the comparison materialised as a bool, fused
// into a select and as an If condition, and checks each lane against Go's
// IEEE comparison (GLSL ES 1.00 section 5.9 relational and equality
// operators; issue 10: ±inf equal themselves, NaN is unordered) as well as
// against the interpreter.
func TestIEEEComparisons(t *testing.T) {
	type pair struct{ a, b float32 }
	var pairs []pair
	for _, a := range ieeeValues {
		for _, b := range ieeeValues {
			pairs = append(pairs, pair{a, b})
		}
	}
	ops := []struct {
		op   ir.Op
		want func(a, b float32) bool
	}{
		{ir.OpFLt, func(a, b float32) bool { return a < b }},
		{ir.OpFGe, func(a, b float32) bool { return a >= b }},
		{ir.OpFEq, func(a, b float32) bool { return a == b }},
		{ir.OpFNe, func(a, b float32) bool { return a != b }},
	}
	shapes := []struct {
		name  string
		build func(x *fb, c *ir.Instr)
	}{
		{"select", func(x *fb, c *ir.Instr) {
			x.out(0, x.op(ir.OpSelect, ir.Float, c, x.b.ConstF(1), x.b.ConstF(0)))
		}},
		{"bool", func(x *fb, c *ir.Instr) {
			x.out(0, x.op(ir.OpSelect, ir.Float, c, x.b.ConstF(1), x.b.ConstF(0)))
			x.out(1, x.op(ir.OpSelect, ir.Float, c, x.b.ConstF(2), x.b.ConstF(0)))
		}},
		{"if", func(x *fb, c *ir.Instr) {
			x.out(0, x.ifElse(c, func() *ir.Instr { return x.b.ConstF(1) }, func() *ir.Instr { return x.b.ConstF(0) }))
		}},
	}
	for _, o := range ops {
		for _, sh := range shapes {
			t.Run(o.op.String()+"/"+sh.name, func(t *testing.T) {
				x := newFB(ir.Fragment)
				sh.build(x, x.op(o.op, ir.Bool, x.varying(0), x.varying(1)))
				for start := 0; start < len(pairs); start += 16 {
					env := laneEnv(2)
					for l := 0; l < 16; l++ {
						p := pairs[(start+l)%len(pairs)]
						env.Varyings[l] = []float32{p.a, p.b}
					}
					check(t, x.f, Options{Stage: ir.Fragment}, env)
					b, _ := run(t, x.f, Options{Stage: ir.Fragment}, env)
					for l := 0; l < 16; l++ {
						p := pairs[(start+l)%len(pairs)]
						want := float32(0)
						if o.want(p.a, p.b) {
							want = 1
						}
						if got := b.Color[0][l]; got != want {
							t.Errorf("%v %v %v = %v, want %v", p.a, o.op, p.b, got, want)
						}
					}
				}
			})
		}
	}
}

// TestIEEEComparisonLoopConditions runs loops whose condition is ==, >=
// or != of lane values (the condition the selector fuses into the loop's
// exit test) with infinities and NaN among the operands, and checks the
// iteration counts against Go's IEEE comparison.
func TestIEEEComparisonLoopConditions(t *testing.T) {
	for _, c := range []struct {
		op   string
		want func(a, b float32) bool
	}{
		{"==", func(a, b float32) bool { return a == b }},
		{">=", func(a, b float32) bool { return a >= b }},
		{"!=", func(a, b float32) bool { return a != b }},
	} {
		t.Run(c.op, func(t *testing.T) {
			// The loop runs 3 times when the comparison holds, else not at
			// all: after 3 iterations a becomes NaN (v.z), for which ==
			// and >= fail, or b itself, for which != fails (b is never
			// NaN in the != case).
			src := `precision highp float;
varying vec4 v;
void main() {
  float a = v.x;
  float n = 0.0;
  while (a ` + c.op + ` v.y) {
    n += 1.0;
    if (n >= 3.0) a = ` + map[string]string{"==": "v.z", ">=": "v.z", "!=": "v.y"}[c.op] + `;
  }
  gl_FragColor = vec4(n);
}`
			f := lowerGLSL(t, glsl.Fragment, src)
			vals := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1, 0}
			env := laneEnv(4)
			for l := 0; l < 16; l++ {
				a, b := vals[l%len(vals)], vals[(l/len(vals)+l)%len(vals)]
				if c.op == "!=" && b != b {
					b = 2
				}
				env.Varyings[l] = []float32{a, b, float32(math.NaN()), 0}
			}
			check(t, f, Options{Stage: ir.Fragment}, env)
			res, _ := run(t, f, Options{Stage: ir.Fragment}, env)
			for l := 0; l < 16; l++ {
				a, b := env.Varyings[l][0], env.Varyings[l][1]
				want := float32(0)
				if c.want(a, b) {
					want = 3
				}
				if got := res.Color[0][l]; got != want {
					t.Errorf("lane %d: while (%v %s %v) ran %v times, want %v", l, a, c.op, b, got, want)
				}
			}
		})
	}
}
