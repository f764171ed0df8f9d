package kernel

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tilegpu/tilegpu/hw"
	"github.com/tilegpu/tilegpu/hw/cl"
)

// Crash dumps (devcoredump style, as msm's and KGSL's snapshots): when a
// job faults, fails in the hardware (CL_ERROR: a malformed list or an
// aborted shader) or hangs, the kernel writes what a developer needs to
// explain it into Options.DumpDir: the registers (rings, faults, the
// units' last draw markers and tiles, the shader-fault record, counters),
// every ring's packets around its read pointer, the job's validated lists,
// shader records and uniforms, the code of its shaders, the BOs it
// referenced and the fault. `tilegpu crashdec` decodes the file.
//
// The dump is taken with the device lock held, before the kernel acts on
// the failure (for a hang, before RESET moves the read pointers).

// DumpFormat is the Format field of every dump this kernel writes.
const DumpFormat = "tilegpu-devcoredump-1"

// maxDumps bounds the dumps one Device writes (a faulting client could
// otherwise fill the disk).
const maxDumps = 64

// Dump is a crash dump, written as JSON.
type Dump struct {
	Format   string
	Reason   string // "page fault", "cl error" or "hang"
	Message  string
	Time     time.Time
	Context  uint32
	Fence    uint64
	Priority Priority
	Fault    *DumpFault `json:",omitempty"`
	Regs     []DumpReg
	Rings    []DumpRing
	// The job's lists after validation and relocation, with their VAs.
	BinCL                []byte
	BinCLAddress         uint32
	RenderCL             []byte
	RenderCLAddress      uint32
	ShaderRecords        []byte
	ShaderRecordsAddress uint32
	Uniforms             []byte
	UniformsAddress      uint32
	// A compute or DMA job's descriptor list and engine (see Capture).
	List        []byte `json:",omitempty"`
	ListAddress uint32 `json:",omitempty"`
	ListEngine  string `json:",omitempty"`
	// Memory holds other ranges of the job's address space: the code of
	// every shader its shader records name.
	Memory []DumpRange
	BOs    []DumpBO // the BOs the job referenced
}

// DumpFault is the MMU's record of a page fault.
type DumpFault struct {
	VA     uint32
	Write  bool
	Engine string
	IB     uint32 `json:",omitempty"` // MMU_FAULT_IB: the indirect buffer it happened in (0: a ring packet)
}

// DumpReg is one register's value.
type DumpReg struct {
	Name   string
	Offset uint32
	Value  uint32
}

// DumpRing is a window of one ring: Words start at byte offset Start
// (words before RPTR, then the packets from RPTR on).
type DumpRing struct {
	Engine          string
	Priority        int
	Size            uint32
	RPTR, WPTR      uint32
	Start           uint32
	WordsBeforeRPTR int
	// PacketAligned: Start is a packet boundary (the blamed job's first
	// packet on this ring), so the words decode from the start.
	PacketAligned bool
	Words         []uint32
}

// DumpRange is memory of the job's address space.
type DumpRange struct {
	VA   uint32
	What string
	Data []byte
}

// DumpBO is a BO the job used.
type DumpBO struct {
	VA, Size uint32
	Write    bool
}

// ringWindow is how many words around RPTR a dump keeps of each ring.
const ringWindow = 48

// maxShaderDumpBytes bounds each shader's code in a dump.
const maxShaderDumpBytes = 16 << 10

