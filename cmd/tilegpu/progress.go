package main

import (
	"fmt"
	"image"
	"os"
	"time"

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

// Progress within one frame: rendering happens when the frame is read
// back (Image flushes the queued draws and waits), so a large frame can
// take seconds to minutes in one call. frameProgress polls the GPU's tile
// counter meanwhile and shows tiles done out of the frame's tiles.
var (
	// frameProgressDelay: frames that finish sooner show nothing.
	frameProgressDelay = time.Second
	// frameProgressTick is how often the tile counter is read.
	frameProgressTick = 200 * time.Millisecond
	// frameLineInterval spaces the plain lines printed when standard
	// error is not a terminal.
	frameLineInterval = 5 * time.Second
)

// imageWithProgress is t.Image(), showing the frame's tile progress under
// the name what when it takes longer than frameProgressDelay.
func imageWithProgress(t drawTarget, what string) (*image.NRGBA, error) {
	start, ts := t.TileProgress()
	if ts <= 0 {
		return t.Image()
	}
	w, h := t.Size()
	total := ((w + ts - 1) / ts) * ((h + ts - 1) / ts)
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		delay := time.NewTimer(frameProgressDelay)
		defer delay.Stop()
		select {
		case <-stop:
			return
		case <-delay.C:
		}
		r := newTileReporter(total, what)
		tick := time.NewTicker(frameProgressTick)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				n, _ := t.TileProgress()
				r.finish(int(n - start))
				return
			case <-tick.C:
				n, _ := t.TileProgress()
				r.update(int(n - start))
			}
		}
	}()
	img, err := t.Image()
	close(stop)
	<-stopped
	return img, err
}

// tileReporter shows tiles done: a bar on a terminal, lines otherwise.
type tileReporter interface {
	update(done int)
	finish(done int)
}

func newTileReporter(total int, what string) tileReporter {
	if stderrIsTerminal() {
		return &tileBar{bar: progressbar.NewOptions(total,
			progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionSetDescription(what),
			progressbar.OptionShowCount(),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionClearOnFinish(),
		), max: total}
	}
	return &tileLines{what: what, total: total}
}

type tileBar struct {
	bar *progressbar.ProgressBar
	max int
}

func (b *tileBar) update(done int) {
	if done > b.max { // the frame was rendered in several jobs
		b.max = done
		b.bar.ChangeMax(done)
	}
	_ = b.bar.Set(done)
}

func (b *tileBar) finish(done int) {
	b.update(done)
	_ = b.bar.Finish()
}

// tileLines prints "what: N/M tiles" at most every frameLineInterval, and
// once at the end.
type tileLines struct {
	what        string
	total, last int
	printed     time.Time
}

func (l *tileLines) update(done int) {
	if done == l.last || time.Since(l.printed) < frameLineInterval {
		return
	}
	l.print(done, "")
}

func (l *tileLines) finish(done int) { l.print(done, ", done") }

func (l *tileLines) print(done int, suffix string) {
	l.last, l.printed = done, time.Now()
	fmt.Fprintf(stderr, "%s: %d/%d tiles%s\n", l.what, done, max(l.total, done), suffix)
}
