package isa

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

var (
	addOpByName  = map[string]AddOp{}
	mulOpByName  = map[string]MulOp{}
	waddrByName  = map[string]Waddr{}
	raddrAByName = map[string]Raddr{}
	raddrBByName = map[string]Raddr{}
	condByName   = map[string]Cond{
		"never": CondNever, "always": CondAlways,
		"ifzs": CondZS, "ifzc": CondZC, "ifns": CondNS, "ifnc": CondNC, "ifcs": CondCS, "ifcc": CondCC,
		"ifz": CondZS, "ifnz": CondZC, "ifn": CondNS, "ifnn": CondNC, "ifc": CondCS,
	}
	branchByName = map[string]BranchCond{"always": BranchAlways,
		"allz": BranchAllZS, "allnz": BranchAllZC, "anyz": BranchAnyZS, "anynz": BranchAnyZC}
	sigByName = map[string]Sig{"thrsw": SigTHRSW, "end": SigEND, "ldtmu": SigLDTMU, "lthrsw": SigLastTHRSW, "barrier": SigBarrier}
)

func init() {
	for op, n := range addOpNames {
		addOpByName[n] = AddOp(op)
	}
	for op, n := range mulOpNames {
		mulOpByName[n] = MulOp(op)
	}
	for w, n := range waddrNames {
		if n != "" {
			waddrByName[n] = Waddr(w)
		}
	}
	for r := 0; r < 64; r++ {
		if n := raddrNamesA[r]; n != "" {
			raddrAByName[n] = Raddr(r)
		}
		if n := raddrNamesB[r]; n != "" {
			raddrBByName[n] = Raddr(r)
		}
	}
	for c, s := range branchSuffixes {
		if s != "" {
			branchByName[s[1:]] = BranchCond(c)
		}
	}
}

// Assemble assembles one line of the syntax described in the package doc.
// It is the inverse of Disasm: Assemble(Disasm(w)) == w for every word.
// Branch targets must be numbers; use AssembleProgram for labels.
func Assemble(line string) (uint64, error) {
	return assembleLine(line, 0, nil)
}

// AssembleProgram assembles a multi-line program loaded at base. Blank lines
// and comments are skipped; `name:` at the start of a line defines a label,
// which a branch may use as its target (`b.anyzc loop`, `brr loop`; for brr
// the offset from the next instruction is computed). Labels, like the rest
// of the syntax, are case-insensitive.
func AssembleProgram(src string, base uint32) ([]uint64, error) {
	lines := strings.Split(src, "\n")
	labels := map[string]uint32{}
	type item struct {
		text string
		line int
	}
	var items []item
	for n, l := range lines {
		l = stripComment(l)
		for {
			c := strings.IndexByte(l, ':')
			if c < 0 || !isIdent(strings.TrimSpace(l[:c])) {
				break
			}
			name := strings.ToLower(strings.TrimSpace(l[:c])) // the assembler is case-insensitive
			if _, dup := labels[name]; dup {
				return nil, fmt.Errorf("isa: line %d: label %q defined twice", n+1, name)
			}
			labels[name] = base + uint32(len(items))*InstrBytes
			l = l[c+1:]
		}
		if strings.TrimSpace(l) != "" {
			items = append(items, item{l, n + 1})
		}
	}
	code := make([]uint64, len(items))
	for k, it := range items {
		w, err := assembleLine(it.text, base+uint32(k)*InstrBytes, labels)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", it.line, err)
		}
		code[k] = w
	}
	return code, nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for k, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || k > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func stripComment(l string) string {
	if k := strings.Index(l, "//"); k >= 0 {
		l = l[:k]
	}
	if k := strings.IndexByte(l, '#'); k >= 0 {
		l = l[:k]
	}
	return l
}

type asmError struct {
	line string
	msg  string
}

func (e *asmError) Error() string { return fmt.Sprintf("isa: assemble %q: %s", e.line, e.msg) }

