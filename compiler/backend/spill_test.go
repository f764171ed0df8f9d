package backend

import (
	"fmt"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
)

// manyLive keeps n values live at once, then folds them.
func manyLive(x *fb, n int, seed *ir.Instr) *ir.Instr {
	vals := make([]*ir.Instr, n)
	for i := range vals {
		vals[i] = x.op(ir.OpFAdd, ir.Float, seed, x.b.ConstF(float32(i)*1.25))
	}
	acc := vals[0]
	for i := 1; i < n; i++ {
		acc = x.op(ir.OpFMul, ir.Float, x.op(ir.OpFAdd, ir.Float, acc, vals[i]), x.b.ConstF(0.5))
	}
	return acc
}

func TestE2ESpills(t *testing.T) {
	for _, limit := range []int{0, 8, 4, 2} {
		t.Run(fmt.Sprint("limit=", limit), func(t *testing.T) {
			x := newFB(ir.Fragment)
			v0, v1 := x.varying(0), x.varying(1)
			a := manyLive(x, 30, v0)
			// a loop whose phis and body keep many values live
			n := x.op(ir.OpIAnd, ir.Int, x.op(ir.OpFToI, ir.Int, x.op(ir.OpFAbs, ir.Float, v1)), x.b.ConstI(3))
			z := x.b.ConstI(0)
			l := x.b.Loop()
			pi := x.b.Phi(ir.Int, z, nil)
			pa := x.b.Phi(ir.Float, a, nil)
			pb := x.b.Phi(ir.Float, v1, nil)
			l.Phis = []*ir.Instr{pi, pa, pb}
			old := x.b.SetList(&l.Body)
			na := manyLive(x, 12, pa)
			c := x.op(ir.OpFLt, ir.Bool, pb, x.b.ConstF(0))
			nb := x.ifElse(c, func() *ir.Instr {
				return x.op(ir.OpFAdd, ir.Float, manyLive(x, 8, pb), na)
			}, func() *ir.Instr { return x.op(ir.OpFSub, ir.Float, pb, x.b.ConstF(1)) })
			ni := x.op(ir.OpIAdd, ir.Int, pi, x.b.ConstI(1))
			l.Cond = x.op(ir.OpILt, ir.Bool, ni, n)
			pi.Args[1], pa.Args[1], pb.Args[1] = ni, pb, nb // pa takes pb: a phi feeding a phi
			x.b.SetList(old)
			x.out(0, pa)
			x.out(1, pb)
			x.out(2, a)
			bin := check(t, x.f, Options{Stage: ir.Fragment, RegisterLimit: limit}, laneEnv(2))
			if limit > 0 && limit <= 4 && bin.Stats.Spills == 0 {
				t.Fatalf("RegisterLimit %d but no spills", limit)
			}
			if limit > 0 && bin.ScratchBytesPerThread != uint32(64*bin.Stats.SpillSlots) {
				t.Fatalf("ScratchBytesPerThread %d for %d slots", bin.ScratchBytesPerThread, bin.Stats.SpillSlots)
			}
			t.Logf("limit %d: %+v", limit, bin.Stats)
		})
	}
}

func TestE2EThreaded(t *testing.T) {
	x := newFB(ir.Fragment)
	v0 := x.varying(0)
	x.out(0, manyLive(x, 40, v0))
	bin := check(t, x.f, Options{Stage: ir.Fragment, Threaded: true}, laneEnv(1))
	t.Logf("%+v", bin.Stats)
}

// TestSpillConvergesInFewRounds: with far more values live at once than
// registers (here about 140 for 35 in a two-thread shader: an unrolled
// loop inside a loop, the difftest reproducer of a non-converging
// allocation), one colouring round must spill what the whole colouring
// needs. RegAlloc used to spill one temp per round, because each failing
// node counted a neighbour already chosen for spilling as freeing its
// register, and gave up after 100 rounds.
func TestSpillConvergesInFewRounds(t *testing.T) {
	const src = `precision highp float;
varying vec4 va;
varying vec4 vb;
uniform vec4 u;
void main() {
  vec4 acc = vec4(0.0);
  vec4 f1 = vb.yxyy + step(vec4(-4.0, 100.0, 100.0, 1.0), mix(va.yxzx, u.yywx, va.wzwy));
  int i2 = 2;
  int i4 = int(clamp(vb.w, 0.0, 5.0));
  int i5 = 0;
  do {
    i5++;
    i2 = int(vb.z) / -4;
    int i6 = int(clamp(vb.x - va.w, 0.0, 5.0));
    for (int i7 = 0; i7 < 6; i7++) {
      if (i7 >= i6) break;
      f1 = sin(mix(vec4(-0.75, 2.0, -4.0, 0.0), u.xzxz, f1)) / (abs(pow(abs(f1.w) + 0.25, clamp(va.w, -3.0, 3.0))) + 0.5);
      acc.xyzw += vb.zwxy;
    }
  } while (i5 < i4);
  acc.z += f1.x + f1.y + f1.z + f1.w;
  acc.w += float(i2);
  gl_FragColor = acc;
}`
	f := lowerGLSL(t, glsl.Fragment, src)
	for _, threaded := range []bool{true, false} {
		p, err := Select(f, Options{Stage: ir.Fragment, Threaded: threaded})
		if err != nil {
			t.Fatal(err)
		}
		if err := RegAlloc(p, Options{Stage: ir.Fragment, Threaded: threaded}); err != nil {
			t.Fatalf("threaded=%v: %v", threaded, err)
		}
		if p.AllocRounds > 4 {
			t.Errorf("threaded=%v: %d colouring rounds (%d spills)", threaded, p.AllocRounds, p.Spills)
		}
		t.Logf("threaded=%v: %d rounds, %d spills, %d fills", threaded, p.AllocRounds, p.Spills, p.Fills)
		env := laneEnv(8)
		env.Storage = make([]uint32, 16)
		for i := range env.Storage {
			env.Storage[i] = fbits(float32(i%5)*0.5 - 1)
		}
		check(t, f, Options{Stage: ir.Fragment, Threaded: threaded}, env)
	}
}

// TestSmallRegisterLimitsCompile compiles random programs with textures
// at register limit 1 (five allocatable values besides r4): before
// texture batches were bounded by the registers the allocator has, two
// batched fetches with their coordinates and the scratch base needed more
// than that, and seeds -2976 and -2904 failed with "nothing left to
// spill".
func TestSmallRegisterLimitsCompile(t *testing.T) {
	for s := int64(-3000); s < -2900; s++ {
		fn := randomProgram(s, int(uint64(s*7919)%80)+1)
		for _, lim := range []int{1, 2} {
			if _, err := Compile(fn, Options{Stage: ir.Fragment, RegisterLimit: lim}); err != nil {
				t.Errorf("seed %d, register limit %d: %v", s, lim, err)
			}
		}
	}
}
