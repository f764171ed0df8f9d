package ir

import (
	"math"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/compiler/glsl"
)

// The bench shaders, from the bench package (SCENES.md / glbench.c).
var (
	benchShaders = bench.Shaders()
	vsFlat       = benchShaders["VS_FLAT"]
	fsFlat       = benchShaders["FS_FLAT"]
	fsTex        = benchShaders["FS_TEX"]
	vsPhong      = benchShaders["VS_PHONG"]
	fsPhong      = benchShaders["FS_PHONG"]
)

// compile parses src, lowers it and runs every pass with Verify, returning
// the IR before passes (for the pre-I/O interpreter) and after.
func compile(t *testing.T, stage glsl.Stage, src string) (before, after *Func, lay *IOLayout) {
	t.Helper()
	tu, errs := glsl.Parse(stage, src)
	if errs != nil {
		t.Fatalf("parse: %v", errs)
	}
	before, err := FromAST(tu)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(before, FormAny); err != nil {
		t.Fatalf("%v\n%s", err, Dump(before))
	}
	after, err = FromAST(tu)
	if err != nil {
		t.Fatal(err)
	}
	lay = SequentialLayout(after)
	if err := Run(after, Options{Verify: true, Layout: lay}); err != nil {
		t.Fatalf("%v\n%s", err, Dump(after))
	}
	return before, after, lay
}

func bits(fs ...float32) []uint32 {
	out := make([]uint32, len(fs))
	for i, f := range fs {
		out[i] = FloatBits(f)
	}
	return out
}

func near(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}

