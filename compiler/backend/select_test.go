package backend

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/ir"
)

func TestSelectOps(t *testing.T) {
	tests := []struct {
		op   ir.Op
		typ  ir.Type
		args int
		want []string // substrings of the QIR listing, in order
	}{
		{ir.OpFAdd, ir.Float, 2, []string{"fadd t2, t0, t1"}},
		{ir.OpFMul, ir.Float, 2, []string{"fmul t2, t0, t1"}},
		{ir.OpIShr, ir.Int, 2, []string{"asr t2, t0, t1"}},
		{ir.OpUShr, ir.Int, 2, []string{"shr t2, t0, t1"}},
		{ir.OpFFract, ir.Float, 1, []string{"ffract t1, t0"}},
		{ir.OpRcp, ir.Float, 1, []string{"mov sfu_recip, t0", "mov t1, r4"}},
		{ir.OpLog2, ir.Float, 1, []string{"mov sfu_log2, t0", "mov t1, r4"}},
		{ir.OpFLt, ir.Bool, 2, []string{"fsub.setf nop, t0, t1", "mov t2, 0", "mov.ifns t2, 1"}},
		// >=, == and != of values that may be infinite add the equal-
		// infinities correction (bits equal and FTOI ≠ 0; see
		// compareFlags): the result is where the corrected t3 is non-zero.
		{ir.OpFGe, ir.Bool, 2, []string{"fsub.setf nop, t0, t1", "mov t3, 0", "mov.ifzs t3, 1", "mov.ifcs t3, 1",
			"xor.setf nop, t0, t1", "ftoi t4, t0", "or.ifzs t3, t3, t4", "mov.setf nop, t3", "mov t2, 0", "mov.ifzc t2, 1"}},
		{ir.OpFEq, ir.Bool, 2, []string{"fsub.setf nop, t0, t1", "mov t3, 0", "mov.ifzs t3, 1",
			"xor.setf nop, t0, t1", "ftoi t4, t0", "or.ifzs t3, t3, t4", "mov.setf nop, t3", "mov t2, 0", "mov.ifzc t2, 1"}},
		{ir.OpFNe, ir.Bool, 2, []string{"fsub.setf", "mov t3, 0", "mov.ifzs t3, 1", "xor.setf", "ftoi", "or.ifzs", "mov.setf nop, t3",
			"mov t2, 0", "mov.ifzs t2, 1"}},
		{ir.OpIEq, ir.Bool, 2, []string{"xor.setf nop, t0, t1", "mov.ifzs t2, 1"}},
		{ir.OpILt, ir.Bool, 2, []string{"max t3, t0, t1", "xor.setf nop, t3, t0", "mov.ifzc t2, 1"}},
		{ir.OpIMul, ir.Int, 2, []string{"shr", "mul24", "shr", "mul24", "add", "shl", "mul24", "add t2"}},
		{ir.OpBNot, ir.Bool, 1, []string{"xor t1, t0, 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.op.String(), func(t *testing.T) {
			x := newFB(ir.Fragment)
			in := ir.Float
			if tc.typ.Base == ir.BaseInt || tc.op == ir.OpILt || tc.op == ir.OpIEq {
				in = ir.Int
			}
			if tc.op == ir.OpBNot {
				in = ir.Bool
			}
			var args []*ir.Instr
			for i := 0; i < tc.args; i++ {
				args = append(args, x.uniform(i, in))
			}
			v := x.op(tc.op, tc.typ, args...)
			if tc.typ.Base == ir.BaseBool {
				// two uses: the comparison is materialised, not fused
				x.out(1, x.op(ir.OpSelect, ir.Float, v, x.b.ConstF(2), x.b.ConstF(0)))
				v = x.op(ir.OpSelect, ir.Float, v, x.b.ConstF(1), x.b.ConstF(0))
			} else if tc.typ.Base == ir.BaseInt {
				v = x.op(ir.OpIToF, ir.Float, v)
			}
			x.out(0, v)
			// a second use of every input keeps its uniform read a
			// separate instruction (single-use reads fold into their user)
			for i, a := range args {
				if a.Type.Base == ir.BaseInt {
					a = x.op(ir.OpIToF, ir.Float, a)
				}
				if a.Type.Base == ir.BaseFloat {
					x.out(2+i, a)
				}
			}
			mustVerify(t, x.f)
			p, err := Select(x.f, Options{Stage: ir.Fragment})
			if err != nil {
				t.Fatal(err)
			}
			text := p.String()
			if tc.op == ir.OpBNot {
				// the bool uniform is normalised first (t0 → t1), so shift names
				text = strings.ReplaceAll(text, "xor t2, t1, 1", "xor t1, t0, 1")
			}
			at := 0
			for _, w := range tc.want {
				i := strings.Index(text[at:], w)
				if i < 0 {
					t.Fatalf("missing %q (in order) in\n%s", w, text)
				}
				at += i + len(w)
			}
		})
	}
}

