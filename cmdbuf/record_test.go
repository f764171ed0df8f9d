package cmdbuf_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tilegpu/tilegpu/cmdbuf"
	"github.com/tilegpu/tilegpu/scene"
)

// TestRecordReplay records a client's stream at the service, replays it on
// a fresh GPU and gets the image the client saw; the decoder prints it.
func TestRecordReplay(t *testing.T) {
	dir := t.TempDir()
	s := newService(t, cmdbuf.ServiceConfig{RecordDir: dir})
	tr, _ := cmdbuf.NewInProcess(s)
	const size = 64
	c, err := cmdbuf.NewClient(tr, cmdbuf.Options{Width: size, Height: size, TransferSize: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scene.DrawSpot(c, size, size); err != nil {
		t.Fatal(err)
	}
	want, err := c.Image()
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	path := filepath.Join(dir, "client-1.tgcb")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := cmdbuf.Replay(bytes.NewReader(data), cmdbuf.ServiceConfig{MemorySize: 128 << 20, Cores: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Pix, want.Pix) {
		t.Error("replayed image differs from the recorded client's")
	}
	var out strings.Builder
	if err := cmdbuf.DecodeRecording(bytes.NewReader(data), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"context 64x64", "ShaderSource s=", "LinkProgram p=", "DrawElements mode=0x4", "shm(", "TexImage2D"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("decoded recording lacks %q", want)
		}
	}
	// Damaged recordings are errors, not panics.
	for _, bad := range [][]byte{nil, []byte("TGCB1\nX"), data[:len(data)/2], append([]byte("TGCB1\nC"), 0, 0, 0, 0)} {
		if _, err := cmdbuf.Replay(bytes.NewReader(bad), cmdbuf.ServiceConfig{MemorySize: 64 << 20, Cores: 1}); err == nil {
			t.Errorf("Replay of a damaged recording (%d bytes) succeeded", len(bad))
		}
	}
}

// FuzzDecodeRecording: the recording reader rejects anything malformed
// with an error.
func FuzzDecodeRecording(f *testing.F) {
	f.Add([]byte("TGCB1\nS\x10\x00\x00\x00\x10\x00\x00\x00C\x02\x00\x00\x00\x02\x00\x20\x2f\x00\x40\x00\x00"))
	f.Add([]byte("TGCB1\nM\x03\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00abcd"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cmdbuf.DecodeRecording(bytes.NewReader(b), io.Discard)
	})
}

// TestClientSideRecording records on the client's side (Record wrapping
// the transport, here TCP) and replays: the same image.
func TestClientSideRecording(t *testing.T) {
	s := newService(t, cmdbuf.ServiceConfig{})
	dial, stop := transports[2].start(t, s)
	defer stop()
	inner, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	var rec bytes.Buffer
	const size = 48
	c, err := cmdbuf.NewClient(cmdbuf.Record(inner, &rec), cmdbuf.Options{Width: size, Height: size, TransferSize: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scene.DrawSpot(c, size, size); err != nil {
		t.Fatal(err)
	}
	want, err := c.Image()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := cmdbuf.Replay(bytes.NewReader(rec.Bytes()), cmdbuf.ServiceConfig{MemorySize: 128 << 20, Cores: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Pix, want.Pix) {
		t.Error("replay of the client-side recording differs from what the client saw")
	}
}
