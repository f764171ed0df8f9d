package glsl

import (
	"slices"
	"testing"
)

// TestErrorRecoveryReportsEachMistakeOnce checks how the front end goes on
// after an error so that one mistake gives one error (issue 10: the error
// lines of a file match glslangValidator's; each case failed before the
// change that fixed it).
func TestErrorRecoveryReportsEachMistakeOnce(t *testing.T) {
	tests := []struct {
		name  string
		stage Stage
		src   string
		lines []int // the lines with errors
	}{
		{"#undef with extra tokens still undefines", Vertex, `#define V 2.0
#undef V junk
#define V 1.0
void main() { gl_Position = vec4(V); }
`, []int{2}},
		{"a reserved GL_ macro is defined after the error", Vertex, `#define GL_VALUE 1.0
void main() { gl_Position = vec4(GL_VALUE); }
`, []int{1}},
		{"a predefined macro keeps its meaning", Vertex, `#define GL_ES 2
#if GL_ES == 1
void main() { gl_Position = vec4(1.0); }
#endif
`, []int{1}},
		{"a macro redefined differently takes the new definition", Vertex, `#define F(a, b) a + b
#define F(a, b, c) a + b + c
void main() { gl_Position = vec4(F(1.0, 2.0, 3.0)); }
`, []int{2}},
		{"an erroneous #if is taken, so its #elif is not evaluated", Vertex, `#if 1.5
void main() { gl_Position = vec4(1.0); }
#elif
#endif
#endif
`, []int{1, 5}},
		{"an erroneous #if's group is still checked", Vertex, `#if defined((X))
void main() { gl_Position = vec4(undeclared); }
#endif
`, []int{1, 2}},
		{"a stray #else skips to its #endif, which is no second error", Vertex, `#else
float skipped = undeclared1;
#endif
float seen = undeclared2;
void main() { gl_Position = vec4(seen); }
`, []int{1, 4}},
		{"a stray #elif too", Vertex, `#elif 1
#endif
void main() { gl_Position = vec4(1.0); }
`, []int{1}},
		{"an unterminated #if is reported where the input ends", Vertex, `void main() {
#if 0
  gl_Position = vec4(1.0);
}
`, []int{5}},
		{"an undeclared name is reported once per scope", Fragment, `precision mediump float;
void f() { float a = u; float b = u;
  float c = u; }
void main() { float d = u; gl_FragColor = vec4(d); }
`, []int{2, 4}},
		{"a name that is no variable is reported once", Fragment, `precision mediump float;
void f(int x);
void main() {
  float y = f;
  gl_FragColor = vec4(f);
}
`, []int{4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := Parse(tc.stage, tc.src)
			var got []int
			for _, e := range errs {
				if !slices.Contains(got, e.Line) {
					got = append(got, e.Line)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.lines) {
				t.Errorf("error lines %v, want %v\n%s", got, tc.lines, errs.InfoLog())
			}
		})
	}
}
