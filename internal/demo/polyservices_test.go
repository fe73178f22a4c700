package demo

// Smoke tests of the framework and polyglot test services: FastAPI under
// uvicorn waiting on a peer (in the event loop and in the threadpool) and
// sleeping; gunicorn's sync workers behind more connections than workers
// (flaskapp /work) and flaskapp's two endpoints of different costs; a
// Flask app making 101 database queries per request (sqlite3, and
// PostgreSQL through psycopg); a Rust axum service compiling a Regex per
// request. Each is started on free ports as it is deployed, answers the
// same in both modes, and shows its planted behaviour side by side with
// the fixed mode or a known figure, with generous bounds: the machine may
// be busy. A missing framework, cargo or PostgreSQL skips with the reason;
// .ci/setup installs them.

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
)

func TestServiceFastapiapp(t *testing.T) {
	py := needPython(t, "fastapi", "httpx", "uvicorn")
	const delay, nap = 40 * time.Millisecond, 30 * time.Millisecond
	peer := startService(t, append([]string{serviceBinary(t, "slowpeer"), "-delay=" + delay.String()}, freePorts...)...)
	peerAddr := strings.TrimPrefix(peer.url, "http://")
	dir := serviceDir(t, "fastapiapp")
	paths := []string{"/quote", "/quote-sync", "/nap", "/nap-quote"}
	want := map[string]string{"/quote": "42\n", "/quote-sync": "42\n", "/nap": "ok\n", "/nap-quote": "42\n"}
	took := map[string]map[string]time.Duration{} // mode, path: median latency
	for _, mode := range []string{"buggy", "fixed"} {
		addr := labtest.FreeAddr(t)
		host, port, _ := strings.Cut(addr, ":")
		var p *proc
		if mode == "buggy" { // as deployed: uvicorn app:app, configured by the environment
			p = startProc(t, dir, []string{"FASTAPIAPP_PEER=" + peerAddr}, addr,
				py, "-m", "uvicorn", "app:app", "--host", host, "--port", port, "--no-access-log")
		} else {
			p = startProc(t, dir, nil, addr, py, "app.py", "--addr", addr, "--peer", peerAddr, "--mode", mode)
		}
		took[mode] = map[string]time.Duration{}
		for _, path := range paths {
			sequential(t, p.url+path, want[path], 1) // warm up: first calls import and connect
			before := childCPU(t, p.cmd.Process.Pid)
			const n = 10
			took[mode][path] = sequential(t, p.url+path, want[path], n)
			cpu := (childCPU(t, p.cmd.Process.Pid) - before) / n
			t.Logf("fastapiapp %s %s: median %v, %v CPU per request", mode, path, took[mode][path], cpu)
			// A wait is not CPU: each request waits 30-40 ms and uses a few.
			if mode == "buggy" && cpu > took[mode][path]/3 {
				t.Errorf("fastapiapp %s: %v CPU per request for a median latency of %v; want far less (the request waits)", path, cpu, took[mode][path])
			}
		}
		if mode == "buggy" {
			checkFastapiStats(t, p.url, delay, nap)
		}
		out := p.stop(t)
		for _, line := range []string{"downstream calls (async): ", "downstream calls (sync): ", "naps: "} {
			if !strings.Contains(out, line) {
				t.Errorf("fastapiapp %s printed no %q line at exit:\n%s", mode, line, out)
			}
		}
	}
	floor := map[string]time.Duration{"/quote": delay, "/quote-sync": delay, "/nap": nap, "/nap-quote": nap + delay}
	for _, path := range paths {
		if b := took["buggy"][path]; b < floor[path] {
			t.Errorf("fastapiapp buggy %s: median %v; cannot be under the planted %v", path, b, floor[path])
		}
		if b, f := took["buggy"][path], took["fixed"][path]; f > b/2 {
			t.Errorf("fastapiapp %s: fixed median %v, buggy %v; want fixed under half (no wait)", path, f, b)
		}
	}
}

