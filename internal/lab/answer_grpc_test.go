package lab

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

// TestAcceptanceGrpcCachePrinted: a Go API calling a local gRPC cache
// started before perflab, printing every answer (fmt.Println of the
// protobuf message) under a 1-core budget. Its calls share one HTTP/2
// connection, opened in the warm-up, in the window, or before perflab
// started (the API attached with --pid). The connection is timed; the printing line is
// finding #1 with no wait above it; the downstream row holds the cache's
// own answer time, not the API's wait for its own CPU; the cache's CPU
// per request is as /proc counts it.
func TestAcceptanceGrpcCachePrinted(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs a gRPC API and its cache under load for seconds")
	}
	labtest.RequireRoot(t, "the kernel's timing (eBPF) and cgroups")
	t.Run("channel-opened-in-warmup", func(t *testing.T) {
		cache := startPeer(t, "grpccache")
		cfg := grpcConfig(t, "buggy", cache.addr)
		cfg.Load.Concurrency = 8
		check := grpcCacheCheck(t, cache)
		r, dir := runAcceptance(t, cfg)
		b, err := os.ReadFile(filepath.Join(dir, "target.log"))
		if err != nil {
			t.Fatal(err)
		}
		check(r, string(b))
	})
	t.Run("channel-opened-in-window", func(t *testing.T) {
		cache := startPeer(t, "grpccache")
		cfg := grpcConfig(t, "buggy", cache.addr)
		// No warm-up, and a readiness probe that does not call the
		// cache (the API's pprof port): the channel opens at the
		// window's first request.
		cfg.Load.Concurrency, cfg.Warmup, cfg.ReadyURL = 8, 0, cfg.Pprof+"/debug/pprof/"
		check := grpcCacheCheck(t, cache)
		r, dir := runAcceptance(t, cfg)
		b, err := os.ReadFile(filepath.Join(dir, "target.log"))
		if err != nil {
			t.Fatal(err)
		}
		check(r, string(b))
	})
	t.Run("channel-opened-before-perflab", func(t *testing.T) {
		cache := startPeer(t, "grpccache")
		api := startQuietAPI(t, cache.addr)
		// The API's channel to the cache opens at its first call.
		resp, err := http.Get("http://" + api.addr + "/image?name=3")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		cfg := grpcConfig(t, "buggy", cache.addr)
		cfg.Command, cfg.PID = nil, api.cmd.Process.Pid
		cfg.Load.Targets[0].URL.Host, cfg.ReadyURL = api.addr, "http://"+api.addr+"/image?name=3"
		cfg.Pprof = "http://" + api.pprof
		cfg.Load.Concurrency = 8
		check := grpcCacheCheck(t, cache)
		r, _ := runAcceptance(t, cfg)
		check(r, api.stop(t))
	})
}

// TestAcceptanceGrpcSlowCacheShared: the fixed API and a cache that
// sleeps 30 ms per answer, 8 clients: 8 calls at a time share the gRPC
// connection. The kernel sees the calls overlap and counts no answers;
// the downstream row is still the cache's time, as it timed its answers,
// and the API's own parts hold little.
func TestAcceptanceGrpcSlowCacheShared(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs a gRPC API and its cache under load for seconds")
	}
	labtest.RequireRoot(t, "the kernel's timing (eBPF) and cgroups")
	cache := startPeer(t, "grpccache", "-delay", "30ms")
	cfg := grpcConfig(t, "fixed", cache.addr)
	cfg.Load.Concurrency = 8
	runq := runqueueMs(t, cache.cmd.Process.Pid)
	r, _ := runAcceptance(t, cfg)
	runq = runqueueMs(t, cache.cmd.Process.Pid) - runq
	answers, answerMs := stopwatch(t, cache.stop(t), "cache answers")
	l := ledgerOf(t, r)
	withinPeer(t, "downstream against the cache's own timing of its answers", partMs(t, l, runfmt.PartDownstream), answerMs, runq/float64(answers))
	p := l.Time.Row(runfmt.PartDownstream).Peer
	if p == nil || p.AnswersNotCounted == "" || p.AnswersPerRequest != 0 {
		t.Errorf("downstream peer %+v; want 8 calls at a time on one connection said, no answer count", p)
	}
}

// quietAPI is grpcapi in buggy mode started by the test, its output (the
// printed answers) in a file.
type quietAPI struct {
	cmd         *exec.Cmd
	addr, pprof string
	out         string
	file        *os.File
	stopped     bool
}

// startQuietAPI runs grpcapi -mode buggy against the cache at upstream
// and waits (10 s at most) until it says it listens.
func startQuietAPI(t *testing.T, upstream string) *quietAPI {
	t.Helper()
	a := &quietAPI{addr: labtest.FreeAddr(t), pprof: labtest.FreeAddr(t), out: filepath.Join(t.TempDir(), "grpcapi.log")}
	f, err := os.Create(a.out)
	if err != nil {
		t.Fatal(err)
	}
	a.file = f
	listening := &outputWatch{w: f, want: []byte("listening on"), seen: make(chan struct{})}
	a.cmd = exec.Command(ledgerServices.Binary(t, "grpcapi"), "-mode", "buggy", "-upstream", upstream, "-addr", a.addr, "-pprof-addr", a.pprof)
	a.cmd.Stdout, a.cmd.Stderr = listening, listening
	if err := a.cmd.Start(); err != nil {
		f.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { a.stop(t) })
	select {
	case <-listening.seen:
		return a
	case <-time.After(10 * time.Second):
		b, _ := os.ReadFile(a.out)
		t.Fatalf("grpcapi did not listen within 10 s: %s", b)
	}
	return nil
}

