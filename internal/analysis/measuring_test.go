package analysis

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/prometheus/procfs"

	"perflab/internal/labtest"
	"perflab/internal/ledger"
	"perflab/internal/runfmt"
)

// measuringStacks are a Go service's stacks (root first) as its profiles
// show them while it serves perflab's requests, beside its own work.
var measuringSamples = []smp{
	// The service's own work: a handler, its gzip middleware (flate's
	// writer under the user's code), work under pprof.Do's labels, the GC.
	{"net/http.(*conn).serve;main.handler;strings.ToLower", []int64{50}},
	{"net/http.(*conn).serve;main.gzipMiddleware;compress/gzip.(*Writer).Write;compress/flate.NewWriter", []int64{10}},
	{"main.worker;runtime/pprof.Do;main.worker.func1;main.work", []int64{10}},
	{"runtime.gcBgMarkWorker;runtime.gcDrain", []int64{5}},
	// perflab's: the heap profile written (flate's writer under the
	// profile builder), the CPU profile's writer, the tracer on a request
	// goroutine.
	{"net/http.(*conn).serve;net/http/pprof.handler.ServeHTTP;runtime/pprof.(*Profile).WriteTo;runtime/pprof.writeHeapProto;runtime/pprof.(*profileBuilder).build;compress/gzip.(*Writer).Write;compress/flate.NewWriter", []int64{15}},
	{"runtime/pprof.profileWriter;runtime/pprof.(*profileBuilder).addCPUData", []int64{5}},
	{"net/http.(*conn).serve;main.handler;runtime.newproc1;runtime.traceLocker.GoCreate;runtime.(*traceMap).put", []int64{5}},
}

