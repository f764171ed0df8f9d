package qpu

import (
	"strings"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw/cl"
)

// aluProgram is 40 dual-issue ALU instructions of the mix a fragment shader
// produces (float add/mul pairs, register-file and accumulator operands,
// conditional writes, flags, a uniform and a varying read) plus END.
func aluProgram() string {
	var sb strings.Builder
	sb.WriteString("nop ; mov r0, a.vary\nnop ; mov r1, b.unif\n")
	body := []string{
		"fadd r2, r0, r1 ; fmul r3, r0, r1",
		"fadd ra0, r2, r3 ; fmul rb0, r2, 0.5",
		"fsub.setf r2, ra0, rb0 ; fmul r3, r3, r3",
		"fadd.ifns r0, r2, r0 ; fmul.ifnc r1, r1, 2.0",
		"fmax r2, r0, r1 ; mov ra1, r2",
		"add ra2, elem_num, 3 ; fmul rb1, r2, r1",
		"ftoi r3, r2 ; fmul r2, r2, rb1",
		"itof r0, r3 ; mov rb2, r2",
	}
	for len(strings.Split(sb.String(), "\n"))-1 < 40 {
		sb.WriteString(body[(len(strings.Split(sb.String(), "\n"))-1)%len(body)] + "\n")
	}
	sb.WriteString("nop ; mov tlb_r, r0 ; end\n")
	return sb.String()
}

// modes runs a benchmark with the interpreter and with the translation.
func modes(b *testing.B, p *Program, run func(b *testing.B, interpreted bool)) {
	b.Run("interpreted", func(b *testing.B) { run(b, true) })
	Translate(p)
	b.Run("translated", func(b *testing.B) { run(b, false) })
}

func BenchmarkRun(b *testing.B) {
	m := newFlatMem()
	m.put32(unifVA, f32(1.5))
	p := load(b, m, aluProgram())
	modes(b, p, func(b *testing.B, interpreted bool) { benchRun(b, m, p, interpreted) })
}

func benchRun(b *testing.B, m *flatMem, p *Program, interpreted bool) {
	c := NewCore(pagedMem{m})
	c.Interpreted = interpreted
	bt := newBatch(StageFragment)
	b.ReportAllocs()
	b.ResetTimer()
	var instrs uint64
	for i := 0; i < b.N; i++ {
		if err := c.Run(p, bt); err != nil {
			b.Fatal(err)
		}
		instrs += bt.Instructions
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(instrs), "ns/instr")
}

func BenchmarkTextureFetch(b *testing.B) {
	m := newFlatMem()
	var texels []uint32
	for k := 0; k < 64*64; k++ {
		texels = append(texels, uint32(k*2654435761))
	}
	putTexture(m, cl.TextureDescriptor{Width: 64, Height: 64, Levels: 1, MinFilter: cl.MinFilterLinear, MagFilter: cl.MagFilterLinear}, texels)
	m.put32(unifVA, descVA)
	p := load(b, m, `
		nop ; fmul tmu_t, a.vary, 0.125
		nop ; fmul tmu_s, a.vary, 0.125
		nop ; nop ; ldtmu
		nop ; mov tlb_r, r4 ; ldtmu
		nop ; mov tlb_g, r4 ; ldtmu
		nop ; mov tlb_b, r4 ; ldtmu
		nop ; mov tlb_a, r4 ; end`)
	c := NewCore(pagedMem{m})
	bt := newBatch(StageFragment)
	for l := 0; l < Lanes; l++ {
		bt.Varyings[l] = float32(l&1) * 0.1
		bt.Varyings[Lanes+l] = float32(l>>1&1) * 0.1
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := c.Run(p, bt); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*Lanes), "ns/lane")
}

