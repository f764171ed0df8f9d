package crashdec

import (
	"fmt"
	"io"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// decodeEngineList prints a compute or DMA job's descriptor list
// (docs/hardware.md §9, §10), one descriptor a line.
func decodeEngineList(w io.Writer, d *Dump) {
	size, what := cl.SizeComputeDispatch, "compute list"
	if d.ListEngine == "DMA" {
		size, what = cl.SizeDMACommand, "DMA list"
	}
	fmt.Fprintf(w, "\n== %s @0x%08x (%d bytes, engine %s) ==\n", what, d.ListAddress, len(d.List), d.ListEngine)
	for off := 0; off+size <= len(d.List); off += size {
		var text string
		if d.ListEngine == "DMA" {
			var c cl.DMACommand
			if err := c.Unpack(d.List[off:]); err != nil {
				text = err.Error()
			} else {
				text = c.String()
			}
		} else {
			var c cl.ComputeDispatch
			if err := c.Unpack(d.List[off:]); err != nil {
				text = err.Error()
			} else {
				text = c.String()
			}
		}
		fmt.Fprintf(w, "0x%08x: %s\n", d.ListAddress+uint32(off), text)
	}
	if len(d.List)%size != 0 {
		fmt.Fprintf(w, "!! %d trailing bytes\n", len(d.List)%size)
	}
}
