package cl

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/hw/spec"
)

// packable is what records and in-memory structs have in common.
type packable interface {
	Size() int
	Pack([]byte)
	String() string
}

type layoutCase struct {
	value  packable // zero value of the type
	layout *Layout
}

func allLayoutCases() []layoutCase {
	var cases []layoutCase
	for _, r := range allRecords {
		cases = append(cases, layoutCase{r, recordLayouts[r.Opcode()]})
	}
	cases = append(cases,
		layoutCase{ShaderRecord{}, ShaderRecordLayout},
		layoutCase{AttributeRecord{}, AttributeRecordLayout},
		layoutCase{TextureDescriptor{}, TextureDescriptorLayout})
	return cases
}

// setField stores raw bits v into struct field i of the value pointed to by p.
func setField(p reflect.Value, name string, v uint64) {
	f := p.Elem().FieldByName(name)
	switch f.Kind() {
	case reflect.Bool:
		f.SetBool(v&1 != 0)
	case reflect.Float32:
		f.SetFloat(float64(math.Float32frombits(uint32(v))))
	default:
		f.SetUint(v)
	}
}

// unpackInto unpacks b into a new value of the same type as proto.
func unpackInto(t *testing.T, proto packable, b []byte) packable {
	t.Helper()
	p := reflect.New(reflect.TypeOf(proto))
	u := p.Interface().(interface{ Unpack([]byte) error })
	if err := u.Unpack(b); err != nil {
		t.Fatalf("%T.Unpack: %v", proto, err)
	}
	return p.Elem().Interface().(packable)
}

func TestLayoutMatchesStruct(t *testing.T) {
	for _, c := range allLayoutCases() {
		typ := reflect.TypeOf(c.value)
		if typ.Name() != c.layout.GoName {
			t.Errorf("layout %s names Go type %s, table holds %s", c.layout.Name, c.layout.GoName, typ.Name())
		}
		if typ.NumField() != len(c.layout.Fields) {
			t.Fatalf("%s: %d struct fields, %d layout fields", typ.Name(), typ.NumField(), len(c.layout.Fields))
		}
		for i, f := range c.layout.Fields {
			if typ.Field(i).Name != f.Name {
				t.Errorf("%s field %d: struct says %s, layout %s", typ.Name(), i, typ.Field(i).Name, f.Name)
			}
		}
		if c.value.Size() != c.layout.Size {
			t.Errorf("%s: Size() %d, layout %d", typ.Name(), c.value.Size(), c.layout.Size)
		}
	}
}

// TestRoundTrip fills every field with non-zero values and checks
// Pack → Unpack gives the value back, and that String matches the decoder.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range allLayoutCases() {
		for iter := 0; iter < 20; iter++ {
			p := reflect.New(reflect.TypeOf(c.value))
			for _, f := range c.layout.Fields {
				mask := uint64(1)<<f.Width - 1
				v := rng.Uint64()&mask | 1 // never zero
				if f.Kind == KindFloat {
					v = uint64(math.Float32bits(float32(rng.NormFloat64()*1000) + 0.5))
				}
				setField(p, f.Name, v)
			}
			in := p.Elem().Interface().(packable)
			buf := make([]byte, c.layout.Size+3)
			for i := range buf {
				buf[i] = 0xa5 // Pack must overwrite every byte of the record
			}
			in.Pack(buf)
			for i := c.layout.Size; i < len(buf); i++ {
				if buf[i] != 0xa5 {
					t.Fatalf("%s: Pack wrote byte %d beyond its size %d", c.layout.Name, i, c.layout.Size)
				}
			}
			out := unpackInto(t, c.value, buf[:c.layout.Size])
			if !reflect.DeepEqual(in, out) {
				t.Fatalf("%s round trip:\n in %+v\nout %+v", c.layout.Name, in, out)
			}
			if got, want := out.String(), c.layout.Text(buf); got != want {
				t.Fatalf("%s: String %q, layout text %q", c.layout.Name, got, want)
			}
			if !strings.HasPrefix(out.String(), c.layout.Name) {
				t.Fatalf("%s: String %q does not start with the record name", c.layout.Name, out.String())
			}
		}
	}
}

