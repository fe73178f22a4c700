package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// serviceEnv turns the test binary into a service for the fault tests:
// PERFLAB_CLI_SERVICE=ADDR serves 200 on ADDR; PERFLAB_CLI_IGNORE_TERM
// ignores SIGTERM; PERFLAB_CLI_SPEW=N writes N bytes to stdout first;
// PERFLAB_CLI_HANG_PPROF answers /debug/pprof/ but never sends a profile.
const serviceEnv = "PERFLAB_CLI_SERVICE"

// servedEnv names a file the fault service creates once it has answered
// servedMark requests: the load is under way, and answered.
const (
	servedEnv  = "PERFLAB_CLI_SERVED"
	servedMark = 50
)

// waitServed waits until the fault service created its marker file.
func waitServed(t *testing.T, marker string, timeout time.Duration) {
	t.Helper()
	labtest.Eventually(t, timeout, fmt.Sprintf("the service to answer %d requests", servedMark), func() bool {
		_, err := os.Stat(marker)
		return err == nil
	})
}

// TestMain lets the test binary stand in for perflab's own and for the
// services of the tests: run with "demo-service" as its first argument it
// is the bundled demo service, as `perflab demo` launches it
// (env.Executable is the test binary); with serviceEnv set, the fault
// tests' service.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "demo-service" {
		os.Exit(Main(context.Background(), os.Args[1:], OSEnv()))
	}
	if addr := os.Getenv(serviceEnv); addr != "" {
		serveFaultService(addr)
		return
	}
	code := m.Run()
	if perflabBin.dir != "" {
		os.RemoveAll(perflabBin.dir)
	}
	os.Exit(code)
}

func serveFaultService(addr string) {
	if os.Getenv("PERFLAB_CLI_IGNORE_TERM") != "" {
		signal.Ignore(syscall.SIGTERM)
	}
	var spew int
	fmt.Sscan(os.Getenv("PERFLAB_CLI_SPEW"), &spew)
	if spew > 0 {
		os.Stdout.Write(bytes.Repeat([]byte("spew spew spew spew spew spew spew\n"), spew/36+1))
	}
	mux := http.NewServeMux()
	var served atomic.Int64
	marker := os.Getenv(servedEnv)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok\n"))
		if served.Add(1) == servedMark && marker != "" {
			os.WriteFile(marker, nil, 0o644)
		}
	})
	if os.Getenv("PERFLAB_CLI_HANG_PPROF") != "" {
		mux.HandleFunc("/debug/pprof/", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/debug/pprof/" {
				w.Write([]byte("Types of profiles available:"))
				return
			}
			<-r.Context().Done()
		})
	}
	fmt.Println("fault service listening on", addr)
	http.ListenAndServe(addr, mux)
}

// perflabBin is perflab's binary, built once for the fault tests, which
// send it real signals.
var perflabBin struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func buildPerflab(t *testing.T) string {
	t.Helper()
	perflabBin.once.Do(func() {
		if perflabBin.dir, perflabBin.err = os.MkdirTemp("", "perflab-cli-faults-"); perflabBin.err != nil {
			return
		}
		perflabBin.path = filepath.Join(perflabBin.dir, "perflab")
		out, err := exec.Command("go", "build", "-o", perflabBin.path, "perflab/cmd/perflab").CombinedOutput()
		if err != nil {
			perflabBin.err = fmt.Errorf("go build perflab: %v\n%s", err, out)
		}
	})
	if perflabBin.err != nil {
		t.Fatal(perflabBin.err)
	}
	return perflabBin.path
}

