package findings

import (
	"sort"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
)

// FindingInput is what Findings reads; any field may be nil or zero, and the
// rules that need it are skipped.
type FindingInput struct {
	CPU, Allocs, Mutex, Block      *profile.Profile
	GoroutinesStart, GoroutinesEnd *profile.Profile
	Requests                       int64
	WindowSeconds                  float64
	Target                         *runfmt.TargetSummary
	GC                             *runfmt.GCSummary
	Load                           *runfmt.LoadResult
	// Quality is the machine during the window: who else used the CPUs
	// and how long the load generator waited for one.
	Quality *runfmt.Quality
	// UserCode decides what is the user's code (zero: the default rule).
	UserCode analysis.UserCode
	// Runtime is what the service runs (go, python, ruby, node, jvm,
	// native; "" for Go): advice is given in its terms.
	Runtime runfmt.Runtime

	// Wall is the request goroutines' (threads') wall time by stack, from
	// a Go execution trace or a wall-clock sampler (sample types
	// runfmt.WallSample and one per kind, runfmt.WaitLabel on each
	// sample); Time its split per request. Holders charges lock waits to
	// the stacks that released them.
	Wall, Holders *profile.Profile
	Time          *runfmt.TimePerRequest
	// Peers are the service's outbound connections seen in the window.
	Peers []string
	// GoRuntime is the Go runtime's settings as used; Heap the live heap's
	// growth over the window.
	GoRuntime *runfmt.GoRuntime
	Heap      *runfmt.HeapGrowth
	// WaitChecks says, in the user's words, what could not be looked at
	// for time off the CPU ("no execution trace: --no-trace").
	WaitChecks []string
}

// ranked is a finding with its rank: a share (of CPU, or for findings
// about waiting the share of latency they explain) or a cost per request in
// µs. Findings are sorted by their cost per request in time (see timeKey),
// so a service that mostly waits sees its waits first.
type ranked struct {
	f    runfmt.Finding
	rank float64
}

// timeKey is what findings are sorted by: the time per request a finding
// explains (CPU or wall), else its share scaled to the request's time.
// The CPU-bound finding says what the service's state was, not where its
// cost goes: it ranks after every finding that does, so the first finding
// names what to change.
func timeKey(r ranked, in FindingInput, cpu *cpuView) float64 {
	if r.f.Kind == runfmt.FindingCPUBound {
		return 0
	}
	if t := r.f.CostUsPerRequest + r.f.WaitUsPerRequest; t > 0 {
		return t
	}
	scale := cpu.UsPerRequest
	if in.Load != nil && in.Load.Latency.Mean > 0 {
		scale = max(scale, 1000*in.Load.Latency.Mean)
	}
	if scale <= 0 {
		scale = 1
	}
	return r.rank * scale
}

// Findings applies perflab's rules to a run's profiles and summaries and
// returns the findings ranked by the share of cost they explain. Each names
// the code the user can change first, then the standard-library functions
// that are the evidence, with numbers per request in Detail.
func Findings(in FindingInput) []runfmt.Finding {
	var all []ranked
	cpu := newCPUView(in)
	all = append(all, cpuBound(in, cpu)...)
	all = append(all, gcFinding(in, cpu)...)
	all = append(all, cpu.categoryFindings()...)
	all = append(all, cpu.ownerFindings(all)...)
	tw := newTimeWaits(in)
	all = append(all, tw.found...)
	all = append(all, schedulerFindings(in, cpu, tw)...)
	all = append(all, offCPU(in, cpu, tw)...)
	if tw.v == nil {
		all = append(all, lockFindings(in)...)
	}
	all = append(all, goroutineGrowth(in)...)
	all = append(all, memoryGrowth(in)...)
	for i := range all {
		all[i].rank = timeKey(all[i], in, cpu)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].rank > all[j].rank })
	out := make([]runfmt.Finding, len(all))
	for i, r := range all {
		out[i] = r.f
	}
	return out
}
