package qpu

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

var (
	nan  = f32(float32(math.NaN()))
	inf  = f32(float32(math.Inf(1)))
	ninf = f32(float32(math.Inf(-1)))
	negZ = uint32(0x80000000)
)

type opCase struct{ a, b, want uint32 }

// opTests: each case runs in its own lane; want NaN means "any NaN".
var opTests = []struct {
	op    string
	unit  string // "add" or "mul"
	unary bool
	cases []opCase
}{
	{"fadd", "add", false, []opCase{{f32(1), f32(2), f32(3)}, {inf, ninf, nan}, {nan, f32(1), nan}, {f32(3e38), f32(3e38), inf}, {negZ, negZ, negZ}, {negZ, 0, 0}}},
	{"fsub", "add", false, []opCase{{f32(1), f32(2), f32(-1)}, {inf, inf, nan}, {0, 0, 0}}},
	{"fmin", "add", false, []opCase{{f32(1), f32(2), f32(1)}, {f32(-1), f32(2), f32(-1)}, {nan, f32(1), f32(1)}, {f32(1), nan, f32(1)}, {nan, nan, nan}, {0, negZ, negZ}, {negZ, 0, negZ}, {ninf, f32(0), ninf}}},
	{"fmax", "add", false, []opCase{{f32(1), f32(2), f32(2)}, {nan, f32(1), f32(1)}, {f32(3), nan, f32(3)}, {0, negZ, 0}, {negZ, 0, 0}, {inf, f32(3), inf}}},
	{"fminabs", "add", false, []opCase{{f32(-1), f32(2), f32(1)}, {f32(-3), f32(2), f32(2)}}},
	{"fmaxabs", "add", false, []opCase{{f32(-1), f32(2), f32(2)}, {f32(-3), f32(2), f32(3)}, {ninf, 0, inf}}},
	{"ftoi", "add", true, []opCase{{a: f32(3.7), want: 3}, {a: f32(-3.7), want: 0xfffffffd}, {a: nan, want: 0}, {a: f32(1e10), want: 0x7fffffff}, {a: f32(-1e10), want: 0x80000000}, {a: inf, want: 0x7fffffff}, {a: negZ, want: 0}}},
	{"itof", "add", true, []opCase{{a: 5, want: f32(5)}, {a: 0xfffffffb, want: f32(-5)}, {a: 0x7fffffff, want: f32(2147483648)}}},
	{"add", "add", false, []opCase{{1, 2, 3}, {0xffffffff, 1, 0}, {0x7fffffff, 1, 0x80000000}}},
	{"sub", "add", false, []opCase{{1, 2, 0xffffffff}, {5, 3, 2}}},
	{"shr", "add", false, []opCase{{0x80000000, 31, 1}, {0x80000000, 33, 0x40000000}, {0xf0, 4, 0xf}}},
	{"asr", "add", false, []opCase{{0x80000000, 31, 0xffffffff}, {0x40000000, 30, 1}, {0xfffffff0, 36, 0xffffffff}}},
	{"ror", "add", false, []opCase{{1, 1, 0x80000000}, {0x12345678, 8, 0x78123456}, {5, 32, 5}}},
	{"shl", "add", false, []opCase{{1, 31, 0x80000000}, {1, 32, 1}, {3, 4, 0x30}}},
	{"min", "add", false, []opCase{{0xffffffff, 1, 0xffffffff}, {5, 3, 3}}},
	{"max", "add", false, []opCase{{0xffffffff, 1, 1}, {0x80000000, 0x7fffffff, 0x7fffffff}}},
	{"and", "add", false, []opCase{{0xff00ff00, 0x0ff00ff0, 0x0f000f00}}},
	{"or", "add", false, []opCase{{0xff00ff00, 0x0ff00ff0, 0xfff0fff0}}},
	{"xor", "add", false, []opCase{{0xff00ff00, 0x0ff00ff0, 0xf0f0f0f0}}},
	{"not", "add", true, []opCase{{a: 0, want: 0xffffffff}, {a: 0x0f0f0f0f, want: 0xf0f0f0f0}}},
	{"clz", "add", true, []opCase{{a: 0, want: 32}, {a: 1, want: 31}, {a: 0x80000000, want: 0}, {a: 0x00010000, want: 15}}},
	{"ffloor", "add", true, []opCase{{a: f32(-1.5), want: f32(-2)}, {a: f32(1.5), want: f32(1)}, {a: negZ, want: negZ}, {a: inf, want: inf}, {a: nan, want: nan}}},
	{"fceil", "add", true, []opCase{{a: f32(-1.5), want: f32(-1)}, {a: f32(1.2), want: f32(2)}}},
	{"ftrunc", "add", true, []opCase{{a: f32(-1.5), want: f32(-1)}, {a: f32(1.7), want: f32(1)}}},
	{"ffract", "add", true, []opCase{{a: f32(-1.25), want: f32(0.75)}, {a: f32(2.5), want: f32(0.5)}, {a: inf, want: nan}}},
	{"fsign", "add", true, []opCase{{a: f32(-7), want: f32(-1)}, {a: f32(0.1), want: f32(1)}, {a: negZ, want: 0}, {a: nan, want: 0}, {a: ninf, want: f32(-1)}}},
	{"fabs", "add", true, []opCase{{a: f32(-2), want: f32(2)}, {a: negZ, want: 0}, {a: ninf, want: inf}}},
	{"fneg", "add", true, []opCase{{a: f32(2), want: f32(-2)}, {a: 0, want: negZ}}},
	{"fmul", "mul", false, []opCase{{f32(1.5), f32(2), f32(3)}, {inf, 0, nan}, {f32(-2), f32(0), negZ}, {f32(1e30), f32(1e30), inf}}},
	{"fmulabs", "mul", false, []opCase{{f32(1.5), f32(-2), f32(-3)}}}, // hardware.md: behaves as FMUL
	{"mul24", "mul", false, []opCase{{3, 5, 15}, {0x1000003, 2, 6}, {0xffffff, 0xffffff, 0xfffffe000001 & 0xffffffff}}},
	{"mov", "mul", true, []opCase{{a: 0xdeadbeef, want: 0xdeadbeef}}},
}

