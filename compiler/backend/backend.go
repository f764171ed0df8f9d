package backend

import (
	"fmt"
	"strings"

	"github.com/tilegpu/tilegpu/compiler/ir"
	"github.com/tilegpu/tilegpu/hw/isa"
)

// Options configure Compile. The zero value compiles a single-threaded
// shader of f's stage with all registers available.
type Options struct {
	// Stage must equal f.Stage (it is repeated so callers state what
	// they expect; a mismatch is an error).
	Stage ir.Stage
	// Threaded compiles a fragment shader for two threads per core: only
	// A0–A15/B0–B15 are used.
	Threaded bool
	// RegisterLimit, if non-zero, is how many registers of each of files A
	// and B the allocator may use (tests set it to force spilling).
	RegisterLimit int
}

// Stats describes a compiled shader.
type Stats struct {
	Instructions       int // machine instructions (64-bit words)
	ALUOps             int // add- and mul-unit ops issued
	PairedInstructions int // instructions carrying both an add and a mul op
	Nops               int // instructions that do nothing (latency stalls)
	LoadImmediates     int
	Branches           int
	Spills             int // spill stores
	Fills              int // spill fills
	SpillSlots         int
	AccumulatorValues  int // temps allocated to r0–r2 or r4
	Registers          int // distinct A and B registers the code names (register pressure)
	Temps              int
	Uniforms           int // uniform stream entries
}

// Binary is a compiled shader. It is plain data, owned by the caller.
type Binary struct {
	Code []uint64
	// Uniforms is the uniform stream in the order the code reads it.
	Uniforms []ir.UniformEntry
	// ScratchBytesPerThread is the spill area one thread needs (0: none).
	ScratchBytesPerThread uint32
	Stats                 Stats
	// Listing is the allocated QIR program followed by the scheduled
	// bundles, for -S output.
	Listing string
}

// Compile runs Select, RegAlloc, Schedule, Encode and Validate on f, which must be in
// ir.FormScalar (it is verified first; bad input is an error, not a
// panic). It does not modify f and keeps no state between calls, so it may
// be called from any number of goroutines at once (for different or the
// same f).
func Compile(f *ir.Func, opts Options) (*Binary, error) {
	if f == nil {
		return nil, fmt.Errorf("backend: nil function")
	}
	if opts.Stage != f.Stage {
		return nil, fmt.Errorf("backend: %s: options say %v, function is %v", f.Name, opts.Stage, f.Stage)
	}
	if opts.RegisterLimit < 0 {
		return nil, fmt.Errorf("backend: negative RegisterLimit %d", opts.RegisterLimit)
	}
	if err := ir.Verify(f, ir.FormScalar); err != nil {
		return nil, fmt.Errorf("backend: input not in scalar form: %w", err)
	}
	p, err := Select(f, opts)
	if err != nil {
		return nil, err
	}
	temps := p.NumTemps
	if err := RegAlloc(p, opts); err != nil {
		return nil, err
	}
	s := Schedule(p)
	code, stream, err := Encode(p, s)
	if err != nil {
		return nil, err
	}
	// Every program is checked against the ISA's program-level rules
	// (as vc4_qpu_validate.c does), so that a scheduling or allocation bug
	// is a compile error here rather than wrong pixels on the GPU.
	if err := Validate(code, p.Threaded); err != nil {
		return nil, fmt.Errorf("backend: %s: generated code breaks the ISA rules: %w", f.Name, err)
	}
	bin := &Binary{
		Code:                  code,
		Uniforms:              stream,
		ScratchBytesPerThread: uint32(p.SpillSlots) * 64,
	}
	st := &bin.Stats
	st.Instructions = len(code)
	st.Spills, st.Fills, st.SpillSlots = p.Spills, p.Fills, p.SpillSlots
	st.AccumulatorValues = p.AccumulatorValues
	st.Registers = registersUsed(p)
	st.Temps = temps
	st.Uniforms = len(stream)
	for _, bs := range s.Blocks {
		for _, b := range bs {
			switch {
			case b.Other != nil && b.Other.Op == OpBranch:
				st.Branches++
			case b.Other != nil:
				st.LoadImmediates++
			case b.Add != nil && b.Mul != nil:
				st.PairedInstructions++
				st.ALUOps += 2
			case b.Add != nil || b.Mul != nil:
				st.ALUOps++
			case b.Sig == nil && !b.End:
				st.Nops++
			}
		}
	}
	var sb strings.Builder
	sb.WriteString(p.String())
	sb.WriteString("--\n")
	sb.WriteString(Disasm(code))
	bin.Listing = sb.String()
	return bin, nil
}

// Disasm prints code one instruction per line with its byte address.
func Disasm(code []uint64) string {
	var sb strings.Builder
	for i, w := range code {
		fmt.Fprintf(&sb, "%04x: %016x  %s\n", i*isa.InstrBytes, w, isa.Disasm(w))
	}
	return sb.String()
}

// registersUsed counts the distinct A and B registers p names after
// allocation: how much of the register files the program needs.
func registersUsed(p *Program) int {
	var a, b [64]bool
	n := 0
	mark := func(r Reg) {
		if r.Index < 0 || r.Index >= 64 {
			return
		}
		switch {
		case r.File == FileA && !a[r.Index]:
			a[r.Index] = true
			n++
		case r.File == FileB && !b[r.Index]:
			b[r.Index] = true
			n++
		}
	}
	for _, bl := range p.Blocks {
		for _, in := range bl.Insts {
			mark(in.Dst)
			for _, r := range in.Src {
				mark(r)
			}
		}
	}
	return n
}
