package lab

// Acceptance tests of services as they are deployed: pre-fork servers of
// real frameworks (gunicorn + Flask, uvicorn, puma + Rack) and an express
// app, each launched through its console script, through its interpreter
// (python3 -m, ruby) and attached with --pid MASTER (one that is not
// attached runs twice), and each run must name the planted function of
// the application among the top 3 findings, profile every worker, and
// (attached, where the CPU is summed over /proc) measure CPU per request
// within 10% of the test's own /proc reading of the master and its
// workers. The frameworks
// are installed by .ci/setup at pinned versions; a missing one skips its
// test with the reason. Windows are short (2 s, 1 s warm-up): these runs
// are the heaviest of the suite.

import (
	"cmp"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"perflab/internal/answer"
	"perflab/internal/labtest"
	"perflab/internal/load"
	"perflab/internal/runfmt"
)

// framework is one test service under one framework.
type framework struct {
	dir     string // under testdata/services
	path    string // the load's URL path
	planted string // the function the verdict must name
	// launchers are the commands of the runs, given the address;
	// "" stands for an attach to a master the test starts with attach.
	launchers []func(addr string) []string
	attach    func(addr string) []string
	needs     []string // commands that must be installed
	conns     int
	processes int // processes that must have samples; 0 means 2 (two workers)
	// newConns opens a connection per request: an asyncio worker accepts
	// every connection waiting when it wakes, so a load's few keep-alive
	// connections, opened at once, often all land on one of uvicorn's
	// workers and leave the other nothing to do (and no samples).
	newConns bool
}

func frameworkDir(t *testing.T, name string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "services", name))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func needCommands(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		labtest.NeedTool(t, n, "")
	}
}

func needPython(t *testing.T, modules ...string) {
	t.Helper()
	needCommands(t, "py-spy")
	labtest.NeedPython(t, modules...)
}

func gunicornCmd(prefix ...string) func(string) []string {
	return func(addr string) []string {
		return append(prefix, "-w", "2", "-b", addr, "--worker-class", "sync", "app:app")
	}
}

func uvicornCmd(prefix ...string) func(string) []string {
	return func(addr string) []string {
		host, port, _ := strings.Cut(addr, ":")
		return append(prefix, "--workers", "2", "--host", host, "--port", port, "--no-access-log", "app:app")
	}
}

func pumaCmd(prefix ...string) func(string) []string {
	return func(addr string) []string {
		return append(prefix, "-w", "2", "-t", "2:2", "-b", "tcp://"+addr, "config.ru")
	}
}

