package backend

import (
	"flag"
	"path/filepath"
	"sort"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
	"github.com/tilegpu/tilegpu/compiler/glsl/deqptest"
	"github.com/tilegpu/tilegpu/compiler/ir"
)

var pressureReport = flag.Bool("pressure", false, "TestRegisterPressure: report register use, spills and instructions over the dEQP corpus and the bench shaders")

// pressureConfigs are the allocations TestRegisterPressure measures: all
// registers, a two-thread fragment shader (half files), and 8 registers per
// file (a limit at which the corpus' larger shaders spill, so that the
// effect of shorter live ranges shows as spill code).
var pressureConfigs = []struct {
	name string
	opts Options
}{{"unlimited", Options{}}, {"threaded", Options{Threaded: true}}, {"limit 8", Options{RegisterLimit: 8}}}

type pressureSum struct{ shaders, instructions, registers, spills, fills, temps int }

func (s *pressureSum) add(st Stats) {
	s.shaders++
	s.instructions += st.Instructions
	s.registers += st.Registers
	s.spills += st.Spills
	s.fills += st.Fills
	s.temps += st.Temps
}

// TestRegisterPressure (with -pressure) compiles every dEQP corpus shader
// and the bench shaders under each pressureConfigs allocation and logs the
// sums of instructions, registers used (distinct A/B), spill stores and
// fills: the figures the notes report before and after a scheduling
// change. It fails when a shader that lowers does not compile.
//
//	go test -run TestRegisterPressure -v ./compiler/backend -args -pressure
func TestRegisterPressure(t *testing.T) {
	if !*pressureReport {
		t.Skip("measurement; run with -args -pressure")
	}
	var funcs []*ir.Func
	files, _ := filepath.Glob(filepath.Join(deqpDir, "*.test"))
	sort.Strings(files)
	for _, file := range files {
		cases, err := deqptest.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			if c.Expect != deqptest.Pass && c.Expect != deqptest.BuildSuccessful {
				continue
			}
			for _, prog := range c.Programs() {
				for si, src := range []string{prog.Vertex, prog.Fragment} {
					stage := []glsl.Stage{glsl.Vertex, glsl.Fragment}[si]
					if f := lowerQuiet(stage, src); f != nil {
						funcs = append(funcs, f)
					}
				}
			}
		}
	}
	nDEQP := len(funcs)
	for _, b := range benchShaders {
		funcs = append(funcs, lowerGLSL(t, b.stage, b.src))
	}
	for _, cfg := range pressureConfigs {
		var deqp pressureSum
		for i, f := range funcs {
			opts := cfg.opts
			opts.Stage = f.Stage
			opts.Threaded = opts.Threaded && f.Stage == ir.Fragment
			bin, err := Compile(f, opts)
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			if i < nDEQP {
				deqp.add(bin.Stats)
				continue
			}
			st := bin.Stats
			t.Logf("%s, bench %s: %d instructions, %d registers, %d spills + %d fills",
				cfg.name, benchShaders[i-nDEQP].name, st.Instructions, st.Registers, st.Spills, st.Fills)
		}
		t.Logf("%s, dEQP corpus: %d shaders, %d instructions, %d registers, %d spills + %d fills, %d temps",
			cfg.name, deqp.shaders, deqp.instructions, deqp.registers, deqp.spills, deqp.fills, deqp.temps)
	}
}

// lowerQuiet lowers src to scalar IR, or returns nil if the front end or
// the IR passes reject it (the corpus has such cases; TestDEQPShaders
// counts them).
func lowerQuiet(stage glsl.Stage, src string) *ir.Func {
	tu, errs := glsl.Parse(stage, src)
	if len(errs) > 0 {
		return nil
	}
	f, err := ir.FromAST(tu)
	if err == nil {
		err = ir.Run(f, ir.Options{Layout: ir.SequentialLayout(f)})
	}
	if err != nil {
		return nil
	}
	return f
}
