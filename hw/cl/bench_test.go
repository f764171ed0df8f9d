package cl

import (
	"io"
	"testing"
)

func BenchmarkEmitState(b *testing.B) {
	bld := Builder{Buf: make([]byte, 0, 256)}
	for b.Loop() {
		bld.Reset()
		Emit(&bld, ConfigurationBits{EnableForwardFacing: true, DepthTestEnable: true, DepthFunc: CompareLess})
		Emit(&bld, BlendConfig{Enable: true, SrcRGB: BlendFactorSrcAlpha, DstRGB: BlendFactorOneMinusSrcAlpha})
		Emit(&bld, GLShaderState{Address: 0x1000, AttributeCount: 2})
		Emit(&bld, IndexedPrimitiveList{Mode: PrimTriangles, IndexType: IndexU16, Length: 36, Address: 0x12340, MaxIndex: 23})
	}
}

func BenchmarkUnpackTilePrimitive(b *testing.B) {
	buf := Append(nil, TilePrimitive{Mode: TilePrimTriangle, V0: 1, V1: 2, V2: 3})
	var p TilePrimitive
	for b.Loop() {
		if err := p.Unpack(buf); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeCL(b *testing.B) {
	list := buildBinList()
	b.SetBytes(int64(len(list)))
	for b.Loop() {
		if err := DecodeCL(io.Discard, list, 0); err != nil {
			b.Fatal(err)
		}
	}
}
