package kernel

import (
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/tilegpu/tilegpu/hw/cl"
)

func TestGenerateRenderCL(t *testing.T) {
	bos := []*bo{{va: 0x10000, pages: 16}, {va: 0x40000, pages: 16}}
	tests := []struct {
		name string
		args SubmitCLArgs
		msaa bool
		tw   uint32
		th   uint32
		want string
	}{
		{
			name: "clear colour, store colour, 2×1 tiles",
			args: SubmitCLArgs{Width: 100, Height: 20, ClearColor: 0xff0000ff, ClearDepth: 0xffffff,
				Color: RenderTarget{BOIndex: 0, Offset: 16, Stride: 400, Enabled: true, Store: true, Clear: true}},
			tw: 2, th: 1,
			want: `
TILE_RENDERING_MODE_CONFIGURATION width=100 height=20 multisample4x=0 disable_hsr=0 color_format=RGBA8888
CLEAR_COLORS color=0xff0000ff depth=0xffffff stencil=0
TILE_COORDINATES column=0 row=0
BRANCH_TO_SUB_LIST address=0x00800000
STORE_TILE_BUFFER_GENERAL buffer=COLOR all_samples=0 last_tile=0 address=0x00010010 stride=400
TILE_COORDINATES column=1 row=0
BRANCH_TO_SUB_LIST address=0x00800100
STORE_TILE_BUFFER_GENERAL buffer=COLOR all_samples=0 last_tile=1 address=0x00010010 stride=400
HALT`,
		},
		{
			name: "load both, store both, MSAA",
			args: SubmitCLArgs{Width: 32, Height: 32, ClearStencil: 7,
				Color: RenderTarget{BOIndex: 0, Stride: 128, Enabled: true, Load: true, Store: true},
				ZS:    RenderTarget{BOIndex: 1, Stride: 128, Enabled: true, Load: true, Store: true}},
			msaa: true, tw: 1, th: 1,
			want: `
TILE_RENDERING_MODE_CONFIGURATION width=32 height=32 multisample4x=1 disable_hsr=0 color_format=RGBA8888
CLEAR_COLORS color=0x0 depth=0x0 stencil=7
TILE_COORDINATES column=0 row=0
LOAD_TILE_BUFFER_GENERAL buffer=COLOR all_samples=0 address=0x00010000 stride=128
LOAD_TILE_BUFFER_GENERAL buffer=ZS all_samples=0 address=0x00040000 stride=128
BRANCH_TO_SUB_LIST address=0x00800000
STORE_TILE_BUFFER_GENERAL buffer=ZS all_samples=0 last_tile=0 address=0x00040000 stride=128
STORE_TILE_BUFFER_GENERAL buffer=COLOR all_samples=0 last_tile=1 address=0x00010000 stride=128
HALT`,
		},
		{
			name: "exact counts: hidden-surface removal off",
			args: SubmitCLArgs{Width: 1, Height: 1, Flags: SubmitExactCounts},
			tw:   1, th: 1,
			want: `
TILE_RENDERING_MODE_CONFIGURATION width=1 height=1 multisample4x=0 disable_hsr=1 color_format=RGBA8888
CLEAR_COLORS color=0x0 depth=0x0 stencil=0
TILE_COORDINATES column=0 row=0
BRANCH_TO_SUB_LIST address=0x00800000
STORE_TILE_BUFFER_GENERAL buffer=NONE all_samples=0 last_tile=1 address=0x00000000 stride=0
HALT`,
		},
		{
			name: "RGB565 colour target",
			args: SubmitCLArgs{Width: 30, Height: 2,
				Color: RenderTarget{BOIndex: 0, Stride: 60, Enabled: true, Load: true, Store: true, Format: cl.ColorFormatRGB565}},
			tw: 1, th: 1,
			want: `
TILE_RENDERING_MODE_CONFIGURATION width=30 height=2 multisample4x=0 disable_hsr=0 color_format=RGB565
CLEAR_COLORS color=0x0 depth=0x0 stencil=0
TILE_COORDINATES column=0 row=0
LOAD_TILE_BUFFER_GENERAL buffer=COLOR all_samples=0 address=0x00010000 stride=60
BRANCH_TO_SUB_LIST address=0x00800000
STORE_TILE_BUFFER_GENERAL buffer=COLOR all_samples=0 last_tile=1 address=0x00010000 stride=60
HALT`,
		},
		{
			name: "no colour store",
			args: SubmitCLArgs{Width: 1, Height: 1},
			tw:   1, th: 1,
			want: `
TILE_RENDERING_MODE_CONFIGURATION width=1 height=1 multisample4x=0 disable_hsr=0 color_format=RGBA8888
CLEAR_COLORS color=0x0 depth=0x0 stencil=0
TILE_COORDINATES column=0 row=0
BRANCH_TO_SUB_LIST address=0x00800000
STORE_TILE_BUFFER_GENERAL buffer=NONE all_samples=0 last_tile=1 address=0x00000000 stride=0
HALT`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &validator{bos: bos, msaa: tt.msaa}
			buf := make([]byte, renderCLSize(tt.tw*tt.th))
			n := generateRenderCL(buf, &tt.args, v, 0x0080_0000, tt.tw, tt.th)
			var sb strings.Builder
			if err := cl.DecodeCL(&sb, buf[:n], 0); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(sb.String()), "\n") {
				got = append(got, line[strings.Index(line, ": ")+2:])
			}
			if g, w := strings.Join(got, "\n"), strings.TrimSpace(tt.want); g != w {
				t.Errorf("render CL:\n%s\nwant:\n%s", g, w)
			}
		})
	}
}

