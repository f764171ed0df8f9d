package ir

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
)

// inlineEnv runs 8 lanes (two 2×2 quads) before I/O lowering: v and a are
// a vec4 varying / attribute that differs per lane, u a uniform float[4],
// s0/s1/s[3] samplers on units 5, 7 and 10/20/30, and a texture that
// returns (unit, s, t, lod).
func inlineEnv() *Env {
	const lanes = 8
	env := &Env{Lanes: lanes, Vars: map[string][][]uint32{
		"u":  {bits(0.25, -1.5, 2, 0.75)},
		"s0": {{5}}, "s1": {{7}}, "s": {{10, 20, 30}},
	},
		Texture: func(unit uint32, kind TexKind, c [3]float32, mode LodMode, lod float32) [4]float32 {
			return [4]float32{float32(unit), c[0], c[1], lod}
		}}
	for l := 0; l < lanes; l++ {
		x := float32(l) / lanes
		v := bits(x, 1-x, float32(l%3)-1, float32(l)*0.375)
		env.Vars["v"] = append(env.Vars["v"], v)
		env.Vars["a"] = append(env.Vars["a"], v)
		q, p := float32(l&1), float32((l>>1)&1)
		env.FragCoord = append(env.FragCoord, [4]float32{q + 2*float32(l>>2) + 0.5, p + 0.5, 0.5, 1})
	}
	return env
}

func countOps(f *Func, op Op) int {
	n := 0
	f.Walk(func(in *Instr) {
		if in.Op == op {
			n++
		}
	})
	return n
}

