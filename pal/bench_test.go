package pal

import (
	"math"
	"testing"
)

// BenchmarkCmdDraw measures the CmdDraw path (background/001): recorded
// draws per second on one goroutine, each preceded by one state change.
// The command buffer is reset every drawsPerBuffer draws so its chunks
// are reused (a frame's worth of recording), and that cost is included.
func BenchmarkCmdDraw(b *testing.B) {
	r := newRig(b, 256, 256)
	copy(r.vbuf.bytes, floats(-1, -1, 1, -1, -1, 1))
	blendA, err := r.dev.CreateColorBlendState(ColorBlendStateCreateInfo{})
	if err != nil {
		b.Fatal(err)
	}
	blendB, err := r.dev.CreateColorBlendState(ColorBlendStateCreateInfo{BlendEnable: true,
		SrcBlendColor: 6, DstBlendColor: 7, SrcBlendAlpha: 1, DstBlendAlpha: 0})
	if err != nil {
		b.Fatal(err)
	}
	slot, _, _ := r.pipe.UserDataSlot("u_color")
	const drawsPerBuffer = 100_000
	begin := func(cb *CmdBuffer) {
		for _, err := range []error{cb.Begin(), cb.CmdBindTargets(r.target, nil), cb.CmdBindPipeline(r.pipe),
			cb.CmdSetVertexBuffers(0, []VertexBufferView{{Memory: r.vbuf, Stride: 8}})} {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	cases := []struct {
		name   string
		change func(cb *CmdBuffer, i int) error
	}{
		// Alternating blend state objects: BLEND_CONFIG + COLOR_MASK are
		// re-emitted before each draw.
		{"BlendState", func(cb *CmdBuffer, i int) error {
			if i&1 == 0 {
				return cb.CmdBindColorBlendState(blendA)
			}
			return cb.CmdBindColorBlendState(blendB)
		}},
		// A new uniform value: three uniform streams, a shader record and
		// GL_SHADER_STATE (with relocations) before each draw.
		{"UserData", func(cb *CmdBuffer, i int) error {
			v := [1]uint32{math.Float32bits(float32(i&255) / 255)}
			return cb.CmdSetUserData(slot, v[:])
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			cb, err := r.dev.CreateCmdBuffer(CmdBufferCreateInfo{Allocator: r.alloc})
			if err != nil {
				b.Fatal(err)
			}
			begin(cb)
			b.ReportAllocs()
			b.ResetTimer()
			n := 0
			for i := range b.N {
				if n == drawsPerBuffer {
					if err := cb.End(); err != nil {
						b.Fatal(err)
					}
					begin(cb)
					n = 0
				}
				if err := c.change(cb, i); err != nil {
					b.Fatal(err)
				}
				if err := cb.CmdDraw(0, 3, 0, 1); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mdraws/s")
			if err := cb.End(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
