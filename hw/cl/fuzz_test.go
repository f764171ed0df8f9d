package cl

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"
)

// definedMask returns, per byte of l, the bits covered by the opcode and the
// fields; packing an unpacked record reproduces exactly these bits.
func definedMask(l *Layout) []byte {
	m := make([]byte, l.Size)
	if l.Lists != 0 {
		m[0] = 0xff
	}
	for _, f := range l.Fields {
		for bit := f.Start; bit < f.Start+f.Width; bit++ {
			m[bit/8] |= 1 << (bit % 8)
		}
	}
	return m
}

func checkRepack(t *testing.T, l *Layout, b []byte, u interface{ Unpack([]byte) error }, p func([]byte)) {
	if err := u.Unpack(b); err != nil {
		t.Fatalf("%s: Unpack of a whole record: %v", l.Name, err)
	}
	again := make([]byte, l.Size)
	p(again)
	for i, m := range definedMask(l) {
		if again[i] != b[i]&m {
			t.Fatalf("%s: byte %d repacks as %#x, want %#x", l.Name, i, again[i], b[i]&m)
		}
	}
}

func FuzzDecodeCL(f *testing.F) {
	f.Add(buildBinList())
	f.Add([]byte{OpNop, OpTilePrimitive, 1})
	f.Add([]byte{0x2f})
	f.Fuzz(func(t *testing.T, data []byte) {
		err := DecodeCL(io.Discard, data, 0)
		// Walk the same list and check every complete record repacks.
		for off := 0; off < len(data); {
			l, nerr := NextRecord(data, off)
			if nerr != nil {
				if err == nil {
					t.Fatalf("DecodeCL accepted a list NextRecord rejects at %d: %v", off, nerr)
				}
				return
			}
			r := newRecord(l.Opcode)
			checkRepack(t, l, data[off:off+l.Size], r.(interface{ Unpack([]byte) error }), r.Pack)
			off += l.Size
			if l.Opcode == OpHalt || l.Opcode == OpFlush {
				break
			}
		}
		if err != nil {
			t.Fatalf("DecodeCL failed on a list that walks cleanly: %v", err)
		}
	})
}

func FuzzUnpack(f *testing.F) {
	f.Add(uint8(OpIndexedPrimitiveList), []byte{OpIndexedPrimitiveList, 0x14, 36, 0, 0, 0, 0x40, 0x23, 1, 0, 23, 0, 0, 0})
	f.Add(uint8(255), make([]byte, 40))
	f.Add(uint8(OpTilePrimitive), []byte{1})
	f.Fuzz(func(t *testing.T, op uint8, data []byte) {
		// Every record type must reject or decode any bytes without panicking.
		if r := newRecord(op); r != nil {
			l := recordLayouts[op]
			u := r.(interface{ Unpack([]byte) error })
			err := u.Unpack(data)
			switch {
			case len(data) < l.Size || data[0] != op:
				if err == nil {
					t.Fatalf("%s: Unpack accepted % x", l.Name, data)
				}
			default:
				checkRepack(t, l, data, u, r.Pack)
				_ = r.String()
				// Bytes that pass CheckBytes are exactly what Pack produces
				// for a record that passes Check.
				if l.CheckBytes(data) == nil {
					if err := r.Check(); err != nil {
						t.Fatalf("%s: CheckBytes accepts % x, Check says %v", l.Name, data[:l.Size], err)
					}
					again := make([]byte, l.Size)
					r.Pack(again)
					if !bytes.Equal(again, data[:l.Size]) {
						t.Fatalf("%s: CheckBytes accepts % x, which repacks as % x", l.Name, data[:l.Size], again)
					}
				} else if UnpackRecordCheck(data) == nil {
					t.Fatalf("%s: CheckBytes rejects % x but UnpackRecord+Check accepts with no reserved bits", l.Name, data[:l.Size])
				}
			}
		}
		var s ShaderRecord
		var a AttributeRecord
		var d TextureDescriptor
		for _, c := range []struct {
			l *Layout
			u interface{ Unpack([]byte) error }
			p func([]byte)
		}{{ShaderRecordLayout, &s, func(b []byte) { s.Pack(b) }},
			{AttributeRecordLayout, &a, func(b []byte) { a.Pack(b) }},
			{TextureDescriptorLayout, &d, func(b []byte) { d.Pack(b) }}} {
			if len(data) < c.l.Size {
				if c.u.Unpack(data) == nil {
					t.Fatalf("%s: Unpack accepted %d bytes", c.l.Name, len(data))
				}
				continue
			}
			checkRepack(t, c.l, data[:c.l.Size], c.u, c.p)
		}
		_ = DecodeShaderRecord(io.Discard, data, int(op)%4)
	})
}

func FuzzDecodeRing(f *testing.F) {
	f.Add([]byte{0x02, 0x00, 0x15, 0x70, 1, 0, 0, 0, 2, 0, 0, 0})
	f.Add([]byte{0x00, 0x00, 0x10, 0x70})
	f.Fuzz(func(t *testing.T, data []byte) {
		words := make([]uint32, len(data)/4)
		for i := range words {
			words[i] = binary.LittleEndian.Uint32(data[4*i:])
		}
		_ = DecodeRing(io.Discard, words)
		for _, p := range allRingPackets {
			var err error
			switch p.(type) {
			case RingNop:
				var q RingNop
				err = q.Unpack(words)
			case RingSetContext:
				var q RingSetContext
				err = q.Unpack(words)
			case RingIndirectBuffer:
				var q RingIndirectBuffer
				err = q.Unpack(words)
			case RingEventWrite:
				var q RingEventWrite
				err = q.Unpack(words)
			case RingWaitMem:
				var q RingWaitMem
				err = q.Unpack(words)
			case RingSignal:
				var q RingSignal
				err = q.Unpack(words)
			}
			if err == nil {
				op, _, _ := ParseRingHeader(words[0])
				if op != p.Opcode() {
					t.Fatalf("%T.Unpack accepted opcode %#x", p, op)
				}
			}
		}
	})
}

// UnpackRecordCheck returns nil when data decodes to a record that passes
// Check and has no reserved bits set.
func UnpackRecordCheck(data []byte) error {
	r, err := UnpackRecord(data)
	if err != nil {
		return err
	}
	if err := r.Check(); err != nil {
		return err
	}
	l := RecordLayout(data[0])
	for i, m := range l.Reserved {
		if data[i]&m != 0 {
			return errUnknownOpcode(data[0]) // any error
		}
	}
	return nil
}