// faultRun is one perflab process under test.
type faultRun struct {
	cmd    *exec.Cmd
	stderr *lockedBuffer
	stdout *lockedBuffer
	lines  chan string
	done   chan struct{} // closed when perflab has exited
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startPerflab runs perflab with args and the service's environment.
func startPerflab(t *testing.T, env []string, args ...string) *faultRun {
	t.Helper()
	cmd := exec.Command(buildPerflab(t), args...)
	cmd.Env = append(os.Environ(), env...)
	r := &faultRun{cmd: cmd, stderr: &lockedBuffer{}, stdout: &lockedBuffer{}, lines: make(chan string, 100), done: make(chan struct{})}
	cmd.Stdout = r.stdout
	pr, pw := io.Pipe()
	cmd.Stderr = io.MultiWriter(r.stderr, pw)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			select {
			case r.lines <- sc.Text():
			default:
			}
		}
	}()
	go func() {
		cmd.Wait()
		pw.Close()
		close(r.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		select {
		case <-r.done:
		case <-time.After(10 * time.Second):
		}
	})
	return r
}

// waitFor waits for a stderr line containing s.
func (r *faultRun) waitFor(t *testing.T, s string, timeout time.Duration) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case line := <-r.lines:
			if strings.Contains(line, s) {
				return
			}
		case <-deadline:
			t.Fatalf("no %q on stderr within %s:\n%s", s, timeout, r.stderr.String())
		}
	}
}

// exit waits for perflab to end within timeout and returns its exit code.
func (r *faultRun) exit(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-r.done:
		return r.cmd.ProcessState.ExitCode()
	case <-time.After(timeout):
		t.Fatalf("perflab still runs %s after the fault:\n%s", timeout, r.stderr.String())
	}
	return -1
}

// onlyRun reads the one run of dir.
func onlyRun(t *testing.T, dir string) *runfmt.Run {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "*", runfmt.FileName))
	if len(m) != 1 {
		t.Fatalf("%d run.json files in %s; want 1", len(m), dir)
	}
	r, err := runfmt.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCtrlCInEveryPhase interrupts perflab run, with a real SIGINT, while
// it waits for the service, warms it up, measures, and waits for a pprof
// endpoint: each time it exits 130 at once with the partial run written.
func TestCtrlCInEveryPhase(t *testing.T) {
	if testing.Short() {
		t.Skip("runs perflab against real services")
	}
	labtest.RequireRoot(t, "perflab run confines the service in a cgroup")
	exe, _ := os.Executable()
	for _, tc := range []struct {
		name, trigger string
		args, env     []string
		measured      bool
	}{
		{"ready", "waiting for", []string{"--ready-timeout", "60s"}, nil, false},
		{"warm-up", "warming up", []string{"--warmup", "60s"}, nil, false},
		{"window", "measuring", []string{"-d", "60s"}, nil, true},
		{"profile fetch", "profiling through", []string{"--profiler", "pprof"}, []string{"PERFLAB_CLI_HANG_PPROF=1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr, dir := labtest.FreeAddr(t), t.TempDir()
			serviceAddr := addr
			if tc.name == "ready" {
				// The service listens elsewhere: never ready.
				addr, serviceAddr = labtest.RefusedAddr(t), labtest.FreeAddr(t)
			}
			args := append([]string{"run", "--dir", dir, "--warmup", "0", "-c", "2", "--profiler", "none"}, tc.args...)
			if tc.name == "profile fetch" {
				args = append(args, "--pprof", "http://"+addr)
			}
			args = append(args, "http://"+addr+"/", "--", exe)
			start := time.Now()
			marker := filepath.Join(t.TempDir(), "served")
			r := startPerflab(t, append([]string{serviceEnv + "=" + serviceAddr, servedEnv + "=" + marker}, tc.env...), args...)
			r.waitFor(t, tc.trigger, 30*time.Second)
			t.Logf("%q after %s", tc.trigger, time.Since(start))
			if tc.measured {
				waitServed(t, marker, 30*time.Second)
			}
			r.cmd.Process.Signal(os.Interrupt)
			code := r.exit(t, 15*time.Second)
			t.Logf("exit %d after %s", code, time.Since(start))
			if code != int(ExitInterrupted) {
				t.Errorf("exit %d, want 130:\n%s", code, r.stderr.String())
			}
			run := onlyRun(t, dir)
			if run.Status != runfmt.StatusPartial || !strings.Contains(run.PartialReason, "interrupted") {
				t.Errorf("run.json: status %s, reason %q; want partial, interrupted", run.Status, run.PartialReason)
			}
			if tc.measured && (run.Load == nil || run.Load.Requests == 0) {
				t.Errorf("what was measured before Ctrl-C is lost: %+v", run.Load)
			}
		})
	}
}

