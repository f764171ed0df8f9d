package glsl

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// measure runs Parse and returns its errors, the time it took and the
// bytes it allocated.
func measure(stage Stage, src string) (ErrorList, time.Duration, uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, errs := Parse(stage, src)
	d := time.Since(start)
	runtime.ReadMemStats(&after)
	return errs, d, after.TotalAlloc - before.TotalAlloc
}

// TestDeclarationSizeLimits checks that declarations beyond the
// implementation's limits fail at their line, quickly and without
// allocating anything of the declared size (issue 6 item 2: `uniform vec4
// u[2147483647]` with a dynamic index, a local `float a[100000000]` and
// `uniform vec4 u[100000000]` allocated gigabytes). Uniforms and varyings
// are measured as GLSL ES 1.00 Appendix A §7 packs them, against the
// stage's GL_MAX_*_VECTORS; private variables against
// MaxPrivateComponents and MaxPrivateComponentsTotal (Appendix A §2 leaves
// resource limits to the implementation).
func TestDeclarationSizeLimits(t *testing.T) {
	const fsPre = "precision mediump float;\n"
	tests := []struct {
		name  string
		stage Stage
		src   string
		line  int    // line of the expected error, 0 for success
		msg   string // substring of the error
	}{
		{"dynamically indexed uniform of 2^31-1 vectors", Vertex,
			"uniform vec4 u[2147483647];\nuniform int i;\nvoid main(){ gl_Position = u[i]; }", 1, "GL_MAX_VERTEX_UNIFORM_VECTORS = 256"},
		{"local of 10^8 floats", Vertex,
			"void main(){\n float a[100000000];\n a[5] = 1.0; gl_Position = vec4(a[5]); }", 2, "limit of 1024 for one variable"},
		{"uniform of 10^8 vectors", Vertex,
			"uniform vec4 u[100000000];\nvoid main(){ gl_Position = u[5]; }", 1, "at least 100000000 vectors"},
		{"fragment uniform of 257 vectors", Fragment,
			fsPre + "uniform vec4 u[257];\nvoid main(){ gl_FragColor = u[0]; }", 2, "GL_MAX_FRAGMENT_UNIFORM_VECTORS = 256"},
		{"uniform of 256 vectors", Fragment,
			fsPre + "uniform vec4 u[256];\nvoid main(){ gl_FragColor = u[0]; }", 0, ""},
		{"uniform mat4 array of 65 (260 rows)", Vertex,
			"uniform mat4 m[65];\nvoid main(){ gl_Position = m[0][0]; }", 1, "at least 260 vectors"},
		{"float uniforms pack four to a row", Vertex,
			"uniform float f[256];\nvoid main(){ gl_Position = vec4(f[0]); }", 0, ""},
		{"nested structure arrays saturate", Fragment,
			fsPre + "struct A { float x[2147483647]; };\nstruct B { A a[2147483647]; };\nstruct C { B b[2147483647]; };\nuniform C c;\nvoid main(){ gl_FragColor = vec4(c.b[0].a[0].x[0]); }",
			5, "GL_MAX_FRAGMENT_UNIFORM_VECTORS"},
		{"17 sampler elements", Fragment,
			fsPre + "uniform sampler2D s[17];\nvoid main(){ gl_FragColor = texture2D(s[0], vec2(0.0)); }", 2, "17 samplers, more than GL_MAX_TEXTURE_IMAGE_UNITS = 16"},
		{"varying of 17 vectors", Vertex,
			"varying vec4 v[17];\nvoid main(){ gl_Position = vec4(0.0); v[0] = vec4(1.0); }", 1, "GL_MAX_VARYING_VECTORS = 16"},
		{"varying of 10^9 vectors", Fragment,
			fsPre + "varying vec4 v[1000000000];\nvoid main(){ gl_FragColor = v[0]; }", 2, "at least 1000000000 vectors"},
		{"global of 1025 floats", Vertex,
			"float g[1025];\nvoid main(){ gl_Position = vec4(g[0]); }", 1, "1025 components"},
		{"local mat4 array of 64 (1024 components)", Vertex,
			"void main(){ mat4 m[64]; gl_Position = m[3][0]; }", 0, ""},
		{"structure local of 2^40 components", Vertex,
			"struct S { float x[1000000]; };\nstruct T { S s[1000000]; };\nvoid main(){\n T t; gl_Position = vec4(t.s[0].x[0]); }", 4, "variable too large"},
		{"parameter of 10^8 floats", Vertex,
			"void f(float p[100000000]) {}\nvoid main(){ gl_Position = vec4(0.0); }", 1, "parameter too large"},
		{"private variables together", Vertex,
			uniqueArrays(16) + "float last[1];\nvoid main(){ gl_Position = vec4(0.0); }", 17, "limit of 16384"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errs, d, alloc := measure(tc.stage, tc.src)
			if d > time.Second || alloc > 64<<20 {
				t.Errorf("Parse took %v and allocated %d bytes", d, alloc)
			}
			if tc.line == 0 {
				if errs != nil {
					t.Fatalf("unexpected errors:\n%s", errs.InfoLog())
				}
				return
			}
			if len(errs) != 1 || errs[0].Line != tc.line || !strings.Contains(errs[0].Msg, tc.msg) {
				t.Errorf("errors:\n%swant exactly one at line %d containing %q", errs.InfoLog(), tc.line, tc.msg)
			}
		})
	}
}

// TestPrivateTotalReportedOnce: once the unit's private variables exceed
// MaxPrivateComponentsTotal, later declarations are not reported again.
func TestPrivateTotalReportedOnce(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "float g%d[1024];\n", i)
	}
	b.WriteString("void main(){ gl_Position = vec4(0.0); }")
	_, errs := Parse(Vertex, b.String())
	if len(errs) != 1 || errs[0].Line != 17 {
		t.Errorf("errors:\n%swant one, at line 17", errs.InfoLog())
	}
}

// uniqueArrays declares n global float[1024] arrays with distinct names.
func uniqueArrays(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "float g%d[1024];\n", i)
	}
	return b.String()
}

// TestOperandLimit: a unit with more than MaxOperands operands fails at
// the parse, before its expression trees are lowered (a 450,000-term sum
// used to build 613 MB of AST and IR first); a large but ordinary one
// compiles.
func TestOperandLimit(t *testing.T) {
	sum := func(n int) string {
		return "uniform float u;\nvoid main(){ float x = u" + strings.Repeat(" + u", n) + "; gl_Position = vec4(x); }"
	}
	errs, d, alloc := measure(Vertex, sum(MaxOperands))
	if len(errs) != 1 || !strings.Contains(errs[0].Msg, "shader too large") {
		t.Errorf("errors:\n%swant one 'shader too large'", errs.InfoLog())
	}
	if d > 5*time.Second || alloc > 512<<20 {
		t.Errorf("Parse took %v and allocated %d MB", d, alloc>>20)
	}
	if errs, _, _ := measure(Vertex, sum(10000)); errs != nil {
		t.Errorf("10,000 operands: %s", errs.InfoLog())
	}
}
