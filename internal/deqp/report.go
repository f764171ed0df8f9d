package deqp

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tilegpu/tilegpu/compiler/glsl/deqptest"
	"github.com/tilegpu/tilegpu/gl"
)

// File is a parsed .test file.
type File struct {
	Path  string
	Cases []deqptest.Case
}

// Load parses the .test files named by paths; a directory stands for the
// *.test files in it, in name order. Errors name the file.
func Load(paths ...string) ([]File, error) {
	var files []File
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		names := []string{p}
		if st.IsDir() {
			names, err = filepath.Glob(filepath.Join(p, "*.test"))
			if err != nil {
				return nil, err
			}
			if len(names) == 0 {
				return nil, fmt.Errorf("%s: no .test files", p)
			}
			sort.Strings(names)
		}
		for _, n := range names {
			cases, err := deqptest.ParseFile(n)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", n, err)
			}
			files = append(files, File{Path: n, Cases: cases})
		}
	}
	return files, nil
}

// NewContext creates a context for a Runner (default framebuffer at least
// Width×Height) and returns it with the function that destroys it.
type NewContext func() (ctx gl.Context, release func(), err error)

// Options control Run.
type Options struct {
	// Workers is the number of contexts, each on its own goroutine, that
	// run cases in parallel; 0 means 1.
	Workers int
	// CaseTimeout bounds the time of one case (all its runs). A case that
	// takes longer fails, and its context is abandoned (the goroutine
	// stuck in it cannot be stopped) and replaced. 0 means no limit.
	CaseTimeout time.Duration
	// Verbose fills Result.Detail of failures.
	Verbose bool
	// Match, if set, selects the cases to run by full name (group.case).
	Match func(name string) bool
	// Progress, if set, is called with each case's results as they
	// complete (in completion order, from one goroutine at a time).
	Progress func([]Result)
}

// Tally counts the runs of one file.
type Tally struct {
	File                    string
	Passed, Failed, Skipped int
	// Elapsed is the summed wall time of the file's cases (cases of a
	// file may run on several contexts at once).
	Elapsed time.Duration
}

// Total is Passed+Failed+Skipped.
func (t Tally) Total() int { return t.Passed + t.Failed + t.Skipped }

func (t *Tally) add(s Status) {
	switch s {
	case Pass:
		t.Passed++
	case Fail:
		t.Failed++
	default:
		t.Skipped++
	}
}

// Report is the outcome of Run.
type Report struct {
	Results []Result // in file order, then case order
	Files   []Tally  // one per file, in order
	Elapsed time.Duration
}

// Totals sums the file tallies.
func (r *Report) Totals() Tally {
	t := Tally{File: "total", Elapsed: r.Elapsed}
	for _, f := range r.Files {
		t.Passed += f.Passed
		t.Failed += f.Failed
		t.Skipped += f.Skipped
	}
	return t
}

// Summary is the line "N passed, N failed, N skipped".
func (r *Report) Summary() string {
	t := r.Totals()
	return fmt.Sprintf("%d passed, %d failed, %d skipped", t.Passed, t.Failed, t.Skipped)
}

// Table formats the per-file tallies as an aligned table with a total row;
// files none of whose cases ran (Options.Match) are left out. A file's
// time is the sum of its cases' times; the total row's is wall time.
func (r *Report) Table() string {
	var b strings.Builder
	w := len("file")
	for _, f := range r.Files {
		w = max(w, len(filepath.Base(f.File)))
	}
	fmt.Fprintf(&b, "%-*s %6s %6s %6s %6s %9s\n", w, "file", "runs", "pass", "fail", "skip", "time")
	row := func(t Tally) {
		fmt.Fprintf(&b, "%-*s %6d %6d %6d %6d %8.1fs\n", w, filepath.Base(t.File), t.Total(), t.Passed, t.Failed, t.Skipped, t.Elapsed.Seconds())
	}
	for _, f := range r.Files {
		if f.Total() > 0 {
			row(f)
		}
	}
	row(r.Totals())
	return b.String()
}

