package gl

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestEveryContextMethodDocumented: each method of Context has a doc
// comment that starts with its name and says which GL errors it records
// (or that it records none, as for the Create*, Is*, Flush and Finish
// calls, whose comments still describe them).
func TestEveryContextMethodDocumented(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "gl.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		ts, ok := node.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "Context" {
			return true
		}
		for _, m := range ts.Type.(*ast.InterfaceType).Methods.List {
			name := m.Names[0].Name
			n++
			doc := m.Doc.Text()
			if !strings.HasPrefix(doc, name+" ") || len(doc) < len(name)+20 {
				t.Errorf("%s: doc comment %q", name, doc)
			}
		}
		return false
	})
	if n != 147 {
		t.Errorf("%d Context methods checked, want 147", n)
	}
}

func TestPackingHelpers(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want []byte
	}{
		{"float 1.0", Float32Bytes(1), []byte{0, 0, 0x80, 0x3f}},
		{"floats -2.5, 0", Float32Bytes(-2.5, 0), []byte{0, 0, 0x20, 0xc0, 0, 0, 0, 0}},
		{"uint16", Uint16Bytes(0x0102, 0xffff), []byte{2, 1, 0xff, 0xff}},
		{"uint32", Uint32Bytes(0x01020304, 0xffffffff), []byte{4, 3, 2, 1, 0xff, 0xff, 0xff, 0xff}},
		{"empty", Float32Bytes(), []byte{}},
		{"slice", Uint16Bytes([]uint16{0, 1, 2}...), []byte{0, 0, 1, 0, 2, 0}},
	} {
		if !bytes.Equal(tc.got, tc.want) {
			t.Errorf("%s: % x, want % x", tc.name, tc.got, tc.want)
		}
	}
}
