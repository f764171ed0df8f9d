package backend

import (
	"testing"

	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
)

// The shaders of shared/bench (SCENES.md, glbench.c), from the bench package.
var benchShaders = func() []struct {
	name  string
	stage glsl.Stage
	src   string
} {
	src := bench.Shaders()
	return []struct {
		name  string
		stage glsl.Stage
		src   string
	}{
		{"fill.vs", glsl.Vertex, src["VS_FLAT"]},
		{"fill.fs", glsl.Fragment, src["FS_FLAT"]},
		{"tex.fs", glsl.Fragment, src["FS_TEX"]},
		{"phong.vs", glsl.Vertex, src["VS_PHONG"]},
		{"phong.fs", glsl.Fragment, src["FS_PHONG"]},
	}
}()

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