func assembleLine(line string, pc uint32, labels map[string]uint32) (uint64, error) {
	orig := strings.TrimSpace(line)
	fail := func(format string, args ...any) (uint64, error) {
		return 0, &asmError{orig, fmt.Sprintf(format, args...)}
	}
	text := strings.ToLower(strings.TrimSpace(stripComment(line)))
	if text == "" {
		return fail("empty instruction")
	}
	if rest, ok := strings.CutPrefix(text, ".word"); ok {
		v, err := strconv.ParseUint(strings.TrimSpace(rest), 0, 64)
		if err != nil {
			return fail("bad .word value")
		}
		return v, nil
	}
	parts := strings.Split(text, ";")
	for k := range parts {
		parts[k] = strings.TrimSpace(parts[k])
	}
	a := &assembler{}
	var err error
	var i Instr
	switch mnemonic(parts[0]) {
	case "b", "brr":
		if len(parts) != 1 {
			return fail("a branch is a whole instruction")
		}
		i, err = a.branch(parts[0], pc, labels)
	case "li":
		i, err = a.loadImm(parts)
	default:
		if len(parts) > 1 && mnemonic(parts[1]) == "li" {
			i, err = a.loadImm(parts)
		} else {
			i, err = a.alu(parts)
		}
	}
	if err != nil {
		return fail("%v", err)
	}
	if err := i.Validate(); err != nil {
		return fail("%v", err)
	}
	return Encode(i), nil
}

func mnemonic(part string) string {
	head, _, _ := strings.Cut(part, " ")
	head, _, _ = strings.Cut(head, "\t")
	m, _, _ := strings.Cut(head, ".")
	return m
}

// splitPart splits "op.s1.s2 x, y, z" into the op, suffixes and operands.
func splitPart(part string) (op string, suffixes []string, operands []string) {
	head, rest, _ := strings.Cut(strings.Replace(part, "\t", " ", -1), " ")
	fields := strings.Split(head, ".")
	op, suffixes = fields[0], fields[1:]
	rest = strings.TrimSpace(rest)
	if rest != "" {
		operands = strings.Split(rest, ",")
		for k := range operands {
			operands[k] = strings.TrimSpace(operands[k])
		}
	}
	return op, suffixes, operands
}

type assembler struct {
	aSet, bSet, smallImm bool
	raddrA, raddrB       Raddr
	wsSet                bool
	ws                   bool
}

func (a *assembler) claimA(r Raddr) error {
	if a.aSet && a.raddrA != r {
		return fmt.Errorf("two different A-file reads (%s, %s)", raddrName(a.raddrA, false), raddrName(r, false))
	}
	a.aSet, a.raddrA = true, r
	return nil
}

func (a *assembler) claimB(r Raddr, small bool) error {
	if a.bSet && (a.raddrB != r || a.smallImm != small) {
		return fmt.Errorf("two different B-file reads or small immediates")
	}
	a.bSet, a.raddrB, a.smallImm = true, r, small
	return nil
}

func (a *assembler) operand(s string) (Mux, error) {
	if len(s) == 2 && s[0] == 'r' && s[1] >= '0' && s[1] <= '5' {
		return Mux(s[1] - '0'), nil
	}
	if r, ok := raddrAByName[s]; ok {
		return MuxA, a.claimA(r)
	}
	if r, ok := raddrBByName[s]; ok {
		return MuxB, a.claimB(r, false)
	}
	switch s {
	case "unif", "vary", "vpm":
		r := raddrAByName["a."+s]
		if !a.aSet || a.raddrA == r {
			return MuxA, a.claimA(r)
		}
		return MuxB, a.claimB(r, false)
	}
	if s == "" {
		return 0, fmt.Errorf("missing operand")
	}
	if c := s[0]; c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9' {
		var bits uint32
		if strings.ContainsAny(s, ".e") && !strings.HasPrefix(s, "0x") {
			f, err := strconv.ParseFloat(strings.TrimSuffix(s, "f"), 32)
			if err != nil {
				return 0, fmt.Errorf("bad number %q", s)
			}
			bits = math.Float32bits(float32(f))
		} else {
			v, err := strconv.ParseInt(s, 0, 64)
			if err != nil || v < math.MinInt32 || v > math.MaxUint32 {
				return 0, fmt.Errorf("bad number %q", s)
			}
			bits = uint32(v)
		}
		code, ok := SmallImmediate(bits)
		if !ok {
			return 0, fmt.Errorf("%s is not a small immediate (use li)", s)
		}
		return MuxB, a.claimB(Raddr(code), true)
	}
	return 0, fmt.Errorf("unknown operand %q", s)
}

