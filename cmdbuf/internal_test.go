package cmdbuf

import (
	"math/rand"
	"testing"

	"github.com/tilegpu/tilegpu/bench"
	"github.com/tilegpu/tilegpu/gl"
)

func TestTokenPassedAcrossWrap(t *testing.T) {
	for _, tc := range []struct {
		t, last uint32
		want    bool
	}{
		{5, 5, true},
		{5, 6, true},
		{6, 5, false},
		{tokenMask, 0, true},      // last wrapped past the token
		{tokenMask, 3, true},      // and further
		{0, tokenMask, false},     // the token is after the wrap, last before it
		{2, tokenMask - 1, false}, // likewise
		{tokenMask - 10, tokenMask, true},
		{1, 1 + tokenHalf - 1, true},
		{1, 1 + tokenHalf, false}, // more than 2^30 apart reads as "ahead"
	} {
		if got := tokenPassed(tc.t, tc.last); got != tc.want {
			t.Errorf("tokenPassed(%d, %d) = %v, want %v", tc.t, tc.last, got, tc.want)
		}
	}
	if nextToken(tokenMask) != 0 || nextToken(0) != 1 {
		t.Error("nextToken does not wrap at 2^31")
	}
}

// TestTokensThroughServiceAcrossWrap inserts and waits for tokens on a real
// service while the token counter wraps at 2^31.
func TestTokensThroughServiceAcrossWrap(t *testing.T) {
	s, err := NewService(ServiceConfig{MemorySize: 64 << 20, Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tr, _ := NewInProcess(s)
	c, err := NewClient(tr, Options{Width: 1, Height: 1, TransferSize: 4096, MaxTransferSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.token = tokenMask - 5
	c.lastToken = c.token
	var toks []uint32
	for range 12 {
		toks = append(toks, c.InsertToken())
	}
	if toks[4] != tokenMask || toks[5] != 0 {
		t.Fatalf("tokens %v do not wrap at 2^31", toks)
	}
	if tokenPassed(toks[11], c.lastToken) {
		t.Fatal("token reported passed before the service saw it")
	}
	c.WaitForToken(toks[11])
	for _, tk := range toks {
		if !tokenPassed(tk, c.lastToken) {
			t.Errorf("token %d not passed after waiting for %d (last %d)", tk, toks[11], c.lastToken)
		}
	}
	// Transfer-buffer blocks freed pending tokens on both sides of the wrap
	// are reclaimed: upload more than the 4 KiB buffer many times over.
	b := c.CreateBuffer()
	c.BindBuffer(gl.ARRAY_BUFFER, b)
	c.BufferInit(gl.ARRAY_BUFFER, 64<<10, gl.STATIC_DRAW)
	data := make([]byte, 64<<10)
	for i := range data {
		data[i] = byte(i * 7)
	}
	c.BufferSubData(gl.ARRAY_BUFFER, 0, data)
	if c.GetError() != gl.NO_ERROR || c.Err() != nil {
		t.Fatalf("upload across the token wrap failed: %v", c.Err())
	}
}

// fakeTokens is a token source for the allocator: tokens pass when the
// test says so; waitToken passes everything up to the token.
type fakeTokens struct {
	next, last uint32
	waits      int
}

func (f *fakeTokens) insert() uint32 { f.next = nextToken(f.next); return f.next }
func (f *fakeTokens) wait(t uint32) {
	f.waits++
	f.last = t
}

func TestRingAllocator(t *testing.T) {
	ft := &fakeTokens{}
	r := newRingAllocator(1024, ft.wait, func() uint32 { return ft.last })
	a := r.alloc(400)
	b := r.alloc(400)
	if a != 0 || b != 400 {
		t.Fatalf("first blocks at %d, %d", a, b)
	}
	r.freePendingToken(a, ft.insert())
	r.freePendingToken(b, ft.insert())
	// 224 bytes left at the end: a 300-byte block must wrap, padding the
	// tail, and wait for the first block's token (but not the second's).
	c := r.alloc(300)
	if c != 0 {
		t.Fatalf("wrapped block at %d, want 0", c)
	}
	if ft.waits != 1 || ft.last != 1 {
		t.Fatalf("waits=%d last=%d, want one wait for token 1", ft.waits, ft.last)
	}
	var padding, pending, inuse int
	for _, bl := range r.live() {
		switch bl.state {
		case blockPadding:
			padding++
			if bl.off != 800 || bl.size != 224 {
				t.Errorf("padding block %+v, want 800+224", bl)
			}
		case blockFreePendingToken:
			pending++
		case blockInUse:
			inuse++
		}
	}
	if padding != 1 || pending != 1 || inuse != 1 {
		t.Errorf("blocks %+v: want one padding, one pending, one in use", r.live())
	}
	r.freePendingToken(c, ft.insert())
	// A passed token is reclaimed without waiting.
	ft.last = 3
	if got := r.largestFreeNoWait(); got != 1024 {
		t.Errorf("largest free after all tokens passed = %d, want 1024", got)
	}
	// allocUpTo takes what is free rather than waiting.
	x := r.alloc(512)
	r.freePendingToken(x, ft.insert())
	off, got := r.allocUpTo(1000)
	if off != 512 || got != 512 || ft.waits != 1 {
		t.Errorf("allocUpTo(1000) = %d+%d (waits %d), want 512+512 without waiting", off, got, ft.waits)
	}
}

// TestRingAllocatorStreaming checks that no two live blocks overlap and the
// block list stays bounded over a long stream of odd-sized allocations.
func TestRingAllocatorStreaming(t *testing.T) {
	ft := &fakeTokens{}
	r := newRingAllocator(4096, ft.wait, func() uint32 { return ft.last })
	for i := range 20000 {
		size := 16 + (i*37)%1500
		off := r.alloc(size)
		if off%allocAlign != 0 || off+size > 4096 {
			t.Fatalf("block %d at %d+%d outside the buffer", i, off, size)
		}
		for _, b := range r.live()[:len(r.live())-1] {
			if b.state != blockPadding && off < b.off+b.size && b.off < off+size {
				t.Fatalf("block %d at %d+%d overlaps live block %+v", i, off, size, b)
			}
		}
		r.freePendingToken(off, ft.insert())
		if i%5 == 0 {
			ft.last = ft.next - 3 // the service lags a few tokens behind
		}
	}
	if cap(r.blocks) > 512 {
		t.Errorf("block deque grew to %d", cap(r.blocks))
	}
}

// TestRingWrapsWithNoop: a small ring wraps many times; commands never
// straddle the end (the helper pads with Noop) and the service follows.
func TestRingWrapsWithNoop(t *testing.T) {
	s, err := NewService(ServiceConfig{MemorySize: 64 << 20, Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tr, _ := NewInProcess(s)
	c, err := NewClient(tr, Options{Width: 4, Height: 4, RingSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	wraps := 0
	for i := range 5000 {
		before := c.put
		c.ClearColor(1, 0, float32(i), 1) // 5 entries: 1024 is not a multiple
		if c.put < before {
			wraps++
		}
	}
	c.ClearColor(0, 1, 0, 1)
	c.Clear(gl.COLOR_BUFFER_BIT)
	img, err := c.Image()
	if err != nil {
		t.Fatal(err)
	}
	if wraps < 10 {
		t.Errorf("ring wrapped %d times", wraps)
	}
	if img.Pix[1] != 255 || img.Pix[0] != 0 {
		t.Errorf("pixel %v after wrapping, want green", img.Pix[:4])
	}
	if e := c.GetError(); e != gl.NO_ERROR {
		t.Errorf("GetError = 0x%x", e)
	}
}

// TestFrameWithoutQueryHasNoRoundTrip: encoding a frame (draws, uniforms,
// flush) never waits for the service; queries GL lets the client cache
// (limits, strings, uniform locations of a linked program, bindings and
// capabilities it set) wait at most once.
func TestFrameWithoutQueryHasNoRoundTrip(t *testing.T) {
	s, err := NewService(ServiceConfig{MemorySize: 64 << 20, Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tr, _ := NewInProcess(s)
	c, err := NewClient(tr, Options{Width: 32, Height: 32})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	vs := "attribute vec2 p; void main(){ gl_Position = vec4(p, 0.0, 1.0); }"
	fs := "precision mediump float; uniform vec4 u_color; void main(){ gl_FragColor = u_color; }"
	prog := c.CreateProgram()
	for _, sh := range []struct {
		ty  gl.Enum
		src string
	}{{gl.VERTEX_SHADER, vs}, {gl.FRAGMENT_SHADER, fs}} {
		s := c.CreateShader(sh.ty)
		c.ShaderSource(s, sh.src)
		c.CompileShader(s)
		c.AttachShader(prog, s)
	}
	c.BindAttribLocation(prog, gl.Attrib{Value: 0}, "p")
	c.LinkProgram(prog)
	c.UseProgram(prog)
	loc := c.GetUniformLocation(prog, "u_color")
	if loc.Value < 0 {
		t.Fatalf("u_color not found: %s", c.GetProgramInfoLog(prog))
	}
	c.GetInteger(gl.MAX_TEXTURE_SIZE)
	c.GetString(gl.RENDERER)
	vbo := c.CreateBuffer()
	c.BindBuffer(gl.ARRAY_BUFFER, vbo)
	c.BufferData(gl.ARRAY_BUFFER, make([]byte, 32), gl.STATIC_DRAW)
	c.EnableVertexAttribArray(gl.Attrib{Value: 0})
	c.VertexAttribPointer(gl.Attrib{Value: 0}, 2, gl.FLOAT, false, 0, 0)
	c.Disable(gl.BLEND)

	before := c.RoundTrips()
	for f := range 20 {
		c.Clear(gl.COLOR_BUFFER_BIT)
		for k := range 50 {
			c.Uniform4f(c.GetUniformLocation(prog, "u_color"), float32(k)/50, 0, float32(f)/20, 1)
			c.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
		}
		_ = c.GetInteger(gl.MAX_TEXTURE_SIZE)
		_ = c.GetString(gl.RENDERER)
		if c.IsEnabled(gl.BLEND) || c.GetInteger(gl.ARRAY_BUFFER_BINDING) != int(vbo.Value) {
			t.Fatal("cached state is wrong")
		}
		c.Flush()
	}
	if n := c.RoundTrips() - before; n != 0 {
		t.Errorf("20 frames without queries made %d round trips", n)
	}
	c.Finish()
	if n := c.RoundTrips() - before; n != 1 {
		t.Errorf("Finish made %d round trips, want 1", n)
	}
	if e := c.GetError(); e != gl.NO_ERROR {
		t.Errorf("GetError = 0x%x", e)
	}
}

// TestTransferBufferGrowsAndShrinks: a large upload grows the transfer
// buffer (up to its maximum, then it goes in pieces); frames of small
// uploads shrink it back to its starting size, one halving per Finish.
func TestTransferBufferGrowsAndShrinks(t *testing.T) {
	s, err := NewService(ServiceConfig{MemorySize: 64 << 20, Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tr, _ := NewInProcess(s)
	c, err := NewClient(tr, Options{Width: 1, Height: 1, TransferSize: 64 << 10, MaxTransferSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := c.CreateBuffer()
	c.BindBuffer(gl.ARRAY_BUFFER, b)
	c.BufferData(gl.ARRAY_BUFFER, make([]byte, 300<<10), gl.STATIC_DRAW)
	if got := c.TransferBufferSize(); got != 1<<20 {
		t.Errorf("after a 300 KiB upload the transfer buffer is %d bytes, want 1 MiB (twice, rounded to a power of two, capped)", got)
	}
	c.BufferData(gl.ARRAY_BUFFER, make([]byte, 3<<20), gl.STATIC_DRAW) // beyond the maximum: in pieces
	if got := c.TransferBufferSize(); got != 1<<20 {
		t.Errorf("transfer buffer %d bytes, want its 1 MiB maximum", got)
	}
	c.Finish()
	sizes := []int{}
	for range 6 {
		c.BufferSubData(gl.ARRAY_BUFFER, 0, make([]byte, 1024))
		c.Finish()
		sizes = append(sizes, c.TransferBufferSize())
	}
	if sizes[len(sizes)-1] != 64<<10 {
		t.Errorf("transfer buffer sizes over small frames %v, want a shrink to 64 KiB", sizes)
	}
	var v [1]int32
	c.GetIntegerv(v[:], gl.ARRAY_BUFFER_BINDING)
	if v[0] != int32(b.Value) {
		t.Errorf("ARRAY_BUFFER_BINDING = %d, want the client's name %d", v[0], b.Value)
	}
	if e := c.GetError(); e != gl.NO_ERROR || c.Err() != nil {
		t.Fatalf("GetError 0x%x, Err %v", e, c.Err())
	}
}

// TestDecodeDoesNotAllocate: decoding and executing small commands costs
// no heap allocation per command.
func TestDecodeDoesNotAllocate(t *testing.T) {
	s, err := NewService(ServiceConfig{MemorySize: 64 << 20, Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ss, err := s.connect("test")
	if err != nil {
		t.Fatal(err)
	}
	defer ss.close()
	ring := make([]byte, 4096)
	if err := ss.registerBuffer(1, ring); err != nil {
		t.Fatal(err)
	}
	if err := ss.start(1, 4, 4); err != nil {
		t.Fatal(err)
	}
	e := entries(ring)
	n := 0
	for n+12 < len(e) {
		e[n], e[n+1], e[n+2], e[n+3], e[n+4] = header(5, CmdBlendColor), 0, 0, 0, 0x3f800000
		e[n+5], e[n+6], e[n+7], e[n+8], e[n+9] = header(5, CmdClearColor), 0, 0, 0, 0x3f800000
		e[n+10], e[n+11] = header(2, CmdSetToken), 7
		n += 12
	}
	d := ss.dec
	d.process(0, uint32(n)) // warm up the scratch buffers
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := d.process(0, uint32(n)); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per run of %d commands", allocs, 3*n/12)
	}
}

// TestStateCacheMatchesService runs random binding, deletion, capability
// and texture-unit calls (valid and invalid) and checks after each that
// every answer the client gives from its cache equals the service's.
func TestStateCacheMatchesService(t *testing.T) {
	s, err := NewService(ServiceConfig{MemorySize: 64 << 20, Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tr, _ := NewInProcess(s)
	c, err := NewClient(tr, Options{Width: 4, Height: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rng := rand.New(rand.NewSource(7))
	var names []uint32
	for range 4 {
		names = append(names, c.CreateBuffer().Value, c.CreateFramebuffer().Value, c.CreateRenderbuffer().Value)
	}
	name := func() uint32 {
		if rng.Intn(5) == 0 {
			return 0
		}
		if rng.Intn(8) == 0 {
			return 900 + uint32(rng.Intn(3)) // never created: ES 2.0 binds create
		}
		return names[rng.Intn(len(names))]
	}
	caps := []gl.Enum{gl.BLEND, gl.CULL_FACE, gl.DEPTH_TEST, gl.DITHER, gl.SCISSOR_TEST, gl.STENCIL_TEST, gl.SAMPLE_COVERAGE, 0x1234}
	pick := func(e ...gl.Enum) gl.Enum { return e[rng.Intn(len(e))] }
	pnames := []gl.Enum{gl.ARRAY_BUFFER_BINDING, gl.ELEMENT_ARRAY_BUFFER_BINDING, gl.FRAMEBUFFER_BINDING, gl.RENDERBUFFER_BINDING, gl.ACTIVE_TEXTURE}
	before := c.RoundTrips()
	hits := 0
	for i := range 1500 {
		switch rng.Intn(10) {
		case 0:
			c.BindBuffer(pick(gl.ARRAY_BUFFER, gl.ELEMENT_ARRAY_BUFFER, 0x1234), gl.Buffer{Value: name()})
		case 1:
			c.DeleteBuffer(gl.Buffer{Value: name()})
		case 2:
			c.BindFramebuffer(pick(gl.FRAMEBUFFER, 0x8CA8, 0x1), gl.Framebuffer{Value: name()})
		case 3:
			c.DeleteFramebuffer(gl.Framebuffer{Value: name()})
		case 4:
			c.BindRenderbuffer(pick(gl.RENDERBUFFER, 0x1), gl.Renderbuffer{Value: name()})
		case 5:
			c.DeleteRenderbuffer(gl.Renderbuffer{Value: name()})
		case 6:
			c.Enable(caps[rng.Intn(len(caps))])
		case 7:
			c.Disable(caps[rng.Intn(len(caps))])
		case 8:
			c.ActiveTexture(gl.TEXTURE0 + gl.Enum(rng.Intn(40)))
		case 9:
			if rng.Intn(20) == 0 {
				c.GetInteger(gl.MAX_COMBINED_TEXTURE_IMAGE_UNITS)
			}
		}
		for _, p := range pnames {
			rt := c.RoundTrips()
			got := c.GetInteger(p)
			if c.RoundTrips() == rt {
				hits++
			}
			v, _ := c.getv(func() { c.cmdGetIntegerv(p, resultID, 0) })
			if got != int(int32(v[0])) {
				t.Fatalf("step %d: GetInteger(0x%x) = %d from the client, %d from the service", i, p, got, int32(v[0]))
			}
		}
		for _, cp := range caps[:7] {
			got := c.IsEnabled(cp)
			if want := c.query1(func() { c.cmdIsEnabled(cp, resultID, 0) }) != 0; got != want {
				t.Fatalf("step %d: IsEnabled(0x%x) = %v from the client, %v from the service", i, cp, got, want)
			}
		}
		c.GetError()
	}
	if hits < 1000 {
		t.Errorf("only %d of %d binding queries answered from the cache", hits, 1500*len(pnames))
	}
	t.Logf("%d round trips; %d binding queries answered from the cache", c.RoundTrips()-before, hits)
}

// TestProgramInfoMatchesService compares every answer the client gives
// from program info with the service's own answer (and GL error) for
// linked, failed, unlinked and nonexistent programs, and checks that a
// linked program's queries cost one round trip in all.
func TestProgramInfoMatchesService(t *testing.T) {
	s, err := NewService(ServiceConfig{MemorySize: 64 << 20, Cores: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tr, _ := NewInProcess(s)
	c, err := NewClient(tr, Options{Width: 4, Height: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sh := bench.Shaders()
	build := func(vs, fs string) gl.Program {
		p := c.CreateProgram()
		for _, x := range []struct {
			ty  gl.Enum
			src string
		}{{gl.VERTEX_SHADER, vs}, {gl.FRAGMENT_SHADER, fs}} {
			s := c.CreateShader(x.ty)
			c.ShaderSource(s, x.src)
			c.CompileShader(s)
			c.AttachShader(p, s)
		}
		c.LinkProgram(p)
		return p
	}
	arrays := `uniform vec4 u_arr[3]; uniform mat4 u_m; attribute vec4 a_pos; attribute float a_w;
void main(){ gl_Position = u_m * a_pos * a_w + u_arr[0] + u_arr[2]; }`
	progs := map[string]gl.Program{
		"phong":     build(sh["VS_PHONG"], sh["FS_PHONG"]),
		"tex":       build(sh["VS_FLAT"], sh["FS_TEX"]),
		"arrays":    build(arrays, "precision mediump float; void main(){ gl_FragColor = vec4(1.0); }"),
		"failed":    build(sh["VS_FLAT"], "void main(){ gl_FragColor = undefined_thing; }"),
		"unlinked":  c.CreateProgram(),
		"not there": {Init: true, Value: 4321},
	}
	serviceActive := func(p gl.Program, i uint32, uniform bool) (string, int, gl.Enum) {
		if uniform {
			c.cmdGetActiveUniform(p, i, downloadBucket, resultID, 4)
		} else {
			c.cmdGetActiveAttrib(p, i, downloadBucket, resultID, 4)
		}
		name, _ := c.readBucket()
		return name, int(int32(c.res32(1))), gl.Enum(c.res32(2))
	}
	serviceLoc := func(p gl.Program, name string, uniform bool) int32 {
		c.setBucketString(name)
		if uniform {
			c.query(func() { c.cmdGetUniformLocation(p, uploadBucket, resultID, 0) })
		} else {
			c.query(func() { c.cmdGetAttribLocation(p, uploadBucket, resultID, 0) })
		}
		return int32(c.res32(0))
	}
	for what, p := range progs {
		c.GetError()
		for _, pname := range []gl.Enum{gl.LINK_STATUS, gl.ACTIVE_ATTRIBUTES, gl.ACTIVE_UNIFORMS} {
			got, e1 := c.GetProgrami(p, pname), c.GetError()
			want, e2 := int(int32(c.query1(func() { c.cmdGetProgrami(p, pname, resultID, 0) }))), c.GetError()
			if got != want || e1 != e2 {
				t.Errorf("%s: GetProgrami(0x%x) = %d (error 0x%x), service %d (0x%x)", what, pname, got, e1, want, e2)
			}
		}
		names := []string{"nonexistent", "u_arr[1]", "u_arr[3]", "u_arr", "a_w"}
		for _, uniform := range []bool{false, true} {
			for i := uint32(0); i < 6; i++ {
				n1, s1, t1 := c.getActive(p, i, uniform)
				e1 := c.GetError()
				n2, s2, t2 := serviceActive(p, i, uniform)
				e2 := c.GetError()
				if n1 != n2 || s1 != s2 || t1 != t2 || e1 != e2 {
					t.Errorf("%s: active %v %d = %q %d 0x%x (0x%x), service %q %d 0x%x (0x%x)", what, uniform, i, n1, s1, t1, e1, n2, s2, t2, e2)
				}
				if n1 != "" {
					names = append(names, n1)
				}
			}
			for _, name := range names {
				var got int32
				if uniform {
					got = c.GetUniformLocation(p, name).Value
				} else {
					got = int32(c.GetAttribLocation(p, name).Value)
				}
				e1 := c.GetError()
				want := serviceLoc(p, name, uniform)
				e2 := c.GetError()
				if got != want || e1 != e2 {
					t.Errorf("%s: location of %q (uniform %v) = %d (0x%x), service %d (0x%x)", what, name, uniform, got, e1, want, e2)
				}
			}
		}
	}
	// A freshly linked program: status, every active uniform and its
	// location, one round trip.
	p := build(sh["VS_PHONG"], sh["FS_PHONG"])
	c.Finish()
	before := c.RoundTrips()
	if c.GetProgrami(p, gl.LINK_STATUS) != 1 {
		t.Fatal("phong did not link")
	}
	n := c.GetProgrami(p, gl.ACTIVE_UNIFORMS)
	for i := range n {
		name, _, _ := c.GetActiveUniform(p, uint32(i))
		if c.GetUniformLocation(p, name).Value < 0 {
			t.Errorf("uniform %q has no location", name)
		}
	}
	if rt := c.RoundTrips() - before; rt != 1 || n < 3 {
		t.Errorf("link status + %d uniforms and locations took %d round trips, want 1", n, rt)
	}
}
