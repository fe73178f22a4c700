package lab

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/load"
	"perflab/internal/runfmt"
)

// flaskEndpoints are the flaskapp's two endpoints of different costs and
// the user function each spends its CPU in.
var flaskEndpoints = []struct{ path, fn string }{{"/report", "render_report"}, {"/export", "export_orders"}}

// TestAcceptanceEndpointsFlask: a Flask app under gunicorn's sync workers
// with two endpoints of different costs (/report about 5 ms of CPU per
// request, /export about 20). Each is loaded alone first and its CPU per
// request read by the test from /proc; then perflab runs one load over
// both (launched in its cgroup, profiled by py-spy), twice. Each
// endpoint's CPU per request in the per-endpoint table (the median of
// the two runs) must be within 15% of its cost alone, the parts must add
// up to the CPU measured, and every user function above 10% of the CPU
// must have a finding. The machine may be busy: the costs alone are
// medians of rounds taken before and after perflab's runs.
func TestAcceptanceEndpointsFlask(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs a framework server under load for seconds")
	}
	needPython(t, "flask", "gunicorn")
	dir := frameworkDir(t, "flaskapp")
	alone := map[string][]float64{}
	measureAlone(t, dir, alone)
	var runs []*runfmt.Run
	for range 2 {
		runs = append(runs, runEndpointMix(t, dir))
	}
	measureAlone(t, dir, alone)
	for _, ep := range flaskEndpoints {
		want := medianOf(alone[ep.path])
		var got []float64
		for _, r := range runs {
			got = append(got, targetCPU(t, r, ep.path)/1000)
		}
		g := medianOf(got)
		t.Logf("%s: alone %.2f ms CPU/request (rounds %.2f), in the mix %.2f ms (runs %.2f)", ep.path, want, alone[ep.path], g, got)
		if d := math.Abs(g-want) / want; d > 0.15 {
			t.Errorf("%s: %.2f ms CPU/request in the mix is %.0f%% off its cost alone, %.2f ms (want within 15%%)", ep.path, g, 100*d, want)
		}
	}
	for _, r := range runs {
		checkEndpointParts(t, r)
		checkCostlyUserFindings(t, r)
	}
}

