package glsl

import (
	"strings"
	"testing"
)

const fsHeader = "precision mediump float;\n"

func TestCompileOutcome(t *testing.T) {
	tests := []struct {
		name  string
		stage Stage
		src   string
		ok    bool
	}{
		{"minimal vs", Vertex, "void main() { gl_Position = vec4(0.0); }", true},
		{"fs without default precision", Fragment, "void main() { float x = 1.0; gl_FragColor = vec4(x); }", false},
		{"fs with local precision", Fragment, "void main() { mediump float x = 1.0; gl_FragColor = vec4(x); }", true},
		{"int to float implicit", Vertex, "void main() { float x = 1; }", false},
		{"vec3 from vec2+float", Vertex, "void main() { vec3 v = vec3(vec2(1.0), 2.0); }", true},
		{"too many ctor args", Vertex, "void main() { vec2 v = vec2(1.0, 2.0, 3.0); }", false},
		{"swizzle lvalue dup", Vertex, "void main() { vec2 v; v.xx = vec2(1.0); }", false},
		{"swizzle mixed sets", Vertex, "void main() { vec4 v; float f = v.xg.x; }", false},
		{"mat*vec", Vertex, "void main() { vec3 v = mat3(1.0) * vec3(1.0); }", true},
		{"vec3*mat2", Vertex, "void main() { vec3 v = vec3(1.0) * mat2(1.0); }", false},
		{"reserved operator", Vertex, "void main() { int a = 5 % 2; }", false},
		{"reserved keyword", Vertex, "void main() { float half = 1.0; }", false},
		{"recursion", Vertex, "float f(float x); float g(float x) { return f(x); } float f(float x) { return g(x); } void main() { f(1.0); }", false},
		{"discard in vs", Vertex, "void main() { discard; }", false},
		{"texture2DLod in fs", Fragment, fsHeader + "uniform sampler2D s; void main() { gl_FragColor = texture2DLod(s, vec2(0.0), 0.0); }", false},
		{"texture2D bias in fs", Fragment, fsHeader + "uniform sampler2D s; void main() { gl_FragColor = texture2D(s, vec2(0.0), 1.0); }", true},
		{"derivatives need extension", Fragment, fsHeader + "void main() { gl_FragColor = vec4(dFdx(1.0)); }", false},
		{"derivatives with extension", Fragment, "#extension GL_OES_standard_derivatives : enable\n" + fsHeader + "void main() { gl_FragColor = vec4(dFdx(1.0)); }", true},
		{"const needs constant", Vertex, "uniform float u; void main() { const float c = u; }", false},
		{"const from builtin call", Vertex, "void main() { const float c = sin(1.0) + max(2.0, 3.0); }", true},
		{"array size from const", Vertex, "const int N = 2 * 2; float a[N]; void main() { a[3] = 1.0; }", true},
		{"constant index out of range", Vertex, "float a[4]; void main() { a[4] = 1.0; }", false},
		{"write uniform", Vertex, "uniform float u; void main() { u = 1.0; }", false},
		{"write varying in fs", Fragment, fsHeader + "varying float v; void main() { v = 1.0; }", false},
		{"break outside loop", Vertex, "void main() { break; }", false},
		{"return value from void", Vertex, "void main() { return 1.0; }", false},
		{"missing return value", Vertex, "float f() { return; } void main() {}", false},
		{"version not first", Vertex, "void main() {}\n#version 100\n", false},
		{"version 100", Vertex, "#version 100\nvoid main() {}", true},
		{"invariant varying", Vertex, "invariant varying vec4 v; void main() { v = vec4(1.0); }", true},
		{"invariant redeclaration", Vertex, "varying vec4 v; invariant v; invariant gl_Position; void main() {}", true},
		{"wrong qualifier order", Vertex, "varying invariant vec4 v; void main() {}", false},
		{"struct ctor", Vertex, "struct S { float a; int b; }; void main() { S s = S(1.0, 2); }", true},
		{"struct ctor wrong type", Vertex, "struct S { float a; int b; }; void main() { S s = S(1.0, 2.0); }", false},
		{"gl_ prefix", Vertex, "float gl_x; void main() {}", false},
		{"unknown extension require", Vertex, "#extension GL_foo : require\nvoid main() {}", false},
		{"unknown extension warn", Vertex, "#extension GL_foo : warn\nvoid main() {}", true},
		{"fragcolor and fragdata", Fragment, "void main() { gl_FragColor = vec4(1.0); gl_FragData[0] = vec4(1.0); }", false},
		{"while loop", Vertex, "void main() { int i = 0; while (i < 3) { i++; } do { i--; } while (i > 0); }", true},
		{"sampler local", Vertex, "void main() { sampler2D s; }", false},
		{"attribute int", Vertex, "attribute int a; void main() {}", false},
		{"varying struct", Vertex, "struct S { float a; }; varying S s; void main() {}", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := Parse(tc.stage, tc.src)
			if (errs == nil) != tc.ok {
				t.Errorf("ok = %v, want %v; log:\n%s", errs == nil, tc.ok, errs.InfoLog())
			}
		})
	}
}

