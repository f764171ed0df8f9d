package hw

import (
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// TestStateDecodeMatchesCL packs every tile-list state record with the
// generated hw/cl packers and checks the renderer's decoder reads the same
// values, so hw's direct bit reads cannot drift from hw/spec.
func TestStateDecodeMatchesCL(t *testing.T) {
	w := &worker{}
	w.st = defaultRenderState()
	recs := []cl.Record{
		cl.GLShaderState{Address: 0x12340, AttributeCount: 5},
		cl.ConfigurationBits{EnableForwardFacing: true, ClockwisePrimitives: true, EnableDepthOffset: true,
			DepthTestEnable: true, DepthFunc: cl.CompareGEqual, ZUpdatesEnable: true, EarlyZEnable: true, StencilEnable: true},
		cl.FlatShadeFlags{Flags: 0xA5},
		cl.PointSize{PointSize: 3.5},
		cl.LineWidth{Width: 2.5},
		cl.DepthOffset{Factor: 1.5, Units: -2},
		cl.ClipWindow{Left: 3, Bottom: 4, Width: 100, Height: 200},
		cl.ViewportOffset{X: 10.5, Y: 20.25},
		cl.ClipperZScaleAndOffset{Scale: 0.25, Offset: 0.75},
		cl.ClipperXYScaling{X: 320, Y: -240},
		cl.BlendConfig{Enable: true, EquationRGB: cl.BlendEqSubtract, EquationAlpha: cl.BlendEqReverseSubtract,
			SrcRGB: cl.BlendFactorSrcAlphaSaturate, DstRGB: cl.BlendFactorOneMinusDstColor, SrcAlpha: cl.BlendFactorConstantAlpha, DstAlpha: cl.BlendFactorDstAlpha},
		cl.BlendConstantColor{R: 0.1, G: 0.2, B: 0.3, A: 0.4},
		cl.ColorMask{R: true, G: false, B: true, A: false},
		cl.StencilConfig{Face: cl.FaceBack, Func: cl.CompareNotEqual, Ref: 0x33, ValueMask: 0x0F, WriteMask: 0xF0,
			StencilFail: cl.StencilOpInvert, DepthFail: cl.StencilOpIncrWrap, DepthPass: cl.StencilOpDecrWrap},
	}
	for _, r := range recs {
		var b cl.Builder
		b.Emit(r)
		if !isTileState(b.Buf[0]) {
			t.Fatalf("%T is not a tile state record", r)
		}
		w.setState(b.Buf)
	}
	s := &w.st
	want := renderState{
		shaderVA: 0x12340, attrCount: 5, haveShader: true,
		cfgForward: true, cfgCW: true, depthOffset: true, depthTest: true, depthFunc: 6,
		zUpdates: true, earlyZ: true, stencil: true,
		flat: 0xA5, pointSize: 3.5, lineWidth: 2.5, offFactor: 1.5, offUnits: -2,
		clipL: 3, clipB: 4, clipR: 103, clipT: 204,
		vpX: 10.5, vpY: 20.25, zScale: 0.25, zOffset: 0.75, scaleX: 320, scaleY: -240,
		blend: true, eqRGB: 1, eqA: 2, srcRGB: 14, dstRGB: 5, srcA: 12, dstA: 8,
		blendConst: [4]float32{0.1, 0.2, 0.3, 0.4},
		colorMask:  [4]bool{true, false, true, false},
		stencilFaces: [2]stencilFace{
			defaultRenderState().stencilFaces[0],
			{fn: 5, ref: 0x33, vmask: 0x0F, wmask: 0xF0, sfail: 5, zfail: 6, zpass: 7},
		},
	}
	if *s != want {
		t.Fatalf("decoded state\n%+v\nwant\n%+v", *s, want)
	}
}

func TestStencilOps(t *testing.T) {
	f := &stencilFace{ref: 0x42, wmask: 0xFF}
	tests := []struct {
		op, in, want uint32
	}{
		{0, 7, 7}, {1, 7, 0}, {2, 7, 0x42}, {3, 255, 255}, {3, 7, 8}, {4, 0, 0}, {4, 7, 6},
		{5, 0x0F, 0xF0}, {6, 255, 0}, {7, 0, 255},
	}
	for _, tc := range tests {
		if got := stencilOp(f, tc.op, tc.in); got != tc.want {
			t.Errorf("op %d on %d = %d, want %d", tc.op, tc.in, got, tc.want)
		}
	}
	f.wmask = 0x0F
	if got := stencilOp(f, 2, 0xF0); got != 0xF2 {
		t.Errorf("masked REPLACE = %#x, want 0xF2", got)
	}
}
