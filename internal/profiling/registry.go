package profiling

import (
	"fmt"
	"slices"

	"perflab/internal/runfmt"
)

// perflabProfilers are perflab's own profilers, one row each: the
// service's pprof endpoint first, then, for a service sampled through
// its processes, the profilers of one runtime each, and perf, which
// serves every runtime. Adding a profiler is a file of its own (its
// descriptor and Recorder), a reader of its format in package capture,
// and a row here.
var perflabProfilers = []*Profiler{
	&pprofEndpoint,
	&pySpy,
	&rbSpy,
	&v8,
	&asyncProfiler,
	&perf,
}

// defaultRegistry is perflab's own profilers; it never changes.
var defaultRegistry = func() *Registry {
	r, err := NewRegistry(perflabProfilers...)
	if err != nil {
		panic(err) // a row is incomplete: TestDefaultRegistry says which
	}
	return r
}()

// Registry is the profilers a run can use, in order: a service's
// processes are sampled, each, with the first that serves its runtime
// by name (see forRuntime). A registry does not change once made: With
// makes another.
type Registry struct {
	rows []*Profiler
}

// Default is perflab's own profilers.
func Default() *Registry { return defaultRegistry }

// NewRegistry is a registry of ps, in order. An error names a profiler
// whose descriptor is incomplete, whose fields promise a behaviour its
// Recorder lacks, or whose name is taken.
func NewRegistry(ps ...*Profiler) (*Registry, error) {
	r := &Registry{}
	for _, pr := range ps {
		if err := pr.check(); err != nil {
			return nil, err
		}
		if _, taken := r.find(pr.Name); taken {
			return nil, fmt.Errorf("profiler %s: registered twice", pr.Name)
		}
		c := *pr
		c.Runtimes = slices.Clone(pr.Runtimes)
		r.rows = append(r.rows, &c)
	}
	return r, nil
}

// With is a registry of r's profilers followed by ps.
func (r *Registry) With(ps ...*Profiler) (*Registry, error) {
	return NewRegistry(append(slices.Clone(r.rows), ps...)...)
}

// Names are the profilers' names, in order.
func (r *Registry) Names() []runfmt.Profiler {
	out := make([]runfmt.Profiler, len(r.rows))
	for i, pr := range r.rows {
		out[i] = pr.Name
	}
	return out
}

// find returns the profiler named name, false for a name not registered.
func (r *Registry) find(name runfmt.Profiler) (*Profiler, bool) {
	i := slices.IndexFunc(r.rows, func(pr *Profiler) bool { return pr.Name == name })
	if i < 0 {
		return nil, false
	}
	return r.rows[i], true
}

// endpointProfiler is the first profiler that samples through the
// service's endpoint, nil for none.
func (r *Registry) endpointProfiler() *Profiler {
	for _, pr := range r.rows {
		if pr.Sampling.Endpoint {
			return pr
		}
	}
	return nil
}

// forRuntime is the profiler that samples processes of runtime rt: of
// those that sample processes (not an endpoint) and serve rt, the one
// that names rt among its runtimes before one that serves every runtime,
// then the one that gives lines, then the first; nil for none.
func (r *Registry) forRuntime(rt runfmt.Runtime) *Profiler {
	var best *Profiler
	for _, pr := range r.rows {
		if pr.Sampling.Endpoint || !pr.serves(rt) {
			continue
		}
		if best == nil || pr.rank() > best.rank() {
			best = pr
		}
	}
	return best
}

// rank orders the profilers that serve a runtime: by name first, then
// with lines.
func (pr *Profiler) rank() int {
	n := 0
	if pr.Runtimes != nil {
		n += 2
	}
	if pr.Gives.Lines {
		n++
	}
	return n
}

// forAll is the first profiler that samples the processes of every
// runtime, nil for none.
func (r *Registry) forAll() *Profiler {
	for _, pr := range r.rows {
		if !pr.Sampling.Endpoint && pr.Runtimes == nil {
			return pr
		}
	}
	return nil
}

// forRuntimes is the profiler that samples a service whose processes run
// the runtimes rts: the first process profiler that names one of them,
// else the one that serves every runtime.
func (r *Registry) forRuntimes(rts map[runfmt.Runtime]bool) *Profiler {
	for _, pr := range r.rows {
		if !pr.Sampling.Endpoint && pr.Runtimes != nil && pr.servesAny(rts) {
			return pr
		}
	}
	return r.forAll()
}