// runEndpointMix runs perflab over /report and /export in round robin.
func runEndpointMix(t *testing.T, dir string) *runfmt.Run {
	t.Helper()
	addr := labtest.FreeAddr(t)
	cfg := acceptanceConfig(t, addr, flaskEndpoints[0].path, gunicornCmd("gunicorn")(addr)...)
	u, err := load.ParseURL("http://" + addr + flaskEndpoints[1].path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Load.Targets = append(cfg.Load.Targets, load.Target{Method: "GET", URL: u, Header: http.Header{}})
	cfg.Dir, cfg.Load.Duration, cfg.Load.Concurrency, cfg.Budget.CPUs = dir, 6*time.Second, 2, 2
	cfg.ReadyURL = "http://" + addr + "/healthz"
	r, _ := runAcceptance(t, cfg)
	checkWorkers(t, r, 2)
	if r.Endpoints != nil {
		t.Logf("run: %.2f ms CPU/request over %d requests; handlers %.0f%%, requests' handling %.1f%% (%.0f µs/request), no request %.1f%%; targets %+v",
			r.Target.CPUMsPerRequest, r.PerRequestCount(), r.Endpoints.ExplainedPct, r.Endpoints.RequestPct, r.Endpoints.RequestUsPerRequest, r.Endpoints.UnattributedPct, r.Endpoints.Targets)
	}
	return r
}

// targetCPU is the per-endpoint table's CPU per request of the target
// whose URL ends in path, in µs.
func targetCPU(t *testing.T, r *runfmt.Run, path string) float64 {
	t.Helper()
	if r.Endpoints == nil {
		t.Fatalf("run.json has no endpoints; warnings %q", r.Warnings)
	}
	for _, tc := range r.Endpoints.Targets {
		if strings.HasSuffix(tc.Target, path) {
			return tc.CPUUsPerRequest
		}
	}
	t.Fatalf("no CPU per request for %s: endpoints %+v", path, r.Endpoints)
	return 0
}

// checkEndpointParts asserts the table adds up: the handlers, the
// requests' handling and the rest are the whole profile, and the targets'
// CPU times their requests plus the rest is the CPU measured.
func checkEndpointParts(t *testing.T, r *runfmt.Run) {
	t.Helper()
	e := r.Endpoints
	if sum := e.ExplainedPct + e.RequestPct + e.UnattributedPct; math.Abs(sum-100) > 0.01 {
		t.Errorf("handlers %.2f%% + requests %.2f%% + no request %.2f%% = %.2f%%; want 100%%", e.ExplainedPct, e.RequestPct, e.UnattributedPct, sum)
	}
	total := r.Target.CPUMsPerRequest * 1000 * float64(r.PerRequestCount())
	parts := e.UnattributedPct / 100 * total
	for _, tc := range e.Targets {
		parts += tc.CPUUsPerRequest * float64(tc.Requests)
	}
	if math.Abs(parts-total) > 0.01*total {
		t.Errorf("the targets' CPU and the rest add up to %.0f µs; the CPU measured is %.0f µs", parts, total)
	}
}

// checkCostlyUserFindings asserts every user function charged more than
// 10% of the CPU (its own and the library code under it; 11%, for the
// rounding between run.json's figures and the profile's) has a finding
// naming it, and that both endpoints' functions are named.
func checkCostlyUserFindings(t *testing.T, r *runfmt.Run) {
	t.Helper()
	named := map[string]bool{}
	for _, f := range r.Findings {
		if e, ok := f.Culprit(); ok {
			named[e.Function] = true
		}
	}
	measured := r.Target.CPUMsPerRequest * 1000
	for _, h := range r.Hot {
		if share := (h.CPUUsPerRequest + h.AttributedUsReq) / measured; h.UserCode && share > 0.11 && !named[h.Function] {
			t.Errorf("%s has %.0f%% of the CPU and no finding:%s", h.Function, 100*share, describeFindings(r.Findings))
		}
	}
	for _, ep := range flaskEndpoints {
		if !named[ep.fn] {
			t.Errorf("no finding names %s:%s", ep.fn, describeFindings(r.Findings))
		}
	}
}

// measureAlone starts the flaskapp under gunicorn as perflab launches it
// and adds to alone, per endpoint, the CPU per request of rounds in which
// it alone is loaded (in turns, so a busy spell of the machine falls on
// both), read from /proc.
func measureAlone(t *testing.T, dir string, alone map[string][]float64) {
	t.Helper()
	addr := labtest.FreeAddr(t)
	cmd := startServer(t, dir, gunicornCmd("gunicorn")(addr)...)
	base := "http://" + addr
	if err := waitHTTP(base+"/healthz", 20*time.Second); err != nil {
		t.Fatalf("gunicorn did not start: %v", err)
	}
	for _, ep := range flaskEndpoints {
		loadAlone(t, base+ep.path, 2, 10) // warm up both workers
	}
	const rounds, requests = 3, 60
	for range rounds {
		for _, ep := range flaskEndpoints {
			before := schedCPU(cmd.Process.Pid)
			loadAlone(t, base+ep.path, 2, requests)
			ms := float64(schedCPU(cmd.Process.Pid)-before) / 1e6 / requests
			alone[ep.path] = append(alone[ep.path], ms)
		}
	}
}

// loadAlone sends n requests to url over conns connections at once (a
// closed loop, as perflab's load), each bounded by a timeout.
func loadAlone(t *testing.T, url string, conns, n int) {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		next = make(chan struct{}, n)
	)
	for range n {
		next <- struct{}{}
	}
	close(next)
	for range conns {
		wg.Go(func() {
			for range next {
				resp, err := client.Get(url)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if err == nil && resp.StatusCode != 200 {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("GET %s: %d of %d failed, first: %v", url, len(errs), n, errs[0])
	}
}

// schedCPU is the CPU time in ns of root and its descendants' threads,
// the scheduler's own count (/proc/PID/task/TID/schedstat), read without
// perflab's code.
func schedCPU(root int) int64 {
	parent := map[int]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // exited
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		pid, err1 := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		ppid, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil {
			parent[pid] = ppid
		}
	}
	var sum int64
	for pid := range parent {
		for q, hops := pid, 0; q > 1 && hops < 32; q, hops = parent[q], hops+1 {
			if q != root {
				continue
			}
			tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/[0-9]*/schedstat", pid))
			for _, ts := range tasks {
				b, err := os.ReadFile(ts)
				if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
					ns, _ := strconv.ParseInt(f[0], 10, 64)
					sum += ns
				}
			}
			break
		}
	}
	return sum
}

func medianOf(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}
