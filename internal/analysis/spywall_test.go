package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// pyProfile builds a sampler profile (samples/count, cpu/nanoseconds at
// 10 ms a sample) of Python stacks written root first as "func@file:line".
func pyProfile(t testing.TB, samples map[string]int64) *profile.Profile {
	t.Helper()
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}, DurationNanos: 1e9}
	funcs := map[string]*profile.Function{}
	for stack, n := range samples {
		frames := strings.Split(stack, ";")
		var locs []*profile.Location
		for i := len(frames) - 1; i >= 0; i-- {
			name, rest, _ := strings.Cut(frames[i], "@")
			file, line, _ := strings.Cut(rest, ":")
			fn := funcs[name+file]
			if fn == nil {
				fn = &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, Filename: file}
				funcs[name+file] = fn
				p.Function = append(p.Function, fn)
			}
			ln := int64(len(line)) // distinct lines are enough
			l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn, Line: ln}}}
			p.Location = append(p.Location, l)
			locs = append(locs, l)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{n, n * 1e7}})
	}
	return p
}

const (
	pyThread  = "Thread._bootstrap@/usr/lib/python3.11/threading.py:1;BaseHTTPRequestHandler.handle_one_request@/usr/lib/python3.11/http/server.py:1"
	pyRequest = pyThread + ";Handler.do_GET@/srv/app/server.py:1;fetch_quote@/srv/app/server.py:32"
	pyIdle    = pyThread + ";SocketIO.readinto@/usr/lib/python3.11/socket.py:1"
	pyMain    = "<module>@/srv/app/server.py:1;BaseServer.serve_forever@/usr/lib/python3.11/socketserver.py:1;_PollLikeSelector.select@/usr/lib/python3.11/selectors.py:1"
)

func TestSpyWall(t *testing.T) {
	// 100 ticks: the main thread in every one; a request thread 60 ticks in
	// fetch_quote (6 of them on a CPU), 40 waiting for the next request.
	wall := pyProfile(t, map[string]int64{pyRequest: 60, pyIdle: 40, pyMain: 100})
	cpu := pyProfile(t, map[string]int64{pyRequest: 6})
	source := func(file string, line int64) string {
		if strings.HasSuffix(file, "server.py") {
			return "b = s.recv(4096)"
		}
		return ""
	}
	p, idleNs, ok := SpyWall(wall, cpu, 1, 0, source)
	if !ok {
		t.Fatal("no request stacks found")
	}
	if idleNs != 40*1e7 {
		t.Errorf("idle %d ns; want the 40 samples between requests", idleNs)
	}
	kinds := TimeKinds(p, 10, UserCode{})
	got := map[runfmt.TimeKind]float64{}
	for _, k := range kinds {
		got[k.Kind] = k.MsPerRequest
	}
	if got["running"] != 6 || got["network"] != 54 || len(kinds) != len(runfmt.TimeKinds.List()) {
		t.Errorf("per request %v; want running 6 ms, network 54 ms (the recv)", got)
	}
	if k := kindNamed(kinds, "network"); k.Top == nil || k.Top.Function != "fetch_quote" || k.Waits["downstream"] != 54 {
		t.Errorf("network %+v; want fetch_quote, downstream", k)
	}
	// A wall-clock slice of a fifth of the CPU profile's window gets a
	// fifth of each stack's CPU samples (31 * 0.2 = 6.2 of its 60).
	long := pyProfile(t, map[string]int64{pyRequest: 31})
	p, _, _ = SpyWall(wall, long, 0.2, 0, source)
	if run := kindNamed(TimeKinds(p, 10, UserCode{}), "running"); math.Abs(run.MsPerRequest-6.2) > 1e-9 {
		t.Errorf("running %.3f ms from a fifth of 31 CPU samples; want 6.2", run.MsPerRequest)
	}
	// The CPU the service measured caps the running time: 2 of the 6
	// active samples were ready to run, waiting for a CPU.
	p, _, _ = SpyWall(wall, cpu, 1, 4*1e7, source)
	ks := TimeKinds(p, 10, UserCode{})
	if run, ready := kindNamed(ks, "running"), kindNamed(ks, "runnable"); run.MsPerRequest != 4 || ready.MsPerRequest != 2 {
		t.Errorf("running %.3f ms, runnable %.3f ms with 40 ms of CPU measured; want 4 and 2", run.MsPerRequest, ready.MsPerRequest)
	}
	// Ticks the sampler missed (the main thread in 80 of 100) scale up.
	wall = pyProfile(t, map[string]int64{pyRequest: 48, pyIdle: 32, pyMain: 80})
	p, _, _ = SpyWall(wall, nil, 1, 0, nil)
	if k := kindNamed(TimeKinds(p, 10, UserCode{}), "other"); k.MsPerRequest != 60 {
		t.Errorf("unclassified wait %.3f ms from 48 of 80 ticks; want 60 (scaled to 100 ticks)", k.MsPerRequest)
	}
	// Ticks py-spy's random spacing put in excess (125 of 100) scale down.
	wall = pyProfile(t, map[string]int64{pyRequest: 75, pyIdle: 50, pyMain: 125})
	p, _, _ = SpyWall(wall, nil, 1, 0, nil)
	if k := kindNamed(TimeKinds(p, 10, UserCode{}), "other"); math.Abs(k.MsPerRequest-60) > 1e-9 {
		t.Errorf("unclassified wait %.3f ms from 75 of 125 ticks; want 60 (scaled to 100 ticks)", k.MsPerRequest)
	}
	// Each process's ticks count (two processes, by their pid labels).
	for _, s := range wall.Sample {
		s.NumLabel = map[string][]int64{"pid": {1}}
	}
	two := pyProfile(t, map[string]int64{pyRequest: 75, pyIdle: 50, pyMain: 125})
	for _, s := range two.Sample {
		s.NumLabel = map[string][]int64{"pid": {2}}
	}
	wall.PeriodType, two.PeriodType = &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}
	merged, err := profile.Merge([]*profile.Profile{wall, two})
	if err != nil {
		t.Fatal(err)
	}
	merged.DurationNanos = wall.DurationNanos
	p, _, _ = SpyWall(merged, nil, 1, 0, nil)
	if k := kindNamed(TimeKinds(p, 10, UserCode{}), "other"); math.Abs(k.MsPerRequest-120) > 1e-9 {
		t.Errorf("unclassified wait %.3f ms from two processes' 75 of 125 ticks; want 120 (each scaled to 100 ticks)", k.MsPerRequest)
	}
}

