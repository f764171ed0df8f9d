package compiler

import (
	"path/filepath"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl/deqptest"
)

// BenchmarkCompileDEQPCorpus compiles, links and builds the default
// variant of every program of the repository's dEQP shader-library copy
// (testdata/deqp-gles2) that should build: one iteration is the whole
// corpus, the compile time a driver pays for it.
//
//	go test -run XXX -bench CompileDEQPCorpus -benchtime 5x ./compiler
func BenchmarkCompileDEQPCorpus(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "deqp-gles2", "*.test"))
	if len(files) == 0 {
		b.Fatal("no dEQP files in ../testdata/deqp-gles2")
	}
	var progs [][2]string
	for _, file := range files {
		cases, err := deqptest.ParseFile(file)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range cases {
			if c.Expect != deqptest.Pass && c.Expect != deqptest.BuildSuccessful {
				continue
			}
			for _, prog := range c.Programs() {
				progs = append(progs, [2]string{prog.Vertex, prog.Fragment})
			}
		}
	}
	b.ResetTimer()
	for b.Loop() {
		built := 0
		for _, pr := range progs {
			p := Link(CompileShader(Vertex, pr[0]), CompileShader(Fragment, pr[1]), nil)
			if !p.OK {
				continue
			}
			if _, err := p.Variant(Key{}); err == nil {
				built++
			}
		}
		b.ReportMetric(float64(built), "programs")
	}
}
