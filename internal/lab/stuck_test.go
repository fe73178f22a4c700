package lab

// Acceptance tests of the hung service: a Go service whose handlers
// deadlock on a mutex and a Python one blocked on a downstream that never
// answers are run; the snapshot names the line where they wait and how
// many wait there. A snapshot that times out is said, and the run written.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/prose"
	"perflab/internal/report"
	"perflab/internal/runfmt"
)

// lineOf returns the 1-based number of the first line of file, after the
// line holding after, that holds text.
func lineOf(t *testing.T, file, after, text string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for i, l := range strings.Split(string(b), "\n") {
		seen = seen || strings.Contains(l, after)
		if seen && strings.Contains(l, text) {
			return i + 1
		}
	}
	t.Fatalf("%s has no %q after %q", file, text, after)
	return 0
}

// deadlockService is the config of testdata/services/deadlock under 8
// clients: the 20th put deadlocks on itself, and the 7 other clients'
// puts wait for its lock.
func deadlockService(t *testing.T) Config {
	t.Helper()
	addr, pprofAddr := labtest.FreeAddr(t), labtest.FreeAddr(t)
	cfg := acceptanceConfig(t, addr, "/put?key=k", labtest.BuildService(t, "deadlock"), "-addr", addr, "-pprof-addr", pprofAddr)
	cfg.ReadyURL = "http://" + addr + "/healthz" // a put would be counted
	cfg.Pprof, cfg.Profiler = "http://"+pprofAddr, ProfilerChoice(runfmt.ProfilerPprof)
	cfg.Warmup, cfg.Load.Concurrency = 0, 8
	return cfg
}

// verdictOf renders r's verdict as the terminal shows it.
func verdictOf(t *testing.T, r *runfmt.Run, dir string) string {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteVerdict(&b, r, dir); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestAcceptanceStuckGo(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: builds and runs a service that deadlocks")
	}
	cfg := deadlockService(t)
	res, err := Run(context.Background(), cfg)
	if !errors.Is(err, ErrStuck) || res == nil {
		t.Fatalf("run: %v; want %v, the run written", err, ErrStuck)
	}
	r := readRun(t, res)
	st := r.Stuck
	if st == nil {
		t.Fatalf("no snapshot of the hung service; load %+v, warnings %v", r.Load, r.Warnings)
	}
	if r.Status != runfmt.StatusStuck || !strings.Contains(r.PartialReason, "stopped answering") {
		t.Errorf("status %s (%s); want stuck: the service stopped answering", r.Status, r.PartialReason)
	}
	if p := r.Profiling; p != nil && p.StackReach != nil {
		t.Errorf("the profile of an idle service is said not to reach its code: %+v", p.StackReach)
	}
	if r.Answer.First().Kind != runfmt.LimitStuck {
		t.Errorf("limit %s; want stuck", r.Answer.First().Kind)
	}
	src, _ := filepath.Abs("../../testdata/services/deadlock/main.go")
	putLine := lineOf(t, src, "func (s *store) Put(", "s.mu.Lock()")
	lenLine := lineOf(t, src, "func (s *store) Len(", "s.mu.Lock()")
	t.Logf("%s at %.2f s: %d goroutines read in %.3f s, %d bytes; groups:\n%s", st.Reason, st.AtS, st.Threads, st.Seconds, st.Processes[0].Bytes, describeGroups(st))
	g := st.Groups[0]
	if g.Count != 7 || g.Unit != runfmt.UnitGoroutine || g.Function != "main.(*store).Put" || g.Line != putLine ||
		g.Blocking != "sync.(*Mutex).Lock" || g.Wait != "sync" || strings.TrimSpace(g.Text) != "s.mu.Lock()" || g.Source != runfmt.StackSourcePprof {
		t.Errorf("biggest group %+v; want the 7 other clients' goroutines in sync.(*Mutex).Lock at main.go:%d", g, putLine)
	}
	self := st.Groups[min(1, len(st.Groups)-1)]
	if self.Count != 1 || self.Function != "main.(*store).Len" || self.Line != lenLine || self.Caller != "main.(*store).Put" {
		t.Errorf("second group %+v; want the goroutine that deadlocked on itself in Len, called from Put", self)
	}
	want := fmt.Sprintf("7 goroutines wait in sync.(*Mutex).Lock at main.go:%d (under main.(*store).Put", putLine)
	if f := r.Findings[0]; f.Kind != runfmt.FindingStuck || !strings.HasPrefix(title(f), want) || len(f.Lines) != 1 || f.Lines[0].Line != int64(putLine) {
		t.Errorf("first finding [%s] %s (lines %+v); want %q", f.Kind, title(f), f.Lines, want)
	}
	if v := verdictOf(t, r, res.Dir); !strings.Contains(v, "Stuck: no request finished for") || !strings.Contains(v, "1. [stuck] "+want) {
		t.Errorf("verdict lacks the snapshot or its finding:\n%s", v)
	}
}

func describeGroups(st *runfmt.Stuck) string {
	var b strings.Builder
	for _, g := range st.Groups {
		fmt.Fprintf(&b, "  %s [%s, %s]\n", prose.StuckGroupText(g), g.Wait, g.State)
	}
	return b.String() + strings.Join(st.Notes, "\n")
}

