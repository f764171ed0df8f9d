package ir

import (
	"math"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
)

// fsEnv gives 4 lanes (one 2×2 quad) with v (a vec4 varying) =
// (lane, 2·lane, x, y), gl_FragCoord = (x+0.5, y+0.5, 0.25, 2), lanes 0 and
// 3 front facing, and a texture returning (unit, s, t, lod-or-bias).
func fsEnv(varyings []float32, storage []uint32) *Env {
	env := &Env{Lanes: 4, Storage: storage,
		Texture: func(unit uint32, kind TexKind, c [3]float32, mode LodMode, lod float32) [4]float32 {
			if kind == TexCube {
				return [4]float32{float32(unit) + 100, c[0], c[1], c[2]}
			}
			return [4]float32{float32(unit), c[0], c[1], lod}
		}}
	for l := 0; l < 4; l++ {
		x, y := float32(l&1), float32(l>>1)
		env.FragCoord = append(env.FragCoord, [4]float32{x + 0.5, y + 0.5, 0.25, 2})
		env.FrontFacing = append(env.FrontFacing, l == 0 || l == 3)
		env.PointCoord = append(env.PointCoord, [2]float32{x, y})
		v := make([]float32, len(varyings))
		copy(v, varyings)
		env.Varyings = append(env.Varyings, v)
	}
	return env
}

func TestFragmentSnippets(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		want    [4][4]float32 // per lane colour
		discard [4]bool
	}{
		{"frag coord and facing", `precision mediump float;
void main(){ gl_FragColor = vec4(gl_FragCoord.xy, gl_FrontFacing ? 1.0 : 0.0, gl_PointCoord.y); }`,
			[4][4]float32{{0.5, 0.5, 1, 0}, {1.5, 0.5, 0, 0}, {0.5, 1.5, 0, 1}, {1.5, 1.5, 1, 1}}, [4]bool{}},
		{"derivatives", `#extension GL_OES_standard_derivatives : enable
precision mediump float;
void main(){ float q = gl_FragCoord.x * 3.0 + gl_FragCoord.y * gl_FragCoord.y; gl_FragColor = vec4(dFdx(q), dFdy(q), fwidth(gl_FragCoord.x), 0.0); }`,
			[4][4]float32{{3, 2, 1, 0}, {3, 2, 1, 0}, {3, 2, 1, 0}, {3, 2, 1, 0}}, [4]bool{}},
		{"discard in function", `precision mediump float;
void check(float x) { if (x > 0.7) discard; }
void main(){ check(gl_FragCoord.x + gl_FragCoord.y * 0.1); gl_FragColor = vec4(1.0); }`,
			[4][4]float32{{1, 1, 1, 1}, {}, {1, 1, 1, 1}, {}}, [4]bool{false, true, false, true}},
		{"discard in loop", `precision mediump float;
void main(){
  float s = 0.0;
  for (int i = 0; i < 4; i++) { s += 1.0; if (s > gl_FragCoord.y * 4.0) discard; }
  gl_FragColor = vec4(s); }`,
			[4][4]float32{{}, {}, {4, 4, 4, 4}, {4, 4, 4, 4}}, [4]bool{true, true, false, false}},
		{"texture variants", `precision mediump float;
uniform sampler2D s0; uniform sampler2D s1; uniform samplerCube c;
void main(){
  vec4 a = texture2D(s0, vec2(0.25, 0.5), 1.5);
  vec4 b = texture2DProj(s1, vec4(1.0, 2.0, 0.0, 4.0));
  vec4 d = textureCube(c, vec3(1.0, 2.0, 3.0));
  gl_FragColor = vec4(a.x + a.w * 10.0, b.y + b.z * 10.0, b.x, d.x + d.w); }`,
			[4][4]float32{{5 + 15, 0.25 + 5, 7, 103 + 3}, {20, 5.25, 7, 106}, {20, 5.25, 7, 106}, {20, 5.25, 7, 106}}, [4]bool{}},
		{"sampler parameter", `precision mediump float;
uniform sampler2D s0; uniform sampler2D s1;
vec4 get(sampler2D s, vec2 c) { return texture2D(s, c * 2.0); }
void main(){ gl_FragColor = vec4(get(s0, vec2(0.5)).xy, get(s1, vec2(1.0)).xz); }`,
			[4][4]float32{{5, 1, 7, 2}, {5, 1, 7, 2}, {5, 1, 7, 2}, {5, 1, 7, 2}}, [4]bool{}},
		{"texture arithmetic", `precision mediump float;
uniform sampler2D s0;
void main(){ gl_FragColor = texture2D(s0, vec2(0.25, 0.5)) * 2.0 + vec4(1.0); }`,
			[4][4]float32{{11, 1.5, 2, 1}, {11, 1.5, 2, 1}, {11, 1.5, 2, 1}, {11, 1.5, 2, 1}}, [4]bool{}},
		{"varying packing", `precision mediump float; varying vec4 v; varying float w;
void main(){ gl_FragColor = vec4(v.w, v.y, w, 1.0); }`,
			[4][4]float32{{3, 1, 4, 1}, {3, 1, 4, 1}, {3, 1, 4, 1}, {3, 1, 4, 1}}, [4]bool{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tu, errs := glsl.Parse(glsl.Fragment, tc.src)
			if errs != nil {
				t.Fatalf("parse: %v", errs)
			}
			f, err := FromAST(tu)
			if err != nil {
				t.Fatal(err)
			}
			lay := SequentialLayout(f)
			if err := Run(f, Options{Verify: true, Layout: lay}); err != nil {
				t.Fatalf("%v\n%s", err, Dump(f))
			}
			storage := make([]uint32, 8)
			for name, slot := range lay.Uniforms {
				storage[slot] = map[string]uint32{"s0": 5, "s1": 7, "c": 3}[name]
			}
			// Varyings by name: v = (0,1,2,3), w = 4 at their packed indices.
			vary := make([]float32, 8)
			for name, idx := range lay.Varyings {
				for c, i := range idx {
					if i >= 0 {
						vary[i] = map[string][]float32{"v": {0, 1, 2, 3}, "w": {4}}[name][c]
					}
				}
			}
			r, err := Interpret(f, fsEnv(vary, storage))
			if err != nil {
				t.Fatalf("%v\n%s", err, Dump(f))
			}
			for l := 0; l < 4; l++ {
				if r.Discarded[l] != tc.discard[l] {
					t.Errorf("lane %d: discarded %v, want %v", l, r.Discarded[l], tc.discard[l])
				}
				if tc.discard[l] {
					continue
				}
				for c := 0; c < 4; c++ {
					if g := r.OutputF(l, c); math.Abs(float64(g-tc.want[l][c])) > 1e-6 {
						t.Errorf("lane %d colour %d: %v want %v", l, c, g, tc.want[l][c])
					}
				}
			}
		})
	}
}

