package capture

import "strings"

// lastLines returns the last n non-empty lines of s, joined by "; ": s is
// a files.Tail's text, whose "[...]" line where its head was cut is left out.
func lastLines(s string, n int) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && l != "[...]" {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	if len(out) == 0 {
		return "no error output"
	}
	return strings.Join(out, "; ")
}
