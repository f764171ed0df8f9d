package cl

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// FieldKind says how a field's bits are interpreted.
type FieldKind uint8

const (
	KindUint  FieldKind = iota // unsigned integer (u8, u16, u32 or a uint of any width)
	KindBool                   // one bit
	KindFloat                  // IEEE-754 binary32, always 32 bits
	KindEnum                   // an enumeration; Field.Enum names the values
)

// Lists is a bit set of the control lists a record may appear in.
type Lists uint8

const (
	ListBin    Lists = 1 << iota // the binning control list written by user space
	ListRender                   // the render control list written by the kernel
	ListTile                     // tile lists written by the binner
)

// Enum describes an enumeration of the database: its Go type name and the
// decoder text of each value (indexed by value; "" for holes).
type Enum struct {
	Name   string
	Values []string
}

// ValueName returns the decoder text of v, or a numeric form for values the
// enumeration does not define.
func (e *Enum) ValueName(v uint64) string {
	if v < uint64(len(e.Values)) && e.Values[v] != "" {
		return e.Values[v]
	}
	return e.Name + "(" + strconv.FormatUint(v, 10) + ")"
}

// Field is one field of a record, struct or ring packet as the XML
// database describes it.
type Field struct {
	Name    string // Go field name, as docs/hardware.md names it
	Text    string // decoder text (snake_case)
	Start   int    // bit offset from the first byte of the record (ring: of the payload)
	Width   int    // bits
	Kind    FieldKind
	Enum    *Enum // for KindEnum
	Address bool  // a 32-bit GPU VA the kernel relocates (byte aligned u32)
	Hex     bool  // decoder prints the value in hex
}

// Layout describes one record, struct or ring packet.
type Layout struct {
	Name   string // database name, e.g. "INDEXED_PRIMITIVE_LIST"
	GoName string // Go type name, e.g. "IndexedPrimitiveList"
	Opcode uint8  // control-list or ring opcode; 0 for in-memory structs
	// Size is the size in bytes of a control-list record or an in-memory
	// struct, or the payload word count of a ring packet (the minimum one
	// for a packet whose length may vary, such as ring NOP).
	Size   int
	Lists  Lists   // control lists the record may appear in (records only)
	Fields []Field // in bit order
	// AddressOffsets are the byte offsets, from the first byte of the
	// record or struct, of every Address field.
	AddressOffsets []int
	// Reserved has one mask per byte of a record or struct: the bits that
	// neither the opcode nor any field covers. Packing always leaves them
	// zero. Nil for ring packets.
	Reserved []byte
}

// extract reads a field's raw bits from b (little-endian bit order).
func (f *Field) extract(b []byte) uint64 {
	if f.Start%8 == 0 {
		o := f.Start / 8
		switch f.Width {
		case 8:
			return uint64(b[o])
		case 16:
			return uint64(binary.LittleEndian.Uint16(b[o:]))
		case 32:
			return uint64(binary.LittleEndian.Uint32(b[o:]))
		}
	}
	var v uint64
	first, last := f.Start/8, (f.Start+f.Width-1)/8
	for i := last; i >= first; i-- {
		v = v<<8 | uint64(b[i])
	}
	return (v >> (f.Start % 8)) & (1<<f.Width - 1)
}

// Value returns the raw bits of field f of the record in b, which must hold
// at least the record's Size bytes.
func (f *Field) Value(b []byte) uint64 { return f.extract(b) }

// appendValue appends the decoder text of raw value v of f.
func (f *Field) appendValue(dst []byte, v uint64) []byte {
	switch {
	case f.Kind == KindEnum:
		return append(dst, f.Enum.ValueName(v)...)
	case f.Kind == KindFloat:
		return strconv.AppendFloat(dst, float64(math.Float32frombits(uint32(v))), 'g', -1, 32)
	case f.Address:
		return appendHex32(dst, uint32(v))
	case f.Hex:
		return strconv.AppendUint(append(dst, "0x"...), v, 16)
	default:
		return strconv.AppendUint(dst, v, 10)
	}
}

// AppendText appends the decoder text of the record or struct in b
// ("NAME field=value ...") to dst. b must hold at least l.Size bytes.
func (l *Layout) AppendText(dst []byte, b []byte) []byte {
	dst = append(dst, l.Name...)
	for i := range l.Fields {
		f := &l.Fields[i]
		dst = append(dst, ' ')
		dst = append(dst, f.Text...)
		dst = append(dst, '=')
		dst = f.appendValue(dst, f.extract(b))
	}
	return dst
}

// Text returns the decoder text of the record or struct in b.
func (l *Layout) Text(b []byte) string { return string(l.AppendText(nil, b)) }

// appendRingText appends the decoder text of a ring packet whose payload
// words are payload.
func (l *Layout) appendRingText(dst []byte, payload []uint32) []byte {
	dst = append(dst, l.Name...)
	for i := range l.Fields {
		f := &l.Fields[i]
		w := f.Start / 32
		if w >= len(payload) {
			break
		}
		dst = append(dst, ' ')
		dst = append(dst, f.Text...)
		dst = append(dst, '=')
		dst = f.appendValue(dst, uint64(payload[w]))
	}
	return dst
}

// CheckBytes reports the first problem in the packed record or struct in b:
// a reserved bit that is set, or an enum field holding a value the hardware
// does not define. b must hold at least l.Size bytes. A validator that
// wants to reject anything Pack could not have produced calls it on every
// record.
func (l *Layout) CheckBytes(b []byte) error {
	if len(b) < l.Size {
		return fmt.Errorf("cl: %s needs %d bytes, have %d", l.Name, l.Size, len(b))
	}
	for i, m := range l.Reserved {
		if b[i]&m != 0 {
			return fmt.Errorf("cl: %s: reserved bits 0x%02x set in byte %d", l.Name, b[i]&m, i)
		}
	}
	for i := range l.Fields {
		f := &l.Fields[i]
		if f.Kind != KindEnum {
			continue
		}
		if v := f.extract(b); v >= uint64(len(f.Enum.Values)) || f.Enum.Values[v] == "" {
			return fmt.Errorf("cl: %s %s: %d is not a valid %s", l.Name, f.Text, v, f.Enum.Name)
		}
	}
	return nil
}
