package lab

// Acceptance tests of the request ledger: real services with known waits
// (testdata/services), run as perflab runs them, and the ledger's rows
// held against what the services themselves timed (their stopwatches),
// what /proc says of a peer, and each other. Each run's ledger must
// explain at least 90% of the mean latency.

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// ledgerServices are the Go services of the ledger's tests, built once.
var ledgerServices = &labtest.Services{Names: []string{"grpcapi", "grpccache", "slowpeer", "sleepy"}}

// peerProcess is a process the service calls, outside its budget.
type peerProcess struct {
	cmd         *exec.Cmd
	out         *syncBuffer
	addr, pprof string
	once        sync.Once
}

// syncBuffer is a bytes.Buffer written by a process and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startPeer runs a Go test service as a peer on a free address and waits
// (10 s at most) until it says it listens.
func startPeer(t *testing.T, name string, args ...string) *peerProcess {
	t.Helper()
	addr := labtest.FreeAddr(t)
	p := &peerProcess{out: &syncBuffer{}, addr: addr, pprof: labtest.FreeAddr(t)}
	p.cmd = exec.Command(ledgerServices.Binary(t, name), append([]string{"-addr", addr, "-pprof-addr", p.pprof}, args...)...)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.stop(t) })
	if !labtest.Until(10*time.Second, func() bool { return strings.Contains(p.out.String(), "listening on") }) {
		t.Fatalf("%s did not listen within 10 s: %s", name, p.out.String())
	}
	return p
}

// stop ends the peer gracefully (it prints its stopwatch then) and returns
// its output.
func (p *peerProcess) stop(t *testing.T) string {
	p.once.Do(func() {
		p.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { p.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			<-done
		}
	})
	return p.out.String()
}

// stopwatch reads a service's "NAME: N waits, mean X ms" line from out.
func stopwatch(t *testing.T, out, name string) (n int, mean float64) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), name+": "); ok {
			if _, err := fmt.Sscanf(rest, "%d waits, mean %f ms", &n, &mean); err == nil {
				return n, mean
			}
		}
	}
	t.Fatalf("no %q line in:\n%s", name, out)
	return 0, 0
}

// ledgerOf returns r's ledger, logged, and checks it explains at least 90%
// of the mean latency.
func ledgerOf(t *testing.T, r *runfmt.Run) *runfmt.Ledger {
	t.Helper()
	l := r.Ledger
	if l == nil || l.Time == nil {
		t.Fatalf("no ledger; warnings %v", r.Warnings)
	}
	findingsClaimRows(t, r)
	a := l.Time
	t.Logf("ledger: mean latency %.3f ms, explained %.1f%%, unexplained %.3f ms", a.LatencyMs, a.ExplainedPct, a.UnexplainedMs)
	for _, row := range a.Rows {
		if ms, ok := row.Ms(); ok && ms > 0.0005 {
			t.Logf("  %-11s %8.3f ms %v %s", row.Part, ms, row.Sources, row.Note)
		}
		if p := row.Peer; p != nil {
			t.Logf("  peer %+v", *p)
		}
	}
	for _, n := range l.Notes {
		t.Logf("  note: %s", n)
	}
	if k := l.Kernel; k != nil {
		t.Logf("  kernel: %+v", *k)
	}
	if k := l.Kernel; k == nil || k.Unavailable != "" {
		t.Fatalf("no kernel timing: %+v", k)
	}
	if a.ExplainedPct < 90 {
		t.Errorf("the ledger explains %.1f%% of the mean latency; want at least 90%%", a.ExplainedPct)
	}
	return l
}

// partMs is the milliseconds of part p (summed over its rows); it fails
// when p was not measured.
func partMs(t *testing.T, l *runfmt.Ledger, p runfmt.LedgerPart) float64 {
	t.Helper()
	var sum float64
	for _, row := range l.Time.Rows {
		if row.Part != p {
			continue
		}
		ms, ok := row.Ms()
		if !ok {
			t.Fatalf("%s not measured: %s", p, row.NotMeasured)
		}
		sum += ms
	}
	return sum
}

