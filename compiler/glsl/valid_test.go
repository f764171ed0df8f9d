package glsl

import "testing"

func TestValidBig(t *testing.T) {
	vs := `
attribute vec4 pos; attribute vec2 uv;
uniform mat4 mvp;
struct Light { vec3 dir; float k[2]; };
uniform Light lights[2];
varying vec2 v_uv; varying float v_l[2];
struct P { vec3 d; float w; };
P make(vec3 d) { P p = P(d, 1.0); p.w = .5; return p; }
float sum(float a[2]) { return a[0] + a[1]; }
void bump(inout float x, out float y) { x += 1.0; y = x * 2.; }
void main() {
	precision lowp float;
	Light l; l.dir = make(vec3(1.0, float(0x1F), 1e2)).d; l.k[0] = 1.0; l.k[1] = make(l.dir).w;
	mat2 m = mat2(vec4(1.0));
	vec4 col = vec4(m);
	m[0].xy = m[1].yx; m++; m = -m;
	float y;
	bump(l.k[1], y);
	for (int i = 0; i < 2; i++) { v_l[i] = lights[i].dir.x + sum(l.k) + float(i); if (i == 1) break; else continue; }
	bool b = bool(2.0) && int(true) == 1;
	Light l2 = b ? l : l;
	v_uv = uv.yx * vec2(l2.k[0]);
	gl_Position = mvp * pos + col;
	gl_PointSize = 1.0;
}`
	fs := `
precision mediump float;
uniform sampler2D tex; uniform samplerCube cube;
struct S { sampler2D t; vec2 o; };
uniform S s;
varying vec2 v_uv; varying float v_l[2];
vec4 look(sampler2D t, vec2 c) { return texture2D(t, c); }
void main() {
	vec4 c = look(tex, v_uv) + textureCube(cube, vec3(v_uv, 1.0)) + texture2D(s.t, s.o) + texture2DProj(tex, vec3(1.0));
	if (c.a < 0.5) discard;
	int n = 3; while (n > 0) { n--; }
	do { n++; } while (n < 2);
	gl_FragData[0] = c * v_l[1] + gl_FragCoord + vec4(gl_PointCoord, float(gl_FrontFacing), gl_DepthRange.far);
}`
	v, errs := Parse(Vertex, vs)
	if errs != nil {
		t.Fatal(errs.InfoLog())
	}
	f, errs := Parse(Fragment, fs)
	if errs != nil {
		t.Fatal(errs.InfoLog())
	}
	if errs := Link(v, f); errs != nil {
		t.Fatal(errs.InfoLog())
	}
}
