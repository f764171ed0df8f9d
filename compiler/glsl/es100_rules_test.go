package glsl

import (
	"strconv"
	"strings"
	"testing"
)

// TestES100Rules checks rules of the GLSL ES 1.00 specification (revision
// 17) that issue 10 found missing, each with the section it comes from.
// want lists the lines of the expected errors, in order ("" for none).
func TestES100Rules(t *testing.T) {
	const fsPre = "precision mediump float;\n"
	tests := []struct {
		section, name string
		stage         Stage
		src           string
		want          string // error lines joined by ",", "" when the shader compiles
	}{
		// Section 9, type_specifier_no_prec: an array type may follow
		// the basic type.
		{"9", "float[2] global", Vertex, "float[2] g;\nvoid main(){ g[1] = 1.0; gl_Position = vec4(g[1]); }", ""},
		{"9", "float[2] local", Vertex, "void main(){ float[3] x; x[2] = 1.0; gl_Position = vec4(x[2]); }", ""},
		{"9", "float[2] parameter", Vertex, "float f(float[2] p){ return p[1]; }\nvoid main(){ float[2] a; a[1] = 2.0; gl_Position = vec4(f(a)); }", ""},
		{"9", "unnamed float[2] parameter", Vertex, "float f(float[2]);\nfloat f(float[2] p){ return p[0]; }\nvoid main(){ float a[2]; gl_Position = vec4(f(a)); }", ""},
		{"9", "vec4[2] structure member", Vertex, "struct S { vec4[2] v; };\nvoid main(){ S s; s.v[1] = vec4(1.0); gl_Position = s.v[1]; }", ""},
		{"9", "uniform vec4[2]", Vertex, "uniform vec4[2] u;\nvoid main(){ gl_Position = u[0] + u[1]; }", ""},
		{"9", "float[2] is the type of float x[2]", Vertex, "float f(float p[2]){ return p[0]; }\nvoid main(){ float[2] a; gl_Position = vec4(f(a)); }", ""},
		{"4.1.9", "array of arrays through float[2] x[3]", Vertex, "void main(){\n float[2] x[3];\n gl_Position = vec4(0.0); }", "2"},
		{"5.4.4", "array constructor", Vertex, "void main(){\n float a = float[2](1.0, 2.0)[0];\n gl_Position = vec4(a); }", "2"},
		{"6.1", "array result", Vertex, "float[2] f();\nvoid main(){ gl_Position = vec4(0.0); }", "1"},
		// Section 6.1.1: arrays are passed to out and inout parameters.
		{"6.1.1", "array out and inout parameters", Vertex,
			"void h(out float a[2]) { a[0] = 1.0; a[1] = 2.0; }\nvoid k(inout float[2] a) { a[0] += 1.0; }\nvoid main(){ float y[2]; h(y); k(y); gl_Position = vec4(y[0], y[1], 0.0, 1.0); }", ""},
		// Section 4.5.2: precision qualifiers only on float, int and
		// sampler types.
		{"4.5.2", "lowp bool", Fragment, fsPre + "lowp bool b;\nvoid main(){ gl_FragColor = vec4(1.0); }", "2"},
		{"4.5.2", "mediump bvec2 local", Vertex, "void main(){\n mediump bvec2 b = bvec2(true);\n gl_Position = vec4(1.0); }", "2"},
		{"4.5.2", "precision on a structure", Fragment, fsPre + "struct S { float x; };\nmediump S s;\nvoid main(){ gl_FragColor = vec4(s.x); }", "3"},
		{"4.5.2", "precision on a bool parameter", Vertex, "void f(highp bool b) {}\nvoid main(){ gl_Position = vec4(1.0); }", "1"},
		{"4.5.2", "precision on int, float, sampler", Fragment,
			fsPre + "uniform lowp sampler2D s; mediump int i; highp vec2 v;\nvoid main(){ gl_FragColor = texture2D(s, v) * float(i); }", ""},
		{"4.5.3", "precision statement on bool", Vertex, "precision mediump bool;\nvoid main(){ gl_Position = vec4(1.0); }", "1"},
		// Section 4.5.3: default precision statements are scoped.
		{"4.5.3", "default precision in a function body only", Fragment,
			"void f() { precision mediump float; float x = 1.0; }\nvoid main(){\n float y = 2.0; }", "3"},
		{"4.5.3", "default precision in a block", Fragment,
			"void main(){ { precision lowp float; float a = 1.0; }\n float b = 1.0; }", "2"},
		{"4.5.3", "inner default precision shadows the outer", Fragment,
			fsPre + "void main(){ { precision lowp float; float a; } float b; gl_FragColor = vec4(1.0); }", ""},
		// Section 4.5.3: the fragment shader has no default float
		// precision; that is an error only where a float is declared or
		// used without one.
		{"4.5.3", "no float in a fragment shader without default", Fragment, "void main(){ gl_FragColor = vec4(1.0); }", ""},
		{"4.5.3", "int only in a fragment shader without default", Fragment, "void main(){ int i = 2; bool b = i > 1; }", ""},
		{"4.5.3", "float local without default", Fragment, "void main(){\n float f = 1.0; gl_FragColor = vec4(f); }", "2"},
		{"4.5.3", "float parameter without default", Fragment, "void f(float x) {}\nvoid main(){ }", "1"},
		{"4.5.3", "qualified float without default", Fragment, "void main(){ mediump float f = 1.0; gl_FragColor = vec4(f); }", ""},
		// Sections 4.5.3 and 6.1: prototype and definition agree on
		// precisions.
		{"6.1", "return precision differs", Vertex, "highp float f(float x);\nmediump float f(float x) { return x; }\nvoid main(){ gl_Position = vec4(f(1.0)); }", "2"},
		{"6.1", "parameter precision differs", Vertex, "float g(lowp float x);\nfloat g(highp float x) { return x; }\nvoid main(){ gl_Position = vec4(g(1.0)); }", "2"},
		{"6.1", "default and explicit precision agree", Vertex, "float g(highp float x);\nfloat g(float x) { return x; }\nvoid main(){ gl_Position = vec4(g(1.0)); }", ""},
		{"6.1", "default precision differs from explicit", Fragment, fsPre + "float g(highp float x);\nfloat g(float x) { return x; }\nvoid main(){ gl_FragColor = vec4(g(1.0)); }", "3"},
	}
	for _, tc := range tests {
		t.Run(tc.section+" "+tc.name, func(t *testing.T) {
			_, errs := Parse(tc.stage, tc.src)
			var got []string
			for _, e := range errs {
				got = append(got, strconv.Itoa(e.Line))
			}
			if strings.Join(got, ",") != tc.want {
				t.Errorf("error lines %q, want %q\n%s", strings.Join(got, ","), tc.want, errs.InfoLog())
			}
		})
	}
}

