package difftest

import (
	"math"
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
	return runLICMSource(t, licmSource, stop, in)
}

func runLICMSource(t *testing.T, src, stop string, in *Inputs) (*ir.Func, int, [4][Lanes]float32) {
	t.Helper()
	unit, errs := glsl.Parse(glsl.Fragment, src)
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

// licmIfSource has a loop whose body holds an If (too large to become
// selects) with invariant work inside it, under a nested If and in a
// nested loop: code LICM now hoists from anywhere in the body. (Trip
// counts are bounded: the inputs include infinities.)
const licmIfSource = `precision highp float;
varying vec4 va;
varying vec4 vb;
void main() {
	vec4 acc = vec4(0.0);
	float t = 0.0;
	while (t < min(abs(va.w), 3.0) * 2.0 + 1.0) {
		if (va.x > t - 2.0) {
			acc += normalize(va * 2.0 + vb) * exp2(vb.w) + normalize(va * t + vb.wzyx);
			if (vb.x > t - 1.0) { acc.x += log2(abs(va.y) + 1.0) * t; }
			float j = 0.0;
			while (j < min(abs(vb.z), 3.0)) { acc.y += inversesqrt(abs(vb.y) + 1.0); j += 1.0; }
		}
		t += 1.0;
	}
	gl_FragColor = acc;
}
`

// sameColors compares two batches' colours bit for bit, any NaN equal to
// any NaN.
func sameColors(a, b [4][Lanes]float32) bool {
	for c := range a {
		for l := range a[c] {
			x, y := a[c][l], b[c][l]
			if math.Float32bits(x) != math.Float32bits(y) && !(x != x && y != y) {
				return false
			}
		}
	}
	return true
}

// sfuInLoops counts the exp2 and log2 instructions inside loops.
func sfuInLoops(f *ir.Func) int {
	n := 0
	var visit func([]ir.Node, bool)
	visit = func(nodes []ir.Node, inLoop bool) {
		for _, nd := range nodes {
			switch nd := nd.(type) {
			case *ir.Block:
				for _, in := range nd.Instrs {
					if inLoop && (in.Op == ir.OpExp2 || in.Op == ir.OpLog2) {
						n++
					}
				}
			case *ir.If:
				visit(nd.Then, inLoop)
				visit(nd.Else, inLoop)
			case *ir.Loop:
				visit(nd.Body, true)
			}
		}
	}
	visit(f.Body, false)
	return n
}

// TestLICMHoistsFromIfs: invariant work under Ifs and in a nested loop
// leaves the loop; on hw/qpu the colours are bit-identical to the program
// without LICM, fewer instructions execute, and the program agrees with
// the interpreter (Check).
func TestLICMHoistsFromIfs(t *testing.T) {
	for seed := int64(0); seed < 4; seed++ {
		in := NewInputs(seed)
		_, before, colorBefore := runLICMSource(t, licmIfSource, "dce3", in)
		f, after, colorAfter := runLICMSource(t, licmIfSource, "", in)
		if n := sfuInLoops(f); n != 0 {
			t.Fatalf("%d exp2/log2 inside loops after LICM, want 0 (all are invariant):\n%s", n, ir.Dump(f))
		}
		if !sameColors(colorBefore, colorAfter) {
			t.Errorf("seed %d: colors differ:\nwithout LICM %v\nwith LICM    %v", seed, colorBefore, colorAfter)
		}
		t.Logf("seed %d: executed instructions: %d without LICM, %d with", seed, before, after)
		if after >= before {
			t.Errorf("seed %d: executed %d instructions with LICM, %d without: want fewer", seed, after, before)
		}
		if err := Check(licmIfSource, in); err != nil {
			t.Error(err)
		}
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
