package compiler

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
	"github.com/tilegpu/tilegpu/hw/qpu"
)

// TestLinkResourceLimits links programs at and just beyond each limit and
// checks Program.Resources and the link error. Activity is decided on the
// optimised IR, so a variable used only in dead code does not count.
func TestLinkResourceLimits(t *testing.T) {
	const fsPre = "precision mediump float;\n"
	const vsPlain = "void main(){ gl_Position = vec4(0.0); }"
	const fsPlain = fsPre + "void main(){ gl_FragColor = vec4(1.0); }"
	tests := []struct {
		name   string
		vs, fs string
		want   Resources
		err    string // substring of the log, "" for success
	}{
		{"phong", vsPhong, fsPhong, Resources{AttributeSlots: 2, VaryingVectors: 2, VertexUniformVectors: 8, FragmentUniformVectors: 2}, ""},
		{"tex", vsFlat, fsTex, Resources{AttributeSlots: 1, VaryingVectors: 1, FragmentSamplers: 1, CombinedSamplers: 1}, ""},
		{"16 attributes",
			"attribute mat4 m0, m1, m2; attribute vec4 a, b, c, d;\nvoid main(){ gl_Position = m0[0] + m1[1] + m2[2] + a + b + c + d; }", fsPlain,
			Resources{AttributeSlots: 16}, ""},
		{"17 attributes",
			"attribute mat4 m0, m1, m2; attribute vec4 a, b, c, d; attribute float e;\nvoid main(){ gl_Position = m0[0] + m1[1] + m2[2] + a + b + c + d + e; }", fsPlain,
			Resources{AttributeSlots: 17}, "take 17 locations (a matN takes N), more than GL_MAX_VERTEX_ATTRIBS = 16"},
		{"attribute only in dead code",
			"attribute mat4 m0, m1, m2; attribute vec4 a, b, c, d; attribute float e;\nvoid main(){ gl_Position = m0[0] + m1[1] + m2[2] + a + b + c + d; if (false) gl_Position.x = e; }", fsPlain,
			Resources{AttributeSlots: 16}, ""},
		{"16 varying vectors",
			"varying mat2 m[4]; varying vec3 p[8]; varying float f[8];\nvoid main(){ gl_Position = vec4(0.0); m[0] = mat2(1.0); p[0] = vec3(1.0); f[0] = 1.0; }",
			fsPre + "varying mat2 m[4]; varying vec3 p[8]; varying float f[8];\nvoid main(){ gl_FragColor = vec4(m[3][1], p[7].x, f[7]); }",
			Resources{VaryingVectors: 16}, ""},
		{"17 varying vectors",
			"varying mat2 m[4]; varying vec3 p[8]; varying vec2 q;\nvoid main(){ gl_Position = vec4(0.0); q = vec2(1.0); }",
			fsPre + "varying mat2 m[4]; varying vec3 p[8]; varying vec2 q;\nvoid main(){ gl_FragColor = vec4(m[3][1], p[7].x, q); }",
			Resources{VaryingVectors: 17}, "too many varyings: they do not pack into GL_MAX_VARYING_VECTORS = 16 vectors"},
		{"varying the fragment shader does not read",
			"varying vec4 v[16]; varying vec4 w;\nvoid main(){ gl_Position = vec4(0.0); v[0] = vec4(1.0); w = vec4(1.0); }",
			fsPre + "varying vec4 v[16]; varying vec4 w;\nvoid main(){ gl_FragColor = v[15]; }",
			Resources{VaryingVectors: 16}, ""},
		{"256 vertex uniform vectors",
			"uniform mat4 m[63]; uniform vec2 a[3]; uniform vec3 b;\nvoid main(){ gl_Position = m[0][0] + vec4(a[0], b.xy); }", fsPlain,
			Resources{VertexUniformVectors: 256}, ""},
		{"257 vertex uniform vectors",
			"uniform mat4 m[63]; uniform vec2 a[4]; uniform vec3 b;\nvoid main(){ gl_Position = m[0][0] + vec4(a[0], b.xy); }", fsPlain,
			Resources{VertexUniformVectors: 257}, "uniforms in the vertex shader: they do not pack into GL_MAX_VERTEX_UNIFORM_VECTORS = 256 vectors"},
		{"256 fragment uniform vectors and dead code",
			vsPlain, fsPre + "uniform vec4 u[256]; uniform vec4 w;\nvoid main(){ gl_FragColor = u[255]; if (false) gl_FragColor = w; }",
			Resources{FragmentUniformVectors: 256}, ""},
		{"257 fragment uniform vectors",
			vsPlain, fsPre + "uniform vec4 u[256]; uniform float w;\nvoid main(){ gl_FragColor = u[255] * w; }",
			Resources{FragmentUniformVectors: 257}, "GL_MAX_FRAGMENT_UNIFORM_VECTORS = 256"},
		{"uniform in both stages counts in both",
			"uniform mediump vec4 u[200];\nvoid main(){ gl_Position = u[1]; }", fsPre + "uniform vec4 u[200];\nvoid main(){ gl_FragColor = u[2]; }",
			Resources{VertexUniformVectors: 200, FragmentUniformVectors: 200}, ""},
		{"16 combined samplers",
			"uniform sampler2D s[8];\nvoid main(){ gl_Position = texture2DLod(s[7], vec2(0.0), 0.0); }",
			fsPre + "uniform sampler2D t[8];\nvoid main(){ gl_FragColor = texture2D(t[0], vec2(0.0)); }",
			Resources{VertexSamplers: 8, FragmentSamplers: 8, CombinedSamplers: 16}, ""},
		{"17 combined samplers (the unit table holds 32)",
			"uniform sampler2D s[8];\nvoid main(){ gl_Position = texture2DLod(s[7], vec2(0.0), 0.0); }",
			fsPre + "uniform sampler2D t[8]; uniform samplerCube c;\nvoid main(){ gl_FragColor = texture2D(t[0], vec2(0.0)) + textureCube(c, vec3(1.0)); }",
			Resources{VertexSamplers: 8, FragmentSamplers: 9, CombinedSamplers: 17}, ""},
		{"17 fragment samplers",
			"void main(){ gl_Position = vec4(0.0); }",
			fsPre + "uniform sampler2D t[16]; uniform samplerCube c;\nvoid main(){ gl_FragColor = texture2D(t[0], vec2(0.0)) + textureCube(c, vec3(1.0)); }",
			Resources{FragmentSamplers: 17, CombinedSamplers: 17}, "GL_MAX_TEXTURE_IMAGE_UNITS = 16"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vs, fs := CompileShader(Vertex, tc.vs), CompileShader(Fragment, tc.fs)
			if !vs.OK || !fs.OK {
				t.Fatalf("compile: %s%s", vs.Log, fs.Log)
			}
			p := Link(vs, fs, nil)
			if p.Resources != tc.want {
				t.Errorf("Resources = %+v, want %+v", p.Resources, tc.want)
			}
			if tc.err == "" {
				if !p.OK {
					t.Errorf("link failed: %s", p.Log)
				}
				return
			}
			if p.OK || !strings.Contains(p.Log, tc.err) {
				t.Errorf("OK=%v log %q, want a failure containing %q", p.OK, p.Log, tc.err)
			}
		})
	}
}