// TestInvarianceRules checks section 4.6 (invariant declarations, #pragma
// STDGL invariant(all)) at compile time.
func TestInvarianceRules(t *testing.T) {
	const fsPre = "precision mediump float;\n"
	tests := []struct {
		section, name string
		stage         Stage
		src           string
		want          string // error lines
	}{
		{"4.6.1", "invariant varying output", Vertex, "invariant varying vec4 v;\nvoid main(){ v = vec4(1.0); gl_Position = v; }", ""},
		{"4.6.1", "redeclared invariant varying", Vertex, "varying vec4 v;\ninvariant v;\nvoid main(){ v = vec4(1.0); gl_Position = v; }", ""},
		{"4.6.1", "invariant gl_Position and gl_PointSize", Vertex, "invariant gl_Position, gl_PointSize;\nvoid main(){ gl_Position = vec4(1.0); gl_PointSize = 1.0; }", ""},
		{"4.6.1", "invariant gl_FragColor", Fragment, fsPre + "invariant gl_FragColor;\nvoid main(){ gl_FragColor = vec4(1.0); }", ""},
		{"4.6.1", "invariant gl_FragData", Fragment, fsPre + "invariant gl_FragData;\nvoid main(){ gl_FragData[0] = vec4(1.0); }", ""},
		{"4.6.1", "invariant gl_FragCoord and gl_PointCoord", Fragment, fsPre + "invariant gl_FragCoord, gl_PointCoord;\nvoid main(){ gl_FragColor = gl_FragCoord; }", ""},
		{"4.6.4", "invariant gl_FrontFacing", Fragment, fsPre + "invariant gl_FrontFacing;\nvoid main(){ gl_FragColor = vec4(1.0); }", "2"},
		{"4.6.1", "invariant uniform", Vertex, "invariant uniform vec4 u;\nvoid main(){ gl_Position = u; }", "1"},
		{"4.6.1", "invariant local", Vertex, "void main(){\n invariant varying vec4 v; gl_Position = vec4(1.0); }", "2,2"},
		{"4.6.1", "invariant after use", Vertex, "varying vec4 v;\nvoid f(){ v = vec4(1.0); }\ninvariant v;\nvoid main(){ f(); gl_Position = v; }", "3"},
		{"4.6.1", "invariant of an attribute", Vertex, "attribute vec4 a;\ninvariant a;\nvoid main(){ gl_Position = a; }", "2"},
		{"4.6.1", "pragma invariant(all)", Vertex, "#pragma STDGL invariant(all)\nvarying vec4 v;\nvoid main(){ v = vec4(1.0); gl_Position = v; }", ""},
	}
	for _, tc := range tests {
		t.Run(tc.section+" "+tc.name, func(t *testing.T) {
			_, errs := Parse(tc.stage, tc.src)
			var got []string
			for _, e := range errs {
				got = append(got, strconv.Itoa(e.Line))
			}
			if strings.Join(got, ",") != tc.want {
				t.Errorf("error lines %q, want %q\n%s", strings.Join(got, ","), tc.want, errs.InfoLog())
			}
		})
	}
}

