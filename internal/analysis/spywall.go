package analysis

import (
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// Wall time from a wall-clock sampler (py-spy --idle): every thread's stack
// at every tick, running or not. With a CPU profile of the same process
// over the same window (the same sampler without --idle, at the same rate),
// each stack's samples split into running (as many as the CPU profile has)
// and off-CPU (the rest). Only the threads serving requests count: stacks
// with a request-dispatch frame of the server and user code below it.
// Threads waiting for the next request (the dispatch frame, no user code
// under it) are idle, and the server's own threads (accept loops) do not
// count.

// dispatchFrames are the servers' per-request entry points: Python's
// http.server (and werkzeug's, which extends it), wsgiref, socketserver,
// gunicorn's workers, uvicorn's ASGI cycle; the thread pools that run a
// request's synchronous handler apart from an event loop (anyio's worker
// threads, which Starlette and FastAPI run a def endpoint in, and
// concurrent.futures' workers, which asyncio's run_in_executor uses); Ruby's
// WEBrick and Puma. Each is named by its function and a part of its
// file's path: a library's own function of the same name (httpcore's
// ConnectionPool.handle_request under a handler) is not a server's.
var dispatchFrames = []dispatchRule{
	{"", "handle_one_request"},
	{"wsgiref/", "ServerHandler.run"}, {"wsgiref/", "BaseHandler.run"}, {"wsgiref/", "SimpleHandler.run"},
	{"socketserver.py", "BaseServer.handle_request"},
	{"gunicorn/workers/", "handle_request"},
	{"uvicorn/protocols/", "RequestResponseCycle.run_asgi"},
	{"anyio/", "WorkerThread.run"},
	{"concurrent/futures/thread.py", "_worker"},
	{"webrick/", "WEBrick::HTTPServer#service"}, {"puma/", "Puma::Server#process_client"}, {"puma/", "Puma::Request#handle_request"},
}

// dispatchRule names a function by its name, or the name's last parts
// after a dot or a space ("block in ..."), and a part of its file's path
// ("" for any file).
type dispatchRule struct{ file, name string }

func (r dispatchRule) matches(fn, file string) bool {
	return strings.Contains(file, r.file) &&
		(fn == r.name || strings.HasSuffix(fn, "."+r.name) || strings.HasSuffix(fn, " "+r.name))
}

// waitModules classify a wait by the standard-library module it happens
// in (the base name of the leaf frame's file).
var waitModules = map[string]runfmt.Wait{
	"socket.py": runfmt.WaitDownstream, "ssl.py": runfmt.WaitDownstream, "selectors.py": runfmt.WaitDownstream,
	"client.py": runfmt.WaitDownstream, "connection.py": runfmt.WaitDownstream, "connectionpool.py": runfmt.WaitDownstream,
	"base_events.py": runfmt.WaitDownstream,
	"threading.py":   runfmt.WaitLock, "queue.py": runfmt.WaitChannel, "_base.py": runfmt.WaitChannel, "synchronize.py": runfmt.WaitLock,
	"subprocess.py": runfmt.WaitSyscall,
}

// waitCalls classify a wait by the call on its source line, when the leaf
// frame is the service's own code calling into C (py-spy shows no frame
// for socket.recv or time.sleep).
var waitCalls = []struct {
	re   *regexp.Regexp
	wait runfmt.Wait
}{
	{regexp.MustCompile(`\bsleep\(`), runfmt.WaitSleep},
	{regexp.MustCompile(`\.(recv|recv_into|recvfrom|send|sendall|connect|accept|makefile|getresponse|urlopen|request|get|post|put|delete|execute|fetch\w*|query)\(|\b(create_connection|getaddrinfo|urlopen)\(`), runfmt.WaitDownstream},
	{regexp.MustCompile(`\.(acquire|wait|join)\(|\bwith\s+\w*lock`), runfmt.WaitLock},
	{regexp.MustCompile(`\.(read|readline|readinto|write|flush|fsync)\(|\bopen\(`), runfmt.WaitSyscall},
}

// SpyWall builds a wall-time profile (the runfmt format: sample types
// runfmt.WallSample, runfmt.OffCPUSample and one per kind, in nanoseconds,
// each sample labelled with its wait) of the request threads from a
// wall-clock sampler's profile (idle threads included) and a CPU profile
// taken at the same rate over a window that holds the wall-clock
// recording's. cpuShare is the part of the CPU profile's samples that fall
// in the wall-clock recording, by the CPU the service used then (1: the
// same window; a slice of it gets its share of every stack's samples).
// idleNs is the time request threads waited for the next request. cpuNs,
// when > 0, is the CPU the service measured over the wall-clock
// recording, which caps the running time. source, when set, returns the
// text of a file's line (to tell what a wait in the service's own code
// calls). ok is false when no stack serves requests.
func SpyWall(wall, cpu *profile.Profile, cpuShare float64, cpuNs int64, source func(file string, line int64) string) (out *profile.Profile, idleNs int64, ok bool) {
	if wall == nil || len(wall.Sample) == 0 || len(wall.SampleType) < 2 {
		return nil, 0, false
	}
	if cpuShare <= 0 || cpuShare > 1 {
		cpuShare = 1
	}
	onCPU := map[string]float64{}
	if cpu != nil && len(cpu.SampleType) > 0 {
		for _, s := range cpu.Sample {
			onCPU[frameKey(s)] += float64(s.Value[0]) * cpuShare
		}
	}
	// Each request stack's running samples: at most its CPU profile's.
	type split struct {
		s        *profile.Sample
		run, off float64 // samples
		per      int64   // ns per sample
	}
	var stacks []split
	var runNs int64
	for _, s := range wall.Sample {
		n, ns := s.Value[0], s.Value[1]
		if n <= 0 {
			continue
		}
		switch requestStack(s) {
		case stackIdle:
			idleNs += ns
			continue
		case stackOther:
			continue
		}
		key := frameKey(s)
		run := min(float64(n), onCPU[key])
		onCPU[key] -= run
		stacks = append(stacks, split{s, run, float64(n) - run, ns / n})
		runNs += int64(run * float64(ns/n))
	}
	// A sampler calls a thread active when it is ready to run, not only when
	// it runs: the running time of the request threads cannot be more than
	// the service's measured CPU; the excess waited for a CPU.
	scale := 1.0
	if cpuNs > 0 && runNs > cpuNs {
		scale = float64(cpuNs) / float64(runNs)
	}
	missed := tickScale(wall)
	idleNs = int64(float64(idleNs) * missed)
	b := newSpyBuilder(wall)
	for _, st := range stacks {
		active := int64(st.run * float64(st.per))
		run := int64(float64(active) * scale)
		b.add(st.s, runfmt.WaitCPU, int64(float64(run)*missed))
		// Active but beyond the CPU measured: ready to run, waiting in the
		// kernel's run queue (or for the GIL).
		b.add(st.s, runfmt.WaitRunnable, int64(float64(active-run)*missed))
		if off := int64(st.off * float64(st.per)); off > 0 {
			b.add(st.s, classifySpyWait(st.s, source), int64(float64(off)*missed))
		}
	}
	if len(b.p.Sample) == 0 {
		return nil, idleNs, false
	}
	sortSamples(b.p)
	return b.p, idleNs, true
}

// SpySleeps is the time threads were seen asleep in a wall-clock
// sampler's recording (py-spy --idle: every thread at every tick), in the
// threads serving requests and in all of them, in ns. The kernel times
// every thread's sleeps exactly but cannot tell a request's from a
// background thread's; this is the requests' share. source is as for
// SpyWall.
func SpySleeps(wall *profile.Profile, source func(file string, line int64) string) (requestNs, allNs int64) {
	if wall == nil || len(wall.SampleType) < 2 {
		return 0, 0
	}
	for _, s := range wall.Sample {
		if s.Value[0] <= 0 || classifySpyWait(s, source) != runfmt.WaitSleep {
			continue
		}
		allNs += s.Value[1]
		if requestStack(s) == stackRequest {
			requestNs += s.Value[1]
		}
	}
	return requestNs, allNs
}

// Stack roles for SpyWall.
const (
	stackOther   = iota // a thread that does not serve requests
	stackIdle           // a request thread waiting for the next request
	stackRequest        // serving a request
)

// requestStack says what a sampler's stack is doing.
func requestStack(s *profile.Sample) int {
	frames := sampleFrames(s)
	for d := len(frames) - 1; d >= 0; d-- {
		if !isDispatch(frames[d].Function.Name, frames[d].Function.Filename) {
			continue
		}
		for _, f := range frames[:d] {
			if IsUserFunc(f.Function.Name, f.Function.Filename) {
				return stackRequest
			}
		}
		return stackIdle
	}
	return stackOther
}

func isDispatch(name, file string) bool {
	for _, d := range dispatchFrames {
		if d.matches(name, file) {
			return true
		}
	}
	return false
}

// sampleFrames lists a sample's frames, leaf first, inlined ones expanded.
func sampleFrames(s *profile.Sample) []profile.Line {
	var out []profile.Line
	for _, l := range s.Location {
		for i := len(l.Line) - 1; i >= 0; i-- {
			if l.Line[i].Function != nil {
				out = append(out, l.Line[i])
			}
		}
	}
	return out
}

// frameKey identifies a stack by its functions and lines, not files: the
// CPU and wall-clock recordings may spell the same file differently.
func frameKey(s *profile.Sample) string {
	var b strings.Builder
	for _, f := range sampleFrames(s) {
		b.WriteString(f.Function.Name)
		b.WriteByte(':')
		b.WriteString(strconv.FormatInt(f.Line, 10))
		b.WriteByte(';')
	}
	return b.String()
}

// classifySpyWait names the wait of a stack that was off a CPU: by the
// library module it is in, else by the call on its leaf frame's source
// line (py-spy shows no frame for a call into C: socket.recv,
// time.sleep), else other. A library's socket wait under the server's own
// frames is the request's own connection.
func classifySpyWait(s *profile.Sample, source func(string, int64) string) runfmt.Wait {
	frames := sampleFrames(s)
	if len(frames) == 0 {
		return runfmt.WaitOther
	}
	leaf := frames[0]
	lib := !IsUserFunc(leaf.Function.Name, leaf.Function.Filename)
	ownConnection := func(w runfmt.Wait) runfmt.Wait {
		if lib && w == runfmt.WaitDownstream && servesOwnConnection(frames) {
			return runfmt.WaitClient
		}
		return w
	}
	if w, ok := waitModules[path.Base(leaf.Function.Filename)]; ok && lib {
		return ownConnection(w)
	}
	if source != nil {
		text := source(leaf.Function.Filename, leaf.Line)
		for _, c := range waitCalls {
			if c.re.MatchString(text) {
				return ownConnection(c.wait)
			}
		}
	}
	return runfmt.WaitOther
}

// servesOwnConnection tells a socket wait on the request's own connection
// (the server's library frames right above it) from a call elsewhere.
func servesOwnConnection(frames []profile.Line) bool {
	for _, f := range frames[1:] {
		if IsUserFunc(f.Function.Name, f.Function.Filename) {
			return false
		}
		switch path.Base(f.Function.Filename) {
		case "server.py", "socketserver.py", "handlers.py", "simple_server.py", "wsgi.py", "body.py", "message.py":
			return true
		}
	}
	return false
}

// spyBuilder accumulates the wall-time profile of SpyWall.
type spyBuilder struct {
	p    *profile.Profile
	kind map[runfmt.TimeKind]int // sample type index per kind
	seen map[string]*profile.Sample
}

func newSpyBuilder(src *profile.Profile) *spyBuilder {
	p := &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: runfmt.WallSample, Unit: "nanoseconds"}, {Type: runfmt.OffCPUSample, Unit: "nanoseconds"}},
		DefaultSampleType: runfmt.WallSample,
		Location:          src.Location, Function: src.Function, Mapping: src.Mapping,
		TimeNanos: src.TimeNanos, DurationNanos: src.DurationNanos,
	}
	b := &spyBuilder{p: p, kind: map[runfmt.TimeKind]int{}, seen: map[string]*profile.Sample{}}
	for _, k := range runfmt.TimeKinds.List() {
		b.kind[k] = len(p.SampleType)
		p.SampleType = append(p.SampleType, &profile.ValueType{Type: string(k), Unit: "nanoseconds"})
	}
	return b
}

