// Package spec is the packet and register database of the TG GPU: the single
// source of truth for the bit layout of ring packets, control-list records,
// the shader record, the attribute record and the texture descriptor
// (tg.xml), and the generator that turns it into package hw/cl.
//
// Registers are not in the database yet: their offsets live in package hw
// (regs.go) and in docs/hardware.md §2, and nothing but the kernel uses them.
//
// It is the analogue of Mesa's genxml (v3d_packet_v21.xml plus gen_pack_header.py)
// and freedreno's rnndb: hardware.md names the fields and gives their meaning,
// tg.xml gives their bits, and everything that packs, unpacks, validates or
// prints a record is generated from it, so the driver, the kernel validator,
// the virtual hardware and the decoder cannot disagree. Run
// `go generate ./hw/...` after editing tg.xml; a test in hw/cl fails while
// the generated code is stale.
package spec

import (
	_ "embed"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// XML is the database text (tg.xml).
//
//go:embed tg.xml
var XML []byte

// Database is the parsed, checked content of tg.xml.
type Database struct {
	Enums   []*Enum
	Flags   []*Flags
	Rings   []*Packet
	Records []*Packet
	Structs []*Packet
	enums   map[string]*Enum
}

// Enum is an enumeration; each value becomes a Go constant of type Name.
type Enum struct {
	Name   string   `xml:"name,attr"`
	Prefix string   `xml:"prefix,attr"`
	Values []*Value `xml:"value"`
}

// Value is one value of an enumeration.
type Value struct {
	Name  string `xml:"name,attr"` // decoder text
	Value string `xml:"value,attr"`
	Go    string `xml:"go,attr"` // Go constant name override
	N     uint64 `xml:"-"`
}

// Flags is a set of bit masks, generated as untyped constants.
type Flags struct {
	Name   string `xml:"name,attr"`
	Prefix string `xml:"prefix,attr"`
	Field  string `xml:"field,attr"`
	Bits   []*Bit `xml:"bit"`
}

// Bit is one mask of a Flags set.
type Bit struct {
	Name string `xml:"name,attr"`
	Bit  int    `xml:"bit,attr"`
	Go   string `xml:"go,attr"`
}

// Packet is a ring packet, a control-list record or an in-memory struct.
type Packet struct {
	Name      string   `xml:"name,attr"`
	Go        string   `xml:"go,attr"`
	OpcodeStr string   `xml:"opcode,attr"`
	Size      int      `xml:"size,attr"`
	ListsStr  string   `xml:"lists,attr"`
	AnyLength bool     `xml:"anylength,attr"`
	Fields    []*Field `xml:"field"`

	Kind   PacketKind `xml:"-"`
	Opcode uint8      `xml:"-"`
}

// PacketKind tells rings, records and structs apart.
type PacketKind int

const (
	KindRing PacketKind = iota
	KindRecord
	KindStruct
)

// Field is one field of a packet.
type Field struct {
	Name    string `xml:"name,attr"`
	Start   int    `xml:"start,attr"`
	Type    string `xml:"type,attr"`
	Width   int    `xml:"width,attr"`
	Address bool   `xml:"address,attr"`
	Format  string `xml:"format,attr"`

	Enum *Enum `xml:"-"`
}

// maxPacketSize bounds records, structs and ring payloads, so that a
// mistaken size cannot make the generator emit megabytes of code; the
// largest real one (the shader record) is 36 bytes.
const maxPacketSize = 256

// reservedFieldNames are the method names of the generated types.
var reservedFieldNames = map[PacketKind]map[string]bool{
	KindRing:   {"Opcode": true, "Words": true, "Pack": true, "Unpack": true, "String": true},
	KindRecord: {"Opcode": true, "Size": true, "Pack": true, "Unpack": true, "String": true, "Check": true},
	KindStruct: {"Size": true, "Pack": true, "Unpack": true, "String": true, "Check": true},
}

type document struct {
	Enums   []*Enum   `xml:"enum"`
	Flags   []*Flags  `xml:"flags"`
	Rings   []*Packet `xml:"ring"`
	Records []*Packet `xml:"record"`
	Structs []*Packet `xml:"struct"`
}

// Load parses and checks the embedded database.
func Load() (*Database, error) { return Parse(XML) }

// Parse parses and checks a database in the tg.xml format. Every error
// names the packet and field that is wrong.
func Parse(text []byte) (*Database, error) {
	var doc document
	if err := xml.Unmarshal(text, &doc); err != nil {
		return nil, fmt.Errorf("spec: %v", err)
	}
	db := &Database{Enums: doc.Enums, Flags: doc.Flags, Rings: doc.Rings, Records: doc.Records, Structs: doc.Structs,
		enums: map[string]*Enum{}}
	for _, e := range db.Enums {
		if !isGoIdent(e.Name) {
			return nil, fmt.Errorf("spec: enum %q: name is not a Go identifier", e.Name)
		}
		if db.enums[e.Name] != nil {
			return nil, fmt.Errorf("spec: enum %s defined twice", e.Name)
		}
		db.enums[e.Name] = e
		seen := map[uint64]string{}
		for _, v := range e.Values {
			n, err := strconv.ParseUint(v.Value, 0, 8)
			if err != nil {
				return nil, fmt.Errorf("spec: enum %s value %s: bad value %q", e.Name, v.Name, v.Value)
			}
			if prev, ok := seen[n]; ok {
				return nil, fmt.Errorf("spec: enum %s: %s and %s both have value %d", e.Name, prev, v.Name, n)
			}
			seen[n] = v.Name
			v.N = n
			if v.Go == "" {
				v.Go = e.Prefix + CamelCase(v.Name)
			}
		}
	}
	for _, p := range db.Rings {
		p.Kind = KindRing
	}
	for _, p := range db.Records {
		p.Kind = KindRecord
	}
	for _, p := range db.Structs {
		p.Kind = KindStruct
	}
	goNames := map[string]string{}
	var ringOps, recordOps [256]string
	for _, p := range db.All() {
		if p.Go == "" {
			p.Go = CamelCase(p.Name)
		}
		if p.Kind == KindRing && !strings.HasPrefix(p.Go, "Ring") {
			p.Go = "Ring" + p.Go
		}
		if prev, ok := goNames[p.Go]; ok {
			return nil, fmt.Errorf("spec: %s and %s both generate Go type %s", prev, p.Name, p.Go)
		}
		goNames[p.Go] = p.Name
		if p.Kind != KindStruct {
			op, err := strconv.ParseUint(p.OpcodeStr, 0, 8)
			if err != nil {
				return nil, fmt.Errorf("spec: %s: bad opcode %q", p.Name, p.OpcodeStr)
			}
			p.Opcode = uint8(op)
			ops := &recordOps
			if p.Kind == KindRing {
				ops = &ringOps
			}
			if ops[op] != "" {
				return nil, fmt.Errorf("spec: %s and %s both use opcode %d", ops[op], p.Name, op)
			}
			ops[op] = p.Name
		}
		if err := db.checkPacket(p); err != nil {
			return nil, err
		}
	}
	return db, nil
}

// All returns rings, records and structs in file order per kind.
func (db *Database) All() []*Packet {
	var all []*Packet
	all = append(all, db.Rings...)
	all = append(all, db.Records...)
	return append(all, db.Structs...)
}

// ListBits returns the record's lists as the names of hw/cl's Lists constants.
func (p *Packet) ListBits() ([]string, error) {
	var out []string
	for _, l := range strings.Fields(p.ListsStr) {
		switch l {
		case "bin":
			out = append(out, "ListBin")
		case "render":
			out = append(out, "ListRender")
		case "tile":
			out = append(out, "ListTile")
		default:
			return nil, fmt.Errorf("spec: %s: unknown list %q", p.Name, l)
		}
	}
	return out, nil
}

func (db *Database) checkPacket(p *Packet) error {
	switch p.Kind {
	case KindRing:
		if p.Size != 0 {
			return fmt.Errorf("spec: ring %s: ring packets have no size attribute (the payload is their fields)", p.Name)
		}
	case KindRecord:
		if p.Size < 1 {
			return fmt.Errorf("spec: record %s: size %d is less than the opcode byte", p.Name, p.Size)
		}
		lists, err := p.ListBits()
		if err != nil {
			return err
		}
		if len(lists) == 0 {
			return fmt.Errorf("spec: record %s: no lists attribute", p.Name)
		}
	case KindStruct:
		if p.Size < 1 {
			return fmt.Errorf("spec: struct %s: missing size", p.Name)
		}
	}
	if p.Size > maxPacketSize {
		return fmt.Errorf("spec: %s: size %d is more than %d bytes", p.Name, p.Size, maxPacketSize)
	}
	if p.Kind == KindRing && len(p.Fields) > maxPacketSize/4 {
		return fmt.Errorf("spec: ring %s: more than %d payload words", p.Name, maxPacketSize/4)
	}
	var used []bool
	if p.Kind == KindRecord {
		used = make([]bool, p.Size*8)
		for i := 0; i < 8; i++ {
			used[i] = true // opcode
		}
	} else if p.Kind == KindStruct {
		used = make([]bool, p.Size*8)
	}
	names := map[string]bool{}
	for _, f := range p.Fields {
		where := fmt.Sprintf("spec: %s field %s", p.Name, f.Name)
		if !isGoIdent(f.Name) || !unicode.IsUpper(rune(f.Name[0])) {
			return fmt.Errorf("%s: name must be an exported Go identifier", where)
		}
		if reservedFieldNames[p.Kind][f.Name] {
			return fmt.Errorf("%s: name clashes with a method of the generated type", where)
		}
		if names[f.Name] {
			return fmt.Errorf("%s: defined twice", where)
		}
		names[f.Name] = true
		switch f.Type {
		case "bool":
			if f.Width == 0 {
				f.Width = 1
			}
			if f.Width != 1 {
				return fmt.Errorf("%s: bool is 1 bit", where)
			}
		case "u8", "u16", "u32", "f32":
			w := map[string]int{"u8": 8, "u16": 16, "u32": 32, "f32": 32}[f.Type]
			if f.Width != 0 && f.Width != w {
				return fmt.Errorf("%s: %s is %d bits, width says %d", where, f.Type, w, f.Width)
			}
			f.Width = w
			if f.Start%8 != 0 {
				return fmt.Errorf("%s: %s must be byte aligned (start %d)", where, f.Type, f.Start)
			}
		case "uint":
			if f.Width < 1 || f.Width > 32 {
				return fmt.Errorf("%s: uint needs a width of 1..32", where)
			}
		default:
			e := db.enums[f.Type]
			if e == nil {
				return fmt.Errorf("%s: unknown type %q", where, f.Type)
			}
			f.Enum = e
			if f.Width < 1 || f.Width > 8 {
				return fmt.Errorf("%s: enum field needs a width of 1..8", where)
			}
			for _, v := range e.Values {
				if v.N >= 1<<f.Width {
					return fmt.Errorf("%s: %d bits cannot hold %s.%s = %d", where, f.Width, e.Name, v.Name, v.N)
				}
			}
		}
		if f.Address && (f.Type != "u32") {
			return fmt.Errorf("%s: address fields are byte aligned u32", where)
		}
		switch f.Format {
		case "", "hex":
		default:
			return fmt.Errorf("%s: unknown format %q", where, f.Format)
		}
		if f.Start < 0 || f.Start >= 8*maxPacketSize {
			return fmt.Errorf("%s: start %d is outside 0..%d", where, f.Start, 8*maxPacketSize-1)
		}
		if p.Kind == KindRing {
			if f.Type != "u32" || f.Start%32 != 0 {
				return fmt.Errorf("%s: ring packet fields are whole u32 words", where)
			}
			if f.Start/32 != len(names)-1 {
				return fmt.Errorf("%s: ring fields must fill payload words in order without gaps", where)
			}
			continue
		}
		for b := f.Start; b < f.Start+f.Width; b++ {
			if b >= len(used) {
				return fmt.Errorf("%s: bits %d..%d run past the %d-byte size", where, f.Start, f.Start+f.Width-1, p.Size)
			}
			if used[b] {
				return fmt.Errorf("%s: bit %d overlaps another field or the opcode", where, b)
			}
			used[b] = true
		}
	}
	return nil
}

// GoType is the Go type of the field in the generated struct.
func (f *Field) GoType() string {
	switch f.Type {
	case "bool":
		return "bool"
	case "f32":
		return "float32"
	case "u8":
		return "uint8"
	case "u16":
		return "uint16"
	case "u32":
		return "uint32"
	case "uint":
		switch {
		case f.Width <= 8:
			return "uint8"
		case f.Width <= 16:
			return "uint16"
		default:
			return "uint32"
		}
	}
	return f.Enum.Name
}

// Whole reports whether the field is a byte-aligned 8, 16 or 32-bit value
// that packs with a plain store.
func (f *Field) Whole() bool {
	return f.Start%8 == 0 && (f.Width == 8 || f.Width == 16 || f.Width == 32)
}

// CamelCase turns "TRIANGLE_STRIP" into "TriangleStrip".
func CamelCase(s string) string {
	var b strings.Builder
	for _, part := range strings.Split(strings.ToLower(s), "_") {
		if part == "" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]))
		b.WriteString(part[1:])
	}
	return b.String()
}

// SnakeCase turns a Go field name into decoder text: "IndexType" →
// "index_type", "VPMOffset" → "vpm_offset", "Multisample4x" → "multisample4x".
func SnakeCase(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 {
			prev := r[i-1]
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

func isGoIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(unicode.IsLetter(c) || c == '_' || (i > 0 && unicode.IsDigit(c))) {
			return false
		}
	}
	return true
}
