package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tilegpu/tilegpu/pal"
)

// bufferFlags collects -buf BINDING=WORDS[:INIT] flags.
type bufferFlags map[int][]uint32

func (b bufferFlags) String() string { return "" }

// Set parses BINDING=N (N zero words), BINDING=N:seq (0, 1, … N−1) or
// BINDING=w0,w1,… (the words, decimal or 0x hex).
func (b bufferFlags) Set(v string) error {
	k, rest, ok := strings.Cut(v, "=")
	bind, err := strconv.Atoi(k)
	if !ok || err != nil || bind < 0 || bind >= pal.MaxStorageBuffers {
		return fmt.Errorf("want BINDING=... with a binding 0..%d", pal.MaxStorageBuffers-1)
	}
	if _, dup := b[bind]; dup {
		return fmt.Errorf("binding %d given twice", bind)
	}
	const maxWords = 1 << 22
	if n, init, _ := strings.Cut(rest, ":"); !strings.Contains(rest, ",") {
		count, err := strconv.Atoi(n)
		if err != nil || count < 1 || count > maxWords {
			return fmt.Errorf("binding %d: %q is not a word count 1..%d", bind, n, maxWords)
		}
		words := make([]uint32, count)
		switch init {
		case "", "zero":
		case "seq":
			for i := range words {
				words[i] = uint32(i)
			}
		default:
			return fmt.Errorf("binding %d: initial contents %q (zero or seq)", bind, init)
		}
		b[bind] = words
		return nil
	}
	var words []uint32
	for _, f := range strings.Split(rest, ",") {
		w, err := strconv.ParseUint(strings.TrimSpace(f), 0, 32)
		if err != nil {
			return fmt.Errorf("binding %d: %q is not a 32-bit word", bind, f)
		}
		words = append(words, uint32(w))
	}
	b[bind] = words
	return nil
}

// cmdCompute is `tilegpu compute [-groups X,Y,Z] -buf BINDING=... FILE.comp`:
// it compiles a GLSL ES 3.10 compute shader, runs one dispatch on the
// virtual GPU's COMPUTE engine through pal, and prints every buffer
// afterwards (8 words a line, in hex).
func cmdCompute(args []string) error {
	fs := flag.NewFlagSet("compute", flag.ContinueOnError)
	fs.SetOutput(stderr)
	groups := fs.String("groups", "1,1,1", "workgroups to dispatch: X[,Y[,Z]]")
	bufs := bufferFlags{}
	fs.Var(bufs, "buf", "a storage buffer: BINDING=N (N zero words), BINDING=N:seq (0..N-1) or BINDING=w0,w1,... (repeatable)")
	decimal := fs.Bool("d", false, "print the words in decimal instead of hex")
	listing := fs.Bool("S", false, "also print the compiled code")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: tilegpu compute [-groups X,Y,Z] [-buf BINDING=...]... [-d] [-S] FILE.comp\n"+
			"Runs one dispatch of a GLSL ES 3.10 compute shader on the virtual GPU and prints its buffers.\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return exitError(2)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitError(2)
	}
	var n [3]uint32
	parts := strings.Split(*groups, ",")
	if len(parts) > 3 {
		return fmt.Errorf("-groups %q: at most three dimensions", *groups)
	}
	for i := range n {
		n[i] = 1
		if i < len(parts) {
			v, err := strconv.ParseUint(strings.TrimSpace(parts[i]), 10, 32)
			if err != nil {
				return fmt.Errorf("-groups %q: %q is not a count", *groups, parts[i])
			}
			n[i] = uint32(v)
		}
	}
	src, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	plat, err := pal.NewPlatform(pal.PlatformCreateInfo{MemorySize: 256 << 20})
	if err != nil {
		return err
	}
	defer plat.Destroy()
	dev := plat.Devices()[0]
	pipe, err := dev.CreateComputePipeline(pal.ComputePipelineCreateInfo{Shader: string(src)})
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	if *listing {
		fmt.Fprint(stdout, pipe.Listing())
	}
	code, err := dev.CreateGpuMemory(pal.GpuMemoryCreateInfo{Size: pipe.GpuMemoryRequirements().Size})
	if err != nil {
		return err
	}
	if err := pipe.BindGpuMemory(code, 0); err != nil {
		return err
	}
	resident := []*pal.GpuMemory{code}
	alloc, err := dev.CreateCmdAllocator(pal.CmdAllocatorCreateInfo{})
	if err != nil {
		return err
	}
	cb, err := dev.CreateCmdBuffer(pal.CmdBufferCreateInfo{Allocator: alloc, Engine: pal.EngineCompute})
	if err != nil {
		return err
	}
	if err := cb.Begin(); err != nil {
		return err
	}
	bindings := make([]int, 0, len(bufs))
	for b := range bufs {
		bindings = append(bindings, b)
	}
	sort.Ints(bindings)
	maps := map[int][]byte{}
	for _, b := range bindings {
		words := bufs[b]
		m, err := dev.CreateGpuMemory(pal.GpuMemoryCreateInfo{Size: uint64(4 * len(words))})
		if err != nil {
			return err
		}
		bytes, err := m.Map()
		if err != nil {
			return err
		}
		for i, w := range words {
			binary.LittleEndian.PutUint32(bytes[4*i:], w)
		}
		maps[b] = bytes
		resident = append(resident, m)
		if err := cb.CmdBindStorageBuffers(b, []pal.BufferView{{Memory: m, Size: uint64(4 * len(words))}}); err != nil {
			return err
		}
	}
	for _, err := range []error{cb.CmdBindComputePipeline(pipe), cb.CmdDispatch(n[0], n[1], n[2]), cb.End()} {
		if err != nil {
			return err
		}
	}
	queue, err := dev.CreateQueue(pal.QueueCreateInfo{Engine: pal.EngineCompute})
	if err != nil {
		return err
	}
	fence := dev.CreateFence()
	start := time.Now()
	if err := queue.Submit(pal.SubmitInfo{CmdBuffers: []*pal.CmdBuffer{cb}, GpuMemoryRefs: resident, Fence: fence}); err != nil {
		return err
	}
	if err := fence.Wait(10 * time.Minute); err != nil {
		return err
	}
	ls := pipe.LocalSize()
	fmt.Fprintf(stdout, "dispatched %d×%d×%d workgroups of %d×%d×%d in %v\n", n[0], n[1], n[2], ls[0], ls[1], ls[2], time.Since(start).Round(time.Microsecond))
	for _, b := range bindings {
		words := len(bufs[b])
		fmt.Fprintf(stdout, "binding %d (%d words):\n", b, words)
		for i := 0; i < words; i++ {
			w := binary.LittleEndian.Uint32(maps[b][4*i:])
			switch {
			case i%8 == 0:
				fmt.Fprintf(stdout, "%6d:", i)
			}
			if *decimal {
				fmt.Fprintf(stdout, " %10d", w)
			} else {
				fmt.Fprintf(stdout, " %08x", w)
			}
			if i%8 == 7 || i == words-1 {
				fmt.Fprintln(stdout)
			}
		}
	}
	return nil
}
