package hw

import "testing"

// TestCLErrorRegistersNameTheWork: CL_ERROR latches the context, engine,
// cause and indirect buffer of the work the hardware abandoned.
func TestCLErrorRegistersNameTheWork(t *testing.T) {
	for _, tc := range []struct {
		name  string
		words func(k *testKernel) (ib uint32, w []uint32)
		cause uint32
	}{
		{"unknown ring packet", func(*testKernel) (uint32, []uint32) {
			return 0, []uint32{PacketHeader(0x7F, 0)}
		}, CLErrorCauseRing},
		{"malformed render list", func(k *testKernel) (uint32, []uint32) {
			ib := k.boWith([]byte{0xFF, 0, 0, 0}, false) // opcode 255: not a record
			return ib, []uint32{PacketHeader(PktIndirectBuffer, 2), ib, 4}
		}, CLErrorCauseList},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newTestKernel(t, 1, 4<<20)
			k.g.WriteReg(RegIntrEnable, IntrCLError)
			k.setContext(EngineRender)
			ib, w := tc.words(k)
			k.submit(EngineRender, w...)
			k.idle(EngineRender)
			if st := k.g.ReadReg(RegIntrStatus); st&IntrCLError == 0 {
				t.Fatalf("INTR_STATUS = %#x, want CL_ERROR", st)
			}
			if c := k.g.ReadReg(RegCLErrorCtx); c != k.ctx {
				t.Errorf("CL_ERROR_CTX = %d, want %d", c, k.ctx)
			}
			want := tc.cause | EngineRender<<CLErrorEngineShift
			if st := k.g.ReadReg(RegCLErrorStatus); st != want {
				t.Errorf("CL_ERROR_STATUS = %#x, want %#x", st, want)
			}
			if got := k.g.ReadReg(RegCLErrorIB); got != ib {
				t.Errorf("CL_ERROR_IB = %#x, want %#x", got, ib)
			}
		})
	}
}
