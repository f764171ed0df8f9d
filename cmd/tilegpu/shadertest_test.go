package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShaderTestCommand runs the piglit files of internal/shadertest on the
// virtual GPU, and a copy with a wrong expectation, which must fail.
func TestShaderTestCommand(t *testing.T) {
	var buf bytes.Buffer
	old := stdout
	stdout = &buf
	defer func() { stdout = old }()
	if err := cmdShaderTest([]string{"../../internal/shadertest/testdata"}); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if !strings.Contains(buf.String(), "4 passed, 0 failed") {
		t.Errorf("output %q, want 4 passed, 0 failed", buf.String())
	}

	src, err := os.ReadFile("../../internal/shadertest/testdata/uniform-color.shader_test")
	if err != nil {
		t.Fatal(err)
	}
	wrong := strings.Replace(string(src), "probe rgba 10 10 0.0 1.0 0.0 1.0", "probe rgba 10 10 1.0 0.0 0.0 1.0", 1)
	path := filepath.Join(t.TempDir(), "wrong.shader_test")
	if err := os.WriteFile(path, []byte(wrong), 0o644); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := cmdShaderTest([]string{path}); err == nil {
		t.Fatalf("a wrong probe passed:\n%s", buf.String())
	}
	if !strings.Contains(buf.String(), "pixel (10,10): got [0 1 0 1], want [1 0 0 1]") || !strings.Contains(buf.String(), "0 passed, 1 failed") {
		t.Errorf("failure output:\n%s", buf.String())
	}
}
