// Package crashdec decodes the kernel's crash dumps (kernel.Dump, written
// as JSON into Options.DumpDir) the way freedreno's crashdec decodes a GPU
// devcoredump: which ring and indirect buffer, which draw (by the units'
// draw markers), which tile and core, which shader and instruction
// (disassembled with the program counter marked) and the state that was
// bound. It is the decoder behind `tilegpu crashdec`.
//
// It reads the dump's JSON with its own mirror of the format, so that it
// depends only on the hardware's packet tables (hw/cl) and instruction set
// (hw/isa), not on the kernel.
package crashdec

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tilegpu/tilegpu/hw/cl"
	"github.com/tilegpu/tilegpu/hw/isa"
)

// Format is the dump format this package reads (kernel.DumpFormat).
const Format = "tilegpu-devcoredump-1"

// Dump mirrors kernel.Dump.
type Dump struct {
	Format   string
	Reason   string
	Message  string
	Context  uint32
	Fence    uint64
	Priority uint32
	Fault    *struct {
		VA     uint32
		Write  bool
		Engine string
		IB     uint32 // 0: a ring packet faulted, or a dump from before MMU_FAULT_IB
	}
	Regs []struct {
		Name   string
		Offset uint32
		Value  uint32
	}
	Rings []struct {
		Engine          string
		Priority        int
		Size            uint32
		RPTR, WPTR      uint32
		Start           uint32
		WordsBeforeRPTR int
		PacketAligned   bool
		Words           []uint32
	}
	BinCL                []byte
	BinCLAddress         uint32
	RenderCL             []byte
	RenderCLAddress      uint32
	ShaderRecords        []byte
	ShaderRecordsAddress uint32
	Uniforms             []byte
	UniformsAddress      uint32
	List                 []byte // a compute or DMA job's descriptors
	ListAddress          uint32
	ListEngine           string
	Memory               []struct {
		VA   uint32
		What string
		Data []byte
	}
	BOs []struct {
		VA, Size uint32
		Write    bool
	}
}

// maxDumpBytes bounds what Parse accepts.
const maxDumpBytes = 256 << 20

// Parse reads a dump; an error names what is wrong with it.
func Parse(data []byte) (*Dump, error) {
	if len(data) > maxDumpBytes {
		return nil, fmt.Errorf("crashdec: dump of %d bytes is larger than %d", len(data), maxDumpBytes)
	}
	var d Dump
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("crashdec: not a tilegpu crash dump: %w", err)
	}
	if d.Format != Format {
		return nil, fmt.Errorf("crashdec: format %q, want %q", d.Format, Format)
	}
	for i, r := range d.Rings {
		if r.WordsBeforeRPTR < 0 || r.WordsBeforeRPTR > len(r.Words) {
			return nil, fmt.Errorf("crashdec: ring %d: %d words before RPTR of %d", i, r.WordsBeforeRPTR, len(r.Words))
		}
		if r.Size == 0 || r.Size&(r.Size-1) != 0 {
			return nil, fmt.Errorf("crashdec: ring %d: size %d is not a power of two", i, r.Size)
		}
	}
	return &d, nil
}

// reg returns the value of the register called name.
func (d *Dump) reg(name string) (uint32, bool) {
	for _, r := range d.Regs {
		if r.Name == name {
			return r.Value, true
		}
	}
	return 0, false
}

// Shader-fault info and tile register fields (docs/hardware.md §8).
const (
	shaderFaultValid = 1 << 31
	tileValid        = 1 << 31
	cpStatusBusy     = 1 << 31
)

var stageNames = map[uint32]string{0: "vertex", 1: "coordinate", 2: "fragment"}

// failure is what the registers say about where the job failed.
type failure struct {
	core            int // render core, -1: none or the binner
	marker          uint32
	haveMarker      bool
	pc, entry       uint32
	haveShader      bool
	stage           string
	tileCol, tileRw int
	haveTile        bool
	// busyUnit: no unit is known to have failed (a hang), so the marker
	// and tile are those of the unit the hung engine was still running.
	busyUnit bool
}