func TestOps(t *testing.T) {
	for _, tt := range opTests {
		t.Run(tt.op, func(t *testing.T) {
			m := newFlatMem()
			b := newBatch(StageVertex)
			var av, bv [Lanes]uint32
			for l, c := range tt.cases {
				av[l], bv[l] = c.a, c.b
			}
			setIn(b, 0, av)
			setIn(b, 1, bv)
			operands := "r2, r0, r1"
			if tt.unary {
				operands = "r2, r0"
			}
			instr := tt.op + " " + operands + " ; nop"
			if tt.unit == "mul" {
				instr = "nop ; " + tt.op + " " + operands
			}
			mustRun(t, m, `
				nop ; mov r0, a.vpm
				nop ; mov r1, b.vpm
				`+instr+`
				nop ; mov vpm, r2
				nop ; nop ; end`, b)
			got := out(b, 0)
			for l, c := range tt.cases {
				if isNaN32(c.want) && isNaN32(got[l]) {
					continue
				}
				if got[l] != c.want {
					t.Errorf("%s(%#x, %#x) = %#x (%g), want %#x (%g)", tt.op, c.a, c.b, got[l],
						math.Float32frombits(got[l]), c.want, math.Float32frombits(c.want))
				}
			}
		})
	}
}

func TestDerivatives(t *testing.T) {
	for _, stage := range []Stage{StageFragment, StageVertex} {
		m := newFlatMem()
		b := newBatch(stage)
		var v [Lanes]uint32
		for l := range v {
			v[l] = f32(float32(l * l))
		}
		setIn(b, 0, v)
		mustRun(t, m, `
			nop ; mov r0, a.vpm
			fdx r1, r0 ; nop
			fdy r2, r0 ; nop
			nop ; mov vpm, r1
			nop ; mov vpm, r2
			nop ; nop ; end`, b)
		dx, dy := out(b, 0), out(b, 1)
		for l := 0; l < Lanes; l++ {
			wantX := float32((l|1)*(l|1) - (l&^1)*(l&^1))
			wantY := float32((l|2)*(l|2) - (l&^2)*(l&^2))
			if stage != StageFragment {
				wantX, wantY = 0, 0
			}
			if dx[l] != f32(wantX) || dy[l] != f32(wantY) {
				t.Errorf("stage %d lane %d: fdx %g fdy %g, want %g %g", stage, l,
					math.Float32frombits(dx[l]), math.Float32frombits(dy[l]), wantX, wantY)
			}
		}
	}
}

