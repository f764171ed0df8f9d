package hw

import "encoding/binary"

// Indirect draws (docs/hardware.md §4.2): VERTEX_ARRAY_PRIMITIVES_INDIRECT
// takes its vertex count, instance count and first vertex from memory when
// the binner reaches it, so an earlier job (a compute pass, a copy) can
// write them. The kernel cannot check counts it does not know; the binner
// bounds them instead: the vertex count as a direct record's Length, the
// instance count by maxIndirectInstances, and every vertex by the record's
// MaxIndex (vertices above it are not fetched and their primitives are
// dropped, as INDEXED_PRIMITIVE_LIST's are). A count beyond the bounds is
// a CL error that fails the job; it never reads outside what MaxIndex
// allows.

// indirectArgsBytes is the argument block: VertexCount, InstanceCount,
// FirstVertex, FirstInstance (unused: shaders have no instance id).
const indirectArgsBytes = 16

// maxIndirectInstances bounds an indirect draw's InstanceCount: instances
// are repeated draws, so each costs a full pass over the vertices.
const maxIndirectInstances = 1024

// indirect runs a VERTEX_ARRAY_PRIMITIVES_INDIRECT record.
func (b *binner) indirect(r []byte) error {
	var args [indirectArgsBytes]byte
	if f := b.m.read(u32(r, 2), args[:]); f != nil {
		return f
	}
	count := binary.LittleEndian.Uint32(args[0:])
	instances := binary.LittleEndian.Uint32(args[4:])
	first := binary.LittleEndian.Uint32(args[8:])
	if instances > maxIndirectInstances {
		return clErrorf("indirect draw with %d instances (max %d)", instances, maxIndirectInstances)
	}
	if count == 0 || instances == 0 {
		return nil
	}
	// The direct record the arguments describe, run once per instance
	// with the vertices bounded by MaxIndex.
	var rec [10]byte
	rec[0], rec[1] = opVertexArrayPrimitives, r[1]
	binary.LittleEndian.PutUint32(rec[2:], count)
	binary.LittleEndian.PutUint32(rec[6:], first)
	b.arrayMaxIndex = u32(r, 6)
	defer func() { b.arrayMaxIndex = ^uint32(0) }()
	for range instances {
		if err := b.primitives(rec[:]); err != nil {
			return err
		}
	}
	return nil
}
