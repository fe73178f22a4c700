package lab

// Acceptance tests of "a verdict you can trust": the machine beside the
// run is measured and judged, CPU-bound processes next to a run make it
// noisy without an off-cpu finding, --service-cpus/--load-cpus restore a
// clean CPU per request, a decoy pprof endpoint is never profiled as the
// service, and a second run on a busy pprof endpoint is degraded with no
// share above 100% anywhere.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"perflab/internal/capture"
	"perflab/internal/labtest"
	"perflab/internal/pprofmux"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/service"
	"perflab/internal/session"
)

// runMachineHelper turns the test binary into a process beside the run:
// PERFLAB_TEST_SPIN=DURATION spins on one core for that long (pinned to
// PERFLAB_TEST_SPIN_CPU when set); PERFLAB_TEST_DECOY=ADDR serves
// net/http/pprof on ADDR, as another Go service on the machine would.
func runMachineHelper() bool {
	if d, err := time.ParseDuration(os.Getenv("PERFLAB_TEST_SPIN")); err == nil {
		if cpu, err := strconv.Atoi(os.Getenv("PERFLAB_TEST_SPIN_CPU")); err == nil {
			runtime.LockOSThread()
			var set unix.CPUSet
			set.Set(cpu)
			_ = unix.SchedSetaffinity(0, &set)
		}
		n := 0
		for deadline := time.Now().Add(d); time.Now().Before(deadline); {
			for range 100000 {
				n++
			}
		}
		fmt.Println(n)
		return true
	}
	if addr := os.Getenv("PERFLAB_TEST_DECOY"); addr != "" {
		fmt.Println("decoy pprof on", addr)
		fmt.Println(http.ListenAndServe(addr, pprofmux.New()))
		return true
	}
	return false
}

// spinners starts n CPU-bound processes that are not perflab's children
// (their parent shell exits), for at most d, pinned to cpu when cpu >= 0.
// They run at nice -10, so that on a machine already busy with other work
// they still take the cores the test expects of them. They are killed at
// cleanup.
func spinners(t *testing.T, n int, d time.Duration, cpu int) []int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for range n {
		pids = append(pids, labtest.StartOrphan(t, []string{"PERFLAB_TEST_SPIN=" + d.String(), "PERFLAB_TEST_SPIN_CPU=" + strconv.Itoa(cpu)}, "nice", "-n", "-10", exe))
	}
	return pids
}

// cpuWatch records processes' CPU seconds every 100 ms until stopped, to
// read what they used over any window afterwards.
type cpuWatch struct {
	mu   sync.Mutex
	at   []time.Time
	cpu  [][]float64
	once sync.Once
	stop chan struct{}
	done chan struct{}
}

func watchCPU(pids []int) *cpuWatch {
	w := &cpuWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			row := make([]float64, len(pids))
			for i, pid := range pids {
				row[i] = procSeconds(pid)
			}
			w.mu.Lock()
			w.at, w.cpu = append(w.at, time.Now()), append(w.cpu, row)
			w.mu.Unlock()
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
		}
	}()
	return w
}

// cores is what process i used in [from, from+secs], interpolated.
func (w *cpuWatch) cores(i int, from time.Time, secs float64) float64 {
	w.once.Do(func() { close(w.stop) })
	<-w.done
	at := func(t time.Time) float64 {
		for k := 1; k < len(w.at); k++ {
			if !w.at[k].Before(t) {
				f := t.Sub(w.at[k-1]).Seconds() / w.at[k].Sub(w.at[k-1]).Seconds()
				return w.cpu[k-1][i] + f*(w.cpu[k][i]-w.cpu[k-1][i])
			}
		}
		return w.cpu[len(w.cpu)-1][i]
	}
	return (at(from.Add(time.Duration(secs*float64(time.Second)))) - at(from)) / secs
}

func procSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	u, _ := strconv.ParseFloat(f[11], 64)
	s, _ := strconv.ParseFloat(f[12], 64)
	return (u + s) / 100
}

