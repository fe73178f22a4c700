package capture

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
)

// recordedLines returns the lines of the recorded profiles' files: the
// repository's own (written REPO/) and the installed packages' of
// testdata/spywaits/lines.tsv.
func recordedLines(t *testing.T) func(string, int64) string {
	t.Helper()
	b, err := os.ReadFile("testdata/spywaits/lines.tsv")
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, _ := strings.Cut(l, "\t")
		known[k] = v
	}
	return func(file string, n int64) string {
		return known[file+":"+strconv.FormatInt(n, 10)]
	}
}

func readRecorded(t *testing.T, name string) *profile.Profile {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata/spywaits", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := ParseCollapsed(f, 1e9/int64(99))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// leafSamples counts the samples whose innermost frame is fn, at line if
// line > 0.
func leafSamples(p *profile.Profile, fn string, line int64) int64 {
	var n int64
	for _, s := range p.Sample {
		l := s.Location[0].Line[0]
		if l.Function.Name == fn && (line == 0 || l.Line == line) {
			n += s.Value[0]
		}
	}
	return n
}

// TestDropWaitsNap: py-spy's CPU profile of FastAPI's /nap holds the
// threadpool's time.sleep(0.03) (take_nap at app.py:119), the event
// loop's epoll and the idle pool threads' Condition.wait: waits, all taken
// out; the socket writes and the lock releases stay.
func TestDropWaitsNap(t *testing.T) {
	p := readRecorded(t, "fastapi-nap.txt")
	sleeps := leafSamples(p, "take_nap", 119)
	kept := leafSamples(p, "_SelectorSocketTransport.write", 0) + leafSamples(p, "Condition.notify", 0)
	if sleeps == 0 || kept == 0 {
		t.Fatalf("the recording has %d samples in time.sleep and %d in writes and notifies; want both", sleeps, kept)
	}
	w := DropWaits(p, recordedLines(t))
	t.Logf("taken out: %s", w)
	if w[runfmt.WaitSleep] != sleeps {
		t.Errorf("%d sleep samples taken out; want the %d at take_nap's time.sleep", w[runfmt.WaitSleep], sleeps)
	}
	for _, fn := range []string{"take_nap", "EpollSelector.select", "Condition.wait"} {
		if n := leafSamples(p, fn, 0); n > 0 {
			t.Errorf("%d samples still end in %s, a wait", n, fn)
		}
	}
	if got := leafSamples(p, "_SelectorSocketTransport.write", 0) + leafSamples(p, "Condition.notify", 0); got != kept {
		t.Errorf("%d samples of writes and notifies kept; want all %d (work, not waits)", got, kept)
	}
	if len(p.Comments) == 0 || !strings.Contains(p.Comments[len(p.Comments)-1], "waiting threads taken out") {
		t.Errorf("comments %q; want what was taken out said", p.Comments)
	}
	if err := p.CheckValid(); err != nil {
		t.Error(err)
	}
}

// TestDropWaitsQuoteSync: /quote-sync blocks its pool thread in httpx's
// recv (a line calling self._sock.recv); a poll(0) returns at once and a
// send is work: those stay.
func TestDropWaitsQuoteSync(t *testing.T) {
	p := readRecorded(t, "fastapi-quote-sync.txt")
	recv := leafSamples(p, "SyncStream.read", 128)
	work := leafSamples(p, "is_socket_readable", 0) + leafSamples(p, "SyncStream.write", 0)
	if recv == 0 || work == 0 {
		t.Fatalf("the recording has %d samples in recv and %d in poll(0) and send; want both", recv, work)
	}
	w := DropWaits(p, recordedLines(t))
	t.Logf("taken out: %s", w)
	if n := leafSamples(p, "SyncStream.read", 128); n > 0 {
		t.Errorf("%d samples still end in recv", n)
	}
	if n := leafSamples(p, "SyncStream.read", 127); n != 1 {
		t.Errorf("%d samples in settimeout (sync.py:127); want its 1 kept: work", n)
	}
	if got := leafSamples(p, "is_socket_readable", 0) + leafSamples(p, "SyncStream.write", 0); got != work {
		t.Errorf("%d samples of poll(0) and send kept; want %d", got, work)
	}
	if w[runfmt.WaitDownstream] < recv {
		t.Errorf("%d socket waits taken out; want at least the %d in recv", w[runfmt.WaitDownstream], recv)
	}
}

// TestDropWaitsRuby: rbspy names a C function when it can read it; when
// it cannot, the Ruby line that calls it says whether it waits.
func TestDropWaitsRuby(t *testing.T) {
	in := "block in serve - /srv/app.rb:3;[c function] sleep 4\n" +
		"run - /srv/app.rb:9;Thread::Queue#pop - <internal:thread_sync>:18 2\n" +
		"block in idle - /srv/app.rb:5;(unknown) [c function] - (unknown) 3\n" +
		"burn - /srv/app.rb:12;(unknown) [c function] - (unknown) 7\n" +
		"burn - /srv/app.rb:12 5\n"
	p, err := ParseCollapsed(strings.NewReader(in), 1e7)
	if err != nil {
		t.Fatal(err)
	}
	src := map[int64]string{3: "loop { sleep 0.01 }", 5: "loop { IO.select([r], nil, nil, 0.05) }", 9: "job = q.pop", 12: "200000.times { |i| x += i }"}
	w := DropWaits(p, func(file string, n int64) string { return src[n] })
	if w[runfmt.WaitSleep] != 4 || w[runfmt.WaitChannel] != 2 || w[runfmt.WaitDownstream] != 3 || w.Total() != 9 {
		t.Errorf("taken out %v; want 4 sleep, 2 queue pops and 3 IO.select", w)
	}
	if n := totalSamples(p.Sample); n != 12 {
		t.Errorf("%d samples kept; want burn's 12", n)
	}
}

// TestPySpyNapIsNotCPU records FastAPI's /nap under load with py-spy as
// perflab does: no sample of the CPU profile is in time.sleep.
func TestPySpyNapIsNotCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("records a loaded FastAPI service for seconds")
	}
	labtest.NeedTool(t, "py-spy", "")
	py := labtest.NeedPython(t, "fastapi", "httpx", "uvicorn")
	app, _ := filepath.Abs("../../testdata/services/fastapiapp/app.py")
	cmd := exec.Command(py, app, "--addr", "127.0.0.1:0", "--peer", "127.0.0.1:9")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	startBusy(t, cmd)
	sc := bufio.NewScanner(out)
	url := ""
	for url == "" && sc.Scan() {
		url, _ = strings.CutPrefix(sc.Text(), "listening on ")
	}
	if url == "" {
		t.Fatalf("fastapiapp did not say where it listens: %v", sc.Err())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	served := napLoad(ctx, url+"/nap", 4)
	p, err := RecordSpy(ctx, pySpyRaw, SpyConfig{PID: cmd.Process.Pid, Seconds: 3, Rate: 99})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	line := napLine(t, app)
	t.Logf("%d naps served; %d samples kept; %q", served(), totalSamples(p.Sample), p.Comments)
	if served() < 20 {
		t.Fatalf("only %d naps served while recording", served())
	}
	if n := leafSamples(p, "take_nap", line); n > 0 {
		t.Errorf("%d CPU samples in take_nap's time.sleep (app.py:%d): a sleep is not CPU", n, line)
	}
}

