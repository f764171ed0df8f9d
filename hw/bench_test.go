package hw

import (
	"testing"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// BenchmarkRasterFill measures fill rate: ten full-screen quads (the
// "fill" scene's geometry) at 512×512 with a constant-colour shader.
func BenchmarkRasterFill(b *testing.B) {
	k := newTestKernel(b, 0, 128<<20)
	var draws []testDraw
	for i := 0; i < 10; i++ {
		draws = append(draws, testDraw{mode: cl.PrimTriangleStrip, fs: testFSUniform,
			uniforms: []float32{float32(i) / 10, 0.5, 0.25, 1},
			verts:    []testVertex{{x: -1, y: -1, w: 1}, {x: 1, y: -1, w: 1}, {x: -1, y: 1, w: 1}, {x: 1, y: 1, w: 1}}})
	}
	_, pf := k.prepareFrame(&testFrame{width: 512, height: 512, draws: draws})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k.runFrame(pf)
	}
	b.ReportMetric(float64(b.N)*10*512*512/b.Elapsed().Seconds()/1e6, "Mpixels/s")
}

// BenchmarkRasterBlend is BenchmarkRasterFill with the "blend" scene's
// SRC_ALPHA / ONE_MINUS_SRC_ALPHA blending: the TLB blend path.
func BenchmarkRasterBlend(b *testing.B) {
	k := newTestKernel(b, 0, 128<<20)
	blend := []cl.Record{cl.BlendConfig{Enable: true, SrcRGB: cl.BlendFactorSrcAlpha, DstRGB: cl.BlendFactorOneMinusSrcAlpha,
		SrcAlpha: cl.BlendFactorSrcAlpha, DstAlpha: cl.BlendFactorOneMinusSrcAlpha}}
	var draws []testDraw
	for i := 0; i < 10; i++ {
		draws = append(draws, testDraw{mode: cl.PrimTriangleStrip, fs: testFSUniform, state: blend,
			uniforms: []float32{float32(i) / 10, 0.5, 0.25, 0.5},
			verts:    []testVertex{{x: -1, y: -1, w: 1}, {x: 1, y: -1, w: 1}, {x: -1, y: 1, w: 1}, {x: 1, y: 1, w: 1}}})
	}
	_, pf := k.prepareFrame(&testFrame{width: 512, height: 512, draws: draws})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k.runFrame(pf)
	}
	b.ReportMetric(float64(b.N)*10*512*512/b.Elapsed().Seconds()/1e6, "Mpixels/s")
}

// BenchmarkRasterBlendVarying is BenchmarkRasterBlend with colours
// interpolated across each quad (blended sprites): every batch's lanes
// differ, so the colour write blends 16 lanes at a time (colorBatch).
func BenchmarkRasterBlendVarying(b *testing.B) {
	k := newTestKernel(b, 0, 128<<20)
	blend := []cl.Record{cl.BlendConfig{Enable: true, SrcRGB: cl.BlendFactorSrcAlpha, DstRGB: cl.BlendFactorOneMinusSrcAlpha,
		SrcAlpha: cl.BlendFactorSrcAlpha, DstAlpha: cl.BlendFactorOneMinusSrcAlpha}}
	var draws []testDraw
	for i := 0; i < 10; i++ {
		f := float32(i) / 10
		draws = append(draws, testDraw{mode: cl.PrimTriangleStrip, state: blend,
			verts: []testVertex{{x: -1, y: -1, w: 1, r: f, g: 0.2, b: 0.9, a: 0.3}, {x: 1, y: -1, w: 1, r: 1 - f, g: 0.7, b: 0.1, a: 0.6},
				{x: -1, y: 1, w: 1, r: 0.5, g: f, b: 0.4, a: 0.5}, {x: 1, y: 1, w: 1, r: 0.9, g: 0.3, b: f, a: 0.8}}})
	}
	_, pf := k.prepareFrame(&testFrame{width: 512, height: 512, draws: draws})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k.runFrame(pf)
	}
	b.ReportMetric(float64(b.N)*10*512*512/b.Elapsed().Seconds()/1e6, "Mpixels/s")
}

