package ir

import (
	"testing"

	"github.com/tilegpu/tilegpu/compiler/glsl"
)

func TestComputeSmoke(t *testing.T) {
	src := `#version 310 es
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer Data { uint n; uint values[]; } data;
shared uint tmp[8];
void main() {
	uint i = gl_GlobalInvocationID.x;
	tmp[gl_LocalInvocationIndex] = data.values[i] * 2u;
	barrier();
	data.values[i] = tmp[(gl_LocalInvocationIndex + 1u) % 8u] + uint(data.values.length());
	atomicAdd(data.n, 1u);
}
`
	tu, errs := glsl.Parse(glsl.Compute, src)
	if errs != nil {
		t.Fatal(errs)
	}
	f, err := FromAST(tu)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(f.Compute, Dump(f))
	buf := make([]uint32, 17)
	for i := range 16 {
		buf[1+i] = uint32(i)
	}
	if err := Dispatch(f, &DispatchEnv{NumWorkGroups: [3]int{2, 1, 1}, Buffers: map[int][]uint32{0: buf}}); err != nil {
		t.Fatal(err)
	}
	t.Log(buf)
	if err := Run(f, Options{Verify: true}); err != nil {
		t.Fatal(err)
	}
	t.Log(Dump(f))
}
