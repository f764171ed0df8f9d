package hw

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// tileList decodes tile i's list from tile-allocation memory, following
// BRANCH records, and returns each record's name plus the primitives.
func tileList(t *testing.T, res *frameResult, i int) (names []string, prims []cl.TilePrimitive) {
	t.Helper()
	m := newMMU(res.k.mem, EngineRender)
	m.setContext(res.k.ctx, res.k.l1)
	va := res.tileVA + uint32(i*tileBlockFirst)
	var rec [maxRecordSize]byte
	for n := 0; n < 100000; n++ {
		buf := rec[:]
		if f := m.read(va, buf[:1]); f != nil {
			t.Fatal(f)
		}
		if sz := int(recordSize[buf[0]]); sz > 1 {
			if f := m.read(va+1, buf[1:sz]); f != nil {
				t.Fatal(f)
			}
		}
		l, err := cl.NextRecord(buf, 0)
		if err != nil {
			t.Fatalf("tile %d VA %#x: %v", i, va, err)
		}
		names = append(names, l.Name)
		switch l.Opcode {
		case cl.OpReturnFromSubList:
			return names, prims
		case cl.OpBranch:
			var br cl.Branch
			if err := br.Unpack(buf); err != nil {
				t.Fatal(err)
			}
			va = br.Address
			continue
		case cl.OpTilePrimitive:
			var p cl.TilePrimitive
			if err := p.Unpack(buf); err != nil {
				t.Fatal(err)
			}
			prims = append(prims, p)
		}
		va += uint32(l.Size)
	}
	t.Fatalf("tile %d: list does not end", i)
	return
}

func tp(m cl.TilePrimitiveMode, a, b, c uint32) cl.TilePrimitive {
	return cl.TilePrimitive{Mode: m, V0: a, V1: b, V2: c}
}

// newIndexedKernel is a one-core test GPU whose binner never stores
// vertices: its tile lists hold TILE_PRIMITIVEs with vertex indices, which
// the tests below compare.
func newIndexedKernel(t *testing.T, memSize int) *testKernel {
	k := newTestKernel(t, 1, memSize)
	k.g.noVertexStore = true
	return k
}

func tri(x0, y0, x1, y1, x2, y2 float32) []testVertex {
	return []testVertex{{x: x0, y: y0, w: 1, r: 1, a: 1}, {x: x1, y: y1, w: 1, g: 1, a: 1}, {x: x2, y: y2, w: 1, b: 1, a: 1}}
}

func TestBinnerTileLists(t *testing.T) {
	k := newIndexedKernel(t, 16<<20)
	// 128×128 → 2×2 tiles. NDC (-1,-1) is window (0,0); tile 0 is the
	// bottom-left 64×64.
	res := k.renderFrame(&testFrame{width: 128, height: 128, draws: []testDraw{
		{mode: cl.PrimTriangles, verts: tri(-0.9, -0.9, -0.2, -0.9, -0.9, -0.2)},
	}})
	names, prims := tileList(t, res, 0)
	if want := []cl.TilePrimitive{{Mode: cl.TilePrimTriangle, V0: 0, V1: 1, V2: 2}}; !slices.Equal(prims, want) {
		t.Fatalf("tile 0 primitives = %v, want %v", prims, want)
	}
	for _, need := range []string{"GL_SHADER_STATE", "CONFIGURATION_BITS", "CLIP_WINDOW", "VIEWPORT_OFFSET", "CLIPPER_XY_SCALING", "CLIPPER_Z_SCALE_AND_OFFSET"} {
		if !slices.Contains(names, need) {
			t.Errorf("tile 0 list %v lacks %s", names, need)
		}
	}
	if slices.Index(names, "GL_SHADER_STATE") > slices.Index(names, "TILE_PRIMITIVE") {
		t.Errorf("state after primitive: %v", names)
	}
	for i := 1; i < 4; i++ {
		if names, _ := tileList(t, res, i); !slices.Equal(names, []string{"RETURN_FROM_SUB_LIST"}) {
			t.Errorf("tile %d list = %v, want only RETURN", i, names)
		}
	}
}

