package ir

import (
	"math"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
)

// runSnippet compiles a vertex shader with `attribute vec4 a;` and
// `uniform vec4 u[4];` (u[i] = (i, i+0.5, -i, 2)), runs it before and after
// the passes for each input, and returns gl_Position per input from both.
func runSnippet(t *testing.T, src string, inputs [][4]float32) (before, after [][4]float32) {
	t.Helper()
	full := "attribute vec4 a;\nuniform vec4 u[4];\n" + src
	tu, errs := glsl.Parse(glsl.Vertex, full)
	if errs != nil {
		t.Fatalf("parse: %v\n%s", errs, full)
	}
	pre, err := FromAST(tu)
	if err != nil {
		t.Fatalf("%v\n%s", err, full)
	}
	if err := Verify(pre, FormAny); err != nil {
		t.Fatalf("%v\n%s", err, Dump(pre))
	}
	post, _ := FromAST(tu)
	lay := SequentialLayout(post)
	if err := Run(post, Options{Verify: true, Layout: lay}); err != nil {
		t.Fatalf("%v\n%s", err, Dump(post))
	}
	var uni []uint32
	for i := 0; i < 4; i++ {
		uni = append(uni, bits(float32(i), float32(i)+0.5, -float32(i), 2)...)
	}
	n := len(inputs)
	envPre := &Env{Lanes: n, Vars: map[string][][]uint32{"u": {uni}}}
	envPost := &Env{Lanes: n, Storage: make([]uint32, 64), StorageAddress: 0x1000}
	if base, ok := lay.Uniforms["u"]; ok {
		copy(envPost.Storage[base:], uni)
	}
	for _, in := range inputs {
		envPre.Vars["a"] = append(envPre.Vars["a"], bits(in[:]...))
		attr := make([]float32, 4*(lay.Attributes["a"]+1))
		copy(attr[4*lay.Attributes["a"]:], in[:])
		envPost.Attributes = append(envPost.Attributes, attr)
	}
	rPre, err := Interpret(pre, envPre)
	if err != nil {
		t.Fatalf("before passes: %v\n%s", err, Dump(pre))
	}
	rPost, err := Interpret(post, envPost)
	if err != nil {
		t.Fatalf("after passes: %v\n%s", err, Dump(post))
	}
	for l := 0; l < n; l++ {
		var b, a [4]float32
		for c := 0; c < 4; c++ {
			b[c] = rPre.VarF("gl_Position", l, c)
			a[c] = rPost.OutputF(l, c)
		}
		before = append(before, b)
		after = append(after, a)
	}
	return before, after
}

type snippetCase struct {
	name string
	src  string
	in   [][4]float32
	want [][4]float32
	tol  float64
}

