package lab

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/files"
	"perflab/internal/runfmt"
	"perflab/internal/target"
)

// profileSet captures the service's profiles over the measured window and
// keeps them for the summary.
type profileSet struct {
	s      *session
	client capture.Client
	base   string          // net/http/pprof base URL, "" if none
	mode   runfmt.Profiler // the profiler chosen; "" for none
	// used are the profilers that sampled the CPU profile, when the
	// processes were sampled (perf, py-spy, rbspy, or several).
	used runfmt.ProfilerSet

	cancel   context.CancelFunc
	from, to time.Time

	mu                sync.Mutex
	cpu, allocs, heap *profile.Profile
	mutex, block      *profile.Profile
	gorStart, gorEnd  *profile.Profile
	allocsBefore      *profile.Profile
	windowSecs        float64
	// tree samples the service's processes when there is no pprof endpoint.
	tree *treeSampler

	heapStart *profile.Profile
	heapEndAt time.Time
	idle      *profile.Profile // a wall-clock sampler's stacks, idle threads included
	spyWall   *profile.Profile // the request threads' wall time made from idle
	sched     *profile.Profile // a native service's threads off a CPU (perf sched)
	traced    *tracing
	peers     *peerSampler
	// meter measures the profilers' own CPU in the window.
	meter *profilerMeter
	// warmIdle are the service's processes that stayed idle through the
	// warm-up (see idleUnderLoad).
	warmIdle map[int]bool
}

func newProfileSet(s *session) *profileSet { return &profileSet{s: s, meter: newProfilerMeter()} }

// pick decides how the service will be profiled; an explicit --pprof
// endpoint that is not the service's is an error.
func (p *profileSet) pick(ctx context.Context) error {
	mode, err := p.choose(ctx)
	p.mode = mode
	return err
}

// before takes the snapshots that the window's deltas start from.
func (p *profileSet) before(ctx context.Context) {
	if p.mode != runfmt.ProfilerPprof {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, p.s.cfg.SnapshotTimeout)
	defer cancel()
	if a, _, err := p.fetch(ctx, runfmt.ProfileAllocs, ""); err == nil {
		p.allocsBefore = a
	} else {
		p.s.warn("allocs profile before the window: " + err.Error())
	}
	if g, raw, err := p.fetch(ctx, runfmt.ProfileGoroutineStart, ""); err == nil {
		p.gorStart = g
		p.save(runfmt.ProfileGoroutineStart, raw, nil)
	}
	p.heapBefore(ctx)
}

// fetch gets a profile of type t from the service's pprof endpoint.
func (p *profileSet) fetch(ctx context.Context, t runfmt.ProfileType, query string) (*profile.Profile, []byte, error) {
	return p.client.Fetch(ctx, p.base, capture.EndpointOf(t), query)
}

// choose decides how to profile ("" for not at all), probing for a pprof
// endpoint that belongs to the service.
func (p *profileSet) choose(ctx context.Context) (runfmt.Profiler, error) {
	c := &p.s.cfg
	chosen, one := c.Profiler.Profiler()
	switch {
	case c.Profiler == ProfilerNone:
		return "", nil
	case one && chosen != runfmt.ProfilerPprof:
		return chosen, nil
	}
	runtimes := p.runtimes()
	for _, base := range p.candidates() {
		if c.Pprof == "" && len(runtimes) > 0 && !runtimes[runfmt.RuntimeGo] {
			break // no Go process in the service: a pprof endpoint found there is another's
		}
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := p.client.Probe(pctx, base)
		cancel()
		if err != nil {
			if c.Pprof != "" {
				p.s.warn(fmt.Sprintf("--pprof %s: %v", c.Pprof, err))
			}
			continue
		}
		if ok, err := p.accept(ctx, base); err != nil || !ok {
			if err != nil {
				return "", err
			}
			continue
		}
		p.base = base
		p.s.cfg.Log("profiling through " + base + "/debug/pprof/")
		return runfmt.ProfilerPprof, nil
	}
	if chosen == runfmt.ProfilerPprof {
		p.s.degrade("no net/http/pprof endpoint of the service found: no profiles (give --pprof URL)")
		return "", nil
	}
	if p.s.proc == nil {
		if c.Pprof == "" {
			p.s.degrade("no net/http/pprof endpoint of the service found and no process to sample: no profiles (give --pprof URL or --pid)")
		}
		return "", nil
	}
	switch {
	case runtimes[runfmt.RuntimePython]:
		return runfmt.ProfilerPySpy, nil
	case runtimes[runfmt.RuntimeRuby]:
		return runfmt.ProfilerRbSpy, nil
	}
	return runfmt.ProfilerPerf, nil
}