func kindNamed(ks []runfmt.TimeRow, name runfmt.TimeKind) runfmt.TimeRow {
	for _, k := range ks {
		if k.Kind == name {
			return k
		}
	}
	return runfmt.TimeRow{}
}

func TestHeapDelta(t *testing.T) {
	start := build(t, []string{"inuse_objects/count", "inuse_space/bytes"},
		smp{"main.main;main.loadConfig;runtime.mallocgc", []int64{10, 1 << 20}},
		smp{"net/http.(*conn).serve;main.handler;main.remember;runtime.growslice", []int64{1, 1 << 20}})
	end := build(t, []string{"inuse_objects/count", "inuse_space/bytes"},
		smp{"main.main;main.loadConfig;runtime.mallocgc", []int64{10, 1 << 20}},
		smp{"net/http.(*conn).serve;main.handler;main.remember;runtime.growslice", []int64{1, 11 << 20}})
	from, to, sites, ok := HeapDelta(start, end, 10240, 2, 3, UserCode{})
	if !ok || from != 2<<20 || to != 12<<20 {
		t.Fatalf("HeapDelta = %d, %d, ok %v; want 2 MiB to 12 MiB", from, to, ok)
	}
	if len(sites) != 1 || sites[0].Function != "main.remember" || sites[0].BytesPerRequest != 1024 || sites[0].MiBPerS != 5 {
		t.Errorf("sites %+v; want main.remember 1 KiB/request, 5 MB/s", sites)
	}
}

