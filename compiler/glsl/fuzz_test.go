package glsl

import (
	"strings"
	"testing"
	"time"
)

// FuzzParse checks that no input makes the front end panic or hang.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"void main() { gl_FragColor = vec4(1.0); }",
		"precision mediump float; uniform sampler2D s; varying vec2 v; void main() { gl_FragColor = texture2D(s, v); }",
		"#define F(a,b) a+b\n#if defined(F) && F(1,2) == 3\nvoid main(){}\n#endif\n",
		"struct S { float a[2]; } s; float f(inout S x); void main() { for (int i = 0; i < 2; i++) s.a[i] = 1.0; }",
		"#define A A B\n#define B A\nA",
		"void main() { const mat2 m = mat2(1.0) * mat2(2.0); float x = m[1][1]; x += (x > 0.0 ? 1.0 : 2.0); }",
		"/* unterminated",
		"#if 1\n#else\n#elif\n",
		"((((((((((",
		"void main() { float a = ; { float b = 1.0 +; } for (int i = 0; i < 3 i++) {} } struct S { float a } s; float c = ;",
		"uniform sampler2D s[4]; void main() { for (int i = 0; i < 4; i++) { gl_Position += texture2DLod(s[i], vec2(0.0), 0.0); i = 1; } }",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, src string, frag bool) {
		stage := Vertex
		if frag {
			stage = Fragment
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			unit, errs := Parse(stage, src)
			if errs == nil && unit == nil {
				t.Errorf("nil unit without errors")
			}
			for _, e := range errs {
				if !strings.HasPrefix(e.Error(), "ERROR: 0:") {
					t.Errorf("bad error format %q", e.Error())
				}
			}
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("Parse hangs on %q", src)
		}
	})
}
