package isa

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// golden lists assembler text and the exact 64-bit word side by side. The
// words were computed by hand from the field table of docs/hardware.md §7.2.
var golden = []struct {
	text string
	word uint64
}{
	{"nop ; nop", 0x0000000000000000},
	{"nop ; nop ; thrsw", 0x1000000000000000},
	{"fadd r0, r1, r2 ; nop", 0x0208000020005000},
	{"fadd.ifzs.setf r0, ra1, rb2 ; fmul rb3, r4, r1 ; ldtmu", 0x346803082085BC20},
	{"add r1, r1, -1 ; nop", 0x42084001203E7800},
	{"nop ; mov tmu_s, r0", 0x0040381800000000},
	{"nop ; fmul.ifnc r2, a.unif, 0.5", 0x41402208105E06E0},
	{"fadd rb5, r0, r1 ; fmul ra6, r2, r3", 0x0251460820000A60},
	{"ftoi ra1, frag_x ; nop ; end", 0x22004000F4818000},
	{"li ra3, 0x3f800000", 0xE200C0003F800000},
	{"li.ifzs.setf r0, 0x1 ; li.ifzc rb2, 0x1", 0xE4E8020000000001},
	{"b.anyzc 0x40", 0xF300492000000040},
	{"brr.allns -16", 0xF4804920FFFFFFF0},
	{"b ra1, nop, ra3+0x10", 0xFF43032000000010},
}

func TestGoldenAssemble(t *testing.T) {
	for _, g := range golden {
		w, err := Assemble(g.text)
		if err != nil {
			t.Errorf("Assemble(%q): %v", g.text, err)
			continue
		}
		if w != g.word {
			t.Errorf("Assemble(%q) = %#016x, want %#016x", g.text, w, g.word)
		}
	}
}

func TestGoldenDisasm(t *testing.T) {
	for _, g := range golden {
		if got := Disasm(g.word); got != g.text {
			t.Errorf("Disasm(%#016x) = %q, want %q", g.word, got, g.text)
		}
	}
}

func TestGoldenStructs(t *testing.T) {
	tests := []struct {
		in   Instr
		text string
	}{
		{Instr{Sig: SigLDTMU, OpAdd: OpFADD, CondAdd: CondZS, SF: true, WaddrAdd: WaddrR0,
			RaddrA: 1, RaddrB: 2, AddA: MuxA, AddB: MuxB,
			OpMul: OpFMUL, CondMul: CondAlways, WaddrMul: 3, MulA: MuxR4, MulB: MuxR1},
			"fadd.ifzs.setf r0, ra1, rb2 ; fmul rb3, r4, r1 ; ldtmu"},
		{Instr{Sig: SigLoadImm, CondAdd: CondAlways, WaddrAdd: 3, Imm: 0x3f800000}, "li ra3, 0x3f800000"},
		{Instr{Sig: SigBranch, CondBr: BranchAnyZC, WaddrAdd: WaddrNOP, WaddrMul: WaddrNOP, BranchImm: 0x40}, "b.anyzc 0x40"},
		// unused fields are dropped by Encode
		{Instr{OpMul: OpMOV, CondMul: CondAlways, WaddrMul: WaddrTMUS, MulA: MuxR0, MulB: MuxR3,
			CondAdd: CondAlways, WaddrAdd: 7, RaddrA: 9, WS: true}, "nop ; mov tmu_s, r0"},
	}
	for _, tt := range tests {
		w := Encode(tt.in)
		if got := Disasm(w); got != tt.text {
			t.Errorf("Disasm(Encode(%+v)) = %q, want %q", tt.in, got, tt.text)
		}
		d, err := Decode(w)
		if err != nil {
			t.Fatalf("Decode: %v", err)
		}
		if d != Canonical(tt.in) {
			t.Errorf("Decode(Encode(x)) = %+v, want %+v", d, Canonical(tt.in))
		}
	}
}