// TestFieldsAreDisjoint packs each field at its maximum with every other
// field zero and checks that exactly that field's bits (and the opcode) are
// set, and that Unpack sees only that field.
func TestFieldsAreDisjoint(t *testing.T) {
	for _, c := range allLayoutCases() {
		for _, f := range c.layout.Fields {
			p := reflect.New(reflect.TypeOf(c.value))
			setField(p, f.Name, uint64(1)<<f.Width-1)
			in := p.Elem().Interface().(packable)
			buf := make([]byte, c.layout.Size)
			in.Pack(buf)
			want := make([]byte, c.layout.Size)
			if r, ok := in.(Record); ok {
				want[0] = r.Opcode()
			}
			for bit := f.Start; bit < f.Start+f.Width; bit++ {
				want[bit/8] |= 1 << (bit % 8)
			}
			if !bytes.Equal(buf, want) {
				t.Errorf("%s.%s at maximum packs as % x, want % x", c.layout.Name, f.Name, buf, want)
				continue
			}
			// Compare by re-packing: an all-ones f32 is a NaN, which
			// reflect.DeepEqual never finds equal.
			out := unpackInto(t, c.value, buf)
			again := make([]byte, c.layout.Size)
			out.Pack(again)
			if !bytes.Equal(again, buf) {
				t.Errorf("%s.%s at maximum unpacks as %+v, want %+v", c.layout.Name, f.Name, out, in)
			}
		}
	}
}

// TestDocumentedSizes pins the sizes of docs/hardware.md §4.1 and §6.
func TestDocumentedSizes(t *testing.T) {
	want := map[uint8]struct {
		name string
		size int
	}{
		0: {"HALT", 1}, 1: {"NOP", 1}, 2: {"MARKER", 5}, 4: {"FLUSH", 1}, 5: {"FLUSH_ALL_STATE", 1}, 6: {"START_TILE_BINNING", 1},
		16: {"BRANCH", 5}, 17: {"BRANCH_TO_SUB_LIST", 5}, 18: {"RETURN_FROM_SUB_LIST", 1},
		28: {"STORE_TILE_BUFFER_GENERAL", 10}, 29: {"LOAD_TILE_BUFFER_GENERAL", 10},
		32: {"INDEXED_PRIMITIVE_LIST", 14}, 33: {"VERTEX_ARRAY_PRIMITIVES", 10}, 40: {"VERTEX_ARRAY_PRIMITIVES_INDIRECT", 10},
		64: {"GL_SHADER_STATE", 6}, 96: {"CONFIGURATION_BITS", 4}, 97: {"FLAT_SHADE_FLAGS", 5},
		98: {"POINT_SIZE", 5}, 99: {"LINE_WIDTH", 5}, 101: {"DEPTH_OFFSET", 9}, 102: {"CLIP_WINDOW", 9},
		103: {"VIEWPORT_OFFSET", 9}, 104: {"CLIPPER_Z_SCALE_AND_OFFSET", 9}, 105: {"CLIPPER_XY_SCALING", 9},
		106: {"BLEND_CONFIG", 5}, 107: {"BLEND_CONSTANT_COLOR", 17}, 108: {"COLOR_MASK", 2},
		109: {"STENCIL_CONFIG", 8}, 110: {"OCCLUSION_QUERY_COUNTER", 5}, 112: {"TILE_BINNING_MODE_CONFIGURATION", 14},
		113: {"TILE_RENDERING_MODE_CONFIGURATION", 6}, 114: {"CLEAR_COLORS", 10},
		115: {"TILE_COORDINATES", 3}, 128: {"TILE_PRIMITIVE", 14}, 129: {"TILE_PRIMITIVE_STORED", 14},
	}
	for op := 0; op < 256; op++ {
		w, documented := want[uint8(op)]
		size, known := RecordSize(uint8(op))
		if documented != known {
			t.Errorf("opcode %d: documented %v, known %v", op, documented, known)
			continue
		}
		if !known {
			continue
		}
		if size != w.size || RecordLayout(uint8(op)).Name != w.name {
			t.Errorf("opcode %d: %s size %d, want %s size %d", op, RecordLayout(uint8(op)).Name, size, w.name, w.size)
		}
	}
	if SizeTextureDescriptor != 32 {
		t.Errorf("texture descriptor is %d bytes, hardware.md says 32", SizeTextureDescriptor)
	}
}

// TestAddressFields pins the table the kernel validator relocates with.
func TestAddressFields(t *testing.T) {
	want := map[uint8][]int{
		OpBranch: {1}, OpBranchToSubList: {1},
		OpStoreTileBufferGeneral: {2}, OpLoadTileBufferGeneral: {2},
		OpIndexedPrimitiveList: {6}, OpVertexArrayPrimitivesIndirect: {2}, OpGLShaderState: {1},
		OpTileBinningModeConfiguration: {1}, OpOcclusionQueryCounter: {1},
	}
	for op := 0; op < 256; op++ {
		got := AddressFields(uint8(op))
		if len(got) == 0 && len(want[uint8(op)]) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want[uint8(op)]) {
			t.Errorf("AddressFields(%d) = %v, want %v", op, got, want[uint8(op)])
		}
	}
	// Every offset must point at the u32 Address field of the layout.
	check := func(l *Layout) {
		for _, off := range l.AddressOffsets {
			found := false
			for _, f := range l.Fields {
				if f.Address && f.Start == 8*off && f.Width == 32 {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: address offset %d has no u32 address field", l.Name, off)
			}
		}
	}
	for _, l := range recordLayouts {
		if l != nil {
			check(l)
		}
	}
	if got, want := ShaderRecordLayout.AddressOffsets, []int{4, 8, 12, 16, 20, 24, 28}; !reflect.DeepEqual(got, want) {
		t.Errorf("shader record addresses at %v, want %v", got, want)
	}
	if got, want := AttributeRecordLayout.AddressOffsets, []int{0}; !reflect.DeepEqual(got, want) {
		t.Errorf("attribute record addresses at %v, want %v", got, want)
	}
	if got, want := TextureDescriptorLayout.AddressOffsets, []int{0}; !reflect.DeepEqual(got, want) {
		t.Errorf("texture descriptor addresses at %v, want %v", got, want)
	}
}

