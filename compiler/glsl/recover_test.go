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

// TestSyntaxErrorLimit checks that a stream of errors stops at
// maxSyntaxErrors.
func TestSyntaxErrorLimit(t *testing.T) {
	src := "void main() {\n" + strings.Repeat("float a = *;\n", 100) + "}\n"
	_, errs := Parse(Vertex, src)
	if len(errs) != maxSyntaxErrors {
		t.Errorf("%d errors, want %d", len(errs), maxSyntaxErrors)
	}
}
