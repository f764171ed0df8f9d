package spec

import (
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	cmds, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	common := 0
	for _, c := range cmds {
		if c.ID < 256 {
			common++
		}
	}
	if common != 7 {
		t.Errorf("%d common commands, want 7 (Noop, SetToken, the bucket commands)", common)
	}
	byName := map[string]*Command{}
	for _, c := range cmds {
		byName[c.Name] = c
	}
	for _, tc := range []struct {
		name  string
		id    int
		fixed int
	}{{"Noop", 0, 1}, {"Viewport", 399, 5}, {"Uniform4f", 381, 6}, {"BufferData", 269, 6}, {"GetProgramInfo", 400, 3}} {
		c := byName[tc.name]
		if c == nil || c.ID != tc.id || c.Fixed() != tc.fixed {
			t.Errorf("%s: %+v, want id %d with %d entries", tc.name, c, tc.id, tc.fixed)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"x Foo", "command id"},
		{"4096 Foo", "command id"},
		{"300 A\n300 B", "duplicate"},
		{"300 A x:float", "unknown type"},
		{"300 A x:u32:4", "only shm and immediate"},
		{"300 A d:shm:n", "earlier u32"},
		{"300 A n:u32 d:f32s:n x:u32", "last argument"},
		{"300 A b:u32!", "unknown type"},
		{"5 A", "common"},
		{"300 A x:u32 x:u32", "duplicate argument"},
		{"# nothing", "no commands"},
	} {
		_, err := Parse(tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tc.src, err, tc.want)
		}
	}
}
