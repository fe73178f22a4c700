package ledger

import (
	"math"
	"net/netip"
	"strings"
	"testing"
	"time"

	"perflab/internal/runfmt"
)

// The inputs below are shaped on runs of the test services (see
// testdata/services/README.md) on the 2-core development machine.

const n = 10000 // requests in the window

func load(meanMs float64) *runfmt.LoadResult {
	return &runfmt.LoadResult{Model: "closed", Requests: n, DurationS: 10, Latency: runfmt.Latency{Mean: meanMs, P99: 3 * meanMs}}
}

// per is a total over the window for ms per request.
func per(ms float64) time.Duration { return time.Duration(ms * n * float64(time.Millisecond)) }

func stat(count float64, msEach float64) Stat {
	c := uint64(count * n)
	return Stat{Count: c, Time: time.Duration(float64(c) * msEach * float64(time.Millisecond))}
}

func target(cpuMs float64, cgroup bool, throttledS, runqS float64) *runfmt.TargetSummary {
	src := "proc"
	if cgroup {
		src = "cgroup-v1"
	}
	return &runfmt.TargetSummary{CPUMsPerRequest: cpuMs, CPUSeconds: cpuMs * n / 1000, Source: src,
		ThrottledSeconds: throttledS, RunqueueWaitSeconds: runqS, CPULimitCores: 1}
}

func goTrace(kinds ...runfmt.TimeRow) *runfmt.TimePerRequest {
	t := &runfmt.TimePerRequest{Source: runfmt.TimeSourceGoTrace, Requests: 2000, Kinds: kinds}
	for _, k := range kinds {
		t.TotalMs += k.MsPerRequest
	}
	return t
}

func row(k runfmt.TimeKind, ms float64, waits ...any) runfmt.TimeRow {
	r := runfmt.TimeRow{Kind: k, MsPerRequest: ms}
	for i := 0; i+1 < len(waits); i += 2 {
		if r.Waits == nil {
			r.Waits = map[runfmt.Wait]float64{}
		}
		r.Waits[waits[i].(runfmt.Wait)] = waits[i+1].(float64)
	}
	return r
}

var (
	cache = netip.MustParseAddrPort("127.0.0.1:50051")
	peer  = netip.MustParseAddrPort("127.0.0.1:40123")
)

func msOf(t *testing.T, l *runfmt.Ledger, p runfmt.LedgerPart) float64 {
	t.Helper()
	var sum float64
	found := false
	for _, r := range l.Time.Rows {
		if r.Part != p {
			continue
		}
		found = true
		ms, ok := r.Ms()
		if !ok {
			t.Fatalf("%s not measured: %s", p, r.NotMeasured)
		}
		sum += ms
	}
	if !found {
		t.Fatalf("no %s row", p)
	}
	return sum
}

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.3f ms; want %.3f ±%.3f", what, got, want, tol)
	}
}

func logLedger(t *testing.T, l *runfmt.Ledger) {
	t.Helper()
	for _, r := range l.Time.Rows {
		ms, ok := r.Ms()
		if !ok {
			t.Logf("  %-11s not measured: %s", r.Part, r.NotMeasured)
			continue
		}
		t.Logf("  %-11s %8.3f %v %s", r.Part, ms, r.Sources, r.Note)
	}
	t.Logf("  unexplained %8.3f (explained %.1f%%); notes %q", l.Time.UnexplainedMs, l.Time.ExplainedPct, l.Notes)
}

