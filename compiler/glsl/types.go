package glsl

import (
	"fmt"
	"strings"
)

// Kind classifies a Type. Scalars, vectors and matrices each have their own
// kind so that a Type of those kinds needs no other field.
type Kind uint8

// Type kinds. The order within each scalar family (Float, Vec2, Vec3, Vec4)
// is relied upon: the vector size is the offset from the scalar kind + 1.
const (
	Void Kind = iota
	Float
	Vec2
	Vec3
	Vec4
	Int
	IVec2
	IVec3
	IVec4
	Bool
	BVec2
	BVec3
	BVec4
	Mat2
	Mat3
	Mat4
	Sampler2D
	SamplerCube
	Struct // Type.Struct describes the fields
	Array  // Type.Elem and Type.Len describe the elements
	// GLSL ES 3.10 only (compute shaders); appended so that the kinds
	// above keep their values. Same order rule: UVecN is Uint + N − 1.
	Uint
	UVec2
	UVec3
	UVec4
)

var kindNames = [...]string{"void", "float", "vec2", "vec3", "vec4", "int", "ivec2", "ivec3", "ivec4",
	"bool", "bvec2", "bvec3", "bvec4", "mat2", "mat3", "mat4", "sampler2D", "samplerCube", "struct", "array",
	"uint", "uvec2", "uvec3", "uvec4"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Type is a GLSL ES 1.00 type. Types of the basic kinds are shared singletons
// (TypeFloat, ...); compare types with Equal, never with ==, because array
// types are built on demand. Types are immutable after the checker built them
// and safe for concurrent reads.
type Type struct {
	Kind   Kind
	Elem   *Type       // Array: element type (never itself an array in GLSL ES 1.00)
	Len    int         // Array: number of elements (> 0; 0 for the runtime-sized last member of a buffer block)
	Struct *StructType // Struct: the declaration; two struct types are equal only if they share it
}

// StructType is a declared structure. Identity is by pointer: two
// declarations with the same fields are different types.
type StructType struct {
	Name   string // "" for anonymous structures
	Fields []Field
	Line   int
}

// Field is one member of a structure.
type Field struct {
	Name      string
	Type      *Type
	Precision Precision
}

// The basic types.
var (
	TypeVoid        = &Type{Kind: Void}
	TypeFloat       = &Type{Kind: Float}
	TypeVec2        = &Type{Kind: Vec2}
	TypeVec3        = &Type{Kind: Vec3}
	TypeVec4        = &Type{Kind: Vec4}
	TypeInt         = &Type{Kind: Int}
	TypeIVec2       = &Type{Kind: IVec2}
	TypeIVec3       = &Type{Kind: IVec3}
	TypeIVec4       = &Type{Kind: IVec4}
	TypeBool        = &Type{Kind: Bool}
	TypeBVec2       = &Type{Kind: BVec2}
	TypeBVec3       = &Type{Kind: BVec3}
	TypeBVec4       = &Type{Kind: BVec4}
	TypeMat2        = &Type{Kind: Mat2}
	TypeMat3        = &Type{Kind: Mat3}
	TypeMat4        = &Type{Kind: Mat4}
	TypeSampler2D   = &Type{Kind: Sampler2D}
	TypeSamplerCube = &Type{Kind: SamplerCube}
	TypeUint        = &Type{Kind: Uint}
	TypeUVec2       = &Type{Kind: UVec2}
	TypeUVec3       = &Type{Kind: UVec3}
	TypeUVec4       = &Type{Kind: UVec4}
)

// basicTypes is indexed by Kind; Struct and Array have no shared Type.
var basicTypes = [...]*Type{TypeVoid, TypeFloat, TypeVec2, TypeVec3, TypeVec4, TypeInt, TypeIVec2, TypeIVec3,
	TypeIVec4, TypeBool, TypeBVec2, TypeBVec3, TypeBVec4, TypeMat2, TypeMat3, TypeMat4, TypeSampler2D, TypeSamplerCube,
	nil, nil, TypeUint, TypeUVec2, TypeUVec3, TypeUVec4}

// BasicType returns the shared Type of a basic kind (Void..SamplerCube,
// Uint..UVec4).
func BasicType(k Kind) *Type {
	if int(k) < len(basicTypes) && basicTypes[k] != nil {
		return basicTypes[k]
	}
	panic("BUG: BasicType of " + k.String())
}

// VectorType returns the scalar (n == 1) or vector type of n components of
// the scalar kind s (Float, Int, Bool or Uint).
func VectorType(s Kind, n int) *Type { return basicTypes[int(s)+n-1] }

// MatrixType returns matN.
func MatrixType(n int) *Type { return basicTypes[int(Mat2)+n-2] }

// ArrayOf returns the type "elem[n]".
func ArrayOf(elem *Type, n int) *Type { return &Type{Kind: Array, Elem: elem, Len: n} }

// IsScalar reports float, int, bool or uint.
func (t *Type) IsScalar() bool {
	return t.Kind == Float || t.Kind == Int || t.Kind == Bool || t.Kind == Uint
}

// IsVector reports a vector of 2 to 4 components.
func (t *Type) IsVector() bool {
	switch t.Kind {
	case Vec2, Vec3, Vec4, IVec2, IVec3, IVec4, BVec2, BVec3, BVec4, UVec2, UVec3, UVec4:
		return true
	}
	return false
}

// IsInteger reports a scalar or vector of int or uint.
func (t *Type) IsInteger() bool { s := t.Scalar(); return s == Int || s == Uint }

// IsRuntimeArray reports the runtime-sized array of a buffer block's last
// member ("T data[];"), whose length is known only at run time.
func (t *Type) IsRuntimeArray() bool { return t.Kind == Array && t.Len == 0 }

// IsMatrix reports mat2, mat3 or mat4.
func (t *Type) IsMatrix() bool { return t.Kind >= Mat2 && t.Kind <= Mat4 }

// IsSampler reports sampler2D or samplerCube.
func (t *Type) IsSampler() bool { return t.Kind == Sampler2D || t.Kind == SamplerCube }

// IsNumeric reports a scalar, vector or matrix of float or int.
func (t *Type) IsNumeric() bool {
	return t.Kind >= Float && t.Kind <= IVec4 || t.IsMatrix() || t.Kind >= Uint && t.Kind <= UVec4
}

// Scalar returns the component kind (Float, Int, Bool) of a scalar, vector
// or matrix, and Void for other types.
func (t *Type) Scalar() Kind {
	switch {
	case t.Kind >= Float && t.Kind <= Vec4, t.IsMatrix():
		return Float
	case t.Kind >= Int && t.Kind <= IVec4:
		return Int
	case t.Kind >= Bool && t.Kind <= BVec4:
		return Bool
	case t.Kind >= Uint && t.Kind <= UVec4:
		return Uint
	}
	return Void
}

// Size returns the number of components of a scalar or vector (1..4), the
// number of rows (= columns) of a matrix, and 0 otherwise.
func (t *Type) Size() int {
	switch {
	case t.Kind >= Float && t.Kind <= BVec4:
		return (int(t.Kind)-int(Float))%4 + 1
	case t.IsMatrix():
		return int(t.Kind-Mat2) + 2
	case t.Kind >= Uint && t.Kind <= UVec4:
		return int(t.Kind-Uint) + 1
	}
	return 0
}

// Column returns the column vector type of a matrix.
func (t *Type) Column() *Type { return VectorType(Float, t.Size()) }

// Components returns the number of scalar components in the flattened
// value: vector size, N*N for matN, the sum over fields and elements for
// structs and arrays, and 0 for void and samplers (which hold no value).
// Absurd sizes (nested arrays of 2^31 elements) saturate at 2^40.
func (t *Type) Components() int {
	switch {
	case t.IsScalar() || t.IsVector():
		return t.Size()
	case t.IsMatrix():
		return t.Size() * t.Size()
	case t.Kind == Array:
		return satMul(t.Len, t.Elem.Components())
	case t.Kind == Struct:
		n := 0
		for _, f := range t.Struct.Fields {
			n = min(n+f.Type.Components(), packSize)
		}
		return n
	}
	return 0
}

// Equal reports type identity as GLSL defines it.
func (t *Type) Equal(u *Type) bool {
	if t == u {
		return true
	}
	if t == nil || u == nil || t.Kind != u.Kind {
		return false
	}
	switch t.Kind {
	case Array:
		return t.Len == u.Len && t.Elem.Equal(u.Elem)
	case Struct:
		return t.Struct == u.Struct
	}
	return true
}

// ContainsArray reports whether t is or contains (through struct fields) an array.
func (t *Type) ContainsArray() bool {
	switch t.Kind {
	case Array:
		return true
	case Struct:
		for _, f := range t.Struct.Fields {
			if f.Type.ContainsArray() {
				return true
			}
		}
	}
	return false
}

// ContainsSampler reports whether t is or contains a sampler.
func (t *Type) ContainsSampler() bool {
	switch t.Kind {
	case Sampler2D, SamplerCube:
		return true
	case Array:
		return t.Elem.ContainsSampler()
	case Struct:
		for _, f := range t.Struct.Fields {
			if f.Type.ContainsSampler() {
				return true
			}
		}
	}
	return false
}

func (t *Type) String() string {
	if t == nil {
		return "<nil>"
	}
	switch t.Kind {
	case Array:
		if t.Len == 0 {
			return fmt.Sprintf("%s[]", t.Elem)
		}
		return fmt.Sprintf("%s[%d]", t.Elem, t.Len)
	case Struct:
		if t.Struct.Name == "" {
			var b strings.Builder
			b.WriteString("struct {")
			for _, f := range t.Struct.Fields {
				fmt.Fprintf(&b, " %s %s;", f.Type, f.Name)
			}
			b.WriteString(" }")
			return b.String()
		}
		return "struct " + t.Struct.Name
	}
	return t.Kind.String()
}

// Scalar is one component of a constant value. Exactly the field that
// matches Kind is meaningful; a Uint keeps its bits in I.
type Scalar struct {
	Kind Kind // Float, Int, Bool or Uint
	F    float32
	I    int32
	B    bool
}

// Value is a compile-time constant: the scalar components of a value in
// flattening order (vector components; matrix columns, each top to bottom;
// struct fields in order; array elements in order). A nil Value means "not a
// constant expression".
type Value []Scalar

func (s Scalar) String() string {
	switch s.Kind {
	case Float:
		return fmt.Sprint(s.F)
	case Int:
		return fmt.Sprint(s.I)
	case Bool:
		return fmt.Sprint(s.B)
	case Uint:
		return fmt.Sprint(uint32(s.I)) + "u"
	}
	return "?"
}
