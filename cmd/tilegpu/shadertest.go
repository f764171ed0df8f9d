package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/internal/shadertest"
)

// cmdShaderTest runs piglit .shader_test files (a directory stands for
// the *.shader_test files in it) on the virtual GPU, one
// fresh shadertest.Width×Height context per file so that no state leaks
// between tests. It prints each failure and skip, then "N passed, N
// failed[, N skipped]", and exits 1 if any test failed.
func cmdShaderTest(args []string) error {
	fs := flag.NewFlagSet("shader-test", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: tilegpu shader-test FILE.shader_test|DIR...\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitError(2)
	}
	paths, err := shaderTestFiles(fs.Args())
	if err != nil {
		return err
	}
	passed, failed, skipped := 0, 0, 0
	for _, path := range paths {
		res, err := runShaderTest(path)
		switch {
		case err != nil:
			failed++
			fmt.Fprintf(stdout, "FAIL %s: %v\n", path, err)
		case res.Skip != "":
			skipped++
			fmt.Fprintf(stdout, "SKIP %s: %s\n", path, res.Skip)
		case !res.Pass:
			failed++
			fmt.Fprintf(stdout, "FAIL %s\n", path)
			for _, f := range res.Failure {
				fmt.Fprintf(stdout, "    %s\n", f)
			}
		default:
			passed++
		}
	}
	if skipped > 0 {
		fmt.Fprintf(stdout, "%d passed, %d failed, %d skipped\n", passed, failed, skipped)
	} else {
		fmt.Fprintf(stdout, "%d passed, %d failed\n", passed, failed)
	}
	if failed > 0 {
		return exitError(1)
	}
	return nil
}

// runShaderTest parses and runs one file on its own context. A panic
// below the GL API is returned as an error so the remaining files still
// run.
func runShaderTest(path string) (res shadertest.Result, err error) {
	f, err := os.Open(path)
	if err != nil {
		return res, err
	}
	t, err := shadertest.Parse(path, f)
	f.Close()
	if err != nil {
		return res, err
	}
	ctx, err := tilegpu.NewContext(tilegpu.Config{Width: shadertest.Width, Height: shadertest.Height})
	if err != nil {
		return res, err
	}
	defer ctx.Close()
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("panic: %v", e)
		}
	}()
	return shadertest.Run(ctx.GL(), t), nil
}

// shaderTestFiles expands directories to the .shader_test files in them,
// in name order.
func shaderTestFiles(args []string) ([]string, error) {
	var paths []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			paths = append(paths, a) // a missing file is reported as its failure
			continue
		}
		m, err := filepath.Glob(filepath.Join(a, "*.shader_test"))
		if err != nil {
			return nil, err
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%s: no .shader_test files", a)
		}
		sort.Strings(m)
		paths = append(paths, m...)
	}
	return paths, nil
}
