package ir

import (
	"fmt"
	"math"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
)

// TestFoldedQuotientsMatchRunTime: a constant expression x / y folded by
// the front end must equal the quotient the shader computes at run time
// (x·(1/y) with the hardware's correctly rounded reciprocal), and IEEE
// comparisons of folded infinities must match run-time ones (issue 10:
// the constant folder, the IR interpreter and the hardware agree).
func TestFoldedQuotientsMatchRunTime(t *testing.T) {
	pairs := [][2]float32{{1, 3}, {6, 3}, {10, 7}, {0.7, 0.1}, {1e30, 3e-9}, {5, 0}, {-5, 0}, {0, 0}, {1, 1e-40},
		{3, 49}, {0.1, 0.3}, {123456.789, 0.001}, {1e38, 1e-38}}
	for _, p := range pairs {
		src := fmt.Sprintf(`precision highp float;
uniform float x, y;
void main() {
  const float q = %s / %s;
  gl_FragColor = vec4(q, x / y, q == x / y ? 1.0 : 0.0, q >= x / y ? 1.0 : 0.0);
}`, glslFloat(p[0]), glslFloat(p[1]))
		tu, errs := glsl.Parse(glsl.Fragment, src)
		if errs != nil {
			t.Fatalf("%v\n%s", errs, src)
		}
		f, err := FromAST(tu)
		if err != nil {
			t.Fatal(err)
		}
		env := &Env{Lanes: 1, Vars: map[string][][]uint32{"x": {{FloatBits(p[0])}}, "y": {{FloatBits(p[1])}}}}
		r, err := Interpret(f, env)
		if err != nil {
			t.Fatal(err)
		}
		folded, run := r.VarF("gl_FragColor", 0, 0), r.VarF("gl_FragColor", 0, 1)
		if math.Float32bits(folded) != math.Float32bits(run) && !(folded != folded && run != run) {
			t.Errorf("%v / %v: folded %v (%#x), at run time %v (%#x)", p[0], p[1], folded, math.Float32bits(folded), run, math.Float32bits(run))
		}
		wantEq := float32(0)
		if folded == run {
			wantEq = 1
		}
		if eq := r.VarF("gl_FragColor", 0, 2); eq != wantEq {
			t.Errorf("%v / %v: q == x / y gave %v, want %v", p[0], p[1], eq, wantEq)
		}
	}
}

// glslFloat writes v as a GLSL float literal (which has no exponent-only
// or special forms for 1e-40: the division makes those).
func glslFloat(v float32) string {
	s := fmt.Sprintf("%g", v)
	if math.Trunc(float64(v)) == float64(v) && math.Abs(float64(v)) < 1e15 {
		s = fmt.Sprintf("%.1f", v)
	}
	return s
}