func TestFlagsAndConditions(t *testing.T) {
	m := newFlatMem()
	b := newBatch(StageVertex)
	// lane values: negative, zero, positive integers and floats
	var iv, fv [Lanes]uint32
	ints := []int32{-5, 0, 7, -1, 1}
	floats := []uint32{f32(-2), 0, f32(3), negZ, nan}
	for l := range iv {
		iv[l] = uint32(ints[l%5])
		fv[l] = floats[l%5]
	}
	setIn(b, 0, iv)
	setIn(b, 1, fv)
	// For each condition write 1 where it passes (r1 starts at 0).
	src := "nop ; mov r0, a.vpm\nnop ; mov r3, a.vpm\n"
	conds := []string{"never", "ifzs", "ifzc", "ifns", "ifnc", "ifcs", "ifcc"}
	for _, flagsFrom := range []string{"or.setf r2, r0, r0 ; nop", "fmax.setf r2, r3, r3 ; nop"} {
		src += flagsFrom + "\n"
		for _, c := range conds {
			src += "li r1, 0\nor." + c + " r1, r1, 1 ; nop\nnop ; mov vpm, r1\n"
		}
	}
	src += "nop ; nop ; end"
	mustRun(t, m, src, b)
	for set := 0; set < 2; set++ {
		for ci, c := range conds {
			got := out(b, set*len(conds)+ci)
			for l := 0; l < Lanes; l++ {
				var z, n, p bool
				if set == 0 {
					v := ints[l%5]
					z, n, p = v == 0, v < 0, v > 0
				} else {
					switch l % 5 {
					case 0:
						n = true
					case 1, 3: // +0, -0
						z = true
					case 2:
						p = true
					} // NaN: all clear
				}
				want := map[string]bool{"never": false, "ifzs": z, "ifzc": !z, "ifns": n, "ifnc": !n, "ifcs": p, "ifcc": !p}[c]
				if (got[l] == 1) != want {
					t.Errorf("flags from %s, .%s lane %d: wrote %v, want %v", []string{"int", "float"}[set], c, l, got[l] == 1, want)
				}
			}
		}
	}
}

func TestFlagsFromMulAndLoadImm(t *testing.T) {
	m := newFlatMem()
	b := newBatch(StageVertex)
	mustRun(t, m, `
		li.setf r0, -3                        # N set from the immediate
		li r1, 0
		or.ifns r1, r1, 1 ; nop
		nop ; fmul.setf r2, r0, 0.0            # int -3 as float is NaN: clears all... -3 = 0xfffffffd is NaN
		or.ifns r1, r1, 2 ; nop
		nop ; mov.setf r3, elem_num             # int: lane 0 zero, others positive
		or.ifzs r1, r1, 4 ; nop
		nop ; mov vpm, r1
		nop ; nop ; end`, b)
	got := out(b, 0)
	if got[0] != 5 || got[1] != 1 {
		t.Errorf("lanes 0,1 = %d,%d; want 5,1", got[0], got[1])
	}
}

func TestDualIssueReadsBeforeWrites(t *testing.T) {
	m := newFlatMem()
	b := newBatch(StageVertex)
	mustRun(t, m, `
		li r0, 1
		li r1, 2
		li ra3, 10
		add r0, r1, r0 ; mov r1, r0         # swap-like: r0 = 3, r1 = old r0 = 1
		add ra3, ra3, 1 ; mov rb3, ra3      # rb3 gets the old ra3
		nop ; mov vpm, r0
		nop ; mov vpm, r1
		or ra4, ra3, ra3 ; mov r2, rb3
		nop ; mov vpm, ra4
		nop ; mov vpm, r2
		nop ; nop ; end`, b)
	want := []uint32{3, 1, 11, 10}
	for k, w := range want {
		if got := out(b, k)[5]; got != w {
			t.Errorf("output %d = %d, want %d", k, got, w)
		}
	}
}

