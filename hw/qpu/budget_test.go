package qpu

import (
	"errors"
	"strings"
	"testing"
)

// TestPollStopsARunWithoutStepLimit: with StepLimit 0 a Run is unbounded;
// Poll sees it every PollInterval instructions and its error ends it.
func TestPollStopsARunWithoutStepLimit(t *testing.T) {
	m := newFlatMem()
	p := load(t, m, "loop: brr loop\nnop ; nop ; end")
	c := NewCore(m)
	c.StepLimit = 0
	stop := errors.New("reset")
	var seen []uint64
	c.Poll = func(steps uint64) error {
		seen = append(seen, steps)
		if len(seen) == 5 {
			return stop
		}
		return nil
	}
	b := newBatch(StageVertex)
	if err := c.Run(p, b); !errors.Is(err, stop) {
		t.Fatalf("error %v, want Poll's", err)
	}
	for i, s := range seen {
		if s != uint64(i+1)*PollInterval {
			t.Errorf("poll %d at %d instructions, want %d", i, s, uint64(i+1)*PollInterval)
		}
	}
	if b.Instructions != 5*PollInterval {
		t.Errorf("Instructions = %d", b.Instructions)
	}
}

// TestPollAndStepLimitTogether: the step limit still applies between polls.
func TestPollAndStepLimitTogether(t *testing.T) {
	m := newFlatMem()
	p := load(t, m, "loop: brr loop\nnop ; nop ; end")
	c := NewCore(m)
	c.StepLimit = PollInterval + 10
	polls := 0
	c.Poll = func(uint64) error { polls++; return nil }
	b := newBatch(StageVertex)
	if err := c.Run(p, b); err == nil || !strings.Contains(err.Error(), "step limit") {
		t.Fatalf("error %v, want step limit", err)
	}
	if polls != 1 || b.Instructions != PollInterval+10 {
		t.Errorf("polls %d, instructions %d", polls, b.Instructions)
	}
}