// TestNoisyMachine runs a service with two CPU-bound processes beside it on
// a machine of at least two cores: the run must say NOISY, count the other
// processes' cores within 20% of what they used, name them, and not blame
// the latency they cause on I/O (no off-cpu finding).
func TestNoisyMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: a run beside CPU-bound processes")
	}
	pids := spinners(t, 2, 30*time.Second, -1)
	watch := watchCPU(pids)
	addr := labtest.FreeAddr(t)
	cfg := testConfig(t, addr)
	cfg.Load.Concurrency, cfg.Load.Duration, cfg.Warmup = 4, 3*time.Second, time.Second
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := readRun(t, res)
	q := r.Quality
	if q == nil {
		t.Fatal("no quality block")
	}
	// Each spinner is named with the cores it used, within 20% (or 0.02
	// cores), unless the machine is so busy that five other processes
	// used more than it did.
	used := 0.0
	for i, pid := range pids {
		c := watch.cores(i, q.Start, q.WindowS)
		used += c
		var listed *runfmt.ProcessCPU
		for k := range q.TopOther {
			if q.TopOther[k].PID == pid {
				listed = &q.TopOther[k]
			}
		}
		switch {
		case listed != nil:
			if math.Abs(listed.Cores-c) > max(0.2*c, 0.02) {
				t.Errorf("spinner %d: quality says %.2f cores; it used %.2f", pid, listed.Cores, c)
			}
		case len(q.TopOther) < 5 || q.TopOther[len(q.TopOther)-1].Cores < c-0.02:
			t.Errorf("spinner %d (%.2f cores) is not among the top other processes %+v", pid, c, q.TopOther)
		default:
			t.Logf("spinner %d used %.2f cores, less than five other processes on this busy machine", pid, c)
		}
	}
	for _, o := range q.TopOther {
		if o.PID == os.Getpid() || slices.Contains(r.Target.PIDs, o.PID) {
			t.Errorf("perflab or the service counted as another process: %+v (service %v, perflab %d)", o, r.Target.PIDs, os.Getpid())
		}
	}
	if !q.Noisy() || len(q.Causes) == 0 {
		t.Errorf("quality %q %q; want noisy", q.Verdict, q.Causes)
	}
	// Every other process counts, and the machine is shared: the spinners
	// are a floor.
	if q.OtherCores < 0.8*used {
		t.Errorf("other processes' cores %.2f; the spinners alone used %.2f", q.OtherCores, used)
	}
	if slices.ContainsFunc(r.Findings, func(f runfmt.Finding) bool { return f.Kind == runfmt.FindingOffCPU }) {
		t.Errorf("an off-cpu finding on a machine the spinners starve: %s", describeFindings(r.Findings))
	}
	t.Logf("quality: %s\nfindings: %s", report.QualityLine(q), describeFindings(r.Findings))
	var out bytes.Buffer
	if err := report.WriteHeadline(&out, r); err != nil || !strings.HasPrefix(out.String(), "Measurement: NOISY — other processes used") {
		t.Errorf("headline %q, %v", out.String(), err)
	}
}

// TestIsolatedCPUsKeepCPUPerRequest runs cpuburn, whose handler burns 1 ms
// of its thread's CPU per request, on --service-cpus 1 with perflab on
// --load-cpus 0 and CPU-bound processes pinned to CPU 0 beside it: CPU per
// request is the planted 1 ms and the HTTP work around it. The figure is
// checked against the plant, not against a run alone: on a shared
// machine no run is alone.
func TestIsolatedCPUsKeepCPUPerRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: a run of cpuburn beside CPU-bound processes")
	}
	usable, err := service.UsableCPUs()
	if err != nil || len(usable) < 2 || usable[0] != 0 || usable[1] != 1 {
		t.Skipf("needs CPUs 0 and 1 (usable: %v, %v)", usable, err)
	}
	cfg := goService(t, "cpuburn", "/burn?us=1000")
	cfg.Load.Concurrency, cfg.Budget = 2, service.Budget{}
	cfg.Budget.CPUSet, cfg.LoadCPUs = service.CPUSet{1}, service.CPUSet{0}
	spinners(t, 2, 30*time.Second, 0)
	isolated, _ := runAcceptance(t, cfg)
	if isolated.Config.ServiceCPUs != "1" || isolated.Config.LoadCPUs != "0" {
		t.Errorf("run.json config: service_cpus %q, load_cpus %q", isolated.Config.ServiceCPUs, isolated.Config.LoadCPUs)
	}
	b := isolated.Target.CPUMsPerRequest
	t.Logf("CPU per request isolated beside the spinners: %.3f ms; %s", b, report.QualityLine(isolated.Quality))
	// The burn is 1 ms of CPU whatever the machine does; net/http, the GC
	// and the runtime add to it (0.10–0.15 ms here), a crowded machine a
	// little more.
	if b < 1.0 || b > 1.5 {
		t.Errorf("CPU per request %.3f ms isolated; want the planted 1 ms and up to half as much again", b)
	}
}