// BenchmarkSampleMagnified samples a 1024×1024 bilinear texture as the
// "tex" bench scene does: magnified onto 1920×1080, 16 lanes of an 8×2
// pixel strip per request, walking across the screen. Every texture row is
// its own 4 KiB page, so this measures the texel path and the page cache.
func BenchmarkSampleMagnified(b *testing.B) {
	const W, H = 1024, 1024
	m := &flatMem{base: memBase, data: make([]byte, 0x10000+W*H*4)}
	texels := make([]uint32, W*H)
	for k := range texels {
		texels[k] = uint32(k * 2654435761)
	}
	putTexture(m, cl.TextureDescriptor{Width: W, Height: H, Levels: 1, MinFilter: cl.MinFilterLinear, MagFilter: cl.MagFilterLinear,
		WrapS: cl.WrapClampToEdge, WrapT: cl.WrapClampToEdge}, texels)
	tmu := NewTMU()
	tmu.beginRun(pagedMem{m}) // pages retained across fetches, as a Core with RetainPages does
	var req TexRequest
	var out [4][Lanes]float32
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x0, y0 := (i*8)%1920, ((i*8)/1920*2)%1080
		for l := 0; l < Lanes; l++ {
			px, py := x0+(l&1)+2*(l>>2&1)+4*(l>>3), y0+(l>>1&1)
			req.S[l] = (float32(px) + 0.5) / 1920
			req.T[l] = (float32(py) + 0.5) / 1080
		}
		req.Mask = 0xffff
		if err := tmu.Sample(pagedMem{m}, descVA, &req, &out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*Lanes), "ns/lane")
}

// BenchmarkRunFlat runs FS_FLAT (the "fill" scene's shader: four uniforms
// moved to TLB_COLOR_R..A) and then reads the colour lanes back one by one
// as the TLB does: batch overhead plus the store-to-load pattern between
// the core and the TLB.
func BenchmarkRunFlat(b *testing.B) {
	m := newFlatMem()
	m.put32(unifVA, f32(0.1), f32(0.2), f32(0.3), f32(1))
	p := load(b, m, `
		or tlb_r, a.unif, a.unif ; nop
		or tlb_g, a.unif, a.unif ; nop
		or tlb_b, a.unif, a.unif ; nop
		or tlb_a, a.unif, a.unif ; nop ; end`)
	modes(b, p, func(b *testing.B, interpreted bool) { benchRunFlat(b, m, p, interpreted) })
}

func benchRunFlat(b *testing.B, m *flatMem, p *Program, interpreted bool) {
	c := NewCore(pagedMem{m})
	c.Interpreted = interpreted
	c.RetainPages(true)
	bt := newBatch(StageFragment)
	b.ReportAllocs()
	b.ResetTimer()
	var sum uint32
	for i := 0; i < b.N; i++ {
		if err := c.Run(p, bt); err != nil {
			b.Fatal(err)
		}
		for ch := range bt.Color {
			for l := range bt.Color[ch] {
				sum += f32(bt.Color[ch][l])
			}
		}
	}
	if sum == 1 {
		b.Log(sum)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*Lanes), "ns/lane")
}

// BenchmarkRunMinimum measures aluProgram as the minimum over 40
// alternated rounds of 2000 runs per mode (interpreted, translated without
// native code, translated with native code where the build has it), which
// a loaded machine disturbs far less than one long run:
// go test -run XXX -bench RunMinimum -benchtime 1x ./hw/qpu
func BenchmarkRunMinimum(b *testing.B) {
	m := newFlatMem()
	m.put32(unifVA, f32(1.5))
	p := load(b, m, aluProgram())
	Translate(p)
	modes := []struct {
		name string
		set  func(c *Core)
	}{
		{"interpreted", func(c *Core) { c.Interpreted = true }},
		{"no-native", func(c *Core) { c.NoNative = true }},
		{"native", func(c *Core) {}},
	}
	best := make([]float64, len(modes))
	for range b.N {
		for round := 0; round < 40; round++ {
			for k, md := range modes {
				c := NewCore(pagedMem{m})
				md.set(c)
				bt := newBatch(StageFragment)
				var instrs uint64
				t0 := time.Now()
				for i := 0; i < 2000; i++ {
					if err := c.Run(p, bt); err != nil {
						b.Fatal(err)
					}
					instrs += bt.Instructions
				}
				ns := float64(time.Since(t0).Nanoseconds()) / float64(instrs)
				if best[k] == 0 || ns < best[k] {
					best[k] = ns
				}
			}
		}
	}
	for k, md := range modes {
		b.ReportMetric(best[k], md.name+"-ns/instr")
	}
}