// measuringFrame says a frame is perflab's measuring, written out apart
// from ownership's rule for the profiles of these tests (no labels, no
// tracing regions of the service's own): net/http/pprof's handlers,
// runtime/pprof's writers, runtime/trace, the runtime's tracer (not its
// tracebacks) and its recording of a goroutine profile.
func measuringFrame(name string) bool {
	for _, p := range []string{"net/http/pprof.", "runtime/pprof.profileWriter", "runtime/pprof.(*p", "runtime/pprof.write", "runtime/pprof.print",
		"runtime/pprof.StartCPUProfile", "runtime/pprof.StopCPUProfile", "runtime/pprof.readProfile", "runtime/trace.", "runtime.(*trace",
		"runtime.ReadTrace", "runtime.readTrace", "runtime.StartTrace", "runtime.StopTrace", "runtime.pprof_", "runtime.goroutineProfileWithLabels",
		"runtime.tryRecordGoroutineProfile", "runtime.doRecordGoroutineProfile"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	rest, ok := strings.CutPrefix(name, "runtime.trace")
	return ok && !strings.HasPrefix(rest, "back") && !strings.HasPrefix(rest, "Enabled") && !strings.HasPrefix(rest, "ShuttingDown") &&
		!strings.HasPrefix(rest, "fpunwindoff") && !strings.HasPrefix(rest, "AllocFreeEnabled")
}

// TestMeasuringLeftOutOfTables: perflab's measuring is in no row of the
// hot, allocation and top tables nor in a listed function's cost, and is
// counted apart (the CPU owners'
// measuring, SplitTotal, Table.Measured); flate's writer and the work
// under pprof.Do stay the service's.
func TestMeasuringLeftOutOfTables(t *testing.T) {
	cpu := build(t, []string{"samples/count", "cpu/nanoseconds"}, withCounts(measuringSamples)...)
	for _, h := range Hot(cpu, 10, 0) {
		if measuringFrame(h.Function) {
			t.Errorf("hot table lists %s", h.Function)
		}
	}
	hot := map[string]runfmt.HotFunc{}
	for _, h := range Hot(cpu, 1, 0) {
		hot[h.Function] = h
	}
	if h := hot["main.gzipMiddleware"]; h.CPUUsPerRequest+h.AttributedUsReq != 10e-3 {
		t.Errorf("main.gzipMiddleware charged %+v; want its 10 ns of flate", h)
	}
	if h := hot["main.work"]; h.CPUUsPerRequest+h.AttributedUsReq != 10e-3 {
		t.Errorf("main.work charged %+v; want its 10 ns under pprof.Do", h)
	}
	if h := hot["compress/flate.NewWriter"]; h.CPUUsPerRequest != 10e-3 || h.FlatPct != 10 {
		t.Errorf("compress/flate.NewWriter %+v; want the user's 10 ns, 10%% of the profile", h)
	}
	shares := CPUOwnerShares(cpu, UserCode{})
	want := map[runfmt.CPUOwner]float64{runfmt.OwnerUser: 0.7, runfmt.OwnerGC: 0.05, runfmt.OwnerMeasuring: 0.25}
	if len(shares) != len(want) {
		t.Errorf("CPU owners %v; want %v", shares, want)
	}
	for o, w := range want {
		if math.Abs(shares[o]-w) > 1e-9 {
			t.Errorf("CPU owner %s = %v; want %v (all %v)", o, shares[o], w, shares)
		}
	}
	svc, meas, ok := SplitTotal(cpu, "")
	if !ok || svc != 75 || meas != 25 {
		t.Errorf("SplitTotal = %d, %d, %v; want 75, 25", svc, meas, ok)
	}
	tb, err := Top(cpu, TopOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tb.Total != 100 || tb.Measured != 25 {
		t.Errorf("top table total %d, measuring %d; want 100, 25", tb.Total, tb.Measured)
	}
	for _, r := range tb.Rows {
		if measuringFrame(r.Function) {
			t.Errorf("top table lists %s", r.Function)
		}
	}
	var text strings.Builder
	if err := tb.WriteText(&text); err != nil || !strings.Contains(text.String(), "perflab's measuring") {
		t.Errorf("top text does not say measuring is left out (%v):\n%s", err, text.String())
	}
	l, err := List(cpu, "^main.handler$", ListOptions{Callees: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Funcs) != 1 || l.Funcs[0].Cum != 50 || l.Total != 100 || l.Measured != 25 {
		t.Errorf("listing of main.handler %+v, total %d, measuring %d; want cum 50 (the tracer under it left out) of 100, 25", l.Funcs, l.Total, l.Measured)
	}
	text.Reset()
	if err := l.WriteText(&text); err != nil || !strings.Contains(text.String(), "perflab's measuring") {
		t.Errorf("list text does not say measuring is left out (%v):\n%s", err, text.String())
	}
	allocs := build(t, []string{"alloc_objects/count", "alloc_space/bytes"}, withCounts(measuringSamples)...)
	for _, a := range AllocTop(allocs, 10, 0) {
		if measuringFrame(a.Function) {
			t.Errorf("allocation table lists %s", a.Function)
		}
	}
	if b, o := AllocsPerRequest(allocs, 5); b != 15 || o != 15 {
		t.Errorf("AllocsPerRequest = %v B, %v objects; want 15 and 15 (75 of 100 over 5 requests)", b, o)
	}
	m := MeasuringOf(cpu, allocs, nil, 5)
	if m == nil || m.CPUShare != 0.25 || m.AllocBytesPerRequest != 5 || m.AllocObjectsPerRequest != 5 {
		t.Errorf("MeasuringOf = %+v; want 25%% of the CPU, 5 B and 5 objects per request", m)
	}
}

// withCounts gives each sample its value twice, for two sample types.
func withCounts(ss []smp) []smp {
	out := make([]smp, len(ss))
	for i, s := range ss {
		out[i] = smp{s.stack, []int64{s.vals[0], s.vals[0]}}
	}
	return out
}

// TestMeasuringRealProfile captures a CPU profile of a real Go service
// (testdata/services/cpuburn) under load while perflab-like requests for
// its heap, goroutine and allocation profiles and its trace are served:
// their work is counted apart as measuring, exactly the samples with a
// profile or trace frame; the CPU owners still add up to the profile and
// the ledger's CPU account, with a measuring row, to the CPU measured;
// neither the hot table nor the window's allocation table lists a frame
// of it.
func TestMeasuringRealProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and loads a test service for ~3 s")
	}
	svc := startService(t, labtest.BuildService(t, "cpuburn"))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var requests atomic.Int64
	loop := func(urls ...string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				for _, u := range urls {
					if get(ctx, u) == nil && strings.Contains(u, "/burn") {
						requests.Add(1)
					}
				}
			}
		}()
	}
	allocsBefore := mustParse(t, svc.pprof+"allocs")
	before := svc.cpu(t)
	loop(svc.api + "/burn?us=300")
	loop(svc.api + "/burn?us=300")
	loop(svc.pprof+"heap", svc.pprof+"goroutine", svc.pprof+"allocs", svc.pprof+"trace?seconds=1")
	raw, err := fetch(svc.pprof + "profile?seconds=2")
	cancel()
	wg.Wait()
	cpuSeconds := svc.cpu(t) - before
	if err != nil {
		t.Fatalf("CPU profile: %v", err)
	}
	cpu, err := profile.ParseData(raw)
	if err != nil {
		t.Fatal(err)
	}
	// The window's allocations, as perflab takes them: the allocation
	// profile at its end less the one at its start.
	allocsBefore.Scale(-1)
	allocs, err := profile.Merge([]*profile.Profile{mustParse(t, svc.pprof+"allocs"), allocsBefore})
	if err != nil {
		t.Fatal(err)
	}

	// The rule against the frames: measuring is exactly the samples with a
	// frame of the profile writer, the handlers or the tracer.
	vi := len(cpu.SampleType) - 1
	var total, framed int64
	for _, s := range cpu.Sample {
		total += s.Value[vi]
		if sampleHas(s, measuringFrame) {
			framed += s.Value[vi]
		}
	}
	svcCPU, measCPU, _ := SplitTotal(cpu, "")
	if measCPU == 0 || measCPU != framed || svcCPU+measCPU != total {
		t.Fatalf("SplitTotal = %d service + %d measuring of %d; want the %d ns of samples with a measuring frame", svcCPU, measCPU, total, framed)
	}
	shares := CPUOwnerShares(cpu, UserCode{})
	var sum float64
	for _, v := range shares {
		sum += v
	}
	if math.Abs(sum-1) > 1e-9 || math.Abs(shares[runfmt.OwnerMeasuring]-float64(framed)/float64(total)) > 1e-9 {
		t.Errorf("CPU owners %v (sum %v); want measuring %v and a sum of 1", shares, sum, float64(framed)/float64(total))
	}
	t.Logf("%d requests, %.3f CPU-s measured, %.3f in the profile; owners %v", requests.Load(), cpuSeconds, float64(total)/1e9, shares)

	n := requests.Load()
	if n == 0 || cpuSeconds <= 0 {
		t.Fatalf("%d requests, %v CPU-s measured: no load", n, cpuSeconds)
	}
	l := ledger.Build(ledger.Input{
		Load:   &runfmt.LoadResult{Requests: n, Latency: runfmt.Latency{Mean: 1}},
		Target: &runfmt.TargetSummary{CPUSeconds: cpuSeconds, CPUMsPerRequest: 1000 * cpuSeconds / float64(n), Source: "proc"},
		CPU:    ledger.CPU{Profiled: time.Duration(total), Shares: shares},
	})
	a := l.CPU
	owned, measuringRow := a.UnexplainedMs+a.UnsampledStartMs, false
	for _, o := range a.Owners {
		owned += o.MsPerRequest
		measuringRow = measuringRow || o.Owner == runfmt.OwnerMeasuring && o.MsPerRequest > 0
	}
	if !measuringRow || math.Abs(owned-a.MeasuredMs) > 1e-9*a.MeasuredMs {
		t.Errorf("CPU account %+v: owners and unexplained make %v ms of %v measured; want a measuring row and the sum", a, owned, a.MeasuredMs)
	}

	for _, h := range HotFor(cpu, n, 0, UserCode{}) {
		if measuringFrame(h.Function) || strings.HasPrefix(h.Function, "compress/") {
			t.Errorf("hot table lists %s", h.Function)
		}
	}
	if _, meas, _ := SplitTotal(allocs, "alloc_space"); meas <= 0 {
		t.Errorf("the window's allocations show none of the profile writer's")
	}
	for _, a := range AllocTopFor(allocs, n, 0, UserCode{}) {
		if measuringFrame(a.Function) || strings.HasPrefix(a.Function, "compress/") {
			t.Errorf("allocation table lists %s (%.0f B/request)", a.Function, a.BytesPerRequest)
		}
	}
}

