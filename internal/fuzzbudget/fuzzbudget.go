// Package fuzzbudget sets the fuzzing engine's minimisation budget for
// packages whose fuzz targets are expensive per execution (a compile, a
// spec database run through gofmt, a service session). It is test
// infrastructure only, used from TestMain; it carries no part of the GPU.
//
// Why: when a worker finds an input with new coverage, `go test -fuzz`
// minimises it for up to -fuzzminimizetime (default 60 s) before fuzzing
// on, and the execs spent minimising are not counted. Go's byte minimiser
// is quadratic in the input length, so for a target costing milliseconds
// per run every new input took the whole minute: compiler/difftest's
// FuzzCompileVsInterpret reported 12 execs in 120 s, hw/spec's FuzzParse 5
// in 10 s. A short budget keeps the campaign fuzzing; an explicit
// -test.fuzzminimizetime on the command line still wins.
package fuzzbudget

import "flag"

// MinimizeTime is the default minimisation budget per input.
const MinimizeTime = "1s"

// SetDefaults parses the test flags and sets -test.fuzzminimizetime to
// MinimizeTime unless it was given. Call it first in TestMain.
func SetDefaults() {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "test.fuzzminimizetime" {
			given = true
		}
	})
	if !given && flag.Lookup("test.fuzzminimizetime") != nil {
		// The flag exists in every test binary; Set fails only on a
		// malformed value, and MinimizeTime is a constant.
		if err := flag.Set("test.fuzzminimizetime", MinimizeTime); err != nil {
			panic(err)
		}
	}
}
