package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"sort"

	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/hw/isa"
	"github.com/tilegpu/tilegpu/kernel"
)

// decoder prints every job the kernel hands to the GPU, cffdump-style: the
// ring packets of each engine, the validated and relocated binning control
// list, the kernel-generated render list, each shader record with its
// attribute records, and the disassembled shaders. It decodes with the
// tables generated from hw/spec, so it cannot drift from the hardware.
type decoder struct {
	w    io.Writer
	jobs int
}

func newDecoder(w io.Writer) *decoder { return &decoder{w: w} }

// maxShaderWords bounds how far a disassembly reads when a program has no
// END (a corrupt capture), so the decoder cannot run away.
const maxShaderWords = 4096

func (d *decoder) capture(c *kernel.Capture) {
	d.jobs++
	w := d.w
	fmt.Fprintf(w, "==== job %d: context %d, fence %d ====\n", d.jobs, c.Context, c.Fence)
	engines := make([]int, 0, len(c.Rings))
	for e := range c.Rings {
		engines = append(engines, e)
	}
	sort.Ints(engines)
	for _, e := range engines {
		name := map[int]string{hw.EngineBin: "BIN", hw.EngineRender: "RENDER"}[e]
		fmt.Fprintf(w, "-- ring %s --\n", name)
		if err := cl.DecodeRing(w, c.Rings[e]); err != nil {
			fmt.Fprintf(w, "!! %v\n", err)
		}
	}
	fmt.Fprintf(w, "-- binning control list @0x%08x (%d bytes) --\n", c.BinCLAddress, len(c.BinCL))
	if err := cl.DecodeCL(w, c.BinCL, c.BinCLAddress); err != nil {
		fmt.Fprintf(w, "!! %v\n", err)
	}
	fmt.Fprintf(w, "-- render control list @0x%08x (%d bytes) --\n", c.RenderCLAddress, len(c.RenderCL))
	if err := cl.DecodeCL(w, c.RenderCL, c.RenderCLAddress); err != nil {
		fmt.Fprintf(w, "!! %v\n", err)
	}
	// Every GL_SHADER_STATE of the bin list names a shader record.
	seen := map[uint32]bool{}
	programs := map[uint32]string{}
	var order []uint32
	for off := 0; off < len(c.BinCL); {
		l, err := cl.NextRecord(c.BinCL, off)
		if err != nil {
			break
		}
		if l.Opcode == cl.OpGLShaderState {
			var s cl.GLShaderState
			if s.Unpack(c.BinCL[off:]) == nil && !seen[s.Address] {
				seen[s.Address] = true
				d.shaderRecord(c, s, programs, &order)
			}
		}
		off += l.Size
	}
	for _, va := range order {
		fmt.Fprintf(w, "-- %s shader @0x%08x --\n", programs[va], va)
		code, err := readProgram(c, va)
		if err != nil {
			fmt.Fprintf(w, "!! %v\n", err)
		}
		isa.DisasmProgram(w, code, va)
	}
}

func (d *decoder) shaderRecord(c *kernel.Capture, s cl.GLShaderState, programs map[uint32]string, order *[]uint32) {
	w := d.w
	off := int64(s.Address) - int64(c.ShaderRecordsAddress)
	n := cl.SizeShaderRecord + int(s.AttributeCount)*cl.SizeAttributeRecord
	if off < 0 || off+int64(n) > int64(len(c.ShaderRecords)) {
		fmt.Fprintf(w, "!! shader record @0x%08x outside the captured records\n", s.Address)
		return
	}
	buf := c.ShaderRecords[off : off+int64(n)]
	fmt.Fprintf(w, "-- shader record @0x%08x --\n", s.Address)
	if err := cl.DecodeShaderRecord(w, buf, int(s.AttributeCount)); err != nil {
		fmt.Fprintf(w, "!! %v\n", err)
	}
	var rec cl.ShaderRecord
	if rec.Unpack(buf) != nil {
		return
	}
	for _, p := range []struct {
		va   uint32
		name string
	}{{rec.CoordinateCodeAddress, "coordinate"}, {rec.VertexCodeAddress, "vertex"}, {rec.FragmentCodeAddress, "fragment"}} {
		if _, ok := programs[p.va]; !ok {
			programs[p.va] = p.name
			*order = append(*order, p.va)
		}
	}
}

// readProgram reads a program from GPU memory up to and including the
// instruction with the END signal, following no branches (the code after a
// branch is still in line).
func readProgram(c *kernel.Capture, va uint32) ([]uint64, error) {
	var code []uint64
	for len(code) < maxShaderWords {
		b, err := c.Read(va+uint32(8*len(code)), 8)
		if err != nil {
			return code, err
		}
		word := binary.LittleEndian.Uint64(b)
		code = append(code, word)
		if in, err := isa.Decode(word); err == nil && in.Sig == isa.SigEND {
			return code, nil
		}
	}
	return code, fmt.Errorf("no END within %d instructions", maxShaderWords)
}
