// Package ir is tilegpu's shader intermediate representation: an SSA IR with
// structured control flow (in the spirit of Mesa's NIR), the optimisation and
// lowering passes that turn a GLSL ES 1.00 program into the scalar form the
// backend (compiler/backend) consumes, the lowering from compiler/glsl's
// typed AST, and a reference interpreter used as the oracle in tests.
//
// It carries the middle of the compiler in docs/ARCHITECTURE: front end
// (compiler/glsl) → ir → backend (compiler/backend).
//
// # Form
//
// A Func's Body is a list of control-flow nodes: *Block (straight-line
// instructions), *If and *Loop. Every instruction is also the SSA value it
// defines. There are no jumps: an If merges with phis (If.Phis, args
// [then-value, else-value]); a Loop is a do-while whose header phis
// (Loop.Phis, args [entry value, back-edge value]) are the loop-carried
// variables. After each iteration every header phi takes its back-edge
// value; the loop repeats while Loop.Cond (defined in the top level of the
// body) is true. After the loop, the header phis hold their last values, and
// nothing else defined inside the loop is visible. GLSL break, continue,
// return and discard are turned into flags and guarded regions by the
// lowering, so the IR needs no jump terminators: every lane reaches the end
// of the function. This is the execution model of the hardware (per-lane
// masks, branches only to skip work no lane needs) made explicit.
//
// # Calls (before inlining)
//
// FromAST lowers each user function once, as a callee Func in the entry
// point's Funcs (one per binding of its sampler parameters). A callee has
// Params (OpParam values) and Results; arguments pass by value-result, so
// out/inout parameters, the globals it writes and the discard flag come
// back as extra results, and a callee has no effects of its own. Its early
// returns are flags and guarded regions inside it, like main's. A call is
// an OpCall (no value of its own; Args are the parameters' values) followed
// by one OpCallResult per result it reads. Interpret executes calls, so
// the IR can be run before and after the first pass, "inline" (Inline),
// which splices every callee body into its callers. Verify(f, FormAny)
// checks the calls, callees and the absence of recursion;
// Verify(f, FormInlined) that no call is left. The backend never sees one.
//
// # Scalar form (what the backend receives)
//
// After Lower (the full pipeline: Passes in order), a Func satisfies
// Verify(f, FormScalar):
//   - every value is one 32-bit scalar (Type.Width == 1), except OpTexture,
//     a vec4 read only through OpExtract;
//   - only the backend ops appear (Op.IsBackend);
//   - OpStoreOutput appears only in top-level blocks, at most once per index;
//   - OpDiscardIf appears at most once, in a top-level block (fragment only);
//   - uniforms are OpLoadUniform with a UniformEntry; dynamically indexed
//     uniform arrays are OpLoadStorage of an address computed from the
//     UniformStorageAddress entry.
//
// Bool values are 0 or 1 in the interpreter and constant folder; the backend
// may represent them however it likes since they are observable only through
// select, band/bor/bxor/bnot, If/Loop conditions and discard_if.
package ir
