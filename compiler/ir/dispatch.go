package ir

import (
	"errors"
	"fmt"
)

// Limits of the reference dispatch. They bound the memory and time one
// Dispatch may take, so a bad program or a bad request ends with an error.
const (
	// MaxDispatchWorkGroups bounds each of NumWorkGroups (ES 3.1's
	// MAX_COMPUTE_WORK_GROUP_COUNT minimum).
	MaxDispatchWorkGroups = 65535
	// MaxDispatchInvocations bounds the invocations of one Dispatch.
	MaxDispatchInvocations = 1 << 22
	// MaxSharedSize bounds Func.Compute.SharedSize (ES 3.1's
	// MAX_COMPUTE_SHARED_MEMORY_SIZE minimum).
	MaxSharedSize = 16384
	// DefaultWaveLanes is the lanes a wave runs in lockstep: the QPU's 16.
	DefaultWaveLanes = 16
	// DefaultDispatchSteps bounds the loop iterations (summed over every
	// loop of every wave) of one Dispatch.
	DefaultDispatchSteps = 1 << 22
)

// DispatchEnv is the input of one Dispatch.
type DispatchEnv struct {
	// NumWorkGroups is glDispatchCompute's (x, y, z); 0 in any runs nothing.
	NumWorkGroups [3]int
	// Buffers holds the storage buffer bound at each binding, as 32-bit
	// words; Dispatch reads and writes them in place. Its size in bytes
	// is 4·len.
	Buffers map[int][]uint32
	// Uniforms as Env gives them: Vars before I/O lowering (one lane),
	// Storage (and StorageAddress, Derived) after.
	Vars           map[string][][]uint32
	Storage        []uint32
	Derived        []uint32
	StorageAddress uint32
	// WaveLanes is how many invocations run in lockstep (1..64; default
	// DefaultWaveLanes). Race-free programs give the same result with any.
	WaveLanes int
	// MaxSteps bounds the loop iterations of the whole dispatch (default
	// DefaultDispatchSteps); MaxIterations those of any one loop, as Env's.
	MaxSteps      int
	MaxIterations int
	// DetectRaces makes two plain accesses of one word by different
	// invocations, at least one a store, an error when no barrier orders
	// them: in one work group between the same two barriers, or in
	// different work groups at all (GLSL leaves such results undefined;
	// on the hardware they depend on timing). Atomics are not tracked. It
	// finds the races of the run's own accesses and may miss some (it
	// remembers the last reader of a word, and whether there were more).
	DetectRaces bool
}

// ErrDispatch is wrapped by every error of Dispatch.
var ErrDispatch = errors.New("ir: dispatch")

