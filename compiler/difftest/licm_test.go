package difftest

import (
	"testing"

	"github.com/tilegpu/tilegpu/compiler/backend"
	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
)

// licmSource has a loop with a per-lane trip count whose body computes
// a value of varyings alone (invariant) every iteration.
const licmSource = `precision highp float;
varying vec4 va;
varying vec4 vb;
void main() {
	vec3 acc = vec3(0.0);
	float t = 0.0;
	while (t < abs(va.w) * 4.0 + 1.0) {
		vec3 k = normalize(va.xyz * 2.0 + vb.xyz) * vb.w;
		acc += k * t;
		t += 1.0;
	}
	gl_FragColor = vec4(acc, t);
}
`

// runLICM compiles licmSource with the passes up to stop (all of them when
// stop is "") and runs it on hw/qpu, returning the batch.
func runLICM(t *testing.T, stop string, in *Inputs) (*ir.Func, int, [4][Lanes]float32) {
	t.Helper()
	unit, errs := glsl.Parse(glsl.Fragment, licmSource)
	if errs != nil {
		t.Fatal(errs.InfoLog())
	}
	f, err := ir.FromAST(unit)
	if err != nil {
		t.Fatal(err)
	}
	layout := ir.SequentialLayout(f)
	if err := ir.Run(f, ir.Options{Layout: layout, Stop: stop}); err != nil {
		t.Fatal(err)
	}
	bin, err := backend.Compile(f, backend.Options{Stage: ir.Fragment})
	if err != nil {
		t.Fatal(err)
	}
	b, err := execute(bin, in, loweredEnv(in, layout), 0)
	if err != nil {
		t.Fatal(err)
	}
	return f, int(b.Instructions), b.Color
}

// TestLICMRunsInvariantsOnce: the invariant normalisation leaves the loop
// (no rsq inside it), the results are bit-identical and the core executes
// fewer instructions.
func TestLICMRunsInvariantsOnce(t *testing.T) {
	in := NewInputs(7)
	_, before, colorBefore := runLICM(t, "dce3", in)
	f, after, colorAfter := runLICM(t, "", in)
	if colorBefore != colorAfter {
		t.Errorf("colors differ:\nwithout LICM %v\nwith LICM    %v", colorBefore, colorAfter)
	}
	loops, rsqInLoop := 0, 0
	var visit func([]ir.Node, bool)
	visit = func(nodes []ir.Node, inLoop bool) {
		for _, n := range nodes {
			switch n := n.(type) {
			case *ir.Block:
				for _, in := range n.Instrs {
					if inLoop && in.Op == ir.OpRsq {
						rsqInLoop++
					}
				}
			case *ir.If:
				visit(n.Then, inLoop)
				visit(n.Else, inLoop)
			case *ir.Loop:
				loops++
				visit(n.Body, true)
			}
		}
	}
	visit(f.Body, false)
	if loops != 1 || rsqInLoop != 0 {
		t.Errorf("%d loops, %d rsq inside a loop after LICM; want 1 and 0:\n%s", loops, rsqInLoop, ir.Dump(f))
	}
	t.Logf("executed instructions: %d without LICM, %d with", before, after)
	if after >= before {
		t.Errorf("executed %d instructions with LICM, %d without: want fewer", after, before)
	}
	if err := Check(licmSource, in); err != nil {
		t.Error(err)
	}
}

// TestStrengthReducedOnHardware: integer products by constants (now shifts
// and adds) on uniform and per-lane ints, over ordinary and extreme inputs
// (ints near 2^31), agree between the IR and the machine code.
func TestStrengthReducedOnHardware(t *testing.T) {
	const src = `precision highp float;
uniform int ui;
varying vec4 va;
void main() {
	int x = int(va.x * 64.0) + ui;
	int a = x * 8 + x * 24 - x * 7;
	int b = x * 65536 + x * -4 + x * 1073741825;
	int c = x * 11;
	gl_FragColor = vec4(float(a), float(b / 65536), float(c), float(x * 16777216 / 16777216));
}
`
	for seed := int64(0); seed < 60; seed++ {
		if err := Check(src, NewInputs(seed)); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}