// silentDownstream accepts connections and never answers: a hung peer.
func silentDownstream(t *testing.T) string {
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

func TestAcceptanceStuckPython(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs a Python service that hangs")
	}
	python := labtest.NeedTool(t, "python3", "")
	labtest.NeedTool(t, "py-spy", "")
	peer := silentDownstream(t)
	addr := labtest.FreeAddr(t)
	script, _ := filepath.Abs("../../testdata/services/pyhang/server.py")
	cfg := acceptanceConfig(t, addr, "/quote", python, script, "--addr", addr, "--peer", peer)
	cfg.ReadyURL = "http://" + addr + "/healthz"
	cfg.Warmup, cfg.Load.Concurrency = 0, 8
	res, err := Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "no request finished in the window") {
		t.Errorf("run: %v; want it partial: no request finished", err)
	}
	r := readRun(t, res)
	st := r.Stuck
	if st == nil {
		t.Fatalf("no snapshot of the hung service; status %s, warnings %v", r.Status, r.Warnings)
	}
	t.Logf("%s at %.2f s: %d threads read in %.3f s; groups:\n%s", st.Reason, st.AtS, st.Threads, st.Seconds, describeGroups(st))
	line := lineOf(t, script, "def fetch_quote(", "s.recv(")
	g := st.Groups[0]
	if g.Count != 8 || g.Unit != runfmt.UnitThread || g.Function != "fetch_quote" || g.Line != line || g.Blocking != "recvfrom" ||
		g.Peer != peer || g.Wait != "network" || g.Source != runfmt.StackSourcePySpy || g.Caller != "Handler.do_GET" {
		t.Errorf("biggest group %+v; want the 8 request threads in recvfrom on %s at server.py:%d", g, peer, line)
	}
	want := fmt.Sprintf("8 threads wait in recvfrom on a socket to %s at server.py:%d (under fetch_quote", peer, line)
	if f := r.Findings[0]; f.Kind != runfmt.FindingStuck || !strings.HasPrefix(title(f), want) || !strings.Contains(detail(f), "timeout") {
		t.Errorf("first finding [%s] %s: %s; want %q and the lever", f.Kind, title(f), detail(f), want)
	}
	if r.Status != runfmt.StatusPartial || !strings.Contains(verdictOf(t, r, res.Dir), want) {
		t.Errorf("run %s; the verdict must name the wait", r.Status)
	}
}

// hangingPprof serves a net/http/pprof index whose goroutine dump never
// comes (until the test ends); every other profile is missing.
func hangingPprof(t *testing.T) string {
	t.Helper()
	hang := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/debug/pprof/" {
			fmt.Fprintln(w, "Types of profiles available:")
			return
		}
		if r.URL.Path == "/debug/pprof/goroutine" && r.URL.Query().Get("debug") == "2" {
			select {
			case <-hang:
			case <-r.Context().Done():
			}
			return
		}
		http.NotFound(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() {
		close(hang)
		srv.Close()
	})
	return "http://" + ln.Addr().String()
}

// A snapshot that does not finish in its time limit is said so, and the
// run is written with the rest of what it measured.
func TestStuckSnapshotTimesOut(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: builds and runs a service that deadlocks")
	}
	cfg := deadlockService(t)
	cfg.Pprof, cfg.Force = hangingPprof(t), true
	cfg.SnapshotTimeout = 2 * time.Second
	start := time.Now()
	res, err := Run(context.Background(), cfg)
	if res == nil {
		t.Fatalf("no run written: %v", err)
	}
	r := readRun(t, res)
	st := r.Stuck
	if st == nil || !st.TimedOut {
		t.Fatalf("snapshot %+v; want one that timed out", st)
	}
	t.Logf("run %s in %s; snapshot %.2f s; notes %q", r.Status, time.Since(start), st.Seconds, st.Notes)
	if !strings.Contains(strings.Join(st.Notes, " "), "did not finish within 2.00 s") || len(st.Processes) == 0 || !strings.HasPrefix(st.Processes[0].Error, "timed out") {
		t.Errorf("notes %q, processes %+v; want the time-out said", st.Notes, st.Processes)
	}
	if f := r.Findings[0]; f.Kind != runfmt.FindingStuck || !strings.Contains(detail(f), "did not finish within 2.00 s") {
		t.Errorf("first finding [%s] %s: %s; want the stuck finding saying the snapshot timed out", f.Kind, title(f), detail(f))
	}
	if r.Load == nil || r.Load.Requests == 0 || r.Target == nil {
		t.Errorf("the run lost what it measured: load %+v, target %+v", r.Load, r.Target)
	}
}

// A service that answers is not taken for stuck: the test binary's, and
// the deadlock service fixed.
func TestNoSnapshotWhenRequestsFinish(t *testing.T) {
	configs := map[string]Config{"test service": testConfig(t, labtest.FreeAddr(t))}
	if !testing.Short() {
		fixed := deadlockService(t)
		fixed.Command = append(fixed.Command, "-mode", "fixed")
		configs["deadlock -mode fixed"] = fixed
	}
	for name, cfg := range configs {
		res, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r := readRun(t, res); r.Stuck != nil || len(r.Findings) > 0 && r.Findings[0].Kind == runfmt.FindingStuck || r.Load.Requests < 20 {
			t.Errorf("%s: %d requests; taken for stuck: %+v", name, r.Load.Requests, r.Stuck)
		}
	}
}
