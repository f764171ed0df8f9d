package ir

import "fmt"

// maxInlineDepth bounds call nesting. GLSL ES forbids recursion (the front
// end rejects it and Verify reports call cycles), so only a bad program
// reaches it; it stops the inliner and the interpreter from running away.
const maxInlineDepth = 64

// MaxLoweredInstrs bounds the IR a shader may lower and inline to.
// Inlining is exponential in the worst case (each function calling the
// next twice); real shaders come to a few thousand instructions.
const MaxLoweredInstrs = 1 << 18

// Inline replaces every OpCall in f by a copy of its callee's body, as
// Mesa's nir_inline_functions does: the block holding the call is split
// there, the callee's nodes (cloned with fresh IDs, parameters replaced by
// the arguments) go in between, and every OpCallResult becomes the clone
// of the callee's result. A callee's body may itself hold calls; they are
// inlined in the copy, to at most maxInlineDepth levels, and the function
// may grow to at most MaxLoweredInstrs IDs. Afterwards f.Funcs is empty
// and f satisfies Verify(f, FormInlined).
//
// The callee's structured control flow needs no rewriting: the lowering
// already expressed its early returns (and discard) as flags and guarded
// regions inside it, so its body falls through to its end in every lane,
// like any sequence of nodes.
func Inline(f *Func) error {
	in := &inliner{f: f, repl: resolver{}, results: map[*Instr][]*Instr{}}
	body, err := in.list(f.Body, 0)
	if err != nil {
		return err
	}
	f.Body = body
	in.repl.apply(f)
	f.Funcs = nil
	return nil
}

type inliner struct {
	f       *Func
	repl    resolver            // OpCallResult → the inlined value
	results map[*Instr][]*Instr // OpCall → its results, inlined
}

// list returns nodes with the calls in them (at any nesting) inlined;
// depth is the number of calls the nodes are already inside.
func (in *inliner) list(nodes []Node, depth int) ([]Node, error) {
	var out []Node
	for _, n := range nodes {
		switch n := n.(type) {
		case *Block:
			var cur []*Instr
			for _, x := range n.Instrs {
				switch x.Op {
				case OpCall:
					body, res, err := in.splice(x, depth)
					if err != nil {
						return nil, err
					}
					if len(cur) > 0 {
						out = appendBlock(out, &Block{Instrs: cur})
						cur = nil
					}
					for _, nn := range body {
						if b, ok := nn.(*Block); ok {
							out = appendBlock(out, b)
						} else {
							out = append(out, nn)
						}
					}
					in.results[x] = res
				case OpCallResult:
					// The call dominates its results, so it came first.
					res, ok := in.results[x.Args[0]]
					if !ok || x.Index < 0 || x.Index >= len(res) {
						return nil, fmt.Errorf("ir: inline: %s reads a call not seen before it", x)
					}
					in.repl[x] = res[x.Index]
				default:
					cur = append(cur, x)
				}
			}
			if len(cur) > 0 {
				out = appendBlock(out, &Block{Instrs: cur})
			}
		case *If:
			var err error
			if n.Then, err = in.list(n.Then, depth); err != nil {
				return nil, err
			}
			if n.Else, err = in.list(n.Else, depth); err != nil {
				return nil, err
			}
			out = append(out, n)
		case *Loop:
			var err error
			if n.Body, err = in.list(n.Body, depth); err != nil {
				return nil, err
			}
			out = append(out, n)
		default:
			out = append(out, n)
		}
	}
	return out, nil
}

// splice returns a copy of call's callee body with its own calls inlined,
// and the copies of the callee's results.
func (in *inliner) splice(call *Instr, depth int) ([]Node, []*Instr, error) {
	c := call.Callee
	switch {
	case c == nil || len(call.Args) != len(c.Params):
		return nil, nil, fmt.Errorf("ir: inline: %s: bad call", call)
	case depth >= maxInlineDepth:
		return nil, nil, fmt.Errorf("ir: inline: calls nested more than %d deep (recursion through @%s?)", maxInlineDepth, c.Name)
	case in.f.nextID > MaxLoweredInstrs:
		return nil, nil, fmt.Errorf("ir: inline: shader too large after inlining @%s (over %d instructions)", c.Name, MaxLoweredInstrs)
	}
	m := make(map[*Instr]*Instr, len(c.Params))
	for i, p := range c.Params {
		m[p] = call.Args[i]
	}
	body, err := in.list(cloneNodes(in.f, c.Body, m), depth+1)
	if err != nil {
		return nil, nil, err
	}
	res := make([]*Instr, len(c.Results))
	for k, r := range c.Results {
		res[k] = mapVal(m, r)
	}
	return body, res, nil
}
