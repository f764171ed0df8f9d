package glsl

import (
	"math"
	"testing"
)

// dEQP-GLES2.functional.shaders.constant_expressions.builtin_functions.geometric.*:
// faceforward, reflect and refract are constant expressions when their
// arguments are.
func TestFoldGeometricBuiltins(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []float32
	}{
		{"faceforward(vec2(1.0, 2.0), vec2(1.0, 0.0), vec2(-1.0, 0.0))", []float32{1, 2}}, // dot(Nref, I) < 0: N
		{"faceforward(1.0, 1.0, 1.0)", []float32{-1}},                                     // dot ≥ 0: -N
		{"reflect(vec2(1.0, -1.0), vec2(0.0, 1.0))", []float32{1, 1}},
		{"refract(vec2(1.0, -1.0) * 0.70710678, vec2(0.0, 1.0), 1.0)", []float32{0.70710678, -0.70710678}},
		{"refract(vec2(0.8, -0.6), vec2(0.0, 1.0), 2.0)", []float32{0, 0}}, // total internal reflection
	} {
		n := len(tc.want)
		ty := map[int]string{1: "float", 2: "vec2"}[n]
		use := map[int]string{1: "vec4(c)", 2: "vec4(c, c)"}[n]
		src := "const " + ty + " c = " + tc.expr + ";\nvoid main() { gl_Position = " + use + "; }\n"
		unit, errs := Parse(Vertex, src)
		if errs != nil {
			t.Errorf("%s: %s", tc.expr, errs.InfoLog())
			continue
		}
		for _, g := range unit.Globals {
			if g.Name != "c" {
				continue
			}
			for i, w := range tc.want {
				if i >= len(g.Value) || math.Abs(float64(g.Value[i].F-w)) > 1e-5 {
					t.Errorf("%s = %v, want %v", tc.expr, g.Value, tc.want)
					break
				}
			}
		}
	}
}