// The API prints every answer (fmt.Println) under a 1-core budget: the
// Go trace's downstream wait (14.6 ms) is mostly the API's own: the
// cache answers in 0.5 ms, and the answers wait ~14 ms to be read while
// its Ps are busy. The calls share one gRPC connection: the kernel timed
// fewer answers than calls.
func TestGrpcAPIBuggy(t *testing.T) {
	in := Input{
		Runtime: runfmt.RuntimeGo, Load: load(24), Target: target(1.6, true, 4, 9),
		Quality: &runfmt.Quality{PerflabWaitMsPerRequest: 0.3},
		Time: goTrace(row(runfmt.TimeRunning, 2.9, runfmt.WaitCPU, 2.9), row(runfmt.TimeRunnable, 4.2, runfmt.WaitRunnable, 4.2),
			row(runfmt.TimeNetwork, 14.7, runfmt.WaitDownstream, 14.63, runfmt.WaitClient, 0.07), row(runfmt.TimeGC, 1.1, runfmt.WaitGCStop, 1.1),
			row(runfmt.TimeSync, 0.2, runfmt.WaitChannel, 0.2)),
		Kernel: &Kernel{Ports: []int{8080}, Requests: n, Unread: stat(1, 0.4),
			Outbound: map[netip.AddrPort]Outbound{cache: {Answers: stat(0.45, 0.5), Unread: stat(0.45, 13.8)}},
			Runnable: stat(3, 0.3)},
		Peers: map[netip.AddrPort]Peer{cache: {PID: 4242, Name: "grpccache", CPU: per(0.3)}},
	}
	in.Time.Scheduler = &runfmt.GoScheduler{GOMAXPROCS: 2, PBusyPct: 95}
	l := Build(in)
	logLedger(t, l)
	down := msOf(t, l, runfmt.PartDownstream)
	if down > 2 {
		t.Errorf("downstream %.3f ms; want the cache's own answer time, under 2 ms", down)
	}
	r := l.Time.Row(runfmt.PartDownstream)
	if p := r.Peer; p == nil || p.PID != 4242 || p.Name != "grpccache" || p.CPUMsPerRequest == nil || math.Abs(*p.CPUMsPerRequest-0.3) > 1e-6 {
		t.Errorf("downstream peer %+v; want grpccache, pid 4242, 0.3 ms of CPU per request", r.Peer)
	}
	own := msOf(t, l, runfmt.PartRunnable) + msOf(t, l, runfmt.PartThrottled)
	if own < 14 {
		t.Errorf("runnable+throttled %.3f ms; want the API's own wait once the answers arrived in it (>14 ms)", own)
	}
	if msOf(t, l, runfmt.PartThrottled) <= 0 {
		t.Error("no throttled time; the cgroup was throttled")
	}
	if l.Time.ExplainedPct < 90 {
		t.Errorf("explained %.1f%%; want ≥ 90%%", l.Time.ExplainedPct)
	}
}

// clientLoopsInput is the buggy gRPC API with its Ps half busy: 7.5 ms
// of its 14.63 ms downstream wait its client connections' goroutines ran
// or waited for a P (the trace's client loops).
func clientLoopsInput() Input {
	in := Input{
		Runtime: runfmt.RuntimeGo, Load: load(24), Target: target(1.6, true, 0, 9),
		Time:          goTrace(row(runfmt.TimeRunning, 1.6), row(runfmt.TimeNetwork, 14.7, runfmt.WaitDownstream, 14.63)),
		ClientLoopsMs: 7.5,
		Kernel: &Kernel{Ports: []int{8080}, Requests: n, Unread: stat(1, 0.4),
			Outbound: map[netip.AddrPort]Outbound{cache: {Answers: stat(0.45, 0.5), Unread: stat(0.45, 13.8)}}},
	}
	in.Time.Scheduler = &runfmt.GoScheduler{GOMAXPROCS: 2, PBusyPct: 50}
	return in
}

// The same API with its Ps half busy: the time its gRPC connection's
// goroutines waited for a P and ran (the trace's client loops) is its own
// delay, whatever the Ps' business says of the rest.
func TestGrpcAPIBuggyClientLoops(t *testing.T) {
	l := Build(clientLoopsInput())
	logLedger(t, l)
	rest := 14.63 - 0.225 - 6.21 - 7.5
	within(t, "downstream", msOf(t, l, runfmt.PartDownstream), 0.225+0.5*rest, 1e-6)
}

// The same API beside other work holding the machine's CPUs: its threads
// were ready 80% of their time without a CPU, so a free P rarely meant a
// running goroutine, and the rest of the wait is mostly its own.
func TestGrpcAPIBuggyBusyMachine(t *testing.T) {
	in := clientLoopsInput()
	in.Kernel.OnCPU, in.Kernel.Runnable = stat(10, 1), stat(10, 4)
	l := Build(in)
	logLedger(t, l)
	rest := 14.63 - 0.225 - 6.21 - 7.5
	busy := 1 - 0.5*0.2
	within(t, "downstream", msOf(t, l, runfmt.PartDownstream), 0.225+(1-busy)*rest, 1e-6)
	if note := l.Time.Row(runfmt.PartDownstream).Note; !strings.Contains(note, "how long its threads waited for a CPU (80% of their time ready") {
		t.Errorf("downstream note %q; want the threads' waits for a CPU named", note)
	}
}

