package lab

// Acceptance tests of the wall-time findings: test services with planted
// waits (testdata/services) must each be named in the top 3 findings with
// a cost per request within 20% of the planted one.

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// waitServices are the Go services with planted waits, built once.
var waitServices = &labtest.Services{Names: []string{"slowpeer", "downstream", "mutex", "sleepy", "leak", "tolower"}}

// waitService is the config of a wait test service profiled through its
// pprof port, with extra service arguments.
func waitService(t *testing.T, name, path string, args ...string) Config {
	t.Helper()
	addr, pprofAddr := labtest.FreeAddr(t), labtest.FreeAddr(t)
	command := append([]string{waitServices.Binary(t, name), "-addr", addr, "-pprof-addr", pprofAddr}, args...)
	cfg := acceptanceConfig(t, addr, path, command...)
	cfg.Pprof, cfg.Profiler = "http://"+pprofAddr, ProfilerChoice(runfmt.ProfilerPprof)
	// No warm-up, and the whole window traced: what the service times of
	// its planted wait covers the window alone (a few readiness probes
	// aside), and so does the trace; a slice of a busy machine's window
	// can differ from its average (the slice subtest takes the default).
	cfg.Warmup, cfg.Trace = 0, true
	return cfg
}

// startSlowPeer runs slowpeer (20ms per request) outside any budget and
// returns its URL.
func startSlowPeer(t *testing.T) string {
	t.Helper()
	addr := labtest.FreeAddr(t)
	cmd := exec.Command(waitServices.Binary(t, "slowpeer"), "-addr", addr, "-pprof-addr", labtest.FreeAddr(t))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening on ") {
		t.Fatalf("slowpeer: %q, %v", line, err)
	}
	go io.Copy(io.Discard, out)
	return "http://" + addr + "/"
}

// checkWait asserts a finding of kind naming fn is in the top 3, with a
// wait per request within 20% of wantMs, and returns it.
func checkWait(t *testing.T, r *runfmt.Run, kind runfmt.FindingKind, fn string, wantMs float64) runfmt.Finding {
	t.Helper()
	return checkWaitWithin(t, r, kind, fn, wantMs, 0.8*wantMs, 1.2*wantMs)
}

// checkWaitWithin is checkWait with the finding's cost between loMs and
// hiMs (planted wantMs).
func checkWaitWithin(t *testing.T, r *runfmt.Run, kind runfmt.FindingKind, fn string, wantMs, loMs, hiMs float64) runfmt.Finding {
	t.Helper()
	logTime(t, r)
	for i, f := range r.Findings {
		if f.Kind != kind || !(containsFunc(f, fn) || strings.Contains(title(f), fn)) {
			continue
		}
		got := f.Figures[runfmt.FigWaitPerRequest] / 1000
		t.Logf("%s: rank %d, %.3f ms/request (planted %.3f ms, %+.1f%%): %s", kind, i+1, got, wantMs, 100*(got-wantMs)/wantMs, title(f))
		if i >= 3 {
			t.Errorf("%s finding naming %s is ranked %d, not in the top 3:%s", kind, fn, i+1, describeFindings(r.Findings))
		}
		if got < loMs || got > hiMs {
			t.Errorf("%s finding's cost %.3f ms/request; want %.3f to %.3f ms", kind, got, loMs, hiMs)
		}
		return f
	}
	t.Fatalf("no %s finding naming %s:%s", kind, fn, describeFindings(r.Findings))
	return runfmt.Finding{}
}

// measured reads the mean a service's Stopwatch printed to its log at exit
// ("NAME: N waits, mean X ms"): the planted wait as the service itself
// timed it, which a busy machine stretches (a timer fires late, a peer
// answers late, a lock is handed over late).
func measured(t *testing.T, dir, name string) float64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "target.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		var n int
		var ms float64
		if rest, ok := strings.CutPrefix(line, name+": "); ok {
			if _, err := fmt.Sscanf(rest, "%d waits, mean %f ms", &n, &ms); err == nil && n > 0 {
				return ms
			}
		}
	}
	t.Fatalf("target.log has no %q line:\n%s", name, b)
	return 0
}