// checkFastapiStats checks what the service timed of its own waits: at
// least the peer's delay per call, and the nap.
func checkFastapiStats(t *testing.T, url string, delay, nap time.Duration) {
	t.Helper()
	b, _ := timedGet(t, url+"/stats")
	var stats map[string]struct {
		Waits   int
		Seconds float64
	}
	if err := json.Unmarshal([]byte(b), &stats); err != nil {
		t.Fatalf("fastapiapp /stats: %v: %s", err, b)
	}
	for name, floor := range map[string]time.Duration{"downstream calls (async)": delay, "downstream calls (sync)": delay, "naps": nap} {
		s := stats[name]
		if s.Waits < 11 || time.Duration(s.Seconds*float64(time.Second))/time.Duration(s.Waits) < floor {
			t.Errorf("fastapiapp /stats %q: %+v; want 11 waits of %v or more each", name, s, floor)
		}
	}
}

// TestServiceFlaskappGunicorn runs flaskapp under gunicorn's sync workers,
// as deployed: /report and /export cost different amounts of CPU, and
// /work, with a known service time, queues for a free worker when there
// are more connections than workers.
func TestServiceFlaskappGunicorn(t *testing.T) {
	py := needPython(t, "flask", "gunicorn")
	addr := labtest.FreeAddr(t)
	p := startProc(t, serviceDir(t, "flaskapp"), nil, addr, py, "-m", "gunicorn", "-w", "2", "-b", addr, "--worker-class", "sync", "app:app")
	pid := p.cmd.Process.Pid

	// Two endpoints of different costs, each loaded alone. The median of
	// each request's own CPU: a worker's first request of an endpoint
	// (or a busy machine's stray interrupt) costs several times the rest
	// and would move a mean of 12 by half.
	cost := map[string]time.Duration{}
	for _, path := range []string{"/report", "/export"} {
		for range 4 {
			timedGet(t, p.url+path) // warm up both workers
		}
		const n = 15
		each := make([]time.Duration, n)
		for i := range each {
			before := treeCPU(t, pid)
			timedGet(t, p.url+path)
			each[i] = treeCPU(t, pid) - before
		}
		cost[path] = median(each)
	}
	t.Logf("flaskapp: /report %v, /export %v CPU per request", cost["/report"], cost["/export"])
	if cost["/export"] < 2*cost["/report"] {
		t.Errorf("flaskapp: /export %v CPU per request, /report %v; want /export at least 2× (measured 3.5-6×)", cost["/export"], cost["/report"])
	}

	// The known service time: 5 ms of CPU in crunch, and queueing at -c 16.
	if b, _ := timedGet(t, p.url+"/work?ms=5"); b != "crunched 5 ms\n" {
		t.Errorf("flaskapp /work?ms=5: %q", b)
	}
	for _, bad := range []string{"x", "-1", "2000"} {
		if code := status(t, p.url+"/work?ms="+bad); code != 400 {
			t.Errorf("flaskapp /work?ms=%s: status %d; want 400", bad, code)
		}
	}
	const conns, each = 16, 6
	before := treeCPU(t, pid)
	lat := concurrent(t, p.url+"/work", conns, each)
	cpu := (treeCPU(t, pid) - before) / (conns * each)
	handler := workHandlerTime(t, p.stop(t))
	t.Logf("flaskapp /work at -c %d on 2 workers: mean latency %v, mean time in the handler %v, %v CPU per request", conns, mean(lat), handler, cpu)
	if cpu < 5*time.Millisecond*95/100 || cpu > 15*time.Millisecond {
		t.Errorf("flaskapp /work: %v CPU per request; want 5 ms of crunch plus Flask's overhead (under 15 ms)", cpu)
	}
	// 16 connections on 2 workers: a request waits for ~7 others; most
	// of its latency is the wait for a free worker.
	if mean(lat) < 3*handler {
		t.Errorf("flaskapp /work at -c %d: mean latency %v, the handler %v; want latency at least 3× the handler's time (queueing for a worker)", conns, mean(lat), handler)
	}
}

var workLine = regexp.MustCompile(`work: (\d+) requests, mean ([0-9.]+) ms in the handler`)

