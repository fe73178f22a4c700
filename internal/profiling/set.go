package profiling

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/files"
	"perflab/internal/runfmt"
)

// Set captures the service's profiles over the measured window and keeps
// them for the run's summary: Pick chooses the profiler, Before takes the
// snapshots the window's deltas start from, During records the window,
// After takes the end's snapshots.
type Set struct {
	host   Host
	cfg    Config
	reg    *Registry // the profilers the run may use
	client capture.Client
	base   string    // the pprof endpoint's base URL, "" if none
	chosen *Profiler // nil for none
	// used are the profilers that sampled the CPU profile, when the
	// processes were sampled (perf, py-spy, rbspy, or several).
	used runfmt.ProfilerSet

	cancel context.CancelFunc
	// tree samples the service's processes when there is no endpoint.
	tree *treeSampler
	// meter measures the profilers' own CPU in the window.
	meter *profilerMeter

	mu         sync.Mutex
	from, to   time.Time
	windowSecs float64
	profiles   map[runfmt.ProfileType]*profile.Profile
	// allocsBefore is the allocations' snapshot the window's delta starts
	// from; heapEndAt is when the heap's end snapshot was taken.
	allocsBefore *profile.Profile
	heapEndAt    time.Time
	trace        *Trace
	// warmIdle are the service's processes that stayed idle through the
	// warm-up (see idleUnderLoad).
	warmIdle map[int]bool
	// stacks says whether the CPU profile's stacks reach user code, once
	// After judged them (a profile perf recorded).
	stacks *runfmt.Stacks
}

// New is the profiles of one run, for host, as cfg says.
func New(host Host, cfg Config) *Set {
	if cfg.Log == nil {
		cfg.Log = func(string) {}
	}
	reg := cfg.Profilers
	if reg == nil {
		reg = Default()
	}
	return &Set{host: host, cfg: cfg, reg: reg, meter: newProfilerMeter(), profiles: map[runfmt.ProfileType]*profile.Profile{}}
}

// Pick decides how the service will be profiled; an explicit --pprof
// endpoint that is not the service's is an error.
func (p *Set) Pick(ctx context.Context) error {
	chosen, err := p.choose(ctx)
	p.chosen = chosen
	return err
}

// Chosen is the profiler chosen, "" for none.
func (p *Set) Chosen() runfmt.Profiler {
	if p == nil || p.chosen == nil {
		return ""
	}
	return p.chosen.Name
}

// Endpoint is the pprof endpoint the service is profiled through, "" when
// it is not.
func (p *Set) Endpoint() string {
	if p == nil {
		return ""
	}
	return p.base
}

// Goroutines reads every goroutine's stack of process pid through the
// endpoint the service is profiled through, within timeout.
func (p *Set) Goroutines(ctx context.Context, pid int, timeout time.Duration) (*capture.Snapshot, error) {
	s := p.chosen.snapshotter()
	if p.base == "" || s == nil {
		return nil, errors.New("reading the goroutines: the service is not profiled through its endpoint")
	}
	return s.Snapshot(ctx, SnapshotJob{PID: pid, Endpoint: p.base, Timeout: timeout})
}

// Snapshotter is how the stacks of a stuck process of runtime rt are
// read: with the first profiler of the run's registry that serves rt by
// name and takes snapshots of processes; nil for none (the kernel's view
// of its threads stands in). A nil Set reads with perflab's own.
func (p *Set) Snapshotter(rt runfmt.Runtime) func(ctx context.Context, pid int) (*capture.Snapshot, error) {
	reg := Default()
	if p != nil {
		reg = p.reg
	}
	for _, pr := range reg.rows {
		if s := pr.snapshotter(); s != nil && !pr.Sampling.Endpoint && pr.Runtimes != nil && pr.serves(rt) {
			return func(ctx context.Context, pid int) (*capture.Snapshot, error) {
				return s.Snapshot(ctx, SnapshotJob{PID: pid})
			}
		}
	}
	return nil
}

// Before takes the snapshots that the window's deltas start from.
func (p *Set) Before(ctx context.Context) {
	if e := p.chosen.endpoint(); e != nil {
		ctx, cancel := context.WithTimeout(ctx, p.cfg.SnapshotTimeout)
		defer cancel()
		e.before(ctx, p)
	}
}

// Abandon stops captures still running (the window ended early).
func (p *Set) Abandon() {
	if p.cancel != nil {
		p.cancel()
	}
}

// After takes the end-of-window snapshots, and saves the CPU profile of
// the processes sampled.
func (p *Set) After(ctx context.Context) {
	if e := p.chosen.endpoint(); e != nil {
		e.after(ctx, p)
	}
	if cpu := p.Profile(runfmt.ProfileCPU); p.tree != nil && cpu != nil {
		st := p.judgeStacks(cpu)
		p.mu.Lock()
		p.stacks = st
		p.mu.Unlock()
		p.save(runfmt.ProfileCPU, nil, cpu)
	}
}

