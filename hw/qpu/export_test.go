package qpu

import (
	"fmt"
	"math"
	"reflect"
	"strings"
)

// archState is everything a program can observe or leave behind in a core
// and its batch: registers, accumulators, flags, the SFU pipeline, the
// stream positions, the TMU FIFO and staging, and the batch's results. The
// translator's scratch (res, valA, valB) is not architectural.
type archState struct {
	Regs                [64][Lanes]uint32
	Acc                 [6][Lanes]uint32
	FlagZ, FlagN, FlagC uint16
	SFUDelay            int
	SFUVal              [Lanes]uint32
	UnifPtr             uint32
	VaryNext            int
	VPMRead, VPMWrite   int
	FIFO                [tmuDepth]tmuResult
	FIFOHead, FIFOLen   int
	FIFOPop             int
	StoreData           [Lanes]uint32
	Tex                 [4][Lanes]uint32 // S, T, R, LOD or bias staged, as bits
	TexFlags            [3]bool
	TexMask             uint16
	Color               [4][Lanes]uint32
	Z                   [Lanes]uint32
	ZWritten            bool
	Kill                uint16
	Instructions        uint64
	VPMOut              []uint32
	Err                 string
}

func bitsOf(f []float32) []uint32 {
	r := make([]uint32, len(f))
	for k, v := range f {
		r[k] = math.Float32bits(v)
	}
	return r
}

func snapshot(c *Core, b *Batch, err error) archState {
	s := archState{Regs: c.regs, Acc: c.acc, FlagZ: c.flagZ, FlagN: c.flagN, FlagC: c.flagC,
		SFUDelay: c.sfuDelay, SFUVal: c.sfuVal, UnifPtr: c.unifPtr, VaryNext: c.varyNext,
		VPMRead: c.vpmRead, VPMWrite: c.vpmWrite, FIFO: c.fifo, FIFOHead: c.fifoHead,
		FIFOLen: c.fifoLen, FIFOPop: c.fifoPop, StoreData: c.storeData,
		TexFlags: [3]bool{c.tex.HasBias, c.tex.HasLOD, c.tex.Derivatives}, TexMask: c.tex.Mask,
		ZWritten: b.ZWritten, Kill: b.Kill, Instructions: b.Instructions, VPMOut: bitsOf(b.VPMOut)}
	for k := range b.Color {
		copy(s.Color[k][:], bitsOf(b.Color[k][:]))
	}
	copy(s.Z[:], bitsOf(b.Z[:]))
	for k, a := range []*[Lanes]float32{&c.tex.S, &c.tex.T, &c.tex.R, &c.tex.LOD} {
		copy(s.Tex[k][:], bitsOf(a[:]))
	}
	if c.tex.HasBias {
		copy(s.Tex[3][:], bitsOf(c.tex.Bias[:]))
	}
	if err != nil {
		s.Err = err.Error()
	}
	return s
}

// diffStates describes the fields in which two states differ ("" if none).
func diffStates(want, got archState) string {
	var d []string
	wv, gv := reflect.ValueOf(want), reflect.ValueOf(got)
	for k := 0; k < wv.NumField(); k++ {
		if !reflect.DeepEqual(wv.Field(k).Interface(), gv.Field(k).Interface()) {
			d = append(d, fmt.Sprintf("%s: interpreter %v, translation %v", wv.Type().Field(k).Name,
				wv.Field(k).Interface(), gv.Field(k).Interface()))
		}
	}
	return strings.Join(d, "\n")
}

// DiffRun runs p with the reference interpreter on (ma, ba) and with its
// translation on (mb, bb), each on a fresh core with the given step limit,
// and returns a description of every architectural difference ("" if none)
// and the translated run's error. The caller compares the two memories.
// The translation runs in the default mode (native code where the build
// and CPU have it).
func DiffRun(p *Program, ma, mb Mem, ba, bb *Batch, limit uint64) (diff string, err error) {
	return DiffRunMode(p, ma, mb, ba, bb, limit, ModeDefault)
}

// XlatMode selects how DiffRunMode runs the translation.
type XlatMode int

const (
	ModeDefault    XlatMode = iota // native code with the best ISA the CPU has (AVX2 or SSE2)
	ModeNativeSSE2                 // native code from the SSE2 generator, even with AVX2
	ModeNoNative                   // no native code: runVops and the Go kernels
	NumXlatModes
)

func (m XlatMode) String() string {
	return [...]string{"default", "native SSE2", "no native"}[m]
}

// DiffRunMode is DiffRun with the translation run in mode (if p is not
// translated yet, it is translated with mode's code generator).
func DiffRunMode(p *Program, ma, mb Mem, ba, bb *Batch, limit uint64, mode XlatMode) (diff string, err error) {
	if mode == ModeNativeSSE2 {
		old := nativeAVX2
		nativeAVX2 = false
		Translate(p)
		nativeAVX2 = old
	}
	Translate(p)
	if x := p.xlat.Load(); x != nil && x.native != nil && verifyNativeHook != nil {
		if err := verifyNativeHook(x.native); err != nil {
			return "native code breaks its contract: " + err.Error(), nil
		}
	}
	ci, ct := NewCore(ma), NewCore(mb)
	ci.StepLimit, ct.StepLimit = limit, limit
	ci.Interpreted = true
	ct.NoNative = mode == ModeNoNative
	erri := ci.Run(p, ba)
	errt := ct.Run(p, bb)
	if ct.XlatInstructions > bb.Instructions {
		return fmt.Sprintf("translated instructions %d > instructions %d", ct.XlatInstructions, bb.Instructions), errt
	}
	if ct.NativeInstructions > ct.XlatInstructions {
		return fmt.Sprintf("native instructions %d > translated instructions %d", ct.NativeInstructions, ct.XlatInstructions), errt
	}
	if d := diffStates(snapshot(ci, ba, erri), snapshot(ct, bb, errt)); d != "" {
		return fmt.Sprintf("mode %v:\n%s", mode, d), errt
	}
	if ci.Counts != ct.Counts {
		return fmt.Sprintf("mode %v: counters differ: interpreter %+v, translation %+v", mode, ci.Counts[ba.Stage], ct.Counts[bb.Stage]), errt
	}
	return "", errt
}

// verifyNativeHook checks generated code against the native code
// contract (native_verify_amd64_test.go), where there is native code.
var verifyNativeHook func(*nativeCode) error

// HasNative reports whether p's translation has native code.
func (p *Program) HasNative() bool { x := p.xlat.Load(); return x != nil && x.native != nil }

// CloneBatch copies a batch's inputs into fresh slices.
func CloneBatch(b *Batch) *Batch {
	c := *b
	c.VPMIn = append([]float32(nil), b.VPMIn...)
	c.VPMOut = append([]float32(nil), b.VPMOut...)
	c.Varyings = append([]float32(nil), b.Varyings...)
	if b.Compute.Shared != nil {
		c.Compute.Shared = append([]uint32(nil), b.Compute.Shared...)
	}
	return &c
}
