package prose

import "testing"

// TestRemedies: each language perf profiles has a remedy of its own for
// stacks that stop early and for code it cannot name, and C's is the
// default.
func TestRemedies(t *testing.T) {
	c := UnwindRemedy("")
	for _, lang := range []string{"rust", "jvm", "node", "go", "python"} {
		if u := UnwindRemedy(lang); u == "" || u == c {
			t.Errorf("UnwindRemedy(%q) = %q; want a remedy of its own", lang, u)
		}
	}
	n := NamingRemedy("")
	for _, lang := range []string{"rust", "jvm", "node", "python", "ruby"} {
		if r := NamingRemedy(lang); r == "" || r == n {
			t.Errorf("NamingRemedy(%q) = %q; want a remedy of its own", lang, r)
		}
	}
}
