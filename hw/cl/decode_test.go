package cl

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

func buildBinList() []byte {
	var b Builder
	Emit(&b, TileBinningModeConfiguration{TileAllocationAddress: 0xf0001000, TileAllocationSize: 0x10000, WidthInTiles: 4, HeightInTiles: 3})
	Emit(&b, StartTileBinning{})
	Emit(&b, ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, DepthTestEnable: true, DepthFunc: CompareLess, ZUpdatesEnable: true})
	Emit(&b, ClipWindow{Left: 0, Bottom: 0, Width: 256, Height: 192})
	Emit(&b, ViewportOffset{X: 128, Y: 96})
	Emit(&b, ClipperXYScaling{X: 128, Y: -96})
	Emit(&b, GLShaderState{Address: 0x20000, AttributeCount: 2})
	Emit(&b, IndexedPrimitiveList{Mode: PrimTriangles, IndexType: IndexU16, Length: 36, Address: 0x12340, MaxIndex: 23})
	Emit(&b, BlendConfig{Enable: true, SrcRGB: BlendFactorSrcAlpha, DstRGB: BlendFactorOneMinusSrcAlpha, SrcAlpha: BlendFactorOne, DstAlpha: BlendFactorZero})
	Emit(&b, FlatShadeFlags{Flags: 1 << 2})
	Emit(&b, PointSize{PointSize: 1.5})
	Emit(&b, VertexArrayPrimitives{Mode: PrimTriangleStrip, Length: 4, FirstIndex: 10})
	Emit(&b, Flush{})
	return b.Buf
}

const goldenBinList = `0x00010000: TILE_BINNING_MODE_CONFIGURATION tile_allocation_address=0xf0001000 tile_allocation_size=65536 width_in_tiles=4 height_in_tiles=3 multisample4x=0
0x0001000e: START_TILE_BINNING
0x0001000f: CONFIGURATION_BITS enable_forward_facing=1 enable_reverse_facing=1 clockwise_primitives=0 enable_depth_offset=0 depth_test_enable=1 depth_func=LESS z_updates_enable=1 early_z_enable=0 stencil_enable=0 clip_half_z=0 multisample4x=0 sample_alpha_to_coverage=0 sample_coverage_enable=0 sample_coverage_mask=0x0
0x00010013: CLIP_WINDOW left=0 bottom=0 width=256 height=192
0x0001001c: VIEWPORT_OFFSET x=128 y=96
0x00010025: CLIPPER_XY_SCALING x=128 y=-96
0x0001002e: GL_SHADER_STATE address=0x00020000 attribute_count=2
0x00010034: INDEXED_PRIMITIVE_LIST mode=TRIANGLES index_type=U16 length=36 address=0x00012340 max_index=23
0x00010042: BLEND_CONFIG enable=1 equation_rgb=ADD equation_alpha=ADD src_rgb=SRC_ALPHA dst_rgb=ONE_MINUS_SRC_ALPHA src_alpha=ONE dst_alpha=ZERO
0x00010047: FLAT_SHADE_FLAGS flags=0x4
0x0001004c: POINT_SIZE point_size=1.5
0x00010051: VERTEX_ARRAY_PRIMITIVES mode=TRIANGLE_STRIP length=4 first_index=10
0x0001005b: FLUSH
`

func TestDecodeCLGolden(t *testing.T) {
	var out strings.Builder
	if err := DecodeCL(&out, buildBinList(), 0x10000); err != nil {
		t.Fatal(err)
	}
	if out.String() != goldenBinList {
		t.Errorf("decoder text:\n%s\nwant:\n%s", out.String(), goldenBinList)
	}
}

