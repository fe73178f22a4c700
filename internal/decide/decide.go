package decide

import (
	"fmt"
	"net/netip"
	"regexp"
	"runtime"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/answer"
	"perflab/internal/capture"
	"perflab/internal/findings"
	"perflab/internal/ktrace"
	"perflab/internal/ledger"
	"perflab/internal/ownership"
	"perflab/internal/profiling"
	"perflab/internal/runfmt"
	"perflab/internal/service"
	"perflab/internal/units"
)

// Input is what a run measured, and the settings that say how to read it.
type Input struct {
	// Run is the run's record as the window left it (its load, the
	// profiles listed, how the service ended, a stuck snapshot); the
	// decision fills in its figures.
	Run *runfmt.Run
	// Profiles are the run's profiles and how they were taken.
	Profiles *profiling.Set
	// Sampler sampled the service's processes (nil: none, for a URL
	// alone); Machine sampled the machine beside it (nil: not sampled).
	Sampler *service.Sampler
	Machine *service.MachineSampler
	// GC is the service's GC trace (Go's gctrace lines), nil for none.
	GC *capture.GCTrace
	// Env is the environment the service started with, nil when unknown.
	Env map[string]string
	// LimitCores and LimitMemory are the service's budget as applied,
	// PIDs its processes at the start.
	LimitCores  float64
	LimitMemory int64
	PIDs        []int
	// Owners is the run's ownership model; nil decides it from PIDs and
	// the settings (Ownership).
	Owners *ownership.Model
	// Kernel is the kernel's timing of the window, Peers what the
	// sampler of the service's connections saw.
	Kernel Kernel
	Peers  Peers
	// Settings are the run's settings that decide how it is read.
	Settings Settings
	// Warn and Degrade record a warning and a missing profile in the
	// run, and tell the user.
	Warn    func(string)
	Degrade func(runfmt.Degradation)
}

// Settings are what the run's configuration says about reading it.
type Settings struct {
	// SLO, if any, is checked against the window's load.
	SLO SLO
	// GOGC is the GOGC the user gave the service (--env), "" for none.
	GOGC string
	// The service: the command launched, its directory, or the pid
	// attached to.
	Command []string
	Dir     string
	PID     int
	// Src and UserCode are --src and --user-code (see Ownership).
	Src      string
	UserCode *regexp.Regexp
	// Trace traced the whole window; NoTrace took no execution trace.
	Trace, NoTrace bool
}

// Kernel is the kernel's timing of the service over the window.
type Kernel struct {
	// Window is the kernel's totals over the window when OK; Why says
	// why there are none.
	Window ktrace.Totals
	OK     bool
	Why    string
	// Ports are the load's ports whose connections were timed, Backlog
	// whether their accept backlog was.
	Ports   []uint16
	Backlog bool
	// Added says why a process the service added could not be measured
	// ("": none failed).
	Added string
	// Peers are the ledger's peers for the addresses given (those the
	// kernel timed answers of); nil for none.
	Peers func([]netip.AddrPort) map[netip.AddrPort]ledger.Peer
}

// Peers is what the sampler of the service's connections saw over the
// window.
type Peers struct {
	// OtherClients counts the connections clients other than perflab
	// made to the service; Clients names them, most connections first.
	OtherClients int
	Clients      []string
	// List names the addresses the service was connected to, most
	// connections first ("addr (N connections)").
	List []string
}

// Decision is the decide stage of one run: New takes what was
// measured, Run (or Profile) computes the record's figures once, and
// Flames gives the report's flame graphs from the same reading.
type Decision struct{ d *decider }

// decider is one run's decision while it is made.
type decider struct {
	in    Input
	cfg   Settings
	run   *runfmt.Run
	prof  *profiling.Set
	waits waitState // what the run made of the window's waits
	// otherClients counts the connections other clients made to the
	// service in the window; perRequestNote says why no figure per
	// request is given (see perRequest).
	otherClients   int
	perRequestNote string
}

// New starts the decision of a run from what it measured.
func New(in Input) *Decision {
	if in.Warn == nil {
		in.Warn = func(string) {}
	}
	if in.Degrade == nil {
		in.Degrade = func(runfmt.Degradation) {}
	}
	if in.GC == nil {
		in.GC = &capture.GCTrace{}
	}
	return &Decision{&decider{in: in, cfg: in.Settings, run: in.Run, prof: in.Profiles}}
}

// Run fills in a service's run: its summary per request, the time
// split, the ledger, the findings with their source lines, and the
// answer.
func (dec *Decision) Run() { dec.d.summarize() }