// accept checks that a pprof endpoint that answers is the service's. A
// guessed endpoint (the load URL's host, 127.0.0.1:6060) that is another
// process's is skipped with a warning; an explicit --pprof is an error,
// unless --force.
func (p *profileSet) accept(ctx context.Context, base string) (bool, error) {
	o := p.owner(ctx, base)
	explicit := p.s.cfg.Pprof != ""
	switch {
	case o.ok && !o.verified && !explicit && o.why != "":
		p.s.warn(fmt.Sprintf("%s answers as net/http/pprof, but %s: profiling it anyway", base, o.why))
	case o.ok:
	case explicit && p.s.cfg.Force:
		p.s.warn(fmt.Sprintf("--pprof %s: %s; profiling it anyway (--force)", base, o.why))
		return true, nil
	case explicit:
		return false, fmt.Errorf("--pprof %s: %s: %w; give the service's own net/http/pprof address, or --force to profile it anyway", base, o.why, ErrNotTheService)
	default:
		p.s.warn(fmt.Sprintf("not profiling %s: %s", base, o.why))
	}
	return o.ok, nil
}

// runtimes are the runtimes of the service's processes now.
func (p *profileSet) runtimes() map[runfmt.Runtime]bool {
	out := map[runfmt.Runtime]bool{}
	if p.s.proc == nil {
		return out
	}
	for _, pid := range p.s.proc.PIDs() {
		if info, err := target.DetectRuntime(pid); err == nil {
			out[info.Runtime] = true
		}
	}
	return out
}

func (p *profileSet) candidates() []string {
	c := &p.s.cfg
	if c.Pprof != "" {
		return []string{strings.TrimRight(strings.TrimSuffix(strings.TrimRight(c.Pprof, "/"), "/debug/pprof"), "/")}
	}
	var out []string
	if len(c.Load.Targets) > 0 {
		u := c.Load.Targets[0].URL
		out = append(out, (&url.URL{Scheme: u.Scheme, Host: u.Host}).String())
	}
	return append(out, pprofGuess)
}

// pprofGuess is the pprof endpoint tried when the load URL's host serves
// none: net/http/pprof's customary address (a variable so that a test can
// put a decoy on a port of its own).
var pprofGuess = "http://127.0.0.1:6060"

