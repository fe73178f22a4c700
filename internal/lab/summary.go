package lab

import (
	"runtime"

	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
	"perflab/internal/target"
)

// How many rows of hot and allocating functions run.json keeps.
const (
	hotRows   = 25
	allocRows = 25
)

// addProfile lists a saved profile in the run; capture goroutines call it.
// Its Seconds is the planned window until summarize sets the measured one.
func (s *session) addProfile(typ runfmt.ProfileType, source runfmt.ProfileSource, file string, samples int64) {
	ref := runfmt.ProfileRef{Type: typ, Source: source, File: file, Samples: samples}
	if s.prof != nil {
		ref.Seconds = s.prof.windowSecs
	}
	s.mu.Lock()
	s.run.Profiles = append(s.run.Profiles, ref)
	s.mu.Unlock()
}

// summarize turns what was measured into the run's summary, per request.
func (s *session) summarize() {
	r := s.run
	if r.Load == nil {
		return
	}
	from, to := s.prof.from, s.prof.to
	requests := r.Load.Requests
	if len(s.cfg.SLO) > 0 {
		r.Load.SLO = s.cfg.SLO.Evaluate(r.Load)
	}
	if s.sampler != nil {
		exit := (*int)(nil)
		if r.Target != nil {
			exit = r.Target.ExitCode
		}
		ts := target.Window(s.sampler.Samples(), from, to, s.limitCores, runtime.NumCPU())
		ts.ExitCode, ts.MemoryLimitBytes, ts.PIDs = exit, s.limitMemory, s.pids
		if requests > 0 {
			ts.CPUMsPerRequest = ts.CPUSeconds * 1000 / float64(requests)
		}
		r.Target = &ts
		addTargetSeries(r.Load.Series, s.sampler.Samples(), from)
		s.checkTargetCPU(r.Target)
	}
	r.Quality = s.quality(from, to, r.Target, r.Load)
	p := s.prof
	for i := range r.Profiles {
		if r.Profiles[i].Seconds > 0 { // captured over the window, not before it
			r.Profiles[i].Seconds = r.Load.DurationS
		}
	}
	r.GC = s.gcSummary(from, to)
	r.Profiling = s.profilingSummary(p.cpu)
	uc, verdictCPU := s.userCode(), s.verdictCPU()
	if p.cpu != nil {
		s.checkCPUProfile(len(p.cpu.Sample), r.Target)
		r.Hot = analysis.HotFor(p.cpu, requests, hotRows, uc)
		if pr := r.Profiling; pr.Coverage > 1 && s.wallClockSpy() {
			scaleHot(r.Hot, 1/pr.Coverage)
		}
		for i := range r.Profiles {
			if r.Profiles[i].Type == runfmt.ProfileCPU {
				r.Profiles[i].StartS = 0
			}
		}
	}
	if p.allocs != nil {
		r.Allocs = analysis.AllocTopFor(p.allocs, requests, allocRows, uc)
		if requests > 0 {
			r.AllocBytesPerRequest = float64(sampleTotal(p.allocs, "alloc_space")) / float64(requests)
			r.AllocObjectsPerRequest = float64(sampleTotal(p.allocs, "alloc_objects")) / float64(requests)
		}
	}
	s.analyseTrace()
	s.analyseSpyWall()
	r.GoRuntime = s.goRuntime(from, to)
	r.Heap = s.heapGrowth(from, to, requests)
	in := analysis.FindingInput{
		CPU: verdictCPU, Allocs: p.allocs, Mutex: p.mutex, Block: p.block,
		GoroutinesStart: p.gorStart, GoroutinesEnd: p.gorEnd,
		Requests: requests, WindowSeconds: to.Sub(from).Seconds(),
		Target: r.Target, GC: r.GC, Load: r.Load, Quality: r.Quality, UserCode: uc, Runtime: s.serviceRuntime(),
	}
	s.waitInput(&in)
	r.Findings = append(s.stuckFindings(), analysis.Findings(in)...)
	s.culprit()
	s.ledger()
}

// verdictCPU is the CPU profile the findings read: none when it cannot
// account for the CPU measured (its functions are not the verdict).
func (s *session) verdictCPU() *profile.Profile {
	if s.run.Profiling != nil && s.run.Profiling.NotRepresentative != "" {
		if s.prof.cpu != nil && len(s.prof.cpu.Sample) > 0 { // none: checkCPUProfile says so
			s.degrade(s.run.Profiling.NotRepresentative)
		}
		return nil
	}
	return s.prof.cpu
}

// sampleTotal sums a profile's values of the named sample type.
func sampleTotal(p *profile.Profile, typ string) int64 {
	for i, st := range p.SampleType {
		if st.Type != typ {
			continue
		}
		var total int64
		for _, s := range p.Sample {
			total += s.Value[i]
		}
		return total
	}
	return 0
}

// gcSummary is the GC of the window: counts, pauses and heap from gctrace,
// the CPU share from the CPU profile when there is one (nil without gctrace).
func (s *session) gcSummary(from, to time.Time) *runfmt.GCSummary {
	gc := s.gc.Summary(from, to, cpuSeconds(s.run.Target))
	if gc.Count == 0 {
		return nil
	}
	if gc.CPUPctNote == "" { // else gctrace's figure could not be a share
		gc.GCTraceCPUPct, gc.CPUPctSource = gc.CPUPct, "gctrace"
	}
	if s.prof != nil && s.prof.cpu != nil {
		if share, ok := analysis.GCShare(s.prof.cpu); ok {
			gc.CPUPct, gc.CPUPctSource, gc.CPUPctNote = 100*share, "cpu-profile", ""
		}
	}
	gc.GOGC = envValue(s.cfg.Env, "GOGC")
	gc.Events = s.gc.Timeline(from, to, runfmt.MaxGCEvents)
	return &gc
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
