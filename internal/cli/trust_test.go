package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// TestServiceExitsMidWindow: a service that stops by itself during the
// measured window, exit status 0 or killed, makes the run partial with exit
// 3 (not 0, not 130), says so first, with the service's own last lines
// (not the gctrace lines perflab asked for).
func TestServiceExitsMidWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: real runs of a service that stops")
	}
	hello := labtest.BuildService(t, "hello")
	for _, tc := range []struct {
		name, stop, status string
	}{
		{"exit 0", `kill $p; wait $p; echo "hello: goodbye from the service"; exit 0`, "exit status 0"},
		{"killed", `echo "hello: about to be killed"; kill -9 $$`, "killed by signal 9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api, pp, dir := labtest.FreeAddr(t), labtest.FreeAddr(t), t.TempDir()
			script := `"$0" -addr ` + api + ` -pprof-addr ` + pp + ` & p=$!; sleep 2.5; ` + tc.stop
			code, out, errb := perflab(t, "run", "--dir", dir, "--quiet", "-d", "4s", "--warmup", "1s", "-c", "2",
				"--profiler", "none", "http://"+api+"/", "--", "sh", "-c", script, hello)
			if code != int(ExitFailed) {
				t.Fatalf("exit %d; want 3\nstdout:\n%s\nstderr:\n%s", code, out, errb)
			}
			if !strings.HasPrefix(headlines(out)[1], "Status: partial — the service exited during the measured window ("+tc.status) {
				t.Errorf("the output does not open with the partial status:\n%s", out)
			}
			flat := strings.Join(strings.Fields(out), " ") // the page wraps long lines
			if !strings.Contains(flat, "its last lines: ") || !strings.Contains(flat, "hello: ") {
				t.Errorf("the service's own last lines are missing:\n%s", out)
			}
			if strings.Contains(flat, "its last lines: gc ") || strings.Contains(flat, "| gc ") {
				t.Errorf("gctrace lines are shown as the service's last words:\n%s", out)
			}
		})
	}
}

// TestSLOGate: --slo on a plain run and on load is checked at the end,
// printed like k6's thresholds, and a miss exits 4; met, it exits 0.
func TestSLOGate(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: real runs")
	}
	hello := labtest.BuildService(t, "hello")
	api, pp, dir := labtest.FreeAddr(t), labtest.FreeAddr(t), t.TempDir()
	run := func(slo string) (int, string, string) {
		return perflab(t, "run", "--dir", dir, "--quiet", "-d", "1s", "--warmup", "0", "-c", "2", "--profiler", "none",
			"--slo", slo, "http://"+api+"/", "--", hello, "-addr", api, "-pprof-addr", pp)
	}
	code, out, errb := run("p99<0.001ms,errors<1%")
	if code != int(ExitSLO) || !strings.Contains(out, "SLO: 1 of 2 missed\n  ✗ p99<1µs") || !strings.Contains(out, "  ✓ errors<1%") ||
		!strings.Contains(errb, "missed its SLO: p99=") {
		t.Errorf("missed SLO: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errb)
	}
	code, out, errb = run("p99<10s")
	if code != 0 || !strings.Contains(out, "SLO: met\n  ✓ p99<10s") {
		t.Errorf("met SLO: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errb)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*", runfmt.FileName))
	if len(entries) == 0 {
		t.Fatal("no run.json")
	}
	raw, _ := os.ReadFile(entries[0])
	var r runfmt.Run
	if err := json.Unmarshal(raw, &r); err != nil || r.Load == nil || len(r.Load.SLO) == 0 {
		t.Errorf("run.json has no load.slo: %v", err)
	}

	svc := startHello(t, hello, api, pp)
	defer svc()
	code, out, _ = perflab(t, "load", "--quiet", "-d", "500ms", "-c", "2", "--slo", "max<1ns", "http://"+api+"/")
	if code != int(ExitSLO) || !strings.Contains(out, "✗ max<1ns") {
		t.Errorf("load --slo: exit %d\n%s", code, out)
	}
}

// startHello runs the hello service until the returned function is called.
func startHello(t *testing.T, bin, api, pp string) func() {
	t.Helper()
	cmd := exec.Command(bin, "-addr", api, "-pprof-addr", pp)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	if !labtest.Until(10*time.Second, func() bool {
		c, err := net.Dial("tcp", api)
		if err == nil {
			c.Close()
		}
		return err == nil
	}) {
		stop()
		t.Fatalf("hello does not listen on %s", api)
	}
	return stop
}

func TestIsolationFlagsBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--service-cpus", "4000", "http://127.0.0.1:1/", "--", "true"}, `--service-cpus 4000: CPU 4000 does not exist`},
		{[]string{"run", "--load-cpus", "0-", "http://127.0.0.1:1/", "--", "true"}, `--load-cpus 0-:`},
		{[]string{"run", "--service-cpus", "0", "--load-cpus", "0", "http://127.0.0.1:1/", "--", "true"}, "--load-cpus 0 overlaps --service-cpus 0"},
		{[]string{"run", "--service-cpus", "0", "--pid", "1", "http://127.0.0.1:1/"}, "--service-cpus applies to a service perflab launches"},
		{[]string{"run", "--slo", "p99<fast", "http://127.0.0.1:1/", "--", "true"}, "--slo"},
		{[]string{"load", "--slo", "errors<lots", "http://127.0.0.1:1/"}, "--slo"},
	} {
		code, stdout, stderr := perflab(t, tc.args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != int(ExitUsage) || len(lines) != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("perflab %q: exit %d, stderr %q, stdout %q; want exit 2 and one line with %q", tc.args, code, stderr, stdout, tc.want)
		}
	}
}

// TestInterruptedExits130: Ctrl-C (the command's context cancelled) in the
// middle of a load or a run's window exits 130, after printing what
// completed.
func TestInterruptedExits130(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: real runs")
	}
	hello := labtest.BuildService(t, "hello")
	api, pp := labtest.FreeAddr(t), labtest.FreeAddr(t)
	interrupt := func(args ...string) (int, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		var out, errb bytes.Buffer
		code := Main(ctx, args, Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Executable: os.Args[0]})
		return code, out.String()
	}
	code, out := interrupt("run", "--dir", t.TempDir(), "--quiet", "-d", "20s", "--warmup", "0", "-c", "2", "--profiler", "none",
		"http://"+api+"/", "--", hello, "-addr", api, "-pprof-addr", pp)
	if code != int(ExitInterrupted) || !strings.Contains(out, "Status: partial — interrupted") || !strings.Contains(out, "Load (interrupted: the requests that completed)") {
		t.Errorf("run: exit %d; want 130 with what completed\n%s", code, out)
	}
	stop := startHello(t, hello, api, pp)
	defer stop()
	if code, out := interrupt("load", "--quiet", "-d", "20s", "-c", "2", "http://"+api+"/"); code != int(ExitInterrupted) || !strings.Contains(out, "Summary (interrupted") {
		t.Errorf("load: exit %d; want 130 with what completed\n%s", code, out)
	}
}

// headlines are a verdict's lines that do not continue the line before
// (a wrapped line is indented), with an empty one after the last.
func headlines(out string) []string {
	var hs []string
	for _, l := range strings.Split(out, "\n") {
		if l != "" && !strings.HasPrefix(l, " ") {
			hs = append(hs, l)
		}
	}
	return append(hs, "", "")
}