func (d *Dump) failure() failure {
	f := failure{core: -1}
	if info, ok := d.reg("SHADER_FAULT_INFO"); ok && info&shaderFaultValid != 0 {
		f.haveShader = true
		f.pc, _ = d.reg("SHADER_FAULT_PC")
		f.entry, _ = d.reg("SHADER_FAULT_ENTRY")
		f.stage = stageNames[info>>8&0xFF]
		if f.stage == "" {
			f.stage = fmt.Sprintf("stage %d", info>>8&0xFF)
		}
		if q := int(info & 0xFF); q > 0 {
			f.core = q - 1
		}
	}
	binSide := f.stage == "coordinate" || (f.Fault(d) == "BIN" && !f.haveShader)
	if binSide {
		f.marker, f.haveMarker = d.reg("MARKER_BIN")
	} else if f.core >= 0 {
		f.marker, f.haveMarker = d.reg(fmt.Sprintf("MARKER_CORE(%d)", f.core))
		if t, ok := d.reg(fmt.Sprintf("TILE_CORE(%d)", f.core)); ok && t&tileValid != 0 {
			f.tileCol, f.tileRw, f.haveTile = int(t&0xFF), int(t>>8&0xFF), true
		}
	}
	if f.haveMarker && f.marker == 0 {
		f.haveMarker = false // no marker passed yet
	}
	if !f.haveMarker && !f.haveShader && d.Fault == nil {
		d.busyFailure(&f)
	}
	return f
}

// busyFailure fills f for a dump no unit is blamed in (a hang): the
// render engine's draw is the newest marker among the cores that have
// rendered a tile (draw ids grow through a job, and a hung draw keeps its
// core on it), the binner's is MARKER_BIN; the render engine is chosen
// when its CP is busy, else the binner when its CP is.
func (d *Dump) busyFailure(f *failure) {
	busy := func(engine string) bool {
		v, ok := d.reg("CP_STATUS(" + engine + ")")
		return ok && v&cpStatusBusy != 0
	}
	switch {
	case busy("RENDER"):
		for k := 0; ; k++ {
			m, ok := d.reg(fmt.Sprintf("MARKER_CORE(%d)", k))
			if !ok {
				break
			}
			t, _ := d.reg(fmt.Sprintf("TILE_CORE(%d)", k))
			if m == 0 || t&tileValid == 0 || (f.haveMarker && m <= f.marker) {
				continue
			}
			f.core, f.marker, f.haveMarker = k, m, true
			f.tileCol, f.tileRw, f.haveTile = int(t&0xFF), int(t>>8&0xFF), true
		}
	case busy("BIN"):
		f.marker, f.haveMarker = d.reg("MARKER_BIN")
		f.haveMarker = f.haveMarker && f.marker != 0
	}
	f.busyUnit = f.haveMarker
}

// Fault returns the faulting engine's name, "" without a fault.
func (f failure) Fault(d *Dump) string {
	if d.Fault == nil {
		return ""
	}
	return d.Fault.Engine
}

