package lab

import (
	"fmt"
	"runtime"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/answer"
	"perflab/internal/findings"
	"perflab/internal/runfmt"
	"perflab/internal/target"
	"perflab/internal/units"
)

// How many rows of hot and allocating functions run.json keeps.
const (
	hotRows   = 25
	allocRows = 25
)

// summarize turns what was measured into the run's summary, per request.
func (s *session) summarize() {
	r := s.run
	if r.Load == nil {
		return
	}
	from, to := s.prof.Window()
	requests := s.perRequest(r.Load)
	if len(s.cfg.SLO) > 0 {
		r.Load.SLO = s.cfg.SLO.Evaluate(r.Load)
	}
	if s.sampler != nil {
		ts := target.Window(s.sampler.Samples(), from, to, s.limitCores, runtime.NumCPU())
		if r.Target != nil { // how it ended, said when perflab stopped it or the kernel killed it
			ts.ExitCode, ts.StoppedByPerflab, ts.OOMKilled = r.Target.ExitCode, r.Target.StoppedByPerflab, r.Target.OOMKilled
		}
		ts.MemoryLimitBytes, ts.PIDs = s.limitMemory, s.pids
		if requests > 0 {
			ts.CPUMsPerRequest = ts.CPUSeconds * 1000 / float64(requests)
		}
		ts.OtherClients, ts.CPUPerRequestNote = s.otherClients, s.perRequestNote
		r.Target = &ts
		addTargetSeries(r.Load.Series, s.sampler.Samples(), from)
		s.checkTargetCPU(r.Target)
	}
	r.Quality = s.quality(from, to, r.Target, r.Load)
	p, cpu, allocs := s.prof, s.prof.Profile(runfmt.ProfileCPU), s.prof.Profile(runfmt.ProfileAllocs)
	for i := range r.Profiles {
		if r.Profiles[i].Seconds > 0 { // captured over the window, not before it
			r.Profiles[i].Seconds = r.Load.DurationS
		}
	}
	r.GC = s.gcSummary(from, to)
	r.Profiling = s.profilingSummary()
	uc, verdictCPU := s.userCode(), s.verdictCPU()
	if cpu != nil {
		s.checkCPUProfile(len(cpu.Sample), r.Target)
		r.Hot = analysis.HotFor(cpu, requests, hotRows, uc)
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
	s.analyseTrace(p.Trace())
	s.analyseSpyWall()
	r.GoRuntime = s.goRuntime(from, to)
	r.Heap = s.heapGrowth(from, to, requests)
	s.ledger() // the time findings claim its rows
	in := findings.FindingInput{
		CPU: verdictCPU, Allocs: allocs, Mutex: p.Profile(runfmt.ProfileMutex), Block: p.Profile(runfmt.ProfileBlock),
		GoroutinesStart: p.Profile(runfmt.ProfileGoroutineStart), GoroutinesEnd: p.Profile(runfmt.ProfileGoroutine),
		Requests: requests, WindowSeconds: to.Sub(from).Seconds(),
		Target: r.Target, GC: r.GC, Load: r.Load, Quality: r.Quality, UserCode: uc, Runtime: s.serviceRuntime(), Ledger: r.Ledger,
		Profiling: r.Profiling,
	}
	s.waitInput(&in)
	r.Findings = append(s.stuckFindings(), findings.Findings(in)...)
	for _, f := range r.Findings {
		if f.Kind == runfmt.FindingSpinWait {
			target.MarkSpun(r.Quality, f.Figures[runfmt.FigShare])
		}
	}
	target.MarkOverCounted(r.Quality, s.runnableCoverage())
	s.culprit()
	answer.Decide(r)
}

// verdictCPU is the CPU profile the findings read: none when it cannot
// account for the CPU measured (its functions are not the verdict).
func (s *session) verdictCPU() *profile.Profile {
	cpu := s.prof.Profile(runfmt.ProfileCPU)
	if s.run.Profiling != nil && s.run.Profiling.StackReach != nil {
		return nil // said at the top of the verdict: no finding is ranked from it
	}
	if s.run.Profiling != nil && s.run.Profiling.Unrepresentative != nil {
		if cpu != nil && len(cpu.Sample) > 0 { // none: checkCPUProfile says so
			s.degrade(runfmt.Degradation{Profile: runfmt.ProfileCPU, Why: runfmt.DegradeNotRepresentative})
		}
		return nil
	}
	return cpu
}

// gcSummary is the GC of the window: counts, pauses and heap from gctrace,
// the CPU share from the CPU profile when there is one (nil without gctrace).
func (s *session) gcSummary(from, to time.Time) *runfmt.GCSummary {
	gc := s.gc.Summary(from, to, cpuSeconds(s.run.Target))
	if gc.Count == 0 {
		return nil
	}
	if gc.CPUPctNote == "" { // else gctrace's figure could not be a share
		gc.GCTraceCPUPct, gc.CPUPctSource = gc.CPUPct, runfmt.SourceGCTrace
	}
	if cpu := s.prof.Profile(runfmt.ProfileCPU); cpu != nil {
		if share, ok := analysis.GCShare(cpu); ok {
			gc.CPUPct, gc.CPUPctSource, gc.CPUPctNote = 100*share, runfmt.SourceCPUProfile, ""
		}
	}
	distrustGCTrace(&gc, s.run.Target)
	gc.GOGC = envValue(s.cfg.Env, "GOGC")
	gc.Events = s.gc.Timeline(from, to, runfmt.MaxGCEvents)
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

// addTargetSeries puts the service's samples on the load's per-second
// series: cores used, RSS, throttling and threads in each second.
func addTargetSeries(series []runfmt.SeriesPoint, samples []target.Sample, from time.Time) {
	for i := range series {
		pt := &series[i]
		lo := from.Add(time.Duration(pt.T * float64(time.Second)))
		hi := lo.Add(time.Second)
		var first, last *target.Sample
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
