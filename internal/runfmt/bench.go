package runfmt

// Bench is what `perflab bench` measured: Go benchmarks run by their test
// binary (go test -c) with -benchmem, Count times, and each benchmark's
// CPU and allocation profiles taken in runs of their own, apart from the
// timed ones. It is run.json's "bench"; such a run has no load.
type Bench struct {
	// Pattern is -bench's regular expression; Count the timed runs of each
	// benchmark; Benchtime, CPU and Timeout are -benchtime, -cpu and
	// -timeout as given ("" for go test's defaults).
	Pattern   string `json:"bench"`
	Count     int    `json:"count"`
	Benchtime string `json:"benchtime,omitempty"`
	CPU       string `json:"cpu,omitempty"`
	Timeout   string `json:"timeout,omitempty"`
	// Packages are the packages benchmarked, in the order given.
	Packages []BenchPackage `json:"packages"`
	// Benchmarks are the results, in the order go test printed them.
	Benchmarks []Benchmark `json:"benchmarks"`
	// TimedS is the wall time of the timed runs, ProfileS of the profile
	// runs and BuildS of the test binaries' builds, in seconds.
	TimedS   float64 `json:"timed_s"`
	ProfileS float64 `json:"profile_s,omitempty"`
	BuildS   float64 `json:"build_s,omitempty"`
	// ProfilesNote says why no profiles were taken (--no-profiles, an
	// interruption).
	ProfilesNote string `json:"profiles_note,omitempty"`
}

// BenchPackage is one package benchmarked.
type BenchPackage struct {
	ImportPath string `json:"import_path"`
	Dir        string `json:"dir"`
	// Module is the module the package belongs to: its functions (and
	// those of the module's other packages) are the user's code.
	Module string `json:"module,omitempty"`
	// GOOS, GOARCH and CPU are what the test binary printed.
	GOOS   string `json:"goos,omitempty"`
	GOARCH string `json:"goarch,omitempty"`
	CPU    string `json:"cpu,omitempty"`
}

// Benchmark units as go test prints them.
const (
	BenchUnitTime   = "ns/op"
	BenchUnitBytes  = "B/op"
	BenchUnitAllocs = "allocs/op"
)

// BenchProfileSource is the Source of a benchmark's profiles: the test
// binary wrote them through runtime/pprof (-test.cpuprofile,
// -test.memprofile).
var BenchProfileSource = SourceProfilers(ProfilerPprof)

// Benchmark is one benchmark's results: every timed run's value of each
// unit, summarised as a median with its 95% confidence interval, and the
// user's source lines its profiles charge.
type Benchmark struct {
	// Name is the benchmark's name as go test prints it, without
	// "Benchmark": "AlgorithmOne-2", "Parse/small-2" (the suffix is
	// GOMAXPROCS, absent when it is 1).
	Name string `json:"name"`
	// Package is the import path of its package; Function the Go function
	// that defines it ("example.com/pair.BenchmarkAlgorithmOne").
	Package  string `json:"pkg"`
	Function string `json:"function"`
	// Procs is the GOMAXPROCS it ran with (the -cpu value).
	Procs int `json:"procs"`
	// Iters is b.N of each timed run.
	Iters   []int         `json:"iters"`
	Metrics []BenchMetric `json:"metrics"`
	// CPU and Allocs are what the profile runs found; nil when none was
	// taken (see Notes).
	CPU    *BenchProfile `json:"cpu,omitempty"`
	Allocs *BenchProfile `json:"allocs,omitempty"`
	// Notes say what is missing and why.
	Notes []string `json:"notes,omitempty"`
}

// Metric returns the benchmark's metric of unit.
func (b *Benchmark) Metric(unit string) (BenchMetric, bool) {
	for _, m := range b.Metrics {
		if m.Unit == unit {
			return m, true
		}
	}
	return BenchMetric{}, false
}

// BenchMetric is one unit of a benchmark over its timed runs.
type BenchMetric struct {
	// Unit is as go test printed it: ns/op, B/op, allocs/op, MB/s, or a
	// unit of the benchmark's own (b.ReportMetric).
	Unit string `json:"unit"`
	// Better is "higher", "lower" or "" (unknown, a custom unit).
	Better string `json:"better,omitempty"`
	// Values are the timed runs' values, in order.
	Values  []float64     `json:"values"`
	Summary MetricSummary `json:"summary"`
}

