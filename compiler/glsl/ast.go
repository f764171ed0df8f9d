package glsl

// Stage is the shader stage a translation unit is compiled for.
type Stage uint8

// Shader stages.
const (
	Vertex Stage = iota
	Fragment
	// Compute is the GLSL ES 3.10 compute subset (compute.go): selected by
	// #version 310 es, never linked with the other stages.
	Compute
)

func (s Stage) String() string {
	switch s {
	case Vertex:
		return "vertex"
	case Compute:
		return "compute"
	}
	return "fragment"
}

// Precision is a precision qualifier. PrecisionNone means "not given"; after
// checking, every float/int variable, parameter and expression that has a
// precision carries it (defaults applied).
type Precision uint8

// Precision qualifiers, lowest to highest.
const (
	PrecisionNone Precision = iota
	Lowp
	Mediump
	Highp
)

func (p Precision) String() string {
	return [...]string{"", "lowp", "mediump", "highp"}[p]
}

// Storage is the storage qualifier of a variable or parameter.
type Storage uint8

// Storage qualifiers. StorageLocal covers unqualified globals and locals;
// In, Out and InOut are parameter qualifiers (an unqualified parameter is In);
// ConstIn is a "const in" parameter.
const (
	StorageLocal Storage = iota
	StorageConst
	StorageAttribute
	StorageUniform
	StorageVarying
	StorageIn
	StorageOut
	StorageInOut
	StorageConstIn
	// GLSL ES 3.10 compute shaders (storage.go); appended.
	StorageShared // a shared variable: Variable.Offset in the work group's shared memory
	StorageBuffer // a buffer block member (Variable.Block, Offset) or instance (Type is the block's)
)

func (s Storage) String() string {
	return [...]string{"", "const", "attribute", "uniform", "varying", "in", "out", "inout", "const in", "shared", "buffer"}[s]
}

// Variable is a declared variable, parameter or built-in variable. Every
// Ident expression points to one; the IR lowering keys its storage on the
// pointer.
type Variable struct {
	Name      string
	Type      *Type
	Storage   Storage
	Precision Precision
	Invariant bool
	Global    bool  // declared at global scope (or a built-in)
	Builtin   bool  // gl_* variable or constant of chapter 7
	Value     Value // the value of a const variable with a constant initializer
	Line      int
	// Static use, filled by the checker: Used if any expression names the
	// variable (read or write), Written if it is assigned or passed as an
	// out/inout argument. The linker's rules use these.
	Used, Written bool
	// Block is the buffer block of a StorageBuffer variable. Offset is
	// the std430 byte offset of a block member declared without an
	// instance name (Member is its index; -1 for an instance) or of a
	// shared variable in shared memory.
	Block  *BufferBlock
	Offset int
	Member int
}

// Function is a user-defined function: all prototypes and the definition of
// one signature share one Function. Calls of built-in functions do not point
// to a Function; they name the built-in instead (Call.Builtin).
type Function struct {
	Name      string
	Return    *Type
	Precision Precision // of the return value
	Params    []*Variable
	Body      *BlockStmt  // nil while only prototypes were seen
	Line      int         // of the first declaration
	Calls     []*Function // user functions called from the body (the static call graph; may repeat)
}

// Node is any AST node. Line is the source line (after #line) it starts on.
type Node interface{ Pos() int }

// Expr is a checked expression. Type is never nil after checking (TypeVoid
// for calls of void functions). Value is the folded constant for constant
// expressions (chapter 4.3.3 and 5.10), nil otherwise.
type Expr interface {
	Node
	Type() *Type
	Value() Value
	// Precision is the precision of the result: the higher precision of the
	// operands, or PrecisionNone when no operand carries one.
	Precision() Precision
	exprNode()
}

// ExprInfo holds what every expression carries; it is embedded in each
// expression node.
type ExprInfo struct {
	Line int
	Ty   *Type
	Val  Value
	Prec Precision
}

func (e *ExprInfo) Pos() int             { return e.Line }
func (e *ExprInfo) Type() *Type          { return e.Ty }
func (e *ExprInfo) Value() Value         { return e.Val }
func (e *ExprInfo) Precision() Precision { return e.Prec }
func (e *ExprInfo) exprNode()            {}

// Op is an operator of a Unary, Binary or Assign expression.
type Op uint8