func TestDecodeCLStopsAtHalt(t *testing.T) {
	var b Builder
	Emit(&b, TileCoordinates{Column: 1, Row: 2})
	Emit(&b, StoreTileBufferGeneral{Buffer: BufferColor, Address: 0x100000, Stride: 1024, LastTile: true})
	Emit(&b, Halt{})
	b.Buf = append(b.Buf, 0xff, 0xff) // garbage after the end of the list
	var out strings.Builder
	if err := DecodeCL(&out, b.Buf, 0); err != nil {
		t.Fatal(err)
	}
	const want = `0x00000000: TILE_COORDINATES column=1 row=2
0x00000003: STORE_TILE_BUFFER_GENERAL buffer=COLOR all_samples=0 last_tile=1 address=0x00100000 stride=1024
0x0000000d: HALT
`
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestDecodeCLErrors(t *testing.T) {
	tests := []struct {
		name   string
		buf    []byte
		lines  int
		offset int
		want   string
	}{
		{"unknown opcode", []byte{OpNop, OpNop, 0x2f, 0}, 2, 2, "cl: offset 2: unknown opcode 0x2f"},
		{"truncated record", []byte{OpNop, OpTilePrimitive, 1, 2, 3}, 1, 1, "cl: offset 1: TILE_PRIMITIVE needs 14 bytes, only 4 remain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			err := DecodeCL(&out, tt.buf, 0)
			var se *StreamError
			if !errors.As(err, &se) || se.Offset != tt.offset || err.Error() != tt.want {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if se.Opcode != tt.buf[tt.offset] {
				t.Errorf("StreamError.Opcode = %#x, want %#x", se.Opcode, tt.buf[tt.offset])
			}
			if n := strings.Count(out.String(), "\n"); n != tt.lines {
				t.Errorf("printed %d lines before the error, want %d", n, tt.lines)
			}
		})
	}
}

func TestDecodeRing(t *testing.T) {
	words := make([]uint32, 0, 32)
	emit := func(p RingPacket) {
		n := len(words)
		words = append(words, make([]uint32, p.Words())...)
		p.Pack(words[n:])
	}
	emit(RingSetContext{CtxID: 3, PageTable: 0x4000})
	emit(RingWaitMem{Address: 0xf0000040, Reference: 7})
	emit(RingIndirectBuffer{Address: 0xf0100000, Size: 512})
	emit(RingEventWrite{Flags: EventIRQ, Address: 0xf0000000, Value: 7})
	emit(RingSignal{Address: 0xf0000040, Value: 8})
	emit(RingNop{Tag: 0xdead})
	words = append(words, RingHeader(RingOpNop, 2), 1, 2, RingHeader(RingOpNop, 0))
	var out strings.Builder
	if err := DecodeRing(&out, words); err != nil {
		t.Fatal(err)
	}
	const want = `0x00000000: SET_CONTEXT ctx_id=3 page_table=0x4000
0x0000000c: WAIT_MEM address=0xf0000040 reference=7
0x00000018: INDIRECT_BUFFER address=0xf0100000 size=512
0x00000024: EVENT_WRITE flags=0x1 address=0xf0000000 value=7
0x00000034: SIGNAL address=0xf0000040 value=8
0x00000040: NOP tag=0xdead
0x00000048: NOP tag=0x1 count=2
0x00000054: NOP count=0
`
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestDecodeRingErrors(t *testing.T) {
	tests := []struct {
		name  string
		words []uint32
		want  string
	}{
		{"not type 7", []uint32{RingHeader(RingOpNop, 0), 0x12345678}, "cl: offset 4: 0x12345678 is not a type-7 packet header"},
		{"unknown opcode", []uint32{RingHeader(0x42, 0)}, "cl: offset 0: unknown ring opcode 0x42"},
		{"cut off", []uint32{RingHeader(RingOpSignal, 2), 1}, "cl: offset 0: SIGNAL has 2 payload words, only 1 remain"},
		{"wrong length", []uint32{RingHeader(RingOpSignal, 1), 1}, "cl: offset 0: SIGNAL has 1 payload words, want 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := DecodeRing(&strings.Builder{}, tt.words)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestRingRoundTrip(t *testing.T) {
	packets := []RingPacket{
		RingNop{Tag: 0x1234},
		RingSetContext{CtxID: 0xffffffff, PageTable: 0x12345000},
		RingIndirectBuffer{Address: 0xf0000000, Size: 4096},
		RingEventWrite{Flags: EventIRQ, Address: 0xf0000010, Value: 0x80000001},
		RingWaitMem{Address: 4, Reference: 5},
		RingSignal{Address: 6, Value: 7},
	}
	if len(packets) != len(allRingPackets) {
		t.Fatalf("test covers %d ring packets, database has %d", len(packets), len(allRingPackets))
	}
	for _, p := range packets {
		words := make([]uint32, p.Words())
		p.Pack(words)
		op, count, ok := ParseRingHeader(words[0])
		if !ok || op != p.Opcode() || count != p.Words()-1 {
			t.Errorf("%T header %#x parses as op %#x count %d ok %v", p, words[0], op, count, ok)
		}
		var got RingPacket
		var err error
		switch p.(type) {
		case RingNop:
			var q RingNop
			err = q.Unpack(words)
			got = q
		case RingSetContext:
			var q RingSetContext
			err = q.Unpack(words)
			got = q
		case RingIndirectBuffer:
			var q RingIndirectBuffer
			err = q.Unpack(words)
			got = q
		case RingEventWrite:
			var q RingEventWrite
			err = q.Unpack(words)
			got = q
		case RingWaitMem:
			var q RingWaitMem
			err = q.Unpack(words)
			got = q
		case RingSignal:
			var q RingSignal
			err = q.Unpack(words)
			got = q
		}
		if err != nil || got != p {
			t.Errorf("%T round trip: %v, %+v", p, err, got)
		}
		var out bytes.Buffer
		if err := DecodeRing(&out, words); err != nil || out.String() != "0x00000000: "+p.String()+"\n" {
			t.Errorf("%T: DecodeRing %q (%v), String %q", p, out.String(), err, p.String())
		}
	}
	// Unpack rejects the wrong packet, a wrong count and a short slice.
	var s RingSignal
	if err := s.Unpack([]uint32{RingHeader(RingOpWaitMem, 2), 0, 0}); err == nil {
		t.Error("RingSignal.Unpack accepted WAIT_MEM")
	}
	if err := s.Unpack([]uint32{RingHeader(RingOpSignal, 3), 0, 0, 0}); err == nil {
		t.Error("RingSignal.Unpack accepted 3 payload words")
	}
	if err := s.Unpack([]uint32{RingHeader(RingOpSignal, 2), 0}); err == nil {
		t.Error("RingSignal.Unpack accepted a cut-off payload")
	}
	if err := s.Unpack(nil); err == nil {
		t.Error("RingSignal.Unpack accepted no words")
	}
}

func TestRingHeader(t *testing.T) {
	if h := RingHeader(RingOpIndirectBuffer, 2); h != 0x70120002 {
		t.Errorf("RingHeader = %#x, want 0x70120002", h)
	}
	for _, h := range []uint32{0x60120002, 0x71120002, 0} {
		if _, _, ok := ParseRingHeader(h); ok {
			t.Errorf("ParseRingHeader(%#x) accepted a non type-7 word", h)
		}
	}
}

func TestDecodeShaderRecord(t *testing.T) {
	buf := make([]byte, SizeShaderRecord+2*SizeAttributeRecord)
	ShaderRecord{Flags: ShaderFlagVertexWritesPointSize, FragmentNumVaryings: 3, VertexOutputWords: 8,
		FragmentCodeAddress: 0x1000, FragmentUniformsAddress: 0x2000, VertexCodeAddress: 0x3000,
		VertexUniformsAddress: 0x4000, CoordinateCodeAddress: 0x5000, CoordinateUniformsAddress: 0x6000}.Pack(buf)
	AttributeRecord{Address: 0x10000, MaxOffset: 288, Stride: 12, Type: AttrFloat, Components: 3, VPMOffset: 0}.Pack(buf[SizeShaderRecord:])
	AttributeRecord{Address: 0x20000, MaxOffset: 96, Stride: 4, Type: AttrUnsignedByte, Normalized: true, Components: 4, VPMOffset: 4}.Pack(buf[SizeShaderRecord+SizeAttributeRecord:])
	var out strings.Builder
	if err := DecodeShaderRecord(&out, buf, 2); err != nil {
		t.Fatal(err)
	}
	const want = `SHADER_RECORD flags=0x2 fragment_num_varyings=3 vertex_output_words=8 fragment_code_address=0x00001000 fragment_uniforms_address=0x00002000 vertex_code_address=0x00003000 vertex_uniforms_address=0x00004000 coordinate_code_address=0x00005000 coordinate_uniforms_address=0x00006000 scratch_address=0x00000000 scratch_bytes_per_thread=0
  attribute 0: ATTRIBUTE_RECORD address=0x00010000 max_offset=288 stride=12 type=FLOAT normalized=0 components=3 vpm_offset=0
  attribute 1: ATTRIBUTE_RECORD address=0x00020000 max_offset=96 stride=4 type=UNSIGNED_BYTE normalized=1 components=4 vpm_offset=4
`
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
	if err := DecodeShaderRecord(&out, buf, 3); err == nil {
		t.Error("3 attributes decoded from a buffer holding 2")
	}
}

func TestEmitDoesNotAllocate(t *testing.T) {
	b := Builder{Buf: make([]byte, 0, 1024)}
	allocs := testing.AllocsPerRun(100, func() {
		b.Reset()
		Emit(&b, FlatShadeFlags{Flags: 1 << 2})
		Emit(&b, IndexedPrimitiveList{Mode: PrimTriangles, IndexType: IndexU16, Length: 36, Address: 0x12340, MaxIndex: 23})
		Emit(&b, BlendConstantColor{R: 1, G: 0.5, B: 0.25, A: 1})
	})
	if allocs != 0 {
		t.Errorf("Emit allocates %v times per run", allocs)
	}
}

func TestBuilderOffsets(t *testing.T) {
	var b Builder
	if off := b.Emit(Nop{}); off != 0 {
		t.Errorf("first offset %d", off)
	}
	if off := Emit(&b, GLShaderState{Address: 0x40}); off != 1 {
		t.Errorf("second offset %d", off)
	}
	if off := b.Emit(TilePrimitive{Mode: TilePrimTriangle, V0: 1, V1: 2, V2: 3}); off != 1+SizeGLShaderState {
		t.Errorf("third offset %d", off)
	}
	if b.Len() != 1+SizeGLShaderState+SizeTilePrimitive {
		t.Errorf("Len = %d", b.Len())
	}
	buf := Append([]byte{0xaa}, Halt{})
	if !bytes.Equal(buf, []byte{0xaa, OpHalt}) {
		t.Errorf("Append = % x", buf)
	}
}

func TestCheckBytes(t *testing.T) {
	good := Append(nil, StencilConfig{Face: FaceBack, Func: CompareGEqual, Ref: 3, ValueMask: 0xff, WriteMask: 0x0f,
		StencilFail: StencilOpKeep, DepthFail: StencilOpIncrWrap, DepthPass: StencilOpReplace})
	l := RecordLayout(OpStencilConfig)
	if err := l.CheckBytes(good); err != nil {
		t.Fatalf("packed record: %v", err)
	}
	tests := []struct {
		name string
		edit func(b []byte)
		want string
	}{
		{"reserved bit", func(b []byte) { b[1] |= 0x08 }, "cl: STENCIL_CONFIG: reserved bits 0x08 set in byte 1"},
		{"reserved byte", func(b []byte) { b[7] = 0x80 }, "cl: STENCIL_CONFIG: reserved bits 0x80 set in byte 7"},
		{"bad face", func(b []byte) { b[1] |= 3 }, "cl: STENCIL_CONFIG face: 3 is not a valid StencilFace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := append([]byte(nil), good...)
			tt.edit(b)
			if err := l.CheckBytes(b); err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if err := l.CheckBytes(good[:3]); err == nil {
		t.Error("short record accepted")
	}
}

func TestUnpackRecord(t *testing.T) {
	in := TilePrimitive{Mode: TilePrimLine, V0: 7, V1: 8}
	r, err := UnpackRecord(Append(nil, in))
	if err != nil || r != Record(in) {
		t.Fatalf("UnpackRecord = %v, %v; want %v", r, err, in)
	}
	if _, err := UnpackRecord([]byte{0x2f}); err == nil || err.Error() != "cl: offset 0: unknown opcode 0x2f" {
		t.Errorf("unknown opcode: %v", err)
	}
	if _, err := UnpackRecord(nil); err == nil {
		t.Error("empty buffer accepted")
	}
}

func TestAppendRing(t *testing.T) {
	ring := make([]uint32, 0, 16)
	allocs := testing.AllocsPerRun(50, func() {
		ring = ring[:0]
		ring = AppendRing(ring, RingSetContext{CtxID: 1, PageTable: 0x1000})
		ring = AppendRing(ring, RingIndirectBuffer{Address: 0xf0000000, Size: 64})
		ring = AppendRing(ring, RingSignal{Address: 0xf0000040, Value: 1})
	})
	if allocs != 0 {
		t.Errorf("AppendRing allocates %v times per run", allocs)
	}
	want := []uint32{0x70110002, 1, 0x1000, 0x70120002, 0xf0000000, 64, 0x70150002, 0xf0000040, 1}
	if !slices.Equal(ring, want) {
		t.Errorf("ring = %#x\nwant   %#x", ring, want)
	}
	grown := AppendRing(nil, RingNop{Tag: 5})
	if !slices.Equal(grown, []uint32{0x70100001, 5}) {
		t.Errorf("AppendRing(nil) = %#x", grown)
	}
}