// The stacks of a FastAPI service under uvicorn: a def endpoint runs in
// anyio's worker threads; its event loop waits in select.
const (
	anyioWorker = "Thread._bootstrap@/usr/lib/python3.11/threading.py:1;" +
		"WorkerThread.run@/venv/lib/python3.11/site-packages/anyio/_backends/_asyncio.py:1"
	fastapiEndpoint = anyioWorker + ";_run_sync_endpoint@/venv/lib/python3.11/site-packages/fastapi/telemetry/_api.py:1;nap_quote@/srv/app/app.py:1"
	fastapiNap      = fastapiEndpoint + ";take_nap@/srv/app/app.py:22"
	fastapiCall     = fastapiEndpoint + ";fetch_quote_sync@/srv/app/app.py:333;Client.get@/venv/lib/python3.11/site-packages/httpx/_client.py:1;" +
		"HTTPTransport.handle_request@/venv/lib/python3.11/site-packages/httpx/_transports/default.py:1;" +
		"ConnectionPool.handle_request@/venv/lib/python3.11/site-packages/httpcore/_sync/connection_pool.py:1;" +
		"SyncStream.read@/venv/lib/python3.11/site-packages/httpcore/_backends/sync.py:4444"
	anyioIdle   = anyioWorker + ";Queue.get@/usr/lib/python3.11/queue.py:1;Condition.wait@/usr/lib/python3.11/threading.py:1"
	uvicornLoop = "<module>@/srv/app/app.py:1;main@/srv/app/app.py:1;Server.run@/venv/lib/python3.11/site-packages/uvicorn/server.py:1;" +
		"BaseEventLoop._run_once@/usr/lib/python3.11/asyncio/base_events.py:1;EpollSelector.select@/usr/lib/python3.11/selectors.py:1"
	// A background thread of the service polling a peer every second:
	// a library function named like a server's dispatch is not one.
	poller     = "Thread._bootstrap@/usr/lib/python3.11/threading.py:1;poll@/srv/app/app.py:55555"
	pollerCall = "Thread._bootstrap@/usr/lib/python3.11/threading.py:1;poll@/srv/app/app.py:666666;ConnectionPool.handle_request@/venv/lib/python3.11/site-packages/httpcore/_sync/connection_pool.py:1;SyncStream.read@/venv/lib/python3.11/site-packages/httpcore/_backends/sync.py:4444"
)

// fastapiSource is the source of the lines the FastAPI stacks wait at
// (pyProfile numbers a line by the length of its written number).
func fastapiSource(file string, line int64) string {
	switch {
	case strings.HasSuffix(file, "app.py") && line == 2:
		return "    time.sleep(NAP_SECONDS)"
	case strings.HasSuffix(file, "app.py") && line == 5:
		return "        time.sleep(1)"
	case strings.HasSuffix(file, "sync.py") && line == 4:
		return "            return self._sock.recv(max_bytes)"
	}
	return ""
}

func TestSpyWallThreadPool(t *testing.T) {
	// 100 ticks of 4 pool threads serving 10 requests: 30 in take_nap's
	// sleep, 40 in the peer's answer, 2 running; the rest idle.
	wall := pyProfile(t, map[string]int64{fastapiNap: 30, fastapiCall: 40, fastapiEndpoint: 2, anyioIdle: 328, uvicornLoop: 100,
		poller: 90, pollerCall: 10})
	cpu := pyProfile(t, map[string]int64{fastapiEndpoint: 2, uvicornLoop: 3})
	p, idleNs, ok := SpyWall(wall, cpu, 1, 0, fastapiSource)
	if !ok {
		t.Fatal("no request stacks found in the pool's threads")
	}
	if idleNs != 328*1e7 {
		t.Errorf("idle %d ns; want the 328 samples of pool threads waiting for work", idleNs)
	}
	ks := TimeKinds(p, 10, UserCode{})
	sleep, net, run := kindNamed(ks, "sleep"), kindNamed(ks, "network"), kindNamed(ks, "running")
	if sleep.MsPerRequest != 30 || sleep.Top == nil || sleep.Top.Function != "take_nap" {
		t.Errorf("sleep %+v; want take_nap's 30 ms per request", sleep)
	}
	if net.MsPerRequest != 40 || net.Waits[runfmt.WaitDownstream] != 40 || net.Top == nil || net.Top.Function != "fetch_quote_sync" {
		t.Errorf("network %+v; want fetch_quote_sync's 40 ms downstream per request (httpcore's recv)", net)
	}
	if run.MsPerRequest != 2 {
		t.Errorf("running %.3f ms; want the endpoint's 2 ms", run.MsPerRequest)
	}
	// The poller's sleeps are not the requests': 30 of the 120 ms asleep.
	req, all := SpySleeps(wall, fastapiSource)
	if req != 30*1e7 || all != 120*1e7 {
		t.Errorf("SpySleeps = %d, %d ns; want the requests' 30 samples of the 120 asleep", req, all)
	}
}
