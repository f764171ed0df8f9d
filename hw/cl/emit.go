package cl

// Builder accumulates a control list. The zero value is ready to use;
// Buf may be preset (for example to a recycled slice truncated to length 0)
// to avoid growing. A Builder is not safe for concurrent use.
type Builder struct{ Buf []byte }

// Len returns the number of bytes emitted so far.
func (b *Builder) Len() int { return len(b.Buf) }

// Reset empties the builder and keeps its storage.
func (b *Builder) Reset() { b.Buf = b.Buf[:0] }

// reserve appends n bytes to b.Buf and returns their offset.
func (b *Builder) reserve(n int) int {
	off := len(b.Buf)
	if cap(b.Buf)-off < n {
		grown := make([]byte, off, 2*cap(b.Buf)+n+64)
		copy(grown, b.Buf)
		b.Buf = grown
	}
	b.Buf = b.Buf[:off+n]
	return off
}

// Emit appends r to the list and returns the offset of its opcode byte.
//
// Converting a record to the Record interface may allocate; on hot paths use
// the generic function Emit, which does not.
func (b *Builder) Emit(r Record) (offset int) {
	off := b.reserve(r.Size())
	r.Pack(b.Buf[off:])
	return off
}

// Emit appends r to b and returns the offset of its opcode byte, in the style
// of Mesa's cl_emit:
//
//	cl.Emit(&b, cl.FlatShadeFlags{Flags: 1 << 2})
//
// It allocates only when b.Buf has to grow.
func Emit[R Record](b *Builder, r R) (offset int) {
	off := b.reserve(r.Size())
	r.Pack(b.Buf[off:])
	return off
}

// Append packs r at the end of buf and returns the extended slice.
func Append[R Record](buf []byte, r R) []byte {
	b := Builder{Buf: buf}
	Emit(&b, r)
	return b.Buf
}

// AppendRing packs ring packet p at the end of words and returns the
// extended slice; it allocates only when words has to grow.
//
//	ring = cl.AppendRing(ring, cl.RingSignal{Address: sem, Value: seqno})
func AppendRing[P RingPacket](words []uint32, p P) []uint32 {
	n := len(words)
	need := p.Words()
	if cap(words)-n < need {
		grown := make([]uint32, n, 2*cap(words)+need+16)
		copy(grown, words)
		words = grown
	}
	words = words[:n+need]
	p.Pack(words[n:])
	return words
}