// TestLimitsMatchBuiltins checks that the gl_Max* constants a shader sees
// are the exported limits Link enforces.
func TestLimitsMatchBuiltins(t *testing.T) {
	fs := CompileShader(Fragment, `precision mediump float;
void main(){
  float a[gl_MaxVertexAttribs == 16 ? 1 : -1];
  float b[gl_MaxVaryingVectors == 16 ? 1 : -1];
  float c[gl_MaxVertexUniformVectors == 256 && gl_MaxFragmentUniformVectors == 256 ? 1 : -1];
  float d[gl_MaxTextureImageUnits == 16 && gl_MaxVertexTextureImageUnits == 16 && gl_MaxCombinedTextureImageUnits == 32 ? 1 : -1];
  gl_FragColor = vec4(1.0);
}`)
	if !fs.OK {
		t.Fatalf("gl_Max* constants differ from the exported limits: %s", fs.Log)
	}
	if glsl.MaxVertexAttribs != 16 || glsl.MaxVaryingVectors != 16 || glsl.MaxVertexUniformVectors != 256 ||
		glsl.MaxFragmentUniformVectors != 256 || MaxSamplers != glsl.MaxCombinedTextureImageUnits {
		t.Error("limits changed: update this test and docs")
	}
}

// TestSamplerArrayLoopIndexEndToEnd indexes a sampler array with loop
// indices (GLSL ES 1.00 Appendix A §5) and checks the fetched units on the
// shader core against values computed here.
func TestSamplerArrayLoopIndexEndToEnd(t *testing.T) {
	const vs = "attribute vec2 a_pos;\nvarying vec2 v_uv;\nvoid main(){ v_uv = a_pos; gl_Position = vec4(a_pos, 0.0, 1.0); }\n"
	const fs = `precision mediump float;
uniform sampler2D s[4];
varying vec2 v_uv;
void main(){
  vec4 c = vec4(0.0);
  for (int i = 0; i < 4; i++) c.x += texture2D(s[i], v_uv).x * float(i + 1);
  for (int i = 3; i >= 0; i -= 2) {
    if (v_uv.x > 0.3 && i == 1) break;
    c.y += texture2D(s[3 - i], v_uv).x;
  }
  c.z = texture2D(s[2], v_uv).y;
  gl_FragColor = c;
}`
	p := mustLink(t, vs, fs, nil)
	if len(p.Samplers) != 4 || p.Resources.FragmentSamplers != 4 {
		t.Fatalf("samplers %+v, resources %+v", p.Samplers, p.Resources)
	}
	v, err := p.Variant(Key{})
	if err != nil {
		t.Fatal(err)
	}
	units := []uint32{5, 2, 7, 3} // the unit each s[i] is set to
	env := &ir.Env{Lanes: 16, Storage: make([]uint32, p.StorageSize), StorageAddress: storageVA, Texture: texEnv}
	for i, smp := range p.Samplers {
		env.Storage[smp.Storage] = units[i]
	}
	for l := 0; l < 16; l++ {
		env.Varyings = append(env.Varyings, []float32{float32(l) / 32, 0.25})
	}
	b := runBinary(t, v.FS, qpu.StageFragment, env)
	for l := 0; l < 16; l++ {
		x := float32(l) / 32
		wantX := float32(5*1 + 2*2 + 7*3 + 3*4)
		wantY := float32(units[0]) // i = 3: s[0]
		if x <= 0.3 {
			wantY += float32(units[2]) // i = 1: s[2]
		}
		want := [3]float32{wantX, wantY, x} // texEnv/fakeSampler return (unit, s, t, 1)
		for c := range want {
			if got := b.Color[c][l]; math.Abs(float64(got-want[c])) > 1e-5 {
				t.Errorf("lane %d channel %d = %v, want %v", l, c, got, want[c])
			}
		}
	}
}