var snippetCases = []snippetCase{
	{"swizzle lvalue", `void main(){ vec4 p = a; p.zx = a.xy; p.w += 1.0; gl_Position = p; }`,
		[][4]float32{{1, 2, 3, 4}}, [][4]float32{{2, 2, 1, 5}}, 0},
	{"if else divergent", `void main(){ float r; if (a.x > 0.0) r = 1.0; else r = -1.0; gl_Position = vec4(r, a.x, 0.0, 1.0); }`,
		[][4]float32{{2, 0, 0, 0}, {-3, 0, 0, 0}}, [][4]float32{{1, 2, 0, 1}, {-1, -3, 0, 1}}, 0},
	{"const loop unrolls", `void main(){ float s = 0.0; for (int i = 0; i < 4; i++) { s += u[i].x; } gl_Position = vec4(s); }`,
		[][4]float32{{0, 0, 0, 0}}, [][4]float32{{6, 6, 6, 6}}, 0},
	{"loop break continue", `void main(){
	  float s = 0.0;
	  for (int i = 0; i < 10; i++) {
	    if (i == 2) continue;
	    if (float(i) > a.x) break;
	    s += float(i);
	  }
	  gl_Position = vec4(s, 0.0, 0.0, 1.0); }`,
		[][4]float32{{0, 0, 0, 0}, {3, 0, 0, 0}, {100, 0, 0, 0}}, [][4]float32{{0, 0, 0, 1}, {4, 0, 0, 1}, {43, 0, 0, 1}}, 0},
	{"while and do", `void main(){
	  float x = a.x; int n = 0;
	  while (x > 1.0) { x *= 0.5; n++; }
	  int m = 0; do { m += 2; } while (m < 5);
	  gl_Position = vec4(x, float(n), float(m), 1.0); }`,
		[][4]float32{{8, 0, 0, 0}, {0.5, 0, 0, 0}}, [][4]float32{{1, 3, 6, 1}, {0.5, 0, 6, 1}}, 0},
	{"function out inout early return", `
	float f(in float x, out float y, inout float z) {
	  y = x * 2.0;
	  if (x < 0.0) return -1.0;
	  z += 1.0;
	  return x;
	}
	void main(){ float y; float z = 10.0; float r = f(a.x, y, z); gl_Position = vec4(r, y, z, 0.0); }`,
		[][4]float32{{3, 0, 0, 0}, {-2, 0, 0, 0}}, [][4]float32{{3, 6, 11, 0}, {-1, -4, 10, 0}}, 0},
	{"return inside loop", `
	float first(float lim) { for (int i = 0; i < 8; i++) { if (float(i) * 1.5 > lim) return float(i); } return -1.0; }
	void main(){ gl_Position = vec4(first(a.x), first(100.0), 0.0, 1.0); }`,
		[][4]float32{{4, 0, 0, 0}}, [][4]float32{{3, -1, 0, 1}}, 0},
	{"arrays dynamic", `void main(){
	  float t[3]; t[0] = 1.0; t[1] = 2.0; t[2] = 4.0;
	  int i = int(a.x);
	  t[i] = t[i] * 10.0;
	  gl_Position = vec4(t[0], t[1], t[2], u[i].y); }`,
		[][4]float32{{0, 0, 0, 0}, {2, 0, 0, 0}}, [][4]float32{{10, 2, 4, 0.5}, {1, 2, 40, 2.5}}, 0},
	{"struct ctor", `struct S { vec2 p; float w; };
	S mk(float x) { return S(vec2(x, x + 1.0), 2.0 * x); }
	void main(){ S s = mk(a.x); s.p.y += 7.0; gl_Position = vec4(s.p, s.w, 1.0); }`,
		[][4]float32{{1, 0, 0, 0}}, [][4]float32{{1, 9, 2, 1}}, 0},
	{"matrices", `void main(){
	  mat2 m = mat2(1.0, 2.0, 3.0, 4.0);
	  vec2 v = m * vec2(1.0, 1.0);
	  vec2 w = vec2(1.0, 1.0) * m;
	  mat2 p = m * m;
	  gl_Position = vec4(v.x + 10.0 * v.y, w.x + 10.0 * w.y, p[0][0], p[1][1]); }`,
		[][4]float32{{0, 0, 0, 0}}, [][4]float32{{4 + 60, 3 + 70, 7, 22}}, 0},
	{"matrix dynamic column", `void main(){ mat3 m = mat3(2.0); m[int(a.x)][1] = 5.0; gl_Position = vec4(m[0][1], m[1][1], m[2][1], m[int(a.y)].x); }`,
		[][4]float32{{2, 0, 0, 0}, {0, 0, 0, 0}}, [][4]float32{{0, 2, 5, 2}, {5, 2, 0, 2}}, 0},
	{"int division", `void main(){ int x = int(a.x); int y = int(a.y); gl_Position = vec4(float(x / y), float(-x / y), float(x / -y), float((x * 3) / y)); }`,
		[][4]float32{{7, 2, 0, 0}, {9, 3, 0, 0}, {1000001, 7, 0, 0}}, [][4]float32{{3, -3, -3, 10}, {3, -3, -3, 9}, {142857, -142857, -142857, 428571}}, 0},
	{"short circuit", `float g = 0.0;
	bool bump() { g += 1.0; return true; }
	void main(){ bool b = a.x > 0.0 && bump(); bool c = a.x > 0.0 || bump(); gl_Position = vec4(g, b ? 1.0 : 0.0, c ? 1.0 : 0.0, 0.0); }`,
		[][4]float32{{1, 0, 0, 0}, {-1, 0, 0, 0}}, [][4]float32{{1, 1, 1, 0}, {1, 0, 1, 0}}, 0},
	{"common builtins", `void main(){ gl_Position = vec4(mod(a.x, 3.0), clamp(a.x, -1.0, 2.0), mix(2.0, 4.0, 0.25), step(1.0, a.x) + smoothstep(0.0, 2.0, 1.0)); }`,
		[][4]float32{{7.5, 0, 0, 0}, {-1.5, 0, 0, 0}}, [][4]float32{{1.5, 2, 2.5, 1.5}, {1.5, -1, 2.5, 0.5}}, 1e-6},
	{"geometric builtins", `void main(){
	  vec3 c = cross(vec3(1.0, 0.0, 0.0), vec3(0.0, 1.0, 0.0));
	  vec3 r = refract(normalize(vec3(1.0, -1.0, 0.0)), vec3(0.0, 1.0, 0.0), 1.0);
	  gl_Position = vec4(c.z, length(vec2(3.0, 4.0)) + distance(vec2(1.0), vec2(1.0, 2.0)), r.x - r.y, faceforward(vec2(1.0), vec2(1.0), vec2(1.0)).x); }`,
		[][4]float32{{0, 0, 0, 0}}, [][4]float32{{1, 6, float32(math.Sqrt2), -1}}, 1e-6},
	{"relational builtins", `void main(){ bvec3 b = lessThan(a.xyz, vec3(1.0)); gl_Position = vec4(any(b) ? 1.0 : 0.0, all(b) ? 1.0 : 0.0, not(b).y ? 1.0 : 0.0, equal(ivec2(1, 2), ivec2(1, 3)).x ? 1.0 : 0.0); }`,
		[][4]float32{{0, 5, 0, 0}}, [][4]float32{{1, 0, 1, 1}}, 0},
	{"ternary with effects", `void main(){ float k = 1.0; float r = a.x > 0.0 ? (k += 1.0) : (k -= 5.0); gl_Position = vec4(r, k, 0.0, 0.0); }`,
		[][4]float32{{1, 0, 0, 0}, {-1, 0, 0, 0}}, [][4]float32{{2, 2, 0, 0}, {-4, -4, 0, 0}}, 0},
	{"int vectors", `void main(){ ivec3 v = ivec3(a.xyz); ivec3 w = v * 3 - ivec3(1); ivec3 q = w / ivec3(2, -2, 4); gl_Position = vec4(vec3(q), float(-v.x)); }`,
		[][4]float32{{5, -7, 2.9, 0}}, [][4]float32{{7, 11, 1, -5}}, 0},
	{"conversions", `void main(){ bvec2 b = bvec2(a.x, 0.0); ivec2 i = ivec2(b); vec4 m = vec4(mat2(a.x, 2.0, 3.0, 4.0)); gl_Position = vec4(float(i.x + 2 * i.y), float(bool(a.y)), m.y, m.w); }`,
		[][4]float32{{0.5, 0, 0, 0}, {0, 3, 0, 0}}, [][4]float32{{1, 0, 2, 4}, {0, 1, 2, 4}}, 0},
	{"matrix compound ops", `void main(){
	  mat2 m = mat2(1.0, 2.0, 3.0, 4.0); mat2 n = m; m *= m; m += mat2(1.0); m++;
	  vec2 v = vec2(1.0, 0.0); v *= n;
	  mat3 r = mat3(n);
	  gl_Position = vec4(m[0][0], m[1][1], v.y, r[2][2] + r[0][2]); }`,
		[][4]float32{{0, 0, 0, 0}}, [][4]float32{{9, 24, 3, 1}}, 0},
	{"struct equality and const", `struct P { vec2 p; int k; };
	const P origin = P(vec2(0.0, 1.0), 3);
	void main(){ P q = P(a.xy, 3); gl_Position = vec4(q == origin ? 1.0 : 0.0, q != origin ? 1.0 : 0.0, float(origin.k), origin.p.y); }`,
		[][4]float32{{0, 1, 0, 0}, {0, 2, 0, 0}}, [][4]float32{{1, 0, 3, 1}, {0, 1, 3, 1}}, 0},
	{"comma and nested loops", `void main(){
	  float s = 0.0; int i, j;
	  for (i = 0, j = 10; i < 3; i++, j--) { for (int k = 0; k < 2; k++) { s += float(j * k); } }
	  gl_Position = vec4(s, float(i), float(j), 0.0); }`,
		[][4]float32{{0, 0, 0, 0}}, [][4]float32{{27, 3, 7, 0}}, 0},
	{"pre post increment", `void main(){ int i = 1; int a1 = i++; int a2 = ++i; float f = 0.5; f--; gl_Position = vec4(float(a1), float(a2), float(i), f); }`,
		[][4]float32{{0, 0, 0, 0}}, [][4]float32{{1, 3, 3, -0.5}}, 0},
	{"global state across calls", `float acc = 1.0; vec2 g;
	void add(float x) { acc += x; g.y = acc; }
	void main(){ add(a.x); add(2.0); g.x = 9.0; gl_Position = vec4(acc, g, 0.0); }`,
		[][4]float32{{1, 0, 0, 0}}, [][4]float32{{4, 9, 4, 0}}, 0},
	{"more builtins", `void main(){
	  float r = degrees(radians(a.x)) + pow(2.0, 3.0) + exp2(2.0) + log2(8.0);
	  vec2 f = vec2(abs(a.y), sign(a.y)) + vec2(floor(a.z), ceil(a.z)) + vec2(fract(a.z), min(a.x, a.y) + max(a.x, a.y));
	  mat2 m = matrixCompMult(mat2(1.0, 2.0, 3.0, 4.0), mat2(2.0));
	  bvec2 c = lessThanEqual(a.xy, vec2(1.0)); bvec2 d = greaterThan(a.xy, vec2(1.0)); bvec2 e = greaterThanEqual(a.xy, a.yx);
	  bvec2 g = notEqual(ivec2(1, 2), ivec2(1, 3));
	  float bits = (c.x ? 1.0 : 0.0) + (d.y ? 2.0 : 0.0) + (e.x ? 4.0 : 0.0) + (g.y ? 8.0 : 0.0) + (g.x ? 16.0 : 0.0);
	  gl_Position = vec4(r, f.x + 10.0 * f.y, m[0][0] + m[1][1] + m[0][1], bits + dot(normalize(vec2(3.0, 4.0)), vec2(5.0))); }`,
		[][4]float32{{1, -2.5, 1.25, 0}}, [][4]float32{{1 + 8 + 4 + 3, (2.5 + 1 + 0.25) + 10*(-1+2-1.5), 2 + 8, 1 + 0 + 4 + 8 + 7}}, 1e-5},
	{"nested function calls", `
	vec2 rot(vec2 v) { return vec2(-v.y, v.x); }
	vec2 rot2(vec2 v) { return rot(rot(v)); }
	void main(){ gl_Position = vec4(rot2(a.xy), rot(a.xy)); }`,
		[][4]float32{{1, 2, 0, 0}}, [][4]float32{{-1, -2, -2, 1}}, 0},
}

