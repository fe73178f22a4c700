package analysis

import (
	"sort"

	"github.com/google/pprof/profile"

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
	UserCode UserCode
	// Runtime is what the service runs (go, python, ruby, node, jvm,
	// native; "" for Go): advice is given in its terms.
	Runtime string
}

// Finding kinds.
const (
	KindCPUBound        = "cpu-bound"
	KindGC              = "gc"
	KindFormatting      = "formatting"
	KindEncoding        = "encoding"
	KindReflection      = "reflection"
	KindCompression     = "compression"
	KindRegexp          = "regexp"
	KindHotUserFunction = "hot-user-function"
	KindRepeatedWork    = "repeated-work"
	KindOffCPU          = "off-cpu"
	KindCPUContention   = "cpu-contention"
	KindLockContention  = "lock-contention"
	KindGoroutineGrowth = "goroutine-growth"
)

// ranked is a finding with the key it is sorted by: its CPU share, or for
// findings about waiting (off-cpu, locks) the share of latency they explain,
// so a service that mostly waits sees that first.
type ranked struct {
	f    runfmt.Finding
	rank float64
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
	all = append(all, offCPU(in, cpu)...)
	all = append(all, lockFindings(in)...)
	all = append(all, goroutineGrowth(in)...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].rank > all[j].rank })
	out := make([]runfmt.Finding, len(all))
	for i, r := range all {
		out[i] = r.f
	}
	return out
}
