package gles_test

import (
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// TestMissingMainIsALinkError: glCompileShader checks one translation unit,
// which may define helper functions only; GLSL ES 1.00 section 7 asks for
// main in each shader of a linked program, so glLinkProgram reports its
// absence (issue 10).
func TestMissingMainIsALinkError(t *testing.T) {
	const helpersOnly = "float twice(float x) { return 2.0 * x; }\n"
	const vsMain = "attribute vec4 a_pos;\nvoid main() { gl_Position = a_pos; }\n"
	const fsMain = "precision mediump float;\nvoid main() { gl_FragColor = vec4(1.0); }\n"
	tests := []struct {
		name   string
		vs, fs string
		want   string
	}{
		{"vertex", helpersOnly, fsMain, "missing main in vertex shader"},
		{"fragment", vsMain, "precision mediump float;\n" + helpersOnly, "missing main in fragment shader"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, g := newStack(t, 16, 16, 1)
			p := g.CreateProgram()
			for _, s := range []struct {
				kind gl.Enum
				src  string
			}{{gl.VERTEX_SHADER, tc.vs}, {gl.FRAGMENT_SHADER, tc.fs}} {
				sh := g.CreateShader(s.kind)
				g.ShaderSource(sh, s.src)
				g.CompileShader(sh)
				if g.GetShaderi(sh, gl.COMPILE_STATUS) != 1 {
					t.Fatalf("COMPILE_STATUS false: %s", g.GetShaderInfoLog(sh))
				}
				g.AttachShader(p, sh)
			}
			g.LinkProgram(p)
			if g.GetProgrami(p, gl.LINK_STATUS) != 0 {
				t.Fatal("LINK_STATUS true without main")
			}
			if log := g.GetProgramInfoLog(p); !strings.Contains(log, tc.want) {
				t.Errorf("link log %q, want %q", log, tc.want)
			}
			if e := g.GetError(); e != gl.NO_ERROR {
				t.Errorf("GL error %#x", e)
			}
		})
	}
}
