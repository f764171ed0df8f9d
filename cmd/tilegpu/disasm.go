package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tilegpu/tilegpu/hw/isa"
)

// cmdDisasm is `tilegpu disasm [-base ADDR] FILE|-`: it reads TG shader
// machine code, either raw little-endian 64-bit words or text with one hex
// word per line (detected from the content), and prints one line per
// instruction: address, word and assembler text (hw/isa syntax). A word
// that does not decode is printed as `.word 0x…  ; invalid: <reason>`
// rather than stopping the listing, since a bad word in the middle of a
// capture is exactly what one wants to see.
func cmdDisasm(args []string) error {
	fs := flag.NewFlagSet("disasm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	baseFlag := fs.String("base", "0", "address of the first word (decimal or 0x hex)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: tilegpu disasm [-base ADDR] FILE|-\n"+
			"FILE holds raw little-endian 64-bit words or one hex word per line; - reads standard input.\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return exitError(2)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitError(2)
	}
	base, err := strconv.ParseUint(*baseFlag, 0, 32)
	if err != nil {
		return fmt.Errorf("-base %q: want a 32-bit address", *baseFlag)
	}
	if base%isa.InstrBytes != 0 {
		return fmt.Errorf("-base %#x: instructions are %d-byte aligned", base, isa.InstrBytes)
	}
	var data []byte
	if name := fs.Arg(0); name == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return err
	}
	code, err := decodeWords(data)
	if err != nil {
		return fmt.Errorf("%s: %v", fs.Arg(0), err)
	}
	return disassemble(stdout, code, uint32(base))
}

// stdin is where `disasm -` reads; tests replace it.
var stdin io.Reader = os.Stdin

// decodeWords turns the file contents into instruction words. Text is
// recognised by content: every byte printable ASCII or white space, and
// every line (minus '#' or "//" comments) empty or one hex word with an
// optional 0x. Anything else is raw little-endian words.
func decodeWords(data []byte) ([]uint64, error) {
	if words, ok, err := hexWords(data); ok {
		return words, err
	}
	if len(data)%8 != 0 {
		return nil, fmt.Errorf("%d bytes is not a whole number of 64-bit words (and not a hex text file)", len(data))
	}
	words := make([]uint64, len(data)/8)
	for i := range words {
		words[i] = binary.LittleEndian.Uint64(data[8*i:])
	}
	return words, nil
}

// hexWords parses the text form. ok is false when data is not text at all
// (binary); err reports a text file with a bad line.
func hexWords(data []byte) (words []uint64, ok bool, err error) {
	for _, c := range data {
		if (c < 0x20 || c > 0x7e) && c != '\n' && c != '\r' && c != '\t' {
			return nil, false, nil
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), len(data)+1)
	sawWord := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		digits := strings.TrimPrefix(strings.TrimPrefix(line, "0x"), "0X")
		w, perr := strconv.ParseUint(digits, 16, 64)
		if perr != nil || digits == "" {
			if !sawWord && len(data)%8 == 0 {
				// Printable bytes that are not a word list: binary after all.
				return nil, false, nil
			}
			return nil, true, fmt.Errorf("line %d: %q is not a 64-bit hex word", n, line)
		}
		sawWord = true
		words = append(words, w)
	}
	if !sawWord && len(data) > 0 && len(data)%8 == 0 {
		return nil, false, nil
	}
	return words, true, nil
}

// disassemble writes one line per word: address, word, text; relative
// branches get their absolute target as a comment.
func disassemble(w io.Writer, code []uint64, base uint32) error {
	bw := bufio.NewWriter(w)
	for k, word := range code {
		pc := base + uint32(k)*isa.InstrBytes
		in, err := isa.Decode(word)
		var text string
		switch {
		case err != nil:
			reason := strings.TrimPrefix(err.Error(), fmt.Sprintf("isa: instruction %#016x: ", word))
			text = fmt.Sprintf(".word 0x%016x  ; invalid: %s", word, reason)
		default:
			text = isa.Disasm(word)
			if in.Sig == isa.SigBranch && in.Rel {
				text += fmt.Sprintf(" // -> %#x", in.BranchTarget(pc))
				if in.Reg {
					text += " + lane 0 of the register"
				}
			}
		}
		fmt.Fprintf(bw, "%08x: %016x  %s\n", pc, word, text)
	}
	return bw.Flush()
}