func containsFunc(f runfmt.Finding, fn string) bool {
	for _, x := range f.Names() {
		if x == fn {
			return true
		}
	}
	return false
}

func logTime(t *testing.T, r *runfmt.Run) {
	t.Helper()
	tm := r.Time
	if tm == nil {
		t.Logf("no time per request; warnings: %v", r.Warnings)
		return
	}
	var parts []string
	for _, k := range tm.Kinds {
		parts = append(parts, fmt.Sprintf("%s %.3f", k.Kind, k.MsPerRequest))
	}
	t.Logf("time per request (%s, %.1f s, %d requests): %s; total %.3f ms; mean latency %.3f ms, CPU %.3f ms",
		tm.Source, tm.Seconds, tm.Requests, strings.Join(parts, ", "), tm.TotalMs, r.Load.Latency.Mean, r.Target.CPUMsPerRequest)
}

func TestAcceptancePlantedWaits(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs test services with planted waits under load for seconds")
	}
	labtest.NeedTool(t, "go", "")
	t.Run("downstream", func(t *testing.T) {
		peer := startSlowPeer(t)
		r, dir := runAcceptance(t, waitService(t, "downstream", "/price", "-peer", peer))
		want := measured(t, dir, "downstream calls")
		t.Logf("planted: the peer answers after 20 ms; the service's calls took %.3f ms", want)
		// The peer's 20 ms at least; at most the calls' whole time. On a
		// busy machine the calls take longer, and the ledger gives the
		// service's own waits for a CPU inside them to its runnable row.
		f := checkWaitWithin(t, r, "downstream-wait", "main.fetchPrice", want, 0.95*math.Min(20, want), 1.2*want)
		if host := strings.TrimSuffix(strings.TrimPrefix(peer, "http://"), "/"); !strings.Contains(detail(f), host) {
			t.Errorf("downstream finding does not name the peer %s: %s", host, detail(f))
		}
		b, err := os.ReadFile(filepath.Join(dir, "report.html"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`<section id="time">`, `id="fig-time"`, "main.fetchPrice", `title="Off-CPU flame graph"`} {
			if !strings.Contains(string(b), want) {
				t.Errorf("report.html lacks %q", want)
			}
		}
	})
	t.Run("mutex", func(t *testing.T) {
		const holdMs = 2
		cfg := waitService(t, "mutex", "/count")
		cfg.Load.Concurrency, cfg.Budget = 8, service.Budget{CPUs: 2}
		r, dir := runAcceptance(t, cfg)
		// Each request waits for the holds of the others: ideally 7 × 2 ms,
		// more when handing the lock over is slow on a busy machine.
		want := measured(t, dir, "lock waits")
		t.Logf("planted: 2 ms holds, 8 clients (ideally %d ms of waiting); the service's Lock calls took %.3f ms", 7*holdMs, want)
		checkWait(t, r, "lock-contention", "main.(*counter).add", want)
	})
	t.Run("sleep", func(t *testing.T) {
		r, dir := runAcceptance(t, waitService(t, "sleepy", "/"))
		want := measured(t, dir, "sleeps")
		t.Logf("planted: time.Sleep(5ms); the sleeps took %.3f ms", want)
		if math.Abs(want-5) > 1 {
			t.Logf("the machine is busy: its sleeps overshoot by %.3f ms", want-5)
		}
		checkWait(t, r, "sleep", "main.throttle", want)
	})
	// The default: a trace of a slice of the window, placed in its middle,
	// normalised by the requests completed in it.
	t.Run("slice", func(t *testing.T) {
		cfg := waitService(t, "sleepy", "/")
		cfg.Trace = false
		r, _ := runAcceptance(t, cfg)
		checkSlice(t, r, "go-trace", 0.9, 0.8, "in its middle")
		if rank, f := plantedRank(r.Findings, "main.throttle"); rank == 0 || rank > 3 || f.Kind != "sleep" {
			t.Errorf("main.throttle's sleep is not in the top 3 (rank %d):%s", rank, describeFindings(r.Findings))
		}
	})
	t.Run("gomaxprocs", func(t *testing.T) {
		cfg := waitService(t, "tolower", "/search?q=oak")
		cfg.Env = []string{"GOMAXPROCS=8"}
		r, _ := runAcceptance(t, cfg)
		// CPU-bound under 1 core with 4 clients: a request waits for the
		// others' CPU (ideally 3 × its own); what it waits is its latency
		// beyond its CPU.
		want := r.Load.Latency.Mean - r.Target.CPUMsPerRequest
		t.Logf("ideal wait %.3f ms (3 × CPU); latency beyond the CPU %.3f ms; throttled %.1f%%", 3*r.Target.CPUMsPerRequest, want, r.Target.ThrottledPct)
		// With a ledger, the finding is the time lost to throttling (its
		// throttled row; its runnable row when that is too small to
		// claim): on a busy machine the rest of the latency beyond the CPU
		// is the wait for the CPUs other processes held, not GOMAXPROCS's.
		if l := r.Ledger; l != nil && l.Time != nil {
			for _, part := range []runfmt.LedgerPart{runfmt.PartThrottled, runfmt.PartRunnable} {
				if row := l.Time.Row(part); row != nil {
					if ms, ok := row.Ms(); ok && ms >= 0.1*l.Time.LatencyMs {
						t.Logf("the ledger's %s row: %.3f ms of the %.3f", part, ms, want)
						want = ms
						break
					}
				}
			}
		}
		f := checkWait(t, r, "gomaxprocs", "GOMAXPROCS 8", want)
		if !strings.Contains(detail(f), "GOMAXPROCS=1") {
			t.Errorf("gomaxprocs finding lacks the advice GOMAXPROCS=1: %s", detail(f))
		}
		if g := r.GoRuntime; g == nil || g.GOMAXPROCS != 8 {
			t.Errorf("go_runtime %+v; want GOMAXPROCS 8 as the service used it", g)
		}
	})
	// The Python service waits on a socket: its CPU profile sees nothing,
	// py-spy's idle stacks name the wait. Recorded over the whole window
	// (--trace), as the Go services are traced: what the service times of
	// its calls covers the window.
	t.Run("pyslow", func(t *testing.T) {
		cfg, peer := pySlow(t)
		cfg.Trace = true
		r, dir := runAcceptance(t, cfg)
		want := measured(t, dir, "downstream calls")
		t.Logf("planted: the peer answers after 20 ms; the service's calls took %.3f ms", want)
		if r.Time == nil || r.Time.Source != "py-spy" {
			t.Fatalf("time per request %+v; want it from py-spy's idle stacks (warnings %v)", r.Time, r.Warnings)
		}
		// With a ledger, the finding is the peer's answer time (its
		// downstream row): the service's calls also hold its own wait for
		// a CPU once the answer arrived, which a busy machine makes long
		// and the ledger charges to the service's own rows.
		if l := r.Ledger; l != nil && l.Time != nil {
			if row := l.Time.Row(runfmt.PartDownstream); row != nil {
				if ms, ok := row.Ms(); ok {
					t.Logf("the ledger's downstream row: %.3f ms of the %.3f the service timed", ms, want)
					if ms < 0.95*20 || ms > 1.05*want {
						t.Errorf("downstream row %.3f ms; want the peer's 20 ms, up to the %.3f ms the service timed", ms, want)
					}
					want = ms
				}
			}
		}
		f := checkWait(t, r, "downstream-wait", "fetch_quote", want)
		if !strings.Contains(detail(f), peer) {
			t.Errorf("downstream finding does not name the peer %s: %s", peer, detail(f))
		}
	})
	// The default: py-spy's idle stacks of the window's last second (a
	// third of it), normalised by the requests completed in it.
	t.Run("pyslow-slice", func(t *testing.T) {
		cfg, _ := pySlow(t)
		r, _ := runAcceptance(t, cfg)
		// Its length runs from when py-spy samples: attaching takes a
		// moment of the slice.
		checkSlice(t, r, "py-spy", 0.5, 1.2, "at its end")
		if rank, f := plantedRank(r.Findings, "fetch_quote"); rank == 0 || rank > 3 || f.Kind != "downstream-wait" {
			t.Errorf("fetch_quote's downstream wait is not in the top 3 (rank %d):%s", rank, describeFindings(r.Findings))
		}
		pr := r.Profiling
		if i := slices.IndexFunc(pr.Profilers, func(u runfmt.ProfilerUse) bool { return u.Role == runfmt.RoleOffCPU }); i < 0 || pr.Profilers[i].Tool != runfmt.ProfilerPySpy {
			t.Errorf("profilers %+v; want py-spy's off-CPU recorder's CPU in the window", pr.Profilers)
		}
	})
	t.Run("leak", func(t *testing.T) {
		const recordBytes = 1024
		r, _ := runAcceptance(t, waitService(t, "leak", "/event"))
		logTime(t, r)
		rank, f := plantedRank(r.Findings, "main.remember")
		t.Logf("memory-growth: rank %d, %.0f B/request (planted %d): %s", rank, f.Figures[runfmt.FigBytesPerRequest], recordBytes, title(f))
		if rank == 0 || rank > 3 || f.Kind != "memory-growth" {
			t.Fatalf("main.remember is not named by a memory-growth finding in the top 3 (rank %d, %s):%s", rank, f.Kind, describeFindings(r.Findings))
		}
		if d := f.Figures[runfmt.FigBytesPerRequest] - recordBytes; math.Abs(d) > 0.2*recordBytes {
			t.Errorf("retained %.0f B/request; want %d ±20%%", f.Figures[runfmt.FigBytesPerRequest], recordBytes)
		}
	})
}