func TestBinnerAssembly(t *testing.T) {
	five := []testVertex{
		{x: -0.9, y: -0.9, w: 1}, {x: -0.5, y: -0.9, w: 1}, {x: -0.9, y: -0.5, w: 1},
		{x: -0.5, y: -0.5, w: 1}, {x: -0.9, y: -0.2, w: 1},
	}
	P, L, T := cl.TilePrimPoint, cl.TilePrimLine, cl.TilePrimTriangle
	tests := []struct {
		mode    cl.PrimitiveMode
		n       int
		indices []uint32
		want    []cl.TilePrimitive
	}{
		{cl.PrimPoints, 2, nil, []cl.TilePrimitive{tp(P, 0, 0, 0), tp(P, 1, 1, 1)}},
		{cl.PrimLines, 5, nil, []cl.TilePrimitive{tp(L, 0, 1, 1), tp(L, 2, 3, 3)}},
		{cl.PrimLineStrip, 3, nil, []cl.TilePrimitive{tp(L, 0, 1, 1), tp(L, 1, 2, 2)}},
		{cl.PrimLineLoop, 3, nil, []cl.TilePrimitive{tp(L, 0, 1, 1), tp(L, 1, 2, 2), tp(L, 2, 0, 0)}},
		{cl.PrimTriangles, 5, nil, []cl.TilePrimitive{tp(T, 0, 1, 2)}},
		{cl.PrimTriangleStrip, 5, nil, []cl.TilePrimitive{tp(T, 0, 1, 2), tp(T, 2, 1, 3), tp(T, 2, 3, 4)}},
		{cl.PrimTriangleFan, 4, nil, []cl.TilePrimitive{tp(T, 0, 1, 2), tp(T, 0, 2, 3)}},
		// Indexed: absolute indices; index 9 > MaxIndex drops its triangle.
		{cl.PrimTriangles, 5, []uint32{4, 3, 2, 0, 9, 1, 1, 2, 3}, []cl.TilePrimitive{tp(T, 4, 3, 2), tp(T, 1, 2, 3)}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%v/%d", tc.mode, len(tc.indices)), func(t *testing.T) {
			k := newIndexedKernel(t, 16<<20)
			res := k.renderFrame(&testFrame{width: 64, height: 64, draws: []testDraw{
				{mode: tc.mode, verts: five[:tc.n], indices: tc.indices},
			}})
			_, prims := tileList(t, res, 0)
			if !slices.Equal(prims, tc.want) {
				t.Fatalf("primitives = %v, want %v", prims, tc.want)
			}
		})
	}
}

func TestIndexTypes(t *testing.T) {
	five := []testVertex{
		{x: -0.9, y: -0.9, w: 1}, {x: -0.5, y: -0.9, w: 1}, {x: -0.9, y: -0.5, w: 1},
		{x: -0.5, y: -0.5, w: 1}, {x: -0.9, y: -0.2, w: 1},
	}
	for _, it := range []cl.IndexType{cl.IndexU8, cl.IndexU16, cl.IndexU32} {
		k := newIndexedKernel(t, 16<<20)
		res := k.renderFrame(&testFrame{width: 64, height: 64, draws: []testDraw{
			{mode: cl.PrimTriangleFan, verts: five, indices: []uint32{4, 3, 2, 1}, itype: it},
		}})
		_, prims := tileList(t, res, 0)
		want := []cl.TilePrimitive{tp(cl.TilePrimTriangle, 4, 3, 2), tp(cl.TilePrimTriangle, 4, 2, 1)}
		if !slices.Equal(prims, want) {
			t.Errorf("%v: primitives = %v, want %v", it, prims, want)
		}
	}
}

func TestBinnerCulling(t *testing.T) {
	ccw := tri(-0.9, -0.9, 0.9, -0.9, -0.9, 0.9)
	cw := tri(-0.9, -0.9, -0.9, 0.9, 0.9, -0.9)
	tests := []struct {
		name  string
		cfg   cl.ConfigurationBits
		verts []testVertex
		kept  bool
	}{
		{"ccw front kept", cl.ConfigurationBits{EnableForwardFacing: true}, ccw, true},
		{"cw back culled", cl.ConfigurationBits{EnableForwardFacing: true}, cw, false},
		{"cw back kept", cl.ConfigurationBits{EnableReverseFacing: true}, cw, true},
		{"clockwise front", cl.ConfigurationBits{EnableForwardFacing: true, ClockwisePrimitives: true}, cw, true},
		{"behind the eye", cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true},
			[]testVertex{{x: 0, y: 0, w: -1}, {x: 1, y: 0, w: -1}, {x: 0, y: 1, w: -1}}, false},
		{"crossing near, visible", cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true},
			[]testVertex{{x: -0.5, y: -0.5, z: -2, w: 1}, {x: 0.5, y: -0.5, z: 0, w: 1}, {x: 0, y: 0.5, z: 0, w: 1}}, true},
		{"beyond far", cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true},
			[]testVertex{{x: -0.5, y: -0.5, z: 2, w: 1}, {x: 0.5, y: -0.5, z: 2, w: 1}, {x: 0, y: 0.5, z: 3, w: 1}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := newIndexedKernel(t, 16<<20)
			res := k.renderFrame(&testFrame{width: 64, height: 64, draws: []testDraw{
				{mode: cl.PrimTriangles, verts: tc.verts, state: []cl.Record{tc.cfg}},
			}})
			_, prims := tileList(t, res, 0)
			if got := len(prims) == 1; got != tc.kept {
				t.Fatalf("kept = %v, want %v", got, tc.kept)
			}
		})
	}
}

