package glsl

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl/deqptest"
)

// deqpDir is the dEQP GLES2 shader library carried by the repository
// (testdata/deqp-gles2, Apache-2.0: see its LICENSE, NOTICE and SOURCE).
const deqpDir = "../../testdata/deqp-gles2"

// TestDEQPShaderLibrary compiles and links every case of the dEQP GLES2
// shader library and checks the outcome against its expectation.
func TestDEQPShaderLibrary(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(deqpDir, "*.test"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no dEQP .test files in %s (%v)", deqpDir, err)
	}
	sort.Strings(files)
	total, passed, numCases := 0, 0, 0
	verbose := os.Getenv("DEQP_VERBOSE") != ""
	for _, file := range files {
		cases, err := deqptest.ParseFile(file)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		n, ok := 0, 0
		numCases += len(cases)
		for i := range cases {
			c := &cases[i]
			for _, prog := range c.Programs() {
				n++
				got, log := outcome(prog)
				want := c.Expect
				if want == deqptest.BuildSuccessful {
					want = deqptest.Pass
				}
				if got == want {
					ok++
					continue
				}
				t.Errorf("%s: %s.%s: got %v, want %v\n%s", filepath.Base(file), c.Group, prog.Name, got, c.Expect, log)
				if verbose {
					t.Logf("VS:\n%s\nFS:\n%s", prog.Vertex, prog.Fragment)
				}
			}
		}
		t.Logf("%-36s %4d / %4d", filepath.Base(file), ok, n)
		total += n
		passed += ok
	}
	t.Logf("%-36s %4d / %4d programs from %d cases", "total", passed, total, numCases)
	// The corpus (data/gles2/shaders at commit c57d29f97) has 1,443 cases.
	if numCases != 1443 {
		t.Errorf("parsed %d cases, want 1443", numCases)
	}
}

func outcome(prog deqptest.Program) (deqptest.Expect, string) {
	vs, verrs := Parse(Vertex, prog.Vertex)
	fs, ferrs := Parse(Fragment, prog.Fragment)
	if verrs != nil || ferrs != nil {
		return deqptest.CompileFail, "VS: " + verrs.InfoLog() + "FS: " + ferrs.InfoLog()
	}
	if lerrs := Link(vs, fs); lerrs != nil {
		return deqptest.LinkFail, lerrs.InfoLog()
	}
	return deqptest.Pass, ""
}
