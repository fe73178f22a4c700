package profiling

import (
	"context"
	"fmt"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/runfmt"
)

// pprofEndpoint is a Go service's own net/http/pprof endpoint: the CPU
// profile over the window, the heap, allocations, goroutines, mutex and
// block snapshots around it, the execution trace of its waits (trace.go),
// and every goroutine's stack when the service is stuck. It samples at
// the Go runtime's rate: runtime/pprof samples at 100 Hz.
var pprofEndpoint = Profiler{
	Name:     runfmt.ProfilerPprof,
	Install:  `import _ "net/http/pprof" in the service, serve it, and give --pprof URL`,
	Runtimes: []runfmt.Runtime{runfmt.RuntimeGo},
	Gives:    Gives{Waits: true, Snapshot: true, Lines: true},
	Sampling: Sampling{Endpoint: true, InService: true},
	Hz:       100,
	Recorder: pprofRecorder{},
}

// pprofRecorder is what the pprof endpoint does.
type pprofRecorder struct{}

var (
	_ Recorder     = pprofRecorder{}
	_ endpoint     = pprofRecorder{}
	_ waitRecorder = pprofRecorder{}
	_ Snapshotter  = pprofRecorder{}
)

// cpuChunk is the longest CPU profile fetched at once: the window is
// recorded in chunks of it, merged, so a run cut short (Ctrl-C) keeps the
// chunks it completed, where one profile of the whole window would be
// lost with its request. The runtime's profiler stops for the next
// request's few milliseconds between chunks. A variable for tests.
var cpuChunk = 5 * time.Second

// Record fetches the CPU profile of the window, in whole seconds and in
// chunks (cpuChunk); its cost is the service's own CPU, in the profile.
// Cut short, it returns the chunks it has; each chunk but the last is
// logged, so a user of a long window knows what an interrupt keeps.
func (pprofRecorder) Record(ctx context.Context, job Job) (*profile.Profile, time.Duration, error) {
	var c capture.Client
	chunk := max(1, int(cpuChunk.Seconds()))
	var got []*profile.Profile
	whole := max(1, int(job.Window.Seconds()))
	for left := whole; left > 0; {
		n := min(left, chunk)
		prof, _, err := c.CPU(ctx, job.Endpoint, n)
		if err != nil {
			if ctx.Err() != nil && len(got) > 0 {
				break
			}
			return nil, 0, err
		}
		got, left = append(got, prof), left-n
		if job.Log != nil && left > 0 {
			job.Log(fmt.Sprintf("CPU profile: %d of %d s recorded", whole-left, whole))
		}
	}
	if len(got) == 1 {
		return got[0], 0, nil
	}
	prof, err := profile.Merge(got)
	if err != nil {
		return nil, 0, fmt.Errorf("merging the CPU profile's %d chunks: %w", len(got), err)
	}
	return prof, 0, nil
}

// before takes the allocations, goroutines and heap the window's deltas
// start from.
func (pprofRecorder) before(ctx context.Context, p *Set) {
	if a, _, err := p.fetch(ctx, runfmt.ProfileAllocs, ""); err == nil {
		p.mu.Lock()
		p.allocsBefore = a
		p.mu.Unlock()
	} else {
		p.host.Warn("allocs profile before the window: " + err.Error())
	}
	if g, raw, err := p.fetch(ctx, runfmt.ProfileGoroutineStart, ""); err == nil {
		p.keep(runfmt.ProfileGoroutineStart, g)
		p.save(runfmt.ProfileGoroutineStart, raw, nil)
	}
	// The in-use heap after a forced collection: the start of the heap's
	// growth by allocation site. Without it, the end of the window
	// fetches it again and warns.
	if h, raw, err := p.fetch(ctx, runfmt.ProfileHeapStart, "gc=1"); err == nil {
		p.keep(runfmt.ProfileHeapStart, h)
		p.save(runfmt.ProfileHeapStart, raw, nil)
	}
}

// after takes the window's allocations (the delta from before), the heap,
// the goroutines, and the mutex and block profiles the service enabled.
func (pprofRecorder) after(ctx context.Context, p *Set) {
	p.allocsDelta(ctx)
	if h, raw, err := p.fetch(ctx, runfmt.ProfileHeap, "gc=1"); err == nil {
		p.keep(runfmt.ProfileHeap, h)
		p.mu.Lock()
		p.heapEndAt = time.Now()
		p.mu.Unlock()
		p.save(runfmt.ProfileHeap, raw, nil)
	}
	if g, raw, err := p.fetch(ctx, runfmt.ProfileGoroutine, ""); err == nil {
		p.keep(runfmt.ProfileGoroutine, g)
		p.save(runfmt.ProfileGoroutine, raw, nil)
	}
	for _, typ := range []runfmt.ProfileType{runfmt.ProfileMutex, runfmt.ProfileBlock} {
		prof, raw, err := p.fetch(ctx, typ, "")
		if err != nil || len(prof.Sample) == 0 {
			continue // not enabled by the service (runtime.SetMutexProfileFraction / SetBlockProfileRate)
		}
		p.keep(typ, prof)
		p.save(typ, raw, nil)
	}
}

// Snapshot reads every goroutine's stack from the endpoint (debug=2),
// within job.Timeout.
func (pprofRecorder) Snapshot(ctx context.Context, job SnapshotJob) (*capture.Snapshot, error) {
	var c capture.Client
	return c.Goroutines(ctx, job.Endpoint, job.PID, job.Timeout)
}

// allocsDelta keeps the allocations of the window: the end's snapshot
// less the one before.
func (p *Set) allocsDelta(ctx context.Context) {
	a, _, err := p.fetch(ctx, runfmt.ProfileAllocs, "")
	p.mu.Lock()
	before := p.allocsBefore
	p.mu.Unlock()
	switch {
	case err != nil:
		p.host.Warn("allocs profile after the window: " + err.Error())
	case before != nil:
		d, err := capture.Delta(before, a)
		if err != nil {
			p.host.Warn("allocations of the window: " + err.Error())
			return
		}
		p.keep(runfmt.ProfileAllocs, d)
		p.save(runfmt.ProfileAllocs, nil, d)
	}
}

// fetch gets a profile of type t from the service's pprof endpoint.
func (p *Set) fetch(ctx context.Context, t runfmt.ProfileType, query string) (*profile.Profile, []byte, error) {
	return p.client.Fetch(ctx, p.base, capture.EndpointOf(t), query)
}