// crashDump writes a dump for j (nil: no job could be blamed) when
// Options.DumpDir is set. d.mu is held.
func (d *Device) crashDump(reason, msg string, j *job, fault *faultRecord) {
	if d.opts.DumpDir == "" || d.dumps >= maxDumps {
		return
	}
	d.dumps++
	dp := &Dump{Format: DumpFormat, Reason: reason, Message: msg, Time: time.Now()}
	if fault != nil {
		eng := int(fault.status>>faultStatusEngineShift) & 0xF
		name := fmt.Sprint(eng)
		if eng < numEngines {
			name = engineNames[eng]
		}
		dp.Fault = &DumpFault{VA: fault.va, Write: fault.status&faultStatusWrite != 0, Engine: name, IB: fault.ib}
	}
	dp.Regs = d.dumpRegs()
	for e := range d.rings {
		for p, r := range d.rings[e] {
			rptr := d.m.ReadReg(regRingRptr(e, p)) & (r.size - 1)
			wptr := d.m.ReadReg(regRingWptr(e, p)) & (r.size - 1)
			before := uint32(min(ringWindow/2, int(r.submitted/4)))
			aligned := false
			if j != nil && j.prio == p {
				// Start at the job's first packet when it is in reach.
				first := j.ringEnd[e] - j.ringBytes(e)
				if back := (uint64(rptr) - first) & uint64(r.size-1); back/4 <= ringWindow/2 && j.ringEnd[e] >= j.ringBytes(e) {
					before, aligned = uint32(back/4), true
				}
			}
			start := (rptr - 4*before) & (r.size - 1)
			dr := DumpRing{Engine: engineNames[e], Priority: p, Size: r.size, RPTR: rptr, WPTR: wptr, Start: start, WordsBeforeRPTR: int(before), PacketAligned: aligned}
			for i := uint32(0); i < ringWindow; i++ {
				dr.Words = append(dr.Words, binary.LittleEndian.Uint32(d.mem[r.pa+(start+4*i)&(r.size-1):]))
			}
			dp.Rings = append(dp.Rings, dr)
		}
	}
	if j != nil {
		d.dumpJob(dp, j)
	}
	data, err := json.MarshalIndent(dp, "", " ")
	if err != nil {
		return
	}
	name := fmt.Sprintf("tilegpu-dump-%s-ctx%d-fence%d-%d.json", dp.Time.UTC().Format("20060102T150405"), dp.Context, dp.Fence, d.dumps)
	path := filepath.Join(d.opts.DumpDir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return
	}
	d.dumpPaths = append(d.dumpPaths, path)
	// The shader-fault record has been reported; the next dump must not
	// blame this shader again.
	d.m.WriteReg(reg(hw.RegShaderFaultInfo), 0)
	if d.opts.OnDump != nil {
		d.opts.OnDump(path)
	}
}

func (d *Device) dumpRegs() []DumpReg {
	var out []DumpReg
	add := func(name string, r reg) {
		out = append(out, DumpReg{Name: name, Offset: uint32(r), Value: d.m.ReadReg(r)})
	}
	add("INTR_STATUS", regIntrStatus)
	add("MMU_FAULT_VA", regMMUFaultVA)
	add("MMU_FAULT_CTX", regMMUFaultCtx)
	add("MMU_FAULT_STATUS", regMMUFaultStatus)
	add("MMU_FAULT_COUNT", regMMUFaultCount)
	for e := range numEngines {
		add("CP_STATUS("+engineNames[e]+")", regCPStatus(e))
		for p := range numPriorities {
			add(fmt.Sprintf("RING_RPTR(%s,%d)", engineNames[e], p), regRingRptr(e, p))
			add(fmt.Sprintf("RING_WPTR(%s,%d)", engineNames[e], p), regRingWptr(e, p))
		}
	}
	add("TIMESTAMP_LO", regTimestampLo)
	add("TIMESTAMP_HI", regTimestampHi)
	add("MARKER_BIN", reg(hw.RegMarkerBin))
	for k := 0; k < int(d.numCores) && k < hw.MaxMarkerCores; k++ {
		add(fmt.Sprintf("MARKER_CORE(%d)", k), reg(hw.RegMarkerCore(k)))
		add(fmt.Sprintf("TILE_CORE(%d)", k), reg(hw.RegTileCore(k)))
	}
	add("SHADER_FAULT_PC", reg(hw.RegShaderFaultPC))
	add("SHADER_FAULT_ENTRY", reg(hw.RegShaderFaultEntry))
	add("SHADER_FAULT_INFO", reg(hw.RegShaderFaultInfo))
	for c := range NumPerfCounters {
		add("PERF_COUNTER("+PerfCounter(c).String()+")", reg(hw.RegPerfCounter(hw.Counter(c))))
	}
	return out
}

