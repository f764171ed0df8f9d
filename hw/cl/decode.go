package cl

import (
	"fmt"
	"io"
	"strconv"
)

// StreamError reports a malformed control list or ring: where, and why.
type StreamError struct {
	Offset int    // byte offset into the list (ring: byte offset into the words)
	Opcode uint8  // opcode at Offset
	Reason string // e.g. "unknown opcode 0x2f"
}

func (e *StreamError) Error() string {
	return "cl: offset " + strconv.Itoa(e.Offset) + ": " + e.Reason
}

// NextRecord returns the opcode and layout of the record at buf[off:],
// checking that the opcode is known and that the whole record is inside buf.
// Validators and decoders walk a control list with it:
//
//	for off := 0; off < len(buf); off += l.Size { l, err := cl.NextRecord(buf, off) ... }
func NextRecord(buf []byte, off int) (*Layout, error) {
	if off < 0 || off >= len(buf) {
		return nil, &StreamError{Offset: off, Reason: "offset outside the list"}
	}
	op := buf[off]
	l := recordLayouts[op]
	if l == nil {
		return nil, &StreamError{Offset: off, Opcode: op, Reason: fmt.Sprintf("unknown opcode 0x%02x", op)}
	}
	if len(buf)-off < l.Size {
		return nil, &StreamError{Offset: off, Opcode: op,
			Reason: fmt.Sprintf("%s needs %d bytes, only %d remain", l.Name, l.Size, len(buf)-off)}
	}
	return l, nil
}

// DecodeCL prints the control list in buf, one record per line, as
// "0x%08x: NAME field=value ..." where the address is base plus the record's
// offset (cffdump style). It stops after HALT or FLUSH or at the end of buf,
// and returns a *StreamError naming the offset and opcode at the first
// unknown opcode or truncated record (after printing the records before it).
func DecodeCL(w io.Writer, buf []byte, base uint32) error {
	line := make([]byte, 0, 160)
	for off := 0; off < len(buf); {
		l, err := NextRecord(buf, off)
		if err != nil {
			return err
		}
		line = appendHex32(line[:0], base+uint32(off))
		line = append(line, ": "...)
		line = l.AppendText(line, buf[off:off+l.Size])
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
		off += l.Size
		if l.Opcode == OpHalt || l.Opcode == OpFlush {
			break
		}
	}
	return nil
}

// DecodeRing prints the ring packets in words, one per line, as
// "0x%08x: NAME field=value ..." where the address is the byte offset of
// the header. It returns a *StreamError at the first word that is not a
// type-7 header of a known packet, or whose payload is cut off or has the
// wrong length.
func DecodeRing(w io.Writer, words []uint32) error {
	line := make([]byte, 0, 160)
	for i := 0; i < len(words); {
		op, count, ok := ParseRingHeader(words[i])
		if !ok {
			return &StreamError{Offset: 4 * i, Reason: fmt.Sprintf("0x%08x is not a type-7 packet header", words[i])}
		}
		l := ringLayouts[op]
		if l == nil {
			return &StreamError{Offset: 4 * i, Opcode: op, Reason: fmt.Sprintf("unknown ring opcode 0x%02x", op)}
		}
		if count > len(words)-i-1 {
			return &StreamError{Offset: 4 * i, Opcode: op,
				Reason: fmt.Sprintf("%s has %d payload words, only %d remain", l.Name, count, len(words)-i-1)}
		}
		anyLength := op == RingOpNop
		if !anyLength && count != l.Size {
			return &StreamError{Offset: 4 * i, Opcode: op,
				Reason: fmt.Sprintf("%s has %d payload words, want %d", l.Name, count, l.Size)}
		}
		line = appendHex32(line[:0], uint32(4*i))
		line = append(line, ": "...)
		line = l.appendRingText(line, words[i+1:i+1+count])
		if anyLength && count != l.Size {
			line = append(line, " count="...)
			line = strconv.AppendInt(line, int64(count), 10)
		}
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
		i += 1 + count
	}
	return nil
}

// DecodeShaderRecord prints the shader record at the start of buf and the
// attributeCount attribute records that follow it (the count comes from the
// GL_SHADER_STATE that points at the record), one per line.
func DecodeShaderRecord(w io.Writer, buf []byte, attributeCount int) error {
	need := SizeShaderRecord + attributeCount*SizeAttributeRecord
	if attributeCount < 0 || len(buf) < need {
		return fmt.Errorf("cl: shader record with %d attributes needs %d bytes, have %d", attributeCount, need, len(buf))
	}
	line := ShaderRecordLayout.AppendText(nil, buf)
	line = append(line, '\n')
	for i := 0; i < attributeCount; i++ {
		line = append(line, "  attribute "...)
		line = strconv.AppendInt(line, int64(i), 10)
		line = append(line, ": "...)
		off := SizeShaderRecord + i*SizeAttributeRecord
		line = AttributeRecordLayout.AppendText(line, buf[off:])
		line = append(line, '\n')
	}
	_, err := w.Write(line)
	return err
}

func appendHex32(dst []byte, v uint32) []byte {
	const digits = "0123456789abcdef"
	dst = append(dst, '0', 'x')
	for s := 28; s >= 0; s -= 4 {
		dst = append(dst, digits[v>>s&0xf])
	}
	return dst
}