// dest parses a destination; fileBDefault says which file 0–31 go to
// without ws (false: A for the add unit, true: B for the mul unit).
func (a *assembler) dest(s string, fileBDefault bool) (Waddr, error) {
	if len(s) > 2 && (s[:2] == "ra" || s[:2] == "rb") {
		n, err := strconv.Atoi(s[2:])
		if err == nil && n >= 0 && n < 32 && strconv.Itoa(n) == s[2:] {
			ws := (s[1] == 'b') != fileBDefault
			if a.wsSet && a.ws != ws {
				return 0, fmt.Errorf("destination %s: both units would write the same register file", s)
			}
			a.wsSet, a.ws = true, ws
			return Waddr(n), nil
		}
	}
	if w, ok := waddrByName[s]; ok {
		return w, nil
	}
	return 0, fmt.Errorf("unknown destination %q", s)
}

func (a *assembler) alu(parts []string) (Instr, error) {
	var i Instr
	if len(parts) > 3 {
		return i, fmt.Errorf("too many ';' parts")
	}
	if len(parts) >= 2 {
		if s, ok := sigByName[parts[len(parts)-1]]; ok {
			i.Sig = s
			parts = parts[:len(parts)-1]
		} else if len(parts) == 3 {
			return i, fmt.Errorf("unknown signal %q", parts[2])
		}
	}
	setfAdd, setfMul := false, false
	for unit, part := range parts {
		op, suffixes, operands := splitPart(part)
		cond, setf, err := parseSuffixes(suffixes)
		if err != nil {
			return i, err
		}
		var unary bool
		if unit == 0 {
			o, ok := addOpByName[op]
			if op == "mov" {
				o, ok = OpOR, true
				if len(operands) == 2 {
					operands = append(operands, operands[1])
				}
			}
			if !ok {
				return i, fmt.Errorf("unknown add op %q", op)
			}
			i.OpAdd, setfAdd, unary = o, setf, o.IsUnary()
			if o != OpNOP {
				i.CondAdd = cond
			}
		} else {
			o, ok := mulOpByName[op]
			if !ok {
				return i, fmt.Errorf("unknown mul op %q", op)
			}
			i.OpMul, setfMul, unary = o, setf, o.IsUnary()
			if o != OpMulNOP {
				i.CondMul = cond
			}
		}
		if op == "nop" {
			if len(suffixes) != 0 || len(operands) != 0 {
				return i, fmt.Errorf("nop takes no suffixes or operands")
			}
			continue
		}
		want := 3
		if unary {
			want = 2
		}
		if len(operands) != want {
			return i, fmt.Errorf("%s takes %d operands, got %d", op, want, len(operands))
		}
		dst, err := a.dest(operands[0], unit == 1)
		if err != nil {
			return i, err
		}
		x, err := a.operand(operands[1])
		if err != nil {
			return i, err
		}
		var y Mux
		if !unary {
			if y, err = a.operand(operands[2]); err != nil {
				return i, err
			}
		}
		if unit == 0 {
			i.WaddrAdd, i.AddA, i.AddB = dst, x, y
		} else {
			i.WaddrMul, i.MulA, i.MulB = dst, x, y
		}
	}
	if setfMul && i.OpAdd != OpNOP {
		return i, fmt.Errorf(".setf belongs on the add op (flags come from the add unit when it is not nop)")
	}
	i.SF = setfAdd || setfMul
	if setfAdd && i.OpAdd == OpNOP || setfMul && i.OpMul == OpMulNOP {
		return i, fmt.Errorf(".setf on nop")
	}
	if a.smallImm {
		if i.Sig != SigNone {
			return i, fmt.Errorf("a small immediate cannot be combined with signal %s", i.Sig)
		}
		i.Sig = SigSmallImm
	}
	i.RaddrA, i.RaddrB, i.WS = a.raddrA, a.raddrB, a.ws
	return i, nil
}

func parseSuffixes(suffixes []string) (cond Cond, setf bool, err error) {
	cond = CondAlways
	haveCond := false
	for _, s := range suffixes {
		if s == "setf" && !setf {
			setf = true
			continue
		}
		c, ok := condByName[s]
		if !ok || haveCond {
			return 0, false, fmt.Errorf("bad suffix .%s", s)
		}
		cond, haveCond = c, true
	}
	return cond, setf, nil
}