// during starts the window's CPU profile (and trace) in the background; the
// returned channel closes when they are done.
func (p *profileSet) during(ctx context.Context, window time.Duration) <-chan struct{} {
	done := make(chan struct{})
	pctx, cancel := context.WithCancel(ctx)
	p.cancel = cancel
	secs := max(1, int(window.Seconds()))
	p.windowSecs = window.Seconds()
	var wg sync.WaitGroup
	switch p.mode {
	case runfmt.ProfilerPprof:
		wg.Go(func() { p.pprofCPU(pctx, secs) })
		if !p.s.cfg.NoTrace {
			wg.Go(func() { p.trace(pctx, window) })
		}
	case runfmt.ProfilerPerf, runfmt.ProfilerPySpy, runfmt.ProfilerRbSpy:
		// The samplers start ahead of the window: attaching takes perf,
		// py-spy and rbspy a moment (seconds on a loaded machine), and a
		// window they join late would be profiled in part.
		p.tree = newTreeSampler(p.s)
		p.tree.meter = p.meter
		p.tree.hz = func(tool runfmt.Profiler) int { return p.s.cfg.samplerHz(tool, window) }
		p.tree.end = time.Now().Add(samplerLead + window) // the longest it can last
		started := make(chan struct{})
		p.tree.onStart = func() { close(started) }
		deadline := time.Now().Add(samplerLead)
		var sched *schedRecording
		if p.mode == runfmt.ProfilerPerf && !p.s.cfg.NoTrace {
			sched = p.startPerfSched(pctx, &wg, window)
		}
		// At the window's end the profilers' CPU is read before they are
		// told to stop: what they do then (writing and converting their
		// samples) is not the window's.
		p.tree.atEnd = func() {
			p.meter.end()
			sched.end()
		}
		wg.Go(func() { p.sample(pctx, window) })
		var idle *idleRecording
		if p.mode == runfmt.ProfilerPySpy && p.s.cfg.Trace {
			idle = p.startSpyIdle(pctx) // sampling before the load starts, as the CPU profile does
		}
		select {
		case <-started:
			p.tree.waitAttached(pctx, time.Until(deadline))
		case <-pctx.Done():
		}
		sched.waitAttached(pctx, deadline)
		idle.waitAttached(pctx, deadline)
		p.tree.begin(window)
		sched.begin(window)
		switch {
		case idle != nil:
			wg.Go(func() { p.spyIdle(pctx, idle, window+spyIdleTail) })
		case p.mode == runfmt.ProfilerPySpy && !p.s.cfg.NoTrace:
			wg.Go(func() { p.spyIdleSlice(pctx, window) })
		}
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	return done
}

// abandon stops captures still running (the window ended early).
func (p *profileSet) abandon() {
	if p.cancel != nil {
		p.cancel()
	}
}

func (p *profileSet) pprofCPU(ctx context.Context, secs int) {
	prof, raw, err := p.client.CPU(ctx, p.base, secs)
	if err != nil {
		p.failed(ctx, "the CPU profile failed: "+err.Error())
		return
	}
	p.mu.Lock()
	p.cpu = prof
	p.mu.Unlock()
	p.save(runfmt.ProfileCPU, raw, nil)
}

func (p *profileSet) sample(ctx context.Context, d time.Duration) {
	prof, err := p.tree.run(ctx, d)
	if err != nil {
		p.failed(ctx, "the CPU profile failed: "+string(p.mode)+": "+err.Error())
		return
	}
	p.used = p.tree.source()
	p.mu.Lock()
	p.cpu = prof
	p.mu.Unlock()
	// Saved by after, on the run's goroutine: saving reads the window's
	// bounds, which the run sets while the samplers finish.
}

// failed records a CPU profile that did not come: the run is degraded,
// unless the window itself was cut short (the run is then partial, and the
// profile's end is a consequence, not a cause).
func (p *profileSet) failed(ctx context.Context, msg string) {
	if ctx.Err() != nil {
		p.s.warn(msg)
		return
	}
	p.s.degrade(msg)
}

// after takes the end-of-window snapshots.
func (p *profileSet) after(ctx context.Context) {
	if p.mode != runfmt.ProfilerPprof {
		if p.tree != nil && p.cpu != nil {
			p.save(runfmt.ProfileCPU, nil, p.cpu)
		}
		return
	}
	if a, _, err := p.fetch(ctx, runfmt.ProfileAllocs, ""); err != nil {
		p.s.warn("allocs profile after the window: " + err.Error())
	} else if p.allocsBefore != nil {
		if d, err := capture.Delta(p.allocsBefore, a); err != nil {
			p.s.warn("allocations of the window: " + err.Error())
		} else {
			p.allocs = d
			p.save(runfmt.ProfileAllocs, nil, d)
		}
	}
	if h, raw, err := p.fetch(ctx, runfmt.ProfileHeap, "gc=1"); err == nil {
		p.heap, p.heapEndAt = h, time.Now()
		p.save(runfmt.ProfileHeap, raw, nil)
	}
	if g, raw, err := p.fetch(ctx, runfmt.ProfileGoroutine, ""); err == nil {
		p.gorEnd = g
		p.save(runfmt.ProfileGoroutine, raw, nil)
	}
	for _, typ := range []runfmt.ProfileType{runfmt.ProfileMutex, runfmt.ProfileBlock} {
		prof, raw, err := p.fetch(ctx, typ, "")
		if err != nil || len(prof.Sample) == 0 {
			continue // not enabled by the service (runtime.SetMutexProfileFraction / SetBlockProfileRate)
		}
		if typ == runfmt.ProfileMutex {
			p.mutex = prof
		} else {
			p.block = prof
		}
		p.save(typ, raw, nil)
	}
}

// save writes a profile to profiles/TYPE.pb.gz (raw bytes as served, or
// prof encoded) and lists it in run.json.
func (p *profileSet) save(typ runfmt.ProfileType, raw []byte, prof *profile.Profile) {
	source := runfmt.SourceProfilers(runfmt.ProfilerPprof)
	if typ == runfmt.ProfileCPU {
		source = p.cpuSource()
	}
	p.saveAs(typ, source, raw, prof)
}

// cpuSource is what recorded the CPU profile: the profilers that sampled
// the processes, or the one chosen.
func (p *profileSet) cpuSource() runfmt.ProfileSource {
	if p.used != 0 {
		return runfmt.ProfileSource{Profilers: p.used}
	}
	return runfmt.SourceProfilers(p.mode)
}

// saveAs is save with the profile's source (pprof, perf, go-trace...); it
// returns the file's path in the run directory, "" if it was not written.
func (p *profileSet) saveAs(typ runfmt.ProfileType, source runfmt.ProfileSource, raw []byte, prof *profile.Profile) string {
	name := string(typ)
	rel := filepath.Join("profiles", name+".pb.gz")
	path := filepath.Join(p.s.dir, rel)
	var err error
	if raw != nil {
		err = files.WriteFile(path, raw)
	} else {
		err = files.WriteAtomic(path, prof.Write)
	}
	if err != nil {
		p.s.warn(fmt.Sprintf("saving the %s profile: %v", name, err))
		return ""
	}
	var samples int64
	if prof != nil {
		samples = int64(len(prof.Sample))
	} else if q, err := capture.Decode(raw); err == nil {
		samples = int64(len(q.Sample))
	}
	p.s.addProfile(typ, source, rel, samples)
	return rel
}
