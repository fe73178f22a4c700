package lab

import (
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"perflab/internal/load"
	"perflab/internal/runfmt"
	"perflab/internal/store"
)

// TestMain lets the test binary act as a service under test: with
// PERFLAB_TEST_SERVICE=addr it serves HTTP on addr and obeys
// PERFLAB_TEST_EXIT_AFTER (exit 2 after a duration),
// PERFLAB_TEST_IGNORE_TERM (ignore SIGTERM) and PERFLAB_TEST_LEAK (keep
// that many bytes per request).
func TestMain(m *testing.M) {
	if runMachineHelper() || runProxyHelper() {
		return
	}
	if addr := os.Getenv("PERFLAB_TEST_SERVICE"); addr != "" {
		serveTestService(addr)
		return
	}
	code := m.Run()
	accServices.Remove()
	waitServices.Remove()
	ledgerServices.Remove()
	os.Exit(code)
}

func serveTestService(addr string) {
	servePprof()
	if os.Getenv("PERFLAB_TEST_IGNORE_TERM") != "" {
		signal.Ignore(syscall.SIGTERM)
	}
	if d, err := time.ParseDuration(os.Getenv("PERFLAB_TEST_EXIT_AFTER")); err == nil {
		time.AfterFunc(d, func() {
			fmt.Println("test service: crashing on purpose")
			os.Exit(2)
		})
	}
	leak, _ := strconv.Atoi(os.Getenv("PERFLAB_TEST_LEAK"))
	var mu sync.Mutex
	var kept [][]byte
	fmt.Println("test service listening on", addr)
	http.ListenAndServe(addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if leak > 0 { // keep (and touch) leak bytes per request
			b := make([]byte, leak)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			mu.Lock()
			kept = append(kept, b)
			mu.Unlock()
		}
		w.Write([]byte("ok\n"))
	}))
}

// testConfig is a short run of the test binary as a service.
func testConfig(t *testing.T, addr string, env ...string) Config {
	t.Helper()
	u, err := load.ParseURL("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Config{
		Name:     strings.ReplaceAll(t.Name(), "/", "-"),
		Store:    store.Store{Root: t.TempDir()},
		Load:     load.Config{Targets: []load.Target{{Method: "GET", URL: u, Header: http.Header{}}}, Concurrency: 2, Duration: time.Second},
		Command:  []string{exe},
		Env:      append([]string{"PERFLAB_TEST_SERVICE=" + addr}, env...),
		ReadyURL: "http://" + addr + "/", ReadyTimeout: 10 * time.Second,
		StopGrace: 500 * time.Millisecond, Profiler: ProfilerNone, NoGCTrace: true,
	}
}

// readRun checks the run directory was written and returns its record.
func readRun(t *testing.T, res *Result) *runfmt.Run {
	t.Helper()
	if res == nil {
		t.Fatal("no run directory was created")
	}
	r, err := runfmt.ReadFile(res.Dir)
	if err != nil {
		t.Fatalf("run.json: %v", err)
	}
	return r
}

// noLeftovers fails if any perflab cgroup named for this test remains, or a
// process started with marker in its command line still runs.
func noLeftovers(t *testing.T, name, marker string) {
	t.Helper()
	for _, root := range []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/memory", "/sys/fs/cgroup/unified", "/sys/fs/cgroup"} {
		matches, _ := filepath.Glob(filepath.Join(root, "*perflab-"+name+"*"))
		deeper, _ := filepath.Glob(filepath.Join(root, "*", "*", "perflab-"+name+"*"))
		if len(matches)+len(deeper) > 0 {
			t.Errorf("leaked cgroups: %v %v", matches, deeper)
		}
	}
	if marker == "" {
		return
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), marker) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && strings.Contains(string(st), ") Z ") {
			continue // a zombie: killed, not reaped by this sandbox's init
		}
		t.Errorf("leaked process %d: %q", pid, strings.ReplaceAll(string(b), "\x00", " "))
	}
}

// countProcs counts the processes whose command line starts with name.
func countProcs(name string) int {
	n := 0
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.HasPrefix(string(b), name+"\x00") {
			n++
		}
	}
	return n
}
