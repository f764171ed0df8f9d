package deqp

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/gl"
)

// corpusRuns is the number of runs in the shared corpus (19 files); a
// different count means the corpus or the specialisation changed.
const corpusRuns = 2793

// newStackContext makes a Width×Height context on the full tilegpu stack.
// One render core each: the quads are tiny, the parallelism is across
// contexts. 64 MiB of GPU memory is ample for one 128×128 quad.
func newStackContext() (gl.Context, func(), error) {
	c, err := tilegpu.NewContext(tilegpu.Config{Width: Width, Height: Height, Cores: 1, MemorySize: 64 << 20})
	if err != nil {
		return nil, nil, err
	}
	return c.GL(), func() { c.Close() }, nil
}

// TestDEQPCorpus runs every dEQP GLES2 shader-library case on the virtual
// GPU through the GL API. The corpus is the conformance bar: any failed
// run fails the test. Per-file tallies and every failure and skip are
// logged.
func TestDEQPCorpus(t *testing.T) {
	files, err := Load(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(newStackContext, files, Options{
		Workers:     runtime.GOMAXPROCS(0),
		CaseTimeout: 2 * time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("dEQP GLES2 shader library on tilegpu, %d contexts, %.1fs:\n%s", runtime.GOMAXPROCS(0), rep.Elapsed.Seconds(), rep.Table())

	// Group identical reasons so that the log stays readable.
	byReason := map[string][]string{}
	for _, r := range rep.Results {
		if r.Status == Pass {
			continue
		}
		key := fmt.Sprintf("%v: %s", r.Status, firstLine(r.Reason))
		byReason[key] = append(byReason[key], r.File+":"+r.Name)
	}
	keys := make([]string, 0, len(byReason))
	for k := range byReason {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(byReason[keys[i]]) > len(byReason[keys[j]]) })
	var b strings.Builder
	for _, k := range keys {
		runs := byReason[k]
		fmt.Fprintf(&b, "%4d × %s\n", len(runs), k)
		for _, n := range runs {
			fmt.Fprintf(&b, "       %s\n", n)
		}
	}
	if b.Len() > 0 {
		t.Logf("runs not passing, by reason:\n%s", b.String())
	}
	tot := rep.Totals()
	if tot.Total() != corpusRuns {
		t.Errorf("%d runs, want %d", tot.Total(), corpusRuns)
	}
	if tot.Failed > 0 {
		t.Errorf("%s", rep.Summary())
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
