package qpu

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/tilegpu/tilegpu/hw/isa"
)

// Test address map: one flat mapped region.
const (
	memBase = 0x10000
	memSize = 0x20000
	codeVA  = 0x10000
	unifVA  = 0x14000
	dataVA  = 0x16000 // direct loads and stores
	texVA   = 0x18000 // texture descriptors and texels
)

// flatMem maps [base, base+len(data)); everything else faults. Writes below
// roEnd fault too (read-only code page).
type flatMem struct {
	base  uint32
	data  []byte
	roEnd uint32
	reads int
}

func newFlatMem() *flatMem {
	return &flatMem{base: memBase, data: make([]byte, memSize), roEnd: codeVA + 0x1000}
}

func (m *flatMem) in(va uint32) bool {
	return va >= m.base && uint64(va)+4 <= uint64(m.base)+uint64(len(m.data))
}

func (m *flatMem) Read32(va uint32) (uint32, bool) {
	m.reads++
	if !m.in(va) {
		return 0, false
	}
	return binary.LittleEndian.Uint32(m.data[va-m.base:]), true
}

func (m *flatMem) Write32(va uint32, v uint32) bool {
	if !m.in(va) || va < m.roEnd {
		return false
	}
	binary.LittleEndian.PutUint32(m.data[va-m.base:], v)
	return true
}

func (m *flatMem) put32(va uint32, vals ...uint32) {
	for k, v := range vals {
		binary.LittleEndian.PutUint32(m.data[va-m.base+uint32(k)*4:], v)
	}
}

func (m *flatMem) get32(va uint32) uint32 { return binary.LittleEndian.Uint32(m.data[va-m.base:]) }

// pagedMem adds the PageMem fast path.
type pagedMem struct{ *flatMem }

func (m pagedMem) Page(va uint32, write bool) ([]byte, bool) {
	p := va &^ 0xfff
	if p < m.base || uint64(p)+0x1000 > uint64(m.base)+uint64(len(m.data)) || (write && p < m.roEnd) {
		return nil, false
	}
	return m.data[p-m.base : p-m.base+0x1000], true
}

func (m *flatMem) fetch(va uint32) (uint64, bool) {
	lo, ok1 := m.Read32(va)
	hi, ok2 := m.Read32(va + 4)
	return uint64(hi)<<32 | uint64(lo), ok1 && ok2
}

// load assembles src at codeVA into m and predecodes it.
func load(t testing.TB, m *flatMem, src string) *Program {
	t.Helper()
	code, err := isa.AssembleProgram(src, codeVA)
	if err != nil {
		t.Fatal(err)
	}
	for k, w := range code {
		m.put32(codeVA+uint32(k)*8, uint32(w), uint32(w>>32))
	}
	p, err := Load(m.fetch, codeVA)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newBatch(stage Stage) *Batch {
	return &Batch{
		Stage:      stage,
		UniformsVA: unifVA,
		LaneMask:   0xffff,
		VPMIn:      make([]float32, 16*Lanes),
		VPMOut:     make([]float32, 16*Lanes),
		Varyings:   make([]float32, 8*Lanes),
	}
}

// runProgram assembles and runs src on b with a fresh core over paged
// memory, translated, and checks that the reference interpreter, run on
// copies of m and b, ends in the same state (DiffRun).
func runProgram(t testing.TB, m *flatMem, src string, b *Batch) error {
	t.Helper()
	p := load(t, m, src)
	ref := &flatMem{base: m.base, data: append([]byte(nil), m.data...), roEnd: m.roEnd}
	diff, err := DiffRun(p, pagedMem{ref}, pagedMem{m}, CloneBatch(b), b, DefaultStepLimit)
	if diff != "" {
		t.Errorf("translation and interpreter differ:\n%s", diff)
	}
	if !bytes.Equal(ref.data, m.data) {
		t.Errorf("translation and interpreter leave different memory")
	}
	return err
}

func mustRun(t testing.TB, m *flatMem, src string, b *Batch) {
	t.Helper()
	if err := runProgram(t, m, src, b); err != nil {
		t.Fatal(err)
	}
}

func f32(x float32) uint32 { return math.Float32bits(x) }

// setIn puts raw 32-bit lane values into VPM input word w.
func setIn(b *Batch, w int, vals [Lanes]uint32) {
	for l, v := range vals {
		b.VPMIn[w*Lanes+l] = math.Float32frombits(v)
	}
}

// out returns VPM output word w as raw bits.
func out(b *Batch, w int) (r [Lanes]uint32) {
	for l := range r {
		r[l] = math.Float32bits(b.VPMOut[w*Lanes+l])
	}
	return r
}

func isNaN32(u uint32) bool { return u&0x7fffffff > 0x7f800000 }