// withinPeer checks a peer's time as the kernel timed it against the
// peer's own stopwatch, want: within 15%, plus up to the peer's own waits
// for a CPU per answer (runqMs), which the kernel's answer time holds and
// the stopwatch inside its handler does not.
func withinPeer(t *testing.T, what string, got, want, runqMs float64) {
	t.Helper()
	t.Logf("%s: %.3f ms; want %.3f ms -15%% to +15%% + the peer's %.3f ms waiting for a CPU per answer", what, got, want, runqMs)
	if got < 0.85*want || got > 1.15*want+runqMs {
		t.Errorf("%s %.3f ms; want %.3f to %.3f ms", what, got, 0.85*want, 1.15*want+runqMs)
	}
}

// runqueueMs is how long pid's threads have waited for a CPU, from
// /proc/PID/task/TID/schedstat's second field.
func runqueueMs(t *testing.T, pid int) float64 {
	t.Helper()
	paths, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(paths) == 0 {
		t.Fatalf("the threads of process %d: %v", pid, err)
	}
	ns := 0.0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // a thread that exited
		}
		if f := strings.Fields(string(b)); len(f) >= 2 {
			v, _ := strconv.ParseFloat(f[1], 64)
			ns += v
		}
	}
	return ns / 1e6
}

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	t.Logf("%s: %.3f ms; want %.3f ms ±%.0f%% (%+.1f%%)", what, got, want, 100*tol, 100*(got-want)/want)
	if math.Abs(got-want) > tol*want {
		t.Errorf("%s %.3f ms; want %.3f ms ±%.0f%%", what, got, want, 100*tol)
	}
}

// grpcConfig is grpcapi in mode against the cache at upstream, profiled
// through its pprof port, its whole window traced.
func grpcConfig(t *testing.T, mode, upstream string) Config {
	addr, pprofAddr := labtest.FreeAddr(t), labtest.FreeAddr(t)
	cfg := acceptanceConfig(t, addr, "/image?name=3", ledgerServices.Binary(t, "grpcapi"), "-mode", mode, "-upstream", upstream,
		"-addr", addr, "-pprof-addr", pprofAddr)
	cfg.Pprof, cfg.Profiler, cfg.Trace = "http://"+pprofAddr, ProfilerChoice(runfmt.ProfilerPprof), true
	cfg.Warmup, cfg.Load.Duration = 2*time.Second, 4*time.Second
	return cfg
}

func TestAcceptanceLedger(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs services and their peers under load for seconds")
	}
	labtest.RequireRoot(t, "the kernel's timing (eBPF) and cgroups")
	t.Run("grpc-print", ledgerGrpcPrint)
	t.Run("grpc-slow-cache", ledgerGrpcSlowCache)
	t.Run("grpc-slow-cache-pid", ledgerGrpcSlowCachePID)
	t.Run("sleep-beside-contention", ledgerSleepContention)
	t.Run("fastapi", ledgerFastAPI)
	t.Run("gunicorn-queue", ledgerGunicornQueue)
	t.Run("throttled-gomaxprocs", ledgerThrottledGOMAXPROCS)
	t.Run("dbapp-n-plus-one", ledgerNPlusOne)
}