func TestAcceptanceFrameworks(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs framework servers under load for seconds")
	}
	gunicorn, uvicorn, puma := gunicornCmd("gunicorn"), uvicornCmd("uvicorn"), pumaCmd("puma")
	for _, tc := range []struct {
		name string
		fw   framework
	}{
		{"gunicorn-flask", framework{dir: "flaskapp", path: "/report", planted: "render_report", conns: 2,
			launchers: []func(string) []string{gunicorn, gunicornCmd("python3", "-m", "gunicorn"), nil}, attach: gunicorn}},
		{"gunicorn-flask-json", framework{dir: "flaskapp", path: "/export", planted: "export_orders", conns: 2,
			launchers: []func(string) []string{gunicorn, gunicorn}}},
		{"uvicorn", framework{dir: "asgiapp", path: "/score", planted: "score_items", conns: 2, newConns: true,
			launchers: []func(string) []string{uvicorn, uvicornCmd("python3", "-m", "uvicorn"), nil}, attach: uvicorn}},
		{"puma-rack", framework{dir: "rackapp", path: "/quote", planted: "build_table", conns: 4,
			launchers: []func(string) []string{puma, pumaCmd("ruby", "/usr/bin/puma"), nil}, attach: puma,
			needs: []string{"ruby", "puma", "rbspy"}}},
		{"java", framework{dir: "javahot", path: "/rank", planted: "Server.rankItems", conns: 2, processes: 1,
			launchers: []func(string) []string{javaCmd, javaCmd}, needs: []string{"java", "jcmd", "perf"}}},
		{"express", framework{dir: "expressapp", path: "/digest", planted: "digestCatalog", conns: 2,
			launchers: []func(string) []string{nodeCmd, nodeCmd}, needs: []string{"node", "perf"}, processes: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fw := tc.fw
			switch fw.dir {
			case "flaskapp":
				needPython(t, "flask", "gunicorn")
			case "asgiapp":
				needPython(t, "uvicorn")
			}
			needCommands(t, fw.needs...)
			dir := frameworkDir(t, fw.dir)
			if fw.dir == "expressapp" {
				labtest.NeedFile(t, "express", filepath.Join(dir, "node_modules", "express"), ".ci/setup runs npm ci in testdata/services/expressapp")
			}
			for i, launch := range fw.launchers {
				r := runFramework(t, fw, dir, launch)
				name := "attach"
				if launch != nil {
					name = strings.Join(launch("ADDR"), " ")
				}
				t.Logf("run %d (%s): %.3f ms CPU/request, %d requests, profile covers %.0f%% of the CPU; profilers used %.3f CPU-s, %.1f%% of the service's",
					i+1, name, r.Target.CPUMsPerRequest, r.Load.Requests, 100*r.Profiling.Coverage, r.Profiling.ProfilerCPUSeconds, 100*r.Profiling.ProfilerOverhead)
				checkPlanted(t, r, fw.planted)
				checkNotRuntimeBlamed(t, r)
				if t.Failed() {
					t.Logf("warnings: %q; hot: %+v", r.Warnings, r.Hot)
				}
			}
		})
	}
}

func nodeCmd(addr string) []string { return []string{"node", "app.js", "--addr", addr} }

func javaCmd(addr string) []string { return []string{"java", "Server.java", "--addr", addr} }

// runFramework runs one service: launched by perflab, or (launch nil)
// started by the test and attached with --pid MASTER.
func runFramework(t *testing.T, fw framework, dir string, launch func(string) []string) *runfmt.Run {
	t.Helper()
	addr := labtest.FreeAddr(t)
	if launch == nil {
		return attachFramework(t, fw, dir, addr)
	}
	cfg := acceptanceConfig(t, addr, fw.path, launch(addr)...)
	cfg.Dir, cfg.Load.Duration, cfg.Load.Concurrency, cfg.Budget.CPUs = dir, 2*time.Second, fw.conns, 2
	cfg.Load.DisableKeepAlive = fw.newConns
	r, _ := runAcceptance(t, cfg)
	checkWorkers(t, r, cmp.Or(fw.processes, 2))
	return r
}

// attachFramework starts the server, attaches to its master and compares
// the CPU per request with the test's own /proc reading of the master and
// every worker.
func attachFramework(t *testing.T, fw framework, dir, addr string) *runfmt.Run {
	t.Helper()
	argv := fw.attach(addr)
	cmd := startServer(t, dir, argv...)
	cfg := acceptanceConfig(t, addr, fw.path)
	cfg.PID, cfg.Budget.CPUs, cfg.Warmup = cmd.Process.Pid, 0, 0
	cfg.Load.Duration, cfg.Load.Concurrency, cfg.Load.DisableKeepAlive = 3*time.Second, fw.conns, fw.newConns
	if err := waitHTTP("http://"+addr+fw.path, 20*time.Second); err != nil {
		t.Fatalf("%s did not start: %v", argv[0], err)
	}
	// The truth: the tree's CPU read by the test from /proc when the
	// measured load starts and when it ends (no warm-up: the only load).
	var before, after float64
	var perBefore, perAfter map[int]float64
	cfg.Watch = func(*load.Attacker) func() {
		before, perBefore = treeCPU(t, cmd.Process.Pid)
		return func() { after, perAfter = treeCPU(t, cmd.Process.Pid) }
	}
	r, _ := runAcceptance(t, cfg)
	truth := (after - before) * 1000 / float64(r.Load.Requests)
	t.Logf("attached: perflab %.3f ms CPU/request, /proc truth %.3f ms over the master and its workers", r.Target.CPUMsPerRequest, truth)
	if d := math.Abs(r.Target.CPUMsPerRequest-truth) / truth; d > 0.10 {
		t.Errorf("CPU per request %.3f ms is %.0f%% off the /proc truth %.3f ms (want within 10%%)", r.Target.CPUMsPerRequest, 100*d, truth)
	}
	// Every worker that worked in the window (a tenth of the tree's CPU):
	// a server may hand a light load to one worker alone.
	working := 0
	for pid, cpu := range perAfter {
		if cpu-perBefore[pid] >= 0.1*(after-before) {
			working++
		}
	}
	checkWorkers(t, r, min(2, working))
	return r
}

