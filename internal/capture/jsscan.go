package capture

import (
	"bytes"
	"unicode/utf8"
)

// A JavaScript script read for the lines of a V8 profile's callers. V8's
// CPU profile (the inspector's, node --cpu-prof) records where in a
// function its own samples fell (positionTicks), but not where it called
// the function below it: a caller's frame has only its declaration.
// The script's source gives the rest: the extent of a function, from the
// parameter list V8 points at to the end of its body, and the lines in it
// that call a function of a given name. The scanner reads tokens as far
// as that needs (identifiers, brackets, the arrow, strings, template
// literals with their substitutions, comments and regular expression
// literals, so that none of them hides or fakes a call); it checks no
// grammar, and a script it cannot follow gives no line, never a wrong
// one it could have seen was ambiguous.

// MaxScriptBytes bounds a script read for its calls: a bundle of several
// megabytes is still read, a runaway file is not.
const MaxScriptBytes = 16 << 20

// jsTok is a token of a script: an identifier (its text), one of the
// brackets and separators the extent of a function needs, the arrow, or
// a literal (a string, template, number or regular expression, whose
// text does not matter).
type jsTok struct {
	kind jsKind
	off  int    // byte offset in the script
	text string // an identifier's name
}

type jsKind uint8

const (
	jsIdent   jsKind = iota
	jsPunct          // one byte of ( ) { } [ ] , ; . ? and the other operators
	jsArrow          // =>
	jsLiteral        // a string, template, number or regular expression
)

// jsScript is a script's source, its lines' offsets and its tokens.
type jsScript struct {
	src   []byte
	lines []int // byte offset of each line's start, line 0 first
	toks  []jsTok
	punct []byte   // per token, its byte for jsPunct, else 0
	funcs []jsFunc // its named functions, once listed (named)
}

func newJSScript(src []byte) *jsScript {
	s := &jsScript{src: src, lines: []int{0}}
	for i, c := range src {
		if c == '\n' {
			s.lines = append(s.lines, i+1)
		}
	}
	s.scan()
	return s
}

// line is the 1-based line of byte offset off.
func (s *jsScript) line(off int) int64 {
	lo, hi := 0, len(s.lines)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if s.lines[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return int64(lo + 1)
}

// offset is the byte offset of 0-based line and column, the column
// counted as V8 counts it, in UTF-16 code units; false when out of range.
func (s *jsScript) offset(line, col int64) (int, bool) {
	if line < 0 || line >= int64(len(s.lines)) || col < 0 {
		return 0, false
	}
	off := s.lines[line]
	for units := int64(0); units < col; {
		if off >= len(s.src) || s.src[off] == '\n' {
			return 0, false
		}
		r, n := utf8.DecodeRune(s.src[off:])
		off += n
		units++
		if r > 0xFFFF {
			units++ // a surrogate pair
		}
	}
	return off, true
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// regexKeywords are the words after which a slash starts a regular
// expression, not a division.
var regexKeywords = map[string]bool{
	"return": true, "typeof": true, "instanceof": true, "in": true, "of": true, "new": true, "delete": true,
	"void": true, "throw": true, "case": true, "do": true, "else": true, "yield": true, "await": true,
}

// scanner state: the brace depths at which template literals'
// substitutions (${ ... }) are open.
type jsScanner struct {
	s      *jsScript
	i      int
	braces int
	subst  []int
}

// scan tokenises the whole script.
func (s *jsScript) scan() {
	sc := &jsScanner{s: s}
	for sc.i < len(s.src) {
		sc.next()
	}
}

func (sc *jsScanner) emit(k jsKind, off int, text string, p byte) {
	sc.s.toks = append(sc.s.toks, jsTok{kind: k, off: off, text: text})
	sc.s.punct = append(sc.s.punct, p)
}

// regexAllowed says a slash here starts a regular expression: at the
// start, after an operator or an opening bracket, or after a keyword.
func (sc *jsScanner) regexAllowed() bool {
	n := len(sc.s.toks)
	if n == 0 {
		return true
	}
	t := sc.s.toks[n-1]
	switch t.kind {
	case jsIdent:
		return regexKeywords[t.text]
	case jsLiteral:
		return false
	case jsPunct:
		p := sc.s.punct[n-1]
		return p != ')' && p != ']' && p != '}'
	}
	return true
}

// next reads one token (or skips a space or a comment).
func (sc *jsScanner) next() {
	src, i := sc.s.src, sc.i
	c := src[i]
	switch {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		sc.i++
	case c == '/' && i+1 < len(src) && src[i+1] == '/':
		if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
			sc.i = i + j
		} else {
			sc.i = len(src)
		}
	case c == '/' && i+1 < len(src) && src[i+1] == '*':
		if j := bytes.Index(src[i+2:], []byte("*/")); j >= 0 {
			sc.i = i + 2 + j + 2
		} else {
			sc.i = len(src)
		}
	case c == '/' && sc.regexAllowed():
		sc.i = skipRegex(src, i)
		sc.emit(jsLiteral, i, "", 0)
	case c == '\'' || c == '"':
		sc.i = skipString(src, i)
		sc.emit(jsLiteral, i, "", 0)
	case c == '`':
		sc.emit(jsLiteral, i, "", 0)
		sc.template(i + 1)
	case c >= '0' && c <= '9':
		j := i
		for j < len(src) && (isIdentByte(src[j]) || src[j] == '.') {
			j++
		}
		sc.i = j
		sc.emit(jsLiteral, i, "", 0)
	case isIdentByte(c) || c == '#':
		j := i + 1
		for j < len(src) && isIdentByte(src[j]) {
			j++
		}
		sc.i = j
		sc.emit(jsIdent, i, string(src[i:j]), 0)
	case c == '=' && i+1 < len(src) && src[i+1] == '>':
		sc.i = i + 2
		sc.emit(jsArrow, i, "", 0)
	case c == '{':
		sc.braces++
		sc.i++
		sc.emit(jsPunct, i, "", c)
	case c == '}':
		if n := len(sc.subst); n > 0 && sc.subst[n-1] == sc.braces {
			sc.subst = sc.subst[:n-1]
			sc.template(i + 1) // the substitution ends: the template goes on
			return
		}
		sc.braces--
		sc.i++
		sc.emit(jsPunct, i, "", c)
	default:
		sc.i++
		sc.emit(jsPunct, i, "", c)
	}
}

// template reads a template literal's characters from i up to its end or
// to a substitution, which the tokens that follow are read in.
func (sc *jsScanner) template(i int) {
	src := sc.s.src
	for i < len(src) {
		switch src[i] {
		case '\\':
			i += 2
			continue
		case '`':
			sc.i = i + 1
			return
		case '$':
			if i+1 < len(src) && src[i+1] == '{' {
				sc.subst = append(sc.subst, sc.braces)
				sc.i = i + 2
				return
			}
		}
		i++
	}
	sc.i = len(src)
}

// skipString returns the offset after the string literal at i.
func skipString(src []byte, i int) int {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case q, '\n':
			return j + 1
		}
	}
	return len(src)
}

