package main

import (
	"flag"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/gl"
	"github.com/tilegpu/tilegpu/internal/deqp"
)

// deqpMemorySize is the GPU memory of each deqp context: the cases draw one
// 128×128 quad, so 64 MiB is ample.
const deqpMemorySize = 64 << 20

// cmdDEQP runs dEQP GLES2 shader-library .test files (or directories of
// them) on the virtual GPU: it prints every failing and skipped run with
// its reason, a per-file table when there is more than one file, and
// finally "N passed, N failed, N skipped"; it exits 1 if any run failed.
func cmdDEQP(args []string) error {
	fs := flag.NewFlagSet("deqp", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: tilegpu deqp [flags] FILE.test|DIR...\n")
		fs.PrintDefaults()
	}
	verbose := fs.Bool("v", false, "print the shaders, info logs and values of failing runs")
	jobs := fs.Int("j", runtime.GOMAXPROCS(0), "contexts running cases in parallel")
	run := fs.String("run", "", "run only cases whose full name (group.case) matches this regular expression")
	timeout := fs.Duration("timeout", time.Minute, "fail a case that takes longer than this (0: no limit)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitError(2)
	}
	if *jobs < 1 {
		return fmt.Errorf("-j %d: need at least one context", *jobs)
	}
	opts := deqp.Options{Workers: *jobs, CaseTimeout: *timeout, Verbose: *verbose}
	if *run != "" {
		re, err := regexp.Compile(*run)
		if err != nil {
			return fmt.Errorf("-run: %v", err)
		}
		opts.Match = re.MatchString
	}
	files, err := deqp.Load(fs.Args()...)
	if err != nil {
		return err
	}
	cases := 0
	for _, f := range files {
		for _, c := range f.Cases {
			if opts.Match == nil || opts.Match(c.FullName()) {
				cases++
			}
		}
	}
	prog := newProgress(cases, "deqp")
	opts.Progress = func(rs []deqp.Result) {
		if len(rs) > 0 {
			prog.step(rs[0].File)
		}
	}
	rep, err := deqp.Run(newDEQPContext, files, opts)
	prog.finish()
	for _, r := range rep.Results {
		switch r.Status {
		case deqp.Fail:
			fmt.Printf("FAIL %s: %s: %s\n", r.File, r.Name, r.Reason)
			if *verbose && r.Detail != "" {
				fmt.Print(indent(r.Detail))
			}
		case deqp.NotSupported:
			fmt.Printf("SKIP %s: %s: %s\n", r.File, r.Name, r.Reason)
		}
	}
	if len(files) > 1 {
		fmt.Print(rep.Table())
	}
	fmt.Println(rep.Summary())
	if err != nil {
		return err
	}
	if rep.Totals().Failed > 0 {
		return exitError(1)
	}
	return nil
}

// newDEQPContext makes a Width×Height tilegpu context for a deqp.Runner.
// It gets one render core: the quads are tiny, and the parallelism is
// across contexts (-j).
func newDEQPContext() (gl.Context, func(), error) {
	c, err := tilegpu.NewContext(tilegpu.Config{Width: deqp.Width, Height: deqp.Height, Cores: 1, MemorySize: deqpMemorySize})
	if err != nil {
		return nil, nil, err
	}
	return c.GL(), func() { c.Close() }, nil
}

// indent indents a multi-line detail block under its FAIL line.
func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString("    " + l)
		}
	}
	return b.String()
}