func TestSelectFusesCompareIntoSelect(t *testing.T) {
	x := newFB(ir.Fragment)
	a, b := x.uniform(0, ir.Float), x.uniform(1, ir.Float)
	// >= with a finite constant needs no infinity correction.
	c := x.op(ir.OpFGe, ir.Bool, a, x.b.ConstF(0.75))
	x.out(0, x.op(ir.OpSelect, ir.Float, c, a, b))
	mustVerify(t, x.f)
	p, err := Select(x.f, Options{Stage: ir.Fragment})
	if err != nil {
		t.Fatal(err)
	}
	text := p.String()
	// t0: the constant (selected where the IR has it); t1, t2: the
	// uniforms, read at their first use, the select.
	for _, w := range []string{"fsub.setf nop, t1, t0", "mov t3, t2", "mov.ifzs t3, t1", "mov.ifcs t3, t1"} {
		if !strings.Contains(text, w) {
			t.Fatalf("missing %q in\n%s", w, text)
		}
	}
	if strings.Contains(text, "mov.setf") {
		t.Fatalf("fused select still tests a bool:\n%s", text)
	}
}

func TestSelectFoldsSingleUseUniform(t *testing.T) {
	x := newFB(ir.Fragment)
	u, w := x.uniform(0, ir.Float), x.uniform(1, ir.Float)
	v := x.varying(0)
	x.out(0, x.op(ir.OpFMul, ir.Float, v, u))
	x.out(1, w)
	x.out(2, w)
	mustVerify(t, x.f)
	p, err := Select(x.f, Options{Stage: ir.Fragment})
	if err != nil {
		t.Fatal(err)
	}
	text := p.String()
	// The varying is read where it is used, so it folds into the fmul too.
	for _, want := range []string{"mov t1, unif [u1]", "fmul t0, vary, unif [u0]"} {
		if !strings.Contains(text, want) {
			t.Fatalf("missing %q in\n%s", want, text)
		}
	}
}

func TestSelectHoistsUniformsInOrder(t *testing.T) {
	x := newFB(ir.Fragment)
	v := x.varying(0)
	c := x.op(ir.OpFLt, ir.Bool, v, x.b.ConstF(0.5))
	ph := x.ifElse(c, func() *ir.Instr {
		return x.op(ir.OpFMul, ir.Float, v, x.uniform(7, ir.Float))
	}, func() *ir.Instr {
		return x.op(ir.OpFAdd, ir.Float, v, x.uniform(3, ir.Float))
	})
	x.out(0, ph)
	mustVerify(t, x.f)
	p, err := Select(x.f, Options{Stage: ir.Fragment})
	if err != nil {
		t.Fatal(err)
	}
	// Both uniform reads are in the entry block, before the varying read,
	// in program order.
	var got []uint32
	for _, in := range p.Blocks[0].Insts {
		if in.Uniform >= 0 {
			got = append(got, p.UniformTable[in.Uniform].Index)
		}
	}
	if len(got) != 2 || got[0] != 7 || got[1] != 3 {
		t.Fatalf("entry block uniform reads %v, want [7 3]\n%s", got, p)
	}
	for _, b := range p.Blocks[1:] {
		for _, in := range b.Insts {
			if in.Uniform >= 0 {
				t.Fatalf("uniform read outside the entry block: %v", in)
			}
		}
	}
}

