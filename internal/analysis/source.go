package analysis

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"perflab/internal/files"
	"perflab/internal/runfmt"
)

// Sources finds and reads the source files a profile names, for listings
// and culprit lines. Files are looked up at their recorded path, then under
// each SearchPath directory with the recorded path and its successive
// suffixes (a binary built elsewhere or with -trimpath records
// "github.com/x/y/handlers.go": it is found as DIR/handlers.go or
// DIR/y/handlers.go), as pprof's -source_path does. A zero Sources reads
// recorded paths only. Reads are bounded; not safe for concurrent use.
type Sources struct {
	SearchPath []string
	cache      map[string]*SourceFile
}

// maxSourceBytes bounds a source file perflab reads (a generated file of
// more is not worth listing).
const maxSourceBytes = 8 << 20

// SourceFile is a source file as read, or why it could not be.
type SourceFile struct {
	// Path is where it was found ("" if not found).
	Path  string
	Lines []string
	// ModTime is the file's modification time.
	ModTime time.Time
	// Err says why the file could not be read.
	Err error
}

// File returns the source file recorded as name (never nil).
func (s *Sources) File(name string) *SourceFile {
	if s.cache == nil {
		s.cache = map[string]*SourceFile{}
	}
	if f, ok := s.cache[name]; ok {
		return f
	}
	f := s.find(name)
	s.cache[name] = f
	return f
}

func (s *Sources) find(name string) *SourceFile {
	if name == "" {
		return &SourceFile{Err: fmt.Errorf("the profile records no source file")}
	}
	var firstErr error
	for _, cand := range s.candidates(name) {
		f := readSource(cand)
		if f.Err == nil {
			return f
		}
		if firstErr == nil || !os.IsNotExist(f.Err) {
			firstErr = f.Err
		}
	}
	if os.IsNotExist(firstErr) {
		where := "at that path"
		if len(s.SearchPath) > 0 {
			where += " or under " + strings.Join(s.SearchPath, ", ")
		}
		return &SourceFile{Err: fmt.Errorf("source not found: %s (looked %s; give --source-path DIR if the sources are elsewhere)", name, where)}
	}
	return &SourceFile{Err: firstErr}
}

// candidates lists the paths tried for a recorded name.
func (s *Sources) candidates(name string) []string {
	out := []string{name}
	rel := strings.TrimPrefix(filepath.ToSlash(name), "/")
	for _, dir := range s.SearchPath {
		for p := rel; p != ""; {
			out = append(out, filepath.Join(dir, p))
			_, rest, ok := strings.Cut(p, "/")
			if !ok {
				break
			}
			p = rest
		}
	}
	return out
}

// readSource reads path's lines: a regular file of text, at most
// maxSourceBytes.
func readSource(path string) *SourceFile {
	f := &SourceFile{Path: path}
	fh, err := files.Open(path, maxSourceBytes) // no FIFO, nothing too large
	if err != nil {
		f.Err = err
		return f
	}
	defer fh.Close()
	st, err := fh.Stat()
	switch {
	case err != nil:
		f.Err = err
	case !st.Mode().IsRegular():
		f.Err = fmt.Errorf("source %s: not a regular file", path)
	case st.Size() > maxSourceBytes:
		f.Err = fmt.Errorf("source %s: %d bytes, more than perflab reads (%d)", path, st.Size(), maxSourceBytes)
	}
	if f.Err != nil {
		return f
	}
	b, err := io.ReadAll(io.LimitReader(fh, maxSourceBytes+1))
	if err != nil {
		f.Err = fmt.Errorf("reading source %s: %w", path, err)
		return f
	}
	if bytes.IndexByte(b[:min(len(b), 8<<10)], 0) >= 0 {
		f.Err = fmt.Errorf("source %s: not a text file", path)
		return f
	}
	f.ModTime = st.ModTime()
	f.Lines = strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
	if n := len(f.Lines); n > 0 && f.Lines[n-1] == "" {
		f.Lines = f.Lines[:n-1]
	}
	return f
}

// Text is the text of line n of the file recorded as name, trimmed of
// white space; "" when the file cannot be read or has no such line.
func (s *Sources) Text(name string, n int64) string {
	line, _ := s.File(name).Line(n)
	return strings.TrimSpace(line)
}

// Line returns line n (1-based) and whether the file has it.
func (f *SourceFile) Line(n int64) (string, bool) {
	if f == nil || n < 1 || n > int64(len(f.Lines)) {
		return "", false
	}
	return f.Lines[n-1], true
}

// Matches reports whether line n of the file still lies in the function
// fn (as a profile names it): the nearest enclosing definition above it
// ("func", "def") must name fn, and the line must exist and not be blank
// or a comment. A file edited since the binary was built fails this for
// the lines that moved. known is false when the check does not apply (a
// language or a function name it cannot tell, such as a closure of
// Python's <lambda>).
func (f *SourceFile) Matches(fn string, n int64) (ok, known bool) {
	lang, want, text, exists, known := f.subject(fn, n)
	if !known || !exists {
		return false, known
	}
	trimmed := strings.TrimSpace(text)
	if trimmed == "" || strings.HasPrefix(trimmed, lineComment[lang]) {
		return false, true
	}
	name, found := f.enclosingDef(n, lang)
	return found && name == want, true
}

// DeclaredAt reports whether the function fn (as a profile names it) is
// still declared at line n, the first line the profile records for it.
// known is false when that cannot be told.
func (f *SourceFile) DeclaredAt(fn string, n int64) (ok, known bool) {
	lang, want, text, exists, known := f.subject(fn, n)
	if !known || !exists {
		return false, known
	}
	name, _ := declName(text, lang)
	return name == want, true
}

