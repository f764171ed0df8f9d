package crashdec

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// testdata/pagefault.json is a dump the kernel wrote for a fragment
// shader's page fault in draw 2 of a 130×64 frame, on tile (1,0) of
// render core 0 (kernel's TestCrashDumpPageFault makes such dumps live).
func TestDecodePageFaultDump(t *testing.T) {
	data, err := os.ReadFile("testdata/pagefault.json")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Decode(&buf, d); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{
		"tilegpu crash dump: page fault",
		"fault: read of VA 0x0bad0000 by the RENDER engine (outside every BO the job referenced)",
		"shader: fragment shader at 0x00002000 on render core 0 (QPU 1), PC 0x00002000",
		"draw: 2 (", "tile: column 1, row 0 (render core 0)",
		"=> f000104e: MARKER id=0x2",
		"=> f00010c2: TILE_COORDINATES column=1 row=0",
		"== state bound for draw 2 ==",
		"+0028  INDIRECT_BUFFER address=0xf00010a0 size=71",
		"== fragment shader @0x00002000 — failed at PC 0x00002000 ==",
		"=> 00002000: e20f40000bad0000  li tmu_addr, 0xbad0000",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("decoded dump lacks %q", want)
		}
	}
	if strings.Contains(text, "column=0 row=0") {
		t.Error("the render list shows tiles other than the failing one")
	}
	if t.Failed() {
		t.Log(text)
	}
}

// FuzzParseDecode: any input is either rejected by Parse with an error or
// decoded without panicking.
func FuzzParseDecode(f *testing.F) {
	if data, err := os.ReadFile("testdata/pagefault.json"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"Format":"tilegpu-devcoredump-1","BinCL":"AQIDBA==","Rings":[{"Size":4096,"RPTR":4,"WPTR":8,"WordsBeforeRPTR":1,"PacketAligned":true,"Words":[1879048193,7]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(data)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := Decode(&buf, d); err != nil {
			t.Fatal(err)
		}
	})
}
