package difftest

import (
	"math"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
)

// preShaderSource uses every op class ir.HoistUniformExprs moves to the CPU
// (float add/sub/mul/min/max/abs/neg, floor/ceil/trunc/fract/sign,
// ftoi/itof, the SFU's recip/recipsqrt/exp2/log2, integer add/sub/shift/
// logic/min/max come from the lowering of these built-ins) on uniforms
// alone, mixed with per-lane varyings so the results are used per lane.
const preShaderSource = `precision highp float;
uniform vec4 u;
uniform vec4 ua;
uniform int ui;
varying vec4 va;
varying vec4 vb;
void main() {
	vec3 l = normalize(u.xyz);
	float a = u.x * ua.y + u.z - ua.w;
	float b = min(u.y, ua.x) + max(abs(u.w), -ua.z);
	float c = floor(u.x) + ceil(ua.y) + fract(u.z) + sign(ua.w) + float(int(u.y));
	float d = inversesqrt(abs(ua.x)) + exp2(u.w) + log2(abs(u.y)) + 1.0 / ua.z;
	float e = float(ui + 3) * float(ui - 7);
	gl_FragColor = vec4(dot(l, va.xyz), a * vb.x, b + c * vb.y, d - e * va.w);
}
`

// TestPreShaderExact runs preShaderSource through Check (which compares
// the machine code with and without the pre-shader bit for bit) over
// ordinary and extreme uniform values (±inf, NaN, ±0, ±max, denormals,
// ints near 2^31), and checks that the pre-shader really took the work.
func TestPreShaderExact(t *testing.T) {
	unit, errs := glsl.Parse(glsl.Fragment, preShaderSource)
	if errs != nil {
		t.Fatal(errs.InfoLog())
	}
	f, err := ir.FromAST(unit)
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Run(f, ir.Options{Layout: ir.SequentialLayout(f)}); err != nil {
		t.Fatal(err)
	}
	pre := ir.HoistUniformExprs(f, 0)
	ops := map[ir.Op]bool{}
	for _, op := range pre.Ops {
		ops[op.Op] = true
	}
	for _, op := range []ir.Op{ir.OpFMul, ir.OpFAdd, ir.OpFSub, ir.OpFMin, ir.OpFMax, ir.OpFAbs, ir.OpFFloor,
		ir.OpFCeil, ir.OpFFract, ir.OpFSign, ir.OpFToI, ir.OpIToF, ir.OpRsq, ir.OpRcp, ir.OpExp2, ir.OpLog2, ir.OpIAdd} {
		if !ops[op] {
			t.Errorf("pre-shader has no %v:\n%s", op, pre)
		}
	}
	for seed := int64(0); seed < 300; seed++ {
		in := NewInputs(seed)
		if seed%5 == 0 {
			// Uniforms straight from the extreme pool, all of them.
			for c := range in.U {
				in.U[c] = extremeFloats[(int(seed)/5+c)%len(extremeFloats)]
				in.UA[c] = extremeFloats[(int(seed)/5+3*c+1)%len(extremeFloats)]
			}
			in.UI = extremeInts[int(seed/5)%len(extremeInts)]
		}
		if err := Check(preShaderSource, in); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

// TestPreShaderSignedZero: −0 must reach the shader as −0 (1/−0 is −inf);
// an evaluator that lost the sign would be caught by the bit comparison.
func TestPreShaderSignedZero(t *testing.T) {
	src := `precision highp float;
uniform vec4 u;
varying vec4 va;
void main() { gl_FragColor = va * (1.0 / (-u.x)); }
`
	in := NewInputs(1)
	in.U[0] = 0
	if err := Check(src, in); err != nil {
		t.Fatal(err)
	}
	in.U[0] = float32(math.Copysign(0, -1))
	if err := Check(src, in); err != nil {
		t.Fatal(err)
	}
}

// TestGeneratedProgramsUsePreShader makes sure the random programs of
// TestCompileVsInterpret exercise checkPreShader: a fair share of them
// have uniform-only work.
func TestGeneratedProgramsUsePreShader(t *testing.T) {
	hoisted := 0
	const n = 100
	for seed := int64(0); seed < n; seed++ {
		unit, errs := glsl.Parse(glsl.Fragment, GenerateWith(seedBytes(seed), caseOptions(seed)))
		if errs != nil {
			continue
		}
		f, err := ir.FromAST(unit)
		if err != nil {
			continue
		}
		if err := ir.Run(f, ir.Options{Layout: ir.SequentialLayout(f)}); err != nil {
			continue
		}
		if ir.HoistUniformExprs(f, 0) != nil {
			hoisted++
		}
	}
	t.Logf("%d of %d generated programs have a pre-shader", hoisted, n)
	if hoisted < n/10 {
		t.Errorf("only %d of %d generated programs have a pre-shader", hoisted, n)
	}
}
