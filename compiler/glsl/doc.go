// Package glsl is the GLSL ES 1.00 (revision 17) front end of the compiler:
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
package glsl
