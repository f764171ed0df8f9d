package gles_test

import (
	"testing"

	"github.com/tilegpu/tilegpu/gl"
)

// dEQP-GLES2.functional.shaders.builtin_variable.depth_range_*: shaders
// read gl_DepthRange (near, far, diff), which follows glDepthRangef, and it
// is no active uniform of the program.
func TestBuiltinDepthRange(t *testing.T) {
	ctx, g := newStack(t, 4, 4, 1)
	for _, stage := range []string{"vertex", "fragment"} {
		vs := `attribute vec2 a_pos; varying vec4 v;
void main() { v = vec4(gl_DepthRange.near, gl_DepthRange.far, gl_DepthRange.diff, 1.0); gl_Position = vec4(a_pos, 0.0, 1.0); }`
		fs := `precision mediump float; varying vec4 v; void main() { gl_FragColor = v; }`
		if stage == "fragment" {
			vs = `attribute vec2 a_pos; void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }`
			fs = `precision mediump float; void main() { gl_FragColor = vec4(gl_DepthRange.near, gl_DepthRange.far, gl_DepthRange.diff, 1.0); }`
		}
		p := program(t, g, vs, fs)
		if n := g.GetProgrami(p, gl.ACTIVE_UNIFORMS); n != 0 {
			t.Errorf("%s: %d active uniforms, want 0 (gl_DepthRange is built-in state)", stage, n)
		}
		if l := g.GetUniformLocation(p, "gl_DepthRange.near"); l.Value != -1 {
			t.Errorf("%s: gl_DepthRange.near has location %d", stage, l.Value)
		}
		quad(g, -1, 1)
		g.DepthRangef(0.25, 0.75)
		g.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		checkGL(t, ctx, stage)
		if px := pixels(t, ctx, 4, 4); px[0] != 64 || px[1] != 191 || px[2] != 128 {
			t.Errorf("%s: gl_DepthRange read as %v, want 64,191,128 (0.25, 0.75, 0.5)", stage, px[:3])
		}
	}
}
