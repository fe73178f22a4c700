// Package funcname is how perflab names a function to the user, from the
// name and file a profile gives it: with its file for the interpreted
// languages, whose names do not say where they are (Label), and without
// its package in a list read after the full name (Short). It imports no
// other perflab package, so the packages that compute (analysis, stacks)
// and the one that renders (report) name functions the same way.
package funcname

import (
	"path"
	"strconv"
	"strings"
)

// scriptExts are the source files of the interpreted languages.
var scriptExts = []string{".py", ".pyx", ".rb", ".ru", ".js", ".mjs", ".cjs", ".ts"}

// ScriptSource says file is a source file of an interpreted language
// (Python, Ruby, JavaScript), by its extension.
func ScriptSource(file string) bool {
	for _, e := range scriptExts {
		if strings.HasSuffix(file, e) {
			return true
		}
	}
	return false
}

// Interpreted says a frame's file is an interpreted language's: a source
// file (ScriptSource) or an interpreter's own pseudo-file ("<frozen
// importlib._bootstrap>", "<built-in>", Ruby's "<internal:kernel>",
// node's "node:internal/..."). Such functions are named without their
// place (two classes' __init__ are two functions).
func Interpreted(file string) bool {
	return strings.HasPrefix(file, "<") || strings.HasPrefix(file, "node:") || ScriptSource(file)
}

// Label is how perflab names a function to the user: Python and Ruby
// names carry no module or (before Ruby 3.3) class, so their file's last
// two path elements follow, "initialize (rbhot/server.rb)"; Go names are
// left as they are, their package says where they are.
func Label(name, file string) string {
	if !Interpreted(file) {
		return name
	}
	dir, base := path.Split(file)
	if d := path.Base(strings.TrimSuffix(dir, "/")); d != "." && d != "/" && d != "" {
		base = d + "/" + base
	}
	return name + " (" + base + ")"
}

// Short drops a Go function's package path, for lists of names read
// after the full one: "github.com/acme/api.(*Cart).Total" ->
// "(*Cart).Total", "main.convertKey" -> "convertKey". Python and Ruby
// names stay as they are.
func Short(name, file string) string {
	if Interpreted(file) || strings.ContainsAny(name, " <[") {
		return name
	}
	rel := name[strings.LastIndexByte(name, '/')+1:]
	if _, r, ok := strings.Cut(rel, "."); ok {
		return r
	}
	return name
}

// LineLabel names a function with where it is, for a function read in
// a library: "MultipartDecoder.next_event (sansio/multipart.py:163)",
// "google.golang.org/protobuf/internal/impl.(*MessageInfo).marshal
// (encode.go:120)"; without a line, as Label names it.
func LineLabel(name, file string, line int64) string {
	if line <= 0 || file == "" {
		return Label(name, file)
	}
	at := ":" + strconv.FormatInt(line, 10)
	if l := Label(name, file); l != name {
		return l[:len(l)-1] + at + ")" // Label's "(dir/file)" with the line
	}
	return name + " (" + path.Base(file) + at + ")"
}