// job is one case to run.
type job struct {
	file, index int // index of the case's results in Run's table
	c           *deqptest.Case
}

// Run runs the cases of files on contexts made by newContext and reports
// every run. An error is returned only if a context cannot be created;
// the report then holds what ran, and the cases that did not run are
// failures saying why.
func Run(newContext NewContext, files []File, opts Options) (Report, error) {
	start := time.Now()
	workers := max(opts.Workers, 1)
	results := make([][][]Result, len(files)) // file, case, run
	elapsed := make([][]time.Duration, len(files))
	jobs := make(chan job)
	go func() {
		defer close(jobs)
		for fi := range files {
			results[fi] = make([][]Result, len(files[fi].Cases))
			elapsed[fi] = make([]time.Duration, len(files[fi].Cases))
		}
		for fi := range files {
			for ci := range files[fi].Cases {
				c := &files[fi].Cases[ci]
				if opts.Match != nil && !opts.Match(c.FullName()) {
					continue
				}
				jobs <- job{file: fi, index: ci, c: c}
			}
		}
	}()

	var (
		mu       sync.Mutex // guards firstErr and Progress calls
		firstErr error
		wg       sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{newContext: newContext, verbose: opts.Verbose, timeout: opts.CaseTimeout}
			defer w.close()
			for j := range jobs {
				t0 := time.Now()
				res, err := w.run(filepath.Base(files[j.file].Path), j.c)
				results[j.file][j.index] = res
				elapsed[j.file][j.index] = time.Since(t0)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if opts.Progress != nil {
					opts.Progress(res)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()

	var rep Report
	for fi, f := range files {
		t := Tally{File: f.Path}
		for ci, res := range results[fi] {
			t.Elapsed += elapsed[fi][ci]
			for _, r := range res {
				t.add(r.Status)
				rep.Results = append(rep.Results, r)
			}
		}
		rep.Files = append(rep.Files, t)
	}
	rep.Elapsed = time.Since(start)
	return rep, firstErr
}

// worker is one context and its Runner, replaced when a case breaks it.
type worker struct {
	newContext NewContext
	verbose    bool
	timeout    time.Duration

	runner  *Runner
	release func()
	err     error // context creation failed; every later case fails with it
}

func (w *worker) close() {
	if w.release != nil {
		w.release()
	}
	w.runner, w.release = nil, nil
}

// notRun fails every run of c with reason.
func notRun(file string, c *deqptest.Case, reason string) []Result {
	var res []Result
	for _, p := range c.Programs() {
		name := p.Name
		if c.Group != "" {
			name = c.Group + "." + p.Name
		}
		res = append(res, Result{File: file, Name: name, Status: Fail, Reason: reason})
	}
	return res
}

func (w *worker) run(file string, c *deqptest.Case) ([]Result, error) {
	if w.err != nil {
		return notRun(file, c, "not run: "+w.err.Error()), nil
	}
	if w.runner == nil {
		ctx, release, err := w.newContext()
		if err != nil {
			w.err = fmt.Errorf("creating a context: %w", err)
			return notRun(file, c, "not run: "+w.err.Error()), w.err
		}
		w.runner, w.release = NewRunner(ctx, w.verbose), release
	}
	r := w.runner
	if w.timeout <= 0 {
		res := r.RunCase(file, c)
		if r.Broken() {
			w.closeQuietly()
		}
		return res, nil
	}
	done := make(chan []Result, 1)
	go func() { done <- r.RunCase(file, c) }()
	timer := time.NewTimer(w.timeout)
	defer timer.Stop()
	select {
	case res := <-done:
		if r.Broken() {
			w.closeQuietly()
		}
		return res, nil
	case <-timer.C:
		// The goroutine still owns the context; leave both to it.
		w.runner, w.release = nil, nil
		return notRun(file, c, fmt.Sprintf("timed out after %v", w.timeout)), nil
	}
}

// closeQuietly releases a context a panic interrupted; its release may
// panic too, and must not take the worker down.
func (w *worker) closeQuietly() {
	defer func() {
		_ = recover()
		w.runner, w.release = nil, nil
	}()
	w.close()
}
