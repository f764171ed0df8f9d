package ir

import (
	"math"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
)

// FuzzPipeline is differential: for any vertex shader that parses, the IR
// before the passes and after all of them (with Verify after each) must
// compute bit-identical outputs on the interpreter. Programs that index a
// uniform out of range are excluded (undefined in GLSL; the two forms read
// different memory).
func FuzzPipeline(f *testing.F) {
	for _, tc := range snippetCases {
		f.Add(tc.src)
	}
	f.Add(vsPhong)
	f.Add(vsFlat)
	f.Fuzz(func(t *testing.T, body string) {
		src := "attribute vec4 a;\nuniform vec4 u[4];\n" + body
		tu, errs := glsl.Parse(glsl.Vertex, src)
		if errs != nil {
			return
		}
		pre, err := FromAST(tu)
		if err != nil {
			return // an unsupported construct, reported as an error
		}
		if err := Verify(pre, FormAny); err != nil {
			t.Fatalf("lowering produced invalid IR: %v\n%s", err, Dump(pre))
		}
		dynamic := false
		for _, fn := range append([]*Func{pre}, pre.Funcs...) { // main and its callees
			fn.Walk(func(in *Instr) {
				if in.Op == OpLoadVar && len(in.Args) > 0 {
					dynamic = true
				}
			})
		}
		post, _ := FromAST(tu)
		lay := SequentialLayout(post)
		if err := Run(post, Options{Verify: true, Layout: lay}); err != nil {
			t.Fatalf("%v\n%s", err, Dump(post))
		}
		if dynamic {
			return
		}
		const lanes = 4
		envPre := &Env{Lanes: lanes, Vars: map[string][][]uint32{}, MaxIterations: 1000}
		envPost := &Env{Lanes: lanes, Storage: make([]uint32, 64), MaxIterations: 1000}
		var uni []uint32
		for i := 0; i < 16; i++ {
			uni = append(uni, FloatBits(float32(i)*0.75-3))
		}
		envPre.Vars["u"] = [][]uint32{uni}
		if base, ok := lay.Uniforms["u"]; ok {
			copy(envPost.Storage[base:], uni)
		}
		for l := 0; l < lanes; l++ {
			attr := make([]float32, 4*16)
			for _, v := range pre.Vars {
				if v.Kind != VarAttribute {
					continue
				}
				slot := lay.Attributes[v.Name]
				var vals []uint32
				for i := 0; i < v.Components; i++ {
					x := float32(l)*0.5 - 1.5 + float32(i*i)*0.25 + float32(slot)
					vals = append(vals, FloatBits(x))
					w := 4*slot + i
					if v.ColumnSize > 0 {
						w = 4*(slot+i/v.ColumnSize) + i%v.ColumnSize
					}
					attr[w] = x
				}
				envPre.Vars[v.Name] = append(envPre.Vars[v.Name], vals)
			}
			envPost.Attributes = append(envPost.Attributes, attr)
		}
		for _, v := range pre.Vars {
			if v.Kind == VarUniform && v.Name != "u" {
				return // other uniforms: not modelled here
			}
		}
		rPre, err := Interpret(pre, envPre)
		if err != nil {
			return // e.g. a loop over the iteration limit
		}
		rPost, err := Interpret(post, envPost)
		if err != nil {
			t.Fatalf("after passes: %v (before passes it ran)\n%s", err, Dump(post))
		}
		for l := 0; l < lanes; l++ {
			for c := 0; c < 4; c++ {
				var b uint32
				if v := rPre.Vars["gl_Position"]; v != nil {
					b = v[l][c]
				}
				a := rPost.Outputs[l][c]
				fb, fa := math.Float32frombits(b), math.Float32frombits(a)
				if b != a && !(fb != fb && fa != fa) {
					t.Fatalf("lane %d gl_Position.%d: %v before passes, %v after\n%s", l, c, fb, fa, Dump(post))
				}
			}
		}
	})
}
