package vmath

import (
	"math"
	"testing"
)

func near(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-5 }

func TestMulAndTransforms(t *testing.T) {
	tests := []struct {
		name string
		m    Mat4
		in   [4]float32
		want [4]float32
	}{
		{"identity", Identity(), [4]float32{1, 2, 3, 1}, [4]float32{1, 2, 3, 1}},
		{"translate", Translate(1, -2, 3), [4]float32{1, 1, 1, 1}, [4]float32{2, -1, 4, 1}},
		{"rotY90 maps x to -z", RotateY(math.Pi / 2), [4]float32{1, 0, 0, 0}, [4]float32{0, 0, -1, 0}},
		{"rotX90 maps y to z", RotateX(math.Pi / 2), [4]float32{0, 1, 0, 0}, [4]float32{0, 0, 1, 0}},
		{"translate·scale", Mul(Translate(1, 0, 0), Scale(2, 2, 2)), [4]float32{1, 1, 1, 1}, [4]float32{3, 2, 2, 1}},
		{"lookAt origin from +z", LookAt(Vec3{0, 0, 5}, Vec3{}, Vec3{0, 1, 0}), [4]float32{0, 0, 0, 1}, [4]float32{0, 0, -5, 1}},
	}
	for _, tc := range tests {
		var got [4]float32
		for r := 0; r < 4; r++ {
			for c := 0; c < 4; c++ {
				got[r] += tc.m[c*4+r] * tc.in[c]
			}
		}
		for i := range got {
			if !near(got[i], tc.want[i]) {
				t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
				break
			}
		}
	}
}

func TestPerspectiveMapsNearAndFar(t *testing.T) {
	p := Perspective(math.Pi/2, 1, 1, 10)
	for _, tc := range []struct{ z, ndc float32 }{{-1, -1}, {-10, 1}} {
		zc := p[10]*tc.z + p[14]
		wc := p[11] * tc.z
		if !near(zc/wc, tc.ndc) {
			t.Errorf("z=%v: ndc %v, want %v", tc.z, zc/wc, tc.ndc)
		}
	}
}
