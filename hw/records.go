package hw

import "encoding/binary"

// Control-list opcodes (docs/hardware.md §4.1; bit layouts in hw/spec/tg.xml).
const (
	opHalt                  = 0
	opNOP                   = 1
	opMarker                = 2
	opFlush                 = 4
	opFlushAllState         = 5
	opStartTileBinning      = 6
	opBranch                = 16
	opBranchToSubList       = 17
	opReturnFromSubList     = 18
	opStoreTileBuffer       = 28
	opLoadTileBuffer        = 29
	opIndexedPrimitiveList  = 32
	opVertexArrayPrimitives = 33
	opVertexArrayIndirect   = 40
	opGLShaderState         = 64
	opConfigurationBits     = 96
	opFlatShadeFlags        = 97
	opPointSize             = 98
	opLineWidth             = 99
	opDepthOffset           = 101
	opClipWindow            = 102
	opViewportOffset        = 103
	opClipperZ              = 104
	opClipperXY             = 105
	opBlendConfig           = 106
	opBlendConstant         = 107
	opColorMask             = 108
	opStencilConfig         = 109
	opOcclusionCounter      = 110
	opTileBinningMode       = 112
	opTileRenderingMode     = 113
	opClearColors           = 114
	opTileCoordinates       = 115
	opTilePrimitive         = 128
	opTilePrimitiveStored   = 129
)

// recordSize is the size in bytes of each record, 0 for unknown opcodes.
var recordSize = [256]uint8{
	opHalt: 1, opNOP: 1, opMarker: 5, opFlush: 1, opFlushAllState: 1, opStartTileBinning: 1,
	opBranch: 5, opBranchToSubList: 5, opReturnFromSubList: 1,
	opStoreTileBuffer: 10, opLoadTileBuffer: 10,
	opIndexedPrimitiveList: 14, opVertexArrayPrimitives: 10, opVertexArrayIndirect: 10,
	opGLShaderState: 6, opConfigurationBits: 4, opFlatShadeFlags: 5,
	opPointSize: 5, opLineWidth: 5, opDepthOffset: 9, opClipWindow: 9,
	opViewportOffset: 9, opClipperZ: 9, opClipperXY: 9, opBlendConfig: 5,
	opBlendConstant: 17, opColorMask: 2, opStencilConfig: 8, opOcclusionCounter: 5,
	opTileBinningMode: 14, opTileRenderingMode: 6, opClearColors: 10,
	opTileCoordinates: 3, opTilePrimitive: 14, opTilePrimitiveStored: 14,
}

// tileStateOps are the state records the binner copies into tile lists,
// in the order it copies them.
var tileStateOps = [...]uint8{
	opGLShaderState, opConfigurationBits, opFlatShadeFlags, opPointSize,
	opLineWidth, opDepthOffset, opClipWindow, opViewportOffset, opClipperZ,
	opClipperXY, opBlendConfig, opBlendConstant, opColorMask, opStencilConfig,
	opOcclusionCounter,
}

// maxRecordSize bounds every record; fixed-size buffers hold one record.
const maxRecordSize = 17

func u16(b []byte, off int) uint32  { return uint32(binary.LittleEndian.Uint16(b[off:])) }
func u32(b []byte, off int) uint32  { return binary.LittleEndian.Uint32(b[off:]) }
func f32(b []byte, off int) float32 { return f32bits(u32(b, off)) }
func bit(b []byte, n int) bool      { return b[n/8]>>(n%8)&1 != 0 }
func bits(b []byte, n, w int) uint32 {
	v := uint32(b[n/8]) | uint32(b[min(n/8+1, len(b)-1)])<<8
	return (v >> (n % 8)) & (1<<w - 1)
}

// Shader record layout (36 bytes) and attribute records (12 bytes each).
const (
	shaderRecordSize    = 36
	attributeRecordSize = 12
	maxAttributes       = 16

	shaderFlagSingleThreaded  = 1 << 0
	shaderFlagWritesPointSize = 1 << 1
	shaderFlagDiscardsOrZ     = 1 << 2
)

// shaderRecord is a decoded shader record with its attributes.
type shaderRecord struct {
	flags                uint32
	numVaryings          int
	vertexOutputWords    int
	fsCode, fsUniforms   uint32
	vsCode, vsUniforms   uint32
	csCode, csUniforms   uint32
	scratch, scratchSize uint32
	numAttrs             int
	attrs                [maxAttributes]attribute
}

type attribute struct {
	address, maxOffset uint32
	stride             uint32
	typ                uint32
	normalized         bool
	components         int
	vpmOffset          int
}

// loadShaderRecord reads the record at va with count attribute records.
func loadShaderRecord(m *mmu, va uint32, count int, sr *shaderRecord) error {
	if va&15 != 0 {
		return clErrorf("shader record %#x not 16-byte aligned", va)
	}
	if count > maxAttributes {
		return clErrorf("GL_SHADER_STATE with %d attributes (max %d)", count, maxAttributes)
	}
	var b [shaderRecordSize + maxAttributes*attributeRecordSize]byte
	n := shaderRecordSize + count*attributeRecordSize
	if f := m.read(va, b[:n]); f != nil {
		return f
	}
	sr.flags = u16(b[:], 0)
	sr.numVaryings = int(b[2])
	sr.vertexOutputWords = int(b[3])
	sr.fsCode, sr.fsUniforms = u32(b[:], 4), u32(b[:], 8)
	sr.vsCode, sr.vsUniforms = u32(b[:], 12), u32(b[:], 16)
	sr.csCode, sr.csUniforms = u32(b[:], 20), u32(b[:], 24)
	sr.scratch, sr.scratchSize = u32(b[:], 28), u32(b[:], 32)
	sr.numAttrs = count
	for i := 0; i < count; i++ {
		a := b[shaderRecordSize+i*attributeRecordSize:]
		at := &sr.attrs[i]
		at.address, at.maxOffset = u32(a, 0), u32(a, 4)
		at.stride = u16(a, 8)
		at.typ = uint32(a[10] & 7)
		at.normalized = a[10]&8 != 0
		at.components = int(a[10]>>4) & 7
		at.vpmOffset = int(a[11])
		if at.components < 1 || at.components > 4 {
			return clErrorf("attribute %d has %d components", i, at.components)
		}
		if at.typ > 5 {
			return clErrorf("attribute %d has unknown type %d", i, at.typ)
		}
	}
	want := 4
	if sr.flags&shaderFlagWritesPointSize != 0 {
		want = 5
	}
	if sr.vertexOutputWords < want+sr.numVaryings {
		return clErrorf("shader record VertexOutputWords %d < %d", sr.vertexOutputWords, want+sr.numVaryings)
	}
	return nil
}
