package main

import (
	"fmt"
	"os"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress reports long work (batches of images, turntable frames): a
// progress bar when standard error is a terminal, one plain line per step
// otherwise (logs, CI), nothing for a single step.
type progress interface {
	step(what string)
	finish()
}

// stderrIsTerminal says whether progress may draw a bar; tests replace it.
var stderrIsTerminal = func() bool { return term.IsTerminal(int(os.Stderr.Fd())) }

func newProgress(total int, what string) progress {
	switch {
	case total <= 1:
		return noProgress{}
	case stderrIsTerminal():
		return &barProgress{bar: progressbar.NewOptions(total,
			progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionSetDescription(what),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionClearOnFinish(),
		)}
	default:
		return &lineProgress{total: total, what: what}
	}
}

type noProgress struct{}

func (noProgress) step(string) {}
func (noProgress) finish()     {}

type barProgress struct{ bar *progressbar.ProgressBar }

func (p *barProgress) step(what string) {
	p.bar.Describe(what)
	_ = p.bar.Add(1)
}
func (p *barProgress) finish() { _ = p.bar.Finish() }

// lineProgress prints "rendering 3/10: name" lines on stderr.
type lineProgress struct {
	done, total int
	what        string
}

func (p *lineProgress) step(what string) {
	p.done++
	fmt.Fprintf(stderr, "%s %d/%d: %s\n", p.what, p.done, p.total, what)
}
func (p *lineProgress) finish() {}