func TestErrorFormatAndLine(t *testing.T) {
	tests := []struct {
		src  string
		want string
	}{
		{"void main()\n{\n  float x = y;\n}\n", "ERROR: 0:3: 'y' : undeclared identifier"},
		{"void main()\n{\n#line 40\n  float x = y;\n}\n", "ERROR: 0:40: 'y' : undeclared identifier"},
		{"#error hello world\nvoid main(){}", "ERROR: 0:1: '#error' : hello world"},
		{"void main() {\n\n  int a = 1 << 2;\n}", "ERROR: 0:3: '<<' : reserved operator"},
	}
	for _, tc := range tests {
		_, errs := Parse(Vertex, tc.src)
		if len(errs) == 0 {
			t.Errorf("%q: no error", tc.src)
			continue
		}
		if got := errs[0].Error(); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.src, got, tc.want)
		}
		if !strings.HasSuffix(errs.InfoLog(), "compilation errors.  No code generated.\n") {
			t.Errorf("info log lacks the summary line: %q", errs.InfoLog())
		}
	}
}

func TestPreprocessor(t *testing.T) {
	tests := []struct {
		src  string
		want string // the tokens after preprocessing, space separated
	}{
		{"#define A 1\nA", "1"},
		{"#define F(x, y) (x * y)\nF(2, 3)", "( 2 * 3 )"},
		{"#define F (x)\nF", "( x )"},
		{"#if defined(GL_ES) && __VERSION__ == 100\nyes\n#else\nno\n#endif", "yes"},
		{"#ifdef X\na\n#elif 2 > 1\nb\n#else\nc\n#endif", "b"},
		{"#define X\n#ifndef X\na\n#else\nb\n#endif", "b"},
		{"a\n__LINE__", "a 2"},
		{"#line 10\n__LINE__", "10"},
		{"#define A B\n#define B A\nA", "A"},
		{"/* multi\nline */ x", "x"},
		{"#define V /* c\n */ 4\nV", "4"},
		{"#if 0\n#garbage ¤\n#endif\nok", "ok"},
	}
	for _, tc := range tests {
		var errs ErrorList
		toks, _, _, _ := preprocess(Vertex, tc.src, &errs)
		if errs != nil {
			t.Errorf("%q: %v", tc.src, errs)
			continue
		}
		var got []string
		for _, tk := range toks {
			if tk.kind != tEOF {
				got = append(got, tk.text)
			}
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%q: got %q, want %q", tc.src, g, tc.want)
		}
	}
}