// The fixed API with a cache that sleeps 30 ms per call, 8 clients on one
// gRPC connection: the kernel times one answer per burst, a few ms each,
// and the trace's wait less the reads is the peer's time.
func TestGrpcAPISlowCacheShared(t *testing.T) {
	in := Input{
		Runtime: runfmt.RuntimeGo, Load: load(33), Target: target(0.3, true, 0, 0.5),
		Time: goTrace(row(runfmt.TimeRunning, 0.3), row(runfmt.TimeRunnable, 0.4),
			row(runfmt.TimeNetwork, 31.8, runfmt.WaitDownstream, 31.8)),
		Kernel: &Kernel{Ports: []int{8080}, Requests: n, Unread: stat(1, 0.1),
			Outbound: map[netip.AddrPort]Outbound{cache: {Answers: stat(0.5, 3.8), Unread: stat(0.5, 0.2)}},
			Runnable: stat(3, 0.05)},
	}
	in.Time.Scheduler = &runfmt.GoScheduler{GOMAXPROCS: 2, PBusyPct: 6}
	in.Target.CPUCoresMean = 0.07
	l := Build(in)
	logLedger(t, l)
	within(t, "downstream", msOf(t, l, runfmt.PartDownstream), 31.8-0.1-0.07*29.8, 0.01)
	if !strings.Contains(l.Time.Row(runfmt.PartDownstream).Note, "shared HTTP/2 or gRPC connection") {
		t.Errorf("downstream note %q; want the shared connection said", l.Time.Row(runfmt.PartDownstream).Note)
	}
	if p := l.Time.Row(runfmt.PartDownstream).Peer; p.CPUNotMeasured == "" || p.CPUMsPerRequest != nil {
		t.Errorf("peer %+v; want its CPU not measured (no local process given), with why", p)
	}
}

// FastAPI awaiting a 40 ms peer in a coroutine: no thread waits, the
// kernel sees the answer at the socket; the event loop's delay reading
// the answers is the queue's.
func TestFastAPIAsync(t *testing.T) {
	in := Input{
		Runtime: runfmt.RuntimePython, Load: load(45.7), Target: target(2.6, true, 0, 2),
		Kernel: &Kernel{Ports: []int{8000}, Requests: n, Unread: stat(1, 0.9), Backlog: stat(0, 0),
			Outbound: map[netip.AddrPort]Outbound{peer: {Answers: stat(1, 40.6), Unread: stat(1, 1.1)}},
			Runnable: stat(2, 0.3), Sleep: stat(0, 0)},
		TimeWhy: "py-spy's idle stacks show no thread serving a request",
		Peers:   map[netip.AddrPort]Peer{peer: {PID: 77, Name: "slowpeer", CPU: per(0.12)}},
	}
	l := Build(in)
	logLedger(t, l)
	within(t, "downstream", msOf(t, l, runfmt.PartDownstream), 40.6, 1e-6)
	// Each read woke the event loop's thread, which waited 0.3 ms for a
	// CPU: that part of the waits to be read is runnable.
	within(t, "queue", msOf(t, l, runfmt.PartQueue), 2.0-0.6, 1e-6)
	within(t, "runnable", msOf(t, l, runfmt.PartRunnable), 0.6, 1e-6)
	within(t, "cpu", msOf(t, l, runfmt.PartCPU), 2.6, 1e-6)
	if l.Time.ExplainedPct < 90 {
		t.Errorf("explained %.1f%%; want ≥ 90%%", l.Time.ExplainedPct)
	}
	for _, p := range []runfmt.LedgerPart{runfmt.PartGC, runfmt.PartLock, runfmt.PartPool, runfmt.PartSyscall} {
		if r := l.Time.Row(p); r.MsPerRequest != nil || r.NotMeasured == "" {
			t.Errorf("%s: %+v; want not measured, with why", p, r)
		}
	}
}