// decoy starts another Go process serving net/http/pprof on addr and
// returns its pid.
func decoy(t *testing.T, addr string) int {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "PERFLAB_TEST_DECOY="+addr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	labtest.Eventually(t, 10*time.Second, "the decoy to listen on "+addr, func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return cmd.Process.Pid
}

// TestDecoyPprofIsNotTheService: another Go process serves net/http/pprof
// on the address perflab guesses (127.0.0.1:6060; a free port of the
// test's own here, as other processes on a shared machine come and go on
// 6060) while perflab runs a service without one. The guess is refused
// with the reason, an explicit --pprof to it is an error unless --force,
// and `perflab profile --pid` refuses it too.
func TestDecoyPprofIsNotTheService(t *testing.T) {
	guess := labtest.FreeAddr(t)
	defer func(g string) { session.PprofGuess = g }(session.PprofGuess)
	session.PprofGuess = "http://" + guess
	owner := decoy(t, guess)
	if err := (&capture.Client{}).Probe(context.Background(), "http://"+guess); err != nil {
		t.Fatalf("the decoy on %s does not serve net/http/pprof: %v", guess, err)
	}

	t.Run("guessed", func(t *testing.T) {
		addr := labtest.FreeAddr(t)
		cfg := testConfig(t, addr)
		cfg.Profiler = ProfilerAuto
		res, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		r := readRun(t, res)
		for _, p := range r.Profiles {
			if p.Source == runfmt.SourceProfilers(runfmt.ProfilerPprof) {
				t.Errorf("profile %s taken from a pprof endpoint: %+v", p.Type, p)
			}
		}
		if len(r.Profiles) == 0 && len(r.Degradations) == 0 {
			t.Errorf("no profile and no reason: the service was not profiled at all")
		}
		why := "not profiling http://" + guess + ": " + guess + " is served by pid " + strconv.Itoa(owner)
		if !strings.Contains(strings.Join(r.Warnings, "\n"), why) {
			t.Errorf("warnings %q do not say %q", r.Warnings, why)
		}
	})
	t.Run("explicit", func(t *testing.T) {
		addr := labtest.FreeAddr(t)
		cfg := testConfig(t, addr)
		cfg.Profiler, cfg.Pprof = ProfilerAuto, "http://"+guess
		res, err := Run(context.Background(), cfg)
		if err == nil || !errors.Is(err, ErrNotTheService) || !strings.Contains(err.Error(), "--force") {
			t.Fatalf("Run = %v; want ErrNotTheService with a hint at --force", err)
		}
		if r := readRun(t, res); r.Status != runfmt.StatusPartial || !strings.Contains(r.PartialReason, "not by the service") {
			t.Errorf("status %s, reason %q", r.Status, r.PartialReason)
		}
		cfg.Force, cfg.Name = true, cfg.Name+"-force"
		res, err = Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if r := readRun(t, res); !strings.Contains(strings.Join(r.Warnings, "\n"), "profiling it anyway (--force)") || len(r.Profiles) == 0 {
			t.Errorf("--force: warnings %q, profiles %+v, degraded %+v, status %s %s", r.Warnings, r.Profiles, r.Degradations, r.Status, r.PartialReason)
		}
	})
	t.Run("profile --pid", func(t *testing.T) {
		addr := labtest.FreeAddr(t)
		exe, _ := os.Executable()
		svc := exec.Command(exe)
		svc.Env = append(os.Environ(), "PERFLAB_TEST_SERVICE="+addr)
		if err := svc.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = svc.Process.Kill(); _ = svc.Wait() }()
		cfg := testConfig(t, addr)
		cfg.Command, cfg.PID, cfg.Profiler = nil, svc.Process.Pid, ProfilerAuto
		res, _ := Profile(context.Background(), cfg, time.Second)
		r := readRun(t, res)
		for _, p := range r.Profiles {
			if p.Source == runfmt.SourceProfilers(runfmt.ProfilerPprof) {
				t.Errorf("profile --pid took %s from the decoy: %+v", p.Type, p)
			}
		}
		if !strings.Contains(strings.Join(r.Warnings, "\n"), "not profiling http://"+guess) {
			t.Errorf("warnings %q do not say why the endpoint was refused", r.Warnings)
		}
	})
}