// startServer starts argv in dir, in a process group of its own that the
// test's cleanup kills (the master and every worker).
func startServer(t *testing.T, dir string, argv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	return cmd
}

// waitHTTP polls url until it answers, at most limit; it returns the
// last error.
func waitHTTP(url string, limit time.Duration) error {
	var err error
	labtest.Until(limit, func() bool {
		var resp *http.Response
		if resp, err = (&http.Client{Timeout: 2 * time.Second}).Get(url); err == nil {
			resp.Body.Close()
		}
		return err == nil
	})
	return err
}

// treeCPU is the CPU seconds (utime+stime) of pid and its descendants now,
// read from /proc without perflab's code, and each one's.
func treeCPU(t *testing.T, root int) (float64, map[int]float64) {
	t.Helper()
	parent := map[int]int{}
	ticks := map[int]float64{}
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		ppid, _ := strconv.Atoi(f[1])
		ut, _ := strconv.ParseFloat(f[11], 64)
		st, _ := strconv.ParseFloat(f[12], 64)
		parent[pid], ticks[pid] = ppid, ut+st
	}
	var sum float64
	each := map[int]float64{}
	for pid, v := range ticks {
		for q, hops := pid, 0; q > 0 && hops < 32; q, hops = parent[q], hops+1 {
			if q == root {
				sum += v
				each[pid] = v / 100
				break
			}
		}
	}
	return sum / 100, each // USER_HZ
}

// checkWorkers asserts that at least n processes of the service have
// samples in the CPU profile (every worker of a 2-worker server), or, when
// fewer do, that the profile still holds the measured CPU: the others
// were given no work.
func checkWorkers(t *testing.T, r *runfmt.Run, n int) {
	t.Helper()
	if r.Profiling == nil {
		t.Fatalf("run.json has no profiling block")
	}
	var sampled []string
	for _, p := range r.Profiling.Processes {
		if p.Samples > 0 {
			sampled = append(sampled, fmt.Sprintf("%d (%s, %d samples)", p.PID, p.Runtime, p.Samples))
		}
	}
	switch {
	case len(sampled) >= n:
	case len(sampled) > 0 && r.Profiling.Coverage >= workersCovered:
		// A load of a few keep-alive connections may all be accepted by
		// one worker. A worker that worked unsampled would leave its
		// share of the measured CPU out of the profile; here the profile
		// holds all of it, so the others did not work.
		t.Logf("%d of %d workers sampled; the profile covers %.0f%% of the measured CPU, so the rest were idle", len(sampled), n, 100*r.Profiling.Coverage)
	default:
		t.Errorf("%d processes with samples, want every worker (%d): %v; the profile covers %.0f%% of the measured CPU; processes %+v",
			len(sampled), n, sampled, 100*r.Profiling.Coverage, r.Profiling.Processes)
	}
}

// workersCovered is the share of the measured CPU a profile must hold for
// a worker without samples to count as idle: one of two equal workers
// left unsampled would leave about half out.
const workersCovered = 0.85

