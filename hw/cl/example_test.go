package cl_test

import (
	"fmt"
	"os"

	"github.com/tilegpu/tilegpu/hw/cl"
)

func ExampleEmit() {
	var b cl.Builder
	cl.Emit(&b, cl.FlatShadeFlags{Flags: 1 << 2})
	off := cl.Emit(&b, cl.IndexedPrimitiveList{Mode: cl.PrimTriangles, IndexType: cl.IndexU16, Length: 36, MaxIndex: 23})
	// The kernel relocates the index buffer address at this byte offset.
	fmt.Println(off + cl.AddressFields(cl.OpIndexedPrimitiveList)[0])
	fmt.Printf("% x\n", b.Buf)
	// Output:
	// 11
	// 61 04 00 00 00 20 14 24 00 00 00 00 00 00 00 17 00 00 00
}

func ExampleDecodeCL() {
	var b cl.Builder
	cl.Emit(&b, cl.TileCoordinates{Column: 0, Row: 0})
	cl.Emit(&b, cl.BranchToSubList{Address: 0x00400000})
	cl.Emit(&b, cl.StoreTileBufferGeneral{Buffer: cl.BufferColor, Address: 0x00100000, Stride: 256, LastTile: true})
	cl.Emit(&b, cl.Halt{})
	if err := cl.DecodeCL(os.Stdout, b.Buf, 0x1000); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 0x00001000: TILE_COORDINATES column=0 row=0
	// 0x00001003: BRANCH_TO_SUB_LIST address=0x00400000
	// 0x00001008: STORE_TILE_BUFFER_GENERAL buffer=COLOR all_samples=0 last_tile=1 address=0x00100000 stride=256
	// 0x00001012: HALT
}

func ExampleNextRecord() {
	list := []byte{cl.OpStartTileBinning, cl.OpNop, 0x2f}
	for off := 0; off < len(list); {
		l, err := cl.NextRecord(list, off)
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Println(off, l.Name, l.Size)
		off += l.Size
	}
	// Output:
	// 0 START_TILE_BINNING 1
	// 1 NOP 1
	// cl: offset 2: unknown opcode 0x2f
}
