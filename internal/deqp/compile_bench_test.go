package deqp

import (
	"testing"

	"github.com/tilegpu/tilegpu/compiler"
)

// BenchmarkCompileCorpus compiles every program of the dEQP corpus through
// the whole compiler — front end, linker, IR passes and back end for the
// vertex, coordinate and fragment stages — without running anything: the
// "compile time of the suite". Programs that must not build stop where they
// fail, as in a real run.
func BenchmarkCompileCorpus(b *testing.B) {
	files, err := Load(corpusDir)
	if err != nil {
		b.Fatal(err)
	}
	type pair struct{ vs, fs string }
	var progs []pair
	for _, f := range files {
		for i := range f.Cases {
			for _, p := range f.Cases[i].Programs() {
				progs = append(progs, pair{p.Vertex, p.Fragment})
			}
		}
	}
	b.ResetTimer()
	built := 0
	for i := 0; i < b.N; i++ {
		built = 0
		for _, p := range progs {
			vs := compiler.CompileShader(compiler.Vertex, p.vs)
			fs := compiler.CompileShader(compiler.Fragment, p.fs)
			if !vs.OK || !fs.OK {
				continue
			}
			prog := compiler.Link(vs, fs, nil)
			if !prog.OK {
				continue
			}
			if _, err := prog.Variant(compiler.Key{}); err != nil {
				b.Fatalf("variant: %v", err)
			}
			built++
		}
	}
	b.ReportMetric(float64(len(progs)), "programs")
	b.ReportMetric(float64(built), "built")
}