func TestSmallAndLoadImmediatesAndACC5(t *testing.T) {
	m := newFlatMem()
	b := newBatch(StageVertex)
	mustRun(t, m, `
		li r0, 0x40400000                       # 3.0
		nop ; fmul r1, r0, 0.5
		add r2, elem_num, -16 ; nop
		add r5, elem_num, 7 ; nop                # r5 = lane 0's value in every lane
		nop ; mov vpm, r1
		nop ; mov vpm, r2
		nop ; mov vpm, r5
		nop ; nop ; end`, b)
	for l := 0; l < Lanes; l++ {
		if got := out(b, 0)[l]; got != f32(1.5) {
			t.Errorf("fmul by 0.5 lane %d = %#x", l, got)
		}
		if got := out(b, 1)[l]; got != uint32(l-16) {
			t.Errorf("add -16 lane %d = %#x", l, got)
		}
		if got := out(b, 2)[l]; got != 7 {
			t.Errorf("r5 lane %d = %d, want 7 (lane 0 broadcast)", l, got)
		}
	}
}

func TestPerLaneLoop(t *testing.T) {
	m := newFlatMem()
	b := newBatch(StageVertex)
	mustRun(t, m, `
		        nop ; mov r0, elem_num          # per-lane trip count
		        li r1, 0
		loop:   or.setf r2, r0, r0 ; nop        # Z: done, C: more to do
		        brr.allzs done
		        add.ifcs r1, r1, 2 ; nop
		        sub.ifcs r0, r0, 1 ; nop
		        brr loop
		done:   nop ; mov vpm, r1
		        nop ; nop ; end`, b)
	got := out(b, 0)
	for l := 0; l < Lanes; l++ {
		if got[l] != uint32(2*l) {
			t.Errorf("lane %d = %d, want %d", l, got[l], 2*l)
		}
	}
	if want := uint64(2 + 15*5 + 2 + 2); b.Instructions != want {
		t.Errorf("Instructions = %d, want %d", b.Instructions, want)
	}
}

func TestBranchConditions(t *testing.T) {
	tests := []struct {
		cond  string
		value string // per-lane source for the flags
		taken bool
	}{
		{"allzs", "a.nop", true}, {"allzs", "elem_num", false},
		{"allzc", "elem_num", false}, {"anyzs", "elem_num", true}, {"anyzc", "elem_num", true}, {"anyzc", "a.nop", false},
		{"allns", "elem_num", false}, {"allnc", "elem_num", true}, {"anyns", "elem_num", false}, {"anync", "elem_num", true},
		{"allcs", "elem_num", false}, {"allcc", "a.nop", true}, {"anycs", "elem_num", true}, {"anycc", "elem_num", true},
		{"always", "elem_num", true},
	}
	for _, tt := range tests {
		m := newFlatMem()
		b := newBatch(StageVertex)
		cond := "." + tt.cond
		if tt.cond == "always" {
			cond = ""
		}
		mustRun(t, m, fmt.Sprintf(`
			li r1, 1
			or.setf r0, %s, %s ; nop
			b%s skip
			li r1, 0
			skip: nop ; mov vpm, r1
			nop ; nop ; end`, tt.value, tt.value, cond), b)
		if taken := out(b, 0)[0] == 1; taken != tt.taken {
			t.Errorf("b.%s on %s: taken %v, want %v", tt.cond, tt.value, taken, tt.taken)
		}
	}
}

func TestCallAndReturn(t *testing.T) {
	m := newFlatMem()
	b := newBatch(StageVertex)
	mustRun(t, m, `
		        li r0, 1
		        b ra5, nop, sub       # call: link in ra5
		        add r0, r0, 4 ; nop
		        nop ; mov vpm, r0
		        nop ; nop ; end
		sub:    add r0, r0, 2 ; nop
		        b ra5+0               # return
		`, b)
	if got := out(b, 0)[3]; got != 7 {
		t.Errorf("r0 = %d, want 7", got)
	}
}

