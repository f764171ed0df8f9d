package difftest

import (
	"slices"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/backend"
	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
)

// compileFragment runs the whole pipeline on a fragment shader from
// scratch (parse, lower, passes, backend).
func compileFragment(t *testing.T, src string, threaded bool) *backend.Binary {
	t.Helper()
	unit, errs := glsl.Parse(glsl.Fragment, src)
	if errs != nil {
		t.Fatalf("front end: %s", errs.InfoLog())
	}
	f, err := ir.FromAST(unit)
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Run(f, ir.Options{Layout: ir.SequentialLayout(f)}); err != nil {
		t.Fatal(err)
	}
	bin, err := backend.Compile(f, backend.Options{Stage: ir.Fragment, Threaded: threaded})
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return bin
}

// TestDeterministic compiles the same programs twice, each time from the
// source, and requires the same code and uniform stream: nothing in the
// lowering, the passes or the backend may depend on map iteration order
// or addresses. (Loop phis once followed Go's random map order, so a
// program could compile in one run and fail register allocation in the
// next.)
func TestDeterministic(t *testing.T) {
	n := int64(24)
	if testing.Short() {
		n = 8
	}
	for seed := int64(1); seed <= n; seed++ {
		opts := caseOptions(seed)
		opts.Statements = 32
		src := GenerateWith(seedBytes(seed), opts)
		for _, threaded := range []bool{false, true} {
			a := compileFragment(t, src, threaded)
			b := compileFragment(t, src, threaded)
			if !slices.Equal(a.Code, b.Code) || !slices.Equal(a.Uniforms, b.Uniforms) {
				t.Errorf("seed %d (threaded %v): two compilations differ\n%s", seed, threaded, src)
			}
		}
	}
}