func TestSelectTextureInLoopResetsUniforms(t *testing.T) {
	for _, inLoop := range []bool{false, true} {
		x := newFB(ir.Fragment)
		s := x.varying(0)
		tex := func(coord *ir.Instr) *ir.Instr {
			in := x.f.NewInstr(ir.OpTexture, ir.Vec4, coord, coord)
			in.Index = 2
			x.b.Add(in)
			return x.b.EmitIndex(ir.OpExtract, ir.Float, 0, in)
		}
		var r *ir.Instr
		if inLoop {
			l := x.b.Loop()
			ph := x.b.Phi(ir.Float, s, nil)
			l.Phis = []*ir.Instr{ph}
			old := x.b.SetList(&l.Body)
			nx := tex(ph)
			l.Cond = x.op(ir.OpFLt, ir.Bool, nx, x.b.ConstF(0.25))
			ph.Args[1] = nx
			x.b.SetList(old)
			r = ph
		} else {
			r = tex(s)
		}
		x.out(0, r)
		mustVerify(t, x.f)
		p, err := Select(x.f, Options{Stage: ir.Fragment})
		if err != nil {
			t.Fatal(err)
		}
		if p.ResetUniforms != inLoop {
			t.Fatalf("inLoop=%v: ResetUniforms=%v", inLoop, p.ResetUniforms)
		}
		text := p.String()
		if got := strings.Contains(text, "unif_addr"); got != inLoop {
			t.Fatalf("inLoop=%v: UNIFORMS_ADDRESS write present=%v\n%s", inLoop, got, text)
		}
		if countLines(text, "ldtmu") != 4 || countLines(text, "tmu_s") != 1 {
			t.Fatalf("want one fetch with four pops:\n%s", text)
		}
	}
}

func TestSelectErrors(t *testing.T) {
	x := newFB(ir.Vertex)
	x.b.Emit(ir.OpDiscardIf, ir.Void, x.b.ConstB(true))
	if _, err := Select(x.f, Options{}); err == nil || !strings.Contains(err.Error(), "discard_if") {
		t.Fatalf("discard in a vertex shader: err = %v", err)
	}
	if _, err := Compile(x.f, Options{Stage: ir.Fragment}); err == nil {
		t.Fatal("stage mismatch accepted")
	}
}

// TestIfConditionFlags: a comparison used only as the condition of the If
// right after it sets the flags, and the flags set the execution mask
// directly (no 0/1 value, no xor); a top-level If skips Then by branching
// on the comparison's own flags. Every comparison, with and without Else,
// top-level and nested, must still compute what the interpreter does
// (NaN lanes included: varying 1 is 0 in some lanes, so 0/0 appears).
func TestIfConditionFlags(t *testing.T) {
	ops := []ir.Op{ir.OpFLt, ir.OpFGe, ir.OpFEq, ir.OpFNe, ir.OpILt, ir.OpIGe, ir.OpIEq, ir.OpINe}
	for _, op := range ops {
		for _, withElse := range []bool{false, true} {
			for _, nested := range []bool{false, true} {
				x := newFB(ir.Fragment)
				v0, v1 := x.varying(0), x.varying(1)
				a, b := x.op(ir.OpFMul, ir.Float, v0, x.op(ir.OpRcp, ir.Float, v1)), v1
				if op == ir.OpILt || op == ir.OpIGe || op == ir.OpIEq || op == ir.OpINe {
					a, b = x.op(ir.OpFToI, ir.Int, v0), x.op(ir.OpFToI, ir.Int, v1)
				}
				body := func() *ir.Instr {
					c := x.op(op, ir.Bool, a, b)
					return x.ifElse(c, func() *ir.Instr {
						return x.op(ir.OpFMul, ir.Float, x.op(ir.OpFAdd, ir.Float, v0, v1), v0)
					}, func() *ir.Instr {
						if withElse {
							return x.op(ir.OpFSub, ir.Float, v1, x.b.ConstF(3))
						}
						return v1
					})
				}
				var r *ir.Instr
				if nested {
					outer := x.op(ir.OpFLt, ir.Bool, v1, v0)
					x.out(1, x.op(ir.OpSelect, ir.Float, outer, x.b.ConstF(1), x.b.ConstF(0)))
					r = x.ifElse(outer, body, func() *ir.Instr { return v0 })
				} else {
					r = body()
				}
				x.out(0, r)
				mustVerify(t, x.f)
				p, err := Select(x.f, Options{Stage: ir.Fragment})
				if err != nil {
					t.Fatal(err)
				}
				listing := p.String()
				name := fmt.Sprintf("%v else=%v nested=%v", op, withElse, nested)
				if !nested {
					head := listing[:strings.Index(listing, "\tb.")]
					if strings.Contains(head, "xor t") {
						t.Errorf("%s: condition materialised before the If:\n%s", name, listing)
					}
					// (>=, == and != of values that may be infinite set
					// the flags from their corrected result.)
					if op != ir.OpFGe && op != ir.OpFEq && op != ir.OpFNe && strings.Contains(head, "mov.setf") {
						t.Errorf("%s: top-level If does not branch on the comparison's flags:\n%s", name, listing)
					}
				}
				env := laneEnv(2)
				for l := range env.Varyings {
					if l%5 == 0 {
						env.Varyings[l][1] = 0
					}
					if l%3 == 0 {
						env.Varyings[l][1] = env.Varyings[l][0]
					}
				}
				check(t, x.f, Options{Stage: ir.Fragment}, env)
			}
		}
	}
}