// pySpyRaw records as perflab's py-spy profiler does: raw stacks, full
// file names, the process not paused.
var pySpyRaw = SpyTool{Name: runfmt.ProfilerPySpy, Install: "pip install py-spy", Lang: "Python", Sampling: PySpySampling,
	Args: func(cfg SpyConfig, secs, rate int, out string) []string {
		return []string{"record", "--pid", strconv.Itoa(cfg.PID), "--duration", strconv.Itoa(secs),
			"--rate", strconv.Itoa(rate), "--format", "raw", "--output", out, "--nonblocking", "--full-filenames"}
	},
}

// napLoad GETs url from n goroutines until ctx ends, and returns the count
// of answers so far.
func napLoad(ctx context.Context, url string, n int) func() int {
	var mu sync.Mutex
	count := 0
	for range n {
		go func() {
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					continue
				}
				resp.Body.Close()
				mu.Lock()
				count++
				mu.Unlock()
			}
		}()
	}
	return func() int { mu.Lock(); defer mu.Unlock(); return count }
}

// napLine is the line of app.py that calls time.sleep.
func napLine(t *testing.T, app string) int64 {
	t.Helper()
	b, err := os.ReadFile(app)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "time.sleep(NAP_SECONDS)") {
			return int64(i + 1)
		}
	}
	t.Fatal("app.py has no time.sleep(NAP_SECONDS)")
	return 0
}

// TestPyWaitLinesJoin: a thread's join waits; a string's join and
// os.path.join are CPU (a handler's `return "\n".join(out)` stays in the
// CPU profile).
func TestPyWaitLinesJoin(t *testing.T) {
	for text, want := range map[string]bool{
		`worker.join()`:                 true,
		`t.join(timeout=5)`:             true,
		`t.join(2.5)`:                   true,
		`lock.acquire()`:                true,
		`return "\n".join(out)`:         false,
		`", ".join(str(x) for x in xs)`: false,
		`sep.join(parts)`:               false,
		`p = os.path.join(root, name)`:  false,
	} {
		if _, got := lineWait(pyWaitLines, text); got != want {
			t.Errorf("%q waits: %v; want %v", text, got, want)
		}
	}
}