// Operators.
const (
	OpNone    Op = iota
	OpAdd        // +
	OpSub        // -
	OpMul        // *  (matrix-aware: linear algebra product for matrix operands)
	OpDiv        // /
	OpLess       // <
	OpGreater    // >
	OpLessEq     // <=
	OpGreaterEq
	OpEq // == (whole-value comparison, result bool)
	OpNotEq
	OpAnd     // &&  (short-circuit)
	OpOr      // ||  (short-circuit)
	OpXor     // ^^
	OpNeg     // unary -
	OpPlus    // unary +
	OpNot     // !
	OpPreInc  // ++x
	OpPreDec  // --x
	OpPostInc // x++
	OpPostDec // x--
	OpAssign  // =
	OpAddAssign
	OpSubAssign
	OpMulAssign
	OpDivAssign
	// GLSL ES 3.10 only (ES 1.00 reserves these operators); appended.
	OpMod       // %
	OpBitAnd    // &
	OpBitOr     // |
	OpBitXor    // ^
	OpShl       // <<
	OpShr       // >> (arithmetic for int, logical for uint)
	OpBitNot    // unary ~
	OpModAssign // %=
	OpAndAssign // &=
	OpOrAssign  // |=
	OpXorAssign // ^=
	OpShlAssign // <<=
	OpShrAssign // >>=
)

var opNames = [...]string{"", "+", "-", "*", "/", "<", ">", "<=", ">=", "==", "!=", "&&", "||", "^^",
	"-", "+", "!", "++", "--", "++", "--", "=", "+=", "-=", "*=", "/=",
	"%", "&", "|", "^", "<<", ">>", "~", "%=", "&=", "|=", "^=", "<<=", ">>="}

func (o Op) String() string { return opNames[o] }

// ConstExpr is a literal (1, 1.5, true); Val holds its value. Other
// constant expressions keep their own node and carry the folded value in
// Value().
type ConstExpr struct{ ExprInfo }

// Ident is a use of a variable.
type Ident struct {
	ExprInfo
	Var *Variable
}

// Unary is -x, +x, !x, ++x, --x, x++ or x--.
type Unary struct {
	ExprInfo
	Op Op
	X  Expr
}

// Binary is an arithmetic, relational, equality or logical operator. For
// arithmetic operators, one operand may be a scalar and the other a vector
// or matrix (component-wise); matrix*vector, vector*matrix and matrix*matrix
// with OpMul are linear-algebra products.
type Binary struct {
	ExprInfo
	Op   Op
	X, Y Expr
}

// Assign is LHS op= RHS. LHS is an l-value: Ident, Index, FieldSelect or
// Swizzle (without repeated components) over an l-value.
type Assign struct {
	ExprInfo
	Op       Op
	LHS, RHS Expr
}

// Cond is Cond ? Then : Else (only Then or Else is evaluated).
type Cond struct {
	ExprInfo
	Cond, Then, Else Expr
}

// Sequence is the comma operator: X is evaluated, then Y, whose value is the result.
type Sequence struct {
	ExprInfo
	X, Y Expr
}

// Index is X[Index] on an array, vector (component) or matrix (column).
type Index struct {
	ExprInfo
	X, Index Expr
}

// FieldSelect is X.Name on a structure; Field is the index into
// X.Type().Struct.Fields.
type FieldSelect struct {
	ExprInfo
	X     Expr
	Name  string
	Field int
}

// Swizzle is X.xyzw / .rgba / .stpq on a vector (GLSL ES 1.00 has no
// scalar swizzles); Components are indices 0..3 into X, 1 to 4 of them.
type Swizzle struct {
	ExprInfo
	X          Expr
	Components []int
}

// Call is a call of a user function (Func != nil) or of a built-in function
// (Builtin is its name, e.g. "texture2D", and Func is nil). Overloads are
// resolved: the argument types match the parameter types exactly.
type Call struct {
	ExprInfo
	Func    *Function
	Builtin string
	Args    []Expr
}

// Construct is a constructor call Type(args...): a conversion, a vector or
// matrix built from components, or a structure built from one argument per
// field. Ty is the constructed type.
type Construct struct {
	ExprInfo
	Args []Expr
}

// Stmt is a statement.
type Stmt interface {
	Node
	stmtNode()
}

// StmtInfo holds what every statement carries.
type StmtInfo struct{ Line int }

func (s *StmtInfo) Pos() int  { return s.Line }
func (s *StmtInfo) stmtNode() {}

// BlockStmt is { Stmts } (also used, empty, for the null statement ";").
// Names declared in it are visible only inside it.
type BlockStmt struct {
	StmtInfo
	Stmts []Stmt
}

// VarDecl declares one variable with its optional initializer.
type VarDecl struct {
	Var  *Variable
	Init Expr // nil when absent
}

