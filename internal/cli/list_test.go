package cli

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"perflab/internal/labtest"
)

// TestListFmtprint is the acceptance test of `perflab list`: a run of the
// fmtprint test service, whose main.logRequest formats a whole cached
// response per request; `perflab list logRequest RUN` must show the
// fmt.Fprintln line as its costliest, with a cost per request, and the
// run's verdict must name that line.
func TestListFmtprint(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a test service under load for seconds")
	}
	labtest.RequireRoot(t, "the run confines the service to a --cpus budget (cgroups)")
	bin := labtest.BuildService(t, "fmtprint")
	api, pp := labtest.FreeAddr(t), labtest.FreeAddr(t)
	dir := t.TempDir()
	env, out, errb := testEnv()
	code := Main(context.Background(), []string{"run", "--quiet", "--dir", dir, "--name", "fmtprint", "-d", "3s", "--warmup", "1s",
		"--cpus", "1", "-c", "4", "--pprof", "http://" + pp, "http://" + api + "/file?name=3", "--",
		bin, "-addr", api, "-pprof-addr", pp}, env)
	if code != 0 {
		t.Fatalf("perflab run exited %d: %s", code, errb.String())
	}
	verdict := out.String()
	const printLine = `fmt.Fprintln(out, "resp", d, nil)`
	if !regexp.MustCompile(`main\.go:[0-9]+  ` + regexp.QuoteMeta(printLine) + `(  — [0-9.]+ (ms|µs)/request, [0-9]+%)?\n`).MatchString(verdict) {
		t.Errorf("the verdict does not name the printing line:\n%s", verdict)
	}

	env, out, errb = testEnv()
	if code := Main(context.Background(), []string{"list", "--dir", dir, "logRequest", "fmtprint"}, env); code != 0 {
		t.Fatalf("perflab list exited %d: %s", code, errb.String())
	}
	listing := out.String()
	t.Logf("listing:\n%s", listing)
	// The costliest line (by cum) among the listed lines of logRequest.
	row := regexp.MustCompile(`^\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+([0-9]+)[:!](.*)$`)
	best, bestText, bestPerReq := -1.0, "", ""
	for _, l := range strings.Split(listing, "\n") {
		m := row.FindStringSubmatch(l)
		if m == nil || m[2] == "." || m[2] == "cum" {
			continue
		}
		if v := parseDuration(m[2]); v > best {
			best, bestText, bestPerReq = v, m[6], m[4]
		}
	}
	if !strings.Contains(bestText, printLine) {
		t.Errorf("the costliest listed line is %q, want the fmt.Fprintln line", bestText)
	}
	if bestPerReq == "." || bestPerReq == "" || parseDuration(bestPerReq) <= 0 {
		t.Errorf("the costliest line has no cost per request (%q)", bestPerReq)
	}
	if !strings.Contains(listing, "line ") || !strings.Contains(listing, "-> fmt.Fprintln") {
		t.Errorf("the listing does not show the call to fmt.Fprintln:\n%s", listing)
	}

	env, _, errb = testEnv()
	if code := Main(context.Background(), []string{"list", "--dir", dir, "logReqest", "fmtprint"}, env); code != int(ExitUsage) ||
		!strings.Contains(errb.String(), `no function matches "logReqest"; near names: main.logRequest`) {
		t.Errorf("a misspelt name: exit %d, %q; want exit 2 naming main.logRequest", code, errb.String())
	}
}

// parseDuration reads a value as perflab prints it ("1.2ms", "350µs",
// "2.1s") in seconds; -1 if it is not one.
func parseDuration(s string) float64 {
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"ms", 1e-3}, {"µs", 1e-6}, {"ns", 1e-9}, {"s", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			var v float64
			if _, err := fmt.Sscan(strings.TrimSuffix(s, u.suffix), &v); err == nil {
				return v * u.scale
			}
		}
	}
	return -1
}
