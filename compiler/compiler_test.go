package compiler

import (
	"math"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/compiler/ir"
	"github.com/tilegpu/tilegpu/hw/qpu"
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

// A program exercising what the bench shaders do not: loops (unrolled and
// data dependent), dynamic uniform indexing, discard, texture arithmetic.
const (
	vsFeatures = `attribute vec4 a;
uniform vec4 u[4];
varying vec4 v;
varying float w;
void main(){
  vec4 s = vec4(0.0);
  for (int i = 0; i < 4; i++) s += u[i] * a.x;
  int k = int(abs(a.y) * 3.0);
  float t = 0.0;
  for (int j = 0; j < 8; j++) { if (j > k) break; t += u[j / 2].y; }
  v = s + vec4(u[k].x);
  w = t;
  gl_Position = vec4(a.xy, t, 1.0);
}`
	fsFeatures = `precision mediump float;
uniform sampler2D tex;
varying vec4 v;
varying float w;
void main(){
  if (w > 1.0) discard;
  float n = 0.0;
  float x = v.x;
  while (x > 0.1) { x *= 0.5; n += 1.0; }
  gl_FragColor = texture2D(tex, v.xy) * 0.5 + vec4(n, sin(v.z), v.w, w);
}`
)

// Points: gl_PointSize (output word 4, varyings after it), gl_PointCoord,
// an array of structures as uniforms.
const (
	vsPoints = `attribute vec4 a;
struct L { vec3 c; float k; };
uniform L lit[2];
varying vec3 col;
void main(){ int i = int(clamp(a.z * 2.0 + 0.5, 0.0, 1.0)); gl_PointSize = a.x * 2.0 + lit[i].k; col = lit[1 - i].c * a.y; gl_Position = a; }`
	fsPoints = `precision mediump float;
varying vec3 col;
void main(){ gl_FragColor = vec4(col.zy, gl_PointCoord); }`
)

func mustLink(t *testing.T, vs, fs string, bind map[string]int) *Program {
	t.Helper()
	v, f := CompileShader(Vertex, vs), CompileShader(Fragment, fs)
	if !v.OK || !f.OK {
		t.Fatalf("compile: %s%s", v.Log, f.Log)
	}
	p := Link(v, f, bind)
	if !p.OK {
		t.Fatalf("link: %s", p.Log)
	}
	return p
}

func TestCompileErrorsGoToLog(t *testing.T) {
	tests := []struct {
		stage Stage
		src   string
		want  string
	}{
		{Vertex, "void main(){ gl_Position = vec4(x); }", "ERROR: 0:1:"},
		{Fragment, "void main(){ gl_FragColor = 1.0 }", "ERROR:"},
		// An empty unit compiles (no main is a link error: see
		// TestCompileAndLinkStatus).
	}
	for _, tc := range tests {
		s := CompileShader(tc.stage, tc.src)
		if s.OK || !strings.Contains(s.Log, tc.want) {
			t.Errorf("%q: OK=%v log %q, want failure containing %q", tc.src, s.OK, s.Log, tc.want)
		}
	}
	// Link failures.
	vs := CompileShader(Vertex, "void main(){ gl_Position = vec4(0.0); }")
	fs := CompileShader(Fragment, "precision mediump float; varying vec2 v_missing; void main(){ gl_FragColor = vec4(v_missing, 0.0, 1.0); }")
	if p := Link(vs, fs, nil); p.OK || p.Log == "" {
		t.Errorf("link with an undeclared varying: OK=%v log %q", p.OK, p.Log)
	}
	if p := Link(fs, vs, nil); p.OK {
		t.Error("link with swapped stages succeeded")
	}
	if p := Link(nil, fs, nil); p.OK {
		t.Error("link without a vertex shader succeeded")
	}
	if _, err := (&Program{}).Variant(Key{}); err == nil {
		t.Error("Variant of an unlinked program succeeded")
	}
}

func TestLinkPhongMetadata(t *testing.T) {
	p := mustLink(t, vsPhong, fsPhong, map[string]int{"a_nrm": 0})
	wantAttr := []Attribute{{"a_nrm", GLFloatVec3, 1, 0}, {"a_pos", GLFloatVec3, 1, 1}}
	if len(p.Attributes) != len(wantAttr) {
		t.Fatalf("attributes %+v", p.Attributes)
	}
	for i, a := range wantAttr {
		if p.Attributes[i] != a {
			t.Errorf("attribute %d: %+v want %+v", i, p.Attributes[i], a)
		}
	}
	want := map[string]Uniform{
		"u_mvp":   {Name: "u_mvp", Type: GLFloatMat4, Size: 1, Stride: 16},
		"u_model": {Name: "u_model", Type: GLFloatMat4, Size: 1, Stride: 16},
		"u_light": {Name: "u_light", Type: GLFloatVec3, Size: 1, Stride: 3},
		"u_eye":   {Name: "u_eye", Type: GLFloatVec3, Size: 1, Stride: 3},
	}
	if len(p.Uniforms) != len(want) {
		t.Fatalf("uniforms %+v", p.Uniforms)
	}
	slots := map[int]bool{}
	locs := map[int]bool{}
	for _, u := range p.Uniforms {
		w := want[u.Name]
		if u.Type != w.Type || u.Size != w.Size || u.Stride != w.Stride {
			t.Errorf("uniform %+v, want %+v", u, w)
		}
		for i := 0; i < u.Stride; i++ {
			if slots[u.Storage+i] {
				t.Errorf("uniform %s overlaps storage slot %d", u.Name, u.Storage+i)
			}
			slots[u.Storage+i] = true
		}
		if locs[u.Location] {
			t.Errorf("uniform %s: location %d reused", u.Name, u.Location)
		}
		locs[u.Location] = true
	}
	if p.StorageSize != 16+16+3+3 {
		t.Errorf("StorageSize %d", p.StorageSize)
	}
	if p.NumVaryings != 6 || p.WritesPointSize {
		t.Errorf("NumVaryings %d WritesPointSize %v", p.NumVaryings, p.WritesPointSize)
	}
}

func TestLinkUniformNames(t *testing.T) {
	vs := `struct L { vec3 dir; float k[2]; };
uniform L lights[2];
uniform mat3 m;
uniform float unused;
attribute vec4 a;
void main(){ gl_Position = a + vec4(lights[1].dir * lights[0].k[1], m[2][2]); }`
	fs := `precision mediump float;
uniform sampler2D tex[2];
uniform samplerCube env;
void main(){ gl_FragColor = texture2D(tex[1], vec2(0.5)) + textureCube(env, vec3(1.0)); }`
	p := mustLink(t, vs, fs, nil)
	var names []string
	for _, u := range p.Uniforms {
		names = append(names, u.Name)
	}
	got := strings.Join(names, " ")
	want := "lights[0].dir lights[0].k[0] lights[1].dir lights[1].k[0] m tex[0] env"
	if got != want {
		t.Errorf("uniform names %q, want %q", got, want)
	}
	u, elem, ok := p.UniformByName("lights[1].k[1]")
	if !ok || u.Name != "lights[1].k[0]" || elem != 1 || u.Size != 2 {
		t.Errorf("UniformByName(lights[1].k[1]) = %+v %d %v", u, elem, ok)
	}
	if _, _, ok := p.UniformByName("unused"); ok {
		t.Error("inactive uniform reported")
	}
	if len(p.Samplers) != 3 || !p.Samplers[2].Cube || p.Samplers[1].Name != "tex[1]" {
		t.Errorf("samplers %+v", p.Samplers)
	}
	// lights[1].dir sits after lights[0] (3 + 2 slots).
	for _, u := range p.Uniforms {
		if u.Name == "lights[1].dir" && u.Storage != 5 {
			t.Errorf("lights[1].dir at slot %d, want 5", u.Storage)
		}
	}
}

func TestVariantCache(t *testing.T) {
	p := mustLink(t, vsFlat, fsTex, nil)
	v1, err := p.Variant(Key{})
	if err != nil {
		t.Fatal(err)
	}
	v2, _ := p.Variant(Key{})
	var k Key
	k.TexSwizzle[0] = [4]Channel{ChannelR, ChannelR, ChannelR, ChannelOne}
	v3, err := p.Variant(k)
	if err != nil {
		t.Fatal(err)
	}
	if v1 != v2 || v1 == v3 {
		t.Error("cache returned the wrong variants")
	}
	if c := p.Cache(); c.Hits != 1 || c.Misses != 2 || c.Variants != 2 {
		t.Errorf("cache stats %+v", c)
	}
	if v1.NumVaryings != 2 || len(v1.Attributes) != 1 || v1.Attributes[0] != 0 || v1.FSDiscardsOrWritesZ {
		t.Errorf("variant %+v", v1)
	}
	if len(v1.CS.Code) == 0 || len(v1.CS.Code) > len(v1.VS.Code) {
		t.Errorf("CS %d instructions, VS %d", len(v1.CS.Code), len(v1.VS.Code))
	}
}

// --- end to end on the shader core ---

const (
	codeVA    = 0x10000
	unifVA    = 0x20000
	storageVA = 0x30000
	scratchVA = 0x40000
	texDescVA = 0x50000
)

type mapMem map[uint32]uint32

func (m mapMem) Read32(va uint32) (uint32, bool) { v, ok := m[va]; return v, ok }
func (m mapMem) Write32(va uint32, v uint32) bool {
	if _, ok := m[va]; !ok {
		return false
	}
	m[va] = v
	return true
}

// fakeSampler returns (unit, s, t, 1) for every lane, like texEnv below.
type fakeSampler struct{}

func (fakeSampler) Sample(m qpu.Mem, desc uint32, req *qpu.TexRequest, out *[4][qpu.Lanes]float32) error {
	for l := 0; l < qpu.Lanes; l++ {
		if req.Mask&(1<<l) != 0 {
			out[0][l], out[1][l], out[2][l], out[3][l] = float32((desc-texDescVA)/32), req.S[l], req.T[l], 1
		}
	}
	return nil
}

func texEnv(unit uint32, kind ir.TexKind, c [3]float32, mode ir.LodMode, lod float32) [4]float32 {
	return [4]float32{float32(unit), c[0], c[1], 1}
}

// runBinary executes one 16-lane batch of bin.
func runBinary(t *testing.T, bin *Binary, stage qpu.Stage, env *ir.Env) *qpu.Batch {
	t.Helper()
	mem := mapMem{}
	for i, w := range bin.Code {
		mem[codeVA+uint32(8*i)] = uint32(w)
		mem[codeVA+uint32(8*i)+4] = uint32(w >> 32)
	}
	for i, v := range env.Storage {
		mem[storageVA+uint32(4*i)] = v
	}
	for i := uint32(0); i < 8*bin.ScratchBytesPerThread/4; i++ {
		mem[scratchVA+4*i] = 0
	}
	for i, e := range bin.Uniforms {
		var v uint32
		switch e.Kind {
		case UniformStorage:
			v = env.Storage[e.Index]
		case UniformConstant:
			v = e.Value
		case UniformTexture:
			v = texDescVA + 32*env.Storage[e.Index]
		case UniformStorageAddress:
			v = storageVA
		case UniformScratchAddress:
			v = scratchVA
		case UniformStreamAddress:
			v = unifVA
		}
		mem[unifVA+uint32(4*i)] = v
	}
	prog, err := qpu.Load(func(va uint32) (uint64, bool) {
		lo, ok1 := mem[va]
		hi, ok2 := mem[va+4]
		return uint64(hi)<<32 | uint64(lo), ok1 && ok2
	}, codeVA)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	core := qpu.NewCore(mem)
	core.SetSampler(fakeSampler{})
	b := &qpu.Batch{Stage: stage, UniformsVA: unifVA, LaneMask: 0xffff}
	b.VPMIn = make([]float32, 16*16)
	for l, a := range env.Attributes {
		for i, x := range a {
			b.VPMIn[i*16+l] = x
		}
	}
	b.VPMOut = make([]float32, 64*16)
	for l := 0; l < 16 && l < len(env.PointCoord); l++ {
		b.PointS[l], b.PointT[l] = env.PointCoord[l][0], env.PointCoord[l][1]
	}
	b.Varyings = make([]float32, 32*16)
	for l, v := range env.Varyings {
		for i, x := range v {
			b.Varyings[i*16+l] = x
		}
	}
	if err := core.Run(prog, b); err != nil {
		t.Fatalf("run: %v\n%s", err, bin.Listing())
	}
	return b
}

// TestBenchProgramsEndToEnd compiles each bench program through Variant,
// runs VS, CS and FS on hw/qpu and compares every output with the IR
// interpreter on the same scalar IR.
func TestBenchProgramsEndToEnd(t *testing.T) {
	programs := []struct{ name, vs, fs string }{
		{"fill", vsFlat, fsFlat},
		{"tex", vsFlat, fsTex},
		{"tris", vsPhong, fsPhong},
		{"features", vsFeatures, fsFeatures},
		{"points", vsPoints, fsPoints},
	}
	for _, pr := range programs {
		t.Run(pr.name, func(t *testing.T) {
			p := mustLink(t, pr.vs, pr.fs, nil)
			v, err := p.Variant(Key{})
			if err != nil {
				t.Fatal(err)
			}
			env := &ir.Env{Lanes: 16, Storage: make([]uint32, p.StorageSize+1), StorageAddress: storageVA, Texture: texEnv}
			for i := range env.Storage {
				env.Storage[i] = math.Float32bits(0.125*float32(i) - 0.5)
			}
			for _, s := range p.Samplers {
				env.Storage[s.Storage] = 2
			}
			for l := 0; l < 16; l++ {
				a := make([]float32, 4*len(v.Attributes))
				for i := range a {
					a[i] = float32(l)*0.0625 - 0.3 + float32(i)*0.1
				}
				env.Attributes = append(env.Attributes, a)
				vy := make([]float32, p.NumVaryings)
				for i := range vy {
					vy[i] = float32(l)*0.05 + float32(i)*0.2 - 0.4
				}
				env.Varyings = append(env.Varyings, vy)
				env.PointCoord = append(env.PointCoord, [2]float32{float32(l) / 16, 1 - float32(l)/16})
			}
			discarded := 0
			for _, st := range []struct {
				stage ir.Stage
				qs    qpu.Stage
				bin   *Binary
			}{{ir.Vertex, qpu.StageVertex, v.VS}, {ir.Coordinate, qpu.StageCoordinate, v.CS}, {ir.Fragment, qpu.StageFragment, v.FS}} {
				f, err := p.BuildIR(st.stage, Key{})
				if err != nil {
					t.Fatal(err)
				}
				want, err := ir.Interpret(f, env)
				if err != nil {
					t.Fatal(err)
				}
				b := runBinary(t, st.bin, st.qs, env)
				for l := 0; l < 16; l++ {
					if st.stage == ir.Fragment {
						if got := b.Kill&(1<<l) != 0; got != want.Discarded[l] {
							t.Errorf("lane %d: discarded %v, interpreter %v", l, got, want.Discarded[l])
						}
						if want.Discarded[l] {
							discarded++
							continue
						}
					}
					for w, written := range want.Written {
						if !written {
							continue
						}
						var got float32
						if st.stage == ir.Fragment {
							got = b.Color[w][l]
						} else {
							got = b.VPMOut[w*16+l]
						}
						wf := want.OutputF(l, w)
						if math.Abs(float64(got-wf)) > 1e-5*math.Max(1, math.Abs(float64(wf))) {
							t.Errorf("%s lane %d word %d: hw %v, interpreter %v", st.stage, l, w, got, wf)
						}
					}
				}
				if pr.name == "features" && st.stage == ir.Fragment && (discarded == 0 || discarded == 16) {
					t.Errorf("features: %d of 16 lanes discarded; the test should discard some", discarded)
				}
				if pr.name == "points" && st.stage != ir.Fragment && (!p.WritesPointSize || !v.WritesPointSize || len(want.Written) < 5 || !want.Written[4]) {
					t.Errorf("points: point size not written (program %v, variant %v)", p.WritesPointSize, v.WritesPointSize)
				}
				if st.stage == ir.Coordinate && len(want.Written) > 4 && !(p.WritesPointSize && len(want.Written) == 5) {
					t.Errorf("coordinate shader writes %d words", len(want.Written))
				}
			}
		})
	}
}

func FuzzCompileAndLink(f *testing.F) {
	for _, s := range []string{vsFlat, vsPhong, fsFlat, fsTex, fsPhong,
		"void main(){ for(int i=0;i<3;i++){ if(i==1) discard; } gl_FragColor = vec4(1.0); }"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, st := range []Stage{Vertex, Fragment} {
			s := CompileShader(st, src)
			if !s.OK && s.Log == "" {
				t.Fatal("failure without a log")
			}
		}
		vs := CompileShader(Vertex, src)
		fs := CompileShader(Fragment, "precision mediump float; void main(){ gl_FragColor = vec4(1.0); }")
		if vs.OK {
			p := Link(vs, fs, nil)
			if p.OK {
				if _, err := p.BuildIR(ir.Vertex, Key{}); err != nil {
					t.Fatalf("BuildIR: %v", err)
				}
			}
		}
	})
}
