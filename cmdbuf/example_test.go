package cmdbuf_test

import (
	"fmt"
	"log"

	"github.com/tilegpu/tilegpu/cmdbuf"
	"github.com/tilegpu/tilegpu/gl"
)

// A service owns the GPU; a client reaches it through a transport (here
// in-process; cmdbuf.Dial("unix:/path") or Dial("tcp:host:port") for a
// `tilegpu serve` process) and draws through gl.Context as usual.
func Example() {
	svc, err := cmdbuf.NewService(cmdbuf.ServiceConfig{MemorySize: 64 << 20, Cores: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer svc.Close()
	t, err := cmdbuf.NewInProcess(svc)
	if err != nil {
		log.Fatal(err)
	}
	c, err := cmdbuf.NewClient(t, cmdbuf.Options{Width: 4, Height: 4})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	var ctx gl.Context = c
	ctx.ClearColor(1, 0.5, 0, 1)
	ctx.Clear(gl.COLOR_BUFFER_BIT)
	img, err := c.Image()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(img.Pix[:4], ctx.GetError() == gl.NO_ERROR)
	// Output: [255 128 0 255] true
}