// TestInline lowers shaders whose functions call each other in various
// shapes, checks that lowering made one IR function per GLSL function (or
// sampler binding) called with OpCall, and that the inline pass leaves no
// call and changes no result bit: ir.Interpret executes the calls before
// and the inlined code after.
func TestInline(t *testing.T) {
	const fsHead = "precision highp float;\nvarying vec4 v;\nuniform float u[4];\n"
	tests := []struct {
		name  string
		stage glsl.Stage
		src   string
		funcs int // callee Funcs after lowering
		calls int // OpCalls in main
		tweak func(t *testing.T, tu *glsl.TranslationUnit)
	}{
		{"chain", glsl.Fragment, fsHead + `
float c(float x) { return x - 0.5; }
float b(float x) { return c(x) * 2.0; }
float a(float x) { return b(x) + 1.0; }
void main() { gl_FragColor = vec4(a(v.x), a(v.y), b(v.z), c(v.w)); }`, 3, 4, nil},
		{"diamond", glsl.Fragment, fsHead + `
float d(float x) { return x * x + u[1]; }
float b(float x) { return d(x) + 1.0; }
float c(float x) { return d(x + 1.0) * d(x); }
float a(float x) { return b(x) * c(x); }
void main() { gl_FragColor = vec4(a(v.x), a(v.w), d(v.y), 1.0); }`, 4, 3, nil},
		{"calls in loops and ifs", glsl.Fragment, fsHead + `
float f(float x) { if (x > 0.5) return x * 3.0; return -x; }
void main() {
  float s = 0.0;
  for (int i = 0; i < 4; i++) {
    if (v.x > float(i) * 0.25) s += f(float(i) * 0.3); else s -= f(v.y);
  }
  float w = 0.0;
  while (w < v.w) { w += f(0.75) + f(v.z); }
  gl_FragColor = vec4(s, w, v.x > 0.3 ? f(v.x) : f(v.z), 1.0);
}`, 1, 6, nil},
		{"out and inout", glsl.Fragment, fsHead + `
struct P { vec2 p; float w; };
void swap(inout float a, inout float b) { float t = a; a = b; b = t; }
void split(vec2 p, out float x, out float y) { x = p.x; y = p.y; }
void fill(out float r[3], float k) { for (int i = 0; i < 3; i++) r[i] = k * float(i); }
P bump(inout P q, out vec2 old) { old = q.p; q.p += vec2(q.w); q.w *= 2.0; return q; }
void main() {
  float a = v.x, b = v.y, x, y, arr[3];
  swap(a, b);
  vec4 c = v;
  split(v.zw, c.y, c.x);
  swap(c.z, c.w);
  fill(arr, v.w);
  P q = P(v.xy, v.z);
  vec2 old;
  P r = bump(q, old);
  gl_FragColor = vec4(a - b, c.x + c.y * 2.0 + c.z * 3.0 + c.w * 5.0, arr[1] + arr[2] * 0.5, q.p.x + r.w + old.y);
}`, 4, 5, nil},
		{"early return in a loop in a callee", glsl.Fragment, fsHead + `
float find(float t) {
  float acc = 0.0;
  for (int i = 0; i < 8; i++) {
    acc += 0.5;
    if (float(i) * 0.125 >= t) return float(i) + acc;
    if (acc > 3.0) break;
  }
  return -acc;
}
float caller(float t) { float r = find(t); if (r < 0.0) return find(1.0 - t); return r * 2.0; }
void main() { gl_FragColor = vec4(find(v.x), find(v.y), caller(v.x * 0.5), caller(v.w)); }`, 2, 4, nil},
		{"discard in a callee", glsl.Fragment, fsHead + `
float seen;
void kill(float x) { seen += 1.0; if (x < 0.3) discard; seen += 10.0; }
float safe(float x) { kill(x); return x * 2.0; }
void main() {
  for (int i = 0; i < 3; i++) { kill(v.y + float(i) * 0.1); }
  gl_FragColor = vec4(safe(v.x + 0.2), seen, 1.0, 1.0);
}`, 2, 2, nil},
		{"globals and outputs written in callees", glsl.Fragment, fsHead + `
float g;
vec2 h = vec2(1.0, 2.0);
void paint(float k) { gl_FragColor = vec4(k, g, h); g += 1.0; }
void step2() { h *= 2.0; paint(h.x); }
bool pos(float x) { g += 100.0; return x > 0.5; }
void main() {
  g = v.x;
  step2();
  if (v.y > 0.5 && pos(v.x)) step2();
  gl_FragColor.w += g;
}`, 3, 3, nil},
		{"overloads and nested arguments", glsl.Fragment, fsHead + `
float f(float x) { return x + 1.0; }
float f(vec2 x) { return x.x * x.y; }
vec2 f(vec2 x, float s) { return x * s; }
void main() { gl_FragColor = vec4(f(f(v.x)), f(v.zw), f(v.xy, f(v.w))); }`, 3, 5, nil},
		{"derivatives in a callee", glsl.Fragment, "#extension GL_OES_standard_derivatives : enable\n" + fsHead + `
vec2 slope(float q) { return vec2(dFdx(q), dFdy(q)); }
void main() { float q = gl_FragCoord.x * 3.0 + gl_FragCoord.y * gl_FragCoord.y; gl_FragColor = vec4(slope(q), slope(v.x)); }`, 1, 2, nil},
		{"sampler parameters", glsl.Fragment, fsHead + `
uniform sampler2D s0;
uniform sampler2D s1;
vec4 get(sampler2D s, vec2 c) { return texture2D(s, c * 2.0); }
vec4 twice(sampler2D s, vec2 c) { return get(s, c) + get(s, c.yx); }
void main() { gl_FragColor = get(s0, v.xy) + get(s1, v.zw) * 3.0 + twice(s0, v.yx); }`, 3, 3, nil},
		// The front end accepts only constant sampler indices: parse s[1]
		// and swap in a run-time k, as TestDynamicSamplerIndex does.
		{"dynamically chosen sampler argument", glsl.Fragment, fsHead + `
uniform sampler2D s[3];
vec4 get(sampler2D t, vec2 c) { return texture2D(t, c); }
void main() { int k = int(gl_FragCoord.x); gl_FragColor = get(s[1], v.xy) + vec4(float(k)); }`, 1, 1,
			func(t *testing.T, tu *glsl.TranslationUnit) {
				body := tu.Main.Body.Stmts
				sum := body[len(body)-1].(*glsl.ExprStmt).X.(*glsl.Assign).RHS.(*glsl.Binary)
				idx := sum.X.(*glsl.Call).Args[0].(*glsl.Index)
				idx.Index = sum.Y.(*glsl.Construct).Args[0].(*glsl.Construct).Args[0]
			}},
		{"vertex shader writing outputs in callees", glsl.Vertex, `
attribute vec4 a;
varying vec4 v;
varying float w;
void emit(vec4 p) { gl_Position = p; v = p.yxwz; }
float weight(vec4 p) { w = p.x + p.y; return w * 0.5; }
void main() { emit(a * 2.0); gl_PointSize = weight(a); v.x += weight(v); }`, 2, 3, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tu, errs := glsl.Parse(tc.stage, tc.src)
			if errs != nil {
				t.Fatalf("parse: %v", errs)
			}
			if tc.tweak != nil {
				tc.tweak(t, tu)
			}
			f, err := FromAST(tu)
			if err != nil {
				t.Fatal(err)
			}
			if err := Verify(f, FormAny); err != nil {
				t.Fatalf("%v\n%s", err, Dump(f))
			}
			if len(f.Funcs) != tc.funcs || countOps(f, OpCall) != tc.calls {
				t.Errorf("lowered to %d functions and %d calls in main, want %d and %d\n%s",
					len(f.Funcs), countOps(f, OpCall), tc.funcs, tc.calls, Dump(f))
			}
			if err := Verify(f, FormInlined); err == nil || !strings.Contains(err.Error(), "left after inlining") {
				t.Errorf("Verify(FormInlined) before inlining: %v", err)
			}
			before, err := Interpret(f, inlineEnv())
			if err != nil {
				t.Fatalf("%v\n%s", err, Dump(f))
			}
			if err := Inline(f); err != nil {
				t.Fatal(err)
			}
			if err := Verify(f, FormInlined); err != nil {
				t.Fatalf("%v\n%s", err, Dump(f))
			}
			if n := countOps(f, OpCall) + countOps(f, OpCallResult); n != 0 || len(f.Funcs) != 0 {
				t.Fatalf("%d calls and %d functions left\n%s", n, len(f.Funcs), Dump(f))
			}
			after, err := Interpret(f, inlineEnv())
			if err != nil {
				t.Fatalf("%v\n%s", err, Dump(f))
			}
			if !reflect.DeepEqual(before.Vars, after.Vars) || !reflect.DeepEqual(before.Discarded, after.Discarded) {
				t.Errorf("inlining changed the results:\nbefore %v discarded %v\nafter  %v discarded %v\n%s",
					before.Vars, before.Discarded, after.Vars, after.Discarded, Dump(f))
			}
			if tc.name == "discard in a callee" {
				// A lane discards when v.y + 0.1·i < 0.3 for some i (the
				// loop; i = 0 is the smallest) or v.x + 0.2 < 0.3 (safe).
				want := make([]bool, 8)
				for l := range want {
					x := float32(l) / 8
					want[l] = 1-x < 0.3 || x+0.2 < 0.3
				}
				if !reflect.DeepEqual(after.Discarded, want) {
					t.Errorf("discarded %v, want %v", after.Discarded, want)
				}
			}

			// The whole pipeline, checked after every pass.
			g, err := FromAST(tu)
			if err != nil {
				t.Fatal(err)
			}
			if err := Run(g, Options{Verify: true, Layout: SequentialLayout(g)}); err != nil {
				t.Fatalf("%v\n%s", err, Dump(g))
			}
		})
	}
}

