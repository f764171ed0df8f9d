package qpu

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedKernelsAreFresh regenerates kernels_gen.go into a temporary
// file and fails if the committed one differs: edit gen_kernels.go, then run
// go generate ./hw/qpu.
func TestGeneratedKernelsAreFresh(t *testing.T) {
	out := filepath.Join(t.TempDir(), "kernels_gen.go")
	cmd := exec.Command("go", "run", "gen_kernels.go", "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run gen_kernels.go: %v\n%s", err, b)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("kernels_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("hw/qpu/kernels_gen.go is stale: run go generate ./hw/qpu")
	}
}