// checkNotRuntimeBlamed asserts no user-code row of the verdict is the
// language's own runtime or an installed package.
func checkNotRuntimeBlamed(t *testing.T, r *runfmt.Run) {
	t.Helper()
	for _, h := range r.Hot {
		if !h.UserCode {
			continue
		}
		for _, bad := range []string{"/lib/python", "site-packages", "/gems/", "/lib/ruby/", "node_modules", "node:", "/bin/"} {
			if strings.Contains(h.File, bad) {
				t.Errorf("%s (%s) is presented as user code", h.Function, h.File)
			}
		}
		// The standard library's frozen modules, python -c's <string>,
		// a thread's bootstrap: never the user's.
		if strings.HasPrefix(h.File, "<") || strings.HasPrefix(h.Function, "Thread.") || strings.Contains(h.File, "threading.py") || strings.Contains(h.File, "runpy") {
			t.Errorf("%s (%s) is presented as user code", h.Function, h.File)
		}
	}
	// The standard library's encoder may be named where the cost goes
	// under the user's function (its library function), never as the
	// culprit.
	if slices.ContainsFunc(r.Findings, func(f runfmt.Finding) bool { c, _ := f.Culprit(); return strings.Contains(c.File, "encoder.py") }) {
		t.Errorf("a finding blames json/encoder.py: %s", describeFindings(r.Findings))
	}
}

// TestAcceptanceWorkersReplaced: gunicorn recycles its workers every 40
// requests, so workers die and are replaced during the window, several
// times. A replacement that boots at the window's very end has no
// start-up in the window to measure; of several, some boot in its middle.
// A recycle every 10 requests is no service's setting: each worker would
// live about as long as py-spy takes to attach, and their start-up would
// be about half the window's CPU. The profile keeps every worker, says so
// in one line, and still names the culprit.
func TestAcceptanceWorkersReplaced(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs a framework server under load for seconds")
	}
	needPython(t, "flask", "gunicorn")
	const maxRequests = 40
	addr := labtest.FreeAddr(t)
	cfg := acceptanceConfig(t, addr, "/report", "gunicorn", "-w", "2", "--max-requests", strconv.Itoa(maxRequests), "-b", addr, "app:app")
	cfg.Dir, cfg.Load.Duration, cfg.Load.Concurrency, cfg.Budget.CPUs = frameworkDir(t, "flaskapp"), 3*time.Second, 2, 2
	// On a busy machine the replacements can boot while the machine
	// holds them off: py-spy samples them as working, and the profile
	// stands for several times the CPU measured, most of it on their
	// imports. Its shares are then invalid, and the run must say so; the culprit is
	// checked on a run whose shares hold, measured again until one does.
	var r *runfmt.Run
	labtest.Clean(t, func(int) string {
		r = runReplacing(t, cfg, maxRequests)
		if overCountedShares(t, r) {
			return fmt.Sprintf("the profile stood for %.1f× the CPU measured (threads waiting for a CPU sampled as working)", r.Profiling.Coverage)
		}
		return ""
	})
	checkPlanted(t, r, "render_report")
	checkWorkers(t, r, 3)
	if !workersExited(r) {
		t.Errorf("%d requests and no note of the workers that exited: %q", r.Load.Requests, r.Profiling.Notes)
	}
	// Each new worker imports the app before py-spy can attach: that
	// start-up is measured apart, not asked of the profile nor spread
	// over its functions.
	if r.Profiling.UnsampledStartCPUSeconds <= 0 || r.Ledger == nil || r.Ledger.CPU == nil || r.Ledger.CPU.UnsampledStartMs <= 0 {
		t.Errorf("workers replaced in the window and no start-up measured before they were sampled: %.3f CPU-s, ledger %+v", r.Profiling.UnsampledStartCPUSeconds, r.Ledger)
	}
}

