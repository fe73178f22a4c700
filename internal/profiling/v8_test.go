package profiling

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/prometheus/procfs"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// nodeinline starts testdata/services/nodeinline with NODE_OPTIONS opts
// and returns its pid and base URL once it listens.
func nodeinline(t *testing.T, opts string) (int, string) {
	t.Helper()
	return startNode(t, "nodeinline", opts, "--mode", "buggy")
}

// startNode starts testdata/services/NAME/server.js on a free port with
// NODE_OPTIONS opts and args, and returns its pid and base URL once it
// says it listens.
func startNode(t *testing.T, name, opts string, args ...string) (int, string) {
	t.Helper()
	bin := labtest.NeedTool(t, "node", "")
	script, err := filepath.Abs("../../testdata/services/" + name + "/server.js")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{script, "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), "NODE_OPTIONS="+opts)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its cluster workers too
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				url <- u
				return
			}
		}
		url <- ""
	}()
	select {
	case u := <-url:
		if u == "" {
			_ = cmd.Wait()
			t.Fatalf("%s ended its output without listening: %v; stderr: %s", name, cmd.ProcessState, stderr.String())
		}
		return cmd.Process.Pid, u
	case <-time.After(20 * time.Second):
		t.Fatalf("%s did not listen within 20 s", name)
	}
	return 0, ""
}

// drive sends GET url/summary, one at a time, until stop closes (at most
// 2000 requests).
func drive(url string, stop <-chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Go(func() {
		c := &http.Client{Timeout: 5 * time.Second}
		for range 2000 {
			select {
			case <-stop:
				return
			default:
			}
			if resp, err := c.Get(url + "/summary"); err == nil {
				resp.Body.Close()
			}
		}
	})
	return &wg
}

