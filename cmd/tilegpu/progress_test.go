package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// A single frame that takes longer than frameProgressDelay shows its tile
// progress on stderr (plain lines when stderr is not a terminal), ending
// with every tile of the frame; a frame that finishes sooner shows none.
func TestRenderFrameProgress(t *testing.T) {
	oldDelay, oldTick, oldLine, oldTerm := frameProgressDelay, frameProgressTick, frameLineInterval, stderrIsTerminal
	defer func() {
		frameProgressDelay, frameProgressTick, frameLineInterval, stderrIsTerminal = oldDelay, oldTick, oldLine, oldTerm
	}()
	stderrIsTerminal = func() bool { return false }
	frameProgressTick, frameLineInterval = time.Millisecond, 0
	done := regexp.MustCompile(`rendering f\.png: (\d+)/(\d+) tiles, done\n`)
	for _, tc := range []struct {
		delay time.Duration
		lines bool
	}{{0, true}, {time.Hour, false}} {
		frameProgressDelay = tc.delay
		out := filepath.Join(t.TempDir(), "f.png")
		_, errOut, err := runCLI(t, cmdRender, "-width", "512", "-height", "256", "-o", out)
		if err != nil {
			t.Fatal(err)
		}
		m := done.FindStringSubmatch(errOut)
		if !tc.lines {
			if errOut != "" {
				t.Errorf("delay %v: progress printed for a quick frame:\n%s", tc.delay, errOut)
			}
			continue
		}
		if m == nil {
			t.Fatalf("no final progress line in stderr:\n%s", errOut)
		}
		n, _ := strconv.Atoi(m[1])
		total, _ := strconv.Atoi(m[2])
		if want := (512 / 64) * (256 / 64); total != want || n != want {
			t.Errorf("final line %q: want %d/%d tiles (64-pixel tiles)", m[0], want, want)
		}
	}
}