// Decode writes the decoded dump.
func Decode(w io.Writer, d *Dump) error {
	bw := bufio.NewWriter(w)
	f := d.failure()
	fmt.Fprintf(bw, "tilegpu crash dump: %s\n", d.Reason)
	fmt.Fprintf(bw, "  %s\n", d.Message)
	fmt.Fprintf(bw, "  context %d, fence %d, priority %d\n", d.Context, d.Fence, d.Priority)
	if d.Fault != nil {
		kind := "read"
		if d.Fault.Write {
			kind = "write"
		}
		in := ""
		if d.Fault.IB != 0 {
			in = fmt.Sprintf(" in the IB at 0x%08x", d.Fault.IB)
		}
		fmt.Fprintf(bw, "  fault: %s of VA 0x%08x by the %s engine%s%s\n", kind, d.Fault.VA, d.Fault.Engine, in, boName(d, d.Fault.VA))
	}
	if f.haveShader {
		unit := "the binner (QPU 0)"
		if f.core >= 0 {
			unit = fmt.Sprintf("render core %d (QPU %d)", f.core, f.core+1)
		}
		fmt.Fprintf(bw, "  shader: %s shader at 0x%08x on %s, PC 0x%08x\n", f.stage, f.entry, unit, f.pc)
	}
	switch {
	case f.haveMarker && f.busyUnit:
		fmt.Fprintf(bw, "  draw: %d (the newest draw marker a unit of the hung engine passed)\n", f.marker)
	case f.haveMarker:
		fmt.Fprintf(bw, "  draw: %d (the last draw marker the failing unit passed)\n", f.marker)
	default:
		fmt.Fprintf(bw, "  draw: unknown (no draw marker; the driver puts them with DrawMarkers)\n")
	}
	if f.haveTile {
		fmt.Fprintf(bw, "  tile: column %d, row %d (render core %d)\n", f.tileCol, f.tileRw, f.core)
	}

	fmt.Fprintf(bw, "\n== registers ==\n")
	for _, r := range d.Regs {
		fmt.Fprintf(bw, "  %-44s [0x%03x] = 0x%08x\n", r.Name, r.Offset, r.Value)
	}
	for _, r := range d.Rings {
		fmt.Fprintf(bw, "\n== ring %s, priority %d: RPTR 0x%x, WPTR 0x%x ==\n", r.Engine, r.Priority, r.RPTR, r.WPTR)
		if r.PacketAligned {
			fmt.Fprintf(bw, "  the job's packets already executed:\n")
			decodePackets(bw, r.Words[:r.WordsBeforeRPTR], r.Start, r.Size)
		} else {
			for i := 0; i < r.WordsBeforeRPTR; i++ {
				fmt.Fprintf(bw, "     +%04x  %08x\n", (r.Start+4*uint32(i))&(r.Size-1), r.Words[i])
			}
		}
		fmt.Fprintf(bw, "  => RPTR: the packets not yet executed (the first is the one running or stalled)\n")
		var buf bytes.Buffer
		after := r.Words[r.WordsBeforeRPTR:]
		if r.RPTR != r.WPTR {
			if n := int((r.WPTR-r.RPTR)&(r.Size-1)) / 4; n < len(after) {
				after = after[:n]
			}
			if err := cl.DecodeRing(&buf, after); err != nil {
				fmt.Fprintf(&buf, "!! %v\n", err)
			}
		} else {
			buf.WriteString("(ring empty: RPTR = WPTR)\n")
		}
		indent(bw, &buf, "     ")
	}
	if len(d.List) > 0 {
		decodeEngineList(bw, d)
		return bw.Flush()
	}
	if len(d.BinCL) == 0 {
		fmt.Fprintf(bw, "\n(no job could be blamed: the dump has no lists)\n")
		return bw.Flush()
	}
	fmt.Fprintf(bw, "\n== binning control list @0x%08x (%d bytes) ==\n", d.BinCLAddress, len(d.BinCL))
	bound := decodeBinCL(bw, d, f)
	fmt.Fprintf(bw, "\n== render control list @0x%08x (%d bytes) ==\n", d.RenderCLAddress, len(d.RenderCL))
	decodeRenderCL(bw, d, f)
	if bound != nil {
		fmt.Fprintf(bw, "\n== state bound for draw %d ==\n", f.marker)
		ops := make([]int, 0, len(bound))
		for op := range bound {
			ops = append(ops, int(op))
		}
		sort.Ints(ops)
		for _, op := range ops {
			rec := bound[uint8(op)]
			l, err := cl.NextRecord(rec, 0)
			if err != nil {
				continue
			}
			fmt.Fprintf(bw, "  %s\n", l.AppendText(nil, rec))
		}
	}
	decodeShaders(bw, d, f, bound)
	fmt.Fprintf(bw, "\n== buffers the job referenced ==\n")
	for _, b := range d.BOs {
		rw := "read"
		if b.Write {
			rw = "read/write"
		}
		fmt.Fprintf(bw, "  0x%08x..0x%08x  %s\n", b.VA, b.VA+b.Size, rw)
	}
	return bw.Flush()
}