func TestBinnerOverflow(t *testing.T) {
	k := newIndexedKernel(t, 32<<20)
	ovVA, _ := k.bo(64*tileBlockSize, true)
	var ooms int
	k.g.SetInterruptHandler(func() {
		st := k.g.ReadReg(RegIntrStatus)
		k.g.WriteReg(RegIntrAck, st)
		if st&IntrBinOOM != 0 {
			ooms++
			k.g.WriteReg(RegBinOverflowAddr, ovVA)
			k.g.WriteReg(RegBinOverflowSize, 64*tileBlockSize)
		}
	})
	k.g.WriteReg(RegIntrEnable, IntrBinOOM)
	// 400 small triangles in one tile need ≈ 6 KiB of list: more than the
	// initial block plus the one-block pool.
	var verts []testVertex
	for i := 0; i < 400; i++ {
		verts = append(verts, tri(-0.9, -0.9, -0.8, -0.9, -0.9, -0.8)...)
	}
	res := k.renderFrame(&testFrame{width: 64, height: 64, poolExtra: tileBlockSize, draws: []testDraw{
		{mode: cl.PrimTriangles, verts: verts},
	}})
	_, prims := tileList(t, res, 0)
	if len(prims) != 400 {
		t.Fatalf("%d primitives in the tile list, want 400 (none dropped)", len(prims))
	}
	if ooms != 1 {
		t.Fatalf("%d BIN_OOM interrupts, want 1", ooms)
	}
}

func TestRecordSizesMatchSpec(t *testing.T) {
	for op := 0; op < 256; op++ {
		n, ok := cl.RecordSize(uint8(op))
		if !ok {
			n = 0
		}
		if int(recordSize[op]) != n {
			t.Errorf("opcode %d: hw size %d, hw/cl size %d", op, recordSize[op], n)
		}
	}
}

// TestStencilFaceStateCopiedInOrder: a STENCIL_CONFIG for both faces
// followed by one for the front face leaves front = the second, back = the
// first, also in tile lists that receive their state after both records.
// (The binner once copied the BOTH record after the FRONT one and so undid
// it in every tile list.)
func TestStencilFaceStateCopiedInOrder(t *testing.T) {
	stencilOn := cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true, StencilEnable: true}
	both := cl.StencilConfig{Face: cl.FaceBoth, Func: cl.CompareAlways, Ref: 0x11, ValueMask: 0xFF, WriteMask: 0xFF,
		DepthPass: cl.StencilOpReplace}
	front := both
	front.Face, front.Ref = cl.FaceFront, 0x22
	quad := []testVertex{{x: -1, y: -1, w: 1}, {x: 1, y: -1, w: 1}, {x: -1, y: 1, w: 1}, {x: 1, y: 1, w: 1}}
	back := []testVertex{quad[0], quad[2], quad[1], quad[3]} // clockwise: back-facing
	for _, tc := range []struct {
		name  string
		verts []testVertex
		want  byte
	}{
		{"front-facing", quad, 0x22},
		{"back-facing", back, 0x11},
	} {
		k := newTestKernel(t, 1, 32<<20)
		const W, H = 100, 70
		res := k.renderFrame(&testFrame{width: W, height: H, draws: []testDraw{
			{mode: cl.PrimTriangleStrip, verts: tc.verts, state: []cl.Record{stencilOn, both, front}},
		}})
		for _, p := range [][2]int{{0, 0}, {W - 1, H - 1}, {70, 10}} {
			if s := res.zs[(p[1]*W+p[0])*4+3]; s != tc.want {
				t.Errorf("%s: stencil at %v = %#x, want %#x", tc.name, p, s, tc.want)
			}
		}
	}
}