// FastAPI's def endpoint in the threadpool sleeps 30 ms, then asks a 40 ms
// peer: py-spy's slice of the window sampled the sleep at 27 ms per
// request in take_nap; the kernel timed the threads asleep at 31 ms per
// request, 1 ms of it a background thread's that py-spy saw asleep 1/31
// of the time. The sleep row is the kernel's, less the background's,
// where py-spy saw it.
func TestFastAPISyncSleep(t *testing.T) {
	nap := runfmt.TimeSite{Function: "take_nap", File: "/srv/app/app.py", MsPerRequest: 27}
	sleep := row(runfmt.TimeSleep, 27, runfmt.WaitSleep, 27.0)
	sleep.Top = &nap
	in := Input{
		Runtime: runfmt.RuntimePython, Load: load(74), Target: target(2.7, true, 0, 2),
		Time: &runfmt.TimePerRequest{Source: runfmt.TimeSourcePySpy, Requests: 90,
			Kinds: []runfmt.TimeRow{row(runfmt.TimeRunning, 2.5), row(runfmt.TimeNetwork, 39, runfmt.WaitDownstream, 39.0), sleep}},
		SampledSleep: &SampledSleep{Requests: 30 * time.Second, All: 31 * time.Second},
		Kernel: &Kernel{Ports: []int{8000}, Requests: n, Unread: stat(1, 0.5),
			Outbound: map[netip.AddrPort]Outbound{peer: {Answers: stat(1, 40.5), Unread: stat(1, 0.3)}},
			Runnable: stat(2, 0.2), Sleep: stat(1.1, 31.0/1.1)},
		Peers: map[netip.AddrPort]Peer{peer: {PID: 77, Name: "slowpeer", CPU: per(0.5)}},
	}
	l := Build(in)
	logLedger(t, l)
	within(t, "sleep", msOf(t, l, runfmt.PartSleep), 30, 1e-6)
	within(t, "downstream", msOf(t, l, runfmt.PartDownstream), 40.5, 1e-6)
	r := l.Time.Row(runfmt.PartSleep)
	if len(r.Sites) != 1 || r.Sites[0].Function != "take_nap" || !strings.Contains(r.Note, "97%") {
		t.Errorf("sleep row %+v; want take_nap where py-spy saw it, and the requests' share of the threads' sleep", r)
	}
	// A kernel that could not take up the connections open at its start
	// says its count of answers may be short.
	in.Kernel.OpenWhy = "conns_pass (iter/task_file): the kernel's verifier refused it"
	if r := Build(in).Time.Row(runfmt.PartDownstream); !strings.Contains(r.Note, "verifier refused it") || !strings.Contains(r.Note, "not counted") {
		t.Errorf("downstream note %q; want the connections open at the start said not taken up, with why", r.Note)
	}
	in.Kernel.OpenWhy = ""
	// Without the sampler's view of every thread, py-spy's own figure.
	in.SampledSleep = nil
	within(t, "sleep, py-spy's alone", msOf(t, Build(in), runfmt.PartSleep), 27, 1e-6)
	// A sampler that saw no thread asleep: the kernel's sleeps were not
	// the requests'.
	in.SampledSleep, in.Time.Kinds[2] = &SampledSleep{}, row(runfmt.TimeSleep, 0)
	l = Build(in)
	if ms := msOf(t, l, runfmt.PartSleep); ms != 0 || !strings.Contains(l.Time.Row(runfmt.PartSleep).Note, "31.00 ms") {
		t.Errorf("sleep %.3f ms, %q; want 0, saying the kernel's 31 ms were not the requests'", ms, l.Time.Row(runfmt.PartSleep).Note)
	}
}

// The JDK HttpServer with Nagle on: the body waits for the client's
// delayed ACK.
func TestJavaNagle(t *testing.T) {
	in := Input{
		Runtime: runfmt.RuntimeJVM, Load: load(45), Target: target(0.9, true, 0, 1),
		Quality: &runfmt.Quality{HostCores: 2, PerflabWaitMsPerRequest: 0.05},
		Kernel: &Kernel{Ports: []int{8081}, Requests: n, Unread: stat(1, 0.5),
			Sends: Sends{Conns: 8, NagleConns: 8, Stalls: stat(1, 41.5)}, Runnable: stat(1, 0.4)},
	}
	l := Build(in)
	logLedger(t, l)
	within(t, "network", msOf(t, l, runfmt.PartNetwork), 41.5, 1e-6)
	// 1000 requests/s of 45 ms: 45 in flight, 22.5 per core; the
	// generator's 0.05 ms a request of waiting for a CPU held each of them.
	within(t, "generator", msOf(t, l, runfmt.PartGenerator), 0.05*22.5, 1e-6)
	s := l.Time.Row(runfmt.PartNetwork).Socket
	if s == nil || s.NagleConns != 8 || s.NoDelayConns != 0 || s.Conns != 8 {
		t.Errorf("network socket %+v; want 8 connections with Nagle on", s)
	}
}

