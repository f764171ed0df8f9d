package glsl

import (
	"strconv"
	"strings"
	"testing"
)

// TestSyntaxErrorRecovery checks that the parser reports the syntax errors
// of several statements and declarations, resuming at their boundaries,
// without inventing errors for the correct code between them.
func TestSyntaxErrorRecovery(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // "line: token", one per reported error, in order
	}{
		{"two statements", `void main() {
  float a = ;
  float b = 1.0;
  b = b * ;
  gl_Position = vec4(b);
}`, []string{"2: ;", "4: ;"}},
		{"missing semicolon", `void main() {
  float a = 1.0
  float b = 2.0;
  gl_Position = vec4(b) +;
}`, []string{"3: float", "4: ;"}},
		{"broken for header", `void main() {
  for (int i = 0; i < 3 i++) { gl_Position = vec4(1.0); }
  gl_Position = vec4(2.0) ;;
  float c = );
}`, []string{"2: i", "4: )"}},
		{"broken if condition", `void main() {
  if (true { gl_Position = vec4(1.0); }
  float d = 1.0 1.0;
}`, []string{"2: {", "3: 1.0"}},
		{"nested blocks", `void main() {
  if (true) {
    float a = *;
    { float b = 2.0 +; }
  }
  float c = 3.0;
  c = c +;
}`, []string{"3: *", "4: ;", "7: ;"}},
		{"global declarations", `float a = ;
uniform vec4 u;
vec4 f(vec4 x) { return x * ; }
struct S { float a } s;
void main() { gl_Position = u; float e = a +; }`, []string{"1: ;", "3: ;", "4: }", "5: ;"}},
		{"broken function header", `vec4 g(vec4 x, ) { return x; }
void main() { gl_Position = vec4(1.0) +; }`, []string{"1: )", "2: ;"}},
		{"structure body", `struct S { float a; vec2 } ;
struct T { float b; } t;
void main() { t.b = 1.0; gl_Position = vec4(t.b) ^^ ; }`, []string{"1: }", "3: ;"}},
		{"end of file", `void main() {
  float a = *;
  float b = 1.0;`, []string{"2: *", "3: end of file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := Parse(Vertex, tc.src)
			var got []string
			for _, e := range errs {
				got = append(got, strconv.Itoa(e.Line)+": "+e.Token)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("errors %q, want %q\n%s", got, tc.want, errs.InfoLog())
			}
		})
	}
}

// TestSyntaxErrorLimit checks that a file's syntax errors are all reported
// (issue 10: every error, not the first few) up to maxSyntaxErrors, where
// a stream of garbage stops.
func TestSyntaxErrorLimit(t *testing.T) {
	for _, n := range []int{100, maxSyntaxErrors + 50} {
		src := "void main() {\n" + strings.Repeat("float a = *;\n", n) + "}\n"
		_, errs := Parse(Vertex, src)
		if want := min(n, maxSyntaxErrors); len(errs) != want {
			t.Errorf("%d broken statements: %d errors, want %d", n, len(errs), want)
		}
	}
}

// TestEveryErrorReported: lexical errors (GLSL ES 1.00 sections 3.1, 3.4,
// 3.6, 3.7, 5.1: invalid characters, line continuation, bad numbers,
// reserved keywords and operators, identifiers with "__"), preprocessor
// errors (section 3.4: macro redefinition, bad #if, #error) and semantic
// errors in one file are each reported at their own line, and none stops
// the others (issue 10).
func TestEveryErrorReported(t *testing.T) {
	src := `precision mediump float;
int a__b;
float c = 1.0 % 2.0;
int x = 0x;
float y = 1.0e;
int z = 099;
float @ w;
#define M 1
#define M 2
#if 1 +
#endif
#error custom message
float u = 1.0 << 2;
int goto;
int sizeof = 1;
float v = 1.0 \
 + 2.0;
float s = ~1.0;
#line 100
void main() { gl_FragColor = vec4(1.0); undeclared = 2; }
`
	want := map[int]string{2: "__", 3: "%", 4: "0x", 5: "1.0e", 6: "099", 7: "@", 9: "M", 10: "#if", 12: "#error",
		13: "<<", 14: "goto", 15: "sizeof", 16: "\\", 100: "undeclared"}
	_, errs := Parse(Fragment, src)
	got := map[int]bool{}
	for _, e := range errs {
		got[e.Line] = true
		if !strings.HasPrefix(e.Error(), "ERROR: 0:"+strconv.Itoa(e.Line)+": '") {
			t.Errorf("bad format %q", e.Error())
		}
	}
	for line, tok := range want {
		found := false
		for _, e := range errs {
			found = found || e.Line == line && strings.Contains(e.Token, tok)
		}
		if !found {
			t.Errorf("no error at line %d naming %q", line, tok)
		}
	}
	for line := range got {
		if _, ok := want[line]; !ok && line != 18 {
			t.Errorf("unexpected error at line %d", line)
		}
	}
	for i := 1; i < len(errs); i++ {
		if errs[i].Line < errs[i-1].Line {
			t.Errorf("errors not in line order: %d after %d", errs[i].Line, errs[i-1].Line)
		}
	}
	// One error per line here: a repaired reserved operator adds no
	// operand type error of its stand-in (1.0 << 2 is not "float * int").
	if len(errs) != len(want)+1 {
		t.Errorf("%d errors, want %d (one per line)", len(errs), len(want)+1)
	}
	if !got[18] {
		t.Errorf("no error at line 18 (reserved operator ~)")
	}
	if t.Failed() {
		t.Log(errs.InfoLog())
	}
}