func TestKernelFillsTileBinningConfig(t *testing.T) {
	d, _ := newTestDevice(t, time.Hour)
	f := mustOpen(t, d)
	j := newTestJob(t, f, 130, 64) // 3×1 tiles
	j.script(scriptHang, 0)        // keep it in flight while we look
	j.args.Relocs = append(j.args.Relocs, Reloc{Space: SpaceUniforms, Offset: 8, Target: TargetBO, BOIndex: boVerts, Delta: 0x24})
	cl.TileBinningModeConfiguration{TileAllocationAddress: 0x1234, TileAllocationSize: 5, WidthInTiles: 99}.Pack(j.args.BinCL)
	if err := f.SubmitCL(&j.args); err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	var jb *job
	for _, x := range append(append(append([]*job{}, d.inflight[prioNormal]...), d.inflight[prioHigh]...), f.ctx.queue...) {
		jb = x
	}
	if jb == nil {
		t.Fatal("the hung job is neither queued nor in flight")
	}
	var r cl.TileBinningModeConfiguration
	if err := r.Unpack(d.mem[jb.exec.pa:]); err != nil {
		t.Fatal(err)
	}
	if r.TileAllocationAddress != jb.tile.va || r.TileAllocationSize != jb.reportOff || jb.reportOff+reportBytes > jb.tile.size() || r.WidthInTiles != 3 || r.HeightInTiles != 1 {
		t.Errorf("TBMC = %+v; tile BO at %#x size %#x, report area at +%#x (the pool ends there)", r, jb.tile.va, jb.tile.size(), jb.reportOff)
	}
	// Relocations hold GPU VAs of this context.
	srVA := jb.exec.va + align16(uint32(len(j.args.BinCL)))
	uniPA := jb.exec.pa + align16(srVA-jb.exec.va+uint32(len(j.args.ShaderRecords)))
	verts := f.handles[j.handles[boVerts]]
	for _, p := range []struct {
		name     string
		pa, want uint32
	}{
		{"GL_SHADER_STATE address", jb.exec.pa + 19 + 1, srVA},
		{"index buffer address", jb.exec.pa + 25 + 6, f.handles[j.handles[boIndex]].va},
		{"vertex code address", srVA - jb.exec.va + jb.exec.pa + 12, f.handles[j.handles[boCode]].va},
		{"vertex uniforms address", srVA - jb.exec.va + jb.exec.pa + 16, uniPA - jb.exec.pa + jb.exec.va},
		{"attribute address", srVA - jb.exec.va + jb.exec.pa + 36, verts.va},
		{"uniform reloc", uniPA + 8, verts.va + 0x24},
	} {
		if got := binary.LittleEndian.Uint32(d.mem[p.pa:]); got != p.want {
			t.Errorf("%s = %#x, want %#x", p.name, got, p.want)
		}
	}
	if _, w, ok := f.ctx.as.translate(jb.tile.va); !ok || !w {
		t.Error("tile allocation memory not mapped writable")
	}
	if _, w, ok := f.ctx.as.translate(jb.exec.va); !ok || w {
		t.Error("exec BO not mapped read-only")
	}
}
