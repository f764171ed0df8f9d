package tilegpu_test

import (
	"fmt"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/gl"
)

// Render a frame with the GL API and read it back, as README.md shows.
func Example() {
	ctx, err := tilegpu.NewContext(tilegpu.Config{Width: 64, Height: 64})
	if err != nil {
		panic(err)
	}
	defer ctx.Close()
	g := ctx.GL() // a gl.Context: the names and signatures of golang.org/x/mobile/gl
	g.ClearColor(0, 0.5, 1, 1)
	g.Clear(gl.COLOR_BUFFER_BIT)
	img, err := ctx.Image() // the default framebuffer, top row first
	if err != nil {
		panic(err)
	}
	fmt.Println(img.Bounds().Dx(), img.Bounds().Dy(), img.NRGBAAt(10, 10))
	// Output: 64 64 {0 128 255 255}
}