// BenchProfile is one profile run of a benchmark: the file, how many
// iterations it covers, and the user's lines that cost the most.
type BenchProfile struct {
	// File is the profile, relative to the run directory.
	File string `json:"file"`
	// Ops is the iterations its figures are divided by.
	Ops int64 `json:"ops"`
	// PerOp is the whole profile per iteration: CPU nanoseconds, or bytes
	// allocated; ObjectsPerOp the allocations (allocation profiles).
	PerOp        float64 `json:"per_op"`
	ObjectsPerOp float64 `json:"objects_per_op,omitempty"`
	// Lines are the user's source lines with the most cost, each charged
	// with the library and runtime code it called; UserPerOp is what all
	// the user's lines hold, so PerOp - UserPerOp ran outside them (the
	// garbage collector, the scheduler, the testing package).
	Lines     []BenchLine `json:"lines"`
	UserPerOp float64     `json:"user_per_op"`
	// Method says how the figures were obtained (the key method in runs
	// before schema 5).
	Method string `json:"method_note,omitempty"`
}

// BenchLine is one source line of the user's code in a benchmark's profile.
type BenchLine struct {
	Function string `json:"function"`
	File     string `json:"file"`
	Line     int64  `json:"line"`
	Text     string `json:"text,omitempty"`
	// PerOp is CPU nanoseconds or bytes per iteration; ObjectsPerOp the
	// allocations per iteration (allocation profiles).
	PerOp        float64 `json:"per_op"`
	ObjectsPerOp float64 `json:"objects_per_op,omitempty"`
	// Pct is the line's share of the profile.
	Pct float64 `json:"pct"`
}

// BenchComparison is `perflab bench --git` (or `perflab compare` of two
// benchmark runs): each benchmark's units on both sides with benchstat's
// method (medians, 95% confidence intervals, Mann–Whitney U), the
// --fail-on checks and the verdict.
type BenchComparison struct {
	Base BenchSide `json:"base"`
	New  BenchSide `json:"new"`
	// Rows has one row per benchmark and unit both sides measured.
	Rows       []BenchDelta `json:"rows"`
	Warnings   []string     `json:"warnings"`
	Thresholds []BenchCheck `json:"thresholds,omitempty"`
	Failed     []string     `json:"failed,omitempty"`
	Verdict    *Verdict     `json:"verdict,omitempty"`
}

// BenchSide names the run of one side.
type BenchSide struct {
	Label    string    `json:"label"`
	Run      string    `json:"run"`
	Revision *Revision `json:"revision,omitempty"`
}

// BenchDelta is one benchmark's unit on both sides.
type BenchDelta struct {
	Benchmark string        `json:"benchmark"`
	Package   string        `json:"pkg"`
	Unit      string        `json:"unit"`
	Better    string        `json:"better,omitempty"`
	Base      MetricSummary `json:"base"`
	New       MetricSummary `json:"new"`
	// DeltaPct is the change of the median in percent (0 when the base
	// median is 0: see Delta).
	DeltaPct float64 `json:"delta_pct"`
	// Delta is the change of the median in the unit.
	Delta       float64  `json:"delta"`
	PValue      *float64 `json:"p_value"`
	Significant bool     `json:"significant"`
	TooFew      bool     `json:"too_few,omitempty"`
}

// BenchCheck is one --fail-on rule applied to one benchmark.
type BenchCheck struct {
	Rule string `json:"rule"`
	// Benchmark is "" when no benchmark measured the rule's unit.
	Benchmark   string  `json:"benchmark,omitempty"`
	Unit        string  `json:"unit"`
	Delta       float64 `json:"delta"`
	DeltaPct    float64 `json:"delta_pct"`
	Significant bool    `json:"significant"`
	Measured    bool    `json:"measured"`
	Violated    bool    `json:"violated"`
	TooFew      bool    `json:"too_few,omitempty"`
}
