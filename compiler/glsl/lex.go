package glsl

import "strings"

// tokKind classifies a preprocessing token.
type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tNumber  // a preprocessing number; validated when converted
	tPunct   // operator or punctuation
	tInvalid // a character outside the GLSL character set
	tNewline // end of a source line (preprocessor only)
)

// token is a preprocessing token. noExpand marks an identifier that named a
// macro being expanded when it was produced, so it is never expanded again.
type token struct {
	kind     tokKind
	text     string
	line     int
	noExpand bool
	// spaceBefore records white space or a comment before the token, which
	// decides whether "#define F(" starts a function-like macro.
	spaceBefore bool
	// repaired marks a reserved operator the parser continues with as a
	// valid one (checkTokens): its error is reported already, so operand
	// type errors of the stand-in are not.
	repaired bool
}

// puncts lists the operators longest first so that lexing is greedy.
var puncts = []string{
	"<<=", ">>=",
	"<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "^^", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##",
	"+", "-", "*", "/", "%", "<", ">", "=", "!", "~", "&", "|", "^", "?", ":", ";", ",", ".", "(", ")", "[", "]", "{", "}", "#",
}

// punctsByFirst lists, per first byte, the operators of puncts starting
// with it, longest first: the lexer tries only those instead of scanning
// all of puncts at every operator (a twentieth of a difftest execution).
var punctsByFirst = func() (by [256][]string) {
	for _, p := range puncts {
		by[p[0]] = append(by[p[0]], p)
	}
	return by
}()

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isIdentChar(c byte) bool  { return isIdentStart(c) || isDigit(c) }

// lex splits the source into preprocessing tokens with a tNewline after
// every line. Comments become white space (a block comment spanning lines
// still yields the newlines, so line numbers stay right); a backslash
// before a newline joins the lines. It reports an unterminated comment.
func lex(src string, errs *ErrorList) []token {
	toks := make([]token, 0, len(src)/3)
	line := 1
	space := true
	for i := 0; i < len(src); {
		c := src[i]
		before := len(toks)
		switch {
		case c == '\n':
			toks = append(toks, token{kind: tNewline, line: line})
			line++
			i++
		case c == '\\' && (i+1 < len(src) && src[i+1] == '\n' || i+2 < len(src) && src[i+1] == '\r' && src[i+2] == '\n'):
			// GLSL ES 1.00 has no line continuation (section 3.1: the
			// backslash is not in the character set; ES 3.00 added it).
			// Report it and join the lines, so that parsing goes on.
			*errs = append(*errs, Error{Line: line, Token: "\\", Msg: "line continuation is not allowed in GLSL ES 1.00"})
			line++
			i += 2
			if src[i-1] == '\r' {
				i++
			}
		case c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f':
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				if src[i] == '\\' && i+1 < len(src) && src[i+1] == '\n' {
					line++
					i++
				}
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				*errs = append(*errs, Error{Line: line, Token: "/*", Msg: "unterminated comment"})
				line += strings.Count(src[i:], "\n")
				i = len(src)
				break
			}
			// A comment spanning lines is white space: it does not end a
			// directive, but the following tokens keep their true line.
			body := src[i : i+2+end+2]
			line += strings.Count(body, "\n")
			i += len(body)
		case isIdentStart(c):
			j := i + 1
			for j < len(src) && isIdentChar(src[j]) {
				j++
			}
			toks = append(toks, token{kind: tIdent, text: src[i:j], line: line})
			i = j
		case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
			j := i + 1
			for j < len(src) {
				d := src[j]
				if (d == '+' || d == '-') && (src[j-1] == 'e' || src[j-1] == 'E') && !(j-i >= 2 && src[i] == '0' && src[i+1]|0x20 == 'x') {
					j++
					continue
				}
				if !isIdentChar(d) && d != '.' {
					break
				}
				j++
			}
			toks = append(toks, token{kind: tNumber, text: src[i:j], line: line})
			i = j
		default:
			matched := false
			for _, p := range punctsByFirst[c] {
				if strings.HasPrefix(src[i:], p) {
					toks = append(toks, token{kind: tPunct, text: p, line: line})
					i += len(p)
					matched = true
					break
				}
			}
			if !matched {
				toks = append(toks, token{kind: tInvalid, text: src[i : i+1], line: line})
				i++
			}
		}
		if len(toks) > before {
			toks[before].spaceBefore = space
			space = toks[len(toks)-1].kind == tNewline
		} else {
			space = true
		}
	}
	toks = append(toks, token{kind: tNewline, line: line})
	return toks
}
