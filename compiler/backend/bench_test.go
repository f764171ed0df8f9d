package backend

import (
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
)

// The shaders of shared/bench (SCENES.md, glbench.c).
var benchShaders = []struct {
	name  string
	stage glsl.Stage
	src   string
}{
	{"fill.vs", glsl.Vertex, `attribute vec2 a_pos; varying vec2 v_uv; void main(){ v_uv = a_pos*0.5+0.5; gl_Position = vec4(a_pos,0.0,1.0); }`},
	{"fill.fs", glsl.Fragment, `precision mediump float; uniform vec4 u_color; void main(){ gl_FragColor = u_color; }`},
	{"tex.fs", glsl.Fragment, `precision mediump float; uniform sampler2D u_tex; varying vec2 v_uv; void main(){ gl_FragColor = texture2D(u_tex, v_uv); }`},
	{"phong.vs", glsl.Vertex, `attribute vec3 a_pos;
attribute vec3 a_nrm;
uniform mat4 u_mvp;
uniform mat4 u_model;
varying vec3 v_nrm;
varying vec3 v_wpos;
void main(){
  vec4 w = u_model*vec4(a_pos,1.0);
  v_wpos = w.xyz;
  v_nrm = (u_model*vec4(a_nrm,0.0)).xyz;
  gl_Position = u_mvp*vec4(a_pos,1.0);
}`},
	{"phong.fs", glsl.Fragment, `precision highp float;
uniform vec3 u_light;
uniform vec3 u_eye;
varying vec3 v_nrm;
varying vec3 v_wpos;
void main(){
  vec3 n = normalize(v_nrm);
  vec3 l = normalize(u_light);
  vec3 v = normalize(u_eye - v_wpos);
  float d = max(dot(n,l),0.0);
  vec3 r = reflect(-l,n);
  float s = d > 0.0 ? pow(max(dot(r,v),0.0),32.0) : 0.0;
  vec3 c = vec3(0.1,0.1,0.12) + d*vec3(0.85,0.45,0.2) + s*vec3(1.0);
  gl_FragColor = vec4(c,1.0);
}`},
}

func lowerGLSL(t testing.TB, stage glsl.Stage, src string) *ir.Func {
	t.Helper()
	tu, errs := glsl.Parse(stage, src)
	if len(errs) > 0 {
		t.Fatalf("parse: %v", errs)
	}
	f, err := ir.FromAST(tu)
	if err != nil {
		t.Fatalf("lower: %v", err)
	}
	if err := ir.Run(f, ir.Options{Layout: ir.SequentialLayout(f), Verify: true}); err != nil {
		t.Fatalf("passes: %v", err)
	}
	return f
}

// TestBenchShaders compiles the benchmark shaders through the real front
// end, runs each on the shader core against the interpreter, and logs the
// instruction and spill counts.
func TestBenchShaders(t *testing.T) {
	for _, sh := range benchShaders {
		t.Run(sh.name, func(t *testing.T) {
			f := lowerGLSL(t, sh.stage, sh.src)
			env := laneEnv(8)
			env.Storage = make([]uint32, 64)
			for i := range env.Storage {
				env.Storage[i] = fbits(float32(i%7)*0.25 - 0.5)
			}
			for l := 0; l < 16; l++ {
				a := make([]float32, 16)
				for i := range a {
					a[i] = float32((l*7+i*3)%11)/5 - 1
				}
				env.Attributes = append(env.Attributes, a)
			}
			texEnv(env)
			for _, threaded := range []bool{false, true} {
				opts := Options{Stage: f.Stage, Threaded: threaded}
				bin := check(t, f, opts, env)
				t.Logf("%s threaded=%v: %d instructions (%d paired, %d nops), %d spills, %d fills, %d uniforms",
					sh.name, threaded && f.Stage == ir.Fragment, bin.Stats.Instructions, bin.Stats.PairedInstructions,
					bin.Stats.Nops, bin.Stats.Spills, bin.Stats.Fills, bin.Stats.Uniforms)
			}
		})
	}
}
