// Package computeconf is a compute shader conformance suite in the style
// of dEQP-GLES31's compute groups (compute.basic, compute.shared_var): each
// Case is a GLSL ES 3.10 compute shader, the storage buffers it starts
// from, its dispatch size and a checker of what it must leave in the
// buffers, computed here on the CPU.
//
// It carries the compute half of issue 13's "how it is proved": the
// suite's own tests run every case on the reference, compiler/ir.Dispatch
// (from the IR FromAST gives, and after the pass pipeline with 16- and
// 1-lane waves, with race detection on), and a driver runs the same cases
// on the virtual GPU's compute unit (pal's CmdDispatch) by binding each
// buffer at its binding, dispatching NumWorkGroups and handing the
// buffers it reads back to Check. The package depends on nothing but the
// front end's limits, so any layer may import it.
package computeconf

import (
	"fmt"
	"strings"
)

// Case is one conformance case.
type Case struct {
	// Name is "group/case", e.g. "shared_var/prefix_sum".
	Name string
	// Source is the whole compute shader.
	Source string
	// NumWorkGroups is the glDispatchCompute size.
	NumWorkGroups [3]int
	// Buffers returns fresh initial contents of the storage buffers, by
	// binding, as 32-bit little-endian words.
	Buffers func() map[int][]uint32
	// Check compares the buffers after the dispatch (out) with the
	// reference computed from the initial ones (in); nil means they agree.
	Check func(in, out map[int][]uint32) error
}

// Cases returns the whole suite, in a fixed order.
func Cases() []Case {
	groups := []struct {
		name string
		gen  func(*T)
	}{
		{"basic", basic}, {"work_group_size", workGroupSizes}, {"shared_var", sharedVar}, {"atomic", atomics},
		{"integer_ops", integerOps}, {"integer_functions", integerFunctions}, {"extended_arith", extendedArith}, {"bit_casts", bitCasts}, {"arrays", arrays}, {"switch", switchStatement}, {"std430_layout", std430Layout}, {"std140_layout", std140Layout}, {"constant_divisors", constantDivisors},
		{"shared_var_basic_type", sharedVarBasicType}, {"shared_var_atomic", sharedVarAtomic},
		{"ssbo_local_barrier", ssboLocalBarrier}, {"write_multiple_arr", writeMultipleArr},
	}
	var out []Case
	for _, g := range groups {
		g.gen(&T{cases: &out, name: g.name})
	}
	return out
}

// T collects the cases a group generator makes; Run names a sub-case as
// testing.T.Run does, so generators read like table-driven tests.
type T struct {
	cases *[]Case
	name  string
}

// Run runs f for the sub-case name.
func (t *T) Run(name string, f func(t *T)) {
	f(&T{cases: t.cases, name: t.name + "/" + name})
}

// computeCase is a case as the generators write it.
type computeCase struct {
	name    string
	src     string
	groups  [3]int
	buffers func() map[int][]uint32
	check   func(t *Checker, in, out map[int][]uint32)
}

// runComputeCase records c under t's name (and c.name, if set).
func runComputeCase(t *T, c computeCase) {
	name := t.name
	if c.name != "" && !strings.HasSuffix(name, "/"+c.name) {
		name += "/" + c.name
	}
	*t.cases = append(*t.cases, Case{Name: name, Source: c.src, NumWorkGroups: c.groups, Buffers: c.buffers,
		Check: func(in, out map[int][]uint32) error {
			ck := &Checker{}
			ck.run(func() { c.check(ck, in, out) })
			return ck.err()
		}})
}

// Checker collects a checker's failures (with testing.T's Errorf and
// Fatalf, so checkers read like tests).
type Checker struct{ errs []string }

type checkerStop struct{}

// Errorf records a failure.
func (c *Checker) Errorf(format string, args ...any) {
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

// Fatalf records a failure and ends the check.
func (c *Checker) Fatalf(format string, args ...any) {
	c.Errorf(format, args...)
	panic(checkerStop{})
}

func (c *Checker) run(f func()) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(checkerStop); !ok {
				panic(r)
			}
		}
	}()
	f()
}

func (c *Checker) err() error {
	if len(c.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(c.errs, "\n"))
}

// ftoi is the hardware's float → int conversion (compiler/ir.FToI):
// truncation, saturating, NaN → 0.
func ftoi(x float32) int32 {
	switch {
	case x != x:
		return 0
	case x >= 2147483647:
		return 2147483647
	case x <= -2147483648:
		return -2147483648
	}
	return int32(x)
}

// glslFloat writes x as a GLSL float literal.
func glslFloat(x float32) string {
	s := fmt.Sprint(x)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}
