package ir

import (
	"fmt"
	"math"
)

// Base is the component kind of a value.
type Base uint8

// Component kinds. All are 32 bits wide.
const (
	BaseFloat Base = iota
	BaseInt
	BaseBool
)

func (b Base) String() string {
	switch b {
	case BaseFloat:
		return "f"
	case BaseInt:
		return "i"
	case BaseBool:
		return "b"
	}
	return "?"
}

// Type is a scalar (Width 1) or a vector of 2..4 components. A Type with
// Width 0 means "no value" (stores, discard).
type Type struct {
	Base  Base
	Width uint8
}

// Common types.
var (
	Void  = Type{}
	Float = Type{BaseFloat, 1}
	Int   = Type{BaseInt, 1}
	Bool  = Type{BaseBool, 1}
	Vec4  = Type{BaseFloat, 4}
)

// Vec returns the vector type of n components of kind b (n == 1: scalar).
func Vec(b Base, n int) Type { return Type{b, uint8(n)} }

// Scalar returns the component type of t.
func (t Type) Scalar() Type { return Type{t.Base, 1} }

func (t Type) String() string {
	if t.Width == 0 {
		return "void"
	}
	if t.Width == 1 {
		return t.Base.String() + "32"
	}
	return fmt.Sprintf("%s32x%d", t.Base, t.Width)
}

// Stage is the shader stage a Func is compiled for.
type Stage uint8

// Stages. Coordinate is the vertex shader reduced to position and point size.
const (
	Vertex Stage = iota
	Fragment
	Coordinate
	Compute // GLSL ES 3.10 compute shader (Func.Compute describes it; compute.go)
)

func (s Stage) String() string {
	switch s {
	case Vertex:
		return "vertex"
	case Fragment:
		return "fragment"
	case Coordinate:
		return "coordinate"
	case Compute:
		return "compute"
	}
	return "?"
}

// UniformKind says what the driver writes into one word of a uniform stream.
type UniformKind uint8

// Uniform stream entry kinds (docs/interfaces.md, hardware.md §7.4).
const (
	UniformStorage        UniformKind = iota // storage[Index]: a slot of the program's uniform storage
	UniformConstant                          // Value, a constant the compiler chose
	UniformTexture                           // VA of the descriptor of the texture bound to unit storage[Index]
	UniformStorageAddress                    // VA of a copy of the whole uniform storage block
	// Added by the backend (compiler/backend), never by IR passes:
	UniformScratchAddress // VA of the stage's scratch (spill) area: the shader record's ScratchAddress
	UniformStreamAddress  // VA of word 0 of this uniform stream (to rewind it after a branch)
	// Added by HoistUniformExprs: word Index of the values the pre-shader
	// (PreShader.Eval) computes from the storage once per draw.
	UniformDerived
	// Added by the backend for compute shaders (OpLoadBuffer, …): the VA
	// and the size in bytes of the storage buffer bound at binding Index.
	UniformBufferAddress
	UniformBufferSize
)

func (k UniformKind) String() string {
	switch k {
	case UniformStorage:
		return "storage"
	case UniformConstant:
		return "const"
	case UniformTexture:
		return "texture"
	case UniformStorageAddress:
		return "storage_address"
	case UniformScratchAddress:
		return "scratch_address"
	case UniformStreamAddress:
		return "stream_address"
	case UniformDerived:
		return "derived"
	case UniformBufferAddress:
		return "buffer_address"
	case UniformBufferSize:
		return "buffer_size"
	}
	return "?"
}

// UniformEntry describes one word of a uniform stream.
type UniformEntry struct {
	Kind  UniformKind
	Index uint32 // UniformStorage, UniformTexture: storage slot; UniformDerived: pre-shader output
	Value uint32 // UniformConstant: the word
}

func (u UniformEntry) String() string {
	switch u.Kind {
	case UniformConstant:
		return fmt.Sprintf("const(%#x)", u.Value)
	case UniformStorageAddress, UniformScratchAddress, UniformStreamAddress:
		return u.Kind.String()
	}
	return fmt.Sprintf("%s[%d]", u.Kind, u.Index)
}

// TexKind is the dimensionality of a texture fetch.
type TexKind uint8

// Texture kinds.
const (
	Tex2D   TexKind = iota // args s, t
	TexCube                // args x, y, z (direction)
)

// LodMode says what the optional last argument of a texture fetch is.
type LodMode uint8