func (a *assembler) loadImm(parts []string) (Instr, error) {
	i := Instr{Sig: SigLoadImm}
	if len(parts) > 2 {
		return i, fmt.Errorf("load immediate has at most two parts")
	}
	haveImm := false
	nHalves := 0
	for unit, part := range parts {
		op, suffixes, operands := splitPart(part)
		if op == "nop" && len(suffixes) == 0 && len(operands) == 0 {
			continue
		}
		if op != "li" {
			return i, fmt.Errorf("cannot combine %q with li", op)
		}
		nHalves++
		cond, setf, err := parseSuffixes(suffixes)
		if err != nil {
			return i, err
		}
		if len(operands) != 2 {
			return i, fmt.Errorf("li takes a destination and a value")
		}
		imm, err := parseImm32(operands[1])
		if err != nil {
			return i, err
		}
		if haveImm && imm != i.Imm {
			return i, fmt.Errorf("the two halves of li must load the same value")
		}
		haveImm, i.Imm = true, imm
		if setf {
			if i.SF {
				return i, fmt.Errorf(".setf given twice")
			}
			i.SF = true
		}
		if cond == CondNever && operands[0] == "nop" {
			continue // an unused half, spelled as Disasm does
		}
		dst, err := a.dest(operands[0], unit == 1)
		if err != nil {
			return i, err
		}
		if unit == 0 {
			i.CondAdd, i.WaddrAdd = cond, dst
		} else {
			i.CondMul, i.WaddrMul = cond, dst
		}
	}
	if nHalves == 0 {
		return i, fmt.Errorf("load immediate without li")
	}
	i.WS = a.ws
	return i, nil
}

func parseImm32(s string) (uint32, error) {
	if strings.ContainsAny(s, ".") || (strings.ContainsAny(s, "e") && !strings.HasPrefix(s, "0x")) {
		f, err := strconv.ParseFloat(strings.TrimSuffix(s, "f"), 32)
		if err != nil {
			return 0, fmt.Errorf("bad value %q", s)
		}
		return math.Float32bits(float32(f)), nil
	}
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil || v < math.MinInt32 || v > math.MaxUint32 {
		return 0, fmt.Errorf("bad value %q", s)
	}
	return uint32(v), nil
}

func (a *assembler) branch(part string, pc uint32, labels map[string]uint32) (Instr, error) {
	i := Instr{Sig: SigBranch, CondBr: BranchAlways, WaddrAdd: WaddrNOP, WaddrMul: WaddrNOP}
	op, suffixes, operands := splitPart(part)
	i.Rel = op == "brr"
	if len(suffixes) > 1 {
		return i, fmt.Errorf("bad branch suffixes")
	}
	if len(suffixes) == 1 {
		c, ok := branchByName[suffixes[0]]
		if !ok {
			return i, fmt.Errorf("unknown branch condition .%s", suffixes[0])
		}
		i.CondBr = c
	}
	switch len(operands) {
	case 1:
	case 3:
		var err error
		if i.WaddrAdd, err = a.dest(operands[0], false); err != nil {
			return i, err
		}
		if i.WaddrMul, err = a.dest(operands[1], true); err != nil {
			return i, err
		}
		i.WS = a.ws
		operands = operands[2:]
	default:
		return i, fmt.Errorf("a branch takes a target, optionally after two link destinations")
	}
	target := strings.ReplaceAll(operands[0], " ", "")
	if target == "" {
		return i, fmt.Errorf("missing branch target")
	}
	num := target
	if c := target[0]; c >= 'a' && c <= 'z' || c == '_' {
		if addr, ok := labels[target]; ok {
			if i.Rel {
				i.BranchImm = int32(addr - (pc + InstrBytes))
			} else {
				i.BranchImm = int32(addr)
			}
			return i, nil
		}
		k := strings.IndexAny(target, "+-")
		reg := target
		num = "0"
		if k > 0 {
			reg, num = target[:k], target[k:]
		}
		r, ok := raddrAByName[reg]
		if !ok {
			if reg == "unif" || reg == "vary" || reg == "vpm" {
				r, ok = raddrAByName["a."+reg], true
			}
		}
		if !ok {
			return i, fmt.Errorf("unknown branch register or label %q", reg)
		}
		i.Reg, i.RaddrA = true, r
	}
	v, err := strconv.ParseInt(strings.TrimPrefix(num, "+"), 0, 64)
	if err != nil || v < math.MinInt32 || v > math.MaxUint32 {
		return i, fmt.Errorf("bad branch target %q", num)
	}
	i.BranchImm = int32(uint32(v))
	return i, nil
}
