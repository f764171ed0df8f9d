package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/tilegpu/tilegpu/cmdbuf"
)

// cmdReplay re-executes a command-buffer recording (tilegpu serve -record)
// on a fresh GPU, or prints it (-decode).
func cmdReplay(args []string) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	out := fs.String("o", "out.png", "write the default framebuffer after the replay as a PNG")
	decode := fs.Bool("decode", false, "print the recording command by command instead of replaying it")
	cores := fs.Int("cores", 0, "render worker cores (0: GOMAXPROCS)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: tilegpu replay [-o out.png] [-decode] FILE")
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	if *decode {
		return cmdbuf.DecodeRecording(f, stdout)
	}
	img, err := cmdbuf.Replay(f, cmdbuf.ServiceConfig{Cores: *cores})
	if err != nil {
		return err
	}
	if err := writeImage(*out, img); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "replayed %s: %dx%d framebuffer written to %s\n", fs.Arg(0), img.Bounds().Dx(), img.Bounds().Dy(), *out)
	return nil
}
