package runfmt

// RunFigure is one of the figures a run reports, as a noisy measurement
// leaves it intact or distorts it: run.json's quality.trusted and
// quality.distorted.
type RunFigure string

// The figures.
const (
	// A service's latency, throughput (requests/s) and find-max rates:
	// waiting for a CPU adds to the first and takes from the others.
	RunLatency      RunFigure = "latency"
	RunThroughput   RunFigure = "throughput"
	RunFindMaxRates RunFigure = "find-max-rates"
	// RunCPUPerRequest is counted in CPU time, which waiting does not
	// add to (a crowded machine still adds a few percent: caches,
	// context switches); among the distorted when the runtime spun
	// waiting for threads without a CPU (Quality.SpunShare).
	RunCPUPerRequest RunFigure = "cpu-per-request"
	RunAllocations   RunFigure = "allocations"
	// RunProfileShares are the functions' shares of the CPU profile;
	// among the distorted when the profiler counted waiting threads as
	// working (Quality.ProfileOverMeasured).
	RunProfileShares RunFigure = "profile-shares"
	// A batch program's wall time and cores busy, which waiting inflates
	// or holds back, and its CPU time, which it does not.
	RunWallTime  RunFigure = "wall-time"
	RunCoresBusy RunFigure = "cores-busy"
	RunCPUTime   RunFigure = "cpu-time"
)

// RunFigures lists the figures.
var RunFigures = newVocabulary("run figure",
	RunLatency, RunThroughput, RunFindMaxRates, RunCPUPerRequest, RunAllocations, RunProfileShares,
	RunWallTime, RunCoresBusy, RunCPUTime,
)

// UnmarshalText reads a figure's name, refusing one it does not know.
func (f *RunFigure) UnmarshalText(b []byte) error { return RunFigures.unmarshal(f, b) }