// TestHugeDeclarationsFailFast is issue 6 item 2: each of these made the
// compiler allocate gigabytes (15–20 GB for the first two) before it was
// killed, or compile "OK" with 1.2 GB and fail at link after 5.6 s. Each
// must fail glCompileShader within a second, allocating little, with an
// error at the declaration.
func TestHugeDeclarationsFailFast(t *testing.T) {
	tests := []struct {
		name, src, msg string
	}{
		{"dynamically indexed uniform", "uniform vec4 u[2147483647];\nuniform int i;\nvoid main(){ gl_Position = u[i]; }",
			"ERROR: 0:1: 'u' : uniform too large"},
		{"local array", "void main(){\nfloat a[100000000];\na[7] = 1.0; gl_Position = vec4(a[7]); }",
			"ERROR: 0:2: 'a' : variable too large"},
		{"uniform array", "uniform vec4 u[100000000];\nvoid main(){ gl_Position = u[5]; }",
			"ERROR: 0:1: 'u' : uniform too large"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			sh := CompileShader(Vertex, tc.src)
			d := time.Since(start)
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; d > time.Second || alloc > 16<<20 {
				t.Errorf("CompileShader took %v and allocated %d bytes", d, alloc)
			}
			if sh.OK || !strings.Contains(sh.Log, tc.msg) {
				t.Errorf("OK=%v, log %q, want a failure containing %q", sh.OK, sh.Log, tc.msg)
			}
		})
	}
}