func TestSFUTiming(t *testing.T) {
	m := newFlatMem()
	b := newBatch(StageVertex)
	var x [Lanes]uint32
	for l := range x {
		x[l] = f32(4)
	}
	x[1] = f32(-1)
	setIn(b, 0, x)
	mustRun(t, m, `
		nop ; mov r0, a.vpm
		nop ; mov sfu_recip, r0
		nop ; mov r1, r4                   # too early: poison
		nop ; mov r2, r4                   # 1/x
		nop ; mov sfu_recipsqrt, r0
		nop ; nop
		nop ; mov r3, r4
		nop ; mov.ifzc sfu_exp2, elem_num  # no setf yet: Z clear, all lanes pass; lane 0 is 0.0
		nop ; nop
		nop ; mov ra1, r4
		li r0, 0x41000000                  # 8.0
		nop ; mov sfu_log2, r0
		nop ; nop
		nop ; mov ra2, r4
		nop ; mov vpm, r1
		nop ; mov vpm, r2
		nop ; mov vpm, r3
		nop ; mov vpm, ra1
		nop ; mov vpm, ra2
		nop ; nop ; end`, b)
	early, recip, rsqrt, exp, log := out(b, 0), out(b, 1), out(b, 2), out(b, 3), out(b, 4)
	if early[0] != poison {
		t.Errorf("r4 right after the SFU write = %#x, want poison %#x", early[0], poison)
	}
	if recip[0] != f32(0.25) || recip[1] != f32(-1) {
		t.Errorf("recip = %#x %#x", recip[0], recip[1])
	}
	if rsqrt[0] != f32(0.5) || !isNaN32(rsqrt[1]) {
		t.Errorf("recipsqrt = %#x %#x", rsqrt[0], rsqrt[1])
	}
	if exp[0] != f32(1) {
		t.Errorf("exp2(0) = %#x", exp[0])
	}
	if log[3] != f32(3) {
		t.Errorf("log2(8) = %#x", log[3])
	}
}

func TestSFUFailedLanesAndLDTMUOverride(t *testing.T) {
	m := newFlatMem()
	m.put32(dataVA, 42)
	b := newBatch(StageVertex)
	m.put32(unifVA, dataVA)
	mustRun(t, m, `
		or.setf r0, elem_num, elem_num ; nop  # Z in lane 0
		li r0, 0x40800000
		nop ; mov.ifzc sfu_recip, r0          # lane 0 fails: gets 0
		nop ; nop
		nop ; mov vpm, r4
		li r1, 0
		add tmu_addr, r1, a.unif ; nop        # direct load of 42 in all lanes
		nop ; mov sfu_recip, r0
		nop ; nop ; ldtmu                     # LDTMU overrides the pending SFU result
		nop ; mov vpm, r4
		nop ; nop
		nop ; mov vpm, r4
		nop ; nop ; end`, b)
	if got := out(b, 0); got[0] != 0 || got[1] != f32(0.25) {
		t.Errorf("conditional SFU = %#x %#x, want 0 and 0.25", got[0], got[1])
	}
	if got := out(b, 1); got[2] != 42 || out(b, 2)[2] != 42 {
		t.Errorf("after LDTMU r4 = %d then %d, want 42 twice", got[2], out(b, 2)[2])
	}
}

func TestUniformsVaryingsVPM(t *testing.T) {
	m := newFlatMem()
	m.put32(unifVA, 11, 22, 33, 44, unifVA+0x100)
	m.put32(unifVA+0x100, 99)
	b := newBatch(StageFragment)
	for l := 0; l < Lanes; l++ {
		b.Varyings[0*Lanes+l] = float32(l)
		b.Varyings[1*Lanes+l] = float32(100 + l)
		b.VPMIn[5*Lanes+l] = float32(-l)
	}
	mustRun(t, m, `
		nop ; mov vpm, a.unif                # 11
		add r0, a.unif, b.unif ; nop          # 22 + 33, A read first
		nop ; mov vpm, r0
		sub r0, a.unif, b.unif ; nop          # 44 - unifVA+0x100 (checks the order)
		nop ; mov vpm, r0
		li unif_addr, 0x14100                 # rewind the stream
		nop ; mov vpm, b.unif                 # 99
		nop ; mov vpm, a.vary
		nop ; mov vpm, b.vary
		li vpm_rd_setup, 5
		nop ; mov vpm, a.vpm
		li vpm_wr_setup, 12
		nop ; mov vpm, elem_num
		nop ; nop ; end`, b)
	if got := out(b, 0)[0]; got != 11 {
		t.Errorf("first uniform %d", got)
	}
	if got := out(b, 1)[7]; got != 55 {
		t.Errorf("two uniforms in one instruction: %d, want 55", got)
	}
	if got := out(b, 2)[7]; int32(got) != 44-int32(unifVA+0x100) {
		t.Errorf("A-then-B order: %d", int32(got))
	}
	if got := out(b, 3)[7]; got != 99 {
		t.Errorf("after UNIFORMS_ADDRESS: %d, want 99", got)
	}
	for l := 0; l < Lanes; l++ {
		if out(b, 4)[l] != f32(float32(l)) || out(b, 5)[l] != f32(float32(100+l)) {
			t.Fatalf("varyings lane %d: %v %v", l, b.VPMOut[4*Lanes+l], b.VPMOut[5*Lanes+l])
		}
		if out(b, 6)[l] != f32(float32(-l)) {
			t.Fatalf("VPM read setup lane %d: %v", l, b.VPMOut[6*Lanes+l])
		}
		if out(b, 12)[l] != uint32(l) {
			t.Fatalf("VPM write setup lane %d: %v", l, out(b, 12)[l])
		}
	}
}