// ledgerThrottledGOMAXPROCS: a Go service burning 2 ms of CPU a request
// with GOMAXPROCS 2 under a 0.2-core budget (its two threads spend each
// period's quota in half of it, whatever else the machine runs): the
// ledger's throttled row is measured, and the throttling finding names
// GOMAXPROCS 2 above the quota with GOMAXPROCS=1 to try, claiming that
// row and no more.
func ledgerThrottledGOMAXPROCS(t *testing.T) {
	cfg := goService(t, "cpuburn", "/burn?us=2000")
	cfg.Env = append(cfg.Env, "GOMAXPROCS=2")
	cfg.Budget.CPUs, cfg.Load.Concurrency = 0.2, 4
	// 0.2 cores answer about 80 requests a second: a 3 s window holds 30
	// throttling periods, and the requests cut at the Go trace's ends
	// (its start waits for a throttled service's threads) weigh on the
	// few whole ones; 6 s halves that.
	cfg.Load.Duration = 6 * time.Second
	r, _ := runAcceptance(t, cfg)
	l := ledgerOf(t, r)
	throttled := partMs(t, l, runfmt.PartThrottled)
	t.Logf("throttled %.1f%% of periods (%.2f s); the ledger's throttled row %.3f ms of %.3f ms", r.Target.ThrottledPct, r.Target.ThrottledSeconds, throttled, l.Time.LatencyMs)
	if throttled <= 0 {
		t.Fatalf("throttled row %.3f ms; want the throttling measured", throttled)
	}
	for _, f := range r.Findings {
		if f.Kind == runfmt.FindingThrottled || f.Kind == runfmt.FindingGOMAXPROCS {
			if f.Figures[runfmt.FigGOMAXPROCS] != 2 || f.Advice != runfmt.AdviceMatchGOMAXPROCS {
				t.Errorf("%s finding %v advice %s; want GOMAXPROCS 2 named as the cause, GOMAXPROCS=1 to try", f.Kind, f.Figures, f.Advice)
			}
			return
		}
	}
	t.Errorf("no throttling finding; findings %v", kinds(r.Findings))
}

// kinds are the findings' kinds, in order.
func kinds(fs []runfmt.Finding) []runfmt.FindingKind {
	var out []runfmt.FindingKind
	for _, f := range fs {
		out = append(out, f.Kind)
	}
	return out
}

