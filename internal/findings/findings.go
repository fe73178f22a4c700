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
	// Ledger is the run's request ledger: the time findings claim its
	// rows' time and no more (ledger.go).
	Ledger *runfmt.Ledger
	// WaitChecks says, in the user's words, what could not be looked at
	// for time off the CPU ("no execution trace: --no-trace").
	WaitChecks []string
	// Batch says the profile is one run of a batch program, not requests:
	// no work repeats per request.
	Batch bool
	// Profiling is how the CPU profile was taken: the workers started
	// in the window and their start-up before they were sampled.
	Profiling *runfmt.Profiling
}

// A rule finds one kind of finding, or a few related kinds: it computes
// each finding's figures and evidence from the input (what the rules
// before it found included) and returns them with their rank. Their
// words are package prose's.
type rule func(c *context) []ranked

// rules are perflab's rules, in the order they apply: a rule may read
// what the rules before it found (c.found), and change it (the
// constructor rule carves its stacks out of the findings that held
// them). Adding a finding is adding a file with its rule, and a row
// here. A few findings are made elsewhere, from other data than the
// profiles: Stuck, BatchFindings, SerialPhaseFindings, OutOfMemory.
var rules = []rule{
	gcFinding, categoryFindings, ownerFindings, constructorFindings, waitFindings, nPlusOneFinding, networkStallFinding, gomaxprocsFinding, throttledFinding, cpuBound, schedulerLatency, contentionFinding, spinWaitFinding,
	offCPU, lockFindings, goroutineGrowth, memoryGrowth, startupFinding,
}

// context is what the rules share while they apply: the input, its CPU
// profile prepared once, the wall-time findings, what was found so far.
type context struct {
	in    FindingInput
	cpu   *cpuView
	tw    *timeWaits
	found []ranked
}

// ranked is a finding with its rank: a share (of CPU, or for findings
// about waiting the share of latency they explain) or a cost per request in
// µs. Findings are sorted by their cost per request in time (see timeKey),
// so a service that mostly waits sees its waits first.
type ranked struct {
	f    runfmt.Finding
	rank float64
	// region are the CPU profile's stacks (indices into the CPU view's
	// stack set) whose cost the finding's CPU figure counts; nil when the
	// rule does not know them.
	region []int
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
	if t := r.f.Figures[runfmt.FigCPUPerRequest] + r.f.Figures[runfmt.FigWaitPerRequest]; t > 0 {
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
// returns the findings ranked by the time per request they explain. Each
// names the code the user can change first, then the standard-library
// functions that are the evidence, with its figures per request.
func Findings(in FindingInput) []runfmt.Finding {
	c := &context{in: in, cpu: newCPUView(in)}
	c.tw = newTimeWaits(in)
	for _, find := range rules {
		found := find(c) // a rule may change what the rules before it found
		c.found = append(c.found, found...)
	}
	all := c.found
	for i := range all {
		all[i].rank = timeKey(all[i], in, c.cpu)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].rank > all[j].rank })
	exclusiveCPU(all, c.cpu)
	out := make([]runfmt.Finding, len(all))
	for i, r := range all {
		out[i] = r.f
	}
	return out
}

// withRole are the functions of f's evidence in role r.
func withRole(f *runfmt.Finding, r runfmt.Role) []runfmt.FuncEvidence {
	var out []runfmt.FuncEvidence
	for _, e := range f.Evidence.Functions {
		if e.Role == r {
			out = append(out, e)
		}
	}
	return out
}

// runtimeAdvice is one advice in the terms of each runtime: pre-fork
// Python and Ruby servers, node, a JVM, and the others.
type runtimeAdvice struct{ scripts, node, jvm, other runfmt.Advice }

func (a runtimeAdvice) of(rt runfmt.Runtime) runfmt.Advice {
	switch rt {
	case runfmt.RuntimePython, runfmt.RuntimeRuby:
		return a.scripts
	case runfmt.RuntimeNode:
		return a.node
	case runfmt.RuntimeJVM:
		return a.jvm
	}
	return a.other
}
