package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/hw/isa"
)

func assemble(t *testing.T, lines ...string) []uint64 {
	t.Helper()
	var words []uint64
	for _, l := range lines {
		w, err := isa.Assemble(l)
		if err != nil {
			t.Fatalf("assemble %q: %v", l, err)
		}
		words = append(words, w)
	}
	return words
}

func rawBytes(words []uint64) []byte {
	b := make([]byte, 8*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
	return b
}

func TestDisasm(t *testing.T) {
	prog := assemble(t,
		"fadd r0, a.vary, r1 ; fmul rb1, r0, 0.5",
		"brr.anyzc -16",
		"or tlb_r, r0, r0 ; nop ; end")
	const reserved = uint64(7) << 60 // signal 7 is reserved
	withBad := append(append([]uint64(nil), prog[:1]...), reserved, prog[2])
	hexText := "# a comment\n0x" + fmt.Sprintf("%016x", prog[0]) + "\n\n" + fmt.Sprintf("%016X", prog[1]) + "  // branch\n" + fmt.Sprintf("%x\n", prog[2])

	tests := []struct {
		name    string
		data    []byte
		flags   []string
		stdin   bool
		want    []string // whole lines, in order
		wantErr string
	}{
		{name: "raw", data: rawBytes(prog), want: []string{
			fmt.Sprintf("00000000: %016x  fadd r0, a.vary, r1 ; fmul rb1, r0, 0.5", prog[0]),
			fmt.Sprintf("00000008: %016x  brr.anyzc -16 // -> 0x0", prog[1]),
			fmt.Sprintf("00000010: %016x  or tlb_r, r0, r0 ; nop ; end", prog[2]),
		}},
		{name: "base", data: rawBytes(prog), flags: []string{"-base", "0x1000"}, want: []string{
			fmt.Sprintf("00001000: %016x  fadd", prog[0]),
			fmt.Sprintf("00001008: %016x  brr.anyzc -16 // -> 0x1000", prog[1]),
			"00001010: ",
		}},
		{name: "hex text", data: []byte(hexText), want: []string{
			fmt.Sprintf("00000000: %016x  fadd", prog[0]),
			fmt.Sprintf("00000008: %016x  brr.anyzc -16", prog[1]),
			fmt.Sprintf("00000010: %016x  or tlb_r", prog[2]),
		}},
		{name: "stdin", data: rawBytes(prog), stdin: true, want: []string{"00000000: ", "00000008: ", "00000010: "}},
		{name: "invalid word", data: rawBytes(withBad), want: []string{
			"00000000: ",
			"00000008: 7000000000000000  .word 0x7000000000000000  ; invalid: reserved signal 7",
			fmt.Sprintf("00000010: %016x  or tlb_r", prog[2]),
		}},
		{name: "invalid word in text", data: []byte("7000000000000000\n"), want: []string{
			"00000000: 7000000000000000  .word 0x7000000000000000  ; invalid: reserved signal 7"}},
		{name: "non-canonical word", data: rawBytes([]uint64{prog[0] | 1}), want: []string{"; invalid: reserved bits [4:0] are 0x1"}},
		{name: "empty", data: nil, want: nil},
		{name: "short binary", data: []byte{1, 2, 3, 0xff}, wantErr: "4 bytes is not a whole number of 64-bit words"},
		{name: "bad text line", data: []byte("0x10\nzzz\n"), wantErr: `line 2: "zzz" is not a 64-bit hex word`},
		{name: "word too wide", data: []byte("1234567890abcdef0\n"), wantErr: "line 1:"},
		{name: "bad base", data: rawBytes(prog), flags: []string{"-base", "0x1004"}, wantErr: "8-byte aligned"},
		{name: "base not a number", data: rawBytes(prog), flags: []string{"-base", "here"}, wantErr: `-base "here"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			arg := "-"
			if tc.stdin {
				old := stdin
				stdin = strings.NewReader(string(tc.data))
				defer func() { stdin = old }()
			} else {
				arg = filepath.Join(t.TempDir(), "code.bin")
				if err := os.WriteFile(arg, tc.data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out, _, err := runCLI(t, cmdDisasm, append(tc.flags, arg)...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if out == "" {
				lines = nil
			}
			if len(lines) != len(tc.want) {
				t.Fatalf("%d lines, want %d:\n%s", len(lines), len(tc.want), out)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(lines[i], w) && !strings.HasSuffix(lines[i], w) {
					t.Errorf("line %d = %q, want %q", i, lines[i], w)
				}
			}
		})
	}
}

// TestDisasmRoundTrip: every valid line's text assembles back to its word.
func TestDisasmRoundTrip(t *testing.T) {
	prog := assemble(t,
		"li ra3, 0x3f800000",
		"nop ; fmul.ifnc r2, a.unif, 0.5",
		"add r1, r1, -1 ; mov tmu_s, r0",
		"nop ; nop ; thrsw",
		"b.anyzc 0x40")
	var out strings.Builder
	if err := disassemble(&out, prog, 0); err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		text := l[len("00000000: 0000000000000000  "):]
		if j := strings.Index(text, " // ->"); j >= 0 {
			text = text[:j]
		}
		w, err := isa.Assemble(text)
		if err != nil || w != prog[i] {
			t.Errorf("line %q: assembles to %#x, %v; want %#x", l, w, err, prog[i])
		}
	}
}

func TestDisasmUsage(t *testing.T) {
	_, errOut, err := runCLI(t, cmdDisasm)
	if ee, ok := err.(exitError); !ok || ee != 2 || !strings.Contains(errOut, "usage: tilegpu disasm") {
		t.Fatalf("error %v, stderr %q", err, errOut)
	}
	if _, _, err := runCLI(t, cmdDisasm, filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Error("missing file: no error")
	}
}

// FuzzDisasm: any input gives a listing or an error naming what was
// wrong, never a panic, and every listed word is in the output.
func FuzzDisasm(f *testing.F) {
	f.Add([]byte("0x10\n"))
	f.Add(rawBytes([]uint64{6 << 60, 0}))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		words, err := decodeWords(data)
		if err != nil {
			return
		}
		var out strings.Builder
		if err := disassemble(&out, words, 0); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(out.String(), "\n"); n != len(words) {
			t.Fatalf("%d lines for %d words", n, len(words))
		}
	})
}
