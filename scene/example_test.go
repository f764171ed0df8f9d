package scene_test

import (
	"fmt"

	"github.com/tilegpu/tilegpu"
	"github.com/tilegpu/tilegpu/scene"
)

// Render a glTF model's thumbnail: load it, draw it framed from its front,
// read the image back (encode it with image/png or image/jpeg).
func ExampleDrawModel() {
	m, err := scene.LoadModelFile("testdata/models/Box/Box.gltf")
	if err != nil {
		panic(err)
	}
	ctx, err := tilegpu.NewContext(tilegpu.Config{Width: 128, Height: 128})
	if err != nil {
		panic(err)
	}
	defer ctx.Close()
	st, err := scene.DrawModel(ctx.GL(), m, 128, 128)
	if err != nil {
		panic(err)
	}
	img, err := ctx.Image()
	if err != nil {
		panic(err)
	}
	c := img.NRGBAAt(64, 64) // the red box fills the centre
	fmt.Println(st.Triangles, c.R > 60 && c.G < 20 && c.B < 20)
	// Output: 12 true
}
