package glsl

import (
	"cmp"
	"fmt"
	"slices"
)

// This file counts a program's varyings and uniforms the way GLSL ES 1.00
// Appendix A §7 defines it: variables are packed into a grid of rows of
// four components, in a fixed order and with fixed placement rules, and a
// set of variables fits a limit of N vectors when the algorithm places all
// of them in N rows. The algorithm is a minimum the implementation must
// accept; Link accepts exactly what it accepts.
//
// The rules, as implemented by packs:
//  1. Variables are taken in the order mat4, mat2, vec4, mat3, vec3, vec2,
//     float (int and bool vectors count as the float vector of the same
//     size), and within each type by array size, largest first. A matN
//     takes N rows; a mat2 takes two full rows (its columns are not packed
//     together). Structures are packed member by member; samplers are not
//     counted (they use texture units).
//  2. Four-component variables take whole rows from the top.
//  3. Three-component variables (vec3, mat3) take columns x..z of the
//     following rows, leaving column w free.
//  4. Two-component variables take columns x, y of the following rows,
//     from the top; one that no longer fits there goes into columns z, w,
//     filled from the bottom row upward.
//  5. Floats, largest array first, each go into the column whose free run
//     of rows that is long enough is the shortest (the lowest column on a
//     tie), at the lowest rows of that run.
//  6. If a variable cannot be placed, the set does not fit.

// packSize caps the sizes the packer computes with, so that absurd array
// sizes saturate instead of overflowing.
const packSize = 1 << 40

// packItem is count identical variables (the same member of each element
// of an array of structures) of one packing class.
type packItem struct {
	class int // position in the packing order, 0 (mat4) .. 6 (float)
	cols  int // components each row of the variable takes: 4, 3, 2 or 1
	rows  int // rows of one variable: rows per element × array length
	count int
}

// packClass returns the packing order, columns and rows per element of a
// non-array, non-structure type; ok is false for samplers.
func packClass(t *Type) (class, cols, rows int, ok bool) {
	switch {
	case t.Kind == Mat4:
		return 0, 4, 4, true
	case t.Kind == Mat2:
		return 1, 4, 2, true
	case t.IsVector() && t.Size() == 4:
		return 2, 4, 1, true
	case t.Kind == Mat3:
		return 3, 3, 3, true
	case t.IsVector() && t.Size() == 3:
		return 4, 3, 1, true
	case t.IsVector() && t.Size() == 2:
		return 5, 2, 1, true
	case t.IsScalar():
		return 6, 1, 1, true
	}
	return 0, 0, 0, false
}

func satMul(a, b int) int {
	if a != 0 && b > packSize/a {
		return packSize
	}
	return min(a*b, packSize)
}

// packItems flattens a variable of type t, repeated count times, into
// packing items.
func packItems(t *Type, count int, out []packItem) []packItem {
	switch t.Kind {
	case Struct:
		for _, f := range t.Struct.Fields {
			out = packItems(f.Type, count, out)
		}
		return out
	case Array:
		if t.Elem.Kind == Struct {
			return packItems(t.Elem, satMul(count, t.Len), out)
		}
		class, cols, rows, ok := packClass(t.Elem)
		if !ok {
			return out
		}
		return append(out, packItem{class: class, cols: cols, rows: satMul(rows, t.Len), count: count})
	}
	class, cols, rows, ok := packClass(t)
	if !ok {
		return out
	}
	return append(out, packItem{class: class, cols: cols, rows: rows, count: count})
}

// PackedVectors returns the number of four-component vectors (rows) that
// variables of the given types occupy under the packing rules of GLSL ES
// 1.00 Appendix A §7: the smallest row count up to limit into which the
// algorithm places them all. When they do not fit in limit rows, ok is
// false and rows is a lower bound greater than limit. Samplers, also inside
// structures, take no rows.
func PackedVectors(types []*Type, limit int) (rows int, ok bool) {
	var items []packItem
	for _, t := range types {
		items = packItems(t, 1, items)
	}
	slices.SortStableFunc(items, func(a, b packItem) int {
		if c := cmp.Compare(a.class, b.class); c != 0 {
			return c
		}
		return cmp.Compare(b.rows, a.rows)
	})
	// Lower bound: every component needs a cell, and a variable's rows
	// are contiguous. Upper bound: with a row count of the sum of all
	// variables' rows every variable fits in rows of its own.
	cells, lower, upper := 0, 0, 0
	for _, it := range items {
		cells = min(cells+satMul(satMul(it.rows, it.cols), it.count), packSize)
		upper = min(upper+satMul(it.rows, it.count), packSize)
		lower = max(lower, it.rows)
	}
	lower = max(lower, (cells+3)/4)
	if lower > limit {
		return lower, false
	}
	upper = min(upper, limit)
	grid := make([]uint8, upper)
	for n := lower; n <= upper; n++ {
		if packs(items, grid[:n]) {
			return n, true
		}
	}
	return limit + 1, false
}

