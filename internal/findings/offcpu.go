package findings

import (
	"sort"

	"perflab/internal/analysis"
	"perflab/internal/runfmt"
)

// Thresholds of the off-cpu rule.
const (
	offExplainedShare = 0.6   // wall-time findings explaining this much replace off-cpu
	timeKindMinMs     = 0.005 // a kind of wall time worth quoting, per request
	offSitesNamed     = 3
	offSitesPerWait   = 2
)

// syscallFrames mark CPU spent entering the kernel or polling the network.
var syscallFrames = []string{"syscall.Syscall", "syscall.Syscall6", "syscall.RawSyscall", "syscall.RawSyscall6", "internal/runtime/syscall.Syscall6", "runtime.netpoll", "internal/poll.(*FD).Read", "internal/poll.(*FD).Write"}

// offCPU reports requests that spend most of their time waiting,
// unless they wait for a CPU (contentionFinding) or the wall-time findings
// explain most of it: then they say it better. It says what the waiting
// turned out to be, or what was checked.
func offCPU(c *context) []ranked {
	in, tw := c.in, c.tw
	if ledgerTime(in) != nil || atCPUBudget(in) {
		// The request ledger says where the time goes, every millisecond
		// owned once; at the budget the waiting is behind the service's
		// own CPU (cpu-bound), not I/O.
		return nil
	}
	lat, cpuMs, ok := offCPUTimes(c)
	if !ok || contends(in, runqueueOf(in), lat, cpuMs) {
		return nil // contentionFinding says it
	}
	// Waiting for a CPU is not I/O or lock waiting: it is left out of
	// what this finding blames on I/O.
	rq := runqueueOf(in)
	if lat-rq.ms() < offCPUMinRatio*cpuMs {
		return nil
	}
	if tw.explained >= offExplainedShare*(lat-cpuMs-rq.ms()) {
		return nil // the wall-time findings say it better
	}
	off := 1 - cpuMs/lat
	f := runfmt.Finding{Kind: runfmt.FindingOffCPU, Figures: runfmt.Figures{runfmt.FigLatency: 1000 * lat, runfmt.FigCPU: 1000 * cpuMs, runfmt.FigOffShare: off}}
	if rq.ms() > 0 {
		rq.figures(f.Figures, runfmt.FigRunqueue)
		f.Figures[runfmt.FigOtherWait] = 1000 * (lat - cpuMs - rq.ms())
	}
	if q := in.Quality; q.Noisy() {
		noiseFigures(&f, q)
	}
	names := make([]string, 0, len(in.Load.Phases))
	for n := range in.Load.Phases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f.Evidence.Phases = append(f.Evidence.Phases, runfmt.Part{Name: n, UsPerRequest: 1000 * in.Load.Phases[n].Mean})
	}
	if c.cpu.Costs != nil {
		f.Figures[runfmt.FigSyscallShare] = c.cpu.Share(c.cpu.CumOf(syscallFrames))
	}
	tw.explain(in, &f, lat-cpuMs)
	return []ranked{{f: f, rank: off}}
}

