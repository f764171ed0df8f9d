// Command gen writes hw/cl/packets_gen.go from the packet database in
// hw/spec/tg.xml. It runs from hw/cl through `go generate ./hw/...`.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/tilegpu/tilegpu/hw/spec"
)

func main() {
	out := flag.String("o", "packets_gen.go", "output file")
	flag.Parse()
	db, err := spec.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	src, err := spec.Generate(db)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
