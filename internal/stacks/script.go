package stacks

import "strings"

// scriptExts are the source files of the interpreted languages whose
// functions a Set keys by name and file.
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
// place (two classes' __init__ are two functions), so a Set keys them by
// name and file.
func Interpreted(file string) bool {
	return strings.HasPrefix(file, "<") || strings.HasPrefix(file, "node:") || ScriptSource(file)
}