// Stacks says whether the CPU profile's stacks reach the user's code, how
// perf walked them and, when they do not, why, the remedy and the CPU per
// module; nil unless perf recorded the profile. A view that ranks the
// user's functions skips a profile whose stacks do not reach them.
func (p *Set) Stacks() *runfmt.Stacks {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stacks
}

// WindowStarts says the measured window starts: the profilers' CPU counts
// from now.
func (p *Set) WindowStarts() { p.meter.begin() }

// WindowEnds says the measured window is over: the profilers' CPU counts
// no more.
func (p *Set) WindowEnds() { p.meter.end() }

// SetWindow records the measured window's bounds.
func (p *Set) SetWindow(from, to time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.from, p.to = from, to
}

// Window is the measured window's bounds, zero until SetWindow.
func (p *Set) Window() (from, to time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.from, p.to
}

// Profile is the window's profile of type t, nil without one: cpu, allocs
// (the window's delta), heap, heap-start, goroutine, goroutine-start,
// mutex, block (as the service had them enabled), idle and offcpu (the
// threads' waits, per process or per thread).
func (p *Set) Profile(t runfmt.ProfileType) *profile.Profile {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.profiles[t]
}

func (p *Set) keep(t runfmt.ProfileType, prof *profile.Profile) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.profiles[t] = prof
}

// HeapEndAt is when the heap's end snapshot was taken, zero without one.
func (p *Set) HeapEndAt() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.heapEndAt
}

// save writes a profile the chosen profiler recorded to
// profiles/TYPE.pb.gz (raw bytes as served, or prof encoded) and lists it
// in run.json.
func (p *Set) save(typ runfmt.ProfileType, raw []byte, prof *profile.Profile) {
	source := runfmt.SourceProfilers(p.Chosen())
	if typ == runfmt.ProfileCPU {
		source = p.cpuSource()
	}
	p.saveAs(typ, source, raw, prof)
}

// cpuSource is what recorded the CPU profile: the profilers that sampled
// the processes, or the one chosen.
func (p *Set) cpuSource() runfmt.ProfileSource {
	if p.used != "" {
		return runfmt.ProfileSource{Profilers: p.used}
	}
	return runfmt.SourceProfilers(p.Chosen())
}

// SaveWall writes a wall-time profile to profiles/wall.pb.gz; it returns
// the file's path in the run directory, false if it was not written.
func (p *Set) SaveWall(prof *profile.Profile, source runfmt.ProfileSource) (string, bool) {
	rel := p.saveAs(runfmt.ProfileWall, source, nil, prof)
	return rel, rel != ""
}

// saveAs is save with the profile's source (pprof, perf, go-trace...); it
// returns the file's path in the run directory, "" if it was not written.
func (p *Set) saveAs(typ runfmt.ProfileType, source runfmt.ProfileSource, raw []byte, prof *profile.Profile) string {
	name := string(typ)
	rel := filepath.Join("profiles", name+".pb.gz")
	path := filepath.Join(p.host.Dir(), rel)
	var err error
	if raw != nil {
		err = files.WriteFile(path, raw)
	} else {
		err = files.WriteAtomic(path, prof.Write)
	}
	if err != nil {
		p.host.Warn(fmt.Sprintf("saving the %s profile: %v", name, err))
		return ""
	}
	var samples int64
	if prof != nil {
		samples = samplesHeld(prof)
	} else if q, err := capture.Decode(raw); err == nil {
		samples = samplesHeld(q)
	}
	p.addProfile(typ, source, rel, samples)
	return rel
}

// samplesHeld is the samples p holds: its values of the sample count type
// summed (a record counts every sample of its stack), or its records when
// it has no such type (a heap profile's).
func samplesHeld(p *profile.Profile) int64 {
	for i, st := range p.SampleType {
		if st.Type == runfmt.SampleCount && st.Unit == runfmt.SampleCountUnit {
			var n int64
			for _, s := range p.Sample {
				if i < len(s.Value) {
					n += s.Value[i]
				}
			}
			return n
		}
	}
	return int64(len(p.Sample))
}

// addProfile lists a saved profile in the run. Its Seconds is the planned
// window until the summary sets the measured one.
func (p *Set) addProfile(typ runfmt.ProfileType, source runfmt.ProfileSource, file string, samples int64) {
	p.mu.Lock()
	secs := p.windowSecs
	var st *runfmt.Stacks
	if typ == runfmt.ProfileCPU {
		st = p.stacks
	}
	p.mu.Unlock()
	p.host.AddProfile(runfmt.ProfileRef{Type: typ, Source: source, File: file, Samples: samples, Seconds: secs, Stacks: st})
}