func TestAssemblerAliases(t *testing.T) {
	tests := []struct{ in, canonical string }{
		{"fadd.ifz r0, r1, r2", "fadd.ifzs r0, r1, r2 ; nop"},
		{"FADD.IFNZ R0, R1, R2 ; NOP", "fadd.ifzc r0, r1, r2 ; nop"},
		{"mov r0, ra2", "or r0, ra2, ra2 ; nop"},
		{"fadd r0, unif, unif", "fadd r0, a.unif, a.unif ; nop"},
		{"fadd r0, ra1, unif", "fadd r0, ra1, b.unif ; nop"},
		{"fmul r0, r1, 2 ; nop", ""}, // fmul is not an add op
		{"nop ; fmul r0, r1, 2.0", "nop ; fmul r0, r1, 2.0"},
		{"nop ; fmul r0, r1, 0.0078125 # comment", "nop ; fmul r0, r1, 0.0078125"},
		{"nop ; thrsw", "nop ; nop ; thrsw"},
		{"li r1, 1.0", "li r1, 0x3f800000"},
		{"li r1, -1", "li r1, 0xffffffff"},
		{"b 64", "b 0x40"},
		{"brr.anyzs ra2 + 8", "brr.anyzs ra2+8"},
		{"b.allz unif-4", "b.allzs a.unif+0xfffffffc"},
		{"fadd r0, r1, 3", "fadd r0, r1, 3 ; nop"},
		{"itof ra0, r0 ; mov rb0, elem_num", "itof ra0, r0 ; mov rb0, elem_num"},
		{".word 0x7000000000000000", ".word 0x7000000000000000 // reserved signal 7"},
	}
	for _, tt := range tests {
		w, err := Assemble(tt.in)
		if tt.canonical == "" {
			if err == nil {
				t.Errorf("Assemble(%q) = %#x, want error", tt.in, w)
			}
			continue
		}
		if err != nil {
			t.Errorf("Assemble(%q): %v", tt.in, err)
			continue
		}
		if got := Disasm(w); got != tt.canonical {
			t.Errorf("Disasm(Assemble(%q)) = %q, want %q", tt.in, got, tt.canonical)
		}
	}
}

func TestAssemblerErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "empty"},
		{"frobnicate r0, r1, r2", "unknown add op"},
		{"fadd r0, ra1, ra2", "two different A-file reads"},
		{"fadd r0, rb1, 3", "two different B-file reads"},
		{"fadd r0, r1, 17", "not a small immediate"},
		{"fadd r0, r1, 0.3", "not a small immediate"},
		{"fadd r0, r1", "takes 3 operands"},
		{"fneg r0, r1, r2", "takes 2 operands"},
		{"fadd r4, r1, r2", "unknown destination"},
		{"fadd ra1, r1, r2 ; fmul ra2, r1, r2", "same register file"},
		{"fadd r0, r1, r2 ; fmul.setf r1, r1, r2", "belongs on the add op"},
		{"fadd r0, r1, r2 ; fmul r0, r1, r2", "both write r0"},
		{"fadd r0, r1, 1 ; nop ; ldtmu", "cannot be combined"},
		{"fadd r0, front_facing, b.unif ; nop", ""},
		{"fadd r0, r1, r2 ; nop ; foo", "unknown signal"},
		{"li r0, 1 ; li r1, 2", "same value"},
		{"li r0", "destination and a value"},
		{"b.sometimes 0x40", "unknown branch condition"},
		{"b foo", "unknown branch register or label"},
		{"b 0x1ffffffff", "bad branch target"},
		{"b 0x40 ; nop", "whole instruction"},
		{"fadd.ifzs.ifzc r0, r1, r2", "bad suffix"},
		{".word zz", "bad .word"},
	}
	for _, tt := range tests {
		w, err := Assemble(tt.in)
		if tt.want == "" {
			if err != nil {
				t.Errorf("Assemble(%q): unexpected error %v", tt.in, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("Assemble(%q) = %#x, want error containing %q", tt.in, w, tt.want)
		} else if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Assemble(%q) error %q, want it to contain %q", tt.in, err, tt.want)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	fadd := uint64(0x0208000020005000) // fadd r0, r1, r2 ; nop
	tests := []struct {
		name string
		word uint64
		want string
	}{
		{"reserved signal", 7 << 60, "reserved signal 7"},
		{"reserved low bits", fadd | 1, "reserved bits [4:0]"},
		{"reserved add op", fadd&^(63<<29) | 31<<29, "reserved add op 31"},
		{"reserved mul op", 1<<54 | 32<<40 | 5<<35, "reserved mul op 5"},
		{"add and mul both write a memory port", fadd&^(63<<46) | 38<<46 | 1<<54 | 38<<40 | uint64(OpMOV)<<35 | 1<<8, "add and mul both write shared_ld"},
		{"unused raddr_a", fadd | 5<<23, "raddr_a must be zero"},
		{"unused cond_mul", fadd | 1<<54, "cond_mul must be zero"},
		{"unary add_b", 1<<57 | 32<<46 | uint64(OpFNEG)<<29 | 1<<14 | 2<<11, "add_b must be zero"},
		{"sf on nop", 1 << 53, "sf must be zero"},
		{"ws unused", 1 << 52, "ws must be zero"},
		{"reserved raddr_b", fadd&^(7<<11) | 7<<11 | 43<<17, "reserved raddr_b 43"},
		{"reserved small imm", 4<<60 | fadd&^(7<<11) | 7<<11 | 48<<17, "reserved small immediate 48"},
		{"small imm unused", 4 << 60, "small immediate without a B operand"},
		{"li reserved bits", 0xE200C0013F800000, "reserved bits [39:32]"},
		{"li unused waddr_mul", 0xE200C0003F800000 | 5<<40, "waddr_mul must be zero"},
		{"branch reserved bits", 0xF300492100000040, "reserved bits [34:32]"},
		{"branch reserved cond", 0xFC00492000000040, "reserved branch condition 12"},
		{"branch unused raddr", 0xF301492000000040, "raddr_a must be zero"},
	}
	for _, tt := range tests {
		_, err := Decode(tt.word)
		if err == nil {
			t.Errorf("%s: Decode(%#016x) succeeded", tt.name, tt.word)
		} else if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Decode(%#016x) = %q, want %q", tt.name, tt.word, err, tt.want)
		}
		if !strings.HasPrefix(Disasm(tt.word), ".word ") {
			t.Errorf("%s: Disasm of an invalid word = %q", tt.name, Disasm(tt.word))
		}
	}
}

func TestSmallImmediates(t *testing.T) {
	tests := []struct {
		value uint32
		code  uint8
		ok    bool
	}{
		{0, 0, true}, {15, 15, true}, {0xfffffff0, 16, true}, {0xffffffff, 31, true},
		{math.Float32bits(1), 32, true}, {math.Float32bits(128), 39, true},
		{math.Float32bits(1.0 / 256), 40, true}, {math.Float32bits(0.5), 47, true},
		{16, 0, false}, {math.Float32bits(3), 0, false}, {math.Float32bits(-1), 0, false},
	}
	for _, tt := range tests {
		c, ok := SmallImmediate(tt.value)
		if ok != tt.ok || (ok && c != tt.code) {
			t.Errorf("SmallImmediate(%#x) = %d, %v; want %d, %v", tt.value, c, ok, tt.code, tt.ok)
		}
		if ok {
			v, _ := SmallImmediateValue(c)
			if v != tt.value {
				t.Errorf("SmallImmediateValue(%d) = %#x, want %#x", c, v, tt.value)
			}
		}
	}
	for c := uint8(0); c < NumSmallImms; c++ {
		w, err := Assemble("fadd r0, r0, " + SmallImmediateText(c))
		if err != nil {
			t.Fatalf("small immediate %d: %v", c, err)
		}
		i, _ := Decode(w)
		if i.Sig != SigSmallImm || i.RaddrB != Raddr(c) {
			t.Errorf("small immediate %d text %q assembled to code %d", c, SmallImmediateText(c), i.RaddrB)
		}
	}
}

// TestRoundTripAllFields walks every op, condition, address and mux and
// checks Assemble(Disasm(w)) == w.
func TestRoundTripAllFields(t *testing.T) {
	var words []uint64
	for op := AddOp(1); op < NumAddOps; op++ {
		for c := Cond(0); c < 8; c++ {
			words = append(words, Encode(Instr{OpAdd: op, CondAdd: c, WaddrAdd: WaddrR1, AddA: MuxA, AddB: MuxB, RaddrA: 3, RaddrB: 4, SF: c == CondZS}))
		}
	}
	for op := MulOp(1); op < NumMulOps; op++ {
		for m := Mux(0); m < 8; m++ {
			words = append(words, Encode(Instr{OpMul: op, CondMul: CondAlways, WaddrMul: 5, MulA: m, MulB: 7 - m, RaddrA: 31, RaddrB: 0, SF: true}))
		}
	}
	for w := Waddr(0); w < 64; w++ {
		if !w.Valid() {
			continue
		}
		words = append(words,
			Encode(Instr{OpAdd: OpOR, CondAdd: CondAlways, WaddrAdd: w, AddA: MuxR0, AddB: MuxR0}),
			Encode(Instr{OpMul: OpMOV, CondMul: CondAlways, WaddrMul: w, MulA: MuxR0, WS: true}),
			Encode(Instr{Sig: SigLoadImm, CondAdd: CondNC, CondMul: CondCS, WaddrAdd: w, WaddrMul: WaddrR2, Imm: uint32(w) * 0x01010101}),
			Encode(Instr{Sig: SigBranch, CondBr: BranchAlways, WaddrAdd: w, WaddrMul: WaddrNOP, WS: true}))
	}
	for r := Raddr(0); r < 64; r++ {
		if r.ValidA() {
			words = append(words, Encode(Instr{OpAdd: OpFADD, CondAdd: CondAlways, WaddrAdd: WaddrR0, AddA: MuxA, AddB: MuxR1, RaddrA: r}))
			words = append(words, Encode(Instr{Sig: SigBranch, CondBr: BranchAnyCC, Rel: true, Reg: true, RaddrA: r, WaddrAdd: WaddrNOP, WaddrMul: WaddrNOP, BranchImm: -int32(r)}))
		}
		if r.ValidB() {
			words = append(words, Encode(Instr{OpMul: OpFMUL, CondMul: CondAlways, WaddrMul: WaddrR0, MulA: MuxB, MulB: MuxR1, RaddrB: r}))
		}
	}
	for _, s := range []Sig{SigNone, SigTHRSW, SigEND, SigLDTMU, SigLastTHRSW, SigBarrier} {
		words = append(words, Encode(Instr{Sig: s}))
	}
	for bc := BranchCond(0); bc < 16; bc++ {
		if bc <= BranchAnyCC || bc == BranchAlways {
			words = append(words, Encode(Instr{Sig: SigBranch, CondBr: bc, WaddrAdd: WaddrNOP, WaddrMul: WaddrNOP, BranchImm: 8 * int32(bc)}))
		}
	}
	words = append(words, Encode(Instr{Sig: SigLoadImm, SF: true, Imm: 5}))
	words = append(words, Encode(Instr{Sig: SigLoadImm, CondMul: CondAlways, WaddrMul: 2, SF: true, Imm: 5}))
	for _, w := range words {
		if _, err := Decode(w); err != nil {
			t.Fatalf("Decode(Encode(x)) failed: %v", err)
		}
		text := Disasm(w)
		w2, err := Assemble(text)
		if err != nil {
			t.Errorf("Assemble(Disasm(%#016x) = %q): %v", w, text, err)
			continue
		}
		if w2 != w {
			t.Errorf("Assemble(%q) = %#016x, want %#016x", text, w2, w)
		}
	}
}

func TestAssembleProgram(t *testing.T) {
	src := `
	# count down
	        li r0, 3
	Loop:   sub.setf r0, r0, 1 ; nop
	        brr.anyzc LOOP      // back 2 instructions
	        b done
	done:   nop ; nop ; end
	`
	code, err := AssembleProgram(src, 0x1000)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"li r0, 0x3", "sub.setf r0, r0, 1 ; nop", "brr.anyzc -16", "b 0x1020", "nop ; nop ; end"}
	if len(code) != len(want) {
		t.Fatalf("got %d instructions, want %d", len(code), len(want))
	}
	for k, w := range code {
		if got := Disasm(w); got != want[k] {
			t.Errorf("instruction %d = %q, want %q", k, got, want[k])
		}
	}
	if _, err := AssembleProgram("a: nop ; nop\na: nop ; nop", 0); err == nil || !strings.Contains(err.Error(), "defined twice") {
		t.Errorf("duplicate label: %v", err)
	}
	if _, err := AssembleProgram("nop ; nop\nfoo r0", 0); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("error should name the line: %v", err)
	}
	var buf bytes.Buffer
	if err := DisasmProgram(&buf, code, 0x1000); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "00001010: f380492") || !strings.Contains(buf.String(), "// -> 0x1008") {
		t.Errorf("DisasmProgram output:\n%s", buf.String())
	}
}

func TestClassification(t *testing.T) {
	if !OpFADD.FloatResult() || OpFTOI.FloatResult() || !OpITOF.FloatResult() || OpADD.FloatResult() {
		t.Error("FloatResult")
	}
	if !OpFTOI.FloatOperands() || OpITOF.FloatOperands() {
		t.Error("FloatOperands")
	}
	if !OpFNEG.IsUnary() || OpFADD.IsUnary() || !OpMOV.IsUnary() || OpFMUL.IsUnary() {
		t.Error("IsUnary")
	}
	i, _ := Decode(0x346803082085BC20)
	if !i.ReadsR4() || !i.WritesR4() || !i.ReadsA() || !i.ReadsB() {
		t.Errorf("reads/writes of %v", i)
	}
	w, _ := Assemble("nop ; mov sfu_recip, r0")
	i, _ = Decode(w)
	if !i.WritesR4() || i.ReadsR4() || !WaddrSFURecip.IsSFU() || !WaddrTMUS.IsTMU() || !WaddrTLBZ.IsTLB() {
		t.Error("SFU classification")
	}
}
