package compiler

import (
	"flag"
	"path/filepath"
	"sort"
	"testing"

	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/compiler/glsl/deqptest"
)

// deqpCorpus names a directory of dEQP GLES2 shader-library files whose
// instruction count TestCodeSize also reports. Tests read only the
// repository by default; the measurement for the README is
//
//	go test -run CodeSize -v ./compiler -args -deqp=$PWD/../shared/conformance/deqp-gles2
var deqpCorpus = flag.String("deqp", "", "also report the instruction count of the dEQP `DIR`'s programs")

// variantInstructions links vs and fs and returns the machine instructions
// of the default variant's three stages, or ok false when it does not build.
func variantInstructions(vsSrc, fsSrc string) (vsN, csN, fsN int, ok bool) {
	vs, fs := CompileShader(Vertex, vsSrc), CompileShader(Fragment, fsSrc)
	p := Link(vs, fs, nil)
	if !p.OK {
		return 0, 0, 0, false
	}
	v, err := p.Variant(Key{})
	if err != nil {
		return 0, 0, 0, false
	}
	return v.VS.Stats.Instructions, v.CS.Stats.Instructions, v.FS.Stats.Instructions, true
}

// TestCodeSize logs the instruction counts the README reports: each bench
// program's default variant and, with -deqp, the sum over every dEQP
// program that builds. It fails when a program that should build does not.
func TestCodeSize(t *testing.T) {
	src := bench.Shaders()
	for _, p := range []struct{ name, vs, fs string }{
		{"flat", src["VS_FLAT"], src["FS_FLAT"]},
		{"tex", src["VS_FLAT"], src["FS_TEX"]},
		{"phong", src["VS_PHONG"], src["FS_PHONG"]},
	} {
		vsN, csN, fsN, ok := variantInstructions(p.vs, p.fs)
		if !ok {
			t.Errorf("bench program %s does not build", p.name)
			continue
		}
		t.Logf("bench %s: VS %d, CS %d, FS %d instructions", p.name, vsN, csN, fsN)
	}
	if *deqpCorpus == "" {
		return
	}
	files, _ := filepath.Glob(filepath.Join(*deqpCorpus, "*.test"))
	if len(files) == 0 {
		t.Fatalf("no dEQP files in %s", *deqpCorpus)
	}
	sort.Strings(files)
	programs, sum := 0, 0
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
				vsN, csN, fsN, ok := variantInstructions(prog.Vertex, prog.Fragment)
				if !ok {
					t.Errorf("%s: %s.%s does not build", filepath.Base(file), c.Group, prog.Name)
					continue
				}
				programs++
				sum += vsN + csN + fsN
			}
		}
	}
	t.Logf("dEQP corpus: %d programs, %d instructions (VS+CS+FS of the default variant)", programs, sum)
}
