package prose

import (
	"testing"

	"perflab/internal/runfmt"
)

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

// TestRuntimeWorkRemedy: the runtime's own work is given the advice of
// the service's language, when there is one.
func TestRuntimeWorkRemedy(t *testing.T) {
	for _, lang := range []string{"go", "jvm", "node", "python", "ruby"} {
		if WorkRemedy(runfmt.RuntimeWork{Work: runfmt.WorkGC, Lang: lang}) == "" {
			t.Errorf("no remedy for %s's GC", lang)
		}
	}
	if WorkRemedy(runfmt.RuntimeWork{Work: runfmt.WorkJIT, Lang: "jvm"}) == "" || WorkRemedy(runfmt.RuntimeWork{Work: runfmt.WorkInterpreter, Lang: "python"}) == "" ||
		WorkRemedy(runfmt.RuntimeWork{Work: runfmt.WorkRuntime, Lang: "go"}) != "" || WorkRemedy(runfmt.RuntimeWork{Work: runfmt.WorkGC}) != "" {
		t.Error("remedies for JIT, interpreter, other runtime work and work without advice")
	}
}
