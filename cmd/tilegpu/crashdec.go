package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/tilegpu/tilegpu/internal/crashdec"
)

// cmdCrashdec decodes kernel crash dumps (Config.CrashDumpDir,
// kernel.Options.DumpDir) like freedreno's crashdec.
func cmdCrashdec(args []string) error {
	fs := flag.NewFlagSet("crashdec", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: tilegpu crashdec DUMP...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return exitError(2)
	}
	for i, path := range fs.Args() {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		d, err := crashdec.Parse(data)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if fs.NArg() > 1 {
			fmt.Fprintf(stdout, "#### %s\n", path)
		}
		if err := crashdec.Decode(stdout, d); err != nil {
			return err
		}
	}
	return nil
}
