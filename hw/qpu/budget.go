package qpu

import (
	"fmt"
	"math"
)

// PollInterval is how many instructions a Run executes between two calls
// of Core.Poll.
const PollInterval = 1 << 16

// This file is the core's whole step accounting: Run calls checkpoint when
// its instruction count reaches the stop returned by firstStop or by the
// previous checkpoint, so an execution engine only has to count steps and
// compare them with one number.

// firstStop is the instruction count at which Run first calls checkpoint.
func (c *Core) firstStop() uint64 {
	stop := uint64(math.MaxUint64)
	if c.StepLimit != 0 {
		stop = c.StepLimit
	}
	if c.Poll != nil {
		stop = min(stop, PollInterval)
	}
	return stop
}

// checkpoint runs when a Run of p has executed steps instructions: it
// enforces StepLimit, calls Poll, and returns the count at which to come
// back, or the error that ends the Run.
func (c *Core) checkpoint(p *Program, steps uint64) (next uint64, err error) {
	if c.StepLimit != 0 && steps >= c.StepLimit {
		return 0, fmt.Errorf("qpu: program %#x: step limit of %d instructions reached (infinite loop?)", p.Entry(), c.StepLimit)
	}
	if c.Poll != nil {
		if err := c.Poll(steps); err != nil {
			return 0, err
		}
	}
	next = uint64(math.MaxUint64)
	if c.StepLimit != 0 {
		next = c.StepLimit
	}
	if c.Poll != nil && steps <= math.MaxUint64-PollInterval {
		next = min(next, steps+PollInterval)
	}
	return next, nil
}
