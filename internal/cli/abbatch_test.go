package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// TestABBatchRefusesARequestMetric: ab of batch programs (no URL) refuses a
// --fail-on rule on a metric only services have, which could never fire,
// before running anything: exit 2, one line naming the metric and the
// metrics a batch A/B has.
func TestABBatchRefusesARequestMetric(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ab", "--base", "true", "--new", "true", "--fail-on", "p99>+5%"}, "--fail-on p99>+5%: a batch A/B (no URL) has no p99"},
		{[]string{"ab", "--base", "true", "--new", "true", "--fail-on", "wall_time>+5%,rps<-5%"}, "--fail-on rps<-5%: a batch A/B (no URL) has no rps"},
		{[]string{"ab", "--git", "HEAD~1..HEAD", "--fail-on", "cpu_per_request>+5%", "--", "true"}, "has no cpu_per_request"},
	} {
		args := append([]string{tc.args[0], "--dir", dir}, tc.args[1:]...)
		code, stdout, stderr := perflab(t, args...)
		if code != int(ExitUsage) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 ||
			!strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "its metrics are wall_time, cpu_time, rss_max") {
			t.Errorf("perflab %q: exit %d, stderr %q, stdout %q; want exit 2 and one line naming the metric and wall_time, cpu_time, rss_max", args, code, stderr, stdout)
		}
	}
}

// TestABBatchFailedRunsAreNotCompared: ab of batch programs whose new
// side crashes (SIGSEGV) in every run reports that side as failed, prints
// no comparison and exits 3; when it crashes in half its runs, the runs
// that completed are compared, a warning says how many failed, and ab
// exits 3 after the comparison.
func TestABBatchFailedRunsAreNotCompared(t *testing.T) {
	labtest.RequireRoot(t, "batch programs run in cgroups")
	if testing.Short() {
		t.Skip("12 runs of batch programs")
	}
	dir := t.TempDir()
	const work = `i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done`
	base := "sh -c '" + work + "'"
	code, stdout, stderr := runMain(t, "ab", "--dir", dir, "--quiet", "--json", "--profiler", "none", "--runs", "2",
		"--base", base, "--new", "sh -c 'kill -SEGV $$'")
	if code != int(ExitFailed) || stdout != "" || !strings.Contains(stderr, "new failed: its program failed in all 2 runs (killed by signal 11") {
		t.Errorf("new crashing every run: exit %d, stdout %q, stderr %q; want exit 3, no comparison, new named as failed", code, stdout, stderr)
	}
	// Every second run of new crashes: runs 1 and 3 of 4.
	counter := filepath.Join(dir, "count")
	flaky := "sh -c 'n=$(cat " + counter + " 2>/dev/null || echo 0); echo $((n+1)) > " + counter + "; [ $((n % 2)) -eq 1 ] || kill -SEGV $$; " + work + "'"
	code, stdout, stderr = runMain(t, "ab", "--dir", dir, "--quiet", "--json", "--profiler", "none", "--runs", "4",
		"--base", base, "--new", flaky)
	var c runfmt.Comparison
	if err := json.Unmarshal([]byte(stdout), &c); err != nil {
		t.Fatalf("new crashing half its runs: exit %d, stderr %q: --json: %v\n%s", code, stderr, err, stdout)
	}
	want := "new: its program failed in 2 of 4 runs (killed by signal 11"
	if code != int(ExitFailed) || len(c.Base.Runs) != 4 || len(c.New.Runs) != 2 || len(c.Warnings) == 0 || !strings.HasPrefix(c.Warnings[0], want) ||
		!strings.Contains(stderr, want) {
		t.Errorf("new crashing half its runs: exit %d, %d+%d runs compared, warnings %q, stderr %q; want exit 3, 4+2 runs and the warning %q",
			code, len(c.Base.Runs), len(c.New.Runs), c.Warnings, stderr, want)
	}
}