// DeclStmt is one declaration statement: a possibly empty list of variables
// sharing a type and qualifiers (`float a, b = 1.0;`), and/or a structure
// definition (`struct S { ... } s;` sets Struct).
type DeclStmt struct {
	StmtInfo
	Struct *StructType // a structure declared by this statement, or nil
	Vars   []*VarDecl
}

// PrecisionStmt is `precision P type;`, setting the default precision of
// int, float or a sampler type for the rest of the scope.
type PrecisionStmt struct {
	StmtInfo
	Precision Precision
	Type      *Type
}

// InvariantStmt is `invariant name, ...;` redeclaring built-in or
// user-declared output variables as invariant (global scope only).
type InvariantStmt struct {
	StmtInfo
	Vars []*Variable
}

// ExprStmt is an expression evaluated for its effects.
type ExprStmt struct {
	StmtInfo
	X Expr
}

// IfStmt is if (Cond) Then else Else; Else may be nil.
type IfStmt struct {
	StmtInfo
	Cond Expr
	Then Stmt
	Else Stmt
}

// ForStmt is for (Init; Cond; Post) Body. Init is a DeclStmt or ExprStmt or
// nil; Cond and Post may be nil. The loop opens its own scope; the body
// shares it. A declaration as condition (`for (;bool b = f();)`) appears
// as the Sequence "(b = f(), b)", evaluated before every iteration.
type ForStmt struct {
	StmtInfo
	Init Stmt
	Cond Expr
	Post Expr
	Body Stmt
}

// WhileStmt is while (Cond) Body. CondDecl is set when the condition is a
// declaration (`while (bool b = f())`): before every iteration its
// initializer is evaluated into CondDecl.Var, then Cond (an Ident of that
// variable) is tested.
type WhileStmt struct {
	StmtInfo
	CondDecl *VarDecl
	Cond     Expr
	Body     Stmt
}

// DoStmt is do Body while (Cond);.
type DoStmt struct {
	StmtInfo
	Body Stmt
	Cond Expr
}

// BranchStmt is break or continue (Continue reports which).
type BranchStmt struct {
	StmtInfo
	Continue bool
}

// ReturnStmt is return [X];.
type ReturnStmt struct {
	StmtInfo
	X Expr
}

// SwitchStmt is switch (Selector) { case L: ... default: ... } (GLSL ES
// 3.00 §6.2, 310 shaders only). Selector is a scalar int or uint; control
// enters the first clause whose label matches (the default clause if none
// does) and falls through the following clauses until a break.
type SwitchStmt struct {
	StmtInfo
	Selector Expr
	Clauses  []*CaseClause
}

// CaseClause is the labels of one run of "case L:"/"default:" and the
// statements after them.
type CaseClause struct {
	Line    int
	Labels  []Scalar // constant case labels, of the selector's type
	Default bool
	Body    []Stmt
}

// DiscardStmt is discard; (fragment shaders only).
type DiscardStmt struct{ StmtInfo }

// FuncDecl is a function prototype (Body == nil) or definition at global
// scope. Func is shared by all declarations of the same signature.
type FuncDecl struct {
	StmtInfo
	Func *Function
	Body *BlockStmt
}

// TranslationUnit is one checked shader.
type TranslationUnit struct {
	Stage Stage
	// Decls are the global declarations in source order: *DeclStmt,
	// *PrecisionStmt, *InvariantStmt and *FuncDecl.
	Decls []Stmt
	// Globals are all user-declared global variables in declaration order.
	Globals []*Variable
	// Functions are all user functions (defined or only declared).
	Functions []*Function
	// Main is the definition of main, nil if the shader has none.
	Main *Function
	// Builtins are the built-in variables the shader reads or writes.
	Builtins []*Variable
	// Extensions lists the extensions enabled by #extension (e.g.
	// "GL_OES_standard_derivatives").
	Extensions map[string]bool
	// InvariantAll is set by #pragma STDGL invariant(all).
	InvariantAll bool
	// InvariantBuiltins are the built-in variables declared invariant
	// (by an invariant statement, or in a vertex shader by
	// InvariantAll: gl_Position and gl_PointSize), for Link's rules of
	// section 4.6.4.
	InvariantBuiltins map[string]bool
	// Version is the #version number (100, or 310 for a compute shader).
	Version int
	// LocalSize is a compute shader's layout(local_size_x/y/z) in
	// declaration: the workgroup size, each dimension >= 1 (unset
	// dimensions are 1). Zero for the other stages.
	LocalSize [3]int
	// Buffers are a compute shader's shader storage blocks, in
	// declaration order; Shared its shared variables, laid out in
	// SharedSize bytes (storage.go).
	Buffers    []*BufferBlock
	Shared     []*Variable
	SharedSize int
}
