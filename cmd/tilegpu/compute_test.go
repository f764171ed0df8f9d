package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCompute runs cmdCompute with stdout and stderr captured.
func runCompute(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var o, e bytes.Buffer
	oldOut, oldErr := stdout, stderr
	stdout, stderr = &o, &e
	defer func() { stdout, stderr = oldOut, oldErr }()
	err := cmdCompute(args)
	return o.String() + e.String(), err
}

func TestComputeCommand(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sq.comp")
	src := `#version 310 es
layout(local_size_x = 4) in;
layout(std430, binding = 3) buffer B { uint v[]; } b;
void main() { uint i = gl_GlobalInvocationID.x; b.v[i] = b.v[i] * b.v[i] + gl_WorkGroupID.x; }
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCompute(t, "-groups", "3", "-buf", "3=12:seq", "-d", path)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"dispatched 3×1×1 workgroups of 4×1×1 in ",
		"binding 3 (12 words):\n",
		"     0:          0          1          4          9         17         26         37         50\n",
		"     8:         66         83        102        123\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{path}, "binding 3 is not bound"},
		{[]string{"-buf", "3=x", path}, `"x" is not a word count`},
		{[]string{"-buf", "99=4", path}, "binding 0..15"},
		{[]string{"-buf", "3=4:rand", path}, `initial contents "rand"`},
		{[]string{"-groups", "1,2,3,4", "-buf", "3=4", path}, "at most three dimensions"},
		{[]string{"-groups", "70000", "-buf", "3=4", path}, "at most 65535"},
		{[]string{"-buf", "3=4", filepath.Join(dir, "missing.comp")}, "no such file"},
	} {
		out, err := runCompute(t, tt.args...)
		if err == nil || !strings.Contains(err.Error()+out, tt.want) {
			t.Errorf("compute %v: %v\n%s\nwant %q", tt.args, err, out, tt.want)
		}
	}
	if out, err := runCompute(t, "-h"); err != nil || !strings.Contains(out, "usage: tilegpu compute") {
		t.Errorf("-h: %v\n%s", err, out)
	}
}