// TestSecondCtrlCDuringTheStop: a service that ignores SIGTERM makes
// perflab wait its grace period; a second Ctrl-C ends the wait (SIGKILL at
// once) and the run is still written.
func TestSecondCtrlCDuringTheStop(t *testing.T) {
	if testing.Short() {
		t.Skip("runs perflab against a real service")
	}
	labtest.RequireRoot(t, "perflab run confines the service in a cgroup")
	exe, _ := os.Executable()
	addr, dir := labtest.FreeAddr(t), t.TempDir()
	marker := filepath.Join(t.TempDir(), "served")
	r := startPerflab(t, []string{serviceEnv + "=" + addr, "PERFLAB_CLI_IGNORE_TERM=1", servedEnv + "=" + marker},
		"run", "--dir", dir, "--warmup", "0", "-c", "2", "-d", "60s", "--profiler", "none", "http://"+addr+"/", "--", exe)
	r.waitFor(t, "measuring", 30*time.Second)
	waitServed(t, marker, 30*time.Second)
	r.cmd.Process.Signal(os.Interrupt)
	r.waitFor(t, "stopping the service", 30*time.Second) // in the 5 s grace period of SIGTERM
	start := time.Now()
	r.cmd.Process.Signal(os.Interrupt)
	code := r.exit(t, 15*time.Second)
	if code != int(ExitInterrupted) || time.Since(start) > 3*time.Second {
		t.Errorf("exit %d %s after the second Ctrl-C; want 130 at once:\n%s", code, time.Since(start), r.stderr.String())
	}
	if run := onlyRun(t, dir); run.Load == nil || run.Load.Requests == 0 {
		t.Errorf("the run is lost: %+v", run.Load)
	}
}

// TestFullAndReadOnlyDir mounts a tiny tmpfs as --dir: a service that
// fills it mid-run makes the run unsavable, which is an error naming the
// path (exit 3) after the measurements are printed; a read-only --dir is
// bad input found before the service starts (exit 2).
func TestFullAndReadOnlyDir(t *testing.T) {
	if testing.Short() {
		t.Skip("runs perflab against a real service")
	}
	labtest.RequireRoot(t, "mounts a tmpfs")
	exe, _ := os.Executable()
	mount := func(opts string) string {
		dir := t.TempDir()
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "perflab-test", dir).CombinedOutput(); err != nil {
			t.Skipf("cannot mount a tmpfs: %v %s", err, out)
		}
		t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
		return dir
	}
	t.Run("full", func(t *testing.T) {
		dir := mount("size=300k")
		addr := labtest.FreeAddr(t)
		r := startPerflab(t, []string{serviceEnv + "=" + addr, "PERFLAB_CLI_SPEW=2000000"},
			"run", "--dir", dir, "--warmup", "0", "-c", "2", "-d", "1s", "--profiler", "none", "http://"+addr+"/", "--", exe)
		code := r.exit(t, 60*time.Second)
		stderr := r.stderr.String()
		if code != int(ExitFailed) || !strings.Contains(stderr, dir) || !strings.Contains(stderr, "no space left") {
			t.Errorf("exit %d, stderr %q; want 3 and an error naming %s", code, stderr, dir)
		}
		if !strings.Contains(r.stdout.String(), "requests/s") {
			t.Errorf("the measurements are not printed:\n%s", r.stdout.String())
		}
	})
	t.Run("read-only", func(t *testing.T) {
		dir := mount("ro,size=1m")
		addr := labtest.FreeAddr(t)
		r := startPerflab(t, []string{serviceEnv + "=" + addr},
			"run", "--dir", dir, "-d", "1s", "http://"+addr+"/", "--", exe)
		code := r.exit(t, 30*time.Second)
		if stderr := r.stderr.String(); code != int(ExitUsage) || !strings.Contains(stderr, dir) {
			t.Errorf("exit %d, stderr %q; want 2 and an error naming %s", code, stderr, dir)
		}
	})
}