// subject is what the checks of line n against fn compare: the file's
// language, the name fn's definition carries, and the line; known is false
// when no check applies.
func (f *SourceFile) subject(fn string, n int64) (lang runfmt.Runtime, want, text string, exists, known bool) {
	if f == nil || f.Err != nil || n <= 0 {
		return "", "", "", false, false
	}
	lang = sourceLang(f.Path)
	want = defName(fn, lang)
	if lang == "" || want == "" {
		return "", "", "", false, false
	}
	text, exists = f.Line(n)
	return lang, want, text, exists, true
}

// declName returns the name a line declares ("func (a *app) handle(" ->
// handle; "  def __init__(self" -> __init__) and its indentation.
func declName(text string, lang runfmt.Runtime) (string, int) {
	var m []string
	switch lang {
	case runfmt.RuntimeGo:
		if m = goFuncDecl.FindStringSubmatch(text); m != nil {
			return m[1], 0
		}
	case runfmt.RuntimePython:
		if m = pyDefDecl.FindStringSubmatch(text); m != nil {
			return m[2], len(m[1])
		}
	case runfmt.RuntimeRuby:
		if m = rbDefDecl.FindStringSubmatch(text); m != nil {
			return m[2], len(m[1])
		}
	}
	return "", -1
}

// lineComment is each language's line-comment prefix.
var lineComment = map[runfmt.Runtime]string{runfmt.RuntimeGo: "//", runfmt.RuntimePython: "#", runfmt.RuntimeRuby: "#"}

// sourceLang is the runtime a source file is written for, by its
// extension; "" for another.
func sourceLang(path string) runfmt.Runtime {
	switch filepath.Ext(path) {
	case ".go":
		return runfmt.RuntimeGo
	case ".py", ".pyx":
		return runfmt.RuntimePython
	case ".rb":
		return runfmt.RuntimeRuby
	}
	return ""
}

var (
	goFuncDecl = regexp.MustCompile(`^func\s+(?:\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_]*)\s*[\[(]`)
	pyDefDecl  = regexp.MustCompile(`^(\s*)(?:async\s+)?def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(`)
	rbDefDecl  = regexp.MustCompile(`^(\s*)def\s+(?:self\.)?([A-Za-z_][A-Za-z0-9_]*[?!=]?)`)
)

// enclosingDef finds the definition line n belongs to and returns its name:
// for Go the nearest top-level func at or above n; for Python and Ruby the
// nearest def at n or above it that is indented less than line n.
func (f *SourceFile) enclosingDef(n int64, lang runfmt.Runtime) (string, bool) {
	line := f.Lines[n-1]
	if name, _ := declName(line, lang); name != "" {
		return name, true
	}
	indent := len(line) - len(strings.TrimLeft(line, " \t"))
	if lang == runfmt.RuntimeRuby && isRubyEnd(line) {
		indent++ // a method's own "end" lines up with its def
	}
	for i := n - 1; i >= 1; i-- {
		if name, in := declName(f.Lines[i-1], lang); name != "" && (lang == runfmt.RuntimeGo || in < indent) {
			return name, true
		}
	}
	return "", false
}

// isRubyEnd reports whether a Ruby line only closes a block or method.
func isRubyEnd(line string) bool {
	t := strings.TrimSpace(line)
	return t == "end" || t == "}"
}

// goInit matches package initialisers: "init", "init.0", "glob..func1".
var goInit = regexp.MustCompile(`^(init(\.[0-9]+)*|glob\..*)$`)

// stripTypeArgs removes a Go name's bracketed type arguments:
// "api.(*Cache[...]).Get" -> "api.(*Cache).Get".
func stripTypeArgs(fn string) string {
	if !strings.Contains(fn, "[") {
		return fn
	}
	var b strings.Builder
	depth := 0
	for _, r := range fn {
		switch {
		case r == '[':
			depth++
		case r == ']' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// goClosure matches the suffixes Go gives closures and wrappers:
// "F.func1", "F.func1.2", "F.gowrap1", "M-fm".
var goClosure = regexp.MustCompile(`(\.(func|gowrap|deferwrap)[0-9]+(\.[0-9]+)*|-fm)+$`)

// defName is the name fn's definition carries in the source: the method or
// function name without package, receiver, class or closure suffix; "" when
// it cannot be told.
func defName(fn string, lang runfmt.Runtime) string {
	switch lang {
	case runfmt.RuntimeGo:
		fn = goClosure.ReplaceAllString(stripTypeArgs(fn), "")
		rel := fn[strings.LastIndexByte(fn, '/')+1:]
		if _, r, ok := strings.Cut(rel, "."); ok {
			rel = r
		}
		if goInit.MatchString(rel) {
			return "" // package initialisers have no declaration of their own
		}
		return rel[strings.LastIndexByte(rel, '.')+1:]
	case runfmt.RuntimePython:
		if i := strings.LastIndexByte(fn, '.'); i >= 0 {
			fn = fn[i+1:]
		}
	case runfmt.RuntimeRuby:
		if m := rubyBlockLabel.FindStringSubmatch(fn); m != nil {
			fn = m[1]
		}
		if i := strings.LastIndexAny(fn, "#."); i >= 0 {
			fn = fn[i+1:]
		}
	}
	if strings.HasPrefix(fn, "<") || fn == "" {
		return "" // <module>, <lambda>, <main>, <class:Foo>
	}
	return fn
}