func TestTypedAST(t *testing.T) {
	src := `
float f(float x) { return x * 2.0; }
float f(vec2 x) { return x.x; }
const vec3 c = vec3(1.0, 2.0, 3.0).zyx * 2.0;
uniform mediump vec4 u;
void main() {
	float a = f(1.0) + f(vec2(1.0));
	gl_Position = u * mat4(1.0) + vec4(c, length(c.xy));
}`
	unit, errs := Parse(Vertex, src)
	if errs != nil {
		t.Fatal(errs.InfoLog())
	}
	if unit.Main == nil || len(unit.Functions) != 3 {
		t.Fatalf("main = %v, %d functions", unit.Main, len(unit.Functions))
	}
	var cv *Variable
	for _, g := range unit.Globals {
		if g.Name == "c" {
			cv = g
		}
	}
	want := []float32{6, 4, 2}
	if cv == nil || len(cv.Value) != 3 {
		t.Fatalf("const c has no value: %+v", cv)
	}
	for i, w := range want {
		if cv.Value[i].F != w {
			t.Errorf("c[%d] = %v, want %v", i, cv.Value[i].F, w)
		}
	}
	// The first statement of main declares a = f(1.0) + f(vec2(1.0)).
	decl := unit.Main.Body.Stmts[0].(*DeclStmt)
	sum := decl.Vars[0].Init.(*Binary)
	c1, c2 := sum.X.(*Call), sum.Y.(*Call)
	if c1.Func == nil || c2.Func == nil || c1.Func == c2.Func || !c1.Func.Params[0].Type.Equal(TypeFloat) ||
		!c2.Func.Params[0].Type.Equal(TypeVec2) {
		t.Errorf("overloads not resolved: %+v %+v", c1.Func, c2.Func)
	}
	assign := unit.Main.Body.Stmts[1].(*ExprStmt).X.(*Assign)
	if !assign.Type().Equal(TypeVec4) || assign.Precision() != Highp {
		t.Errorf("assignment type %v precision %v", assign.Type(), assign.Precision())
	}
	add := assign.RHS.(*Binary)
	mul := add.X.(*Binary)
	if mul.Op != OpMul || !mul.Type().Equal(TypeVec4) {
		t.Errorf("u * mat4: %v %v", mul.Op, mul.Type())
	}
	call := add.Y.(*Construct).Args[1].(*Call)
	if call.Builtin != "length" || call.Value() == nil || call.Value()[0].F != 7.2111025 {
		t.Errorf("length(c.xy) = %+v builtin %q", call.Value(), call.Builtin)
	}
}

func TestLink(t *testing.T) {
	tests := []struct {
		name   string
		vs, fs string
		ok     bool
	}{
		{"ok", "varying vec2 v; void main() { v = vec2(1.0); }", fsHeader + "varying vec2 v; void main() { gl_FragColor = vec4(v, 0.0, 1.0); }", true},
		{"varying type mismatch", "varying vec2 v; void main() {}", fsHeader + "varying vec3 v; void main() { gl_FragColor = vec4(1.0); }", false},
		{"varying used but not in vs", "void main() {}", fsHeader + "varying vec3 v; void main() { gl_FragColor = vec4(v, 1.0); }", false},
		{"varying unused not in vs", "void main() {}", fsHeader + "varying vec3 v; void main() { gl_FragColor = vec4(1.0); }", true},
		// Different precisions fail only where both stages use the
		// uniform (TestLinkageRules has the cases).
		{"uniform precision mismatch", "uniform mediump float u; void main() { gl_Position = vec4(u); }", fsHeader + "uniform lowp float u; void main() { gl_FragColor = vec4(u); }", false},
		{"missing main", "void f() {}", fsHeader + "void main() { gl_FragColor = vec4(1.0); }", false},
	}
	for _, tc := range tests {
		vs, verrs := Parse(Vertex, tc.vs)
		fs, ferrs := Parse(Fragment, tc.fs)
		if verrs != nil || ferrs != nil {
			t.Fatalf("%s: compile: %v %v", tc.name, verrs, ferrs)
		}
		errs := Link(vs, fs)
		if (errs == nil) != tc.ok {
			t.Errorf("%s: link ok = %v, want %v: %v", tc.name, errs == nil, tc.ok, errs)
		}
		if errs != nil && !strings.HasPrefix(errs.InfoLog(), "ERROR: Linking: ") {
			t.Errorf("%s: link log %q", tc.name, errs.InfoLog())
		}
	}
}

func TestLoopConditionDeclarations(t *testing.T) {
	unit, errs := Parse(Vertex, `bool f() { return false; }
void main() {
	while (bool b = f()) { }
	for (; bool c = f(); ) { }
}`)
	if errs != nil {
		t.Fatal(errs.InfoLog())
	}
	body := unit.Main.Body.Stmts
	w := body[0].(*WhileStmt)
	if w.CondDecl == nil || w.CondDecl.Var.Name != "b" {
		t.Fatalf("while CondDecl = %+v", w.CondDecl)
	}
	if id, ok := w.Cond.(*Ident); !ok || id.Var != w.CondDecl.Var {
		t.Errorf("while Cond = %T, want Ident of b", w.Cond)
	}
	f := body[1].(*ForStmt)
	seq, ok := f.Cond.(*Sequence)
	if !ok {
		t.Fatalf("for Cond = %T, want Sequence", f.Cond)
	}
	as := seq.X.(*Assign)
	if as.LHS.(*Ident).Var.Name != "c" || as.RHS.(*Call).Func.Name != "f" || seq.Y.(*Ident).Var.Name != "c" {
		t.Errorf("for Cond shape wrong: %+v", seq)
	}
}