// Texture LOD modes.
const (
	LodAuto     LodMode = iota // λ from derivatives; no extra argument
	LodBias                    // extra argument added to λ (TMU_B)
	LodExplicit                // extra argument replaces λ (TMU_LOD)
)

// Node is a control-flow node: *Block, *If or *Loop.
type Node interface{ isNode() }

// Block is straight-line code.
type Block struct {
	Instrs []*Instr
}

// If runs Then in lanes where Cond (a bool scalar) is true and Else in the
// others. Phis merge values: Args[0] from Then, Args[1] from Else (either may
// also be a value defined before the If).
type If struct {
	Cond       *Instr
	Then, Else []Node
	Phis       []*Instr
}

// Loop is a do-while. Phis are loop-carried variables: Args[0] is the value
// on entry, Args[1] the value at the end of an iteration (defined in Body's
// top level or before the loop). Cond, a bool defined in Body's top level,
// says whether the lane runs another iteration. After the loop the phis hold
// their last values; values defined in Body are not visible after the loop.
type Loop struct {
	Phis []*Instr
	Body []Node
	Cond *Instr
}

func (*Block) isNode() {}
func (*If) isNode()    {}
func (*Loop) isNode()  {}

// VarKind says what a Var is. Vars exist only before I/O lowering.
type VarKind uint8

// Variable kinds.
const (
	VarAttribute VarKind = iota // vertex attribute (float components)
	VarVarying                  // varying: written by VS (OpStoreVar), read by FS (OpLoadVar)
	VarUniform                  // uniform (non-sampler leaves and sampler units, flattened)
	VarOutput                   // gl_Position, gl_PointSize, gl_FragColor, gl_FragData
)

func (k VarKind) String() string {
	switch k {
	case VarAttribute:
		return "attribute"
	case VarVarying:
		return "varying"
	case VarUniform:
		return "uniform"
	case VarOutput:
		return "output"
	}
	return "?"
}

// Var is an interface variable of the shader, flattened into Components
// scalar slots (vector components; matrix columns top to bottom; struct
// fields and array elements in order; a sampler is one slot holding its
// texture unit). OpLoadVar/OpStoreVar address slots by Instr.Index.
type Var struct {
	Name       string
	Kind       VarKind
	Components int
	// Bases gives the component kind of every slot (len == Components).
	Bases []Base
	// ColumnSize is N for a matN attribute (column c, row r is slot c·N+r
	// and lives in attribute location base+c); 0 otherwise.
	ColumnSize int
}

// Op is an instruction opcode.
type Op uint8

