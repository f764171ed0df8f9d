package glsl

import (
	"strconv"
	"strings"
)

// Shader storage blocks and shared variables of GLSL ES 3.10 compute
// shaders, laid out by std430 rules (OpenGL ES 3.1 §7.6.2.2) here in the
// front end, so that everything after it sees only byte offsets.

// Compute memory limits: the values of GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS
// and GL_MAX_COMPUTE_SHARED_MEMORY_SIZE this implementation reports
// (OpenGL ES 3.1's minimum maxima; the reference dispatch, ir.Dispatch,
// allocates the shared memory of one work group at a time).
const (
	MaxShaderStorageBufferBindings = 8
	MaxComputeSharedMemorySize     = 16384
	// MaxBufferBlockSize bounds the fixed part of one buffer block, so
	// that offsets stay far from overflowing int32.
	MaxBufferBlockSize = 1 << 28
)

// BufferBlock is one shader storage block:
//
//	layout(std430, binding = N) [memory qualifiers] buffer Name { members } [instance];
type BufferBlock struct {
	Name    string
	Binding int
	Layout  BlockLayout
	// Type is the block as a structure (Type.Struct.Name is the block
	// name); an instance name is a Variable of this type.
	Type *Type
	// Offsets are the byte offsets of the members (by Layout's rules).
	Offsets []int
	// FixedSize is the size of the members before a runtime-sized last
	// member (of all members when there is none).
	FixedSize int
	// Stride is the array stride of the runtime-sized last member; 0 if
	// the block has none.
	Stride int
	// Readonly and Writeonly are the block's memory qualifiers;
	// MemberReadonly those of each member.
	Readonly, Writeonly bool
	MemberReadonly      []bool
	Line                int
}

// HasRuntimeArray reports whether the last member is runtime-sized.
func (b *BufferBlock) HasRuntimeArray() bool { return b.Stride > 0 }

// BlockLayout is the layout rules of a buffer block (OpenGL ES 3.1
// §7.6.2.2); shared variables are laid out by Std430.
type BlockLayout uint8

// Block layouts. A block without one, or with "shared" or "packed" (whose
// offsets the implementation picks), gets Std430.
const (
	Std430 BlockLayout = iota
	Std140             // arrays, their strides and structures aligned to 16 bytes
)

func (l BlockLayout) String() string {
	if l == Std140 {
		return "std140"
	}
	return "std430"
}

// Align returns the base alignment of t in bytes.
func (l BlockLayout) Align(t *Type) int {
	switch {
	case t.IsScalar():
		return 4
	case t.IsVector():
		if t.Size() == 2 {
			return 8
		}
		return 16
	case t.IsMatrix():
		// A matrix is an array of its columns.
		return l.Align(ArrayOf(t.Column(), t.Size()))
	case t.Kind == Array:
		return l.round16(l.Align(t.Elem))
	case t.Kind == Struct:
		a := 4
		for _, f := range t.Struct.Fields {
			a = max(a, l.Align(f.Type))
		}
		return l.round16(a)
	}
	return 4
}

func (l BlockLayout) round16(n int) int {
	if l == Std140 {
		return roundUp(n, 16)
	}
	return n
}

// Stride returns the array stride of elements of type t.
func (l BlockLayout) Stride(t *Type) int {
	return roundUp(l.Size(t), l.Align(&Type{Kind: Array, Elem: t, Len: 1}))
}

// Size returns the size of t in bytes (0 for a runtime-sized array;
// saturating at 1<<40 for absurd types).
func (l BlockLayout) Size(t *Type) int {
	switch {
	case t.IsScalar():
		return 4
	case t.IsVector():
		return 4 * t.Size()
	case t.IsMatrix():
		return t.Size() * l.MatrixStride(t)
	case t.Kind == Array:
		return satMul(t.Len, l.Stride(t.Elem))
	case t.Kind == Struct:
		off := 0
		for _, f := range t.Struct.Fields {
			off = min(roundUp(off, l.Align(f.Type))+l.Size(f.Type), 1<<40)
		}
		return roundUp(off, l.Align(t))
	}
	return 0
}