// packs reports whether the sorted items pack into the rows of grid (one
// bit per column, bit 0 = x), which it clears first.
func packs(items []packItem, grid []uint8) bool {
	clear(grid)
	n := len(grid)
	i := 0
	top := 0 // first row not taken by four-component variables
	for ; i < len(items) && items[i].cols == 4; i++ {
		top += satMul(items[i].rows, items[i].count)
		if top > n {
			return false
		}
	}
	for r := 0; r < top; r++ {
		grid[r] = 0b1111
	}
	rows3 := 0
	for ; i < len(items) && items[i].cols == 3; i++ {
		rows3 += satMul(items[i].rows, items[i].count)
		if top+rows3 > n {
			return false
		}
	}
	for r := top; r < top+rows3; r++ {
		grid[r] = 0b0111
	}
	top2 := top + rows3
	freeXY, freeZW := n-top2, n-top2 // rows left in columns x,y (from the top) and z,w (from the bottom)
	for ; i < len(items) && items[i].cols == 2; i++ {
		for range items[i].count {
			switch r := items[i].rows; {
			case r <= freeXY:
				freeXY -= r
			case r <= freeZW:
				freeZW -= r
			default:
				return false
			}
		}
	}
	for r := top2; r < n-freeXY; r++ {
		grid[r] |= 0b0011
	}
	for r := top2 + freeZW; r < n; r++ {
		grid[r] |= 0b1100
	}
	for ; i < len(items); i++ {
		for range items[i].count {
			if !placeFloat(grid, items[i].rows) {
				return false
			}
		}
	}
	return true
}

// placeFloat puts a float variable of the given rows into the column whose
// shortest sufficient free run is the shortest, at the run's top.
func placeFloat(grid []uint8, rows int) bool {
	bestCol, bestTop, bestLen := -1, 0, len(grid)+1
	for c := range 4 {
		bit := uint8(1) << c
		for r := 0; r < len(grid); {
			if grid[r]&bit != 0 {
				r++
				continue
			}
			start := r
			for r < len(grid) && grid[r]&bit == 0 {
				r++
			}
			if l := r - start; l >= rows && l < bestLen {
				bestCol, bestTop, bestLen = c, start, l
			}
		}
	}
	if bestCol < 0 {
		return false
	}
	for r := bestTop; r < bestTop+rows; r++ {
		grid[r] |= 1 << bestCol
	}
	return true
}

// AttributeSlots returns the generic attribute locations a vertex
// attribute of type t takes: N for matN, 1 otherwise (attributes are not
// packed; GLES 2.0 §2.10.4).
func AttributeSlots(t *Type) int {
	if t.IsMatrix() {
		return t.Size()
	}
	return 1
}

// Resources are the packed resource counts of a linked program, as
// CountResources computes them.
type Resources struct {
	AttributeSlots         int // attribute locations of the active attributes (limit MaxVertexAttribs)
	VaryingVectors         int // rows of the active varyings (limit MaxVaryingVectors)
	VertexUniformVectors   int // rows of the vertex shader's active uniforms (limit MaxVertexUniformVectors)
	FragmentUniformVectors int // rows of the fragment shader's active uniforms (limit MaxFragmentUniformVectors)
	VertexSamplers         int // active sampler elements of the vertex shader (limit MaxVertexTextureImageUnits)
	FragmentSamplers       int // active sampler elements of the fragment shader (limit MaxTextureImageUnits)
	CombinedSamplers       int // active sampler elements of both, a uniform in both once (limit MaxCombinedTextureImageUnits)
}

