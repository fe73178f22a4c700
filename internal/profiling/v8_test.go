package profiling

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
	"perflab/internal/target"
)

// nodeinline starts testdata/services/nodeinline with NODE_OPTIONS opts
// and returns its pid and base URL once it listens.
func nodeinline(t *testing.T, opts string) (int, string) {
	t.Helper()
	bin := labtest.NeedTool(t, "node", "")
	script, err := filepath.Abs("../../testdata/services/nodeinline/server.js")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, script, "--addr", "127.0.0.1:0", "--mode", "buggy")
	cmd.Env = append(os.Environ(), "NODE_OPTIONS="+opts)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
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
			t.Fatal("nodeinline ended its output without listening")
		}
		return cmd.Process.Pid, u
	case <-time.After(20 * time.Second):
		t.Fatal("nodeinline did not listen within 20 s")
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
	pid, url := nodeinline(t, "--inspect-port=127.0.0.1:0")
	before, err := target.LoopbackListeners(pid)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	wg := drive(url, stop)
	var thread int
	prof, _, err := v8{}.Record(context.Background(), Job{Processes: []target.ProcessInfo{{PID: pid}}, Window: 3 * time.Second, Hz: 99,
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
	after, err := target.LoopbackListeners(pid)
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

func TestWithInspectPort(t *testing.T) {
	for in, want := range map[string]string{
		"":                         "--inspect-port=127.0.0.1:0",
		"--max-old-space-size=512": "--max-old-space-size=512 --inspect-port=127.0.0.1:0",
		"--inspect-port=9300":      "--inspect-port=9300",
		"--inspect=0.0.0.0:9229":   "--inspect=0.0.0.0:9229",
	} {
		if got := WithInspectPort(in); got != want {
			t.Errorf("WithInspectPort(%q) = %q; want %q", in, got, want)
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
	ts := &treeSampler{meter: newProfilerMeter(), procs: map[int]*runfmt.ProcessProfile{}, roots: map[int]Profiler{}, done: map[int]bool{}, missing: map[string]bool{}}
	ts.hz = func(Profiler) int { return 99 }
	ts.meter.begin()
	window, endWindow := context.WithTimeout(ctx, 25*time.Second)
	defer endWindow()
	ts.stopAt = window
	ts.start(ctx, v8{}, []target.ProcessInfo{{PID: pid}}, 25*time.Second)
	// The inspector is waited for (5 s), then perf starts: once it has
	// attached, let it sample the busy process for 3 s.
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		ts.mu.Lock()
		ready := ts.recs[0].ready
		ts.mu.Unlock()
		if ready {
			break
		}
	}
	time.Sleep(3 * time.Second)
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
