package hw

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/tilegpu/tilegpu/hw/qpu"
)

// The vertex store (docs/hardware.md §4.2.1), the binner's half of "each
// vertex shaded once per draw": as a PowerVR or Mali parameter buffer holds
// transformed vertices, the binner may run a primitive record's full vertex
// shader instead of its coordinate shader and write every vertex's outputs
// — position, point size and varyings, 5 + varyings words, the layout a
// tile's vertex cache holds — into the tile-allocation pool. The
// primitives whose three vertices are stored go into the tile lists as
// TILE_PRIMITIVE_STORED with the vertices' addresses, and a tile reads them
// instead of running the vertex shader again. Without the store a vertex
// is shaded once by the coordinate shader and once more in every tile
// segment that uses it.
//
// When the binner stores (all of it is decided per primitive record, from
// facts it has counted):
//   - the vertex shader writes no memory (no scratch, no TMU_STORE_ADDR
//     anywhere in its code) and its varyings fit a tile's vertex cache:
//     running it in the binner instead of the tiles is then invisible;
//   - cost: storing shades the record's n slots once with the vertex
//     shader (V instructions each) where re-shading runs the coordinate
//     shader (C) on all n and the vertex shader on every vertex of a
//     visible primitive at least once (V·n·(1−f), f the fraction of
//     vertices no visible primitive uses, more for vertices in several
//     tiles). Storing is chosen when V·n ≤ C·n + V·n·(1−f), i.e.
//     V·f ≤ C, with V and C the programs' instruction counts and f
//     estimated by the fraction of primitives the previous primitive
//     record of this bin job dropped (rejected or culled; 0 for the
//     first record): a conservative estimate, since a culled primitive's
//     vertices are often used by a visible neighbour;
//   - memory: the store takes room only from the end of the job's
//     initial pool (never raising BIN_OOM), at most maxStoreBytes per bin
//     job. The kernel adds to each job's pool a bound of what its records
//     can store (kernel/submit.go) when the context's quota allows. A
//     record larger than what is left stores its first slots (whole
//     16-vertex batches) and bins the rest with indices.
//
// Counters: cs.vertices counts every vertex the binner shades (with either
// shader), bin.stored_vertices those it stored, vs.stored_vertices the
// stored vertices tiles read, vs.vertices those tiles shaded.
const (
	// maxStoreBytes bounds the vertex store of one bin job (and so the
	// pool the kernel adds for it).
	maxStoreBytes = 32 << 20
	// storeWordsMax is the largest stored vertex: 5 + maxVaryings words.
	storeWordsMax = 5 + maxVaryings
)

// vertexStore is the binner's state of the vertex store.
type vertexStore struct {
	slots  int    // slots [0, slots) of the current record are stored
	stride int    // words per stored vertex
	base   uint32 // VA of the current record's slot 0
	used   uint64 // bytes the store took in this bin job

	// of the previous primitive record in this bin job: primitives
	// assembled and dropped (rejected or culled)
	lastAssembled, lastDropped uint64
}

func (vs *vertexStore) startJob() {
	vs.used, vs.slots = 0, 0
	vs.lastAssembled, vs.lastDropped = 0, 0
}

// recordOutcome keeps what the record just binned dropped.
func (vs *vertexStore) recordOutcome(assembled, dropped uint64) {
	vs.lastAssembled, vs.lastDropped = assembled, dropped
}

// storeCandidate returns the vertex program to run in the binner when the
// current record's vertices should be stored (see above), else nil.
func (b *binner) storeCandidate(cs *qpu.Program, slots int) *qpu.Program {
	sr := &b.sr
	if b.g.noVertexStore || !b.configured || slots == 0 || sr.scratchSize != 0 || sr.numVaryings > maxVaryings {
		return nil
	}
	vs, err := b.programs.get(b.m, sr.vsCode)
	if err != nil {
		return nil // the tiles report it, as without the store
	}
	if b.storesMemory(vs) {
		return nil
	}
	// V·f ≤ C with f = dropped/assembled.
	v, c := uint64(len(vs.Code())), uint64(len(cs.Code()))
	if b.vs.lastAssembled > 0 && v*b.vs.lastDropped > c*b.vs.lastAssembled {
		return nil
	}
	return vs
}