// skipRegex returns the offset after the regular expression literal at
// i and its flags.
func skipRegex(src []byte, i int) int {
	class := false
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '[':
			class = true
		case ']':
			class = false
		case '\n':
			return j
		case '/':
			if !class {
				for j++; j < len(src) && isIdentByte(src[j]); j++ {
				}
				return j
			}
		}
	}
	return len(src)
}

// tokenAt is the index of the first token at or after byte offset off.
func (s *jsScript) tokenAt(off int) int {
	lo, hi := 0, len(s.toks)
	for lo < hi {
		mid := (lo + hi) / 2
		if s.toks[mid].off < off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// match is the index of the token closing the bracket at token i, -1
// when it is not closed.
func (s *jsScript) match(i int) int {
	open, closer := s.punct[i], byte(0)
	switch open {
	case '(':
		closer = ')'
	case '{':
		closer = '}'
	case '[':
		closer = ']'
	default:
		return -1
	}
	depth := 0
	for j := i; j < len(s.toks); j++ {
		switch s.punct[j] {
		case open:
			depth++
		case closer:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// jsRange is the tokens of a function, from its parameters to the end of
// its body, both included.
type jsRange struct{ first, last int }

// function is the extent of the function whose parameters begin at
// 0-based line and column (where V8 puts a function: its parameter
// list's parenthesis, or a lone arrow parameter); false when the source
// there is not a function's start. The script's own function (a node
// module's wrapper: line 0, column 0, before any parameter list) is the
// whole script.
func (s *jsScript) function(line, col int64) (jsRange, bool) {
	off, ok := s.offset(line, col)
	if !ok || len(s.toks) == 0 {
		return jsRange{}, false
	}
	i := s.tokenAt(off)
	if line == 0 && col == 0 && (i >= len(s.toks) || s.punct[i] != '(') {
		return jsRange{0, len(s.toks) - 1}, true
	}
	if i >= len(s.toks) || s.toks[i].off != off {
		return jsRange{}, false
	}
	return s.extentFrom(i, false)
}

// extentFrom is the extent of the function whose parameters begin at
// token i: a parenthesised list, or (for an arrow, or when loose) one
// identifier; then a block body, or an arrow's expression body.
func (s *jsScript) extentFrom(i int, arrowOnly bool) (jsRange, bool) {
	var j int
	switch {
	case i >= len(s.toks):
		return jsRange{}, false
	case s.punct[i] == '(':
		if j = s.match(i); j < 0 {
			return jsRange{}, false
		}
		j++
	case s.toks[i].kind == jsIdent:
		j = i + 1
		if arrowOnly && (j >= len(s.toks) || s.toks[j].kind != jsArrow) {
			return jsRange{}, false
		}
	default:
		return jsRange{}, false
	}
	if j < len(s.toks) && s.toks[j].kind == jsArrow {
		j++
		if j < len(s.toks) && s.punct[j] != '{' {
			return jsRange{i, s.expressionEnd(j)}, true
		}
	} else if arrowOnly {
		return jsRange{}, false
	}
	if j >= len(s.toks) || s.punct[j] != '{' {
		return jsRange{}, false
	}
	end := s.match(j)
	if end < 0 {
		return jsRange{}, false
	}
	return jsRange{i, end}, true
}

// jsFunc is a function of a script with a name to call it by.
type jsFunc struct {
	name string
	r    jsRange
}

// notMethods are the words followed by a parenthesis and a block that
// are no method's name.
var notMethods = map[string]bool{
	"if": true, "for": true, "while": true, "switch": true, "catch": true, "function": true, "with": true, "return": true,
}

// named lists the script's functions that have a name to call them by,
// in order of their start: "function name(", "name = function (",
// "name = (...) =>", "name: ...", and a method "name(...) {" in a class
// or an object literal.
func (s *jsScript) named() []jsFunc {
	if s.funcs != nil {
		return s.funcs
	}
	s.funcs = []jsFunc{}
	n := len(s.toks)
	for i := 0; i < n; i++ {
		t := s.toks[i]
		if t.kind != jsIdent {
			continue
		}
		switch {
		case t.text == "function":
			j := i + 1
			if j < n && s.punct[j] == '*' {
				j++
			}
			if j+1 < n && s.toks[j].kind == jsIdent && s.punct[j+1] == '(' {
				if r, ok := s.extentFrom(j+1, false); ok {
					s.funcs = append(s.funcs, jsFunc{s.toks[j].text, r})
				}
			}
		case i+2 < n && (s.punct[i+1] == '=' && s.punct[i+2] != '=' || s.punct[i+1] == ':'):
			j := i + 2
			if s.toks[j].kind == jsIdent && s.toks[j].text == "async" {
				j++
			}
			if j < n && s.toks[j].kind == jsIdent && s.toks[j].text == "function" {
				for j++; j < n && s.punct[j] != '('; j++ {
					if s.toks[j].kind != jsIdent && s.punct[j] != '*' {
						break
					}
				}
				if r, ok := s.extentFrom(j, false); ok {
					s.funcs = append(s.funcs, jsFunc{t.text, r})
				}
			} else if r, ok := s.extentFrom(j, true); ok {
				s.funcs = append(s.funcs, jsFunc{t.text, r})
			}
		case i+1 < n && s.punct[i+1] == '(' && !notMethods[t.text] && i > 0 &&
			(s.punct[i-1] == '{' || s.punct[i-1] == '}' || s.punct[i-1] == ';' || s.punct[i-1] == ',' ||
				s.toks[i-1].kind == jsIdent && s.toks[i-1].text != "function"):
			if c := s.match(i + 1); c > 0 && c+1 < n && s.punct[c+1] == '{' {
				if r, ok := s.extentFrom(i+1, false); ok {
					s.funcs = append(s.funcs, jsFunc{t.text, r})
				}
			}
		}
	}
	return s.funcs
}

// enclosing is the innermost named function whose lines hold line.
func (s *jsScript) enclosing(line int64) (jsFunc, bool) {
	var best jsFunc
	found := false
	for _, f := range s.named() {
		first, last := s.span(f.r)
		if first <= line && line <= last && (!found || f.r.first > best.r.first) {
			best, found = f, true
		}
	}
	return best, found
}

// expressionEnd is the last token of an arrow function's expression body
// starting at token i: before the first comma or semicolon outside
// brackets, or the bracket that closes one opened before it.
func (s *jsScript) expressionEnd(i int) int {
	depth := 0
	for j := i; j < len(s.toks); j++ {
		switch s.punct[j] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return j - 1
			}
			depth--
		case ',', ';':
			if depth == 0 {
				return j - 1
			}
		}
	}
	return len(s.toks) - 1
}

// callLines are the lines (1-based, ascending, each once) within r where
// the function named name is called ("name(", "name`", "new name(");
// where it is never called there, the lines that name it otherwise (a
// callback passed by name). A declaration ("function name") is not a
// call.
func (s *jsScript) callLines(r jsRange, name string) []int64 {
	var calls, refs []int64
	add := func(ls []int64, l int64) []int64 {
		if n := len(ls); n == 0 || ls[n-1] != l {
			ls = append(ls, l)
		}
		return ls
	}
	for i := r.first; i <= r.last && i < len(s.toks); i++ {
		t := s.toks[i]
		if t.kind != jsIdent || t.text != name {
			continue
		}
		if i > 0 && s.toks[i-1].kind == jsIdent && s.toks[i-1].text == "function" {
			continue
		}
		l := s.line(t.off)
		if n := i + 1; n < len(s.toks) && (s.punct[n] == '(' || s.toks[n].kind == jsLiteral && s.src[s.toks[n].off] == '`') {
			calls = add(calls, l)
		} else {
			refs = add(refs, l)
		}
	}
	if len(calls) > 0 {
		return calls
	}
	return refs
}

// contains says byte offset off lies within r.
func (s *jsScript) contains(r jsRange, off int) bool {
	return r.first < len(s.toks) && r.last < len(s.toks) && s.toks[r.first].off <= off && off <= s.toks[r.last].off
}

// span is r's first and last lines (1-based).
func (s *jsScript) span(r jsRange) (first, last int64) {
	return s.line(s.toks[r.first].off), s.line(s.toks[r.last].off)
}