// gunicorn's sync workers behind 16 connections: a new connection per
// request waits in the accept backlog for one of the 2 workers.
func TestGunicornWorkerQueue(t *testing.T) {
	in := Input{
		Runtime: runfmt.RuntimePython, Load: load(274), Target: target(6.5, true, 0, 3),
		Time: &runfmt.TimePerRequest{Source: runfmt.TimeSourcePySpy, Requests: 100,
			Kinds: []runfmt.TimeRow{row(runfmt.TimeRunning, 6.2), row(runfmt.TimeRunnable, 0.8), row(runfmt.TimeOther, 0.3)}},
		Kernel: &Kernel{Ports: []int{8000}, Requests: n, Backlog: stat(1, 244), Unread: stat(1, 0.3), Runnable: stat(1, 1.2)},
	}
	l := Build(in)
	logLedger(t, l)
	within(t, "accept", msOf(t, l, runfmt.PartAccept), 244, 1e-6)
	if l.Time.ExplainedPct < 90 {
		t.Errorf("explained %.1f%%; want ≥ 90%%", l.Time.ExplainedPct)
	}
}

// A 50 ms sleep beside two CPU-bound processes: the sleep is the sleep's,
// the wait for a CPU beside it.
func TestSleepBesideContention(t *testing.T) {
	in := Input{
		Runtime: runfmt.RuntimeGo, Load: load(58), Target: target(0.2, false, 0, 20),
		Quality: &runfmt.Quality{TopOther: []runfmt.ProcessCPU{{PID: 9, Name: "burn", Cores: 0.9}}},
		Time: goTrace(row(runfmt.TimeRunning, 1.5), row(runfmt.TimeRunnable, 5.2),
			row(runfmt.TimeSleep, 50.4, runfmt.WaitSleep, 50.4)),
		Kernel: &Kernel{Ports: []int{8082}, Requests: n, Unread: stat(1, 0.8), Runnable: stat(2, 3)},
	}
	l := Build(in)
	logLedger(t, l)
	within(t, "sleep", msOf(t, l, runfmt.PartSleep), 50.4, 1e-6)
	// The Go trace's runnable time, its running beyond the CPU; the waits to
	// be read were all waits for a CPU (a goroutine for a P, its thread in
	// the run queue).
	within(t, "runnable", msOf(t, l, runfmt.PartRunnable), 5.2+1.3, 1e-6)
	within(t, "queue", msOf(t, l, runfmt.PartQueue), 0, 1e-6)
	if r := l.Time.Row(runfmt.PartThrottled); r.MsPerRequest != nil {
		t.Errorf("throttled %+v; want not measured (no cgroup)", r)
	}
	if r := l.Time.Row(runfmt.PartRunnable); len(r.Processes) != 1 {
		t.Errorf("runnable processes %+v; want the CPU-bound neighbour", r.Processes)
	}
}

// Without the kernel: one note says what is not measured, the Go trace's
// rows stand, and no kernel row is 0.
func TestNoKernel(t *testing.T) {
	in := Input{
		Runtime: runfmt.RuntimeGo, Load: load(25), Target: target(1, true, 0, 1),
		Time:      goTrace(row(runfmt.TimeRunning, 1), row(runfmt.TimeNetwork, 22, runfmt.WaitDownstream, 22.0)),
		KernelWhy: "not root (uid 1000): loading kernel programs needs root, or CAP_BPF and CAP_PERFMON",
	}
	l := Build(in)
	logLedger(t, l)
	if len(l.Notes) == 0 || !strings.Contains(l.Notes[0], "not root") {
		t.Errorf("notes %q; want one line saying the kernel's timing is missing and why", l.Notes)
	}
	within(t, "downstream", msOf(t, l, runfmt.PartDownstream), 22, 1e-6)
	for _, p := range []runfmt.LedgerPart{runfmt.PartAccept, runfmt.PartQueue, runfmt.PartDisk, runfmt.PartNetwork} {
		r := l.Time.Row(p)
		if p == runfmt.PartNetwork && r.MsPerRequest != nil {
			continue // the Go trace's own connection waits
		}
		if r.MsPerRequest != nil || !strings.Contains(r.NotMeasured, "not root") {
			t.Errorf("%s: %+v; want not measured, saying why", p, r)
		}
	}
}

