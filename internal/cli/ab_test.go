package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"

	"perflab/internal/runfmt"
)

// testEnv captures a command's output.
func testEnv() (Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}, &out, &errb
}

// TestABAcceptance is the acceptance test of issue 5: on the tolower test
// service, buggy against fixed, 5 interleaved runs a side must report a
// significant drop of CPU per request, name main.search as the top gainer,
// and --fail-on with the sides swapped must exit 1.
func TestABAcceptance(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 10 real runs (~35 s)")
	}
	labtest.RequireRoot(t, "ab runs the service under a --cpus budget (cgroups)")
	bin := labtest.BuildService(t, "tolower")
	api, pp := labtest.FreeAddr(t), labtest.FreeAddr(t)
	dir := t.TempDir()
	svc := bin + " -addr " + api + " -pprof-addr " + pp
	env, out, errb := testEnv()
	start := time.Now()
	code := Main(context.Background(), []string{"ab", "--json", "--quiet", "--dir", dir, "--runs", "5",
		"-d", "2s", "--warmup", "1s", "--cpus", "1", "-c", "4", "--pprof", "http://" + pp,
		"--name", "tolower", "--base", svc + " -mode=buggy", "--new", svc + " -mode=fixed",
		"http://" + api + "/search?q=oak"}, env)
	if code != 0 {
		t.Fatalf("perflab ab exited %d\nstderr:\n%s", code, errb)
	}
	t.Logf("ab took %v", time.Since(start).Round(time.Second))
	var c runfmt.Comparison
	if err := json.Unmarshal(out.Bytes(), &c); err != nil {
		t.Fatalf("ab --json: %v\n%s", err, out)
	}
	var cpu *runfmt.MetricComparison
	for i := range c.Metrics {
		if c.Metrics[i].Name == runfmt.MetricCPU {
			cpu = &c.Metrics[i]
		}
	}
	if cpu == nil || !cpu.Significant || cpu.DeltaPct > -20 || cpu.Base.N != 5 || cpu.New.N != 5 {
		t.Fatalf("cpu_per_request = %+v; want a significant drop over 5+5 runs; warnings %q", cpu, c.Warnings)
	}
	t.Logf("cpu_per_request: %.3f ms -> %.3f ms (%+.1f%%, p=%.4f)", cpu.Base.Median, cpu.New.Median, cpu.DeltaPct, *cpu.PValue)
	top := topGainer(c.Functions, runfmt.ProfileCPU)
	if top == nil || top.Function != "main.search" || !top.Significant {
		t.Errorf("top CPU gainer = %+v; want main.search, significant", top)
	} else {
		t.Logf("top gainer: %s %.1f -> %.1f µs/request", top.Function, top.Base, top.New)
	}

	env, out, errb = testEnv()
	code = Main(context.Background(), []string{"compare", "--dir", dir, "--fail-on", "cpu_per_request>+5%", "tolower-new", "tolower-base"}, env)
	if code != int(ExitRegression) {
		t.Errorf("compare new→base with --fail-on exited %d; want %d\n%s\n%s", code, ExitRegression, out, errb)
	}
	if !strings.Contains(out.String(), "--fail-on: 1 of 1 FAILED") || !strings.Contains(errb.String(), "cpu_per_request>+5%") {
		t.Errorf("swapped compare output lacks the failure table:\n%s\n%s", out, errb)
	}
}

// topGainer is the user-code function whose cost per request fell most.
func topGainer(rows []runfmt.FunctionDelta, kind runfmt.ProfileType) *runfmt.FunctionDelta {
	var best *runfmt.FunctionDelta
	for i := range rows {
		r := &rows[i]
		if r.Profile == kind && r.UserCode && r.Delta < 0 && (best == nil || r.Delta < best.Delta) {
			best = r
		}
	}
	return best
}

// TestSharedName: runs of ./server-old against ./server-new are named
// server-base and server-new, not server-old-new.
func TestSharedName(t *testing.T) {
	for _, tc := range [][3]string{
		{"server-old", "server-new", "server"},
		{"server", "server", "server"},
		{"api_v1", "api_v2", "api_v"},
		{"old", "new", "ab"},
	} {
		if got := sharedName(tc[0], tc[1]); got != tc[2] {
			t.Errorf("sharedName(%q, %q) = %q; want %q", tc[0], tc[1], got, tc[2])
		}
	}
}
