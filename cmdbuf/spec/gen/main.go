// Command gen writes cmdbuf/commands_gen.go from cmdbuf/spec/commands.txt
// (run by `go generate ./cmdbuf/...`).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/tilegpu/tilegpu/cmdbuf/spec"
)

func main() {
	out := flag.String("o", "commands_gen.go", "output file")
	flag.Parse()
	cmds, err := spec.Load()
	if err == nil {
		var src []byte
		if src, err = spec.Generate(cmds); err == nil {
			err = os.WriteFile(*out, src, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cmdbuf/spec/gen:", err)
		os.Exit(1)
	}
}
