package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// stuckOnMutex blocks until mu is unlocked.
//
//go:noinline
func stuckOnMutex(mu *sync.Mutex, started *sync.WaitGroup) {
	started.Done()
	mu.Lock()
	defer mu.Unlock()
}

// testCode is this test binary's own code, as the service's.
func testCode(fn, _ string) bool { return strings.HasPrefix(fn, "perflab/internal/capture.") }

func TestGoroutinesLive(t *testing.T) {
	var mu sync.Mutex
	var started sync.WaitGroup
	const n = 7
	mu.Lock()
	started.Add(n)
	for range n {
		go stuckOnMutex(&mu, &started)
	}
	defer mu.Unlock()
	started.Wait()
	srv := httptest.NewServer(pprof.Handler("goroutine"))
	defer srv.Close()
	c := &Client{}
	// Each goroutine has passed Done: wait (bounded) until all of them
	// are parked in Lock.
	var g runfmt.StuckGroup
	labtest.Until(10*time.Second, func() bool {
		s, err := c.Goroutines(context.Background(), srv.URL+"/debug/pprof", 42, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if s.PID != 42 || s.Bytes == 0 {
			t.Errorf("snapshot of pid %d, %d bytes", s.PID, s.Bytes)
		}
		g = groupIn(GroupThreads([]*Snapshot{s}, testCode), "perflab/internal/capture.stuckOnMutex")
		return g.Count == n
	})
	if g.Count != n || g.Blocking != "sync.(*Mutex).Lock" || g.Wait != "sync" || !strings.HasSuffix(g.File, "snapshot_live_test.go") {
		t.Errorf("group %+v; want %d goroutines in sync.(*Mutex).Lock", g, n)
	}
}

func groupIn(groups []runfmt.StuckGroup, fn string) runfmt.StuckGroup {
	for _, g := range groups {
		if g.Function == fn {
			return g
		}
	}
	return runfmt.StuckGroup{}
}

// An endpoint that never answers costs the snapshot its time limit, and
// one that is not net/http/pprof's is said to be so.
func TestGoroutinesBadEndpoint(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	mux := http.NewServeMux()
	mux.HandleFunc("/hang/debug/pprof/goroutine", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/html/debug/pprof/goroutine", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>login</html>")
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := &Client{}
	start := time.Now()
	_, err := c.Goroutines(context.Background(), srv.URL+"/hang", 1, 300*time.Millisecond)
	if !errors.Is(err, ErrTimeout) || time.Since(start) > 10*time.Second {
		t.Errorf("hanging endpoint: %v after %s; want ErrTimeout after 300ms", err, time.Since(start))
	}
	for _, path := range []string{"/html", "/none"} {
		if _, err := c.Goroutines(context.Background(), srv.URL+path, 1, 5*time.Second); !errors.Is(err, ErrNoEndpoint) {
			t.Errorf("%s: %v; want ErrNoEndpoint", path, err)
		}
	}
}

// startScript runs a program that prints "ready" once set up, and
// returns its process.
func startScript(t *testing.T, ready string, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	startBusy(t, cmd)
	waitLine(t, out, ready, 60*time.Second)
	go io.Copy(io.Discard, out)
	return cmd
}

// silentPeer accepts connections and never answers; it returns its address.
func silentPeer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// pyWaiters is a Python program whose 5 threads block in recv on a peer
// that never answers, with no timeout (the test's peer closes their
// connections when it ends).
const pyWaiters = `import socket, sys, threading, time
host, port = sys.argv[1].rsplit(":", 1)
def wait_peer():
    s = socket.create_connection((host, int(port)))
    s.recv(10)
for _ in range(5):
    threading.Thread(target=wait_peer, daemon=True).start()
print("ready", flush=True)
time.sleep(60)
`

func TestPySpyDumpLive(t *testing.T) {
	labtest.NeedTool(t, "py-spy", "")
	py := labtest.NeedTool(t, "python3", "")
	script := filepath.Join(t.TempDir(), "waiters.py")
	if err := writeFile(script, pyWaiters); err != nil {
		t.Fatal(err)
	}
	cmd := startScript(t, "ready", py, script, silentPeer(t))
	pid := cmd.Process.Pid
	user := func(fn, file string) bool { return file == script }
	// The threads started before "ready": wait (bounded) until all five
	// are in recv.
	var g runfmt.StuckGroup
	var s *Snapshot
	for try := 0; try < 50 && g.Count != 5; try++ {
		// The kernel's view first: py-spy pauses the process, which
		// turns a timed wait into restart_syscall.
		kt, err := KernelThreads(pid)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		s, err = PySpyDump(ctx, pid)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		s.JoinKernel(kt)
		g = groupIn(GroupThreads([]*Snapshot{s}, user), "wait_peer")
	}
	if g.Count != 5 || g.Line != 5 || g.Blocking != "recvfrom" || g.Syscall != "recvfrom" || g.Wait != "network" || g.PIDs[0] != pid {
		t.Errorf("group %+v; want 5 threads in recvfrom at line 5 of wait_peer", g)
	}
	t.Logf("py-spy dump: %d threads, %d bytes, %s", len(s.Threads), s.Bytes, s.Elapsed)
	for _, th := range s.Threads {
		if k := th.Kernel; k != nil && k.Syscall == "recvfrom" && k.Inode == 0 {
			t.Errorf("thread %d in recvfrom on fd %d: no socket inode", th.TID, k.FD)
		}
	}
}

func TestRbSpySnapshotLive(t *testing.T) {
	labtest.NeedTool(t, "rbspy", "")
	rb := labtest.NeedTool(t, "ruby", "")
	script := filepath.Join(t.TempDir(), "asleep.rb")
	src := "def inner\n  sleep 60\nend\ndef outer\n  inner\nend\nputs 'ready'\n$stdout.flush\nouter\n"
	if err := writeFile(script, src); err != nil {
		t.Fatal(err)
	}
	cmd := startScript(t, "ready", rb, script)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var names []string
	for try := 0; try < 50 && !strings.Contains(strings.Join(names, " "), "inner outer"); try++ {
		s, err := RbSpySnapshot(ctx, cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		names = names[:0]
		for _, f := range s.Threads[0].Frames {
			names = append(names, f.Function)
		}
	}
	if !strings.Contains(strings.Join(names, " "), "inner outer") {
		t.Errorf("rbspy snapshot frames %q; want inner called by outer, innermost first", names)
	}
}

func TestJcmdThreadsLive(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a JVM")
	}
	java := labtest.NeedTool(t, "java", "")
	labtest.NeedTool(t, "jcmd", jcmdTool.install)
	src, _ := filepath.Abs("testdata/snapshot/StuckThreads.java")
	cmd := startScript(t, "ready", java, src)
	pid := cmd.Process.Pid
	user := func(fn, _ string) bool { return strings.HasPrefix(fn, "StuckThreads.") }
	var groups []runfmt.StuckGroup
	// Started before "ready": wait (bounded) until the workers are
	// blocked and the reader is in read.
	for try := 0; try < 50 && (groupIn(groups, "StuckThreads.take").Count != 3 || groupIn(groups, "StuckThreads.readPeer").Syscall != "read"); try++ {
		kt, err := KernelThreads(pid)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		s, err := JcmdThreads(ctx, pid)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		s.JoinKernel(kt)
		groups = GroupThreads([]*Snapshot{s}, user)
	}
	if g := groupIn(groups, "StuckThreads.take"); g.Count != 3 || g.Blocking != "a java.lang.Object" || g.Wait != "sync" {
		t.Errorf("workers %+v; want 3 threads blocked on a java.lang.Object", g)
	}
	if g := groupIn(groups, "StuckThreads.readPeer"); g.Count != 1 || g.Wait != "network" || g.Syscall != "read" {
		t.Errorf("reader %+v; want 1 thread waiting on the network in read", g)
	}
}

// A process no tool reads: the kernel's view alone names its wait.
func TestKernelSnapshot(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	startBusy(t, cmd)
	var g runfmt.StuckGroup
	labtest.Until(10*time.Second, func() bool {
		kt, err := KernelThreads(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		g = GroupThreads([]*Snapshot{KernelSnapshot(cmd.Process.Pid, kt)}, testCode)[0]
		return g.Syscall == "clock_nanosleep" || g.Syscall == "nanosleep"
	})
	if g.Count != 1 || g.Wait != "sleep" || g.Blocking != g.Syscall || g.Source != runfmt.StackSourceKernel || g.Located() {
		t.Errorf("group %+v; want 1 thread asleep in (clock_)nanosleep, from the kernel", g)
	}
	if _, err := KernelThreads(1 << 22); !errors.Is(err, ErrProcessGone) {
		t.Errorf("KernelThreads(missing pid) = %v; want ErrProcessGone", err)
	}
}

func TestStackToolMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	ctx := context.Background()
	for _, tc := range []struct {
		run  func(context.Context, int) (*Snapshot, error)
		want string
	}{
		{PySpyDump, "py-spy not found: pip install py-spy to read Python threads' stacks"},
		{RbSpySnapshot, "rbspy not found: cargo install rbspy"},
		{JcmdThreads, "jcmd not found: install a JDK, which has it (apt-get install default-jdk-headless)"},
	} {
		if _, err := tc.run(ctx, 1); !errors.Is(err, ErrToolMissing) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v; want ErrToolMissing saying %q", err, tc.want)
		}
	}
}
