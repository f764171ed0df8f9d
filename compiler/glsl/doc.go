// Package glsl is the GLSL ES 1.00 (revision 17) front end of the compiler
// (and the start of GLSL ES 3.10's compute subset, stage Compute: see
// compute.go):
// the preprocessor, lexer, parser and semantic checker that turn shader
// source into a typed AST (TranslationUnit), plus the link-time checks
// between a vertex and a fragment shader. It is the Mesa GLSL front end of
// the architecture; compiler/ir lowers its AST to SSA IR.
//
// Parsing and checking happen in one pass, as GLSL requires declaration
// before use: every expression node is created already typed, constant
// expressions carry their folded Value, identifiers point to their
// Variable, and calls point to the overload they resolved to (or name the
// built-in). Errors are collected as ErrorList in glslangValidator's format.
//
// Entry points: Parse (compile one shader) and Link (check a vertex and a
// fragment shader against each other). All functions are safe for
// concurrent use; a TranslationUnit must not be modified after Parse.
//
// Implementation limits: the Max* constants are the values of the gl_Max*
// built-ins and what the GL driver reports for the GL_MAX_* queries; each
// says which part of the hardware or driver fixes it. CountResources
// checks a program against them: attributes by locations (a matN takes
// N), varyings and each stage's uniforms by the packing algorithm of
// Appendix A §7 (PackedVectors: mat4, mat2, vec4 take whole rows, vec3 and
// mat3 columns x..z, vec2 pairs x,y from the top and z,w from the bottom,
// floats the shortest fitting column run). Which variables are active is
// the caller's decision; compiler.Link asks after the IR's dead-code
// removal, Link itself does not check limits. Parse checks each
// declaration on its own before anything of its size is built: a uniform
// or varying that alone exceeds its stage's limit, and private variables
// beyond MaxPrivateComponents (one) or MaxPrivateComponentsTotal (all),
// are compile errors at their line (limits.go). Expression, statement and
// #if nesting is bounded (maxNesting), expression operands are bounded
// (MaxOperands) and macro expansion is budgeted, so no input exhausts the
// stack or memory.
//
// Sampler arrays may be indexed only by constant-index expressions
// (Appendix A §5): constant expressions, indices of for loops whose header
// has the form of Appendix A §4 and whose body never assigns the index,
// and expressions built from them without side effects or user function
// calls.
package glsl
