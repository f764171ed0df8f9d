package pipe

import "testing"

func TestSizes(t *testing.T) {
	for _, tc := range []struct {
		f    Format
		want int
	}{{FormatNone, 0}, {FormatRGBA8, 4}, {FormatZ24S8, 4}, {Format(99), 0}} {
		if got := tc.f.BytesPerPixel(); got != tc.want {
			t.Errorf("%d.BytesPerPixel() = %d, want %d", tc.f, got, tc.want)
		}
	}
	for _, tc := range []struct {
		v    VertexType
		want int
	}{{VertexFloat, 4}, {VertexByte, 1}, {VertexUnsignedByte, 1}, {VertexShort, 2}, {VertexUnsignedShort, 2}, {VertexFixed, 4}} {
		if got := tc.v.Size(); got != tc.want {
			t.Errorf("%d.Size() = %d, want %d", tc.v, got, tc.want)
		}
	}
}

// The enumerations follow the hardware's GL order (docs/hardware.md §4.1):
// drivers pass them through unchanged, so a renumbering would be a bug.
func TestEnumerationsFollowHardwareOrder(t *testing.T) {
	checks := []struct {
		name      string
		got, want int
	}{
		{"FuncAlways", int(FuncAlways), 7},
		{"StencilDecrWrap", int(StencilDecrWrap), 7},
		{"BlendReverseSubtract", int(BlendReverseSubtract), 2},
		{"FactorSrcAlphaSaturate", int(FactorSrcAlphaSaturate), 14},
		{"WrapMirroredRepeat", int(WrapMirroredRepeat), 2},
		{"FilterLinearMipmapLinear", int(FilterLinearMipmapLinear), 5},
		{"SwizzleOne", int(SwizzleOne), 5},
		{"VertexFixed", int(VertexFixed), 5},
		{"PrimTriangleFan", int(PrimTriangleFan), 6},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}
