package cli

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"perflab/internal/lab"
	"perflab/internal/load"
	"perflab/internal/stats"
)

// FuzzFlagValues sets every kind of typed flag value from the same input:
// nothing panics or hangs, and a value a flag accepts is one the command
// can use (finite, in its range; a schedule of bounded length).
func FuzzFlagValues(f *testing.F) {
	for _, s := range []string{"inf", "NaN", "-1", "0", "1e308", "", " ", "30s:10,3m:100", "1000h:1,1000h:2", "24h:1,1s:2",
		"2/4", "0/2", "p99<100ms,errors<1%", "p99<NaNms", "errors<inf%", "cpu_per_request>+5%", "p99>inf%",
		"http://127.0.0.1:8080/", "ftp://x/", "http://127.0.0.1:0/", "http://h:70000/", "127.0.0.1:0", ":65536",
		"500", "30000/1m", "1e300/1ns", "Content-Length: 5", "X: y", "../x", "a/b", "GET", "G ET", "(", "1h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var i int
		if newIntValue(&i, 50, 1, maxConcurrency).Set(s) == nil && (i < 1 || i > maxConcurrency) {
			t.Fatalf("int flag accepted %q as %d", s, i)
		}
		var x float64
		if newFloatValue(&x, 0, -1, 1).Set(s) == nil && (math.IsNaN(x) || x < -1 || x > 1) {
			t.Fatalf("float flag accepted %q as %v", s, x)
		}
		var d time.Duration
		if newDurationValue(&d, 0, time.Millisecond, maxDuration).Set(s) == nil && (d < time.Millisecond || d > maxDuration) {
			t.Fatalf("duration flag accepted %q as %v", s, d)
		}
		if checkRate(s) == nil {
			if r, err := load.ParseRate(s); err != nil || !(r > 0) || math.IsInf(r, 0) {
				t.Fatalf("--rate accepted %q as %v", s, r)
			}
		}
		if checkStages(s) == nil {
			st, _ := load.ParseStages(s)
			start := time.Now()
			if total := load.NewSchedule(0, st, 0).Duration(); total > maxStagesTotal || time.Since(start) > time.Second {
				t.Fatalf("--stages accepted %q: %s long, planned in %s", s, total, time.Since(start))
			}
		}
		if checkSLO(s) == nil {
			slo, _ := lab.ParseSLO(s)
			for _, o := range slo {
				if !(o.Limit > 0) || math.IsInf(o.Limit, 0) {
					t.Fatalf("--slo accepted %q with limit %v", s, o.Limit)
				}
			}
		}
		if checkFailOn(s) == nil {
			ths, _ := stats.ParseFailOn(s)
			for _, th := range ths {
				if math.IsNaN(th.Pct) || math.IsInf(th.Pct, 0) {
					t.Fatalf("--fail-on accepted %q with %v%%", s, th.Pct)
				}
			}
		}
		if checkHTTPURL(s) == nil {
			if _, err := load.ParseURL(s); err != nil {
				t.Fatalf("--ready/--pprof accepted %q, which the load refuses: %v", s, err)
			}
		}
		_ = checkShard(s)
		_ = checkListenAddr(s)
		_ = checkMethod(s)
		_ = checkHeader(s)
		_ = checkRunName(s)
		_ = checkRegexp(s)
	})
}

// TestHelpPrintsNoZeroDefault: no flag of any command says "(default 0s)"
// or "(default [])" in its help, beside a usage that says what the zero
// means ("default 10s", "repeatable").
func TestHelpPrintsNoZeroDefault(t *testing.T) {
	env, _, _ := testEnv()
	walk(newRoot(env), func(c *cobra.Command) {
		usages := c.LocalFlags().FlagUsages()
		for _, zero := range []string{"(default 0s)", "(default [])"} {
			if strings.Contains(usages, zero) {
				t.Errorf("%s: help says %s:\n%s", c.CommandPath(), zero, usages)
			}
		}
	})
}
