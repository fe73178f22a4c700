package analysis

import (
	"path"
	"regexp"
	"strings"

	"perflab/internal/stacks"
)

// rubyBlockLabel matches Ruby's labels for code inside a method that is not
// the method's own frame: "block in X", "block (2 levels) in X", "rescue in
// X", "ensure in X". X may carry a class ("Foo#bar", Ruby 3.3+ with rbspy).
var rubyBlockLabel = regexp.MustCompile(`^(?:block(?: \([0-9]+ levels\))?|rescue|ensure) in (.+)$`)

// rubyBlockMethod returns the method a Ruby frame's block belongs to, or ""
// when the frame is not a block of a Ruby file. A block's cost is the
// method's: `items.each { ... }` spends its time in "block in X", under a C
// function, under X, and the verdict should name X.
func rubyBlockMethod(name, file string) string {
	if !strings.HasSuffix(file, ".rb") || !strings.Contains(name, " in ") {
		return ""
	}
	m := rubyBlockLabel.FindStringSubmatch(name)
	if m == nil {
		return ""
	}
	return m[1]
}

// FuncLabel is how perflab names a function to the user: Python and Ruby
// names carry no module or (before Ruby 3.3) class, so their file's last two
// path elements follow, "initialize (rbhot/server.rb)"; Go names are left as
// they are, their package says where they are.
func FuncLabel(name, file string) string {
	if !stacks.Interpreted(file) {
		return name
	}
	dir, base := path.Split(file)
	if d := path.Base(strings.TrimSuffix(dir, "/")); d != "." && d != "/" && d != "" {
		base = d + "/" + base
	}
	return name + " (" + base + ")"
}

// ShortFuncName drops a Go function's package path, for lists of names
// read after the full one: "github.com/acme/api.(*Cart).Total" ->
// "(*Cart).Total", "main.convertKey" -> "convertKey". Python and Ruby
// names stay as they are.
func ShortFuncName(name, file string) string {
	if stacks.Interpreted(file) || strings.ContainsAny(name, " <[") {
		return name
	}
	rel := name[strings.LastIndexByte(name, '/')+1:]
	if _, r, ok := strings.Cut(rel, "."); ok {
		return r
	}
	return name
}
