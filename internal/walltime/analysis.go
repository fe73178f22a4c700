package walltime

import (
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
)

// Analysis is what a trace says about the time of its request goroutines
// and about the scheduler and GC over the traced interval.
type Analysis struct {
	// GoVersion is the trace format's Go version ("1.26").
	GoVersion string
	// Start and End are the wall-clock times the trace covers, from its
	// clock snapshots (Go 1.25+; zero before), and Duration its length.
	Start, End time.Time
	Duration   time.Duration

	// Time is the wall time of the request goroutines in each kind, summed
	// over them (see the package doc), over the traced interval.
	Time map[runfmt.TimeKind]time.Duration
	// ByWait splits Time by the precise wait.
	ByWait map[runfmt.Wait]time.Duration
	// Idle is the time connection goroutines waited for the next request:
	// not request time, and not in Time.
	Idle time.Duration
	// ServingGoroutines and StartedGoroutines count the request goroutines
	// seen: those serving requests and those they started.
	ServingGoroutines, StartedGoroutines int
	// Profile holds the request goroutines' wall time by stack: sample types
	// wall, offcpu (all but running), then one per runfmt.TimeKind but
	// other (a trace always tells why), in nanoseconds; each sample is
	// labelled with its runfmt.Wait (LabelKey).
	Profile *profile.Profile
	// Holders charges the request goroutines' lock, pool and Cond waits
	// to the stacks that released them: who held the lock (sample type
	// delay, nanoseconds, like the runtime's mutex profile).
	Holders *profile.Profile
	// ClientLoops is the time the goroutines of the service's client
	// connections (net/http's readLoop and writeLoop, its HTTP/2
	// readLoop, gRPC's reader and loopy writer) ran or waited for a P:
	// the service's own time on the path of every call it makes (writing
	// the request, reading the answer and handing it over), inside its
	// request goroutines' downstream waits.
	ClientLoops time.Duration
	// CPUSamples is how many CPU profile samples of request goroutines the
	// trace carried (their stacks place the running time).
	CPUSamples int

	// GOMAXPROCS is the number of Ps the program ran with (the last value
	// the trace reports), PBusy the share of their time they were running.
	GOMAXPROCS int
	PBusy      float64
	// StopTheWorld is the total time the world was stopped, by reason
	// ("GC mark termination", "read mem stats"...); GCStops sums those of
	// the garbage collector, GCCycles counts its mark phases and GCMark is
	// their total length.
	StopTheWorld map[string]time.Duration
	GCStops      time.Duration
	GCCycles     int
	GCMark       time.Duration
	// Goroutines: the most alive at once, and how many were created and
	// ended in the trace.
	GoroutinesMax, GoroutinesCreated, GoroutinesEnded int
}
