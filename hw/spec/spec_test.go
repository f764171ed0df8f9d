package spec

import (
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	db, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(db.Rings) != 6 || len(db.Records) != 35 || len(db.Structs) != 5 {
		t.Errorf("database has %d rings, %d records, %d structs; want 6, 35, 5", len(db.Rings), len(db.Records), len(db.Structs))
	}
	if _, err := Generate(db); err != nil {
		t.Fatal(err)
	}
}

func TestNames(t *testing.T) {
	snake := map[string]string{
		"IndexType": "index_type", "VPMOffset": "vpm_offset", "Multisample4x": "multisample4x",
		"V0": "v0", "CtxID": "ctx_id", "EquationRGB": "equation_rgb", "ZUpdatesEnable": "z_updates_enable",
		"TileAllocationAddress": "tile_allocation_address", "R": "r",
	}
	for in, want := range snake {
		if got := SnakeCase(in); got != want {
			t.Errorf("SnakeCase(%q) = %q, want %q", in, got, want)
		}
	}
	camel := map[string]string{"TRIANGLE_STRIP": "TriangleStrip", "U16": "U16", "GL_SHADER_STATE": "GlShaderState", "NOP": "Nop"}
	for in, want := range camel {
		if got := CamelCase(in); got != want {
			t.Errorf("CamelCase(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestParseErrors checks that each kind of mistake in the XML is caught
// and named.
func TestParseErrors(t *testing.T) {
	const enum = `<enum name="Mode" prefix="Mode"><value name="A" value="0"/><value name="B" value="5"/></enum>`
	tests := []struct {
		name, xml, want string
	}{
		{"overlap", `<record name="X" opcode="1" size="3" lists="bin"><field name="A" start="8" type="u16"/><field name="B" start="16" type="u8"/></record>`,
			"spec: X field B: bit 16 overlaps another field or the opcode"},
		{"opcode overlap", `<record name="X" opcode="1" size="2" lists="bin"><field name="A" start="4" type="uint" width="4"/></record>`,
			"spec: X field A: bit 4 overlaps another field or the opcode"},
		{"past size", `<record name="X" opcode="1" size="4" lists="bin"><field name="A" start="8" type="u32"/></record>`,
			"spec: X field A: bits 8..39 run past the 4-byte size"},
		{"duplicate opcode", `<record name="X" opcode="1" size="1" lists="bin"/><record name="Y" opcode="1" size="1" lists="bin"/>`,
			"spec: X and Y both use opcode 1"},
		{"enum too narrow", enum + `<record name="X" opcode="1" size="2" lists="bin"><field name="M" start="8" type="Mode" width="2"/></record>`,
			"spec: X field M: 2 bits cannot hold Mode.B = 5"},
		{"unknown type", `<record name="X" opcode="1" size="2" lists="bin"><field name="M" start="8" type="Nope" width="2"/></record>`,
			`spec: X field M: unknown type "Nope"`},
		{"unaligned u16", `<record name="X" opcode="1" size="4" lists="bin"><field name="M" start="9" type="u16"/></record>`,
			"spec: X field M: u16 must be byte aligned (start 9)"},
		{"address not u32", `<record name="X" opcode="1" size="4" lists="bin"><field name="M" start="8" type="u16" address="true"/></record>`,
			"spec: X field M: address fields are byte aligned u32"},
		{"method clash", `<record name="X" opcode="1" size="2" lists="bin"><field name="Size" start="8" type="u8"/></record>`,
			"spec: X field Size: name clashes with a method of the generated type"},
		{"no lists", `<record name="X" opcode="1" size="1"/>`, "spec: record X: no lists attribute"},
		{"bad list", `<record name="X" opcode="1" size="1" lists="bin nowhere"/>`, `spec: X: unknown list "nowhere"`},
		{"ring gap", `<ring name="R" opcode="0x10"><field name="A" start="32" type="u32"/></ring>`,
			"spec: R field A: ring fields must fill payload words in order without gaps"},
		{"duplicate enum value", `<enum name="E" prefix="E"><value name="A" value="0"/><value name="B" value="0"/></enum>`,
			"spec: enum E: A and B both have value 0"},
		{"duplicate Go type", `<record name="X" opcode="1" size="1" lists="bin"/><struct name="X" size="4"/>`,
			"spec: X and X both generate Go type X"},
		{"lower-case field", `<record name="X" opcode="1" size="2" lists="bin"><field name="a" start="8" type="u8"/></record>`,
			"spec: X field a: name must be an exported Go identifier"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte("<tg>" + tt.xml + "</tg>"))
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v\nwant  %s", err, tt.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add(string(XML))
	f.Add(`<tg><record name="X" opcode="1" size="3" lists="bin"><field name="A" start="8" type="u16"/></record></tg>`)
	f.Add(`<tg><enum name="E" prefix="E"><value name="A" value="300"/></enum></tg>`)
	f.Fuzz(func(t *testing.T, text string) {
		db, err := Parse([]byte(text))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "spec: ") {
				t.Fatalf("error without the spec prefix: %v", err)
			}
			return
		}
		// A database that parses must generate code that gofmt accepts.
		if _, err := Generate(db); err != nil {
			t.Fatalf("Generate failed on a database Parse accepted: %v", err)
		}
	})
}
