package compiler

import (
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/ir"
)

// TestCompileAndLinkStatus checks glCompileShader against glLinkProgram
// semantics (GLSL ES 1.00 section 7: main is required of each shader of a
// program, not of a translation unit): a unit without main compiles, and
// Link and LinkAlone report "missing main in <stage> shader".
func TestCompileAndLinkStatus(t *testing.T) {
	const helpers = "float twice(float x) { return 2.0 * x; }\n"
	const vsMain = "float twice(float x) { return 2.0 * x; }\nvoid main() { gl_Position = vec4(twice(1.0)); }\n"
	const fsMain = "precision mediump float;\nvoid main() { gl_FragColor = vec4(1.0); }\n"
	tests := []struct {
		name     string
		vs, fs   string
		linkErr  string // "" when the program links
		aloneErr [2]string
	}{
		{"both have main", vsMain, fsMain, "", [2]string{}},
		{"vertex without main", helpers, fsMain, "'main' : missing main in vertex shader", [2]string{"missing main in vertex shader", ""}},
		{"fragment without main", vsMain, "precision mediump float;\n" + helpers, "'main' : missing main in fragment shader",
			[2]string{"", "missing main in fragment shader"}},
		{"neither has main", helpers, "precision mediump float;\n" + helpers, "missing main in vertex shader", [2]string{"missing main in vertex shader", "missing main in fragment shader"}},
		{"empty units", "", "", "missing main in fragment shader", [2]string{"missing main in vertex shader", "missing main in fragment shader"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vs, fs := CompileShader(Vertex, tc.vs), CompileShader(Fragment, tc.fs)
			if !vs.OK || !fs.OK {
				t.Fatalf("compile failed: %s%s", vs.Log, fs.Log)
			}
			p := Link(vs, fs, nil)
			if tc.linkErr == "" {
				if !p.OK {
					t.Errorf("link failed: %s", p.Log)
				}
			} else if p.OK || !strings.Contains(p.Log, tc.linkErr) {
				t.Errorf("link OK=%v log %q, want a failure with %q", p.OK, p.Log, tc.linkErr)
			}
			for i, sh := range []*Shader{vs, fs} {
				a := LinkAlone(sh)
				if want := tc.aloneErr[i]; want == "" && !a.OK || want != "" && (a.OK || !strings.Contains(a.Log, want)) {
					t.Errorf("LinkAlone(%v): OK=%v log %q, want error %q", sh.Stage, a.OK, a.Log, want)
				}
			}
		})
	}
}

// TestLinkAloneResources: a shader linked alone is held to its own stage's
// limits on its active variables.
func TestLinkAloneResources(t *testing.T) {
	vs := CompileShader(Vertex, "uniform mat4 m[63]; uniform vec4 a[5];\nvoid main(){ gl_Position = m[0][0] + a[0]; }")
	p := LinkAlone(vs)
	if p.OK || !strings.Contains(p.Log, "GL_MAX_VERTEX_UNIFORM_VECTORS = 256") || p.Resources.VertexUniformVectors != 257 {
		t.Errorf("OK=%v log %q resources %+v", p.OK, p.Log, p.Resources)
	}
	fs := CompileShader(Fragment, "precision mediump float;\nvarying vec4 v[16];\nvoid main(){ gl_FragColor = v[15]; }")
	p = LinkAlone(fs)
	if !p.OK || p.Resources.VaryingVectors != 16 {
		t.Errorf("OK=%v log %q resources %+v", p.OK, p.Log, p.Resources)
	}
	// It has no code to run.
	if _, err := p.Variant(Key{}); err == nil || !strings.Contains(err.Error(), "linked alone") {
		t.Errorf("Variant of a LinkAlone program: %v", err)
	}
}

// TestArrayTypeSyntaxRuns runs a vertex shader that uses "float[2] x"
// declarations and parameters (GLSL ES 1.00 section 9,
// type_specifier_no_prec) and passes arrays to out and inout parameters
// (section 6.1.1), and checks gl_Position.
func TestArrayTypeSyntaxRuns(t *testing.T) {
	const vs = `float[2] g;
void fill(out float a[2], float x) { a[0] = x; a[1] = 2.0 * x; }
void bump(inout float[2] a) { a[0] += 10.0; a[1] += 20.0; }
float sum(float[2] a) { return a[0] + a[1]; }
void main() {
  float[2] y;
  fill(y, 3.0);     // y = (3, 6)
  bump(y);          // y = (13, 26)
  fill(g, 0.5);     // g = (0.5, 1)
  bump(g);          // g = (10.5, 21)
  gl_Position = vec4(y[0], y[1], sum(g), sum(y));
}`
	p := mustLink(t, vs, "precision mediump float;\nvoid main(){ gl_FragColor = vec4(1.0); }", nil)
	f, err := p.BuildIR(ir.Vertex, Key{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := ir.Interpret(f, &ir.Env{Lanes: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := [4]float32{13, 26, 31.5, 39}
	for c, w := range want {
		if got := r.OutputF(0, c); got != w {
			t.Errorf("gl_Position[%d] = %v, want %v", c, got, w)
		}
	}
}