// reserve sets vs.slots to as many of the record's slots (0: none) as
// the budget and the initial pool allow, and takes their room. The store
// grows down from the end of the pool TILE_BINNING_MODE_CONFIGURATION
// gives while the tile lists grow up (its end, b.poolEnd, moves down with
// it), leaves the lists their reserve (listReserveBytes), and never
// raises BIN_OOM: once the lists have moved to an overflow pool the store
// takes nothing more. The kernel sizes a job's pool for its
// vertex store (kernel/submit.go); a pool without that room costs
// re-shading, never a stalled binner.
func (vs *vertexStore) reserve(b *binner, slots int) {
	vs.slots = 0
	vs.stride = 5 + b.sr.numVaryings
	if !b.initialPool {
		return
	}
	bpv := uint64(4 * vs.stride)
	room := uint64(0)
	// The lists keep their reserve and at least one block of the pool.
	if floor := max(uint64(b.poolNext)+tileBlockSize, uint64(b.listReserve)); uint64(b.poolEnd) > floor {
		room = uint64(b.poolEnd) - floor
	}
	room = min(room, maxStoreBytes-min(vs.used, maxStoreBytes))
	n := slots
	if uint64(slots)*bpv > room {
		n = int(room/bpv) / qpu.Lanes * qpu.Lanes
	}
	if n == 0 {
		return
	}
	size := uint32(uint64(n) * bpv)
	b.poolEnd -= size
	vs.base = b.poolEnd
	vs.used += uint64(size)
	vs.slots = n
}

// listReserveBytes is the part of the initial pool beyond the tiles' first
// blocks the vertex store leaves to the tile lists: one 4 KiB block for
// one tile in sixteen, between 64 KiB and 4 MiB — the pool the kernel
// gives a job without a store (kernel tilePoolBytes), so the store's room
// is what the kernel added for it.
func listReserveBytes(tiles int) uint64 {
	return max(64<<10, uint64(min(tiles/16, 1024))*tileBlockSize)
}

// floatBytes is f's memory as bytes, in the host's order.
func floatBytes(f []float32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(f))), 4*len(f))
}

// addr is the VA of stored slot k.
func (vs *vertexStore) addr(k int) uint32 { return vs.base + uint32(k*vs.stride*4) }

// write stores lanes 0..cnt-1 of the batch just shaded for slots s.. :
// position, point size (as the binner resolved it into pos) and nv
// varyings from VPM row vrow on. Consecutive slots are consecutive in
// memory: one translation per page.
func (vs *vertexStore) write(m *mmu, bt *qpu.Batch, pos []float32, s, cnt, vrow, nv int) error {
	n := uint32(4 * vs.stride)
	var tmp [4 * storeWordsMax]byte
	var vert [storeWordsMax]float32
	var page []byte // the page holding pageVA
	pageVA := uint32(1)
	out := bt.VPMOut
	va := vs.addr(s)
	for l := 0; l < cnt; l, va = l+1, va+n {
		off := va & pageMask
		direct := off+n <= pageSize
		var dst []byte
		if direct {
			if va&^pageMask != pageVA {
				p, f := m.page(va&^pageMask, true)
				if f != nil {
					return f
				}
				page, pageVA = p, va&^pageMask
			}
			dst = page[off : off+n]
		} else {
			dst = tmp[:n]
		}
		v := vert[:vs.stride]
		v[0], v[1], v[2], v[3] = out[l], out[16+l], out[32+l], out[48+l]
		v[4] = pos[(s+l)*posWords+4]
		row := vrow*qpu.Lanes + l
		for k := 5; k < len(v); k, row = k+1, row+qpu.Lanes {
			v[k] = out[row]
		}
		if hostLittleEndian {
			copy(dst, floatBytes(v))
		} else {
			for k, x := range v {
				binary.LittleEndian.PutUint32(dst[4*k:], math.Float32bits(x))
			}
		}
		if !direct {
			if f := m.write(va, dst); f != nil {
				return f
			}
		}
	}
	return nil
}
