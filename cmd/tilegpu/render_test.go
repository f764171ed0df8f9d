package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRenderAndDecode(t *testing.T) {
	out := filepath.Join(t.TempDir(), "spot.png")
	var buf bytes.Buffer
	old := stdout
	stdout = &buf
	defer func() { stdout = old }()
	if err := cmdRender([]string{"-size", "96", "-decode", "-o", out}); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{
		"-- ring BIN --", "SET_CONTEXT", "SIGNAL", "-- ring RENDER --", "WAIT_MEM", "EVENT_WRITE",
		"TILE_BINNING_MODE_CONFIGURATION", "GL_SHADER_STATE", "INDEXED_PRIMITIVE_LIST mode=TRIANGLES", "FLUSH",
		"TILE_RENDERING_MODE_CONFIGURATION", "CLEAR_COLORS", "BRANCH_TO_SUB_LIST", "STORE_TILE_BUFFER_GENERAL", "HALT",
		"SHADER_RECORD", "ATTRIBUTE_RECORD", "-- coordinate shader", "-- vertex shader", "-- fragment shader", "; end",
		"rendered " + out + ": 96×96, 5856 triangles",
		"counters frames=1 ", " hsr_primitives=", " raster_blocks=", " earlyz_rejected=", " bin_parallel_vertices=",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("render -decode output lacks %q", want)
		}
	}
	if strings.Contains(text, "!!") {
		t.Errorf("decoder reported a problem:\n%s", text)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 96 || b.Dy() != 96 {
		t.Errorf("image is %v, want 96×96", b)
	}
	// The cow covers the centre; the corners show the clear colour.
	r, g, bl, _ := img.At(0, 0).RGBA()
	cr, cg, cb, _ := img.At(48, 48).RGBA()
	if r>>8 != 46 || g>>8 != 51 || bl>>8 != 61 {
		t.Errorf("corner pixel %d,%d,%d, want the clear colour 46,51,61", r>>8, g>>8, bl>>8)
	}
	if cr == r && cg == g && cb == bl {
		t.Error("centre pixel is the clear colour: nothing was drawn")
	}
}

func TestBenchCommand(t *testing.T) {
	tests := []struct {
		args    []string
		want    string
		wantErr string
	}{
		{[]string{"-scene", "fill", "-frames", "1", "-width", "64", "-height", "36"}, "scene=fill frames=1", ""},
		{[]string{"-scene", "tris", "-frames", "1", "-width", "64", "-height", "36"}, "ms/frame=", ""},
		{[]string{"-scene", "nope"}, "", `unknown scene "nope"`},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		old := stdout
		stdout = &buf
		err := cmdBench(tc.args)
		stdout = old
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: err %v, want %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !strings.Contains(buf.String(), tc.want) {
			t.Errorf("%v: err %v, output %q, want %q", tc.args, err, buf.String(), tc.want)
		}
	}
}

func TestRenderModel(t *testing.T) {
	models := "../../scene/testdata/models/"
	dir := t.TempDir()
	tests := []struct {
		args    []string
		want    string
		wantErr string
	}{
		{[]string{"-model", models + "Box/Box.gltf"}, "64×64, 12 triangles", ""},
		{[]string{"-model", models + "teapot/utah_teapot.stl", "-yaw", "0", "-pitch", "20"}, "64×64, 9438 triangles", ""},
		{[]string{"-model", "../../scene/spot/spot.obj", "-texture", "../../scene/spot/spot_texture.png", "-yaw", "215"}, "64×64, 5856 triangles", ""},
		{[]string{"-model", models + "Box/Box.gltf", "-texture", "x.png"}, "", "-texture applies to .obj models only"},
		{[]string{"-yaw", "10"}, "", "need a model"},
		{[]string{"-model", models + "README.md"}, "", `unknown model format ".md"`},
		{[]string{"-model", models + "missing.gltf"}, "", "no such file"},
	}
	for i, tc := range tests {
		out := filepath.Join(dir, "m.png")
		var buf bytes.Buffer
		old := stdout
		stdout = &buf
		err := cmdRender(append([]string{"-size", "64", "-o", out}, tc.args...))
		stdout = old
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%d %v: err %v, want %q", i, tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !strings.Contains(buf.String(), tc.want) {
			t.Errorf("%d %v: err %v, output %q, want %q", i, tc.args, err, buf.String(), tc.want)
			continue
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		// The model fills the middle of the frame; the corner is the
		// clear colour.
		r, g, b, _ := img.At(0, 0).RGBA()
		cr, cg, cb, _ := img.At(32, 32).RGBA()
		if r>>8 != 46 || g>>8 != 51 || b>>8 != 61 || (cr == r && cg == g && cb == b) {
			t.Errorf("%v: corner %d,%d,%d centre %d,%d,%d: want the clear colour around a drawn model", tc.args, r>>8, g>>8, b>>8, cr>>8, cg>>8, cb>>8)
		}
	}
}
