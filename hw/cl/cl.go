// Package cl holds the TG GPU's packet vocabulary: one Go struct per ring
// packet, control-list record and in-memory structure (shader record,
// attribute record, texture descriptor), with Pack, Unpack and String, plus
// the layout tables that the kernel's validator and the command-stream
// decoders walk. It is the analogue of the C headers Mesa's genxml
// generates (V3D21_*_pack, cl_emit) and is shared by driver/tg (emits),
// kernel (validates and relocates), hw (executes) and cmd/tilegpu (decodes).
//
// packets_gen.go is generated from hw/spec/tg.xml by `go generate ./hw/...`
// and must not be edited; TestGeneratedCodeIsFresh fails when it is stale.
// The rest of the package (emission, decoding, ring headers) is written by
// hand on top of the generated tables, so it cannot drift from the database.
//
// Everything in this package is safe for concurrent use: the tables are
// read-only and the record types are plain values.
package cl

//go:generate go run ../spec/gen -o packets_gen.go

import "fmt"

// Record is implemented by every control-list record type (value receivers),
// e.g. IndexedPrimitiveList. Unpack is on the pointer type.
type Record interface {
	// Opcode returns the record's opcode byte.
	Opcode() uint8
	// Size returns the packed size in bytes, opcode included.
	Size() int
	// Pack writes the record, opcode first, to dst[:Size()].
	Pack(dst []byte)
	// Check reports an enum field holding a value the hardware does not define.
	Check() error
	String() string
}

// RingPacket is implemented by every ring packet type (RingNop,
// RingSetContext, ...).
type RingPacket interface {
	Opcode() uint8
	// Words returns the packet size in 32-bit words, header included.
	Words() int
	// Pack writes header and payload to dst[:Words()].
	Pack(dst []uint32)
	String() string
}

const ringType = 0x7

// RingHeader returns a type-7 ring packet header for opcode op followed by
// count payload words: [31:28] 7, [27:24] 0, [23:16] op, [15:0] count.
// count must be < 65536.
func RingHeader(op uint8, count int) uint32 {
	return ringType<<28 | uint32(op)<<16 | uint32(count)&0xffff
}

// ParseRingHeader splits a ring packet header. ok is false when the word is
// not a type-7 header (top nibble not 7 or bits 27:24 not zero). The opcode
// is not checked against the known packets; see RingLayout.
func ParseRingHeader(h uint32) (op uint8, count int, ok bool) {
	if h>>24 != ringType<<4 {
		return 0, 0, false
	}
	return uint8(h >> 16), int(h & 0xffff), true
}

// RecordSize returns the size in bytes of the control-list record with
// opcode op, or false when op is not a known opcode.
func RecordSize(op uint8) (int, bool) {
	if l := recordLayouts[op]; l != nil {
		return l.Size, true
	}
	return 0, false
}

// RecordLayout returns the layout of the control-list record with opcode op,
// or nil when op is not a known opcode. The result must not be modified.
func RecordLayout(op uint8) *Layout { return recordLayouts[op] }

// RingLayout returns the layout of the ring packet with opcode op, or nil.
// Its Size is the (minimum) payload word count. The result must not be
// modified.
func RingLayout(op uint8) *Layout { return ringLayouts[op] }

// AddressFields returns the byte offsets, from the opcode byte, of every
// GPU address (a little-endian u32) in the record with opcode op; nil for
// records without addresses and for unknown opcodes. The kernel's validator
// must relocate each of them. The result must not be modified.
func AddressFields(op uint8) []int {
	if l := recordLayouts[op]; l != nil {
		return l.AddressOffsets
	}
	return nil
}

// AllowedIn reports whether the record with opcode op may appear in the
// given kind of control list.
func AllowedIn(op uint8, list Lists) bool {
	l := recordLayouts[op]
	return l != nil && l.Lists&list != 0
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func errShort(l *Layout, have int) error {
	return fmt.Errorf("cl: %s needs %d bytes, have %d", l.Name, l.Size, have)
}

func errOpcode(l *Layout, op uint8) error {
	return fmt.Errorf("cl: opcode 0x%02x is not %s (0x%02x)", op, l.Name, l.Opcode)
}

func errEnum(l *Layout, field int, v uint64) error {
	f := &l.Fields[field]
	return fmt.Errorf("cl: %s %s: %d is not a valid %s", l.Name, f.Text, v, f.Enum.Name)
}

func errRingCount(l *Layout, count int) error {
	return fmt.Errorf("cl: ring %s has %d payload words, want %d", l.Name, count, l.Size)
}

// checkRingHeader checks that src starts with a header for l and holds the
// whole payload, and returns the payload word count.
func checkRingHeader(l *Layout, src []uint32) (int, error) {
	if len(src) < 1 {
		return 0, fmt.Errorf("cl: ring %s: no header word", l.Name)
	}
	op, count, ok := ParseRingHeader(src[0])
	if !ok {
		return 0, fmt.Errorf("cl: ring %s: 0x%08x is not a type-7 header", l.Name, src[0])
	}
	if op != l.Opcode {
		return 0, fmt.Errorf("cl: ring opcode 0x%02x is not %s (0x%02x)", op, l.Name, l.Opcode)
	}
	if len(src)-1 < count {
		return 0, fmt.Errorf("cl: ring %s: header says %d payload words, have %d", l.Name, count, len(src)-1)
	}
	return count, nil
}

// Swizzle packs the TextureDescriptor.Swizzle field: three bits per output
// channel, R in bits 0..2, G in 3..5, B in 6..8, A in 9..11.
func Swizzle(r, g, b, a SwizzleChannel) uint16 {
	return uint16(r&7) | uint16(g&7)<<3 | uint16(b&7)<<6 | uint16(a&7)<<9
}

// SwizzleIdentity is the swizzle that returns R, G, B, A unchanged.
const SwizzleIdentity uint16 = uint16(SwizzleR) | uint16(SwizzleG)<<3 | uint16(SwizzleB)<<6 | uint16(SwizzleA)<<9

// UnpackRecord decodes the record at the start of b into a value of its
// type (IndexedPrimitiveList, ...). It is for tools and tests: the
// conversion to an interface allocates. Hot paths switch on b[0] and call
// the type's Unpack.
func UnpackRecord(b []byte) (Record, error) {
	l, err := NextRecord(b, 0)
	if err != nil {
		return nil, err
	}
	return unpackRecord(l.Opcode, b)
}

func errUnknownOpcode(op uint8) error {
	return fmt.Errorf("cl: unknown opcode 0x%02x", op)
}