func sampleHas(s *profile.Sample, match func(string) bool) bool {
	for _, loc := range s.Location {
		for _, ln := range loc.Line {
			if ln.Function != nil && match(ln.Function.Name) {
				return true
			}
		}
	}
	return false
}

// service is a running test service.
type service struct {
	api, pprof string // http://host:port, http://host:port/debug/pprof/
	proc       procfs.Proc
}

// startService starts a test service on free ports and waits (bounded)
// for it to say where it listens.
func startService(t *testing.T, bin string) *service {
	t.Helper()
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-pprof-addr", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		io.Copy(io.Discard, out)
	}()
	s := &service{}
	timeout := time.After(30 * time.Second)
	for s.api == "" || s.pprof == "" {
		select {
		case ln, ok := <-lines:
			if !ok {
				t.Fatalf("%s exited before it listened", bin)
			}
			if u, ok := strings.CutPrefix(ln, "listening on "); ok {
				s.api = u
			}
			if u, ok := strings.CutPrefix(ln, "pprof on "); ok {
				s.pprof = u
			}
		case <-timeout:
			t.Fatalf("%s did not say where it listens within 30 s", bin)
		}
	}
	go func() {
		for range lines {
		}
	}()
	if s.proc, err = procfs.NewProc(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	return s
}

// cpu is the service's CPU time so far, in seconds.
func (s *service) cpu(t *testing.T) float64 {
	t.Helper()
	st, err := s.proc.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return st.CPUTime()
}

// get asks for url and reads the answer, or says why it could not.
func get(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return nil
}

// fetch returns the body of url's answer.
func fetch(url string) ([]byte, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s: %s: %s", url, resp.Status, b)
	}
	return b, err
}

// mustParse fetches the profile at url.
func mustParse(t *testing.T, url string) *profile.Profile {
	t.Helper()
	b, err := fetch(url)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.ParseData(b)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return p
}