// TestSecondRunOnABusyPprofEndpointIsDegraded: two runs profile one
// service at once; the second's CPU profile is refused ("already in use"),
// so it is degraded, says so first, and no share above 100% is printed in
// its verdict, its report or its run.json.
func TestSecondRunOnABusyPprofEndpointIsDegraded(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: two overlapping runs of gcheavy")
	}
	addr, pprofAddr := labtest.FreeAddr(t), labtest.FreeAddr(t)
	svc := exec.Command(acceptanceBinary(t, "gcheavy"), "-addr", addr, "-pprof-addr", pprofAddr)
	if err := svc.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = svc.Process.Kill(); _ = svc.Wait() }()
	attach := func(name string, window time.Duration) Config {
		cfg := acceptanceConfig(t, addr, "/parse")
		cfg.Name, cfg.Command, cfg.PID, cfg.Budget = name, nil, svc.Process.Pid, service.Budget{}
		cfg.Pprof, cfg.Profiler, cfg.Load.Duration, cfg.Warmup = "http://"+pprofAddr, ProfilerChoice(runfmt.ProfilerPprof), window, 0
		return cfg
	}
	first := make(chan *Result, 1)
	go func() {
		res, _ := Run(context.Background(), attach("first", 6*time.Second))
		first <- res
	}()
	cpuProfileUnderWay(t, "http://"+pprofAddr, 30*time.Second)
	res, err := Run(context.Background(), attach("second", 2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	r := readRun(t, res)
	r1 := readRun(t, <-first)
	if r.Status != runfmt.StatusDegraded || len(r.Degradations) != 1 || r.Degradations[0].Profile != runfmt.ProfileCPU || !strings.Contains(r.Degradations[0].Note, "already in use") {
		t.Errorf("second run: status %s, degradations %+v; want degraded, the CPU profile already in use", r.Status, r.Degradations)
	}
	if r1.Status != runfmt.StatusComplete {
		t.Errorf("first run: status %s (%s %+v)", r1.Status, r1.PartialReason, r1.Degradations)
	}
	var text bytes.Buffer
	if err := report.WriteHeadline(&text, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "Status: degraded — the CPU profile failed") {
		t.Errorf("the headline does not start with the degraded status:\n%s", text.String())
	}
	if err := report.WriteVerdict(&text, r, res.Dir); err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(res.Dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.Index(html, []byte("degraded — the CPU profile failed")); i < 0 || i > bytes.Index(html, []byte(`id="summary"`)) {
		t.Errorf("report.html does not show the degraded status above the summary")
	}
	raw, _ := json.Marshal(r)
	for what, b := range map[string][]byte{"verdict": text.Bytes(), "report.html": html} {
		for _, m := range regexp.MustCompile(`([0-9]+(?:\.[0-9]+)?)%`).FindAllSubmatch(b, -1) {
			if v, _ := strconv.ParseFloat(string(m[1]), 64); v > 100 {
				t.Errorf("%s prints a share of %s", what, m[0])
			}
		}
	}
	checkShares(t, r, raw)
}

// checkShares fails on any share above 100% in a run.
func checkShares(t *testing.T, r *runfmt.Run, raw []byte) {
	t.Helper()
	if g := r.GC; g != nil && (g.CPUPct > 100 || g.GCTraceCPUPct > 100) {
		t.Errorf("run.json: GC share %.1f%% (gctrace %.1f%%)", g.CPUPct, g.GCTraceCPUPct)
	}
	for _, f := range r.Findings {
		if f.Figures[runfmt.FigShare] > 1 {
			t.Errorf("run.json: finding %s has share %.2f", f.Kind, f.Figures[runfmt.FigShare])
		}
	}
	for _, h := range r.Hot {
		if h.FlatPct > 100 || h.CumPct > 100 {
			t.Errorf("run.json: %s flat %.1f%% cum %.1f%%", h.Function, h.FlatPct, h.CumPct)
		}
	}
	if t.Failed() {
		t.Logf("run.json: %s", raw)
	}
}

// cpuProfileUnderWay waits until the service at base serves a CPU profile
// (a goroutine of its in net/http/pprof.Profile), at most limit: the
// goroutine profile tells without taking a CPU profile itself.
func cpuProfileUnderWay(t *testing.T, base string, limit time.Duration) {
	t.Helper()
	labtest.Eventually(t, limit, "a CPU profile of "+base+" under way", func() bool {
		resp, err := http.Get(base + "/debug/pprof/goroutine?debug=2")
		if err != nil {
			return false
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
		resp.Body.Close()
		return bytes.Contains(b, []byte("net/http/pprof.Profile("))
	})
}