func TestFragmentInputsAndTLB(t *testing.T) {
	m := newFlatMem()
	b := newBatch(StageFragment)
	b.QPUNumber = 3
	for l := 0; l < Lanes; l++ {
		b.FragX[l], b.FragY[l], b.FragZ[l], b.FragW[l] = float32(l)+0.5, float32(2*l)+0.5, 0.25, 2
		b.FrontFacing[l] = uint32(l & 1)
		b.PointS[l], b.PointT[l] = 0.125, 0.75
	}
	mustRun(t, m, `
		nop ; mov tlb_r, frag_x
		nop ; mov tlb_g, frag_y
		nop ; fmul tlb_b, frag_z, frag_w
		nop ; mov tlb_a, point_s
		nop ; mov tlb_z, point_t
		and.setf r0, front_facing, 1 ; nop
		or.ifzs tlb_kill, qpu_num, qpu_num ; nop   # kill back-facing lanes
		nop ; mov vpm, qpu_num
		nop ; nop ; end`, b)
	for l := 0; l < Lanes; l++ {
		if b.Color[0][l] != float32(l)+0.5 || b.Color[1][l] != float32(2*l)+0.5 || b.Color[2][l] != 0.5 || b.Color[3][l] != 0.125 {
			t.Errorf("lane %d colour %v %v %v %v", l, b.Color[0][l], b.Color[1][l], b.Color[2][l], b.Color[3][l])
		}
		if b.Z[l] != 0.75 {
			t.Errorf("lane %d Z %v", l, b.Z[l])
		}
	}
	if !b.ZWritten || b.Kill != 0x5555 {
		t.Errorf("ZWritten %v Kill %#x, want true 0x5555", b.ZWritten, b.Kill)
	}
	if out(b, 0)[0] != 3 {
		t.Errorf("QPU_NUMBER %d", out(b, 0)[0])
	}
	// Results are reset by the next Run.
	mustRun(t, m, "nop ; nop ; end", b)
	if b.ZWritten || b.Kill != 0 || b.Color[0][3] != 0 || b.Instructions != 1 {
		t.Errorf("results not reset: %v %#x %v %d", b.ZWritten, b.Kill, b.Color[0][3], b.Instructions)
	}
}

func TestThreadSwitchClobbersAccumulators(t *testing.T) {
	m := newFlatMem()
	b := newBatch(StageFragment)
	mustRun(t, m, `
		li r0, 5
		li ra0, 6
		nop ; nop ; thrsw
		nop ; mov vpm, r0
		nop ; mov vpm, ra0
		nop ; nop ; end`, b)
	if got := out(b, 0)[0]; got != poison {
		t.Errorf("r0 after THRSW = %#x, want poison", got)
	}
	if got := out(b, 1)[0]; got != 6 {
		t.Errorf("ra0 after THRSW = %d, want 6", got)
	}
}

func TestThreadHalves(t *testing.T) {
	m := newFlatMem()
	p := load(t, m, `
		add ra1, ra1, 1 ; nop
		nop ; mov vpm, ra1
		nop ; nop ; end`)
	c := NewCore(pagedMem{m})
	b := newBatch(StageFragment)
	b.Thread = 1
	if err := c.Run(p, b); err != nil {
		t.Fatal(err)
	}
	if !isNaN32(out(b, 0)[0]) {
		t.Errorf("undefined register read as %#x, want poison", out(b, 0)[0])
	}
	c.regs[17] = [Lanes]uint32{}  // thread 1's A1 is A17
	c.regs[1] = [Lanes]uint32{99} // thread 0's A1 must not be seen
	// Run poisons the registers a program names (A17 for thread 1), so
	// check the mapping through the register file itself.
	if err := c.Run(p, b); err != nil {
		t.Fatal(err)
	}
	if c.regs[1][0] != 99 {
		t.Errorf("thread 1 wrote thread 0's A1")
	}
	upper := load(t, m, `
		li ra20, 1
		nop ; nop ; end`)
	if !upper.UsesUpperRegisters() {
		t.Error("UsesUpperRegisters")
	}
	if err := c.Run(upper, b); err == nil || !strings.Contains(err.Error(), "thread 1") {
		t.Errorf("upper registers in thread 1: %v", err)
	}
	b.Thread = 0
	if err := c.Run(upper, b); err != nil {
		t.Error(err)
	}
}