// Opcodes. Arguments are in Instr.Args; other operands are named per op.
const (
	OpInvalid Op = iota

	// Constants and structure.
	OpConst   // Const[0..Width-1]: component bit patterns
	OpPhi     // Args per If/Loop rules
	OpVec     // compose a vector from scalars/vectors (pre-scalar only)
	OpExtract // component Index of Args[0] (pre-scalar, or of OpTexture)

	// Float arithmetic (componentwise).
	OpFAdd
	OpFSub
	OpFMul
	OpFMin
	OpFMax
	OpFAbs
	OpFNeg
	OpFFloor
	OpFCeil
	OpFTrunc
	OpFFract
	OpFSign
	OpFToI // float → int, truncating, saturating, NaN → 0
	OpIToF // int → float
	OpRcp  // 1/a
	OpRsq  // 1/sqrt(a)
	OpExp2
	OpLog2
	OpFDdx
	OpFDdy

	// Integer arithmetic.
	OpIAdd
	OpISub
	OpIMul // low 32 bits of the product
	OpIShl
	OpIShr // arithmetic
	OpUShr // logical
	OpIAnd
	OpIOr
	OpIXor
	OpINot
	OpIMin
	OpIMax

	// Comparisons (→ bool).
	OpFLt
	OpFGe
	OpFEq
	OpFNe
	OpILt
	OpIGe
	OpIEq
	OpINe

	// Bool logic.
	OpBAnd
	OpBOr
	OpBXor
	OpBNot

	OpSelect // Args[0] (bool) ? Args[1] : Args[2]

	// Intrinsics after I/O lowering.
	OpLoadUniform   // Uniform: the stream entry
	OpLoadAttribute // VPM word 4·Index+Comp (vertex/coordinate)
	OpLoadVarying   // scalar varying Index (fragment)
	OpStoreOutput   // output word Index := Args[0] (VS: 0..3 position, then point size, then varyings; FS: colour 0..3)
	OpFragCoord     // component Index (0 x, 1 y, 2 z, 3 w)
	OpFrontFacing   // bool
	OpPointCoord    // component Index (0 s, 1 t)
	OpTexture       // vec4; Index: sampler storage slot (before I/O lowering: Var slot); Tex, Lod; Args coords [+ bias|lod]
	OpLoadStorage   // TMU direct load of the u32 at address Args[0]
	OpDiscardIf     // discard the lane if Args[0]

	// Before I/O lowering only.
	OpLoadVar  // Var slot Index (+ Args[0] as a dynamic slot offset, if present); vector loads take Width consecutive slots
	OpStoreVar // Var slot Index := Args[0] (Width consecutive slots)

	// Before inlining only (the "inline" pass removes them).
	OpCall       // call Callee with Args (one per Callee.Params); defines no value itself
	OpCallResult // result Index of the OpCall Args[0] (type Callee.Results[Index].Type)
	OpParam      // parameter Index of a callee; lives in Func.Params, never in a block

	// Compute shaders only (Stage Compute; semantics in compute.go and
	// docs/interfaces.md § "IR memory operations"). Every value is one
	// 32-bit scalar; offsets are byte offsets (i32, multiples of 4).
	OpLocalInvocationID // i32: component Index (0 x, 1 y, 2 z) of gl_LocalInvocationID
	OpWorkGroupID       // i32: component Index of gl_WorkGroupID
	OpNumWorkGroups     // i32: component Index of gl_NumWorkGroups
	OpLoadBuffer        // i32/f32: the word at byte offset Args[0] of the storage buffer at binding Index
	OpStoreBuffer       // word at byte offset Args[0] of buffer binding Index := Args[1] (i32 or f32)
	OpBufferSize        // i32: size in bytes of the storage buffer bound at binding Index
	OpLoadShared        // i32/f32: the word at byte offset Args[0] of the work group's shared memory
	OpStoreShared       // shared word at byte offset Args[0] := Args[1] (i32 or f32)
	OpAtomicBuffer      // i32: Atomic on buffer Index's word at Args[0] with Args[1] (AtomicCompSwap: compare Args[1], data Args[2]); value: the old word
	OpAtomicShared      // i32: Atomic on the shared word at Args[0], operands as OpAtomicBuffer
	OpBarrier           // barrier(): every invocation of the work group arrives before any goes on; orders shared and buffer memory
	OpMemoryBarrier     // memoryBarrier*(): Index (MemoryBarrierBits) says which memory; this invocation's earlier stores are visible before its later ones
	OpBitcast           // Args[0]'s bits as the result type (same width, other base): floatBitsToUint and friends

	numOps
)

var opNames = [numOps]string{
	OpInvalid: "invalid", OpConst: "const", OpPhi: "phi", OpVec: "vec", OpExtract: "extract",
	OpFAdd: "fadd", OpFSub: "fsub", OpFMul: "fmul", OpFMin: "fmin", OpFMax: "fmax", OpFAbs: "fabs",
	OpFNeg: "fneg", OpFFloor: "ffloor", OpFCeil: "fceil", OpFTrunc: "ftrunc", OpFFract: "ffract",
	OpFSign: "fsign", OpFToI: "ftoi", OpIToF: "itof", OpRcp: "rcp", OpRsq: "rsq", OpExp2: "exp2",
	OpLog2: "log2", OpFDdx: "fddx", OpFDdy: "fddy",
	OpIAdd: "iadd", OpISub: "isub", OpIMul: "imul", OpIShl: "ishl", OpIShr: "ishr", OpUShr: "ushr",
	OpIAnd: "iand", OpIOr: "ior", OpIXor: "ixor", OpINot: "inot", OpIMin: "imin", OpIMax: "imax",
	OpFLt: "flt", OpFGe: "fge", OpFEq: "feq", OpFNe: "fne", OpILt: "ilt", OpIGe: "ige", OpIEq: "ieq", OpINe: "ine",
	OpBAnd: "band", OpBOr: "bor", OpBXor: "bxor", OpBNot: "bnot", OpSelect: "select",
	OpLoadUniform: "load_uniform", OpLoadAttribute: "load_attribute", OpLoadVarying: "load_varying",
	OpStoreOutput: "store_output", OpFragCoord: "frag_coord", OpFrontFacing: "front_facing",
	OpPointCoord: "point_coord", OpTexture: "texture", OpLoadStorage: "load_storage", OpDiscardIf: "discard_if",
	OpLoadVar: "load_var", OpStoreVar: "store_var",
	OpCall: "call", OpCallResult: "call_result", OpParam: "param",
	OpLocalInvocationID: "local_invocation_id", OpWorkGroupID: "work_group_id", OpNumWorkGroups: "num_work_groups",
	OpLoadBuffer: "load_buffer", OpStoreBuffer: "store_buffer", OpBufferSize: "buffer_size",
	OpLoadShared: "load_shared", OpStoreShared: "store_shared", OpAtomicBuffer: "atomic_buffer",
	OpAtomicShared: "atomic_shared", OpBarrier: "barrier", OpMemoryBarrier: "memory_barrier", OpBitcast: "bitcast",
}

