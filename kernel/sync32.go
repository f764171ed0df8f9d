package kernel

import (
	"encoding/binary"
	"math/bits"
	"sync/atomic"
	"unsafe"
)

// The memstore and semaphore words are written by the command processors
// while the kernel reads them; hw accesses them with sync/atomic and so
// must the kernel. GPU memory is little-endian; atomics use host order.

var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func leOrder(v uint32) uint32 {
	if hostLittleEndian {
		return v
	}
	return bits.ReverseBytes32(v)
}

// loadSync32 atomically reads the 4-aligned little-endian word at pa.
func loadSync32(mem []byte, pa uint32) uint32 {
	checkWord(mem, pa)
	return leOrder(atomic.LoadUint32((*uint32)(unsafe.Pointer(&mem[pa]))))
}

// storeSync32 atomically writes the 4-aligned little-endian word at pa.
func storeSync32(mem []byte, pa, v uint32) {
	checkWord(mem, pa)
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&mem[pa])), leOrder(v))
}

// checkWord bounds-checks without touching the bytes (an index expression
// would be a plain read that races with the GPU's atomic store).
func checkWord(mem []byte, pa uint32) {
	if pa&3 != 0 || uint64(pa)+4 > uint64(len(mem)) {
		panic("BUG: kernel: sync word outside GPU memory or misaligned")
	}
}