func TestBenchPhong(t *testing.T) {
	// Vertex shader: matrices with distinct entries, column-major.
	var mvp, model [16]float32
	for i := range mvp {
		mvp[i] = float32(i%5) - 1.5 + float32(i)*0.25
		model[i] = float32((i*7)%11)*0.1 - 0.3
	}
	_, vs, lay := compile(t, glsl.Vertex, vsPhong)
	storage := make([]uint32, 32)
	copy(storage[lay.Uniforms["u_mvp"]:], bits(mvp[:]...))
	copy(storage[lay.Uniforms["u_model"]:], bits(model[:]...))
	pos := [][3]float32{{0.5, -0.25, 1}, {-1, 2, 0.125}}
	nrm := [][3]float32{{0, 1, 0}, {0.6, 0, 0.8}}
	env := &Env{Lanes: 2, Storage: storage}
	for l := range pos {
		a := make([]float32, 8)
		copy(a[4*lay.Attributes["a_pos"]:], pos[l][:])
		copy(a[4*lay.Attributes["a_nrm"]:], nrm[l][:])
		env.Attributes = append(env.Attributes, a)
	}
	r, err := Interpret(vs, env)
	if err != nil {
		t.Fatal(err)
	}
	mul := func(m [16]float32, v [4]float32) (o [4]float64) {
		for row := 0; row < 4; row++ {
			for c := 0; c < 4; c++ {
				o[row] += float64(m[c*4+row]) * float64(v[c])
			}
		}
		return
	}
	for l := range pos {
		p := [4]float32{pos[l][0], pos[l][1], pos[l][2], 1}
		n := [4]float32{nrm[l][0], nrm[l][1], nrm[l][2], 0}
		clip, w, wn := mul(mvp, p), mul(model, p), mul(model, n)
		want := []float64{clip[0], clip[1], clip[2], clip[3]}
		for i := 0; i < 3; i++ {
			want = append(want, 0) // placeholders, filled from the layout below
		}
		for c := 0; c < 4; c++ {
			if g := r.OutputF(l, c); !near(float64(g), clip[c], 1e-5) {
				t.Errorf("lane %d position %d: %v want %v", l, c, g, clip[c])
			}
		}
		for c := 0; c < 3; c++ {
			if g := r.OutputF(l, 4+lay.Varyings["v_wpos"][c]); !near(float64(g), w[c], 1e-5) {
				t.Errorf("lane %d v_wpos %d: %v want %v", l, c, g, w[c])
			}
			if g := r.OutputF(l, 4+lay.Varyings["v_nrm"][c]); !near(float64(g), wn[c], 1e-5) {
				t.Errorf("lane %d v_nrm %d: %v want %v", l, c, g, wn[c])
			}
		}
	}

	// Fragment shader against a float64 Go version.
	_, fs, flay := compile(t, glsl.Fragment, fsPhong)
	light, eye := [3]float64{0.5, 0.7, 1}, [3]float64{0, 0, 3}
	fstorage := make([]uint32, 6)
	copy(fstorage[flay.Uniforms["u_light"]:], bits(0.5, 0.7, 1))
	copy(fstorage[flay.Uniforms["u_eye"]:], bits(0, 0, 3))
	vn := [][3]float64{{0, 0, 1}, {0.3, 0.2, 0.9}, {-1, 0, 0}, {0.2, 0.9, 0.5}}
	vw := [][3]float64{{0, 0, 0.5}, {0.1, -0.2, 0.3}, {0.5, 0.5, 0}, {-0.3, 0.1, 0.8}}
	fenv := &Env{Lanes: 4, Storage: fstorage}
	for l := range vn {
		v := make([]float32, 6)
		for c := 0; c < 3; c++ {
			v[flay.Varyings["v_nrm"][c]] = float32(vn[l][c])
			v[flay.Varyings["v_wpos"][c]] = float32(vw[l][c])
		}
		fenv.Varyings = append(fenv.Varyings, v)
	}
	fr, err := Interpret(fs, fenv)
	if err != nil {
		t.Fatal(err)
	}
	norm := func(a [3]float64) [3]float64 {
		s := math.Sqrt(a[0]*a[0] + a[1]*a[1] + a[2]*a[2])
		return [3]float64{a[0] / s, a[1] / s, a[2] / s}
	}
	dot := func(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
	for l := range vn {
		n, li := norm(vn[l]), norm(light)
		v := norm([3]float64{eye[0] - vw[l][0], eye[1] - vw[l][1], eye[2] - vw[l][2]})
		d := math.Max(dot(n, li), 0)
		var r [3]float64
		ndl := dot(n, [3]float64{-li[0], -li[1], -li[2]})
		for c := 0; c < 3; c++ {
			r[c] = -li[c] - 2*ndl*n[c]
		}
		s := 0.0
		if d > 0 {
			s = math.Pow(math.Max(dot(r, v), 0), 32)
		}
		want := [4]float64{0.1 + d*0.85 + s, 0.1 + d*0.45 + s, 0.12 + d*0.2 + s, 1}
		for c := 0; c < 4; c++ {
			if g := fr.OutputF(l, c); !near(float64(g), want[c], 2e-4) {
				t.Errorf("lane %d colour %d: %v want %v", l, c, g, want[c])
			}
		}
	}
}

func TestBenchFlatAndTex(t *testing.T) {
	_, vs, lay := compile(t, glsl.Vertex, vsFlat)
	env := &Env{Lanes: 1, Attributes: [][]float32{{0.5, -1, 0, 1}}}
	r, err := Interpret(vs, env)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]float32{0: 0.5, 1: -1, 2: 0, 3: 1, 4 + lay.Varyings["v_uv"][0]: 0.75, 4 + lay.Varyings["v_uv"][1]: 0}
	for w, v := range want {
		if g := r.OutputF(0, w); g != v {
			t.Errorf("VS_FLAT word %d: %v want %v", w, g, v)
		}
	}

	_, fs, _ := compile(t, glsl.Fragment, fsFlat)
	r, err = Interpret(fs, &Env{Lanes: 1, Storage: bits(0.1, 0.2, 0.3, 0.4)})
	if err != nil {
		t.Fatal(err)
	}
	for c, v := range []float32{0.1, 0.2, 0.3, 0.4} {
		if g := r.OutputF(0, c); g != v {
			t.Errorf("FS_FLAT colour %d: %v want %v", c, g, v)
		}
	}

	_, ft, flay := compile(t, glsl.Fragment, fsTex)
	if got := strings.Count(Dump(ft), "texture"); got != 1 {
		t.Errorf("FS_TEX: %d texture ops, want 1:\n%s", got, Dump(ft))
	}
	storage := make([]uint32, 1)
	storage[flay.Uniforms["u_tex"]] = 3
	tenv := &Env{Lanes: 1, Varyings: [][]float32{{0.25, 0.75}}, Storage: storage,
		Texture: func(unit uint32, kind TexKind, c [3]float32, mode LodMode, lod float32) [4]float32 {
			return [4]float32{float32(unit), c[0], c[1], float32(mode)}
		}}
	r, err = Interpret(ft, tenv)
	if err != nil {
		t.Fatal(err)
	}
	for c, v := range []float32{3, 0.25, 0.75, float32(LodAuto)} {
		if g := r.OutputF(0, c); g != v {
			t.Errorf("FS_TEX colour %d: %v want %v", c, g, v)
		}
	}
}