// outputWatch copies a process's output to w and closes seen once the
// output holds want; it looks no further then.
type outputWatch struct {
	w    io.Writer
	want []byte
	mu   sync.Mutex
	tail []byte // the output since the last write, less than want
	seen chan struct{}
	done bool
}

func (o *outputWatch) Write(p []byte) (int, error) {
	o.mu.Lock()
	if !o.done {
		o.tail = append(o.tail, p...)
		if bytes.Contains(o.tail, o.want) {
			o.done, o.tail = true, nil
			close(o.seen)
		} else if n := len(o.want) - 1; len(o.tail) > n {
			o.tail = append(o.tail[:0], o.tail[len(o.tail)-n:]...)
		}
	}
	o.mu.Unlock()
	return o.w.Write(p)
}

// stop ends the API gracefully (it prints its stopwatch then) and returns
// the end of its output, where the stopwatch is.
func (a *quietAPI) stop(t *testing.T) string {
	if !a.stopped {
		a.stopped = true
		a.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { a.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			a.cmd.Process.Kill()
			<-done
		}
		a.file.Close()
	}
	b, err := os.ReadFile(a.out)
	if err != nil {
		t.Fatal(err)
	}
	if i := strings.LastIndex(string(b), "upstream calls:"); i >= 0 {
		return string(b[i:])
	}
	return ""
}

// grpcCacheCheck reads the cache's CPU and waits for a CPU now; the
// function it returns reads them again after the run and checks the run
// (apiOut holds the API's "upstream calls" stopwatch: its calls over the
// same time).
func grpcCacheCheck(t *testing.T, cache *peerProcess) func(r *runfmt.Run, apiOut string) {
	t.Helper()
	pid := cache.cmd.Process.Pid
	cpuBefore := threadsCPU(t, pid)
	runq := runqueueMs(t, pid)
	return func(r *runfmt.Run, apiOut string) {
		t.Helper()
		cpuAfter := threadsCPU(t, pid)
		runq = runqueueMs(t, pid) - runq
		calls, callMs := stopwatch(t, apiOut, "upstream calls")
		answers, answerMs := stopwatch(t, cache.stop(t), "cache answers")
		t.Logf("limit %+v; findings:%s", r.Answer.First(), describeFindings(r.Findings))
		l := ledgerOf(t, r)
		down := l.Time.Row(runfmt.PartDownstream)
		if down == nil || down.Peer == nil || down.Peer.PID != pid || !hasSource(down.Sources, runfmt.LedgerKernel) {
			t.Fatalf("downstream row %+v; want the kernel's timing of the cache's connection, pid %d", down, pid)
		}
		// #1 is the printing line, no wait above it.
		rank, f := plantedRank(r.Findings, "main.getImage")
		if rank != 1 {
			t.Errorf("main.getImage ranked %d; want #1", rank)
		} else if len(f.Lines) == 0 || !strings.Contains(f.Lines[0].Text, "Println") {
			t.Errorf("first finding's lines %+v; want the Println line first", f.Lines)
		}
		// The cache answers in its handler's time, plus the loopback and
		// its own waits for a CPU; the API waited for its own CPU far
		// longer, and that is not the cache's.
		ms := partMs(t, l, runfmt.PartDownstream)
		limit := 2 + answerMs + runq/float64(answers)
		t.Logf("the API waited %.3f ms per call, the cache's handler took %.3f ms (%d answers, %.3f ms waiting for a CPU each); the downstream row %.3f ms",
			callMs, answerMs, answers, runq/float64(answers), ms)
		if ms > limit {
			t.Errorf("downstream %.3f ms per request; want the cache's own answer time, under %.3f ms", ms, limit)
		}
		for _, f := range r.Findings {
			if f.Kind == runfmt.FindingDownstreamWait {
				t.Errorf("a downstream-wait finding (%s): want no advice to make the cache faster", title(f))
			}
		}
		// The cache's CPU per request against /proc's per call over the
		// run (its warm-up included, as the API counted its calls), each
		// thread's to the nanosecond.
		if c := down.Peer.CPUMsPerRequest; c == nil {
			t.Errorf("the cache's CPU per request not measured: %s", down.Peer.CPUNotMeasured)
		} else {
			within(t, "the cache's CPU per request (ledger) against /proc's per call", *c, (cpuAfter-cpuBefore)*1000/float64(calls), 0.2)
		}
	}
}

// threadsCPU is the CPU seconds pid's threads have used, to the
// nanosecond (the first field of /proc/PID/task/TID/schedstat): a cache
// answering in a fraction of a millisecond uses a few of /proc/PID/stat's
// 10 ms ticks in a run on a busy machine.
func threadsCPU(t *testing.T, pid int) float64 {
	t.Helper()
	paths, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(paths) == 0 {
		t.Fatalf("the threads of process %d: %v", pid, err)
	}
	var ns float64
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // a thread that exited
		}
		var run float64
		if _, err := fmt.Sscan(string(b), &run); err == nil {
			ns += run
		}
	}
	return ns / 1e9
}

func hasSource(ss []runfmt.LedgerSource, s runfmt.LedgerSource) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