// workHandlerTime is the mean time in /work's handler over the workers'
// exit lines.
func workHandlerTime(t *testing.T, out string) time.Duration {
	t.Helper()
	var n, sum float64
	for _, m := range workLine.FindAllStringSubmatch(out, -1) {
		k, _ := strconv.ParseFloat(m[1], 64)
		ms, _ := strconv.ParseFloat(m[2], 64)
		n, sum = n+k, sum+k*ms
	}
	if n == 0 {
		t.Fatalf("flaskapp workers printed no %q line at exit:\n%s", "work: N requests, ...", out)
	}
	return time.Duration(sum / n * float64(time.Millisecond))
}

func TestServiceDbapp(t *testing.T) {
	py := needPython(t, "flask", "gunicorn")
	dir := serviceDir(t, "dbapp")
	var sqliteBody string
	t.Run("sqlite", func(t *testing.T) {
		// buggy as deployed (gunicorn, configured by the environment), fixed as a script.
		bodies := map[string]string{}
		for _, mode := range []string{"buggy", "fixed"} {
			addr := labtest.FreeAddr(t)
			var p *proc
			if mode == "buggy" {
				p = startProc(t, dir, []string{"DBAPP_MODE=buggy"}, addr, py, "-m", "gunicorn", "-w", "2", "-b", addr, "app:app")
			} else {
				p = startProc(t, dir, nil, addr, py, "app.py", "--addr", addr, "--mode", mode)
			}
			for range 5 {
				bodies[mode], _ = timedGet(t, p.url+"/orders")
			}
			checkQueries(t, "sqlite "+mode, p.stop(t), map[string]float64{"buggy": 101, "fixed": 1}[mode])
		}
		if bodies["buggy"] != bodies["fixed"] || strings.Count(bodies["buggy"], "\n") != 100 {
			t.Errorf("dbapp /orders: buggy and fixed differ or are not 100 lines:\n%.300s\n%.300s", bodies["buggy"], bodies["fixed"])
		}
		sqliteBody = bodies["buggy"]
	})
	t.Run("postgres", func(t *testing.T) {
		if testing.Short() {
			t.Skip("-short: starts a PostgreSQL server")
		}
		needPython(t, "psycopg")
		dsn := labtest.Postgres(t)
		procs := map[string]*proc{}
		for _, mode := range []string{"buggy", "fixed"} {
			addr := labtest.FreeAddr(t)
			procs[mode] = startProc(t, dir, nil, addr, py, "app.py", "--addr", addr, "--db", dsn, "--mode", mode)
		}
		// Side by side, alternating: 101 round trips to the server against 1.
		took := map[string][]time.Duration{}
		for range 8 {
			for _, mode := range []string{"buggy", "fixed"} {
				b, d := timedGet(t, procs[mode].url+"/orders")
				if sqliteBody != "" && b != sqliteBody {
					t.Fatalf("dbapp postgres %s /orders differs from sqlite's:\n%.300s\n%.300s", mode, b, sqliteBody)
				}
				took[mode] = append(took[mode], d)
			}
		}
		// The fastest of each: on a busy machine a median holds as much
		// waiting for a CPU as for the server.
		b, f := slices.Min(took["buggy"]), slices.Min(took["fixed"])
		t.Logf("dbapp postgres /orders: fastest %v buggy (101 queries), %v fixed (1 query); medians %v, %v", b, f, median(took["buggy"]), median(took["fixed"]))
		if b < 2*f {
			t.Errorf("dbapp postgres: buggy fastest %v, fixed %v; want buggy at least 2× (100 more round trips)", b, f)
		}
		for _, mode := range []string{"buggy", "fixed"} {
			checkQueries(t, "postgres "+mode, procs[mode].stop(t), map[string]float64{"buggy": 101, "fixed": 1}[mode])
		}
	})
}

var queriesLine = regexp.MustCompile(`queries: (\d+) requests, (\d+) queries`)

