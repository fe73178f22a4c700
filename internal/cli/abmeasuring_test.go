package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"perflab/internal/labtest"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// checksumBuild builds the checksum test service with Rounds rounds per
// request, from a copy with a go.mod of its own, and returns the binary.
func checksumBuild(t *testing.T, rounds string) string {
	t.Helper()
	src, err := os.ReadFile("../../testdata/services/checksum/main.go")
	if err != nil {
		t.Fatal(err)
	}
	planted := strings.Replace(string(src), "const Rounds = 160", "const Rounds = "+rounds, 1)
	if rounds != "160" && planted == string(src) {
		t.Fatal("testdata/services/checksum/main.go no longer has const Rounds = 160")
	}
	dir := t.TempDir()
	for name, data := range map[string]string{"go.mod": "module checksum\n\ngo 1.26\n", "main.go": planted} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "checksum")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build checksum (Rounds %s): %v\n%s", rounds, err, out)
	}
	return bin
}

// measuringFrame says a function is perflab's own measuring as the
// service serves it: net/http/pprof's handlers, runtime/pprof's profile
// writing, runtime/trace and the runtime's tracer (not its tracebacks, nor
// the checks whether tracing is on, which run whether it is or not), and
// compression (the checksum service compresses nothing: any compress/
// frame is the profile writer's gzip).
func measuringFrame(fn string) bool {
	for _, p := range []string{"net/http/pprof.", "runtime/pprof.", "runtime/trace.", "compress/", "runtime.(*trace"} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	rest, ok := strings.CutPrefix(fn, "runtime.trace")
	return ok && !strings.HasPrefix(rest, "back") && !strings.HasPrefix(rest, "Enabled") && !strings.HasPrefix(rest, "ShuttingDown") &&
		!strings.HasPrefix(rest, "AllocFreeEnabled") && !strings.HasPrefix(rest, "fpunwindoff")
}

// TestABLeavesMeasuringOut: ab, at its default count of runs, of a 2×
// regression (checksum hashing twice the rounds per request in
// main.checksum) answers: the CPU per request's rise is significant,
// with intervals (no "too few runs", no median without its ±);
// main.checksum is listed as a significant rise, and no table, neither
// the comparison's CPU and allocation rows nor any run's hot and
// allocation tables, lists a frame of the profile and trace requests
// perflab made to the service. compare of the stored runs with
// --fail-on on the rise exits 1 with its failure table.
func TestABLeavesMeasuringOut(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 12 real runs (~60 s)")
	}
	labtest.RequireRoot(t, "ab runs the service under a --cpus budget (cgroups)")
	base, regressed := checksumBuild(t, "160"), checksumBuild(t, "320")
	api, pp := labtest.FreeAddr(t), labtest.FreeAddr(t)
	flags := " -addr " + api + " -pprof-addr " + pp
	dir := t.TempDir()
	env, out, errb := testEnv()
	code := Main(context.Background(), []string{"ab", "--json", "--quiet", "--dir", dir,
		"-d", "2s", "--warmup", "1s", "--cpus", "1", "-c", "2", "--pprof", "http://" + pp,
		"--name", "checksum", "--base", base + flags, "--new", regressed + flags, "http://" + api + "/sum"}, env)
	if code != 0 {
		t.Fatalf("perflab ab exited %d\nstderr:\n%s", code, errb)
	}
	var c runfmt.Comparison
	if err := json.Unmarshal(out.Bytes(), &c); err != nil {
		t.Fatalf("ab --json: %v\n%s", err, out)
	}
	checkABAnswers(t, &c)
	var found *runfmt.FunctionDelta
	allocRows := 0
	for i, f := range c.Functions {
		if measuringFrame(f.Function) {
			t.Errorf("the %s table lists %s (%.1f -> %.1f %s/request): perflab's own measuring", f.Profile, f.Function, f.Base, f.New, f.Unit)
		}
		if f.Profile == runfmt.ProfileAllocs {
			allocRows++
		}
		if f.Profile == runfmt.ProfileCPU && f.Function == "main.checksum" {
			found = &c.Functions[i]
		}
	}
	if allocRows == 0 {
		t.Errorf("no allocation rows compared; warnings %q", c.Warnings)
	}
	if found == nil || !found.Significant || found.New < 1.4*found.Base {
		t.Errorf("main.checksum = %+v; want a significant rise near 2×", found)
	} else {
		t.Logf("main.checksum: %.1f -> %.1f µs/request (p=%.4f)", found.Base, found.New, *found.PValue)
	}
	env, out, errb = testEnv()
	code = Main(context.Background(), []string{"compare", "--dir", dir, "--fail-on", "cpu_per_request>+5%", "checksum-base", "checksum-new"}, env)
	if code != int(ExitRegression) {
		t.Errorf("compare base→new with --fail-on exited %d; want %d\n%s\n%s", code, ExitRegression, out, errb)
	}
	if !strings.Contains(out.String(), "--fail-on: 1 of 1 FAILED") || !strings.Contains(errb.String(), "cpu_per_request>+5%") {
		t.Errorf("compare with --fail-on lacks the failure table:\n%s\n%s", out, errb)
	}
	es, err := store.Store{Root: dir}.List()
	if want := 2 * DefaultABRuns; err != nil || len(es) != want {
		t.Fatalf("runs in %s: %d, %v; want %d", dir, len(es), err, want)
	}
	for _, e := range es {
		if e.Run == nil {
			t.Fatalf("run %s: %v", e.Dir, e.Err)
		}
		for _, h := range e.Run.Hot {
			if measuringFrame(h.Function) {
				t.Errorf("run %s: its hot table lists %s (%.1f µs/request)", e.Run.ID, h.Function, h.CPUUsPerRequest)
			}
		}
		for _, a := range e.Run.Allocs {
			if measuringFrame(a.Function) {
				t.Errorf("run %s: its allocation table lists %s (%.0f B/request)", e.Run.ID, a.Function, a.BytesPerRequest)
			}
		}
	}
}

// checkABAnswers: the comparison's CPU per request changed significantly
// (p < 0.05), and its text has an interval for every median and no
// metric left without a verdict for too few runs.
func checkABAnswers(t *testing.T, c *runfmt.Comparison) {
	t.Helper()
	for _, m := range c.Metrics {
		if m.Name == runfmt.MetricCPU && (m.PValue == nil || *m.PValue >= 0.05 || !m.Significant) {
			t.Errorf("CPU per request %+v; want a significant change, p < 0.05", m)
		}
	}
	var text bytes.Buffer
	if err := report.WriteCompareText(&text, c); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"± ∞", "too few runs", "no 95% interval", "?"} {
		if strings.Contains(text.String(), bad) {
			t.Errorf("the comparison says %q:\n%s", bad, text.String())
		}
	}
}
