package analysis

import (
	"regexp"
	"strings"
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