// runReplacing runs cfg, whose two workers are replaced every maxRequests
// requests. Two workers are sure to have one replaced once the window
// holds 2×maxRequests+1 requests. A busy machine can serve fewer; the run
// is then taken again over a window long enough for 120 requests at the
// rate it measured, so the test checks the replacement instead of the
// machine's speed.
func runReplacing(t *testing.T, cfg Config, maxRequests int) *runfmt.Run {
	t.Helper()
	r, _ := runAcceptance(t, cfg)
	if guaranteed := int64(2*maxRequests + 1); !workersExited(r) && r.Load.Requests < guaranteed {
		cfg.Load.Duration = min(20*time.Second, time.Duration(float64(cfg.Load.Duration)*120/float64(max(r.Load.Requests, 1))))
		t.Logf("%d requests in the window, under the %d that replace a worker: once more for %s", r.Load.Requests, guaranteed, cfg.Load.Duration)
		r, _ = runAcceptance(t, cfg)
	}
	return r
}

// overCountedShares says whether the run's profile stood for far more CPU
// than was measured (answer.OverCounted), and checks that a noisy run then
// lists its profile shares among the figures that are not valid.
func overCountedShares(t *testing.T, r *runfmt.Run) bool {
	t.Helper()
	if r.Profiling == nil || !answer.OverCounted(r.Profiling.Coverage, 1) {
		return false
	}
	if q := r.Quality; q.Noisy() && (q.Trusts(runfmt.RunProfileShares) || q.ProfileOverMeasured == 0) {
		t.Errorf("the profile stood for %.1f× the CPU measured and the noisy run's distorted figures are %q; want its profile shares among them", r.Profiling.Coverage, r.Quality.Distorted)
	}
	return true
}

// workersExited says whether the run's profile notes processes that exited
// during the window.
func workersExited(r *runfmt.Run) bool {
	return r.Profiling != nil && slices.ContainsFunc(r.Profiling.Notes, func(n string) bool { return strings.Contains(n, "exited during the window") })
}

// TestAcceptanceCgroupAttach: a gunicorn server placed in a cgroup of its
// own (as systemd or a container runtime would) is attached with --cgroup:
// its CPU is read from the group and every worker is profiled.
func TestAcceptanceCgroupAttach(t *testing.T) {
	if testing.Short() {
		t.Skip("acceptance: runs a framework server under load for seconds")
	}
	needPython(t, "flask", "gunicorn")
	root := "/sys/fs/cgroup/cpuacct"
	if _, err := os.Stat(root); err != nil {
		root = "/sys/fs/cgroup"
	}
	group := filepath.Join(root, fmt.Sprintf("perflab-%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), os.Getpid()))
	if err := os.Mkdir(group, 0o755); err != nil {
		t.Skipf("cannot create a cgroup: %v", err)
	}
	// The group can be removed once the killed server's processes are gone.
	t.Cleanup(func() { labtest.Until(5*time.Second, func() bool { return os.Remove(group) == nil }) })
	addr := labtest.FreeAddr(t)
	// The shell puts itself in the group, then becomes gunicorn: the
	// master and every worker it forks are in the group from the start.
	startServer(t, frameworkDir(t, "flaskapp"), "sh", "-c", fmt.Sprintf("echo $$ > %s/cgroup.procs && exec gunicorn -w 2 -b %s app:app", group, addr))
	if err := waitHTTP("http://"+addr+"/healthz", 20*time.Second); err != nil {
		t.Fatalf("gunicorn did not start: %v", err)
	}
	cfg := acceptanceConfig(t, addr, "/report")
	cfg.Cgroup, cfg.Budget.CPUs, cfg.Warmup, cfg.Load.Duration, cfg.Load.Concurrency = group, 0, time.Second, 2*time.Second, 2
	r, _ := runAcceptance(t, cfg)
	if !strings.HasPrefix(r.Target.Source, "cgroup") {
		t.Errorf("CPU measured from %s, want the attached cgroup", r.Target.Source)
	}
	checkPlanted(t, r, "render_report")
	checkWorkers(t, r, 2)
}