// Sources that add up to more than the latency: each millisecond is owned
// once, in the ledger's order, and the cut is said.
func TestOverlapCapped(t *testing.T) {
	in := Input{
		Runtime: runfmt.RuntimePython, Load: load(10), Target: target(6, true, 0, 1),
		Kernel: &Kernel{Ports: []int{8000}, Requests: n, Unread: stat(1, 6), Runnable: stat(1, 1)},
	}
	l := Build(in)
	logLedger(t, l)
	within(t, "cpu", msOf(t, l, runfmt.PartCPU), 5, 1e-9)
	if l.Time.UnexplainedMs != 0 || len(l.Notes) == 0 || !strings.Contains(l.Time.Row(runfmt.PartCPU).Note, "Capped") {
		t.Errorf("unexplained %v, notes %q, cpu note %q; want the cut said", l.Time.UnexplainedMs, l.Notes, l.Time.Row(runfmt.PartCPU).Note)
	}
}

func TestCPUAccount(t *testing.T) {
	in := Input{Load: load(10), Target: target(2, true, 0, 0),
		CPU: CPU{Profiled: per(2.5), Shares: map[runfmt.CPUOwner]float64{runfmt.OwnerUser: 0.6, runfmt.OwnerGC: 0.1, runfmt.OwnerRuntime: 0.3}}}
	a := Build(in).CPU
	if a.MeasuredMs != 2 || a.ProfiledMs == nil || math.Abs(*a.ProfiledMs-2.5) > 1e-9 || a.Note == "" {
		t.Fatalf("cpu account %+v; want 2 ms measured, 2.5 profiled and a note", a)
	}
	var sum float64
	for _, o := range a.Owners {
		sum += o.MsPerRequest
	}
	within(t, "owners + unexplained", sum+a.UnexplainedMs, 2, 1e-9)
	within(t, "user", a.Owners[0].MsPerRequest, 1.2, 1e-9)
	// Workers replaced in the window used 0.5 ms per request of start-up
	// before they were sampled: owned apart, and the profile's shares
	// split the 1.5 ms left.
	in.CPU = CPU{Profiled: per(1.5), UnsampledStart: per(0.5), Shares: map[runfmt.CPUOwner]float64{runfmt.OwnerUser: 1}}
	a = Build(in).CPU
	within(t, "start-up", a.UnsampledStartMs, 0.5, 1e-9)
	within(t, "user beside start-up", a.Owners[0].MsPerRequest, 1.5, 1e-9)
	within(t, "unexplained beside start-up", a.UnexplainedMs, 0, 1e-9)
	within(t, "scale beside start-up", a.Scale, 1, 1e-9)
	in.CPU = CPU{NotProfiled: "no profiler (--profiler none)"}
	if a := Build(in).CPU; a.ProfiledMs != nil || a.NotProfiled == "" || a.UnexplainedMs != 2 {
		t.Errorf("cpu account %+v; want not profiled, all unexplained", a)
	}
	// A profile that is not the verdict still leaves the start-up
	// measured from the workers' processes owned.
	in.CPU = CPU{NotProfiled: "the CPU profile accounts for 44% of the CPU it could sample", UnsampledStart: per(0.5)}
	a = Build(in).CPU
	within(t, "start-up without a profile", a.UnsampledStartMs, 0.5, 1e-9)
	within(t, "unexplained without a profile", a.UnexplainedMs, 1.5, 1e-9)
	if a.ProfiledMs != nil || a.NotProfiled == "" {
		t.Errorf("cpu account %+v; want not profiled", a)
	}
}

func TestNoRequests(t *testing.T) {
	if l := Build(Input{Load: &runfmt.LoadResult{}}); l != nil {
		t.Errorf("ledger %+v for a load with no request; want none", l)
	}
}