func TestAllowedIn(t *testing.T) {
	tests := []struct {
		op   uint8
		list Lists
		want bool
	}{
		{OpIndexedPrimitiveList, ListBin, true},
		{OpIndexedPrimitiveList, ListRender, false},
		{OpBranchToSubList, ListBin, false},
		{OpBranchToSubList, ListRender, true},
		{OpTilePrimitive, ListBin, false},
		{OpTilePrimitive, ListTile, true},
		{OpConfigurationBits, ListBin, true},
		{OpConfigurationBits, ListTile, true},
		{OpHalt, ListBin, false},
		{OpMarker, ListBin, true},
		{OpMarker, ListTile, true},
		{OpMarker, ListRender, false},
		{3, ListBin, false}, // unknown opcode
	}
	for _, tt := range tests {
		if got := AllowedIn(tt.op, tt.list); got != tt.want {
			t.Errorf("AllowedIn(%d, %d) = %v, want %v", tt.op, tt.list, got, tt.want)
		}
	}
}

func TestStringExample(t *testing.T) {
	r := IndexedPrimitiveList{Mode: PrimTriangles, IndexType: IndexU16, Length: 36, Address: 0x12340, MaxIndex: 23}
	const want = "INDEXED_PRIMITIVE_LIST mode=TRIANGLES index_type=U16 length=36 address=0x00012340 max_index=23"
	if got := r.String(); got != want {
		t.Errorf("String() = %q\nwant       %q", got, want)
	}
	if got := PrimitiveMode(9).String(); got != "PrimitiveMode(9)" {
		t.Errorf("undefined enum value prints %q", got)
	}
}

func TestCheck(t *testing.T) {
	if err := (IndexedPrimitiveList{Mode: PrimTriangleFan, IndexType: IndexU32}).Check(); err != nil {
		t.Errorf("valid record: %v", err)
	}
	err := IndexedPrimitiveList{Mode: 7}.Check()
	if err == nil || !strings.Contains(err.Error(), "INDEXED_PRIMITIVE_LIST mode: 7 is not a valid PrimitiveMode") {
		t.Errorf("Mode 7: got %v", err)
	}
	if err := (StencilConfig{Face: 3}).Check(); err == nil {
		t.Errorf("stencil face 3 accepted")
	}
}

func TestUnpackErrors(t *testing.T) {
	var r IndexedPrimitiveList
	if err := r.Unpack([]byte{OpIndexedPrimitiveList, 1, 2}); err == nil ||
		err.Error() != "cl: INDEXED_PRIMITIVE_LIST needs 14 bytes, have 3" {
		t.Errorf("short: %v", err)
	}
	b := make([]byte, 14)
	b[0] = OpVertexArrayPrimitives
	if err := r.Unpack(b); err == nil || err.Error() != "cl: opcode 0x21 is not INDEXED_PRIMITIVE_LIST (0x20)" {
		t.Errorf("wrong opcode: %v", err)
	}
	var s ShaderRecord
	if err := s.Unpack(make([]byte, SizeShaderRecord-1)); err == nil {
		t.Errorf("short shader record accepted")
	}
}

func TestSwizzle(t *testing.T) {
	if SwizzleIdentity != 0x688 {
		t.Errorf("SwizzleIdentity = %#x", SwizzleIdentity)
	}
	if got := Swizzle(SwizzleZero, SwizzleZero, SwizzleZero, SwizzleOne); got != 4|4<<3|4<<6|5<<9 {
		t.Errorf("Swizzle(0,0,0,1) = %#x", got)
	}
}

// TestGeneratedCodeIsFresh regenerates packets_gen.go into a temporary
// directory and compares.
func TestGeneratedCodeIsFresh(t *testing.T) {
	db, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	src, err := spec.Generate(db)
	if err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(t.TempDir(), "packets_gen.go")
	if err := os.WriteFile(fresh, src, 0o644); err != nil {
		t.Fatal(err)
	}
	regenerated, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("packets_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(regenerated, committed) {
		t.Fatal("hw/cl/packets_gen.go is stale: run go generate ./hw/...")
	}
}