// BenchmarkRasterVaryings fills with ten perspective quads (w varies across
// each) whose four varyings reach the colour: the plane-equation and
// perspective-division path of emitQuad.
func BenchmarkRasterVaryings(b *testing.B) {
	k := newTestKernel(b, 0, 128<<20)
	var draws []testDraw
	for i := 0; i < 10; i++ {
		draws = append(draws, testDraw{mode: cl.PrimTriangleStrip,
			verts: []testVertex{{x: -1, y: -1, w: 1, r: 1, a: 1}, {x: 2, y: -2, w: 2, g: 1, a: 1}, {x: -1, y: 1, w: 1, b: 1, a: 1}, {x: 2, y: 2, w: 2, r: 0.5, a: 0.5}}})
	}
	_, pf := k.prepareFrame(&testFrame{width: 512, height: 512, draws: draws})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k.runFrame(pf)
	}
	b.ReportMetric(float64(b.N)*10*512*512/b.Elapsed().Seconds()/1e6, "Mpixels/s")
}

// BenchmarkSmallTriangles measures setup-bound work: 20,000 small
// triangles with depth test and blending.
func BenchmarkSmallTriangles(b *testing.B) {
	k := newTestKernel(b, 0, 256<<20)
	fr := randomScene(5, 20000)
	for i := range fr.draws[0].verts {
		v := &fr.draws[0].verts[i]
		// shrink each triangle around its first vertex
		base := fr.draws[0].verts[i-i%3]
		v.x = base.x + (v.x-base.x)*0.03
		v.y = base.y + (v.y-base.y)*0.03
	}
	fr.width, fr.height = 640, 480
	fr.poolExtra = 32 << 20
	_, pf := k.prepareFrame(fr)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k.runFrame(pf)
	}
	b.ReportMetric(float64(b.N)*20000/b.Elapsed().Seconds()/1e6, "Mtris/s")
}

// BenchmarkFrame is a full small frame: 300 large blended, depth-tested
// triangles at 300×200.
func BenchmarkFrame(b *testing.B) {
	k := newTestKernel(b, 0, 128<<20)
	_, pf := k.prepareFrame(randomScene(3, 300))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k.runFrame(pf)
	}
}

// BenchmarkMesh renders an indexed grid mesh of 180,000 triangles at
// 1920×1080 with depth test: the shape of the "tris" scene at a fifth of
// its triangle count.
func BenchmarkMesh(b *testing.B) {
	k := newTestKernel(b, 0, 512<<20)
	const n = 300
	var verts []testVertex
	for i := 0; i <= n; i++ {
		for j := 0; j <= n; j++ {
			x, y := float32(j)/n*1.6-0.8, float32(i)/n*1.6-0.8
			verts = append(verts, testVertex{x: x, y: y, z: x * y, w: 1, r: x + 0.5, g: y + 0.5, b: 0.5, a: 1})
		}
	}
	var idx []uint32
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a := uint32(i*(n+1) + j)
			c := a + n + 1
			idx = append(idx, a, a+1, c, a+1, c+1, c)
		}
	}
	depth := []cl.Record{cl.ConfigurationBits{EnableForwardFacing: true, EnableReverseFacing: true,
		DepthTestEnable: true, DepthFunc: cl.CompareLess, ZUpdatesEnable: true, EarlyZEnable: true}}
	_, pf := k.prepareFrame(&testFrame{width: 1920, height: 1080, clearDepth: 0xFFFFFF, poolExtra: 64 << 20,
		draws: []testDraw{{mode: cl.PrimTriangles, verts: verts, indices: idx, itype: cl.IndexU32, state: depth}}})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k.runFrame(pf)
	}
	b.ReportMetric(float64(b.N)*float64(len(idx)/3)/b.Elapsed().Seconds()/1e6, "Mtris/s")
}
