package glsl

import (
	"strings"
	"testing"
)

// TestSamplerIndexing checks Appendix A §5: sampler arrays may be indexed
// by constant-index expressions, which are constant expressions, indices of
// for loops of the form of Appendix A §4, and expressions built from both;
// any other index is a compile error.
func TestSamplerIndexing(t *testing.T) {
	const globals = "precision mediump float;\nuniform sampler2D s[4];\nuniform samplerCube c[2];\nuniform int u;\n" +
		"void g(inout int x) { x++; }\nint id(int x) { return x; }\n"
	tests := []struct {
		name, body string
		err        string // substring of the error, "" for success
	}{
		{"constant", "gl_FragColor = texture2D(s[1], vec2(0.0));", ""},
		{"constant expression", "const int k = 2; gl_FragColor = texture2D(s[k + 1], vec2(0.0));", ""},
		{"loop index", "for (int i = 0; i < 4; i++) gl_FragColor += texture2D(s[i], vec2(0.0));", ""},
		{"loop index in a block", "for (int i = 0; i < 4; i++) { vec4 x = texture2D(s[i], vec2(0.0)); gl_FragColor += x; }", ""},
		{"decrementing loop", "for (int i = 3; i >= 0; i--) gl_FragColor += texture2D(s[i], vec2(0.0));", ""},
		{"pre-increment", "for (int i = 0; i != 4; ++i) gl_FragColor += texture2D(s[i], vec2(0.0));", ""},
		{"step by constant", "for (int i = 0; i < 4; i += 2) gl_FragColor += texture2D(s[i + 1], vec2(0.0));", ""},
		{"subtract constant", "for (int i = 3; i > 0; i -= 1) gl_FragColor += texture2D(s[3 - i], vec2(0.0));", ""},
		{"float loop index", "for (float f = 0.0; f < 2.0; f += 1.0) gl_FragColor += textureCube(c[int(f)], vec3(1.0));", ""},
		{"expression of loop indices", "for (int i = 0; i < 2; i++) for (int j = 0; j < 2; j++) gl_FragColor += texture2D(s[i * 2 + j], vec2(0.0));", ""},
		{"outer loop index in inner loop", "for (int i = 0; i < 4; i++) for (int j = 0; j < 2; j++) gl_FragColor += texture2D(s[i], vec2(float(j)));", ""},
		{"built-in function of a loop index", "for (int i = 0; i < 8; i++) gl_FragColor += texture2D(s[int(mod(float(i), 4.0))], vec2(0.0));", ""},
		{"selection", "for (int i = 0; i < 4; i++) gl_FragColor += texture2D(s[i > 1 ? 3 - i : i], vec2(0.0));", ""},
		{"swizzle of a constructor", "for (int i = 0; i < 4; i++) gl_FragColor += texture2D(s[ivec2(i, 0).x], vec2(0.0));", ""},
		{"read in the body", "for (int i = 0; i < 4; i++) { int k = i; gl_FragColor += texture2D(s[i], vec2(float(k))); }", ""},
		{"index of a function argument", "for (int i = 0; i < 4; i++) gl_FragColor += texture2D(s[i], vec2(float(i)));", ""},

		{"local variable", "int i = 1; gl_FragColor = texture2D(s[i], vec2(0.0));", "constant-index expressions"},
		{"uniform", "gl_FragColor = texture2D(s[u], vec2(0.0));", "constant-index expressions"},
		{"loop bound not constant", "for (int i = 0; i < u; i++) gl_FragColor += texture2D(s[i], vec2(0.0));", "constant-index expressions"},
		{"loop start not constant", "for (int i = u; i < 4; i++) gl_FragColor += texture2D(s[i], vec2(0.0));", "constant-index expressions"},
		{"loop step not constant", "for (int i = 0; i < 4; i += u) gl_FragColor += texture2D(s[i], vec2(0.0));", "constant-index expressions"},
		{"loop condition reversed", "for (int i = 0; 4 > i; i++) gl_FragColor += texture2D(s[i], vec2(0.0));", "constant-index expressions"},
		{"loop step multiplies", "for (int i = 1; i < 4; i *= 2) gl_FragColor += texture2D(s[i], vec2(0.0));", "constant-index expressions"},
		{"index declared outside", "int i; for (i = 0; i < 4; i++) gl_FragColor += texture2D(s[i], vec2(0.0));", "constant-index expressions"},
		{"while loop", "int i = 0; while (i < 4) { gl_FragColor += texture2D(s[i], vec2(0.0)); i++; }", "constant-index expressions"},
		{"assigned after use", "for (int i = 0; i < 4; i++) { gl_FragColor += texture2D(s[i], vec2(0.0)); i = 3; }", "'i' is modified in the loop body"},
		{"incremented in body", "for (int i = 0; i < 4; i++) { i++; gl_FragColor += texture2D(s[i], vec2(0.0)); }", "'i' is modified in the loop body"},
		{"inout argument", "for (int i = 0; i < 4; i++) { gl_FragColor += texture2D(s[i], vec2(0.0)); g(i); }", "'i' is modified in the loop body"},
		{"assigned in inner loop", "for (int i = 0; i < 4; i++) for (int j = 0; j < 2; j++) { gl_FragColor += texture2D(s[i], vec2(0.0)); i += j; }", "'i' is modified in the loop body"},
		{"side effect in index", "for (int i = 0; i < 4; i++) { int k = 0; gl_FragColor += texture2D(s[i + k++], vec2(0.0)); }", "constant-index expressions"},
		{"loop index mixed with variable", "for (int i = 0; i < 4; i++) { int k = 0; gl_FragColor += texture2D(s[i + k], vec2(0.0)); }", "constant-index expressions"},
		{"user function of loop index", "for (int i = 0; i < 4; i++) gl_FragColor += texture2D(s[id(i)], vec2(0.0));", "constant-index expressions"},
		{"after the loop", "for (int i = 0; i < 4; i++) {} int i = 2; gl_FragColor = texture2D(s[i], vec2(0.0));", "constant-index expressions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := globals + "void main() {\ngl_FragColor = vec4(0.0);\n" + tc.body + "\n}\n"
			_, errs := Parse(Fragment, src)
			switch {
			case tc.err == "" && errs != nil:
				t.Errorf("unexpected error:\n%s", errs.InfoLog())
			case tc.err != "" && errs == nil:
				t.Errorf("compiled, want an error containing %q", tc.err)
			case tc.err != "" && !strings.Contains(errs.InfoLog(), tc.err):
				t.Errorf("error does not contain %q:\n%s", tc.err, errs.InfoLog())
			}
		})
	}
}
