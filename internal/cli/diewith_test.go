package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// hangModule is a module whose package ./hang has a benchmark that never
// ends; it writes its process's pid to $PERFLAB_TEST_PID first. It is
// made the current directory.
func hangModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.26\n",
		"hang/a_test.go": `package hang
import ("os"; "strconv"; "testing"; "time")
func BenchmarkFast(b *testing.B) { for b.Loop() {} }
func BenchmarkHang(b *testing.B) {
	p := os.Getenv("PERFLAB_TEST_PID")
	os.WriteFile(p+".tmp", []byte(strconv.Itoa(os.Getpid())), 0o644)
	os.Rename(p+".tmp", p)
	for {
		time.Sleep(time.Second) // planted: the benchmark never ends
	}
}
`,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	return dir
}

// TestBenchTimeoutStopsAHungBenchmark: perflab bench --timeout stops a
// benchmark that never ends (Go applies -timeout to tests only), names
// it with where it was, and exits 3.
func TestBenchTimeoutStopsAHungBenchmark(t *testing.T) {
	dir := hangModule(t)
	t.Setenv("PERFLAB_TEST_PID", filepath.Join(dir, "pid"))
	start := time.Now()
	// The build of the test binary bounds this test; the benchmark must
	// be stopped 2 s into it, not when this context ends.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	code := Main(ctx, []string{"bench", "--timeout", "2s", "--count", "1", "--benchtime", "100x", "--dir", filepath.Join(dir, "runs"), "./hang"},
		Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Executable: os.Args[0]})
	stdout, stderr := out.String(), errb.String()
	if code != int(ExitFailed) || !strings.Contains(stderr, "BenchmarkHang ran past --timeout 2s") ||
		!strings.Contains(stderr, "where it was when stopped:\ngoroutine ") || !strings.Contains(stderr, "example.com/m/hang.BenchmarkHang(") {
		t.Fatalf("exit %d after %s, stderr %q, stdout %q; want exit 3 naming BenchmarkHang and its stack", code, time.Since(start), stderr, stdout)
	}
	if !strings.Contains(stdout, "partial") || !strings.Contains(stdout, "Fast") {
		t.Errorf("stdout %q; want the partial run with BenchmarkFast's result", stdout)
	}
}

// TestBenchDiesWithPerflab kills perflab bench (the built binary) with
// SIGKILL while a benchmark runs: the test binary dies with it.
func TestBenchDiesWithPerflab(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perflab")
	}
	buildPerflab(t) // from the package's directory, before the module is made the current one
	dir := hangModule(t)
	marker := filepath.Join(dir, "pid")
	r := startPerflab(t, []string{"PERFLAB_TEST_PID=" + marker}, "bench", "--timeout", "0", "--count", "1", "--benchtime", "100x", "--no-profiles",
		"--dir", filepath.Join(dir, "runs"), "./hang")
	pid := waitPidFile(t, r, marker, 5*time.Minute)
	kids := descendants(r.cmd.Process.Pid)
	if !slices.Contains(kids, pid) {
		t.Fatalf("the benchmark's process %d is not perflab's (its children: %v)", pid, kids)
	}
	killPerflab(t, r)
	waitGone(t, kids, 10*time.Second)
}

// TestBatchDiesWithPerflab kills perflab run of a batch program (the
// built binary) with SIGKILL while the program runs under perf: the
// program, perf and what they started die with it.
func TestBatchDiesWithPerflab(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perflab")
	}
	labtest.RequireRoot(t, "a batch program runs in a cgroup")
	dir := t.TempDir()
	marker := filepath.Join(dir, "pid")
	r := startPerflab(t, nil, "run", "--dir", filepath.Join(dir, "runs"), "--", "sh", "-c",
		`echo $$ > "$0.tmp" && mv "$0.tmp" "$0" && exec sleep 600`, marker)
	pid := waitPidFile(t, r, marker, 2*time.Minute)
	kids := descendants(r.cmd.Process.Pid)
	if !slices.Contains(kids, pid) {
		t.Fatalf("the program's process %d is not perflab's (its children: %v)", pid, kids)
	}
	t.Logf("perflab's processes: %s", describe(kids))
	killPerflab(t, r)
	waitGone(t, kids, 15*time.Second)
}

// waitPidFile waits for a pid to be written to path while perflab runs,
// and kills that process when the test ends.
func waitPidFile(t *testing.T, r *faultRun, path string, limit time.Duration) int {
	t.Helper()
	for deadline := time.Now().Add(limit); ; {
		if b, err := os.ReadFile(path); err == nil {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil || pid <= 0 {
				t.Fatalf("%s: %q", path, b)
			}
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			return pid
		}
		select {
		case <-r.done:
			t.Fatalf("perflab exited %d before the child started:\n%s", r.cmd.ProcessState.ExitCode(), r.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s within %s:\n%s", path, limit, r.stderr.String())
		}
	}
}

// killPerflab sends perflab SIGKILL and waits for its exit.
func killPerflab(t *testing.T, r *faultRun) {
	t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := r.exit(t, 10*time.Second); code != -1 {
		t.Fatalf("perflab exited %d; want it killed", code)
	}
}

// waitGone waits until none of pids runs, and kills those left after
// limit, failing the test.
func waitGone(t *testing.T, pids []int, limit time.Duration) {
	t.Helper()
	var left []int
	if labtest.Until(limit, func() bool {
		left = left[:0]
		for _, p := range pids {
			if procAlive(p) {
				left = append(left, p)
			}
		}
		return len(left) == 0
	}) {
		return
	}
	desc := describe(left)
	for _, p := range left {
		syscall.Kill(p, syscall.SIGKILL)
	}
	t.Fatalf("%s after perflab was killed: still running: %s", limit, desc)
}

// descendants lists the processes under pid: its children, theirs, and so on.
func descendants(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := procStat(p); len(f) > 1 {
			parent[p], _ = strconv.Atoi(f[1])
		}
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// procStat is the fields of /proc/PID/stat after the command: state,
// ppid, pgrp, ...; nil when it cannot be read.
func procStat(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

// procAlive says whether pid runs (a zombie does not).
func procAlive(pid int) bool {
	f := procStat(pid)
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// describe names processes by pid and command line.
func describe(pids []int) string {
	var out []string
	for _, p := range pids {
		cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/cmdline")
		out = append(out, strconv.Itoa(p)+" ("+strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))+")")
	}
	return strings.Join(out, ", ")
}
