package qpu

import (
	"os"
	"testing"

	"github.com/tilegpu/tilegpu/internal/fuzzbudget"
)

// TestMain bounds the fuzzing engine's minimisation of new inputs (see
// package fuzzbudget): this package's fuzz targets cost milliseconds per
// run, and the default 60 s minimisation stalled them.
func TestMain(m *testing.M) {
	fuzzbudget.SetDefaults()
	os.Exit(m.Run())
}
