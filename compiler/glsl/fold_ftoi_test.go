package glsl

import (
	"math"
	"testing"
)

// TestConvertScalarFloatToInt: constant int(x) folds as the hardware
// converts (ir.FToI): truncation, saturation, NaN → 0. Before, Go's
// int32(NaN) gave MinInt32, so `ua[int(clamp(0.0/0.0, 0.0, 3.0))]` was
// rejected as an out-of-range constant index (difftest fuzz crasher
// 512ea2a4dd9623fe).
func TestConvertScalarFloatToInt(t *testing.T) {
	nan := float32(math.NaN())
	for _, tc := range []struct {
		in   float32
		want int32
	}{
		{nan, 0},
		{float32(math.Inf(1)), math.MaxInt32},
		{float32(math.Inf(-1)), math.MinInt32},
		{3e9, math.MaxInt32},
		{-3e9, math.MinInt32},
		{2.9, 2},
		{-2.9, -2},
	} {
		if got := convertScalar(Scalar{Kind: Float, F: tc.in}, Int); got.I != tc.want {
			t.Errorf("int(%v) = %d, want %d", tc.in, got.I, tc.want)
		}
	}
	src := "precision mediump float;\nuniform float ua[4];\nvoid main() {\n  gl_FragColor = vec4(ua[int(clamp(0.0 / 0.0, 0.0, 3.0))]);\n}\n"
	if _, errs := Parse(Fragment, src); len(errs) > 0 {
		t.Errorf("NaN clamped to an index: %v", errs)
	}
}