// decodePackets decodes whole ring packets one per line with their ring
// offsets.
func decodePackets(w io.Writer, words []uint32, start, size uint32) {
	for i := 0; i < len(words); {
		n := 1 + int(words[i]&0xFFFF)
		if words[i]>>28 != 7 || i+n > len(words) {
			fmt.Fprintf(w, "     +%04x  %08x  (not a packet header)\n", (start+4*uint32(i))&(size-1), words[i])
			i++
			continue
		}
		var buf bytes.Buffer
		if err := cl.DecodeRing(&buf, words[i:i+n]); err != nil {
			fmt.Fprintf(&buf, "!! %v\n", err)
		}
		text := buf.String()
		if _, rest, ok := strings.Cut(text, ": "); ok {
			text = rest // DecodeRing's own offset, relative to this slice
		}
		fmt.Fprintf(w, "     +%04x  %s", (start+4*uint32(i))&(size-1), text)
		i += n
	}
}

func boName(d *Dump, va uint32) string {
	for _, b := range d.BOs {
		if va >= b.VA && va-b.VA < b.Size {
			return fmt.Sprintf(" (inside the BO at 0x%08x)", b.VA)
		}
	}
	return " (outside every BO the job referenced)"
}

func indent(w io.Writer, b *bytes.Buffer, prefix string) {
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if line != "" {
			io.WriteString(w, prefix+line)
		}
	}
}

// decodeBinCL prints the binning list, marking the failing draw's marker
// and primitive records, and returns the state records in force at that
// draw (nil when the draw is unknown).
func decodeBinCL(w io.Writer, d *Dump, f failure) map[uint8][]byte {
	state := map[uint8][]byte{}
	var bound map[uint8][]byte
	inDraw := false
	for off := 0; off < len(d.BinCL); {
		l, err := cl.NextRecord(d.BinCL, off)
		if err != nil {
			fmt.Fprintf(w, "!! %v\n", err)
			break
		}
		rec := d.BinCL[off : off+l.Size]
		mark := "   "
		switch {
		case l.Opcode == cl.OpMarker:
			var m cl.Marker
			inDraw = m.Unpack(rec) == nil && f.haveMarker && m.Id == f.marker
			if inDraw {
				mark = "=> "
				bound = map[uint8][]byte{}
				for k, v := range state {
					bound[k] = v
				}
			}
		case l.Opcode == cl.OpIndexedPrimitiveList || l.Opcode == cl.OpVertexArrayPrimitives || l.Opcode == cl.OpVertexArrayPrimitivesIndirect:
			if inDraw {
				mark = "=> "
			}
		case l.Opcode != cl.OpNop && l.Opcode != cl.OpFlush && l.Opcode != cl.OpStartTileBinning && l.Opcode != cl.OpTileBinningModeConfiguration:
			state[l.Opcode] = rec
			inDraw = false
		}
		fmt.Fprintf(w, "%s%08x: %s\n", mark, d.BinCLAddress+uint32(off), l.AppendText(nil, rec))
		off += l.Size
		if l.Opcode == cl.OpFlush {
			break
		}
	}
	return bound
}

