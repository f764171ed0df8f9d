package isa

import "testing"

// FuzzDecode checks that decoding never panics and that every word that
// decodes survives decode → disasm → assemble → encode exactly.
func FuzzDecode(f *testing.F) {
	for _, g := range golden {
		f.Add(g.word)
	}
	f.Add(uint64(0xffffffffffffffff))
	f.Add(uint64(0x4000000000000000))
	f.Fuzz(func(t *testing.T, w uint64) {
		text := Disasm(w)
		w2, err := Assemble(text)
		if err != nil {
			t.Fatalf("Assemble(Disasm(%#016x) = %q): %v", w, text, err)
		}
		if w2 != w {
			t.Fatalf("Assemble(%q) = %#016x, want %#016x", text, w2, w)
		}
		// Most random words are not canonical; also check the canonical
		// word with the same fields, so valid encodings get fuzzed too.
		if raw, err := unpack(w); err == nil && raw.checkRanges() == nil {
			c := Encode(raw)
			if _, err := Decode(c); err != nil {
				t.Fatalf("Encode(%+v) = %#016x does not decode: %v", raw, c, err)
			}
			ct := Disasm(c)
			if c2, err := Assemble(ct); err != nil || c2 != c {
				t.Fatalf("Assemble(Disasm(%#016x) = %q) = %#016x, %v", c, ct, c2, err)
			}
		}
		i, err := Decode(w)
		if err != nil {
			return
		}
		if e := Encode(i); e != w {
			t.Fatalf("Encode(Decode(%#016x)) = %#016x", w, e)
		}
		if s := i.String(); s != text {
			t.Fatalf("String() = %q, Disasm = %q", s, text)
		}
	})
}

// FuzzAssemble checks that the assembler never panics and that whatever it
// accepts disassembles to text that assembles to the same word.
func FuzzAssemble(f *testing.F) {
	for _, g := range golden {
		f.Add(g.text)
	}
	f.Add("fadd r0, unif, unif ; mov rb1, vary")
	f.Add("brr.anyzs ra2 + 8")
	f.Add("li.never.setf nop, 1.5")
	f.Fuzz(func(t *testing.T, line string) {
		w, err := Assemble(line)
		if err != nil {
			return
		}
		text := Disasm(w)
		w2, err := Assemble(text)
		if err != nil || w2 != w {
			t.Fatalf("Assemble(%q) = %#016x; Disasm = %q reassembles to %#016x, %v", line, w, text, w2, err)
		}
	})
}