// CountResources counts the active variables of a program and reports a
// link error for each implementation limit they exceed. active says
// whether a global of the unit of the given stage is active (statically
// used after dead code is removed; the caller decides). It counts the
// vertex shader's active attributes, the fragment shader's active
// varyings (those it reads, which Link requires the vertex shader to
// declare), and each stage's active uniforms separately (a uniform both
// use counts in both). Arrays count whole, whatever elements are used.
func CountResources(vs, fs *TranslationUnit, active func(Stage, *Variable) bool) (Resources, ErrorList) {
	var res Resources
	var errs ErrorList
	fail := func(format string, args ...any) {
		errs = append(errs, Error{Msg: fmt.Sprintf(format, args...), Link: true})
	}
	var varyings, vsUniforms, fsUniforms []*Type
	samplerUniforms := map[string]bool{}
	for _, v := range vs.Globals {
		if !active(Vertex, v) {
			continue
		}
		switch v.Storage {
		case StorageAttribute:
			res.AttributeSlots += AttributeSlots(v.Type)
		case StorageUniform:
			vsUniforms = append(vsUniforms, v.Type)
			res.VertexSamplers += samplerCount(v.Type)
			samplerUniforms[v.Name] = true
			res.CombinedSamplers += samplerCount(v.Type)
		}
	}
	for _, v := range fs.Globals {
		if !active(Fragment, v) {
			continue
		}
		switch v.Storage {
		case StorageVarying:
			varyings = append(varyings, v.Type)
		case StorageUniform:
			fsUniforms = append(fsUniforms, v.Type)
			res.FragmentSamplers += samplerCount(v.Type)
			if !samplerUniforms[v.Name] {
				res.CombinedSamplers += samplerCount(v.Type)
			}
		}
	}
	if res.AttributeSlots > MaxVertexAttribs {
		fail("too many vertex attributes: the active attributes take %d locations (a matN takes N), more than GL_MAX_VERTEX_ATTRIBS = %d",
			res.AttributeSlots, MaxVertexAttribs)
	}
	packed := func(what string, types []*Type, limit int, limitName string) int {
		n, ok := PackedVectors(types, limit)
		if !ok {
			fail("too many %s: they do not pack into %s = %d vectors (GLSL ES 1.00 Appendix A §7), at least %d are needed",
				what, limitName, limit, n)
		}
		return n
	}
	res.VaryingVectors = packed("varyings", varyings, MaxVaryingVectors, "GL_MAX_VARYING_VECTORS")
	res.VertexUniformVectors = packed("uniforms in the vertex shader", vsUniforms, MaxVertexUniformVectors,
		"GL_MAX_VERTEX_UNIFORM_VECTORS")
	res.FragmentUniformVectors = packed("uniforms in the fragment shader", fsUniforms, MaxFragmentUniformVectors,
		"GL_MAX_FRAGMENT_UNIFORM_VECTORS")
	if res.VertexSamplers > MaxVertexTextureImageUnits {
		fail("too many samplers in the vertex shader: %d, more than GL_MAX_VERTEX_TEXTURE_IMAGE_UNITS = %d",
			res.VertexSamplers, MaxVertexTextureImageUnits)
	}
	if res.FragmentSamplers > MaxTextureImageUnits {
		fail("too many samplers in the fragment shader: %d, more than GL_MAX_TEXTURE_IMAGE_UNITS = %d",
			res.FragmentSamplers, MaxTextureImageUnits)
	}
	// The combined limit is not repeated when one stage alone exceeds its own.
	if res.CombinedSamplers > MaxCombinedTextureImageUnits &&
		res.VertexSamplers <= MaxVertexTextureImageUnits && res.FragmentSamplers <= MaxTextureImageUnits {
		fail("too many samplers: the two shaders use %d, more than GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS = %d",
			res.CombinedSamplers, MaxCombinedTextureImageUnits)
	}
	return res, errs
}

// samplerCount returns the number of sampler elements in a value of type t.
func samplerCount(t *Type) int {
	switch t.Kind {
	case Sampler2D, SamplerCube:
		return 1
	case Array:
		return satMul(t.Len, samplerCount(t.Elem))
	case Struct:
		n := 0
		for _, f := range t.Struct.Fields {
			n = min(n+samplerCount(f.Type), packSize)
		}
		return n
	}
	return 0
}
