package le

import (
	"bytes"
	"testing"
)

func TestPacking(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		want []byte
	}{
		{"float 1.0", Float32s([]float32{1}), []byte{0, 0, 0x80, 0x3f}},
		{"float -2.5, 0", Float32s([]float32{-2.5, 0}), []byte{0, 0, 0x20, 0xc0, 0, 0, 0, 0}},
		{"uint32", Uint32s([]uint32{0x01020304, 0xffffffff}), []byte{4, 3, 2, 1, 0xff, 0xff, 0xff, 0xff}},
		{"empty", Uint32s(nil), []byte{}},
	}
	for _, tc := range tests {
		if !bytes.Equal(tc.got, tc.want) {
			t.Errorf("%s: % x, want % x", tc.name, tc.got, tc.want)
		}
	}
}