// Offsets returns the byte offsets of a structure's fields.
func (l BlockLayout) Offsets(st *StructType) []int {
	offs := make([]int, len(st.Fields))
	off := 0
	for i, f := range st.Fields {
		off = roundUp(off, l.Align(f.Type))
		offs[i] = off
		off = min(off+l.Size(f.Type), 1<<40)
	}
	return offs
}

// MatrixStride is the byte distance between a matrix's columns.
func (l BlockLayout) MatrixStride(t *Type) int { return l.Stride(t.Column()) }

// Std430Align and the other Std430 functions are Std430's methods.
func Std430Align(t *Type) int            { return Std430.Align(t) }
func Std430Stride(t *Type) int           { return Std430.Stride(t) }
func Std430Size(t *Type) int             { return Std430.Size(t) }
func Std430Offsets(st *StructType) []int { return Std430.Offsets(st) }
func Std430MatrixStride(t *Type) int     { return Std430.MatrixStride(t) }

func roundUp(n, a int) int { return (n + a - 1) / a * a }

// memoryType reports whether t may live in a buffer block or shared
// memory: no samplers, no void.
func memoryType(t *Type) bool { return !t.ContainsSampler() && t.Kind != Void }

// sharedDeclaration parses "shared [precision] type name [size], ... ;" at
// global scope and places the variables in the work group's shared memory.
func (p *parser) sharedDeclaration() {
	p.next() // shared
	q := p.qualifiers()
	if q.storage != StorageLocal || q.invariant {
		p.errorf(q.line, q.tok, "only a precision qualifier may follow 'shared'")
	}
	ty, _ := p.typeSpecifierNoPrec()
	for {
		nameTok := p.ident()
		vt := ty
		if p.accept("[") {
			if ty.Kind == Array {
				p.errorf(nameTok.line, nameTok.text, "arrays of arrays are not allowed")
			}
			if p.is("]") {
				p.errorf(nameTok.line, nameTok.text, "shared arrays must have a size")
				vt = ArrayOf(ty, 1)
			} else {
				vt = ArrayOf(ty, p.arraySize())
			}
			p.expect("]")
		}
		if !memoryType(vt) {
			p.errorf(nameTok.line, nameTok.text, "shared variables cannot be "+vt.String())
		}
		if p.is("=") {
			p.errorf(p.peek().line, nameTok.text, "shared variables cannot have initializers")
			p.next()
			p.assignment()
		}
		p.checkNewName(nameTok)
		v := &Variable{Name: nameTok.text, Type: vt, Storage: StorageShared, Global: true, Line: nameTok.line}
		v.Precision = p.resolvePrecision(nameTok.line, nameTok.text, vt, q.prec)
		off := roundUp(p.unit.SharedSize, Std430Align(vt))
		size := Std430Size(vt)
		if off+size > MaxComputeSharedMemorySize {
			p.errorf(nameTok.line, nameTok.text, "shared variables need "+strconv.Itoa(min(off+size, 1<<31))+
				" bytes, more than GL_MAX_COMPUTE_SHARED_MEMORY_SIZE = "+strconv.Itoa(MaxComputeSharedMemorySize))
		} else {
			v.Offset = off
			p.unit.SharedSize = off + size
		}
		p.declare(nameTok, v)
		p.unit.Shared = append(p.unit.Shared, v)
		if !p.accept(",") {
			break
		}
	}
	p.expect(";")
}

