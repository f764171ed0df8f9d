package gles_test

import (
	"fmt"
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// dEQP-GLES2.functional.attribute_location.bind_aliasing.*: two attributes
// bound to one location link (ES 2.0 §2.10.4 allows aliasing) and both
// read that location's array.
func TestAttributeAliasing(t *testing.T) {
	ctx, g := newStack(t, 4, 4, 1)
	vs := `attribute vec2 a_pos; attribute float a_f; attribute vec4 a_v; uniform bool u_first; varying vec4 v;
void main() { v = u_first ? vec4(a_f, 0.0, 0.0, 1.0) : a_v; gl_Position = vec4(a_pos, 0.0, 1.0); }`
	fs := `precision mediump float; varying vec4 v; void main() { gl_FragColor = v; }`
	p := g.CreateProgram()
	for _, s := range []struct {
		ty  gl.Enum
		src string
	}{{gl.VERTEX_SHADER, vs}, {gl.FRAGMENT_SHADER, fs}} {
		sh := g.CreateShader(s.ty)
		g.ShaderSource(sh, s.src)
		g.CompileShader(sh)
		g.AttachShader(p, sh)
	}
	g.BindAttribLocation(p, gl.Attrib{Value: 0}, "a_pos")
	g.BindAttribLocation(p, gl.Attrib{Value: 1}, "a_f")
	g.BindAttribLocation(p, gl.Attrib{Value: 1}, "a_v")
	g.LinkProgram(p)
	if g.GetProgrami(p, gl.LINK_STATUS) == 0 {
		t.Fatalf("aliased attributes do not link: %s", g.GetProgramInfoLog(p))
	}
	g.UseProgram(p)
	quad(g, -1, 1)
	g.VertexAttrib4f(gl.Attrib{Value: 1}, 0.5, 1, 0, 1)
	for _, tc := range []struct {
		first bool
		want  [3]byte
	}{{true, [3]byte{128, 0, 0}}, {false, [3]byte{128, 255, 0}}} {
		g.Uniform1i(g.GetUniformLocation(p, "u_first"), map[bool]int{false: 0, true: 1}[tc.first])
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		px := pixels(t, ctx, 4, 4)
		if [3]byte(px[:3]) != tc.want {
			t.Errorf("u_first %v: pixel %v, want %v", tc.first, px[:3], tc.want)
		}
	}
}

// dEQP-GLES2.functional.attribute_location.bind_aliasing.max_cond_*: 32
// attributes aliased in pairs on all 16 locations link and read their
// location's array.
func TestAttributeAliasingAllLocations(t *testing.T) {
	ctx, g := newStack(t, 4, 4, 1)
	vs := "attribute vec2 a_pos; uniform bool u_first; varying vec4 v;\n"
	sum := ""
	for i := 1; i < 16; i++ {
		vs += fmt.Sprintf("attribute vec4 a%d; attribute vec4 b%d;\n", i, i)
		sum += fmt.Sprintf(" + (u_first ? a%d : b%d)", i, i)
	}
	vs += "void main() { v = vec4(0.0)" + sum + "; gl_Position = vec4(a_pos, 0.0, 1.0); }"
	fs := `precision mediump float; varying vec4 v; void main() { gl_FragColor = v; }`
	p := g.CreateProgram()
	for _, s := range []struct {
		ty  gl.Enum
		src string
	}{{gl.VERTEX_SHADER, vs}, {gl.FRAGMENT_SHADER, fs}} {
		sh := g.CreateShader(s.ty)
		g.ShaderSource(sh, s.src)
		g.CompileShader(sh)
		g.AttachShader(p, sh)
	}
	g.BindAttribLocation(p, gl.Attrib{Value: 0}, "a_pos")
	for i := 1; i < 16; i++ {
		g.BindAttribLocation(p, gl.Attrib{Value: uint(i)}, fmt.Sprintf("a%d", i))
		g.BindAttribLocation(p, gl.Attrib{Value: uint(i)}, fmt.Sprintf("b%d", i))
	}
	g.LinkProgram(p)
	if g.GetProgrami(p, gl.LINK_STATUS) == 0 {
		t.Fatalf("31 attributes aliased on 16 locations do not link: %s", g.GetProgramInfoLog(p))
	}
	g.UseProgram(p)
	quad(g, -1, 1)
	for i := 1; i < 16; i++ {
		g.VertexAttrib4f(gl.Attrib{Value: uint(i)}, 0, 0, 0, 0)
	}
	g.VertexAttrib4f(gl.Attrib{Value: 15}, 0.5, 0.25, 0, 1)
	for _, first := range []bool{true, false} {
		g.Uniform1i(g.GetUniformLocation(p, "u_first"), map[bool]int{false: 0, true: 1}[first])
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		if px := pixels(t, ctx, 4, 4); px[0] != 128 || px[1] != 64 {
			t.Errorf("u_first %v: pixel %v, want 128,64 from location 15", first, px[:3])
		}
	}
	checkGL(t, ctx, "draw")
}
