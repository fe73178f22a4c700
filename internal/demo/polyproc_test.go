package demo

// Helpers of the framework and polyglot services' smoke tests: a service
// started under its own server (uvicorn, gunicorn, a Rust binary) on an
// address the test chose, its output kept; the CPU of a process tree; and
// timed requests, one after another or from several connections at once.

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// readyTimeout bounds a service's start: a Python framework's imports take
// seconds on a busy machine.
const readyTimeout = 60 * time.Second

// client bounds every request of these tests.
var client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 32}}

// lockedBuffer is a bytes buffer that a process writes and a test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
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

// proc is a service process the test started, in a process group of its
// own (a pre-fork server's workers are killed with it at cleanup).
type proc struct {
	cmd  *exec.Cmd
	out  *lockedBuffer // stdout and stderr
	url  string        // http://ADDR
	done chan struct{} // closed when the process has exited
}

// startProc runs argv in dir with env added, serving on addr, and waits
// (at most readyTimeout) until GET /healthz answers 200.
func startProc(t *testing.T, dir string, env []string, addr string, argv ...string) *proc {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	p := &proc{cmd: cmd, out: &lockedBuffer{}, url: "http://" + addr, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %q: %v", argv, err)
	}
	go func() { cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	})
	deadline := time.Now().Add(readyTimeout)
	for {
		if resp, err := client.Get(p.url + "/healthz"); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p
			}
		}
		select {
		case <-p.done:
			t.Fatalf("%q exited before it answered: %v\n%s", argv, cmd.ProcessState, p.out)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q did not answer GET /healthz within %v:\n%s", argv, readyTimeout, p.out)
		}
	}
}

// stop sends SIGTERM, waits (at most 20 s) for a clean exit, and returns
// what the process printed. uvicorn re-raises the SIGTERM it handled
// after its graceful shutdown, so dying of that signal is clean too.
func (p *proc) stop(t *testing.T) string {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s still running 20s after SIGTERM:\n%s", p.cmd.Path, p.out)
	}
	ws, _ := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ws.Exited() && !(ws.Signaled() && ws.Signal() == syscall.SIGTERM) || ws.Exited() && ws.ExitStatus() != 0 {
		t.Errorf("%s after SIGTERM: %v\n%s", p.cmd.Path, p.cmd.ProcessState, p.out)
	}
	return p.out.String()
}

// needPython returns python3's path, skipping the test (with the reason)
// when python3 or one of the modules is not installed.
func needPython(t *testing.T, modules ...string) string {
	t.Helper()
	return labtest.NeedPython(t, modules...)
}

// serviceDir is testdata/services/name.
func serviceDir(t *testing.T, name string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "services", name))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// timedGet GETs url, checks the status is 200, and returns the body and
// how long the request took.
func timedGet(t *testing.T, url string) (string, time.Duration) {
	t.Helper()
	start := time.Now()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	took := time.Since(start)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: status %d, %v: %.200s", url, resp.StatusCode, err, b)
	}
	return string(b), took
}

// status GETs url and returns the status code.
func status(t *testing.T, url string) int {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// sequential GETs url n times, one after another, checking each body is
// want, and returns the median latency.
func sequential(t *testing.T, url, want string, n int) time.Duration {
	t.Helper()
	var took []time.Duration
	for range n {
		b, d := timedGet(t, url)
		if b != want {
			t.Fatalf("GET %s: %.200q; want %q", url, b, want)
		}
		took = append(took, d)
	}
	return median(took)
}

// concurrent GETs url from conns connections at once, each sending n
// requests one after another, and returns every request's latency.
func concurrent(t *testing.T, url string, conns, n int) []time.Duration {
	t.Helper()
	var (
		mu   sync.Mutex
		took []time.Duration
		errs []error
		wg   sync.WaitGroup
	)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				start := time.Now()
				resp, err := client.Get(url)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				mu.Lock()
				took = append(took, time.Since(start))
				if err != nil {
					errs = append(errs, err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("GET %s from %d connections: %d errors, the first: %v", url, conns, len(errs), errs[0])
	}
	return took
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}

// treeCPU is the CPU time used so far by pid and its descendants alive
// now (childCPU of each: the scheduler's own count, per thread).
func treeCPU(t *testing.T, pid int) time.Duration {
	t.Helper()
	parent := map[int]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, s := range stats {
		b, err := os.ReadFile(s)
		if err != nil {
			continue // the process exited
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b[i+1:]))
		p, err1 := strconv.Atoi(filepath.Base(filepath.Dir(s)))
		pp, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil {
			parent[p] = pp
		}
	}
	var sum time.Duration
	for p := range parent {
		for q := p; q > 1; q = parent[q] {
			if q == pid {
				sum += childCPU(t, p)
				break
			}
		}
	}
	return sum
}