// Ended puts what ended the run, when the kernel's OOM killer did, at
// the top of its findings.
func (dec *Decision) Ended() {
	r := dec.d.run
	if f, ok := findings.OutOfMemory(r.Target); ok {
		r.Findings = append([]runfmt.Finding{f}, r.Findings...) // what ended the run comes first
	}
}

func (d *decider) warn(msg string)               { d.in.Warn(msg) }
func (d *decider) degrade(dg runfmt.Degradation) { d.in.Degrade(dg) }

// How many rows of hot and allocating functions run.json keeps.
const (
	HotRows   = 25
	allocRows = 25
)

// summarize turns what was measured into the run's summary, per request.
func (d *decider) summarize() {
	r := d.run
	if r.Load == nil {
		return
	}
	from, to := d.prof.Window()
	requests := d.perRequest(r.Load)
	if len(d.cfg.SLO) > 0 {
		r.Load.SLO = d.cfg.SLO.Evaluate(r.Load)
	}
	if d.in.Sampler != nil {
		ts := service.Window(d.in.Sampler.Samples(), from, to, d.in.LimitCores, runtime.NumCPU())
		if r.Target != nil { // how it ended, said when perflab stopped it or the kernel killed it
			ts.ExitCode, ts.StoppedByPerflab, ts.OOMKilled = r.Target.ExitCode, r.Target.StoppedByPerflab, r.Target.OOMKilled
		}
		ts.MemoryLimitBytes, ts.PIDs = d.in.LimitMemory, d.in.PIDs
		if requests > 0 {
			ts.CPUMsPerRequest = ts.CPUSeconds * 1000 / float64(requests)
		}
		ts.OtherClients, ts.CPUPerRequestNote = d.otherClients, d.perRequestNote
		r.Target = &ts
		AddTargetSeries(r.Load.Series, d.in.Sampler.Samples(), from)
		d.checkTargetCPU(r.Target)
	}
	r.Quality = d.quality(from, to, r.Target, r.Load)
	p, cpu, allocs := d.prof, d.prof.Profile(runfmt.ProfileCPU), d.prof.Profile(runfmt.ProfileAllocs)
	for i := range r.Profiles {
		if r.Profiles[i].Seconds > 0 { // captured over the window, not before it
			r.Profiles[i].Seconds = r.Load.DurationS
		}
	}
	r.GC = d.gcSummary(from, to)
	r.Profiling = d.profilingSummary()
	uc, verdictCPU := d.userCode(), d.verdictCPU()
	if cpu != nil {
		d.checkCPUProfile(len(cpu.Sample), r.Target)
		r.Hot = analysis.HotFor(cpu, requests, HotRows, uc)
		scaleHot(r.Hot, r.CPUScale(), r.Profiling.SampledShare()) // one cost per function on every page
		for i := range r.Profiles {
			if r.Profiles[i].Type == runfmt.ProfileCPU {
				r.Profiles[i].StartS = 0
			}
		}
	}
	if allocs != nil {
		r.Allocs = analysis.AllocTopFor(allocs, requests, allocRows, uc)
		r.AllocBytesPerRequest, r.AllocObjectsPerRequest = analysis.AllocsPerRequest(allocs, requests)
	}
	d.analyseTrace(p.Trace())
	d.analyseSpyWall()
	r.GoRuntime = d.goRuntime(from, to)
	r.Heap = d.heapGrowth(from, to, requests)
	d.ledger() // the time findings claim its rows
	in := findings.FindingInput{
		CPU: verdictCPU, Allocs: allocs, Mutex: p.Profile(runfmt.ProfileMutex), Block: p.Profile(runfmt.ProfileBlock),
		GoroutinesStart: p.Profile(runfmt.ProfileGoroutineStart), GoroutinesEnd: p.Profile(runfmt.ProfileGoroutine),
		Requests: requests, WindowSeconds: to.Sub(from).Seconds(),
		Target: r.Target, GC: r.GC, Load: r.Load, Quality: r.Quality, UserCode: uc, Runtime: d.serviceRuntime(), Ledger: r.Ledger,
		Profiling: r.Profiling,
	}
	d.waitInput(&in)
	r.Findings = append(d.stuckFindings(), findings.Findings(in)...)
	for _, f := range r.Findings {
		if f.Kind == runfmt.FindingSpinWait {
			service.MarkSpun(r.Quality, f.Figures[runfmt.FigShare])
		}
	}
	service.MarkOverCounted(r.Quality, d.runnableCoverage())
	d.culprit()
	answer.Decide(r)
}