// pySlow is the config of the Python service that waits on a slow peer
// (py-spy samples it: a python command), and the peer's address.
func pySlow(t *testing.T) (Config, string) {
	t.Helper()
	python := labtest.NeedTool(t, "python3", "")
	labtest.NeedTool(t, "py-spy", "")
	peer := strings.TrimSuffix(strings.TrimPrefix(startSlowPeer(t), "http://"), "/")
	addr := labtest.FreeAddr(t)
	script, _ := filepath.Abs("../../testdata/services/pyslow/server.py")
	cfg := acceptanceConfig(t, addr, "/quote", python, script, "--addr", addr, "--peer", peer)
	cfg.Profiler, cfg.Warmup = ProfilerAuto, 0
	return cfg, peer
}

// checkSlice checks that r's time per request comes from source over a
// slice of about 1 s (at least minSeconds) of its 3 s window, starting
// minStart seconds in at the earliest (where says where), normalised by
// the requests completed in it.
func checkSlice(t *testing.T, r *runfmt.Run, source runfmt.TimeSource, minSeconds, minStart float64, where string) {
	t.Helper()
	logTime(t, r)
	tm := r.Time
	if tm == nil || tm.Source != source {
		t.Fatalf("time per request %+v; want one from %s over the default slice (warnings %v)", tm, source, r.Warnings)
	}
	if tm.Seconds < minSeconds || tm.Seconds > 1.5 || tm.StartS < minStart || tm.StartS+tm.Seconds > r.Load.DurationS+0.2 {
		t.Errorf("slice %.2f s from %.2f s of a %.2f s window; want about 1 s %s", tm.Seconds, tm.StartS, r.Load.DurationS, where)
	}
	if perSec := float64(r.Load.Requests) / r.Load.DurationS; math.Abs(float64(tm.Requests)-perSec*tm.Seconds) > 0.5*perSec*tm.Seconds {
		t.Errorf("%d requests in the %.2f s slice at %.0f/s", tm.Requests, tm.Seconds, perSec)
	}
}