// TestRegisterPressureBounded: the largest private arrays the front end
// accepts, dynamically indexed so that every element stays live, either
// compile or fail with a clear error, never exhausting memory (the
// register allocator's interference graph is bounded).
func TestRegisterPressureBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("uniform int k;\nvoid main(){ float r = 0.0;\n")
	for i := range 8 {
		fmt.Fprintf(&b, " float a%d[%d]; a%d[k] = float(%d); r += a%d[k + %d];\n", i, glsl.MaxPrivateComponents, i, i, i, i+1)
	}
	b.WriteString(" gl_Position = vec4(r); }\n")
	p := mustLink(t, b.String(), "precision mediump float;\nvoid main(){ gl_FragColor = vec4(1.0); }", nil)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := p.Variant(Key{})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "shader too complex") {
		t.Errorf("Variant: %v, want a 'shader too complex' error", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<30 {
		t.Errorf("Variant allocated %d MB", alloc>>20)
	}
}

// TestDeepNestingFailsCleanly: nesting beyond the parser's limit is a
// compile error at its line, never a stack overflow, and long flat chains
// (a left-deep AST) compile or fail with an error in bounded time (issue
// 10 "Limits").
func TestDeepNestingFailsCleanly(t *testing.T) {
	const n = 100000
	tests := []struct {
		name, src, want string // want: substring of the log; "" for success
	}{
		{"parentheses", "void main(){ float x = " + strings.Repeat("(", n) + "1.0" + strings.Repeat(")", n) + "; gl_Position = vec4(x); }", "nested too deeply"},
		{"blocks", "void main(){ " + strings.Repeat("{", n) + strings.Repeat("}", n) + " gl_Position = vec4(1.0); }", "nested too deeply"},
		{"ifs", "void main(){ float x = 1.0; " + strings.Repeat("if (x > 0.0) ", n) + "x = 2.0; gl_Position = vec4(x); }", "nested too deeply"},
		{"unary minus", "void main(){ float x = " + strings.Repeat("- ", n) + "1.0; gl_Position = vec4(x); }", "nested too deeply"},
		{"logical not", "void main(){ bool b = " + strings.Repeat("!", n) + "true; gl_Position = vec4(1.0); }", "nested too deeply"},
		{"assignments", "void main(){ float x = 1.0, y; " + strings.Repeat("y = ", n) + "x; gl_Position = vec4(y); }", "nested too deeply"},
		{"conditionals", "void main(){ float x = 1.0; float y = " + strings.Repeat("x > 0.0 ? 1.0 : ", n) + "x; gl_Position = vec4(y); }", "nested too deeply"},
		{"calls", "float f(float x){ return x; }\nvoid main(){ gl_Position = vec4(" + strings.Repeat("f(", n) + "1.0" + strings.Repeat(")", n) + "); }", "nested too deeply"},
		{"#if parentheses", "#if " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + "\n#endif\nvoid main(){ gl_Position = vec4(1.0); }", "nested too deeply"},
		{"#if prefix operators", "#if " + strings.Repeat("- ", n) + "1\n#endif\nvoid main(){ gl_Position = vec4(1.0); }", "nested too deeply"},
		{"long sum", "uniform float u;\nvoid main(){ float x = u" + strings.Repeat(" + u", 20000) + "; gl_Position = vec4(x); }", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			vs := CompileShader(Vertex, tc.src)
			if tc.want != "" {
				if vs.OK || !strings.Contains(vs.Log, tc.want) || !strings.HasPrefix(vs.Log, "ERROR: 0:") {
					t.Errorf("OK=%v log %.300q, want an error containing %q", vs.OK, vs.Log, tc.want)
				}
			} else {
				if !vs.OK {
					t.Fatalf("log %.300q", vs.Log)
				}
				p := mustLink(t, tc.src, "precision mediump float;\nvoid main(){ gl_FragColor = vec4(1.0); }", nil)
				if _, err := p.Variant(Key{}); err != nil {
					t.Errorf("Variant: %v", err)
				}
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}