// verdictCPU is the CPU profile the findings read: none when it cannot
// account for the CPU measured (its functions are not the verdict).
func (d *decider) verdictCPU() *profile.Profile {
	cpu := d.prof.Profile(runfmt.ProfileCPU)
	if d.run.Profiling != nil && d.run.Profiling.StackReach != nil {
		return nil // said at the top of the verdict: no finding is ranked from it
	}
	if d.run.Profiling != nil && d.run.Profiling.Unrepresentative != nil {
		if cpu != nil && len(cpu.Sample) > 0 { // none: checkCPUProfile says so
			d.degrade(runfmt.Degradation{Profile: runfmt.ProfileCPU, Why: runfmt.DegradeNotRepresentative})
		}
		return nil
	}
	return cpu
}

// gcSummary is the GC of the window: counts, pauses and heap from gctrace,
// the CPU share from the CPU profile when there is one (nil without gctrace).
func (d *decider) gcSummary(from, to time.Time) *runfmt.GCSummary {
	gc := d.in.GC.Summary(from, to, cpuSeconds(d.run.Target))
	if gc.Count == 0 {
		return nil
	}
	if gc.CPUPctNote == "" { // else gctrace's figure could not be a share
		gc.GCTraceCPUPct, gc.CPUPctSource = gc.CPUPct, runfmt.SourceGCTrace
	}
	if cpu := d.prof.Profile(runfmt.ProfileCPU); cpu != nil {
		if share, ok := analysis.GCShare(cpu); ok {
			gc.CPUPct, gc.CPUPctSource, gc.CPUPctNote = 100*share, runfmt.SourceCPUProfile, ""
		}
	}
	distrustGCTrace(&gc, d.run.Target)
	gc.GOGC = d.cfg.GOGC
	gc.Events = d.in.GC.Timeline(from, to, runfmt.MaxGCEvents)
	return &gc
}

// distrustGCTrace leaves the GC's share unknown, saying why, when it is
// gctrace's and the service waited for a CPU: gctrace's "ms cpu" is its
// workers' wall time, which the waits inflate well above the share a CPU
// profile of the same service measures.
func distrustGCTrace(gc *runfmt.GCSummary, t *runfmt.TargetSummary) {
	if gc.CPUPctSource != runfmt.SourceGCTrace || !waitedForCPU(t) {
		return
	}
	gc.CPUPctNote = fmt.Sprintf("share of CPU unknown without a CPU profile: gctrace counts %s, its GC workers' wall time, and the service waited for a CPU (throttled or runnable)", units.FormatPct(gc.CPUPct))
	gc.CPUPct, gc.CPUPctSource = 0, ""
}

// waitedForCPU says the service's threads waited for a CPU enough to
// inflate wall-time figures: throttled in a notable share of periods, or
// runnable for a tenth of the CPU time they used.
func waitedForCPU(t *runfmt.TargetSummary) bool {
	return t != nil && (answer.ThrottledNotable(t.ThrottledPct) || t.CPUSeconds > 0 && t.RunqueueWaitSeconds >= 0.1*t.CPUSeconds)
}

func cpuSeconds(t *runfmt.TargetSummary) float64 {
	if t == nil {
		return 0
	}
	return t.CPUSeconds
}

// AddTargetSeries puts the service's samples on the load's per-second
// series: cores used, RSS, throttling and threads in each second.
func AddTargetSeries(series []runfmt.SeriesPoint, samples []service.Sample, from time.Time) {
	for i := range series {
		pt := &series[i]
		lo := from.Add(time.Duration(pt.T * float64(time.Second)))
		hi := lo.Add(time.Second)
		var first, last *service.Sample
		var rss, threads int64
		for j := range samples {
			sm := &samples[j]
			if sm.T.Before(lo) {
				first = sm // the last sample before the second starts
				continue
			}
			if sm.T.After(hi) {
				break
			}
			if first == nil {
				first = sm
			}
			last = sm
			rss = max(rss, sm.RSSBytes)
			threads = max(threads, sm.Threads)
		}
		if first == nil || last == nil || last == first {
			continue
		}
		dt := last.T.Sub(first.T).Seconds()
		cores := (last.CPUSeconds - first.CPUSeconds) / dt
		pt.CPUCores, pt.RSSBytes, pt.Threads = &cores, &rss, &threads
		if periods := last.Periods - first.Periods; periods > 0 {
			pct := 100 * float64(last.ThrottledPeriods-first.ThrottledPeriods) / float64(periods)
			pt.ThrottledPct = &pct
		}
	}
}