// decodeRenderCL prints the render list's header and the failing tile's
// records (all tiles when the tile is unknown).
func decodeRenderCL(w io.Writer, d *Dump, f failure) {
	inTile := !f.haveTile
	for off := 0; off < len(d.RenderCL); {
		l, err := cl.NextRecord(d.RenderCL, off)
		if err != nil {
			fmt.Fprintf(w, "!! %v\n", err)
			return
		}
		rec := d.RenderCL[off : off+l.Size]
		mark := "   "
		if l.Opcode == cl.OpTileCoordinates {
			var tc cl.TileCoordinates
			if tc.Unpack(rec) == nil && f.haveTile {
				inTile = int(tc.Column) == f.tileCol && int(tc.Row) == f.tileRw
				if inTile {
					mark = "=> "
				}
			}
		}
		header := l.Opcode == cl.OpTileRenderingModeConfiguration || l.Opcode == cl.OpClearColors || l.Opcode == cl.OpHalt
		if inTile || header {
			fmt.Fprintf(w, "%s%08x: %s\n", mark, d.RenderCLAddress+uint32(off), l.AppendText(nil, rec))
		}
		off += l.Size
		if l.Opcode == cl.OpHalt {
			return
		}
	}
}

// decodeShaders prints the shader record of the failing draw (or of
// every GL_SHADER_STATE) and disassembles the shaders, marking the PC.
func decodeShaders(w io.Writer, d *Dump, f failure, bound map[uint8][]byte) {
	var records []cl.GLShaderState
	if rec, ok := bound[cl.OpGLShaderState]; ok {
		var s cl.GLShaderState
		if s.Unpack(rec) == nil {
			records = append(records, s)
		}
	} else {
		seen := map[uint32]bool{}
		for off := 0; off < len(d.BinCL); {
			l, err := cl.NextRecord(d.BinCL, off)
			if err != nil {
				break
			}
			var s cl.GLShaderState
			if l.Opcode == cl.OpGLShaderState && s.Unpack(d.BinCL[off:]) == nil && !seen[s.Address] {
				seen[s.Address] = true
				records = append(records, s)
			}
			off += l.Size
		}
	}
	for _, s := range records {
		off := int64(s.Address) - int64(d.ShaderRecordsAddress)
		n := int64(cl.SizeShaderRecord + int(s.AttributeCount)*cl.SizeAttributeRecord)
		if off < 0 || off+n > int64(len(d.ShaderRecords)) {
			fmt.Fprintf(w, "\n!! shader record @0x%08x outside the dumped records\n", s.Address)
			continue
		}
		fmt.Fprintf(w, "\n== shader record @0x%08x ==\n", s.Address)
		var buf bytes.Buffer
		if err := cl.DecodeShaderRecord(&buf, d.ShaderRecords[off:off+n], int(s.AttributeCount)); err != nil {
			fmt.Fprintf(&buf, "!! %v\n", err)
		}
		indent(w, &buf, "  ")
	}
	for _, m := range d.Memory {
		marked := f.haveShader && f.entry == m.VA
		fmt.Fprintf(w, "\n== %s @0x%08x", m.What, m.VA)
		if marked {
			fmt.Fprintf(w, " — failed at PC 0x%08x", f.pc)
		}
		fmt.Fprintf(w, " ==\n")
		code := make([]uint64, 0, len(m.Data)/8)
		for i := 0; i+8 <= len(m.Data); i += 8 {
			word := uint64(m.Data[i]) | uint64(m.Data[i+1])<<8 | uint64(m.Data[i+2])<<16 | uint64(m.Data[i+3])<<24 |
				uint64(m.Data[i+4])<<32 | uint64(m.Data[i+5])<<40 | uint64(m.Data[i+6])<<48 | uint64(m.Data[i+7])<<56
			code = append(code, word)
			if in, err := isa.Decode(word); err == nil && in.Sig == isa.SigEND && (!marked || m.VA+uint32(i) >= f.pc) {
				break
			}
		}
		var buf bytes.Buffer
		isa.DisasmProgram(&buf, code, m.VA)
		pcText := fmt.Sprintf("%08x:", f.pc)
		for _, line := range strings.SplitAfter(buf.String(), "\n") {
			if line == "" {
				continue
			}
			prefix := "   "
			if marked && strings.HasPrefix(line, pcText) {
				prefix = "=> "
			}
			io.WriteString(w, prefix+line)
		}
	}
}