// ledgerGrpcPrint: the API prints every answer under a 1-core budget and
// waits for the cache far longer than the fixed API does on the same
// cache at the same load (on a quiet machine the cache answers in under
// 2 ms; a busy one stretches it, as the fixed API's wait shows). The
// downstream row is the cache's time, not the buggy API's wait, with the
// cache's process and its CPU per request as /proc counts it; the rest
// of the API's wait is its own: runnable and throttled.
func ledgerGrpcPrint(t *testing.T) {
	cache := startPeer(t, "grpccache")
	fixed := grpcConfig(t, "fixed", cache.addr)
	fixed.Load.Concurrency = 8
	ref, _ := runAcceptance(t, fixed)
	peerMs := math.Max(2, ref.Time.Kind(runfmt.TimeNetwork).Waits[runfmt.WaitDownstream])
	cpuBefore, err := service.ProcessCPUSeconds(cache.cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	cfg := grpcConfig(t, "buggy", cache.addr)
	cfg.Load.Concurrency = 8
	runq := runqueueMs(t, cache.cmd.Process.Pid)
	r, dir := runAcceptance(t, cfg)
	runq = runqueueMs(t, cache.cmd.Process.Pid) - runq
	cpuAfter, err := service.ProcessCPUSeconds(cache.cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	answers, answerMs := stopwatch(t, cache.stop(t), "cache answers")
	l := ledgerOf(t, r)
	down := l.Time.Row(runfmt.PartDownstream)
	if down == nil || down.Peer == nil || down.Peer.PID != cache.cmd.Process.Pid || down.Peer.Name != "grpccache" {
		t.Fatalf("downstream row %+v; want the cache's, pid %d", down, cache.cmd.Process.Pid)
	}
	ms := partMs(t, l, runfmt.PartDownstream)
	goDown := r.Time.Kind(runfmt.TimeNetwork).Waits[runfmt.WaitDownstream]
	own := partMs(t, l, runfmt.PartRunnable) + partMs(t, l, runfmt.PartThrottled)
	t.Logf("the cache timed its %d answers' handler at %.3f ms; the fixed API waited %.3f ms per call, the buggy one %.3f; the ledger's downstream %.3f ms, runnable and throttled %.3f ms",
		answers, answerMs, peerMs, goDown, ms, own)
	// The buggy API's burnt core slows the cache beside it: its answers
	// may take up to half as long again as the fixed API saw them, and
	// the cache's own waits for a CPU in this run (the kernel's answer
	// time holds them; its handler's stopwatch does not).
	if limit := 1.5*peerMs + runq/float64(answers); ms >= limit {
		t.Errorf("downstream %.3f ms per request; want the cache's own answer time: under 2 ms, or 1.5 × what the fixed API waits for it (%.3f ms), plus its waits for a CPU: under %.3f ms", ms, peerMs, limit)
	}
	if goDown > 2*peerMs && (ms > goDown/2 || own < goDown-1.5*peerMs) {
		t.Errorf("downstream %.3f ms, runnable and throttled %.3f ms; want most of the trace's downstream wait (%.3f ms) in the API's own parts, at least %.3f ms", ms, own, goDown, goDown-1.5*peerMs)
	}
	b, err := os.ReadFile(filepath.Join(dir, "target.log"))
	if err != nil {
		t.Fatal(err)
	}
	calls, _ := stopwatch(t, string(b), "upstream calls") // the buggy run's calls, warm-up included, as the CPU read around it
	if c := down.Peer.CPUMsPerRequest; c == nil {
		t.Errorf("the cache's CPU per request not measured: %s", down.Peer.CPUNotMeasured)
	} else {
		within(t, "the cache's CPU per request (ledger) against /proc's per call", *c, (cpuAfter-cpuBefore)*1000/float64(calls), 0.2)
	}
}

// ledgerGrpcSlowCache: the fixed API and a cache that sleeps 30 ms per
// answer, one client (a call at a time on the gRPC connection): the
// downstream row is the cache's time as it timed its answers.
func ledgerGrpcSlowCache(t *testing.T) {
	cache := startPeer(t, "grpccache", "-delay", "30ms")
	cfg := grpcConfig(t, "fixed", cache.addr)
	cfg.Load.Concurrency = 1
	runq := runqueueMs(t, cache.cmd.Process.Pid)
	r, _ := runAcceptance(t, cfg)
	runq = runqueueMs(t, cache.cmd.Process.Pid) - runq
	answers, answerMs := stopwatch(t, cache.stop(t), "cache answers")
	l := ledgerOf(t, r)
	ms := partMs(t, l, runfmt.PartDownstream)
	withinPeer(t, "downstream against the cache's own timing of its answers", ms, answerMs, runq/float64(answers))
	if ms < 30*0.85 {
		t.Errorf("downstream %.3f ms; want at least the cache's 30 ms sleep, -15%%", ms)
	}
}

// ledgerGrpcSlowCachePID: the same, the API attached with --pid: its
// peer is found and measured as for a launched service.
func ledgerGrpcSlowCachePID(t *testing.T) {
	cache := startPeer(t, "grpccache", "-delay", "30ms")
	api := startPeer(t, "grpcapi", "-mode", "fixed", "-upstream", cache.addr)
	cfg := grpcConfig(t, "fixed", cache.addr)
	cfg.Command, cfg.PID, cfg.Budget = nil, api.cmd.Process.Pid, service.Budget{}
	cfg.Load.Targets[0].URL.Host, cfg.ReadyURL = api.addr, "http://"+api.addr+"/image?name=3"
	cfg.Pprof = "http://" + api.pprof
	cfg.Load.Concurrency = 1
	runq := runqueueMs(t, cache.cmd.Process.Pid)
	r, _ := runAcceptance(t, cfg)
	runq = runqueueMs(t, cache.cmd.Process.Pid) - runq
	answers, answerMs := stopwatch(t, cache.stop(t), "cache answers")
	l := ledgerOf(t, r)
	withinPeer(t, "downstream (--pid) against the cache's own timing of its answers", partMs(t, l, runfmt.PartDownstream), answerMs, runq/float64(answers))
	if p := l.Time.Row(runfmt.PartDownstream).Peer; p == nil || p.PID != cache.cmd.Process.Pid || p.CPUMsPerRequest == nil {
		t.Errorf("downstream peer %+v; want the cache, pid %d, with its CPU per request", p, cache.cmd.Process.Pid)
	}
}

// ledgerSleepContention: a 50 ms sleep per request with two CPU-bound
// processes beside the service: the sleep is its 50 ms, and the wait for
// a CPU is measured beside it.
func ledgerSleepContention(t *testing.T) {
	for range 2 {
		// Not a child of the test: perflab counts its own descendants as
		// its helpers, not as other processes. A session of its own, its
		// launching shell gone (the spinner is the init process's), killed
		// whole by its process group.
		out, err := exec.Command("sh", "-c", `setsid timeout 120 sh -c 'while :; do :; done' >/dev/null 2>&1 </dev/null & echo $!`).Output()
		if err != nil {
			t.Fatal(err)
		}
		pgid, err := strconv.Atoi(strings.TrimSpace(string(out)))
		if err != nil {
			t.Fatalf("the spinner's pid: %q: %v", out, err)
		}
		t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	}
	addr, pprofAddr := labtest.FreeAddr(t), labtest.FreeAddr(t)
	cfg := acceptanceConfig(t, addr, "/", ledgerServices.Binary(t, "sleepy"), "-sleep", "50ms", "-addr", addr, "-pprof-addr", pprofAddr)
	cfg.Pprof, cfg.Profiler, cfg.Trace, cfg.Budget.CPUs = "http://"+pprofAddr, ProfilerChoice(runfmt.ProfilerPprof), true, 0
	r, dir := runAcceptance(t, cfg)
	l := ledgerOf(t, r)
	want := measured(t, dir, "sleeps")
	within(t, "sleep against the service's own timing of its sleeps", partMs(t, l, runfmt.PartSleep), want, 0.15)
	row := l.Time.Row(runfmt.PartRunnable)
	// The wait for a CPU is measured beside the sleep; each millisecond
	// is owned once, so when the sleep's overshoot fills the latency the
	// row is capped, and its note says what was measured.
	if ms, ok := row.Ms(); !ok || ms <= 0 && !strings.Contains(row.Note, "Capped at") {
		t.Errorf("runnable %+v; want the wait for a CPU measured beside the sleep", row)
	}
	if len(row.Processes) == 0 {
		t.Errorf("runnable names no other process busy on the CPUs (the quality block's)")
	}
}

// fastAPIConfig is fastapiapp against peer, loaded on path.
func fastAPIConfig(t *testing.T, peer, path string) Config {
	needPython(t, "fastapi", "httpx", "uvicorn")
	addr := labtest.FreeAddr(t)
	app := filepath.Join(frameworkDir(t, "fastapiapp"), "app.py")
	cfg := acceptanceConfig(t, addr, path, "python3", app, "--addr", addr, "--peer", peer)
	cfg.Profiler, cfg.Warmup, cfg.Load.Duration = ProfilerAuto, 2*time.Second, 4*time.Second
	return cfg
}

// ledgerFastAPI: an async endpoint awaiting a 40 ms peer (a suspended
// coroutine: no thread waits), a sync one blocking its pool thread, and
// time.sleep(0.03) in the pool: the downstream row is the peer's 40 ms;
// the sleep is sleep, not CPU.
func ledgerFastAPI(t *testing.T) {
	peer := startPeer(t, "slowpeer", "-delay", "40ms")
	for _, c := range []struct{ path, stopwatch string }{{"/quote", "downstream calls (async)"}, {"/quote-sync", "downstream calls (sync)"}} {
		t.Run(strings.TrimPrefix(c.path, "/"), func(t *testing.T) {
			r, dir := runAcceptance(t, fastAPIConfig(t, peer.addr, c.path))
			l := ledgerOf(t, r)
			ms := partMs(t, l, runfmt.PartDownstream)
			app := measured(t, dir, c.stopwatch)
			t.Logf("downstream %.3f ms; the service timed its calls at %.3f ms (its own delays included)", ms, app)
			if ms < 40*0.85 || ms > 1.15*math.Max(40, app) {
				t.Errorf("downstream %.3f ms; want the peer's 40 ms ±15%% (up to the %.3f ms the service timed, a busy machine stretching the peer's timer)", ms, app)
			}
			if p := l.Time.Row(runfmt.PartDownstream).Peer; p == nil || p.Name != "slowpeer" || p.CPUMsPerRequest == nil {
				t.Errorf("downstream peer %+v; want slowpeer with its CPU per request", p)
			}
		})
	}
	t.Run("nap", func(t *testing.T) {
		r, dir := runAcceptance(t, fastAPIConfig(t, peer.addr, "/nap"))
		l := ledgerOf(t, r)
		// The kernel times a thread asleep from its switch-out to its
		// wake-up; the service's stopwatch also holds its wait for a CPU
		// after it (in runnable).
		sleep, naps := partMs(t, l, runfmt.PartSleep), measured(t, dir, "naps")
		t.Logf("sleep %.3f ms; the service timed its naps at %.3f ms", sleep, naps)
		if sleep < 30*0.95 || sleep > 1.05*naps {
			t.Errorf("sleep %.3f ms; want the 30 ms nap, -5%%, up to the %.3f ms the service timed", sleep, naps)
		}
		if n := napSamples(t, dir); n > 0 {
			t.Errorf("%d samples of the CPU profile in take_nap's time.sleep: a sleep is not CPU", n)
		}
	})
}

// napSamples counts the CPU profile's samples whose innermost frame is
// fastapiapp's time.sleep(NAP_SECONDS).
func napSamples(t *testing.T, dir string) int64 {
	t.Helper()
	app, err := os.ReadFile(filepath.Join(frameworkDir(t, "fastapiapp"), "app.py"))
	if err != nil {
		t.Fatal(err)
	}
	line := int64(0)
	for i, l := range strings.Split(string(app), "\n") {
		if strings.Contains(l, "time.sleep(NAP_SECONDS)") {
			line = int64(i + 1)
		}
	}
	f, err := os.Open(filepath.Join(dir, "profiles", "cpu.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, s := range p.Sample {
		if l := s.Location[0].Line; len(l) > 0 && l[0].Function.Name == "take_nap" && l[0].Line == line {
			n += s.Value[0]
		}
	}
	return n
}

// checkNagleLedger: the JDK HttpServer as deployed (Nagle on, run r):
// each body waits for the client's delayed ACK; the network row holds it,
// with the sockets' Nagle setting as evidence, as long as the client saw
// it (the time from a response's headers to its body).
func checkNagleLedger(t *testing.T, r *runfmt.Run) {
	t.Helper()
	l := ledgerOf(t, r)
	ms := partMs(t, l, runfmt.PartNetwork)
	body, ok := r.Load.Phases["body"]
	if !ok {
		t.Fatalf("the load measured no body phase: %v", r.Load.Phases)
	}
	// The client's time from headers to body is the stall and its own
	// delay in reading the body (its event loop waiting for a CPU on a
	// busy machine): the stall is most of it, and at least the delayed
	// ACK's 40 ms, -15%.
	t.Logf("network %.3f ms; the client saw the body %.3f ms after the headers", ms, body.Mean)
	if ms < 40*0.85 || ms > 1.1*body.Mean || ms < 0.7*body.Mean {
		t.Errorf("network %.3f ms; want the delayed ACK's stall: at least 34 ms, and 0.7-1.1 × the client's time from headers to body (%.3f ms)", ms, body.Mean)
	}
	s := l.Time.Row(runfmt.PartNetwork).Socket
	if s == nil || s.NagleConns == 0 || s.NoDelayConns != 0 {
		t.Errorf("network row's sockets %+v; want Nagle on (TCP_NODELAY off) on every connection", s)
	}
}

// ledgerGunicornQueue: gunicorn's 2 sync workers behind 16 clients, a
// connection per request: the wait for a free worker is the accept row,
// the latency less the workers' own time in the handler.
func ledgerGunicornQueue(t *testing.T) {
	needPython(t, "flask", "gunicorn")
	addr := labtest.FreeAddr(t)
	cfg := acceptanceConfig(t, addr, "/work?ms=5", gunicornCmd("gunicorn")(addr)...)
	cfg.Dir, cfg.Budget.CPUs, cfg.Load.Concurrency = frameworkDir(t, "flaskapp"), 2, 16
	cfg.Warmup, cfg.Load.Duration = 2*time.Second, 4*time.Second
	r, dir := runAcceptance(t, cfg)
	l := ledgerOf(t, r)
	handler := handlerMs(t, dir)
	within(t, "accept against the latency less the workers' time in the handler", partMs(t, l, runfmt.PartAccept), r.Load.Latency.Mean-handler, 0.15)
}

// ledgerNPlusOne: dbapp on PostgreSQL over the network, one query for the
// orders and one per order for its customer (101 per request): the ledger
// names the peer as a postgres database with its 101 queries per request,
// and the n-plus-one finding comes among the first two (beside the
// database work it causes), claiming that row, naming recent_orders; with
// the JOIN (--mode fixed) no n-plus-one is said.
func ledgerNPlusOne(t *testing.T) {
	needPython(t, "flask", "psycopg")
	dsn := labtest.Postgres(t)
	for _, mode := range []string{"buggy", "fixed"} {
		t.Run(mode, func(t *testing.T) {
			addr := labtest.FreeAddr(t)
			app := filepath.Join(frameworkDir(t, "dbapp"), "app.py")
			cfg := acceptanceConfig(t, addr, "/orders", "python3", app, "--addr", addr, "--db", dsn, "--mode", mode)
			cfg.Warmup, cfg.Load.Duration, cfg.Load.Concurrency = 2*time.Second, 4*time.Second, 4
			r, dir := runAcceptance(t, cfg)
			l := ledgerOf(t, r)
			var db *runfmt.LedgerPeer
			for _, row := range l.Time.Rows {
				if row.Peer != nil && row.Peer.Database == "postgres" {
					db = row.Peer
				}
			}
			if db == nil {
				t.Fatalf("no downstream row names the postgres database: %+v", l.Time.Rows)
			}
			want := map[string]float64{"buggy": 101, "fixed": 1}[mode]
			if db.AnswersPerRequest < want*0.97 || db.AnswersPerRequest > want*1.03+0.1 {
				t.Errorf("postgres answered %.2f queries per request; want %v", db.AnswersPerRequest, want)
			}
			i := slices.IndexFunc(r.Findings, func(f runfmt.Finding) bool { return f.Kind == runfmt.FindingNPlusOne })
			if mode == "fixed" {
				if i >= 0 {
					t.Errorf("n-plus-one said of one query per request: %v", r.Findings[i].Figures)
				}
				return
			}
			// First, or second after the user function whose database
			// work it is (the same fix: the findings rank by time per
			// request, the queries' wait against the client's CPU).
			if i < 0 || i > 1 {
				t.Fatalf("n-plus-one is finding %d; want it among the first two: %v", i+1, kinds(r.Findings))
			}
			f := r.Findings[i]
			if c, ok := f.Culprit(); !ok || !strings.HasSuffix(c.Function, "recent_orders") {
				t.Errorf("n-plus-one names %+v; want recent_orders, the loop of queries; profiles %+v, warnings %q", c, r.Profiles, r.Warnings)
				logHeaviestStacks(t, runProfile(t, r, dir), 8)
			}
			findingsClaimRows(t, r)
		})
	}
}

// findingRows are the ledger rows a time finding claims.
var findingRows = map[runfmt.FindingKind][]runfmt.LedgerPart{
	runfmt.FindingDownstreamWait: {runfmt.PartDownstream}, runfmt.FindingSleep: {runfmt.PartSleep},
	runfmt.FindingLockContention: {runfmt.PartLock}, runfmt.FindingSyncWait: {runfmt.PartLock},
	runfmt.FindingPoolWait: {runfmt.PartPool}, runfmt.FindingSyscallWait: {runfmt.PartSyscall},
	runfmt.FindingClientIO: {runfmt.PartNetwork}, runfmt.FindingGCPause: {runfmt.PartGC},
	runfmt.FindingThrottled: {runfmt.PartThrottled}, runfmt.FindingSchedulerLatency: {runfmt.PartRunnable},
	runfmt.FindingCPUContention: {runfmt.PartRunnable, runfmt.PartGenerator}, runfmt.FindingNPlusOne: {runfmt.PartDownstream},
	runfmt.FindingNetworkStall: {runfmt.PartNetwork},
}

// findingsClaimRows: a time finding of a run with a ledger claims no more
// than its rows hold; no finding blames I/O beside the ledger; at the
// budget, the waiting is the CPU-bound finding's.
func findingsClaimRows(t *testing.T, r *runfmt.Run) {
	t.Helper()
	tm := r.Ledger.Time
	for _, f := range r.Findings {
		t.Logf("  finding [%s] %v", f.Kind, f.Figures)
		if f.Kind == runfmt.FindingOffCPU {
			t.Errorf("an off-cpu finding beside the ledger: %v", f.Figures)
		}
		parts, ok := findingRows[f.Kind]
		if !ok {
			continue
		}
		rows := 0.0
		for _, row := range tm.Rows {
			if ms, measured := row.Ms(); measured && slices.Contains(parts, row.Part) {
				rows += ms
			}
		}
		if us := f.Figures[runfmt.FigWaitPerRequest]; us > 1000*rows*1.001+1 {
			t.Errorf("finding %s claims %.3f ms per request; its ledger rows %v hold %.3f ms", f.Kind, us/1000, parts, rows)
		}
	}
	if tg := r.Target; tg != nil && tg.CPULimitCores > 0 && tg.CPUCoresMean >= 0.95*tg.CPULimitCores {
		if !slices.ContainsFunc(r.Findings, func(f runfmt.Finding) bool { return f.Kind == runfmt.FindingCPUBound }) {
			t.Errorf("at %.2f of a %.2f-core budget, no cpu-bound finding", tg.CPUCoresMean, tg.CPULimitCores)
		}
	}
}

// handlerMs is the mean time gunicorn's workers spent in the handler, from
// their exit lines ("work: N requests, mean X ms in the handler, ...").
func handlerMs(t *testing.T, dir string) float64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "target.log"))
	if err != nil {
		t.Fatal(err)
	}
	var n, sum float64
	for _, line := range strings.Split(string(b), "\n") {
		var reqs int
		var ms float64
		if _, err := fmt.Sscanf(strings.TrimSpace(line), "work: %d requests, mean %f ms in the handler", &reqs, &ms); err == nil {
			n += float64(reqs)
			sum += float64(reqs) * ms
		}
	}
	if n == 0 {
		t.Fatalf("no worker's work line in target.log:\n%s", b)
	}
	return sum / n
}

// logHeaviestStacks logs the n stacks of p holding the most samples, leaf
// first, for a failure's reader.
func logHeaviestStacks(t *testing.T, p *profile.Profile, n int) {
	t.Helper()
	sort.Slice(p.Sample, func(i, j int) bool { return p.Sample[i].Value[0] > p.Sample[j].Value[0] })
	for _, s := range p.Sample[:min(n, len(p.Sample))] {
		var names []string
		for _, loc := range s.Location {
			for _, l := range loc.Line {
				names = append(names, l.Function.Name)
			}
		}
		t.Logf("  %d: %s", s.Value[0], strings.Join(names, " < "))
	}
}
