package compare

import (
	"math"
	"strings"
	"testing"

	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// withUserCode makes a build's runs as `perflab run --user-code pattern`
// records them.
func withUserCode(f func(int) spec, pattern string) func(int) spec {
	return func(i int) spec {
		s := f(i)
		s.userCode = pattern
		return s
	}
}

// row is the comparison's row of fn in the CPU profile.
func row(c *runfmt.Comparison, fn string) (runfmt.FunctionDelta, bool) {
	for _, d := range c.Functions {
		if d.Function == fn && d.Profile == runfmt.ProfileCPU {
			return d, true
		}
	}
	return runfmt.FunctionDelta{}, false
}

// TestCompareClassifiesWithEachRunsUserCode: runs made with --user-code
// '^strings\.' (a user who works on the strings package) are compared
// with that rule, as their verdicts were: strings.ToLower is the user
// function whose cost fell, and main.search, no longer user code, is
// charged its own cost only. Sides with different rules are compared each
// with its own, and the comparison says so.
func TestCompareClassifiesWithEachRunsUserCode(t *testing.T) {
	const pattern = `^strings\.`
	root := t.TempDir()
	base := group5(t, root, withUserCode(buggy, pattern), 0)
	new := group5(t, root, withUserCode(fixed, pattern), 10)
	res, err := Compare(base, new, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Comparison
	lower, ok := row(c, "strings.ToLower")
	if !ok || !lower.UserCode || c.Functions[0].Function != "strings.ToLower" || math.Abs(lower.Base-1820) > 30 || lower.New != 0 {
		t.Fatalf("strings.ToLower %+v (first row %q); want the first row, user code, ≈1820 → 0 µs/request", lower, c.Functions[0].Function)
	}
	// main.search is charged its own 400-420 µs, not strings.ToLower's.
	if search, ok := row(c, "main.search"); ok && (search.UserCode || search.Base > 450) {
		t.Errorf("main.search %+v; want not user code, its own cost only", search)
	}
	for _, w := range c.Warnings {
		if strings.Contains(w, "user code") {
			t.Errorf("one rule on both sides, yet warned: %q", w)
		}
	}

	// The base runs with --user-code, the new ones with the default rule.
	mixed := group5(t, t.TempDir(), fixed, 10)
	res, err = Compare(base, mixed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c = res.Comparison
	want := "user code is decided by --user-code \"^strings\\\\.\" in the base runs and by the default rule in the new runs"
	if !hasWarning(c, want) {
		t.Errorf("warnings %q; want %q", c.Warnings, want)
	}
	if lower, ok := row(c, "strings.ToLower"); !ok || !lower.UserCode {
		t.Errorf("strings.ToLower %+v; want user code (the base runs' rule)", lower)
	}
	if search, ok := row(c, "main.search"); !ok || !search.UserCode || math.Abs(search.Base-400) > 30 || math.Abs(search.New-410) > 30 {
		t.Errorf("main.search %+v; want user code (the new runs' rule), its own ≈400 µs in base (not user code there), ≈410 in new", search)
	}
}

// TestCompareWarnsOfMixedRulesInASide: runs of one side made with
// different rules are named, each run classified by its own.
func TestCompareWarnsOfMixedRulesInASide(t *testing.T) {
	root := t.TempDir()
	var base []store.Entry
	for i := range 4 {
		s := buggy(i)
		if i == 2 {
			s.userCode = "^main\\.handler$"
		}
		base = append(base, writeRun(t, root, i, s))
	}
	res, err := Compare(base, group5(t, root, fixed, 10), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Comparison
	if !hasWarning(c, "the base runs decide user code by different rules (the default rule in "+base[0].Run.ID+", --user-code \"^main\\\\.handler$\" in "+base[2].Run.ID+")") {
		t.Errorf("warnings %q; want the base runs' two rules named with their runs", c.Warnings)
	}
	if hasWarning(c, "in the base runs and by") {
		t.Errorf("warnings %q; the sides were compared though the base side has no one rule", c.Warnings)
	}
}

// TestCompareRootDecidesForScriptsOnly: the project root a run recorded
// is part of its rule for a Python service, not for a Go one.
func TestCompareRootDecidesForScriptsOnly(t *testing.T) {
	py := func(dir string) run {
		return run{r: &runfmt.Run{ID: "x", Profiling: &runfmt.Profiling{Src: dir,
			Processes: []runfmt.ProcessProfile{{PID: 1, Runtime: runfmt.RuntimePython}}}}}
	}
	goRun := run{r: &runfmt.Run{ID: "y", Profiling: &runfmt.Profiling{Src: "/srv/a",
		Processes: []runfmt.ProcessProfile{{PID: 1, Runtime: runfmt.RuntimeGo}}}}}
	for _, tc := range []struct {
		r        run
		withRoot bool
		want     string
	}{
		{py("/srv/a"), true, "the default rule under /srv/a"},
		{py("/srv/a"), false, "the default rule"},
		{goRun, true, "the default rule"},
		{run{r: &runfmt.Run{}}, true, "the default rule"},
	} {
		if got := userCodeRule(tc.r, tc.withRoot); got != tc.want {
			t.Errorf("userCodeRule(%+v, %v) = %q; want %q", tc.r.r.Profiling, tc.withRoot, got, tc.want)
		}
	}
	var warn []string
	userCodeRules([]run{py("/srv/a")}, []run{py("/srv/b")}, &warn)
	if len(warn) != 1 || !strings.Contains(warn[0], "under /srv/a in the base runs and by the default rule under /srv/b") {
		t.Errorf("two Python roots: warnings %q; want both named", warn)
	}
}