// lineShares are the profile's CPU per leaf "function:line".
func lineShares(p *profile.Profile) map[string]int64 {
	out := map[string]int64{}
	for _, s := range p.Sample {
		if len(s.Location) == 0 || len(s.Location[0].Line) == 0 {
			continue
		}
		l := s.Location[0].Line[0]
		out[l.Function.Name+":"+itoa(l.Line)] += s.Value[1]
	}
	return out
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestV8NamesTheHotLine(t *testing.T) {
	opts, err := WithInspectPreload("", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pid, url := nodeinline(t, opts)
	before, err := service.LoopbackListeners(pid)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	wg := drive(url, stop)
	var thread int
	prof, _, err := v8Recorder{}.Record(context.Background(), Job{Processes: []service.ProcessInfo{{PID: pid}}, Window: 3 * time.Second, Hz: 99,
		StartedThread: func(_, tid int) { thread = tid }})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	// The hot loop's line, not the declaration (22), holds most of
	// summarize's samples; and the inspector perflab opened is closed.
	shares := lineShares(prof)
	if hot, decl := shares["summarize:26"], shares["summarize:22"]; hot == 0 || hot <= decl || hot < shares["summarize:25"] {
		t.Errorf("summarize:26 has %d ns, :22 %d, :25 %d; want line 26 the hottest: %v", hot, decl, shares["summarize:25"], shares)
	}
	if thread == 0 {
		t.Error("no thread of V8's profiler found: its CPU is not measured")
	}
	after, err := service.LoopbackListeners(pid)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Errorf("node listens on %v after the recording, on %v before: the inspector is still open", after, before)
	}
}

func TestInspectHost(t *testing.T) {
	for args, want := range map[string]string{
		"node app.js":                                  "",
		"node --inspect-port=0 app.js":                 "",
		"node --inspect-port=127.0.0.1:0 app.js":       "",
		"node --inspect=localhost:9229 app.js":         "",
		"node --inspect-port=0.0.0.0:9229 app.js":      "0.0.0.0",
		"node --inspect=10.0.0.5 app.js":               "10.0.0.5",
		"node --inspect-brk=[::]:9229 app.js":          "[::]",
		"node --perf-basic-prof-only-functions app.js": "",
	} {
		if got := inspectHost(strings.Fields(args)); got != want {
			t.Errorf("inspectHost(%s) = %q; want %q", args, got, want)
		}
	}
}

func TestWithInspectPreload(t *testing.T) {
	dir := t.TempDir()
	preload := filepath.Join(dir, NodePreloadFile)
	spaced := filepath.Join(t.TempDir(), "my runs")
	if err := os.Mkdir(spaced, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ opts, dir, want string }{
		{"", dir, "--require " + preload},
		{"--max-old-space-size=512", dir, "--max-old-space-size=512 --require " + preload},
		{"--inspect-port=9300", dir, "--inspect-port=9300"},
		{"--inspect=0.0.0.0:9229", dir, "--inspect=0.0.0.0:9229"},
		{"--debug-port=9300", dir, "--debug-port=9300"},
		{"", spaced, `--require "` + filepath.Join(spaced, NodePreloadFile) + `"`},
	} {
		got, err := WithInspectPreload(c.opts, c.dir)
		if err != nil || got != c.want {
			t.Errorf("WithInspectPreload(%q, %s) = %q, %v; want %q", c.opts, c.dir, got, err, c.want)
		}
	}
	if b, err := os.ReadFile(preload); err != nil || !strings.Contains(string(b), "process.debugPort = 0") {
		t.Errorf("the preload %s: %q, %v; want it to set process.debugPort = 0", preload, b, err)
	}
	// A directory whose path reads as an inspector flag would make node's
	// cluster module give each worker port 0+1: no preload there.
	flagged := filepath.Join(t.TempDir(), "x--inspect")
	if err := os.Mkdir(flagged, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := WithInspectPreload("--max-old-space-size=512", flagged); err != nil || got != "--max-old-space-size=512" {
		t.Errorf("WithInspectPreload in %s = %q, %v; want the options unchanged", flagged, got, err)
	}
}

func TestInspectPort(t *testing.T) {
	for args, want := range map[string]int{
		"node app.js":                                              9229,
		"node --inspect-port=0 app.js":                             0,
		"node --inspect-port=127.0.0.1:0 app.js":                   0,
		"node --inspect=localhost:9300 app.js":                     9300,
		"node --debug-port=9400 app.js":                            9400,
		"node --inspect=10.0.0.5 app.js":                           9229,
		"node --inspect-brk=[::]:9231 app.js":                      9231,
		"node app.js --require /r/" + NodePreloadFile:              0,
		`node app.js --require "/my runs/` + NodePreloadFile + `"`: 0,
		"node --inspect-port=9300 --require /r/" + NodePreloadFile: 0,
		"node --perf-basic-prof-only-functions app.js":             9229,
	} {
		if got := inspectPort(strings.Fields(args)); got != want {
			t.Errorf("inspectPort(%s) = %d; want %d", args, got, want)
		}
	}
}

// TestV8HandsToPerfWhenClosed: a node process whose inspector cannot be
// opened (its code takes SIGUSR1 for itself) is sampled by perf, and the
// run names perf as its profiler and the recorder's CPU as perf's, not
// V8's.
func TestV8HandsToPerfWhenClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the inspector's 5 s, then perf samples (~10 s)")
	}
	labtest.NeedTool(t, "perf", "")
	preload := filepath.Join(t.TempDir(), "nousr1.js")
	if err := os.WriteFile(preload, []byte("process.on('SIGUSR1', () => {});\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pid, url := nodeinline(t, "--require "+preload)
	// Busy through the inspector's 5 s and perf's recording: drives in
	// turn, each bounded (2000 requests), until the test ends.
	stop := make(chan struct{})
	var drivers sync.WaitGroup
	drivers.Go(func() {
		for range 10 {
			drive(url, stop).Wait()
			select {
			case <-stop:
				return
			default:
			}
		}
	})
	defer func() { close(stop); drivers.Wait() }()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ts := &treeSampler{meter: newProfilerMeter(), procs: map[int]*runfmt.ProcessProfile{}, roots: map[int]*Profiler{}, done: map[int]bool{}, missing: map[string]bool{}}
	ts.hz = func(*Profiler) int { return 99 }
	ts.meter.begin()
	window, endWindow := context.WithTimeout(ctx, 25*time.Second)
	defer endWindow()
	ts.stopAt = window
	ts.start(ctx, &v8, []service.ProcessInfo{{PID: pid}}, 25*time.Second)
	// The inspector is waited for (5 s), then perf starts: once it has
	// attached, let it sample the busy process for 3 s.
	labtest.Until(20*time.Second, func() bool {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		return ts.recs[0].ready
	})
	time.Sleep(3 * time.Second) // the measurement window
	endWindow()
	ts.wg.Wait()
	ts.meter.end()

	notes := ts.notesSnapshot()
	if got := ts.tools.String(); got != string(runfmt.ProfilerPerf) {
		t.Errorf("profilers named %q; want perf, which sampled (notes %q)", got, notes)
	}
	if len(ts.profiles) == 0 {
		t.Fatalf("perf recorded nothing of the busy node process (notes %q)", notes)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "sampled with perf") {
		t.Errorf("notes %q do not say node was sampled with perf", notes)
	}
	uses, _ := ts.meter.uses()
	for _, u := range uses {
		if u.Tool != runfmt.ProfilerPerf {
			t.Errorf("profiler CPU charged to %s; want perf: %+v", u.Tool, uses)
		}
	}
}

// TestV8MovesOffTheSharedPort: two node processes started without any
// inspector flag (as a service perflab attaches to: each opens its
// inspector on 9229) are recorded at once, each by V8's profiler on a
// port of its own, and each is left as it was found: its inspector closed
// and its next SIGUSR1 opening it on 9229 again.
func TestV8MovesOffTheSharedPort(t *testing.T) {
	type proc struct {
		pid    int
		before map[uint64]uint16
		prof   *profile.Profile
		err    error
		handed runfmt.Profiler
	}
	procs := make([]*proc, 2)
	stop := make(chan struct{})
	var drivers []*sync.WaitGroup
	for i := range procs {
		pid, url := nodeinline(t, "")
		before, err := service.LoopbackListeners(pid)
		if err != nil {
			t.Fatal(err)
		}
		procs[i] = &proc{pid: pid, before: before}
		drivers = append(drivers, drive(url, stop))
	}
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(func() {
			p.prof, _, p.err = v8Recorder{}.Record(context.Background(), Job{Processes: []service.ProcessInfo{{PID: p.pid}}, Window: 2 * time.Second, Hz: 99,
				HandedTo: func(to runfmt.Profiler) { p.handed = to }})
		})
	}
	wg.Wait()
	close(stop)
	for _, d := range drivers {
		d.Wait()
	}
	for _, p := range procs {
		if p.err != nil || p.handed != "" {
			t.Fatalf("pid %d: recording handed to %q, error %v; want V8's own", p.pid, p.handed, p.err)
		}
		if shares := lineShares(p.prof); shares["summarize:26"] == 0 {
			t.Errorf("pid %d: no sample on summarize:26: %v", p.pid, shares)
		}
		after, err := service.LoopbackListeners(p.pid)
		if err != nil {
			t.Fatal(err)
		}
		if len(after) != len(p.before) {
			t.Errorf("pid %d listens on %v after the recording, on %v before: the inspector is still open", p.pid, after, p.before)
		}
	}
	// process.debugPort is 9229 again: SIGUSR1 opens the inspector there.
	p := procs[0]
	fsProc, err := procfs.NewProc(p.pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(p.pid, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	port, err := newListener(context.Background(), fsProc, p.before)
	if err != nil {
		t.Fatal(err)
	}
	if port != defaultInspectPort {
		t.Errorf("pid %d opened its inspector on %d after the recording; want %d, where it opened before", p.pid, port, defaultInspectPort)
	}
}

// TestClusterWorkers: a node cluster service starts with the NODE_OPTIONS
// perflab gives a launched service (its workers do not exit on an
// inspector port), its primary is known by its workers, and a worker is
// recorded by V8's profiler on its own free port.
func TestClusterWorkers(t *testing.T) {
	opts, err := WithInspectPreload(WithPerfMap(""), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	primary, url := startNode(t, "nodecluster", opts)
	workers := clusterWorkers(primary)
	if len(workers) != 2 {
		t.Fatalf("clusterWorkers(primary %d) = %v; want its 2 workers", primary, workers)
	}
	for _, w := range workers {
		if got := clusterWorkers(w); len(got) != 0 {
			t.Errorf("clusterWorkers(worker %d) = %v; want none", w, got)
		}
	}
	if _, err := openInspector(context.Background(), primary); err == nil || !strings.Contains(err.Error(), "primary of 2 cluster workers") {
		t.Errorf("opening the primary's inspector: %v; want it refused as the primary of 2 workers", err)
	}
	stop := make(chan struct{})
	var load sync.WaitGroup
	for range 2 {
		load.Go(func() {
			c := &http.Client{Timeout: 5 * time.Second}
			for range 500 {
				select {
				case <-stop:
					return
				default:
				}
				if resp, err := c.Get(url + "/login"); err == nil {
					resp.Body.Close()
				}
			}
		})
	}
	var handed runfmt.Profiler
	prof, _, err := v8Recorder{}.Record(context.Background(), Job{Processes: []service.ProcessInfo{{PID: workers[0]}}, Window: 2 * time.Second, Hz: 99,
		HandedTo: func(to runfmt.Profiler) { handed = to }})
	close(stop)
	load.Wait()
	if err != nil || handed != "" {
		t.Fatalf("worker %d: recording handed to %q, error %v; want V8's own", workers[0], handed, err)
	}
	var hash, total int64
	for _, s := range prof.Sample {
		total += s.Value[1]
		if slices.ContainsFunc(s.Location, func(l *profile.Location) bool { return l.Line[0].Function.Name == "hashPassword" }) {
			hash += s.Value[1]
		}
	}
	if total == 0 || float64(hash) < 0.5*float64(total) {
		t.Errorf("worker %d: hashPassword under %d of %d ns sampled; want most", workers[0], hash, total)
	}
}

// FuzzInspectPort: any command line gives a port node could listen on.
func FuzzInspectPort(f *testing.F) {
	for _, s := range []string{"node app.js", "node --inspect-port=127.0.0.1:0 app.js", "--inspect=[::]:", "--debug-port=99999", "--require \"/a b/" + NodePreloadFile + "\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		if p := inspectPort(strings.Fields(args)); p < 0 || p > 65535 {
			t.Errorf("inspectPort(%q) = %d", args, p)
		}
	})
}
