package kernel

import (
	"encoding/binary"
	"fmt"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// Limits the validator enforces. They mirror what the hardware accepts
// (hw's binner and shader-record loader), so that a validated list never
// raises CL_ERROR.
const (
	tileSize       = 64 // pixels; 32 with Multisample4x (hardware.md §4.2)
	tileSizeMSAA   = 32
	tileBlockFirst = 256 // initial block of every tile list
	// maxRenderSize: TILE_COORDINATES carries u8 column/row, so 256 tiles
	// of 32 pixels (MSAA) per side.
	maxRenderSize = 256 * tileSizeMSAA
	maxAttributes = 16 // hw: GL_SHADER_STATE AttributeCount limit
	maxVaryings   = 64 // hw: FragmentNumVaryings limit
	maxIndices    = 1 << 26
	maxCLBytes    = 16 << 20 // per buffer of a submission
	maxRelocs     = 1 << 20
	maxBORefs     = 4096
	maxInFences   = 1024
)

var spaceNames = [...]string{"bin CL", "shader records", "uniforms"}

func (s RelocSpace) String() string {
	if int(s) < len(spaceNames) {
		return spaceNames[s]
	}
	return fmt.Sprintf("RelocSpace(%d)", int(s))
}

// attrRange is what a primitive record checks against: one attribute of
// the current shader state.
type attrRange struct {
	maxOffset uint32
	stride    uint32
	elem      uint32
}

// shaderState is a validated GL_SHADER_STATE: its attributes' ranges.
type shaderState struct {
	off      uint32
	attrs    []attrRange
	varyings int // FragmentNumVaryings
}

// validator checks one submission, working on the kernel's copy of the
// user buffers inside the exec BO (so user space cannot change them after
// the check), then patches relocations and generates the render list.
type validator struct {
	d       *Device
	a       *SubmitCLArgs
	bos     []*bo
	bin     []byte // kernel copies inside the exec BO
	sr      []byte
	uni     []byte
	srVA    uint32
	uniVA   uint32
	relocAt [3]map[uint32]int
	used    []bool

	haveTBMC, haveStart, haveFlush bool
	tbmcOff                        int
	msaa                           bool
	cur                            *shaderState
	// storeBytes bounds what the binner's vertex store can take for the
	// primitive records seen so far (vertexStoreBound).
	storeBytes uint64
	shaders    map[uint64]*shaderState
}

func (v *validator) fail(no Errno, format string, args ...any) error {
	return errorf(no, format, args...)
}

// validate runs every check on the kernel copies.
func (v *validator) validate() error {
	if err := v.checkRelocs(); err != nil {
		return err
	}
	if err := v.walkBinCL(); err != nil {
		return err
	}
	if err := v.checkUnusedRelocs(); err != nil {
		return err
	}
	if err := v.checkTarget("colour", &v.a.Color); err != nil {
		return err
	}
	return v.checkTarget("depth/stencil", &v.a.ZS)
}

// checkRelocs validates every relocation on its own and indexes them by
// the location they patch.
func (v *validator) checkRelocs() error {
	a := v.a
	bufs := [3][]byte{v.bin, v.sr, v.uni}
	for i := range v.relocAt {
		v.relocAt[i] = map[uint32]int{}
	}
	v.used = make([]bool, len(a.Relocs))
	for i, r := range a.Relocs {
		if int(r.Space) >= len(bufs) {
			return v.fail(EINVAL, "reloc %d: unknown space %d", i, r.Space)
		}
		buf := bufs[r.Space]
		if uint64(r.Offset)+4 > uint64(len(buf)) {
			return v.fail(EINVAL, "reloc %d: %s offset %#x: u32 past the end (%#x bytes)", i, r.Space, r.Offset, len(buf))
		}
		if r.Space == SpaceUniforms && r.Offset%4 != 0 {
			return v.fail(EINVAL, "reloc %d: uniforms offset %#x not 4-aligned", i, r.Offset)
		}
		if prev, dup := v.relocAt[r.Space][r.Offset]; dup {
			return v.fail(EINVAL, "reloc %d: %s offset %#x already patched by reloc %d", i, r.Space, r.Offset, prev)
		}
		v.relocAt[r.Space][r.Offset] = i
		switch r.Target {
		case TargetBO:
			if r.BOIndex >= uint32(len(v.bos)) {
				return v.fail(EINVAL, "reloc %d: BO index %d out of range (%d BOs)", i, r.BOIndex, len(v.bos))
			}
			if b := v.bos[r.BOIndex]; r.Delta >= b.size() {
				return v.fail(EFAULT, "reloc %d: offset %#x past BO %d size %#x", i, r.Delta, r.BOIndex, b.size())
			}
		case TargetShaderRecords:
			if r.Delta >= uint32(len(v.sr)) {
				return v.fail(EFAULT, "reloc %d: offset %#x past shader records (%#x bytes)", i, r.Delta, len(v.sr))
			}
		case TargetUniforms:
			if r.Delta > uint32(len(v.uni)) {
				return v.fail(EFAULT, "reloc %d: offset %#x past uniforms (%#x bytes)", i, r.Delta, len(v.uni))
			}
		default:
			return v.fail(EINVAL, "reloc %d: unknown target %d", i, r.Target)
		}
	}
	return nil
}

// relocFor returns the relocation covering the address field at off of
// space, marking it used, or an error naming the field.
func (v *validator) relocFor(space RelocSpace, off uint32, where func() string) (int, error) {
	i, ok := v.relocAt[space][off]
	if !ok {
		return 0, v.fail(EINVAL, "%s is not covered by a relocation (raw addresses are not allowed)", where())
	}
	v.used[i] = true
	return i, nil
}

func (v *validator) targetVA(r *Reloc) uint32 {
	switch r.Target {
	case TargetBO:
		return v.bos[r.BOIndex].va + r.Delta
	case TargetShaderRecords:
		return v.srVA + r.Delta
	default:
		return v.uniVA + r.Delta
	}
}

// suffixed returns where's text followed by s. Error locations are
// functions formatted only when a check fails: building them eagerly was
// most of the validator's allocations per draw (BenchmarkSmallDrawsUniform).
func suffixed(where func() string, s string) func() string {
	return func() string { return where() + s }
}

// boRange checks that [delta, delta+n) lies in BO idx.
func (v *validator) boRange(where func() string, idx, delta uint32, n uint64, what string) error {
	b := v.bos[idx]
	if end := uint64(delta) + n; end > uint64(b.size()) {
		return v.fail(EFAULT, "%s: %s ends at %#x past BO %d size %#x", where(), what, end, idx, b.size())
	}
	return nil
}

// walkBinCL validates every record of the bin CL.
func (v *validator) walkBinCL() error {
	bin := v.bin
	for off := 0; off < len(bin); {
		op := bin[off]
		size, ok := cl.RecordSize(op)
		if !ok {
			return v.fail(EINVAL, "bin CL offset %d: unknown opcode %#02x", off, op)
		}
		name := cl.RecordLayout(op).Name
		if off+size > len(bin) {
			return v.fail(EINVAL, "bin CL offset %d: %s: record of %d bytes runs past the end of the list (%d bytes)", off, name, size, len(bin))
		}
		where := func() string { return fmt.Sprintf("bin CL offset %d: %s", off, name) }
		if !cl.AllowedIn(op, cl.ListBin) {
			return v.fail(EINVAL, "%s: record not allowed in a bin CL", where())
		}
		if v.haveFlush {
			return v.fail(EINVAL, "%s: record after FLUSH", where())
		}
		rec := bin[off : off+size]
		if err := v.record(op, rec, uint32(off), where); err != nil {
			return err
		}
		off += size
	}
	switch {
	case !v.haveTBMC:
		return v.fail(EINVAL, "bin CL: missing TILE_BINNING_MODE_CONFIGURATION")
	case !v.haveStart:
		return v.fail(EINVAL, "bin CL: missing START_TILE_BINNING")
	case !v.haveFlush:
		return v.fail(EINVAL, "bin CL: missing FLUSH at the end")
	}
	return nil
}

// record validates one record of the bin CL.
func (v *validator) record(op uint8, rec []byte, off uint32, where func() string) error {
	// Order: TILE_BINNING_MODE_CONFIGURATION, START_TILE_BINNING, the rest, FLUSH.
	switch op {
	case cl.OpNop, cl.OpMarker:
		return nil
	case cl.OpTileBinningModeConfiguration:
		if v.haveTBMC {
			return v.fail(EINVAL, "%s: duplicate", where())
		}
		v.haveTBMC = true
		v.tbmcOff = int(off)
		var r cl.TileBinningModeConfiguration
		if err := r.Unpack(rec); err != nil {
			return v.fail(EINVAL, "%s: %v", where(), err)
		}
		v.msaa = r.Multisample4x
		for _, ao := range cl.AddressFields(op) {
			if i, ok := v.relocAt[SpaceBinCL][off+uint32(ao)]; ok {
				return v.fail(EINVAL, "%s: reloc %d: tile allocation addresses are filled by the kernel", where(), i)
			}
		}
		return nil
	case cl.OpStartTileBinning:
		if !v.haveTBMC {
			return v.fail(EINVAL, "%s: before TILE_BINNING_MODE_CONFIGURATION", where())
		}
		if v.haveStart {
			return v.fail(EINVAL, "%s: duplicate", where())
		}
		v.haveStart = true
		return nil
	case cl.OpFlush:
		if !v.haveStart {
			return v.fail(EINVAL, "%s: before START_TILE_BINNING", where())
		}
		v.haveFlush = true
		return nil
	}
	if !v.haveStart {
		return v.fail(EINVAL, "%s: before START_TILE_BINNING", where())
	}
	switch op {
	case cl.OpGLShaderState:
		var r cl.GLShaderState
		if err := r.Unpack(rec); err != nil {
			return v.fail(EINVAL, "%s: %v", where(), err)
		}
		return v.shaderStateRecord(&r, off, where)
	case cl.OpIndexedPrimitiveList:
		var r cl.IndexedPrimitiveList
		if err := r.Unpack(rec); err != nil {
			return v.fail(EINVAL, "%s: %v", where(), err)
		}
		return v.indexedPrimitives(&r, off, where)
	case cl.OpVertexArrayPrimitives:
		var r cl.VertexArrayPrimitives
		if err := r.Unpack(rec); err != nil {
			return v.fail(EINVAL, "%s: %v", where(), err)
		}
		return v.arrayPrimitives(&r, where)
	case cl.OpVertexArrayPrimitivesIndirect:
		var r cl.VertexArrayPrimitivesIndirect
		if err := r.Unpack(rec); err != nil {
			return v.fail(EINVAL, "%s: %v", where(), err)
		}
		return v.indirectPrimitives(&r, off, where)
	case cl.OpOcclusionQueryCounter:
		return v.occlusionCounter(rec, off, where)
	}
	if err := checkStateRecord(op, rec); err != nil {
		return v.fail(EINVAL, "%s: %v", where(), err)
	}
	if len(cl.AddressFields(op)) != 0 {
		return v.fail(EINVAL, "%s: BUG: unhandled address record", where())
	}
	return nil
}

// checkStateRecord range-checks the enum fields of a state record.
func checkStateRecord(op uint8, rec []byte) error {
	var r interface {
		Check() error
	}
	var err error
	switch op {
	case cl.OpConfigurationBits:
		var x cl.ConfigurationBits
		err, r = x.Unpack(rec), &x
	case cl.OpBlendConfig:
		var x cl.BlendConfig
		err, r = x.Unpack(rec), &x
	case cl.OpStencilConfig:
		var x cl.StencilConfig
		err, r = x.Unpack(rec), &x
	default:
		return nil // no enum fields
	}
	if err != nil {
		return err
	}
	return r.Check()
}

func (v *validator) shaderStateRecord(r *cl.GLShaderState, off uint32, where func() string) error {
	ri, err := v.relocFor(SpaceBinCL, off+uint32(cl.AddressFields(cl.OpGLShaderState)[0]), suffixed(where, ": Address"))
	if err != nil {
		return err
	}
	rl := &v.a.Relocs[ri]
	if rl.Target != TargetShaderRecords {
		return v.fail(EINVAL, "%s: reloc %d must target the shader records", where(), ri)
	}
	if rl.Delta%16 != 0 {
		return v.fail(EINVAL, "%s: shader record offset %#x not 16-byte aligned", where(), rl.Delta)
	}
	if r.AttributeCount > maxAttributes {
		return v.fail(EINVAL, "%s: AttributeCount %d > %d", where(), r.AttributeCount, maxAttributes)
	}
	end := uint64(rl.Delta) + cl.SizeShaderRecord + uint64(r.AttributeCount)*cl.SizeAttributeRecord
	if end > uint64(len(v.sr)) {
		return v.fail(EFAULT, "%s: shader record at %#x with %d attributes ends at %#x past the shader records (%#x bytes)", where(), rl.Delta, r.AttributeCount, end, len(v.sr))
	}
	key := uint64(rl.Delta)<<8 | uint64(r.AttributeCount)
	if s := v.shaders[key]; s != nil {
		v.cur = s
		return nil
	}
	s, err := v.shaderRecord(rl.Delta, int(r.AttributeCount))
	if err != nil {
		return err
	}
	v.shaders[key] = s
	v.cur = s
	return nil
}

// shaderRecord validates the shader record at off and its count attribute
// records.
func (v *validator) shaderRecord(off uint32, count int) (*shaderState, error) {
	where := func() string { return fmt.Sprintf("shader record at %#x", off) }
	var r cl.ShaderRecord
	if err := r.Unpack(v.sr[off:]); err != nil {
		return nil, v.fail(EINVAL, "%s: %v", where(), err)
	}
	const knownFlags = cl.ShaderFlagFragmentSingleThreaded | cl.ShaderFlagVertexWritesPointSize | cl.ShaderFlagFragmentDiscardsOrWritesZ
	if r.Flags&^knownFlags != 0 {
		return nil, v.fail(EINVAL, "%s: unknown Flags bits %#x", where(), r.Flags&^knownFlags)
	}
	if r.FragmentNumVaryings > maxVaryings {
		return nil, v.fail(EINVAL, "%s: FragmentNumVaryings %d > %d", where(), r.FragmentNumVaryings, maxVaryings)
	}
	want := 4 + int(r.FragmentNumVaryings)
	if r.Flags&cl.ShaderFlagVertexWritesPointSize != 0 {
		want++
	}
	if int(r.VertexOutputWords) < want {
		return nil, v.fail(EINVAL, "%s: VertexOutputWords %d < %d (position, point size, varyings)", where(), r.VertexOutputWords, want)
	}
	l := cl.ShaderRecordLayout
	for fi := range l.Fields {
		f := &l.Fields[fi]
		if !f.Address {
			continue
		}
		fo := off + uint32(f.Start/8)
		fwhere := func() string { return where() + ": " + f.Name }
		raw := binary.LittleEndian.Uint32(v.sr[fo:])
		if f.Name == "ScratchAddress" {
			if _, ok := v.relocAt[SpaceShaderRecords][fo]; !ok && raw == 0 {
				if r.ScratchBytesPerThread != 0 {
					return nil, v.fail(EINVAL, "%s: ScratchBytesPerThread %d without ScratchAddress", where(), r.ScratchBytesPerThread)
				}
				continue
			}
		}
		ri, err := v.relocFor(SpaceShaderRecords, fo, fwhere)
		if err != nil {
			return nil, err
		}
		rl := &v.a.Relocs[ri]
		switch f.Name {
		case "FragmentCodeAddress", "VertexCodeAddress", "CoordinateCodeAddress":
			if rl.Target != TargetBO {
				return nil, v.fail(EINVAL, "%s: reloc %d must target a BO", fwhere(), ri)
			}
			if rl.Delta%8 != 0 {
				return nil, v.fail(EINVAL, "%s: code offset %#x not 8-byte aligned", fwhere(), rl.Delta)
			}
			if err := v.boRange(fwhere, rl.BOIndex, rl.Delta, 8, "code"); err != nil {
				return nil, err
			}
		case "ScratchAddress":
			if rl.Target != TargetBO {
				return nil, v.fail(EINVAL, "%s: reloc %d must target a BO", fwhere(), ri)
			}
			if v.a.BOs[rl.BOIndex].Flags&BOWrite == 0 {
				return nil, v.fail(EINVAL, "%s: scratch BO %d is not marked BOWrite", fwhere(), rl.BOIndex)
			}
			n := uint64(r.ScratchBytesPerThread) * uint64(v.d.numQPUs)
			if err := v.boRange(fwhere, rl.BOIndex, rl.Delta, n, fmt.Sprintf("scratch of %d threads × %d bytes", v.d.numQPUs, r.ScratchBytesPerThread)); err != nil {
				return nil, err
			}
		default: // uniform streams: in Uniforms or in a BO
			if rl.Target == TargetShaderRecords {
				return nil, v.fail(EINVAL, "%s: reloc %d: uniforms cannot live in the shader records", fwhere(), ri)
			}
			if rl.Delta%4 != 0 {
				return nil, v.fail(EINVAL, "%s: uniform stream offset %#x not 4-aligned", fwhere(), rl.Delta)
			}
		}
	}
	s := &shaderState{off: off, attrs: make([]attrRange, count), varyings: int(r.FragmentNumVaryings)}
	for i := 0; i < count; i++ {
		ao := off + cl.SizeShaderRecord + uint32(i)*cl.SizeAttributeRecord
		awhere := func() string { return fmt.Sprintf("%s: attribute %d", where(), i) }
		var at cl.AttributeRecord
		if err := at.Unpack(v.sr[ao:]); err != nil {
			return nil, v.fail(EINVAL, "%s: %v", awhere(), err)
		}
		if err := at.Check(); err != nil {
			return nil, v.fail(EINVAL, "%s: %v", awhere(), err)
		}
		if at.Components < 1 || at.Components > 4 {
			return nil, v.fail(EINVAL, "%s: Components %d not in 1..4", awhere(), at.Components)
		}
		ri, err := v.relocFor(SpaceShaderRecords, ao+uint32(cl.AttributeRecordLayout.AddressOffsets[0]), suffixed(awhere, ": Address"))
		if err != nil {
			return nil, err
		}
		rl := &v.a.Relocs[ri]
		if rl.Target != TargetBO {
			return nil, v.fail(EINVAL, "%s: reloc %d must target a BO", awhere(), ri)
		}
		if err := v.boRange(awhere, rl.BOIndex, rl.Delta, uint64(at.MaxOffset), "Address+MaxOffset"); err != nil {
			return nil, err
		}
		s.attrs[i] = attrRange{maxOffset: at.MaxOffset, stride: uint32(at.Stride), elem: uint32(at.Components) * attrTypeSize(at.Type)}
	}
	return s, nil
}

func attrTypeSize(t cl.AttributeType) uint32 {
	switch t {
	case cl.AttrByte, cl.AttrUnsignedByte:
		return 1
	case cl.AttrShort, cl.AttrUnsignedShort:
		return 2
	}
	return 4 // FLOAT, FIXED
}

// checkMaxIndex checks every attribute of the current shader state can be
// read for vertex indices 0..maxIndex.
func (v *validator) checkMaxIndex(where func() string, maxIndex uint64) error {
	for i, at := range v.cur.attrs {
		need := maxIndex*uint64(at.stride) + uint64(at.elem)
		if need > uint64(at.maxOffset) {
			return v.fail(EFAULT, "%s: max index %d reads %#x bytes of attribute %d (shader record at %#x) but MaxOffset is %#x", where(), maxIndex, need, i, v.cur.off, at.maxOffset)
		}
	}
	return nil
}

func (v *validator) primitiveCommon(mode cl.PrimitiveMode, length uint32, where func() string) error {
	if !mode.Valid() {
		return v.fail(EINVAL, "%s: invalid primitive Mode %d", where(), mode)
	}
	if length > maxIndices {
		return v.fail(EINVAL, "%s: Length %d > %d", where(), length, maxIndices)
	}
	if v.cur == nil {
		return v.fail(EINVAL, "%s: no GL_SHADER_STATE before the primitive", where())
	}
	return nil
}

// occlusionCounter checks OCCLUSION_QUERY_COUNTER: Address 0 (no
// relocation) turns the counter off; otherwise a relocation must make it
// a 4-aligned word of a BO the job may write, since the tile renderer adds
// to it.
func (v *validator) occlusionCounter(rec []byte, off uint32, where func() string) error {
	ao := off + uint32(cl.AddressFields(cl.OpOcclusionQueryCounter)[0])
	if _, ok := v.relocAt[SpaceBinCL][ao]; !ok {
		var r cl.OcclusionQueryCounter
		if err := r.Unpack(rec); err != nil {
			return v.fail(EINVAL, "%s: %v", where(), err)
		}
		if r.Address != 0 {
			return v.fail(EINVAL, "%s: Address %#x is not covered by a relocation (0 turns the counter off)", where(), r.Address)
		}
		return nil
	}
	ri, err := v.relocFor(SpaceBinCL, ao, suffixed(where, ": Address"))
	if err != nil {
		return err
	}
	rl := &v.a.Relocs[ri]
	if rl.Target != TargetBO {
		return v.fail(EINVAL, "%s: reloc %d: the counter must be in a BO", where(), ri)
	}
	if v.a.BOs[rl.BOIndex].Flags&BOWrite == 0 {
		return v.fail(EINVAL, "%s: counter BO %d is not marked BOWrite", where(), rl.BOIndex)
	}
	if rl.Delta%4 != 0 {
		return v.fail(EINVAL, "%s: counter offset %#x not 4-byte aligned", where(), rl.Delta)
	}
	return v.boRange(where, rl.BOIndex, rl.Delta, 4, "occlusion counter")
}

func (v *validator) indexedPrimitives(r *cl.IndexedPrimitiveList, off uint32, where func() string) error {
	if err := v.primitiveCommon(r.Mode, r.Length, where); err != nil {
		return err
	}
	if !r.IndexType.Valid() {
		return v.fail(EINVAL, "%s: invalid IndexType %d", where(), r.IndexType)
	}
	ri, err := v.relocFor(SpaceBinCL, off+uint32(cl.AddressFields(cl.OpIndexedPrimitiveList)[0]), suffixed(where, ": Address"))
	if err != nil {
		return err
	}
	rl := &v.a.Relocs[ri]
	if rl.Target != TargetBO {
		return v.fail(EINVAL, "%s: reloc %d: index buffer must be a BO", where(), ri)
	}
	isz := uint64(1) << r.IndexType
	if err := v.boRange(where, rl.BOIndex, rl.Delta, uint64(r.Length)*isz, "index buffer"); err != nil {
		return err
	}
	// The binner shades the span of the indices when it is compact (at
	// most 2·Length+64 and MaxIndex+1 slots), else one slot per index.
	n := uint64(r.Length)
	v.storeBytes += vertexStoreBound(max(n, min(2*n+64, uint64(r.MaxIndex)+1)), v.cur.varyings)
	return v.checkMaxIndex(where, uint64(r.MaxIndex))
}

// Vertex store (docs/hardware.md §4.2.1): the binner may store a record's
// shaded vertices, 4·(5 + varyings) bytes each, in room it takes from the
// end of the job's initial pool, at most maxVertexStore per job. SubmitCL
// adds the bound of the job's records to the pool when the quota allows.
const maxVertexStore = 32 << 20 // hw maxStoreBytes

// vertexStoreBound is the pool a record of slots shaded vertices with
// varyings varyings can take.
func vertexStoreBound(slots uint64, varyings int) uint64 {
	return min(slots*4*uint64(5+varyings), maxVertexStore)
}

func (v *validator) arrayPrimitives(r *cl.VertexArrayPrimitives, where func() string) error {
	if err := v.primitiveCommon(r.Mode, r.Length, where); err != nil {
		return err
	}
	if r.Length == 0 {
		return nil
	}
	last := uint64(r.FirstIndex) + uint64(r.Length) - 1
	if last > 0xFFFF_FFFF {
		return v.fail(EINVAL, "%s: FirstIndex %d + Length %d overflows", where(), r.FirstIndex, r.Length)
	}
	v.storeBytes += vertexStoreBound(uint64(r.Length), v.cur.varyings)
	return v.checkMaxIndex(where, last)
}

// indirectPrimitives validates an indirect draw: its argument block lies
// in a BO the job reads, and MaxIndex keeps every vertex inside the
// attribute buffers. The counts themselves are read by the binner, which
// bounds them (hardware.md §4.2).
func (v *validator) indirectPrimitives(r *cl.VertexArrayPrimitivesIndirect, off uint32, where func() string) error {
	if err := v.primitiveCommon(r.Mode, 0, where); err != nil {
		return err
	}
	ri, err := v.relocFor(SpaceBinCL, off+uint32(cl.AddressFields(cl.OpVertexArrayPrimitivesIndirect)[0]), suffixed(where, ": Address"))
	if err != nil {
		return err
	}
	rl := &v.a.Relocs[ri]
	if rl.Target != TargetBO {
		return v.fail(EINVAL, "%s: reloc %d: the argument block must be in a BO", where(), ri)
	}
	if rl.Delta%4 != 0 {
		return v.fail(EINVAL, "%s: argument block offset %#x not 4-aligned", where(), rl.Delta)
	}
	if err := v.boRange(where, rl.BOIndex, rl.Delta, 16, "indirect argument block"); err != nil {
		return err
	}
	return v.checkMaxIndex(where, uint64(r.MaxIndex))
}

// checkUnusedRelocs rejects relocations in the bin CL or shader records
// that did not cover an address field.
func (v *validator) checkUnusedRelocs() error {
	for i, r := range v.a.Relocs {
		if !v.used[i] && r.Space != SpaceUniforms {
			return v.fail(EINVAL, "reloc %d: %s offset %#x is not an address field of a record in use", i, r.Space, r.Offset)
		}
	}
	return nil
}

// checkTarget validates one render target description.
func (v *validator) checkTarget(name string, t *RenderTarget) error {
	if !t.Enabled {
		if t.Load || t.Store || t.Clear {
			return v.fail(EINVAL, "%s target: Load/Store/Clear set on a disabled target", name)
		}
		return nil
	}
	if t.Load && t.Clear {
		return v.fail(EINVAL, "%s target: both Load and Clear", name)
	}
	if t.AllSamples && !v.msaa {
		return v.fail(EINVAL, "%s target: AllSamples in a job without Multisample4x", name)
	}
	if t.BOIndex >= uint32(len(v.bos)) {
		return v.fail(EINVAL, "%s target: BO index %d out of range (%d BOs)", name, t.BOIndex, len(v.bos))
	}
	flags := v.a.BOs[t.BOIndex].Flags
	if t.Store && flags&BOWrite == 0 {
		return v.fail(EINVAL, "%s target: BO %d is stored to but not marked BOWrite", name, t.BOIndex)
	}
	if t.Load && flags&BORead == 0 {
		return v.fail(EINVAL, "%s target: BO %d is loaded but not marked BORead", name, t.BOIndex)
	}
	bpp := uint32(4)
	switch t.Format {
	case cl.ColorFormatRGBA8888, cl.ColorFormatRGBX8888:
	case cl.ColorFormatRGB565, cl.ColorFormatRGBA4444, cl.ColorFormatRGBA5551:
		bpp = 2
	default:
		return v.fail(EINVAL, "%s target: colour format %d", name, t.Format)
	}
	if t.Format != 0 && t == &v.a.ZS {
		return v.fail(EINVAL, "%s target: colour format %d on the depth/stencil target", name, t.Format)
	}
	if t.AllSamples {
		if t.Format != 0 {
			return v.fail(EINVAL, "%s target: AllSamples with colour format %d (four samples are kept only as 32-bit pixels)", name, t.Format)
		}
		bpp = 16 // four samples per pixel
	}
	if t.Offset%4 != 0 || t.Stride%bpp != 0 {
		return v.fail(EINVAL, "%s target: offset %#x not 4-aligned or stride %d not a multiple of %d", name, t.Offset, t.Stride, bpp)
	}
	row := uint64(v.a.Width) * uint64(bpp)
	if uint64(t.Stride) < row {
		return v.fail(EINVAL, "%s target: stride %d < width %d × %d", name, t.Stride, v.a.Width, bpp)
	}
	end := uint64(t.Offset) + uint64(t.Stride)*uint64(v.a.Height-1) + row
	if end > uint64(v.bos[t.BOIndex].size()) {
		return v.fail(EFAULT, "%s target: %d×%d surface with stride %d ends at %#x past BO %d size %#x", name, v.a.Width, v.a.Height, t.Stride, end, t.BOIndex, v.bos[t.BOIndex].size())
	}
	return nil
}

// patchRelocs writes every relocation's GPU VA into the kernel copies.
func (v *validator) patchRelocs() {
	bufs := [3][]byte{v.bin, v.sr, v.uni}
	for i := range v.a.Relocs {
		r := &v.a.Relocs[i]
		binary.LittleEndian.PutUint32(bufs[r.Space][r.Offset:], v.targetVA(r))
	}
}