func (o Op) String() string {
	if o < numOps && opNames[o] != "" {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", o)
}

// opInfo: number of arguments (-1: variable) and whether the op is pure
// (no side effects: removable when unused, mergeable by CSE).
type opInfo struct {
	nargs int
	pure  bool
}

var opInfos = [numOps]opInfo{
	OpConst: {0, true}, OpPhi: {-1, false}, OpVec: {-1, true}, OpExtract: {1, true},
	OpFAdd: {2, true}, OpFSub: {2, true}, OpFMul: {2, true}, OpFMin: {2, true}, OpFMax: {2, true},
	OpFAbs: {1, true}, OpFNeg: {1, true}, OpFFloor: {1, true}, OpFCeil: {1, true}, OpFTrunc: {1, true},
	OpFFract: {1, true}, OpFSign: {1, true}, OpFToI: {1, true}, OpIToF: {1, true}, OpRcp: {1, true},
	OpRsq: {1, true}, OpExp2: {1, true}, OpLog2: {1, true}, OpFDdx: {1, true}, OpFDdy: {1, true},
	OpIAdd: {2, true}, OpISub: {2, true}, OpIMul: {2, true}, OpIShl: {2, true}, OpIShr: {2, true},
	OpUShr: {2, true}, OpIAnd: {2, true}, OpIOr: {2, true}, OpIXor: {2, true}, OpINot: {1, true},
	OpIMin: {2, true}, OpIMax: {2, true},
	OpFLt: {2, true}, OpFGe: {2, true}, OpFEq: {2, true}, OpFNe: {2, true},
	OpILt: {2, true}, OpIGe: {2, true}, OpIEq: {2, true}, OpINe: {2, true},
	OpBAnd: {2, true}, OpBOr: {2, true}, OpBXor: {2, true}, OpBNot: {1, true}, OpSelect: {3, true},
	OpLoadUniform: {0, true}, OpLoadAttribute: {0, true}, OpLoadVarying: {0, true},
	OpStoreOutput: {1, false}, OpFragCoord: {0, true}, OpFrontFacing: {0, true}, OpPointCoord: {0, true},
	OpTexture: {-1, true}, OpLoadStorage: {1, true}, OpDiscardIf: {1, false},
	OpLoadVar: {-1, true}, OpStoreVar: {1, false},
	OpCall: {-1, false}, OpCallResult: {1, true}, OpParam: {0, true},
	// Loads are not pure: a store between two loads of one address changes
	// the second, so CSE, DCE and LICM must leave them in place.
	OpLocalInvocationID: {0, true}, OpWorkGroupID: {0, true}, OpNumWorkGroups: {0, true},
	OpLoadBuffer: {1, false}, OpStoreBuffer: {2, false}, OpBufferSize: {0, true},
	OpLoadShared: {1, false}, OpStoreShared: {2, false}, OpAtomicBuffer: {-1, false},
	OpAtomicShared: {-1, false}, OpBarrier: {0, false}, OpMemoryBarrier: {0, false}, OpBitcast: {1, true},
}

// NumArgs returns the fixed argument count of o, or -1 if it varies.
func (o Op) NumArgs() int { return opInfos[o].nargs }

// IsPure reports whether an instruction with op o has no effect besides its
// value (it may be removed if unused and merged with an identical one).
// Phis are not pure in this sense: they belong to their If/Loop.
func (o Op) IsPure() bool { return opInfos[o].pure }

// IsBackend reports whether o may appear in scalar form (see package doc).
func (o Op) IsBackend() bool {
	return o != OpInvalid && o < numOps && o != OpVec && o != OpLoadVar && o != OpStoreVar &&
		o != OpCall && o != OpCallResult && o != OpParam
}

// Instr is an instruction and the SSA value it defines.
type Instr struct {
	ID   int // unique within the Func; printed as %ID
	Op   Op
	Type Type // Void for stores and discard
	Args []*Instr

	Const   [4]uint32    // OpConst: bit patterns of the components
	Index   int          // op-specific operand (see the Op constants)
	Comp    int          // OpLoadAttribute: component
	Var     *Var         // OpLoadVar, OpStoreVar, OpTexture before I/O lowering
	Uniform UniformEntry // OpLoadUniform
	Tex     TexKind      // OpTexture
	Lod     LodMode      // OpTexture
	Callee  *Func        // OpCall
	Atomic  AtomicOp     // OpAtomicBuffer, OpAtomicShared
}

// IsConst reports whether v is an OpConst.
func (v *Instr) IsConst() bool { return v != nil && v.Op == OpConst }

// ConstF returns component i of a float constant.
func (v *Instr) ConstF(i int) float32 { return math.Float32frombits(v.Const[i]) }

// Func is one shader entry point or, before inlining, one function it calls.
type Func struct {
	Name  string
	Stage Stage
	Body  []Node
	Vars  []*Var // interface variables (before I/O lowering); on the entry point only

	// Funcs are the functions the entry point's OpCalls (and theirs) name,
	// callees before callers; the "inline" pass empties the list. Only the
	// entry point has Funcs.
	Funcs []*Func
	// Params and Results make a Func a callee. Params are OpParam values,
	// Params[i].Index == i, visible throughout Body and placed in no block.
	// Results are values visible at the end of Body's top level (defined
	// there, or parameters); OpCallResult k of a call is Results[k].
	Params  []*Instr
	Results []*Instr

	// Compute describes a compute shader (Stage Compute, entry point only).
	Compute *ComputeInfo

	nextID int
}

// NewFunc returns an empty function.
func NewFunc(name string, stage Stage) *Func {
	return &Func{Name: name, Stage: stage}
}

// NewInstr allocates an instruction with a fresh ID; the caller places it.
func (f *Func) NewInstr(op Op, t Type, args ...*Instr) *Instr {
	f.nextID++
	return &Instr{ID: f.nextID, Op: op, Type: t, Args: args}
}

// NumIDs returns one more than the largest instruction ID handed out, for
// passes that index side tables by ID.
func (f *Func) NumIDs() int { return f.nextID + 1 }

// VarByName returns the interface variable called name, or nil.
func (f *Func) VarByName(name string) *Var {
	for _, v := range f.Vars {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// Walk calls fn for every instruction in program order, including phis
// (If phis after the If's branches, Loop phis before the body).
func (f *Func) Walk(fn func(*Instr)) { walkNodes(f.Body, fn) }

func walkNodes(nodes []Node, fn func(*Instr)) {
	for _, n := range nodes {
		switch n := n.(type) {
		case *Block:
			for _, in := range n.Instrs {
				fn(in)
			}
		case *If:
			walkNodes(n.Then, fn)
			walkNodes(n.Else, fn)
			for _, p := range n.Phis {
				fn(p)
			}
		case *Loop:
			for _, p := range n.Phis {
				fn(p)
			}
			walkNodes(n.Body, fn)
		}
	}
}

// ReplaceUses rewrites every use of a value (instruction args, If/Loop
// conditions) through repl; repl returns its argument for values to keep.
func (f *Func) ReplaceUses(repl func(*Instr) *Instr) { replaceNodes(f.Body, repl) }

func replaceNodes(nodes []Node, repl func(*Instr) *Instr) {
	fix := func(in *Instr) {
		for i, a := range in.Args {
			in.Args[i] = repl(a)
		}
	}
	for _, n := range nodes {
		switch n := n.(type) {
		case *Block:
			for _, in := range n.Instrs {
				fix(in)
			}
		case *If:
			n.Cond = repl(n.Cond)
			replaceNodes(n.Then, repl)
			replaceNodes(n.Else, repl)
			for _, p := range n.Phis {
				fix(p)
			}
		case *Loop:
			for _, p := range n.Phis {
				fix(p)
			}
			replaceNodes(n.Body, repl)
			n.Cond = repl(n.Cond)
		}
	}
}

// FloatBits and friends convert between Go values and 32-bit patterns.
func FloatBits(x float32) uint32 { return math.Float32bits(x) }

// BitsFloat is the inverse of FloatBits.
func BitsFloat(b uint32) float32 { return math.Float32frombits(b) }

// BoolBits is 1 for true and 0 for false.
func BoolBits(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}