// bufferBlock parses "{memory qualifier} buffer Name { members } [instance] ;"
// after its layout qualifier (lq: zero if none).
func (p *parser) bufferBlock(lq layoutQuals) {
	blk := &BufferBlock{Binding: lq.binding, Layout: lq.layout}
	for _, id := range lq.ids {
		if strings.HasPrefix(id.text, "local_size_") {
			p.errorf(id.line, id.text, "layout qualifier "+id.text+" does not apply to a buffer block")
		}
	}
	for memoryQualifiers[p.peek().text] {
		switch p.next().text {
		case "readonly":
			blk.Readonly = true
		case "writeonly":
			blk.Writeonly = true
		}
	}
	// Without std430 or std140 the block has ES 3.10's default layout,
	// "shared", whose offsets the implementation picks: std430's.
	p.expect("buffer")
	nameTok := p.ident()
	p.checkNewName(nameTok)
	blk.Name, blk.Line = nameTok.text, nameTok.line
	for _, b := range p.unit.Buffers {
		if b.Binding == blk.Binding {
			p.errorf(nameTok.line, nameTok.text, "binding "+strconv.Itoa(blk.Binding)+" is already used by buffer block "+b.Name)
		}
		if b.Name == blk.Name {
			p.errorf(nameTok.line, nameTok.text, "redefinition of buffer block "+b.Name)
		}
	}
	p.expect("{")
	st := &StructType{Name: blk.Name, Line: nameTok.line}
	seen := map[string]bool{}
	runtimeLine := 0
	for !p.is("}") {
		ro := false
		for memoryQualifiers[p.peek().text] && p.peek().kind == tIdent {
			if p.next().text == "readonly" {
				ro = true
			}
		}
		mq := p.qualifiers()
		if mq.storage != StorageLocal || mq.invariant {
			p.errorf(mq.line, mq.tok, "qualifiers other than precision and memory qualifiers are not allowed on block members")
		}
		mt, _ := p.typeSpecifierNoPrec()
		for {
			nt := p.ident()
			ft := mt
			if p.accept("[") {
				if mt.Kind == Array {
					p.errorf(nt.line, nt.text, "arrays of arrays are not allowed")
				}
				if p.is("]") {
					ft = &Type{Kind: Array, Elem: mt} // runtime-sized
				} else {
					ft = ArrayOf(mt, p.arraySize())
				}
				p.expect("]")
			}
			if runtimeLine > 0 {
				p.errorf(runtimeLine, st.Fields[len(st.Fields)-1].Name, "only the last member of a buffer block may be a runtime-sized array")
				runtimeLine = 0
			}
			if ft.IsRuntimeArray() {
				runtimeLine = nt.line
			}
			if !memoryType(ft) {
				p.errorf(nt.line, nt.text, "buffer block members cannot be "+ft.String())
			}
			if seen[nt.text] {
				p.errorf(nt.line, nt.text, "duplicate member name in buffer block")
			}
			seen[nt.text] = true
			p.checkNewName(nt)
			prec := p.resolvePrecision(nt.line, nt.text, ft, mq.prec)
			st.Fields = append(st.Fields, Field{Name: nt.text, Type: ft, Precision: prec})
			blk.MemberReadonly = append(blk.MemberReadonly, ro)
			if !p.accept(",") {
				break
			}
		}
		p.expect(";")
	}
	p.expect("}")
	if len(st.Fields) == 0 {
		p.errorf(nameTok.line, nameTok.text, "buffer block has no members")
	}
	blk.Type = &Type{Kind: Struct, Struct: st}
	blk.Offsets = blk.Layout.Offsets(st)
	if n := len(st.Fields); n > 0 && st.Fields[n-1].Type.IsRuntimeArray() {
		blk.FixedSize = blk.Offsets[n-1]
		blk.Stride = blk.Layout.Stride(st.Fields[n-1].Type.Elem)
	} else {
		blk.FixedSize = blk.Layout.Size(blk.Type)
	}
	if blk.FixedSize > MaxBufferBlockSize {
		p.errorf(nameTok.line, nameTok.text, "buffer block too large: "+strconv.Itoa(blk.FixedSize)+" bytes, more than this implementation's limit of "+
			strconv.Itoa(MaxBufferBlockSize))
	}
	p.unit.Buffers = append(p.unit.Buffers, blk)
	if p.peek().kind == tIdent && !keywords[p.peek().text] {
		inst := p.ident()
		if p.is("[") {
			p.syntax(p.peek(), "arrays of buffer blocks are not supported")
		}
		p.checkNewName(inst)
		v := &Variable{Name: inst.text, Type: blk.Type, Storage: StorageBuffer, Global: true, Line: inst.line, Block: blk, Member: -1}
		p.declare(inst, v)
	} else {
		for i, f := range st.Fields {
			v := &Variable{Name: f.Name, Type: f.Type, Storage: StorageBuffer, Global: true, Line: nameTok.line,
				Precision: f.Precision, Block: blk, Offset: blk.Offsets[i], Member: i}
			p.declare(token{kind: tIdent, text: f.Name, line: nameTok.line}, v)
		}
	}
	p.expect(";")
}