// TestLinkageRules checks the link-time rules of sections 4.3.4 (uniforms
// in both stages), 4.6.4 (invariance and linkage) and the pragma.
func TestLinkageRules(t *testing.T) {
	const fsPre = "precision mediump float;\n"
	const vsPlain = "void main(){ gl_Position = vec4(1.0); gl_PointSize = 1.0; }"
	tests := []struct {
		section, name string
		vs, fs        string
		want          string // substring of the link log, "" when it links
	}{
		{"4.6.4", "gl_FragCoord invariant, gl_Position not", vsPlain,
			fsPre + "invariant gl_FragCoord;\nvoid main(){ gl_FragColor = gl_FragCoord; }", "gl_FragCoord is invariant in the fragment shader but gl_Position is not"},
		{"4.6.4", "gl_FragCoord and gl_Position invariant", "invariant gl_Position;\n" + vsPlain,
			fsPre + "invariant gl_FragCoord;\nvoid main(){ gl_FragColor = gl_FragCoord; }", ""},
		{"4.6.4", "gl_PointCoord invariant, gl_PointSize not", "invariant gl_Position;\n" + vsPlain,
			fsPre + "invariant gl_PointCoord;\nvoid main(){ gl_FragColor = vec4(gl_PointCoord, 0.0, 1.0); }", "gl_PointCoord is invariant in the fragment shader but gl_PointSize is not"},
		{"4.6.4", "gl_PointCoord and gl_PointSize invariant", "invariant gl_PointSize;\n" + vsPlain,
			fsPre + "invariant gl_PointCoord;\nvoid main(){ gl_FragColor = vec4(gl_PointCoord, 0.0, 1.0); }", ""},
		{"4.6.4", "pragma makes gl_Position and gl_PointSize invariant", "#pragma STDGL invariant(all)\n" + vsPlain,
			fsPre + "invariant gl_FragCoord, gl_PointCoord;\nvoid main(){ gl_FragColor = gl_FragCoord; }", ""},
		{"4.6.4", "varying invariant in the fragment shader only", "varying vec4 v;\nvoid main(){ v = vec4(1.0); gl_Position = v; }",
			fsPre + "invariant varying vec4 v;\nvoid main(){ gl_FragColor = v; }", "invariance differs"},
		{"4.6.4", "varying invariant in the vertex shader only", "invariant varying vec4 v;\nvoid main(){ v = vec4(1.0); gl_Position = v; }",
			fsPre + "varying vec4 v;\nvoid main(){ gl_FragColor = v; }", "invariance differs"},
		{"4.6.1", "vertex pragma covers fragment varyings declared invariant", "#pragma STDGL invariant(all)\nvarying vec4 v;\nvoid main(){ v = vec4(1.0); gl_Position = v; }",
			fsPre + "invariant varying vec4 v;\nvoid main(){ gl_FragColor = v; }", ""},
		{"4.6.1", "fragment pragma does not make varyings invariant", "varying vec4 v;\nvoid main(){ v = vec4(1.0); gl_Position = v; }",
			"#pragma STDGL invariant(all)\n" + fsPre + "varying vec4 v;\nvoid main(){ gl_FragColor = v; }", ""},
		{"4.3.4", "uniform precision differs, used in both", "uniform highp vec4 u;\nvoid main(){ gl_Position = u; }",
			fsPre + "uniform mediump vec4 u;\nvoid main(){ gl_FragColor = u; }", "uniform precision differs"},
		{"4.3.4", "uniform precision differs, used in the vertex shader only", "uniform highp vec4 u;\nvoid main(){ gl_Position = u; }",
			fsPre + "uniform mediump vec4 u;\nvoid main(){ gl_FragColor = vec4(1.0); }", ""},
		{"4.3.4", "uniform precision differs, used in neither", "uniform highp float u;\nvoid main(){ gl_Position = vec4(1.0); }",
			fsPre + "uniform float u;\nvoid main(){ gl_FragColor = vec4(1.0); }", ""},
		{"4.3.4", "uniform structure member precision differs, used in both", "struct S { highp float x; };\nuniform S s;\nvoid main(){ gl_Position = vec4(s.x); }",
			fsPre + "struct S { mediump float x; };\nuniform S s;\nvoid main(){ gl_FragColor = vec4(s.x); }", "uniform precision differs"},
		{"4.3.4", "uniform type differs, used in one", "uniform vec4 u;\nvoid main(){ gl_Position = u; }",
			fsPre + "uniform vec3 u;\nvoid main(){ gl_FragColor = vec4(1.0); }", "uniform type differs"},
	}
	for _, tc := range tests {
		t.Run(tc.section+" "+tc.name, func(t *testing.T) {
			vs, errs := Parse(Vertex, tc.vs)
			if errs != nil {
				t.Fatalf("vertex shader: %s", errs.InfoLog())
			}
			fs, errs := Parse(Fragment, tc.fs)
			if errs != nil {
				t.Fatalf("fragment shader: %s", errs.InfoLog())
			}
			errs = Link(vs, fs)
			switch {
			case tc.want == "" && errs != nil:
				t.Errorf("link failed:\n%s", errs.InfoLog())
			case tc.want != "" && !strings.Contains(errs.InfoLog(), tc.want):
				t.Errorf("link log %q, want %q", errs.InfoLog(), tc.want)
			}
		})
	}
}