// add charges ns of wait at s's stack.
func (b *spyBuilder) add(s *profile.Sample, wait runfmt.Wait, ns int64) {
	if ns <= 0 {
		return
	}
	key := stackKey(s) + "|" + string(wait)
	smp := b.seen[key]
	if smp == nil {
		smp = &profile.Sample{Location: s.Location, Value: make([]int64, len(b.p.SampleType)), Label: map[string][]string{runfmt.WaitLabel: {string(wait)}}}
		b.seen[key] = smp
		b.p.Sample = append(b.p.Sample, smp)
	}
	kind := wait.Kind()
	smp.Value[0] += ns
	if kind != runfmt.TimeRunning {
		smp.Value[1] += ns
	}
	smp.Value[b.kind[kind]] += ns
}

// tickScale is the wall time a sampler's tick stands for, over its
// nominal period. The sampler runs outside the service's budget, so a
// busy machine delays it and it misses ticks; and py-spy spaces its ticks
// at random around the period, so at a few ticks a second their count is
// off either way by chance (±22% over a second at 19 Hz): correcting only
// the shortfalls would inflate every wait. A Python program's main thread
// (its stack starts at "<module>") is in every tick, so its samples count
// the ticks each process took (by the pid label), against the recording's
// duration over the period. The scale (1 when the count is as expected) is
// kept within 1/2 and 2: beyond, the sampler's figures are too thin to
// correct.
func tickScale(wall *profile.Profile) float64 {
	var samples, ns int64
	ticks := map[int64]int64{} // main-thread samples by pid
	for _, s := range wall.Sample {
		samples += s.Value[0]
		ns += s.Value[1]
		if fs := sampleFrames(s); len(fs) > 0 && fs[len(fs)-1].Function.Name == "<module>" {
			var pid int64
			if p := s.NumLabel["pid"]; len(p) > 0 {
				pid = p[0]
			}
			ticks[pid] += s.Value[0]
		}
	}
	if len(ticks) == 0 || samples == 0 || wall.DurationNanos <= 0 {
		return 1
	}
	var all int64
	for _, n := range ticks {
		all += n
	}
	perProcess := float64(all) / float64(len(ticks))
	want := float64(wall.DurationNanos) / (float64(ns) / float64(samples))
	return min(2, max(0.5, want/perProcess))
}

// sortSamples orders samples by descending wall time (stable output).
func sortSamples(p *profile.Profile) {
	sort.SliceStable(p.Sample, func(i, j int) bool { return p.Sample[i].Value[0] > p.Sample[j].Value[0] })
}
