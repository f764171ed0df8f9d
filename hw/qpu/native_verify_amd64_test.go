//go:build amd64 && !purego

package qpu

import "fmt"

func init() { verifyNativeHook = verifyNative }

// verifyNativeRun decodes one native run starting at code (the instruction
// forms the generators emit, nothing else) and checks the safety contract
// of native_amd64.go: no branch or call (one RET, at the end), general
// registers written only by loads of table entries (MOVQ disp32(DI) into
// a pointer register, disp inside the table), every vector memory operand
// based on a register loaded from the table in this run, inside the 64
// bytes of a lane array. It returns the run's length in bytes.
func verifyNativeRun(code []byte) (int, error) {
	loaded := map[uint8]bool{}
	allowed := map[uint8]bool{}
	for _, r := range pointerRegs {
		allowed[r] = true
	}
	i := 0
	need := func(n int) error {
		if i+n > len(code) {
			return fmt.Errorf("truncated instruction at %d", i)
		}
		return nil
	}
	for {
		if err := need(1); err != nil {
			return 0, err
		}
		start := i
		b := code[i]
		var rexR, rexB uint8
		width := 16
		var op, mp uint8
		switch {
		case b == 0xC3:
			return i + 1, nil
		case b == 0xC5:
			if err := need(3); err != nil || code[i+1] != 0xF8 || code[i+2] != 0x77 {
				return 0, fmt.Errorf("at %d: unexpected VEX2 instruction % x", i, code[i:min(i+3, len(code))])
			}
			i += 3
			continue
		case b == 0x48 || b == 0x4C:
			// MOVQ disp32(DI), reg
			if err := need(7); err != nil {
				return 0, err
			}
			modrm := code[i+2]
			reg := (modrm>>3)&7 | (b>>2&1)<<3
			disp := uint32(code[i+3]) | uint32(code[i+4])<<8 | uint32(code[i+5])<<16 | uint32(code[i+6])<<24
			if code[i+1] != 0x8B || modrm>>6 != 2 || modrm&7 != rDI || !allowed[reg] || disp%8 != 0 || disp >= tabSize*8 {
				return 0, fmt.Errorf("at %d: not a table load into a pointer register: % x", i, code[i:i+7])
			}
			loaded[reg] = true
			i += 7
			continue
		case b == 0xC4:
			if err := need(4); err != nil {
				return 0, err
			}
			b1, b2 := code[i+1], code[i+2]
			rexR, rexB = ^b1>>7&1, ^b1>>5&1
			mp = b1 & 31
			if b1>>6&1 != 1 || b2>>7 != 0 || (mp != 1 && mp != 2) {
				return 0, fmt.Errorf("at %d: unexpected VEX3 prefix % x", i, code[i:i+3])
			}
			if b2>>2&1 == 1 {
				width = 32
			}
			op = code[i+3]
			i += 4
		default:
			if b == 0x66 || b == 0xF3 {
				i++
				if err := need(1); err != nil {
					return 0, err
				}
			}
			if code[i]&0xF0 == 0x40 {
				if code[i]&8 != 0 {
					return 0, fmt.Errorf("at %d: REX.W on a vector instruction", i)
				}
				rexR, rexB = code[i]>>2&1, code[i]&1
				i++
			}
			if err := need(2); err != nil {
				return 0, err
			}
			if code[i] != 0x0F {
				return 0, fmt.Errorf("at %d: unexpected byte %#x", start, code[start])
			}
			i++
			mp = 1
			if code[i] == 0x38 {
				mp = 2
				i++
			}
			op = code[i]
			i++
		}
		_ = rexR
		if err := need(1); err != nil {
			return 0, err
		}
		modrm := code[i]
		i++
		switch modrm >> 6 {
		case 3: // register operands only
		case 1:
			base := modrm&7 | rexB<<3
			if err := need(1); err != nil {
				return 0, err
			}
			disp := int(int8(code[i]))
			i++
			if !loaded[base] || disp < 0 || disp+width > Lanes*4 {
				return 0, fmt.Errorf("at %d: memory operand %d(r%d) (loaded from the table: %v, width %d)", start, disp, base, loaded[base], width)
			}
		default:
			return 0, fmt.Errorf("at %d: addressing mode %d", start, modrm>>6)
		}
		if mp == 1 && (op == 0x72 || op == 0xC2) {
			if err := need(1); err != nil {
				return 0, err
			}
			i++ // imm8
		}
	}
}

// verifyNative checks every run of nc (mapped code) with verifyNativeRun
// and that only INT3 padding lies between runs.
func verifyNative(nc *nativeCode) error {
	code := nc.mem
	for k, r := range nc.runs {
		limit := len(code)
		if k+1 < len(nc.runs) {
			limit = int(nc.runs[k+1].off)
		}
		n, err := verifyNativeRun(code[r.off:limit])
		if err != nil {
			return fmt.Errorf("run %d: %v", k, err)
		}
		if k+1 < len(nc.runs) {
			for j := int(r.off) + n; j < limit; j++ {
				if code[j] != 0xCC {
					return fmt.Errorf("run %d: byte %#x between runs", k, code[j])
				}
			}
		}
	}
	return nil
}
