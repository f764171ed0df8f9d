package compiler

import (
	"math"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/ir"
)

const vsPointSprite = `attribute vec4 a_pos;
uniform float u_size;
uniform float u_scale;
varying vec2 v_uv;
void main() {
	gl_Position = a_pos;
	gl_PointSize = u_size * u_scale + a_pos.z;
	v_uv = a_pos.xy;
}`

const fsPointSprite = `precision mediump float;
varying vec2 v_uv;
void main() { gl_FragColor = vec4(v_uv * gl_PointCoord, 0.0, 1.0); }`

// TestVariantPerPrimitiveClass: the NoPoints key (lines, triangles) is its
// own variant without the gl_PointSize write and its computation, with the
// varyings one output word lower; the same key hits the cache.
func TestVariantPerPrimitiveClass(t *testing.T) {
	p := mustLink(t, vsPointSprite, fsPointSprite, nil)
	points, err := p.Variant(Key{})
	if err != nil {
		t.Fatal(err)
	}
	tris, err := p.Variant(Key{NoPoints: true})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := p.Variant(Key{NoPoints: true})
	if tris == points || again != tris {
		t.Fatal("a key change must give a new variant and the same key the cached one")
	}
	if c := p.Cache(); c.Hits != 1 || c.Misses != 2 || c.Variants != 2 {
		t.Errorf("cache stats %+v", c)
	}
	if !points.WritesPointSize || tris.WritesPointSize {
		t.Errorf("WritesPointSize: points %v, triangles %v", points.WritesPointSize, tris.WritesPointSize)
	}
	if tris.VS.Stats.Instructions >= points.VS.Stats.Instructions || len(tris.VS.Uniforms) >= len(points.VS.Uniforms) {
		t.Errorf("triangle VS %d instructions / %d uniforms, point VS %d / %d: want fewer",
			tris.VS.Stats.Instructions, len(tris.VS.Uniforms), points.VS.Stats.Instructions, len(points.VS.Uniforms))
	}
	if tris.FS.Stats.Instructions >= points.FS.Stats.Instructions {
		t.Errorf("triangle FS %d instructions, point FS %d: gl_PointCoord should fold to 0", tris.FS.Stats.Instructions, points.FS.Stats.Instructions)
	}
	// Output words: the varyings follow gl_Position directly.
	f, err := p.BuildIR(ir.Vertex, Key{})
	if err != nil {
		t.Fatal(err)
	}
	ir.SpecializeNonPoints(f, p.WritesPointSize)
	var words []int
	f.Walk(func(in *ir.Instr) {
		if in.Op == ir.OpStoreOutput {
			words = append(words, in.Index)
		}
	})
	if len(words) != 6 {
		t.Fatalf("vertex outputs %v, want position 0..3 and v_uv at 4, 5", words)
	}
	for i, w := range words {
		if w != i {
			t.Errorf("vertex outputs %v, want 0..5", words)
			break
		}
	}
}

// TestPreShaderKey: with Key.PreShader, normalize(u_light) and a product of
// uniform matrices become derived words computed by Variant.PreShader, the
// fragment and vertex shaders get shorter, and Eval computes the words the
// shader used to compute (checked against Go for these inputs).
func TestPreShaderKey(t *testing.T) {
	const vs = `attribute vec4 a_pos;
uniform mat4 u_proj;
uniform mat4 u_view;
varying vec3 v_n;
void main() { gl_Position = (u_proj * u_view) * a_pos; v_n = a_pos.xyz; }`
	const fs = `precision mediump float;
uniform vec3 u_light;
varying vec3 v_n;
void main() { gl_FragColor = vec4(vec3(max(dot(v_n, normalize(u_light)), 0.0)), 1.0); }`
	p := mustLink(t, vs, fs, nil)
	plain, err := p.Variant(Key{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := p.Variant(Key{PreShader: true})
	if err != nil {
		t.Fatal(err)
	}
	if plain.PreShader != nil {
		t.Error("the zero Key must not use a pre-shader")
	}
	if v.PreShader == nil {
		t.Fatal("no pre-shader")
	}
	// VS and CS each read 16 products; the FS three normalised components.
	if got := v.PreShader.Len(); got != 16+16+3 {
		t.Errorf("pre-shader computes %d words, want 35:\n%s", got, v.PreShader)
	}
	for _, st := range []struct {
		name         string
		plain, hoist *Binary
	}{{"VS", plain.VS, v.VS}, {"FS", plain.FS, v.FS}} {
		if st.hoist.Stats.Instructions >= st.plain.Stats.Instructions {
			t.Errorf("%s: %d instructions with the pre-shader, %d without", st.name, st.hoist.Stats.Instructions, st.plain.Stats.Instructions)
		}
		derived := 0
		for _, u := range st.hoist.Uniforms {
			if u.Kind == UniformDerived {
				derived++
			}
		}
		if derived == 0 {
			t.Errorf("%s stream has no derived words: %v", st.name, st.hoist.Uniforms)
		}
	}
	storage := make([]uint32, p.StorageSize)
	set := func(name string, vals ...float32) {
		u, _, ok := p.UniformByName(name)
		if !ok {
			t.Fatalf("no uniform %s", name)
		}
		for i, x := range vals {
			storage[u.Storage+i] = math.Float32bits(x)
		}
	}
	set("u_light", 3, 0, 4)
	proj := [16]float32{}
	view := [16]float32{}
	for i := range proj {
		proj[i], view[i] = float32(i+1)/8, float32(16-i)/4
	}
	set("u_proj", proj[:]...)
	set("u_view", view[:]...)
	derived := make([]uint32, v.PreShader.Len())
	v.PreShader.Eval(storage, make([]uint32, v.PreShader.ValueWords()), derived)
	var got []float32
	for _, u := range v.FS.Uniforms {
		if u.Kind == UniformDerived {
			got = append(got, math.Float32frombits(derived[u.Index]))
		}
	}
	inv := float32(1 / math.Sqrt(float64(float32(3*3+4*4))))
	if want := []float32{3 * inv, 0 * inv, 4 * inv}; !sameMultiset(got, want) {
		t.Errorf("FS derived words %v, want %v", got, want)
	}
	// The products of the matrices, column-major: (P·V)[c][r] = Σk P[k][r]·V[c][k].
	want := map[float32]bool{}
	for c := 0; c < 4; c++ {
		for r := 0; r < 4; r++ {
			var s float32
			for k := 0; k < 4; k++ {
				s += proj[4*k+r] * view[4*c+k]
			}
			want[s] = true
		}
	}
	for _, u := range v.VS.Uniforms {
		if u.Kind == UniformDerived && !want[math.Float32frombits(derived[u.Index])] {
			t.Errorf("VS derived word %d = %v is no element of u_proj·u_view", u.Index, math.Float32frombits(derived[u.Index]))
		}
	}
	if !strings.Contains(v.PreShader.String(), "rsq") {
		t.Errorf("pre-shader listing lacks the reciprocal square root:\n%s", v.PreShader)
	}
}

func sameMultiset(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	used := make([]bool, len(b))
outer:
	for _, x := range a {
		for i, y := range b {
			if !used[i] && x == y {
				used[i] = true
				continue outer
			}
		}
		return false
	}
	return true
}