// Dispatch runs the compute shader f over NumWorkGroups work groups, the
// work groups one after another (x fastest), and writes its buffer stores
// into env.Buffers. Within a work group the invocations run in waves of
// WaveLanes lanes, in lockstep with per-lane masks exactly like Interpret;
// the waves take turns between barriers: each wave runs until it reaches
// an OpBarrier (or the end), and only when every wave stands at that same
// barrier do they go on. So every shared or buffer store before a barrier
// is seen by every load after it, and a program whose invocations reach
// barriers differently (barrier() in non-uniform control flow) is an
// error, as is an access outside a buffer or shared memory.
//
// Invocation i of a work group is lane i%WaveLanes of wave i/WaveLanes,
// with local ID (i % X, i / X % Y, i / (X·Y)) for local size (X, Y, Z).
func Dispatch(f *Func, env *DispatchEnv) error {
	if f.Stage != Compute || f.Compute == nil {
		return fmt.Errorf("%w: %s is a %s shader, not a compute shader", ErrDispatch, f.Name, f.Stage)
	}
	c := f.Compute
	n := c.Invocations()
	for i, s := range c.LocalSize {
		if s < 1 {
			return fmt.Errorf("%w: local size %c is %d", ErrDispatch, "xyz"[i], s)
		}
	}
	if n > 1024 {
		return fmt.Errorf("%w: %d invocations per work group (at most 1024)", ErrDispatch, n)
	}
	if c.SharedSize < 0 || c.SharedSize > MaxSharedSize || c.SharedSize%4 != 0 {
		return fmt.Errorf("%w: shared memory of %d bytes (want a multiple of 4, at most %d)", ErrDispatch, c.SharedSize, MaxSharedSize)
	}
	groups := 1
	for i, g := range env.NumWorkGroups {
		if g < 0 || g > MaxDispatchWorkGroups {
			return fmt.Errorf("%w: %d work groups in %c (want 0..%d)", ErrDispatch, g, "xyz"[i], MaxDispatchWorkGroups)
		}
		groups *= g
		if groups*n > MaxDispatchInvocations {
			return fmt.Errorf("%w: more than %d invocations", ErrDispatch, MaxDispatchInvocations)
		}
	}
	for _, b := range c.Buffers {
		buf, ok := env.Buffers[b.Binding]
		if !ok {
			return fmt.Errorf("%w: no buffer bound at binding %d (block %s)", ErrDispatch, b.Binding, b.Name)
		}
		if 4*len(buf) < b.FixedSize {
			return fmt.Errorf("%w: buffer at binding %d (block %s) has %d bytes, the block needs at least %d",
				ErrDispatch, b.Binding, b.Name, 4*len(buf), b.FixedSize)
		}
	}
	lanes := env.WaveLanes
	if lanes == 0 {
		lanes = DefaultWaveLanes
	}
	if lanes < 1 || lanes > 64 {
		return fmt.Errorf("%w: %d wave lanes (want 1..64)", ErrDispatch, lanes)
	}
	d := &dispatcher{f: f, env: env, lanes: lanes, maxSteps: env.MaxSteps}
	if d.maxSteps <= 0 {
		d.maxSteps = DefaultDispatchSteps
	}
	d.steps = d.maxSteps
	d.shared = make([]uint32, c.SharedSize/4)
	if env.DetectRaces {
		d.sharedRaces = make([]wordAccess, len(d.shared))
		d.bufferRaces = map[int][]wordAccess{}
		for b, words := range env.Buffers {
			d.bufferRaces[b] = make([]wordAccess, len(words))
		}
	}
	for z := 0; z < env.NumWorkGroups[2]; z++ {
		for y := 0; y < env.NumWorkGroups[1]; y++ {
			for x := 0; x < env.NumWorkGroups[0]; x++ {
				if err := d.group([3]int{x, y, z}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

type dispatcher struct {
	f        *Func
	env      *DispatchEnv
	lanes    int
	steps    int // loop iterations left
	maxSteps int
	shared   []uint32
	group3   [3]int // the work group running
	// Race detection (DetectRaces): the access history of every word,
	// and the barrier interval: a number that grows at every barrier and
	// every new work group.
	sharedRaces []wordAccess
	bufferRaces map[int][]wordAccess
	phase       int32
	groupIndex  int32 // flat index of the work group running
}

// wordAccess is the access history of one word for race detection.
// Invocations are numbered 1 + groupIndex·invocations + local index.
type wordAccess struct {
	writer, writerPhase int32
	reader, readerPhase int32
	readers             bool // more than one invocation read it in readerPhase
}

// wave is one lockstep group of invocations and the goroutine running it;
// only one wave's goroutine runs at a time (the dispatcher hands the turn
// over through resume and events), so they share memory without locks.
type wave struct {
	d       *dispatcher
	first   int // invocation index of lane 0
	lanes   int
	all     uint64
	resume  chan bool // true: go on past the barrier; false: abort
	events  chan waveEvent
	running bool
}

// waveEvent is what a wave reports when it gives up its turn.
type waveEvent struct {
	barrier *Instr // the OpBarrier it waits at; nil when it finished
	err     error
}

var errAborted = errors.New("ir: dispatch: wave aborted")

func (w *wave) step() error {
	w.d.steps--
	if w.d.steps < 0 {
		return fmt.Errorf("%w: more than %d loop iterations", ErrDispatch, w.d.maxSteps)
	}
	return nil
}

func (d *dispatcher) group(g [3]int) error {
	d.group3 = g
	n3 := d.env.NumWorkGroups
	d.groupIndex = int32((g[2]*n3[1]+g[1])*n3[0] + g[0])
	d.phase++
	clear(d.shared)
	clear(d.sharedRaces)
	n := d.f.Compute.Invocations()
	var waves []*wave
	for first := 0; first < n; first += d.lanes {
		w := &wave{d: d, first: first, lanes: min(d.lanes, n-first),
			resume: make(chan bool, 1), events: make(chan waveEvent, 1)}
		w.all = uint64(1)<<w.lanes - 1
		if w.lanes == 64 {
			w.all = ^uint64(0)
		}
		waves = append(waves, w)
	}
	// abort ends every wave still waiting for its turn.
	abort := func(err error) error {
		for _, w := range waves {
			if w.running {
				w.resume <- false
				<-w.events
				w.running = false
			}
		}
		return err
	}
	done := make([]bool, len(waves))
	for _, w := range waves {
		w.running = true
		go w.run()
	}
	for {
		var at *Instr
		finished := 0
		for i, w := range waves {
			if done[i] {
				finished++
				continue
			}
			w.resume <- true
			ev := <-w.events
			if ev.err != nil {
				w.running = false
				return abort(ev.err)
			}
			if ev.barrier == nil {
				done[i] = true
				w.running = false
				finished++
				continue
			}
			if at != nil && at != ev.barrier {
				return abort(d.errorf(w, "waves wait at different barriers (%s and %s): barrier() in non-uniform control flow", at, ev.barrier))
			}
			at = ev.barrier
		}
		if finished == len(waves) {
			return nil
		}
		if finished > 0 {
			return abort(d.errorf(nil, "some invocations finished while others wait at %s: barrier() in non-uniform control flow", at))
		}
		d.phase++
	}
}

func (d *dispatcher) errorf(w *wave, format string, args ...any) error {
	where := fmt.Sprintf("work group (%d,%d,%d)", d.group3[0], d.group3[1], d.group3[2])
	if w != nil {
		where += fmt.Sprintf(" invocations %d..%d", w.first, w.first+w.lanes-1)
	}
	return fmt.Errorf("%w: %s: %s", ErrDispatch, where, fmt.Sprintf(format, args...))
}

// run interprets the whole function for this wave, waiting for its turn
// first and at every barrier.
func (w *wave) run() {
	if !<-w.resume {
		w.events <- waveEvent{err: errAborted}
		return
	}
	d := w.d
	env := &Env{Lanes: w.lanes, Vars: d.env.Vars, Storage: d.env.Storage, Derived: d.env.Derived,
		StorageAddress: d.env.StorageAddress, MaxIterations: d.env.MaxIterations}
	it := &interp{f: d.f, stage: d.f.Stage, env: env, vals: make([][]uint32, d.f.NumIDs()),
		res:  &Result{Outputs: make([][]uint32, w.lanes), Discarded: make([]bool, w.lanes), Vars: map[string][][]uint32{}},
		wave: w}
	it.maxIter = env.MaxIterations
	if it.maxIter <= 0 {
		it.maxIter = 1 << 16
	}
	err := it.nodes(d.f.Body, w.all)
	if err != nil && !errors.Is(err, ErrDispatch) && !errors.Is(err, errAborted) {
		err = d.errorf(w, "%v", err)
	}
	w.events <- waveEvent{err: err}
}

// barrier gives up the wave's turn at b and waits for the next.
func (w *wave) barrier(b *Instr, mask uint64) error {
	if mask == 0 {
		return nil // no lane takes this path
	}
	if mask != w.all {
		return w.d.errorf(w, "%s reached by only some invocations of a wave (lanes %#x of %#x): barrier() in non-uniform control flow",
			b, mask, w.all)
	}
	w.events <- waveEvent{barrier: b}
	if !<-w.resume {
		return errAborted
	}
	return nil
}

// localID returns the local invocation ID of a lane.
func (w *wave) localID(lane int) [3]uint32 {
	s := w.d.f.Compute.LocalSize
	i := w.first + lane
	return [3]uint32{uint32(i % s[0]), uint32(i / s[0] % s[1]), uint32(i / (s[0] * s[1]))}
}

// computeInstr interprets the compute ops for the active lanes of a wave.
func (it *interp) computeInstr(in *Instr, mask uint64, dst []uint32) error {
	w := it.wave
	if w == nil {
		return fmt.Errorf("%w: %s outside a compute dispatch (use Dispatch)", errBadProgram, in)
	}
	d := w.d
	L := it.env.Lanes
	// mem returns the words an op addresses and the word index of lane l.
	mem := func(l int) ([]uint32, int, error) {
		var words []uint32
		switch in.Op {
		case OpLoadBuffer, OpStoreBuffer, OpAtomicBuffer:
			var ok bool
			words, ok = d.env.Buffers[in.Index]
			if !ok {
				return nil, 0, d.errorf(w, "%s: no buffer bound at binding %d", in, in.Index)
			}
		default:
			words = d.shared
		}
		off := int64(int32(it.get(in.Args[0], 0, l)))
		if off%4 != 0 || off < 0 || off/4 >= int64(len(words)) {
			return nil, 0, d.errorf(w, "%s: invocation %d: byte offset %d outside %s (%d bytes)", in, w.first+l, off, memoryName(in), 4*len(words))
		}
		return words, int(off / 4), nil
	}
	for l := 0; l < L; l++ {
		if mask&(1<<l) == 0 && in.Op != OpLocalInvocationID && in.Op != OpWorkGroupID &&
			in.Op != OpNumWorkGroups && in.Op != OpBufferSize {
			continue
		}
		switch in.Op {
		case OpLocalInvocationID:
			dst[l] = w.localID(l)[in.Index%3]
		case OpWorkGroupID:
			dst[l] = uint32(d.group3[in.Index%3])
		case OpNumWorkGroups:
			dst[l] = uint32(d.env.NumWorkGroups[in.Index%3])
		case OpBufferSize:
			dst[l] = uint32(4 * len(d.env.Buffers[in.Index]))
		case OpLoadBuffer, OpLoadShared:
			words, i, err := mem(l)
			if err != nil {
				return err
			}
			if err := d.track(w, in, l, i, false); err != nil {
				return err
			}
			dst[l] = words[i]
		case OpStoreBuffer, OpStoreShared:
			words, i, err := mem(l)
			if err != nil {
				return err
			}
			if err := d.track(w, in, l, i, true); err != nil {
				return err
			}
			words[i] = it.get(in.Args[1], 0, l)
		case OpAtomicBuffer, OpAtomicShared:
			words, i, err := mem(l)
			if err != nil {
				return err
			}
			var b uint32
			if len(in.Args) > 2 {
				b = it.get(in.Args[2], 0, l)
			}
			dst[l] = words[i]
			words[i] = EvalAtomic(in.Atomic, words[i], it.get(in.Args[1], 0, l), b)
		case OpMemoryBarrier:
			// Every store is visible at once in the reference.
		case OpBarrier:
			return w.barrier(in, mask)
		default:
			return fmt.Errorf("%w: cannot interpret %s", errBadProgram, in)
		}
	}
	if in.Op == OpBarrier {
		return w.barrier(in, 0)
	}
	return nil
}

// track records a plain access of word i by lane l of wave w and reports
// a race with an earlier access (DispatchEnv.DetectRaces).
func (d *dispatcher) track(w *wave, in *Instr, l, i int, write bool) error {
	var hist []wordAccess
	if in.Op == OpLoadShared || in.Op == OpStoreShared {
		hist = d.sharedRaces
	} else {
		hist = d.bufferRaces[in.Index]
	}
	if hist == nil {
		return nil
	}
	n := int32(d.f.Compute.Invocations())
	me := 1 + d.groupIndex*n + int32(w.first+l)
	a := &hist[i]
	// unordered: other touched the word with no barrier between it and me.
	unordered := func(other, phase int32) bool {
		return other != 0 && other != me && (phase == d.phase || (other-1)/n != d.groupIndex)
	}
	verb := "reads"
	if write {
		verb = "writes"
	}
	race := func(other int32, did string) error {
		return d.errorf(w, "data race: invocation %d %s byte offset %d of %s, which invocation %d of work group %d %s with no barrier() between them",
			w.first+l, verb, 4*i, memoryName(in), (other-1)%n, (other-1)/n, did)
	}
	if unordered(a.writer, a.writerPhase) {
		return race(a.writer, "wrote")
	}
	if write {
		if a.reader != 0 && a.readers && a.readerPhase == d.phase {
			return race(a.reader, "(and others) read")
		}
		if unordered(a.reader, a.readerPhase) {
			return race(a.reader, "read")
		}
		a.writer, a.writerPhase = me, d.phase
		return nil
	}
	switch {
	case a.reader == 0 || a.readerPhase != d.phase:
		a.readers = false
	case a.reader != me:
		a.readers = true
	}
	a.reader, a.readerPhase = me, d.phase
	return nil
}

// memoryName names the memory a memory op accesses, for errors.
func memoryName(in *Instr) string {
	switch in.Op {
	case OpLoadShared, OpStoreShared, OpAtomicShared:
		return "shared memory"
	}
	return fmt.Sprintf("the buffer at binding %d", in.Index)
}
