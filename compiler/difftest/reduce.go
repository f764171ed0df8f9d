package difftest

import (
	"errors"
	"strings"
)

// Reduce shrinks a program that fails Check (with a *Mismatch, or an error
// from a pipeline stage after the front end) to a smaller one that fails
// the same way (same Mismatch.Stage or failing stage), by deleting statements
// and whole if/loop blocks one at a time until no deletion keeps the
// failure (line-level delta debugging; the generator writes one statement
// per line). It returns src unchanged if src does not fail that
// way. Reduce runs Check many times: it is for reports, not for the
// test loop.
func Reduce(src string, in *Inputs) string {
	stage := mismatchStage(src, in)
	if stage == "" {
		return src
	}
	lines := strings.Split(src, "\n")
	for progress := true; progress; {
		progress = false
		for i := 0; i < len(lines); i++ {
			end := deletable(lines, i)
			if end < 0 {
				continue
			}
			try := append(append([]string(nil), lines[:i]...), lines[end+1:]...)
			if mismatchStage(strings.Join(try, "\n"), in) == stage {
				lines = try
				progress = true
				i--
			}
		}
	}
	return strings.Join(lines, "\n")
}

// deletable returns the last line of the statement starting at line i (the
// matching closing brace for a block statement), or -1 if line i does not
// start a statement of main's body.
func deletable(lines []string, i int) int {
	t := strings.TrimSpace(lines[i])
	switch {
	case !strings.HasPrefix(lines[i], "  "), t == "" || strings.HasPrefix(t, "}"), t == "vec4 acc = vec4(0.0);":
		// Declarations outside main, main itself, closing braces.
		return -1
	case strings.HasSuffix(t, "{"):
		depth := 0
		for j := i; j < len(lines); j++ {
			depth += strings.Count(lines[j], "{") - strings.Count(lines[j], "}")
			if depth == 0 && !strings.HasSuffix(strings.TrimSpace(lines[j]), "{") {
				return j
			}
		}
		return -1
	}
	return i
}

// mismatchStage classifies how src fails: the Mismatch stage, or the
// pipeline stage whose error it is; "" when it passes or the front end
// rejects it (a deletion that breaks the program does not count).
func mismatchStage(src string, in *Inputs) string {
	err := Check(src, in)
	var m *Mismatch
	switch {
	case err == nil:
		return ""
	case errors.As(err, &m):
		return m.Stage
	}
	msg := err.Error()
	for _, kind := range []string{"backend:", "qpu:", "passes:", "interpret before passes:", "interpret after passes:", "IR after passes"} {
		if strings.HasPrefix(msg, "difftest: "+kind) {
			return kind
		}
	}
	return ""
}