// TestLastThreadSwitch: in a two-thread fragment shader the thread switch
// of the last texture fetch is LAST_THRSW when every run executes it once
// and no switch follows it; a fetch in a loop may switch again, so then
// no switch is marked last.
func TestLastThreadSwitch(t *testing.T) {
	tests := []struct {
		name        string
		src         string
		thrsw, last int
	}{
		// Independent fetches are queued together (TMU pipelining): one
		// switch for both.
		{"two fetches", `precision mediump float; uniform sampler2D s; varying vec2 uv;
void main(){ gl_FragColor = texture2D(s, uv) + texture2D(s, uv.yx); }`, 0, 1},
		{"dependent fetches", `precision mediump float; uniform sampler2D s; varying vec2 uv;
void main(){ vec4 c = texture2D(s, uv); gl_FragColor = texture2D(s, c.xy); }`, 1, 1},
		{"fetch in an if", `precision mediump float; uniform sampler2D s; varying vec2 uv;
void main(){ vec4 c = texture2D(s, uv); if (uv.x > 0.5) c += texture2D(s, uv.yx) * c.x; gl_FragColor = c; }`, 1, 1},
		{"fetch in a loop", `precision mediump float; uniform sampler2D s; varying vec2 uv;
void main(){ vec4 c = texture2D(s, uv); float x = uv.x; while (x < 1.0) { c += texture2D(s, vec2(x)); x += 0.25 + abs(uv.y); } gl_FragColor = c; }`, 2, 0},
		{"no fetch", `precision mediump float; varying vec2 uv; void main(){ gl_FragColor = vec4(uv, 0.0, 1.0); }`, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := lowerGLSL(t, glsl.Fragment, tc.src)
			env := texEnv(laneEnv(2))
			env.Storage = make([]uint32, 8)
			bin := check(t, f, Options{Stage: ir.Fragment, Threaded: true}, env)
			dis := Disasm(bin.Code)
			thrsw, last := countLines(dis, "; thrsw"), countLines(dis, "; lthrsw")
			if last != tc.last || thrsw != tc.thrsw {
				t.Errorf("%d thrsw and %d lthrsw, want %d and %d:\n%s", thrsw, last, tc.thrsw, tc.last, dis)
			}
			// Single-threaded code switches no threads.
			single := check(t, f, Options{Stage: ir.Fragment}, env)
			if d := Disasm(single.Code); strings.Contains(d, "thrsw") {
				t.Errorf("single-threaded code switches threads:\n%s", d)
			}
		})
	}
}

// TestTextureFetchesPipelined: independent fetches of one block are queued
// together, at most four (the TMU FIFO's depth) before their results are
// popped; the code runs right (check compares with the IR interpreter) and
// Validate accepts it.
func TestTextureFetchesPipelined(t *testing.T) {
	src := `precision mediump float; uniform sampler2D s; varying vec2 uv;
void main(){
	vec4 a = texture2D(s, uv);
	vec4 b = texture2D(s, uv.yx);
	vec4 c = texture2D(s, uv * 0.5);
	vec4 d = texture2D(s, uv + 0.25);
	vec4 e = texture2D(s, uv - 0.25);
	gl_FragColor = a + b * c.x + d * e.y;
}`
	f := lowerGLSL(t, glsl.Fragment, src)
	env := texEnv(laneEnv(2))
	env.Storage = make([]uint32, 8)
	for _, threaded := range []bool{false, true} {
		bin := check(t, f, Options{Stage: ir.Fragment, Threaded: threaded}, env)
		// The longest run of requests before a pop is the FIFO depth.
		longest, run := 0, 0
		for _, line := range strings.Split(Disasm(bin.Code), "\n") {
			if strings.Contains(line, "tmu_s") {
				run++
				longest = max(longest, run)
			}
			if strings.Contains(line, "ldtmu") {
				run = 0
			}
		}
		if longest != 4 {
			t.Errorf("threaded=%v: %d requests queued at most before a pop, want 4:\n%s", threaded, longest, Disasm(bin.Code))
		}
	}
}