func TestDirectLoadStore(t *testing.T) {
	for _, paged := range []bool{true, false} {
		m := newFlatMem()
		for k := uint32(0); k < 16; k++ {
			m.put32(dataVA+4*k, 1000+k)
		}
		m.put32(unifVA, dataVA, dataVA+0x100)
		src := `
			shl r0, elem_num, 2 ; nop
			add tmu_addr, r0, a.unif ; nop
			add r1, r0, a.unif ; nop
			nop ; nop ; ldtmu
			add tmu_stdata, r4, 1 ; nop
			or.setf r2, elem_num, elem_num ; nop
			or.ifzc tmu_staddr, r1, r1 ; nop      # lane 0 does not store
			nop ; nop ; end`
		p := load(t, m, src)
		var mem Mem = m
		if paged {
			mem = pagedMem{m}
		}
		b := newBatch(StageVertex)
		if err := NewCore(mem).Run(p, b); err != nil {
			t.Fatal(err)
		}
		if got := m.get32(dataVA + 0x100); got != 0 {
			t.Errorf("lane 0 stored %d", got)
		}
		for k := uint32(1); k < 16; k++ {
			if got := m.get32(dataVA + 0x100 + 4*k); got != 1001+k {
				t.Errorf("paged %v: stored[%d] = %d, want %d", paged, k, got, 1001+k)
			}
		}
	}
}

func TestFaults(t *testing.T) {
	tests := []struct {
		name  string
		unif  uint32
		src   string
		va    uint32
		write bool
	}{
		{"uniform", 0, "nop ; mov r0, a.unif\nnop ; nop ; end", 0xdead0000, false},
		{"direct load", 0x40, "li tmu_addr, 0x40\nnop ; nop ; ldtmu\nnop ; nop ; end", 0x40, false},
		{"store", 0, "li tmu_stdata, 1\nli tmu_staddr, 0x10008\nnop ; nop ; end", 0x10008, true},
		{"texture descriptor", 0x7000000, "li tmu_s, 0\nnop ; nop ; end", 0x7000000, false},
	}
	for _, tt := range tests {
		m := newFlatMem()
		m.put32(unifVA, tt.unif)
		b := newBatch(StageVertex)
		if tt.name == "uniform" {
			b.UniformsVA = 0xdead0000
		}
		err := runProgram(t, m, tt.src, b)
		var f *Fault
		if !errors.As(err, &f) {
			t.Errorf("%s: error %v, want *Fault", tt.name, err)
			continue
		}
		if f.VA != tt.va || f.Write != tt.write {
			t.Errorf("%s: fault %+v, want VA %#x write %v", tt.name, *f, tt.va, tt.write)
		}
	}
}

func TestRunErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"ldtmu empty", "nop ; nop ; ldtmu\nnop ; nop ; end", "empty TMU FIFO"},
		{"fifo overflow", strings.Repeat("li tmu_addr, 0x16000\n", 5) + "nop ; nop ; end", "FIFO depth 4"},
		{"end with results", "li tmu_addr, 0x16000\nnop ; nop ; end", "not popped"},
		{"vpm read range", "li vpm_rd_setup, 16\nnop ; mov r0, a.vpm\nnop ; nop ; end", "VPM read of input word 16"},
		{"vpm write range", "li vpm_wr_setup, 99\nnop ; mov vpm, r0\nnop ; nop ; end", "VPM write of output word 99"},
		{"varying range", strings.Repeat("nop ; mov r0, a.vary\n", 9) + "nop ; nop ; end", "VARYING read 8"},
		{"bad return", "li ra1, 0x10800\nb ra1+0\nnop ; nop ; end", "not a decoded instruction"},
	}
	for _, tt := range tests {
		m := newFlatMem()
		err := runProgram(t, m, tt.src, newBatch(StageFragment))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestStepLimit(t *testing.T) {
	m := newFlatMem()
	p := load(t, m, "loop: brr loop\nnop ; nop ; end")
	c := NewCore(m)
	c.StepLimit = 1000
	b := newBatch(StageVertex)
	err := c.Run(p, b)
	if err == nil || !strings.Contains(err.Error(), "step limit") {
		t.Fatalf("error %v, want step limit", err)
	}
	if b.Instructions != 1000 {
		t.Errorf("Instructions = %d", b.Instructions)
	}
}

func TestLoad(t *testing.T) {
	m := newFlatMem()
	// A jump over garbage, a target after END, a conditional branch.
	src := `
		    b over
		    .word 0x7000000000000000
		over: or.setf r0, elem_num, elem_num ; nop
		    brr.anyzs tail
		    nop ; nop ; end
		    .word 0x7000000000000000
		tail: nop ; mov vpm, elem_num
		    nop ; nop ; end
		    .word 0x7000000000000000`
	p := load(t, m, src)
	if p.Len() != 6 || p.Entry() != codeVA || p.Base() != codeVA || len(p.Code()) != 8 {
		t.Errorf("Len %d Entry %#x Base %#x code %d", p.Len(), p.Entry(), p.Base(), len(p.Code()))
	}
	b := newBatch(StageVertex)
	if err := NewCore(m).Run(p, b); err != nil {
		t.Fatal(err)
	}
	if out(b, 0)[9] != 9 {
		t.Error("branch to tail not taken")
	}
	// Errors
	if _, err := Load(m.fetch, codeVA+4); err == nil || !strings.Contains(err.Error(), "aligned") {
		t.Errorf("unaligned: %v", err)
	}
	if _, err := Load(m.fetch, codeVA+8); err == nil || !strings.Contains(err.Error(), "reserved signal") {
		t.Errorf("invalid word: %v", err)
	}
	var f *Fault
	if _, err := Load(m.fetch, 0x4000); !errors.As(err, &f) || f.VA != 0x4000 {
		t.Errorf("unmapped: %v", err)
	}
	// No END before the end of memory.
	m2 := newFlatMem()
	if _, err := Load(m2.fetch, memBase+memSize-16); !errors.As(err, &f) {
		t.Errorf("running off mapped memory: %v", err)
	}
}

func TestWriteSwapAndDirectWriteHazards(t *testing.T) {
	m := newFlatMem()
	b := newBatch(StageVertex)
	mustRun(t, m, `
		li r0, 2
		li r1, 3
		add rb1, r0, r1 ; mov ra1, r0       # ws: add writes B, mul writes A
		add r0, r0, r1 ; mov r1, r0          # mul reads the add's destination: old r0
		li ra2, 10
		add ra2, ra2, 1 ; mov rb2, ra2       # same through the register file
		or.ifzc r2, r0, r0 ; mov r3, r0      # conditional add (no setf yet: Z clear)
		nop ; mov vpm, rb1
		nop ; mov vpm, ra1
		nop ; mov vpm, r0
		nop ; mov vpm, r1
		nop ; mov vpm, ra2
		nop ; mov vpm, rb2
		nop ; mov vpm, r2
		nop ; nop ; lthrsw
		nop ; mov vpm, r3
		nop ; nop ; end`, b)
	want := []uint32{5, 2, 5, 2, 11, 10, 5, poison}
	for k, w := range want {
		if got := out(b, k)[9]; got != w {
			t.Errorf("output %d = %#x, want %#x", k, got, w)
		}
	}
}

func TestUndefinedRegistersArePoison(t *testing.T) {
	m := newFlatMem()
	b := newBatch(StageVertex)
	p := load(t, m, "nop ; mov vpm, ra7\nnop ; mov vpm, r2\nli ra7, 1\nnop ; nop ; end")
	c := NewCore(m)
	for run := 0; run < 2; run++ { // the second run must not see the first run's ra7
		if err := c.Run(p, b); err != nil {
			t.Fatal(err)
		}
		if out(b, 0)[0] != poison || out(b, 1)[0] != poison {
			t.Errorf("run %d: undefined ra7 %#x, r2 %#x, want poison", run, out(b, 0)[0], out(b, 1)[0])
		}
	}
}
