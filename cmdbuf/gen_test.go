package cmdbuf

import (
	"bytes"
	"os"
	"testing"

	"github.com/tilegpu/tilegpu/cmdbuf/spec"
)

// TestGeneratedCodeIsFresh regenerates commands_gen.go and compares it with
// the committed file.
func TestGeneratedCodeIsFresh(t *testing.T) {
	cmds, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	src, err := spec.Generate(cmds)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("commands_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(src, committed) {
		t.Fatal("cmdbuf/commands_gen.go is stale: run go generate ./cmdbuf/...")
	}
}

// TestHeaderLayout checks the header split: size in the low 21 bits, id in
// the high 11.
func TestHeaderLayout(t *testing.T) {
	for _, tc := range []struct {
		size int
		id   CommandID
		word uint32
	}{
		{1, CmdNoop, 0x00000001},
		{6, CmdUniform4f, 381<<21 | 6},
		{maxCommandLen, 2047, 0xffffffff},
	} {
		if got := header(tc.size, tc.id); got != tc.word {
			t.Errorf("header(%d, %d) = %#x, want %#x", tc.size, tc.id, got, tc.word)
		}
		if s, id := SplitHeader(tc.word); s != tc.size || id != tc.id {
			t.Errorf("SplitHeader(%#x) = %d, %d", tc.word, s, id)
		}
	}
}