func TestSnippets(t *testing.T) {
	for _, tc := range snippetCases {
		t.Run(tc.name, func(t *testing.T) {
			before, after := runSnippet(t, tc.src, tc.in)
			for l := range tc.in {
				for c := 0; c < 4; c++ {
					w := float64(tc.want[l][c])
					if !near(float64(before[l][c]), w, tc.tol) {
						t.Errorf("input %d comp %d before passes: %v want %v", l, c, before[l][c], w)
					}
					if !near(float64(after[l][c]), w, tc.tol) {
						t.Errorf("input %d comp %d after passes: %v want %v", l, c, after[l][c], w)
					}
				}
			}
		})
	}
}

// TestTranscendentals checks the polynomial expansions against math over a
// sweep of arguments (the ~1e-5 relative accuracy the brief asks for, with
// an absolute floor near zeros of the function).
func TestTranscendentals(t *testing.T) {
	fns := []struct {
		name string
		ref  func(x float64) float64
		lo   float64
		hi   float64
	}{
		{"sin", math.Sin, -20, 20},
		{"cos", math.Cos, -20, 20},
		{"tan", math.Tan, -1.4, 1.4},
		{"asin", math.Asin, -1, 1},
		{"acos", math.Acos, -1, 1},
		{"atan", math.Atan, -50, 50},
		{"exp", math.Exp, -10, 10},
		{"log", math.Log, 0.01, 1000},
		{"sqrt", math.Sqrt, 0, 1000},
		{"inversesqrt", func(x float64) float64 { return 1 / math.Sqrt(x) }, 0.01, 1000},
	}
	const lanes = 64
	for _, fn := range fns {
		src := "void main(){ gl_Position = vec4(" + fn.name + "(a.x), 0.0, 0.0, 1.0); }"
		var in [][4]float32
		for i := 0; i < lanes; i++ {
			x := fn.lo + (fn.hi-fn.lo)*float64(i)/(lanes-1)
			in = append(in, [4]float32{float32(x)})
		}
		_, after := runSnippet(t, src, in)
		for i := range in {
			x := float64(in[i][0])
			want := fn.ref(x)
			got := float64(after[i][0])
			if math.Abs(got-want) > 1e-5*math.Max(1, math.Abs(want))+2e-6 {
				t.Errorf("%s(%v) = %v, want %v", fn.name, x, got, want)
			}
		}
	}
	// atan2 in every quadrant.
	var in [][4]float32
	for _, p := range [][2]float32{{1, 1}, {1, -1}, {-1, -1}, {-1, 1}, {0, 1}, {0, -1}, {1, 0}, {-3, 0.5}} {
		in = append(in, [4]float32{p[0], p[1]})
	}
	_, after := runSnippet(t, "void main(){ gl_Position = vec4(atan(a.x, a.y)); }", in)
	for i, p := range in {
		want := math.Atan2(float64(p[0]), float64(p[1]))
		if math.Abs(float64(after[i][0])-want) > 2e-6*math.Max(1, math.Abs(want)) {
			t.Errorf("atan(%v, %v) = %v, want %v", p[0], p[1], after[i][0], want)
		}
	}
}