// TestDynamicSamplerIndex lowers s[k] with a run-time k. The front end only
// accepts constant indices, so the test parses s[1] and swaps in k.
func TestDynamicSamplerIndex(t *testing.T) {
	src := `precision mediump float;
uniform sampler2D s[3];
void main(){ int k = int(gl_FragCoord.x); gl_FragColor = texture2D(s[1], vec2(0.5)) + vec4(float(k)); }`
	tu, errs := glsl.Parse(glsl.Fragment, src)
	if errs != nil {
		t.Fatal(errs)
	}
	// main's last statement: gl_FragColor = texture2D(s[1], ...) + vec4(float(k)).
	body := tu.Main.Body.Stmts
	assign := body[len(body)-1].(*glsl.ExprStmt).X.(*glsl.Assign)
	sum := assign.RHS.(*glsl.Binary)
	idx := sum.X.(*glsl.Call).Args[0].(*glsl.Index)
	k := sum.Y.(*glsl.Construct).Args[0].(*glsl.Construct).Args[0]
	idx.Index = k
	f, err := FromAST(tu)
	if err != nil {
		t.Fatal(err)
	}
	lay := SequentialLayout(f)
	if err := Run(f, Options{Verify: true, Layout: lay}); err != nil {
		t.Fatalf("%v\n%s", err, Dump(f))
	}
	storage := make([]uint32, 3)
	base := lay.Uniforms["s"]
	storage[base], storage[base+1], storage[base+2] = 10, 20, 30
	r, err := Interpret(f, fsEnv(nil, storage))
	if err != nil {
		t.Fatal(err)
	}
	// Lanes 0 and 2 have x = 0.5 (k = 0), lanes 1 and 3 x = 1.5 (k = 1).
	for l, want := range []float32{10, 21, 10, 21} {
		if g := r.OutputF(l, 0); g != want {
			t.Errorf("lane %d: %v want %v", l, g, want)
		}
	}
}

// TestVertexTextureLod: the Lod variants (vertex shaders only in GLSL ES
// 1.00), and implicit-LOD fetches in a vertex shader becoming LOD 0.
func TestVertexTextureLod(t *testing.T) {
	src := `attribute vec4 a; uniform sampler2D s; uniform samplerCube c;
void main(){
  vec4 x = texture2DLod(s, a.xy, 2.0);
  vec4 y = texture2DProjLod(s, vec3(a.xy, 2.0), 3.0);
  vec4 z = textureCubeLod(c, a.xyz, 1.5);
  vec4 w = texture2D(s, a.xy);
  gl_Position = vec4(x.w + y.y, y.w + 10.0 * w.w, z.x, z.w); }`
	tu, errs := glsl.Parse(glsl.Vertex, src)
	if errs != nil {
		t.Fatal(errs)
	}
	f, err := FromAST(tu)
	if err != nil {
		t.Fatal(err)
	}
	lay := SequentialLayout(f)
	if err := Run(f, Options{Verify: true, Layout: lay}); err != nil {
		t.Fatalf("%v\n%s", err, Dump(f))
	}
	storage := make([]uint32, 2)
	storage[lay.Uniforms["s"]], storage[lay.Uniforms["c"]] = 4, 6
	env := fsEnv(nil, storage)
	env.Lanes = 1
	env.Attributes = [][]float32{{0.5, 0.25, 0.75, 1}}
	r, err := Interpret(f, env)
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{2 + 0.25, 3 + 10*0, 106, 0.75}
	for c, w := range want {
		if g := r.OutputF(0, c); g != w {
			t.Errorf("component %d: %v want %v", c, g, w)
		}
	}
	n := 0
	f.Walk(func(in *Instr) {
		if in.Op == OpTexture && in.Lod != LodExplicit {
			t.Errorf("%s: vertex fetch without explicit LOD", in)
		}
		if in.Op == OpTexture {
			n++
		}
	})
	if n != 4 {
		t.Errorf("%d fetches, want 4", n)
	}
}