// TestInlineDumpPass: "inline" is the first named pass, so `tilegpu glsl
// -dump=inline` shows the IR right after it, without calls.
func TestInlineDumpPass(t *testing.T) {
	if Passes[0].Name != "inline" {
		t.Fatalf("first pass is %q, want inline", Passes[0].Name)
	}
	tu, errs := glsl.Parse(glsl.Fragment, "precision mediump float;\nvarying vec4 v;\n"+
		"vec4 f(vec4 x) { return x * 2.0; }\nvoid main() { gl_FragColor = f(v); }")
	if errs != nil {
		t.Fatal(errs)
	}
	f, err := FromAST(tu)
	if err != nil {
		t.Fatal(err)
	}
	if d := Dump(f); !strings.Contains(d, "func fragment @f(vec4)") || !strings.Contains(d, "call @f(vec4)") {
		t.Errorf("dump before inlining lacks the callee or the call:\n%s", d)
	}
	var dumped []string
	err = Run(f, Options{Verify: true, Stop: "inline", After: func(pass string, f *Func) {
		dumped = append(dumped, pass+"\n"+Dump(f))
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(dumped) != 1 || !strings.HasPrefix(dumped[0], "inline\n") || strings.Contains(dumped[0], "call") ||
		!strings.Contains(dumped[0], "fmul") {
		t.Errorf("after inline: %q", dumped)
	}
}

// callFixture is main computing sq(3) through a callee and storing it:
// a valid program before inlining, to break in one way per test case.
type callFixture struct {
	main, sq     *Func
	param, mul   *Instr
	arg, call    *Instr
	result, stor *Instr
}

func newCallFixture() *callFixture {
	x := &callFixture{sq: NewFunc("sq", Fragment), main: NewFunc("main", Fragment)}
	x.param = x.sq.NewInstr(OpParam, Float)
	x.sq.Params = []*Instr{x.param}
	x.mul = NewBuilder(x.sq).Emit(OpFMul, Float, x.param, x.param)
	x.sq.Results = []*Instr{x.mul}
	x.main.Funcs = []*Func{x.sq}
	b := NewBuilder(x.main)
	x.arg = b.ConstF(3)
	x.call = b.Emit(OpCall, Void, x.arg)
	x.call.Callee = x.sq
	x.result = b.EmitIndex(OpCallResult, Float, 0, x.call)
	x.stor = b.EmitIndex(OpStoreOutput, Void, 0, x.result)
	return x
}

func TestVerifyCalls(t *testing.T) {
	tests := []struct {
		name   string
		form   Form
		mutate func(x *callFixture)
		want   string // "" for valid
	}{
		{"valid", FormAny, func(*callFixture) {}, ""},
		{"call left after inlining", FormInlined, func(*callFixture) {}, "call left after inlining"},
		{"functions left after inlining", FormInlined, func(*callFixture) {}, "functions left after inlining"},
		{"scalar form rejects calls", FormScalar, func(*callFixture) {}, "op not allowed in scalar form"},
		{"unknown callee", FormAny, func(x *callFixture) { x.main.Funcs = nil }, "not one of the entry point's functions"},
		{"arg count", FormAny, func(x *callFixture) { x.call.Args = append(x.call.Args, x.arg) }, "2 args, @sq has 1 parameters"},
		{"arg type", FormAny, func(x *callFixture) { x.arg.Type = Int }, "parameter is f32"},
		{"result index", FormAny, func(x *callFixture) { x.result.Index = 1 }, "@sq has 1 results"},
		{"result type", FormAny, func(x *callFixture) { x.result.Type = Int }, "result 0 of @sq is f32"},
		{"result of a non-call", FormAny, func(x *callFixture) { x.result.Args[0] = x.arg }, "which is not a call"},
		{"result before its call", FormAny, func(x *callFixture) {
			blk := x.main.Body[0].(*Block)
			blk.Instrs[1], blk.Instrs[2] = blk.Instrs[2], blk.Instrs[1]
		}, "not defined before it"},
		{"param numbering", FormAny, func(x *callFixture) { x.param.Index = 2 }, "want param 0"},
		{"param in a block", FormAny, func(x *callFixture) {
			p := x.sq.NewInstr(OpParam, Float)
			x.sq.Body[0].(*Block).Instrs = append(x.sq.Body[0].(*Block).Instrs, p)
		}, "parameter inside a block"},
		{"result not visible", FormAny, func(x *callFixture) {
			n := &If{Cond: NewBuilder(x.sq).ConstB(true)}
			y := x.sq.NewInstr(OpFAdd, Float, x.param, x.param)
			n.Then = []Node{&Block{Instrs: []*Instr{y}}}
			x.sq.Body = append(x.sq.Body, n)
			x.sq.Results[0] = y
		}, "result 0: uses"},
		{"effect in a callee", FormAny, func(x *callFixture) {
			NewBuilder(x.sq).EmitIndex(OpStoreOutput, Void, 1, x.mul)
		}, "effect in a callee"},
		{"entry point parameters", FormAny, func(x *callFixture) { x.main.Params = []*Instr{x.param} }, "entry point has parameters"},
		{"recursion", FormAny, func(x *callFixture) {
			c := NewBuilder(x.sq).Emit(OpCall, Void, x.mul)
			c.Callee = x.sq
		}, "@sq calls @sq recursively"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := newCallFixture()
			tc.mutate(x)
			err := Verify(x.main, tc.form)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want an error containing %q\n%s", err, tc.want, Dump(x.main))
			}
		})
	}

	// The valid fixture interprets, inlines and still computes 9.
	x := newCallFixture()
	for _, step := range []string{"before", "after"} {
		if step == "after" {
			if err := Inline(x.main); err != nil {
				t.Fatal(err)
			}
			if err := Verify(x.main, FormInlined); err != nil {
				t.Fatal(err)
			}
		}
		r, err := Interpret(x.main, &Env{Lanes: 1})
		if err != nil {
			t.Fatal(err)
		}
		if g := r.OutputF(0, 0); g != 9 {
			t.Errorf("%s inlining: sq(3) = %v", step, g)
		}
	}
}

// TestInlineLimits: a call cycle (which Verify reports and the front end
// never produces) stops the inliner and the interpreter at the depth
// bound; a call tree that doubles at every level stops the inliner at the
// size bound, with errors saying so.
func TestInlineLimits(t *testing.T) {
	x := newCallFixture()
	c := NewBuilder(x.sq).Emit(OpCall, Void, x.mul)
	c.Callee = x.sq
	if _, err := Interpret(x.main, &Env{Lanes: 1}); err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Errorf("interpreting a recursive call: %v", err)
	}
	if err := Inline(x.main); err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Errorf("inlining a recursive call: %v", err)
	}

	// Lowering reports a call tree that doubles at every level.
	var src strings.Builder
	src.WriteString("precision mediump float;\nvarying float v;\nfloat f0(float x) { return x * 1.5 + 0.25; }\n")
	const levels = 24
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&src, "float f%d(float x) { return f%d(x) - f%d(x * 0.5); }\n", i, i-1, i-1)
	}
	fmt.Fprintf(&src, "void main() { gl_FragColor = vec4(f%d(v)); }\n", levels)
	tu, errs := glsl.Parse(glsl.Fragment, src.String())
	if errs != nil {
		t.Fatal(errs)
	}
	if _, err := FromAST(tu); err == nil || !strings.Contains(err.Error(), "too large after inlining") {
		t.Errorf("lowering 2^%d calls: %v", levels, err)
	}

	// The inline pass has its own bound for IR built some other way.
	main := NewFunc("main", Fragment)
	var prev *Func
	for i := 0; i <= levels; i++ {
		fn := NewFunc(fmt.Sprintf("f%d", i), Fragment)
		p := fn.NewInstr(OpParam, Float)
		fn.Params = []*Instr{p}
		b := NewBuilder(fn)
		r := b.Emit(OpFMul, Float, p, p)
		if prev != nil {
			c1 := b.Emit(OpCall, Void, p)
			c2 := b.Emit(OpCall, Void, r)
			c1.Callee, c2.Callee = prev, prev
			r = b.Emit(OpFSub, Float, b.EmitIndex(OpCallResult, Float, 0, c1), b.EmitIndex(OpCallResult, Float, 0, c2))
		}
		fn.Results = []*Instr{r}
		main.Funcs = append(main.Funcs, fn)
		prev = fn
	}
	b := NewBuilder(main)
	top := b.Emit(OpCall, Void, b.ConstF(0.5))
	top.Callee = prev
	b.EmitIndex(OpStoreOutput, Void, 0, b.EmitIndex(OpCallResult, Float, 0, top))
	if err := Verify(main, FormAny); err != nil {
		t.Fatal(err)
	}
	err := Run(main, Options{})
	if err == nil || !strings.Contains(err.Error(), "pass inline") || !strings.Contains(err.Error(), "too large after inlining") {
		t.Errorf("inlining 2^%d calls: %v", levels, err)
	}
}
