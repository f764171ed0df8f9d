package hw

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/tilegpu/tilegpu/hw/qpu"
)

// programCache holds predecoded shader programs for one job. The kernel
// may reuse code memory between jobs, so caches are emptied at job start;
// within a job code memory is immutable.
type programCache struct {
	mu sync.Mutex
	m  map[uint32]*qpu.Program
	// xlat gives each loaded program its translation (shared across jobs:
	// keyed by address and content, so rewritten code is translated anew).
	xlat *qpu.TranslationCache
}

func (c *programCache) reset() {
	c.mu.Lock()
	clear(c.m)
	c.mu.Unlock()
}

// get returns the program at pc, decoding it through m on a miss.
func (c *programCache) get(m *mmu, pc uint32) (*qpu.Program, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.m[pc]; ok {
		return p, nil
	}
	p, err := qpu.Load(func(va uint32) (uint64, bool) {
		lo, f := m.read32(va)
		if f != nil {
			return 0, false
		}
		hi, f := m.read32(va + 4)
		if f != nil {
			return 0, false
		}
		return uint64(hi)<<32 | uint64(lo), true
	}, pc)
	if err != nil {
		if m.faulted {
			f := m.fault
			return nil, &f
		}
		return nil, &clError{msg: fmt.Sprintf("shader at %#x: %v", pc, err), cause: CLErrorCauseShader}
	}
	if c.xlat != nil {
		c.xlat.Translate(p)
	}
	if c.m == nil {
		c.m = make(map[uint32]*qpu.Program)
	}
	c.m[pc] = p
	return p, nil
}

// runShader runs one batch and turns a failure into a fault or CL error.
func runShader(g *GPU, core *qpu.Core, m *mmu, p *qpu.Program, b *qpu.Batch) error {
	m.faulted = false
	err := core.Run(p, b)
	if err == nil {
		return nil
	}
	if errors.Is(err, errAborted) || errors.Is(err, qpu.ErrWorkgroupFailed) {
		// Poll saw RESET, or another batch of the workgroup failed
		// (csd.go reports that one): not this batch's fault.
		return err
	}
	// Record where the batch failed for the crash dump's registers.
	pc := p.Entry()
	var qf *qpu.Fault
	var ie *qpu.InstrError
	switch {
	case errors.As(err, &qf):
		pc = qf.PC
	case errors.As(err, &ie):
		pc = ie.PC
	}
	g.shaderFailed(pc, p.Entry(), int(b.Stage), int(b.QPUNumber))
	if m.faulted {
		f := m.fault
		return &f
	}
	if qf != nil {
		return &pageFault{va: qf.VA, ctx: m.ctx, engine: m.engine, write: qf.Write}
	}
	return &clError{msg: fmt.Sprintf("shader: %v", err), cause: CLErrorCauseShader}
}

// vpmInWords is the size of a vertex's VPM input: VPMOffset is a u8 and an
// attribute spans 4 words.
const vpmInWords = 256 + 4

// attributeBytes is how many bytes loadAttributes reads per vertex.
func attributeBytes(sr *shaderRecord) uint64 {
	var n uint64
	for a := 0; a < sr.numAttrs; a++ {
		n += uint64(uint32(sr.attrs[a].components) * attrTypeSize[sr.attrs[a].typ])
	}
	return n
}

// loadAttributes fills the VPM input of lanes 0..len(idx)-1 with the
// converted attributes of vertices idx (docs/hardware.md §6.1).
func loadAttributes(m *mmu, sr *shaderRecord, idx []uint32, vpm []float32) error {
	var elem [16]byte
	for a := 0; a < sr.numAttrs; a++ {
		at := &sr.attrs[a]
		size := uint32(at.components) * attrTypeSize[at.typ]
		base := at.vpmOffset * 16
		for lane, v := range idx {
			off := uint64(v) * uint64(at.stride)
			if off+uint64(size) > uint64(at.maxOffset) || uint64(at.address)+off > math.MaxUint32 {
				return clErrorf("attribute %d of vertex %d beyond MaxOffset %d", a, v, at.maxOffset)
			}
			va := at.address + uint32(off)
			var src []byte
			if va&pageMask+size <= pageSize {
				pa, f := m.translate(va, false)
				if f != nil {
					return f
				}
				src = m.mem[pa : pa+size]
			} else {
				if f := m.read(va, elem[:size]); f != nil {
					return f
				}
				src = elem[:size]
			}
			if at.typ == 0 && at.components >= 3 {
				// FLOAT vec3/vec4 attributes (the "tris" scene's): the
				// words as they are, without convertAttr's per-component
				// type switch. The scene spent 6.6% of its CPU time here
				// (pprof); at 480×270 this and convertAttr went from
				// 49.3M to 22.6M instructions, hw as a whole from 850M
				// to 823M (callgrind).
				vpm[base+lane] = math.Float32frombits(binary.LittleEndian.Uint32(src[0:]))
				vpm[base+16+lane] = math.Float32frombits(binary.LittleEndian.Uint32(src[4:]))
				vpm[base+32+lane] = math.Float32frombits(binary.LittleEndian.Uint32(src[8:]))
				w := float32(1)
				if at.components == 4 {
					w = math.Float32frombits(binary.LittleEndian.Uint32(src[12:]))
				}
				vpm[base+48+lane] = w
				continue
			}
			for c := 0; c < 4; c++ {
				var x float32
				if c < at.components {
					x = convertAttr(src, c, at.typ, at.normalized)
				} else if c == 3 {
					x = 1
				}
				vpm[base+c*16+lane] = x
			}
		}
	}
	return nil
}

var attrTypeSize = [8]uint32{4, 1, 1, 2, 2, 4, 0, 0}

func convertAttr(b []byte, c int, typ uint32, norm bool) float32 {
	switch typ {
	case 0:
		return math.Float32frombits(binary.LittleEndian.Uint32(b[c*4:]))
	case 1:
		v := float32(int8(b[c]))
		if norm {
			return max(v/127, -1)
		}
		return v
	case 2:
		v := float32(b[c])
		if norm {
			return v / 255
		}
		return v
	case 3:
		v := float32(int16(binary.LittleEndian.Uint16(b[c*2:])))
		if norm {
			return max(v/32767, -1)
		}
		return v
	case 4:
		v := float32(binary.LittleEndian.Uint16(b[c*2:]))
		if norm {
			return v / 65535
		}
		return v
	default: // FIXED 16.16
		return float32(int32(binary.LittleEndian.Uint32(b[c*4:]))) / 65536
	}
}