// explain records what the off-CPU time (offMs per request) turned out to
// be: the time split and the wall-time findings when there is a wall-time
// profile, else the kernel's view of where threads waited, else what was
// checked and what could not be.
func (tw *timeWaits) explain(in FindingInput, f *runfmt.Finding, offMs float64) {
	if t := in.Time; t != nil && tw.v != nil {
		for _, k := range t.Kinds {
			if k.MsPerRequest >= timeKindMinMs {
				f.Evidence.Time = append(f.Evidence.Time, runfmt.Part{Name: string(k.Kind), UsPerRequest: 1000 * k.MsPerRequest})
			}
		}
		f.Settings = f.Settings.With(runfmt.SettingSource, string(t.Source))
		f.Figures[runfmt.FigTraced], f.Figures[runfmt.FigTracedRequests] = t.Seconds, float64(t.Requests)
		explained := tw.explained
		if st, ok := newSchedTime(in, tw); ok && st.total() >= waitMinShare*offMs {
			f.Figures[runfmt.FigSchedWait] = 1000 * st.total()
			if in.Target != nil && in.Target.RunqueueWaitSeconds > 0 {
				f.Figures[runfmt.FigRunqueueTime] = in.Target.RunqueueWaitSeconds
			}
			explained += st.total()
		}
		if tw.explained > 0 {
			f.Figures[runfmt.FigExplained], f.Figures[runfmt.FigUnexplained] = 1000*tw.explained, 1000*max(0, offMs-explained)
		}
		if t.TotalMs < 0.5*offMs { // the rest is outside the service
			f.Figures[runfmt.FigTracedTotal] = 1000 * t.TotalMs
		}
		return
	}
	if in.Wall != nil && in.Time == nil && in.Requests > 0 {
		if sites := offCPUSites(in); len(sites) > 0 {
			f.Evidence.Functions = sites
			return
		}
	}
	f.Evidence.Notes = in.WaitChecks
	goService := in.Runtime == "" || in.Runtime == runfmt.RuntimeGo
	if goService && in.Mutex == nil && in.Block == nil {
		f.Settings = f.Settings.With(runfmt.SettingLockProfiles, runfmt.SettingOff)
	}
	if !goService {
		f.Advice = waitAdvice(in.Runtime) // what to look at next, in its terms
	}
}

// waitAdvice is where to look next for time spent off-CPU, in the terms
// of the service's runtime: a pre-fork Python or Ruby server queues
// requests behind busy workers, node blocks its event loop. (Go's mutex
// and block profiles are among what was checked.)
var waitAdvice = runtimeAdvice{scripts: runfmt.AdviceCheckWorkers, node: runfmt.AdviceCheckEventLoop,
	jvm: runfmt.AdviceCheckThreads, other: runfmt.AdviceCheckLocks}.of

// offCPUSites are the user functions with the most time off a CPU in a
// wall-time profile, with their waits.
func offCPUSites(in FindingInput) []runfmt.FuncEvidence {
	v := analysis.NewWaitView(in.Wall, in.Requests, in.UserCode)
	if v == nil {
		return nil
	}
	var all []runfmt.FuncEvidence
	for name, c := range v.Classes {
		if name == runfmt.WaitCPU {
			continue
		}
		for _, s := range c.Sites(offSitesPerWait) {
			all = append(all, runfmt.FuncEvidence{Role: runfmt.RoleSite, Function: s.Func, File: s.File, Wait: name,
				Figures: runfmt.Figures{runfmt.FigWaitPerRequest: 1000 * v.Ms(s.Ns)}})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i].Figures[runfmt.FigWaitPerRequest], all[j].Figures[runfmt.FigWaitPerRequest]
		if a != b {
			return a > b
		}
		return all[i].Function < all[j].Function
	})
	return all[:min(len(all), offSitesNamed)]
}

// noiseFigures are the figures of what made the machine noisy while the
// finding was measured (q's causes): the other processes' cores (and the
// busiest of them), the hypervisor's, perflab's when the load generator
// waited for a CPU.
func noiseFigures(f *runfmt.Finding, q *runfmt.Quality) {
	for _, c := range q.Causes {
		switch c {
		case runfmt.NoiseOtherProcesses:
			f.Figures[runfmt.FigOtherCores], f.Figures[runfmt.FigHostCores] = q.OtherCores, float64(q.HostCores)
			f.Evidence.Processes = q.TopOther[:min(len(q.TopOther), processesNamed)]
		case runfmt.NoiseSteal:
			f.Figures[runfmt.FigStealCores] = q.StealCores
		case runfmt.NoiseGeneratorWaited:
			f.Figures[runfmt.FigPerflabCores] = q.PerflabCores
		}
	}
}