// checkQueries checks the processes' exit lines count want queries per
// request.
func checkQueries(t *testing.T, name, out string, want float64) {
	t.Helper()
	var n, q float64
	for _, m := range queriesLine.FindAllStringSubmatch(out, -1) {
		a, _ := strconv.ParseFloat(m[1], 64)
		b, _ := strconv.ParseFloat(m[2], 64)
		n, q = n+a, q+b
	}
	if n == 0 || q/n != want {
		t.Errorf("dbapp %s: %v queries for %v requests at exit; want %v per request:\n%s", name, q, n, want, out)
	}
}

func TestServiceAxumapp(t *testing.T) {
	bin := labtest.CargoBuild(t, "axumapp", false)
	if out, err := exec.Command(bin, "--mode", "slow").CombinedOutput(); exitCode(err) != 2 || !bytes.Contains(out, []byte(`--mode "slow"`)) {
		t.Errorf("axumapp --mode slow: %v %q; want exit 2 naming the flag", err, out)
	}
	cpu, bodies := map[string]time.Duration{}, map[string]string{}
	for _, mode := range []string{"buggy", "fixed"} {
		addr := labtest.FreeAddr(t)
		p := startProc(t, "", nil, addr, bin, "--addr", addr, "--mode", mode)
		bodies[mode], _ = timedGet(t, p.url+"/summary")
		const n = 40
		before := childCPU(t, p.cmd.Process.Pid)
		sequential(t, p.url+"/summary", bodies[mode], n)
		cpu[mode] = (childCPU(t, p.cmd.Process.Pid) - before) / n
		if out := p.stop(t); !strings.Contains(out, fmt.Sprintf("summaries: %d", n+1)) {
			t.Errorf("axumapp %s at exit: %q; want \"summaries: %d\"", mode, out, n+1)
		}
	}
	t.Logf("axumapp /summary: %v CPU per request buggy, %v fixed", cpu["buggy"], cpu["fixed"])
	if bodies["buggy"] != bodies["fixed"] || !strings.Contains(bodies["buggy"], "warning cache.eu-1 2\n") {
		t.Errorf("axumapp /summary: buggy %q, fixed %q; want the same summary", bodies["buggy"], bodies["fixed"])
	}
	if cpu["buggy"] < 5*cpu["fixed"] {
		t.Errorf("axumapp: %v CPU per request buggy, %v fixed; want the Regex compiled per request to cost 5× or more (measured ~30×)", cpu["buggy"], cpu["fixed"])
	}
	checkFramePointers(t, bin, false)
	if testing.Short() {
		return // the build with frame pointers compiles every crate again the first time
	}
	fp := labtest.CargoBuild(t, "axumapp", true)
	checkFramePointers(t, fp, true)
	addr := labtest.FreeAddr(t)
	p := startProc(t, "", nil, addr, fp, "--addr", addr)
	if b, _ := timedGet(t, p.url+"/summary"); b != bodies["buggy"] {
		t.Errorf("axumapp built with frame pointers: %q; want %q", b, bodies["buggy"])
	}
	p.stop(t)
}

// exitCode is the exit status in err from exec's Run or Output (0 for nil).
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// checkFramePointers checks whether axumapp's summarize sets up a frame
// pointer (push %rbp; mov %rsp,%rbp) on amd64: cargo's default release
// build does not, a build with -C force-frame-pointers=yes does.
func checkFramePointers(t *testing.T, bin string, want bool) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		return
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || !strings.Contains(s.Name, "7axumapp9summarize") {
			continue
		}
		text := f.Section(".text")
		code := make([]byte, 4)
		if _, err := text.ReadAt(code, int64(s.Value-text.Addr)); err != nil {
			t.Fatalf("%s: reading %s: %v", bin, s.Name, err)
		}
		if got := bytes.Equal(code, []byte{0x55, 0x48, 0x89, 0xe5}); got != want {
			t.Errorf("%s: summarize starts % x; frame pointer set up: %v, want %v", bin, code, got, want)
		}
		return
	}
	t.Errorf("%s: no symbol axumapp::summarize (stripped, or inlined?)", bin)
}