// dumpJob copies j's lists, shader code and BO list into dp.
func (d *Device) dumpJob(dp *Dump, j *job) {
	dp.Context, dp.Fence, dp.Priority = j.ctx.id, j.fence.seqno, Priority(j.prio)
	exec := func(va, n uint32) []byte {
		off := j.exec.pa + (va - j.exec.va)
		return append([]byte(nil), d.mem[off:off+n]...)
	}
	if j.kind != kindGraphics {
		d.dumpSingleJob(dp, j, exec)
		return
	}
	dp.BinCL, dp.BinCLAddress = exec(j.binVA, j.binSize), j.binVA
	dp.RenderCL, dp.RenderCLAddress = exec(j.rclVA, j.rclSize), j.rclVA
	dp.ShaderRecords, dp.ShaderRecordsAddress = exec(j.srVA, j.srSize), j.srVA
	dp.Uniforms, dp.UniformsAddress = exec(j.uniVA, j.uniSize), j.uniVA
	for i, b := range j.bos {
		dp.BOs = append(dp.BOs, DumpBO{VA: b.va, Size: b.size(), Write: i < len(j.writes) && j.writes[i]})
	}
	// Shader code named by the job's shader records.
	seen := map[uint32]bool{}
	for off := 0; off < len(dp.BinCL); {
		l, err := cl.NextRecord(dp.BinCL, off)
		if err != nil {
			break
		}
		if l.Opcode == cl.OpGLShaderState {
			var s cl.GLShaderState
			var rec cl.ShaderRecord
			o := int64(-1)
			if s.Unpack(dp.BinCL[off:]) == nil {
				o = int64(s.Address) - int64(j.srVA)
			}
			if o >= 0 && o+cl.SizeShaderRecord <= int64(len(dp.ShaderRecords)) && rec.Unpack(dp.ShaderRecords[o:]) == nil {
				for _, p := range []struct {
					va   uint32
					what string
				}{{rec.CoordinateCodeAddress, "coordinate shader"}, {rec.VertexCodeAddress, "vertex shader"}, {rec.FragmentCodeAddress, "fragment shader"}} {
					if p.va != 0 && !seen[p.va] {
						seen[p.va] = true
						dp.Memory = append(dp.Memory, DumpRange{VA: p.va, What: p.what, Data: d.readVA(j.ctx, p.va, maxShaderDumpBytes)})
					}
				}
			}
		}
		off += l.Size
	}
}

// readVA reads up to n bytes at va of c's address space, stopping at the
// first unmapped page.
func (d *Device) readVA(c *gpuContext, va uint32, n int) []byte {
	var out []byte
	for len(out) < n {
		pa, _, ok := c.as.translate(va + uint32(len(out)))
		if !ok {
			break
		}
		chunk := min(n-len(out), int(pageSize-(pa&(pageSize-1))))
		out = append(out, d.mem[pa:pa+uint32(chunk)]...)
	}
	return out
}

// DumpPaths lists the crash dumps the device has written, oldest first.
func (d *Device) DumpPaths() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.dumpPaths...)
}

// dumpCLError dumps a CL_ERROR (a malformed list reached the hardware or a
// shader was aborted) blamed on j, the job CL_ERROR_IB named
// (handleCLError); msg is the error its fence gets.
func (d *Device) dumpCLError(j *job, msg string) {
	if d.opts.DumpDir == "" {
		return
	}
	if info := d.m.ReadReg(reg(hw.RegShaderFaultInfo)); info&hw.ShaderFaultValid != 0 {
		msg += fmt.Sprintf(" (last failed shader batch: QPU %d, PC %#08x)", info&0xFF, d.m.ReadReg(reg(hw.RegShaderFaultPC)))
	}
	d.crashDump("cl error", msg, j, nil)
}
