package cli

import (
	"strings"
	"testing"
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
