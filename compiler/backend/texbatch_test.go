package backend

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
)

// tmuRuns returns the longest run of texture requests (TMU_S writes)
// before a pop, and the number of thread switches, in code.
func tmuRuns(code []uint64) (longest, switches int) {
	run := 0
	for _, line := range strings.Split(Disasm(code), "\n") {
		if strings.Contains(line, "tmu_s") {
			run++
			longest = max(longest, run)
		}
		if strings.Contains(line, "ldtmu") {
			run = 0
		}
		if strings.Contains(line, "thrsw") {
			switches++
		}
	}
	return longest, switches
}

// TestTextureBatchInLoop: fetches in a loop rewind the uniform stream
// (each TMU_S write is preceded by its own UNIFORMS_ADDRESS write); they
// are now queued together too, three requests before the first pop and
// one thread switch per iteration instead of three. The program agrees
// with the interpreter (the validator runs in Compile), threaded or not
// and at low register limits.
func TestTextureBatchInLoop(t *testing.T) {
	f := lowerGLSL(t, glsl.Fragment, `precision highp float;
uniform sampler2D s;
uniform sampler2D s2;
uniform float n;
varying vec2 uv;
void main() {
	vec4 acc = vec4(0.0);
	float i = 0.0;
	while (i < n) {
		acc += texture2D(s, uv + vec2(i, 0.0)) + texture2D(s2, uv * i) * texture2D(s, uv.yx - i).x;
		i += 1.0;
	}
	gl_FragColor = acc + texture2D(s2, uv);
}`)
	for seed := int64(0); seed < 3; seed++ {
		env := deqpEnv(f, seed)
		for _, opts := range []Options{{Stage: ir.Fragment}, {Stage: ir.Fragment, Threaded: true},
			{Stage: ir.Fragment, RegisterLimit: 4}, {Stage: ir.Fragment, RegisterLimit: 2, Threaded: true}} {
			bin := check(t, f, opts, env)
			if opts.RegisterLimit != 0 {
				continue
			}
			longest, switches := tmuRuns(bin.Code)
			if longest != 3 {
				t.Errorf("%+v: %d requests queued at most before a pop, want 3:\n%s", opts, longest, bin.Listing)
			}
			if want := 2; opts.Threaded && switches != want {
				t.Errorf("%+v: %d thread switches, want %d (one per batch):\n%s", opts, switches, want, bin.Listing)
			}
		}
	}
}

// TestTextureBatchPastEffects: output writes and discards between two
// fetches of a block no longer end the batch (they touch neither the TMU
// nor the uniform stream).
func TestTextureBatchPastEffects(t *testing.T) {
	x := newFB(ir.Fragment)
	a, b := x.varying(0), x.varying(1)
	tex := func(unit int, s, t *ir.Instr) *ir.Instr {
		in := x.f.NewInstr(ir.OpTexture, ir.Vec4, s, t)
		in.Index = unit
		return x.b.Add(in)
	}
	t0 := tex(0, a, b)
	r0 := x.b.EmitIndex(ir.OpExtract, ir.Float, 0, t0)
	x.out(0, a)
	x.b.Emit(ir.OpDiscardIf, ir.Void, x.op(ir.OpFLt, ir.Bool, b, x.b.ConstF(-3)))
	t1 := tex(1, b, a)
	r1 := x.b.EmitIndex(ir.OpExtract, ir.Float, 1, t1)
	x.out(1, r0)
	x.out(2, r1)
	x.out(3, x.op(ir.OpFAdd, ir.Float, r0, r1))
	env := texEnv(laneEnv(2))
	env.Storage = make([]uint32, 4)
	for _, threaded := range []bool{false, true} {
		bin := check(t, x.f, Options{Stage: ir.Fragment, Threaded: threaded}, env)
		longest, switches := tmuRuns(bin.Code)
		if longest != 2 {
			t.Errorf("threaded=%v: %d requests queued at most before a pop, want 2:\n%s", threaded, longest, bin.Listing)
		}
		if threaded && switches != 1 {
			t.Errorf("%d thread switches, want 1:\n%s", switches, bin.Listing)
		}
	}
}

// TestTextureBatchAtLowRegisterLimits: a batch of four fetches defines
// sixteen results. Spilled, each is stored as soon as it is popped (inside
// the batch: stores do not use the FIFO), and a value several requests
// read is filled once; before, the sixteen were all live at the batch's
// end and allocation failed below six registers per file.
func TestTextureBatchAtLowRegisterLimits(t *testing.T) {
	f := lowerGLSL(t, glsl.Fragment, `precision mediump float;
uniform sampler2D s;
varying vec2 uv;
void main() {
	vec4 a = texture2D(s, uv);
	vec4 b = texture2D(s, uv.yx);
	vec4 c = texture2D(s, uv * 0.5);
	vec4 d = texture2D(s, uv + 0.25);
	gl_FragColor = a * b * c * d;
}`)
	env := deqpEnv(f, 1)
	for limit := 2; limit <= 6; limit++ {
		for _, threaded := range []bool{false, true} {
			t.Run(fmt.Sprintf("limit=%d/threaded=%v", limit, threaded), func(t *testing.T) {
				bin := check(t, f, Options{Stage: ir.Fragment, Threaded: threaded, RegisterLimit: limit}, env)
				// At limit 2 (7 registers) a batch takes at most 5 distinct
				// operands (textureBatch): three of these fetches.
				want := 4
				if limit == 2 {
					want = 3
				}
				if longest, _ := tmuRuns(bin.Code); longest != want {
					t.Errorf("%d requests queued at most, want %d", longest, want)
				}
			})
		}
	}
}
