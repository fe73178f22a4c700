package batch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"perflab/internal/analysis"
	"perflab/internal/decide"
	"perflab/internal/files"
	"perflab/internal/findings"
	"perflab/internal/ktrace"
	"perflab/internal/report"
	"perflab/internal/runfmt"
	"perflab/internal/service"
	"perflab/internal/session"
)

// summarize turns what was measured into run.json's batch, hot functions,
// findings, GC and machine quality.
func (b *batch) summarize() {
	r, bt := b.run, b.run.Batch
	if b.proc == nil || b.start.IsZero() {
		return // it never ran
	}
	b.exitStatus(bt)
	bt.WallS = b.end.Sub(b.start).Seconds()
	b.resources(bt)
	bt.Cores = b.cores()
	bt.Cost = b.cost(bt)
	ts := b.targetSummary(bt)
	b.threadTimes(bt, ts.RunqueueWaitSeconds)
	r.Target = &ts
	r.Quality = b.quality(&ts)
	uc := b.userCode()
	if b.cpu != nil {
		b.saveCPU(bt.WallS)
		// One run is the unit: "per request" is the whole run.
		r.Hot = analysis.HotFor(b.cpu, 1, decide.HotRows, uc)
		bt.GCPct = b.gcPct()
	}
	r.Findings = findings.BatchFindings(bt, r.Hot)
	if tl, ok := b.timeline(); ok {
		r.Findings = findings.SerialPhaseFindings(r.Findings, bt, tl, b.phaseCode)
	}
	if f, ok := findings.OutOfMemory(r.Target); ok {
		r.Findings = append([]runfmt.Finding{f}, r.Findings...) // what ended the run comes first
	}
	if b.cpu != nil {
		// No requests, and no target: the service's CPU-bound finding is
		// the budget's here (BatchFindings).
		r.Findings = append(r.Findings, findings.Findings(findings.FindingInput{
			CPU: b.cpu, WindowSeconds: bt.WallS, UserCode: uc, Batch: true,
		})...)
		findings.AttachLines(b.cpu, r.Findings, r.Hot, b.sources(), uc)
		noPerRequestLines(r)
	}
	bt.LastLines = b.proc.LogTail(10)
}

// noPerRequestLines leaves the lines' shares of their function, without
// a cost "per request": a batch run has none (its hot functions' costs
// are the whole run's).
func noPerRequestLines(r *runfmt.Run) {
	for i := range r.Hot {
		for j := range r.Hot[i].Lines {
			r.Hot[i].Lines[j].CostUsPerRequest = 0
		}
	}
	for i := range r.Findings {
		for j := range r.Findings[i].Lines {
			r.Findings[i].Lines[j].CostUsPerRequest = 0
		}
	}
}

// exitStatus records how the program ended.
func (b *batch) exitStatus(bt *runfmt.Batch) {
	bt.ExitCode = b.proc.ExitCode()
	bt.ExitStatus = "exit status 0"
	if err := b.proc.ExitErr(); err != nil {
		bt.ExitStatus = err.Error()
	}
	bt.TimedOut = b.timedOut
}

// resources are the program's CPU and memory, from its rusage and the
// samples of its cgroup.
func (b *batch) resources(bt *runfmt.Batch) {
	if b.usageOK {
		bt.UserS, bt.SystemS = b.usage.User.Seconds(), b.usage.System.Seconds()
		bt.CPUS = bt.UserS + bt.SystemS
	}
	bt.RSSMaxBytes = b.peakRSS()
	if bt.WallS > 0 {
		bt.CoresMean = bt.CPUS / bt.WallS
	}
}

// targetSummary is the program's run as the sampler saw it: throttling,
// threads, RSS (when rusage had none).
func (b *batch) targetSummary(bt *runfmt.Batch) runfmt.TargetSummary {
	end := b.end.Add(batchSampleInterval)
	ts := service.Window(b.sampler.Samples(), b.start, end, b.limitCores, hostCores())
	ts.ExitCode, ts.PIDs = bt.ExitCode, []int{b.proc.PID()}
	ts.MemoryLimitBytes = b.cfg.Budget.MemoryBytes
	var oom *service.OOMError
	ts.OOMKilled = errors.As(b.proc.ExitErr(), &oom)
	// The exact figures replace the sampled ones.
	if b.usageOK {
		ts.CPUSeconds, ts.CPUCoresMean = bt.CPUS, bt.CoresMean
	}
	bt.RSSMaxBytes = max(bt.RSSMaxBytes, ts.RSSMaxBytes)
	ts.RSSMaxBytes = bt.RSSMaxBytes
	bt.ThrottledPct, bt.ThrottledS, bt.ThreadsMax = ts.ThrottledPct, ts.ThrottledSeconds, ts.ThreadsMax
	return ts
}

// quality judges the machine over the program's run.
func (b *batch) quality(ts *runfmt.TargetSummary) *runfmt.Quality {
	w, ok := b.machine.Window(b.start, b.end)
	if !ok {
		return nil
	}
	q := service.Assess(service.QualityInput{Machine: w, Service: ts})
	service.AsBatch(&q)
	return &q
}

// gcPct is a Go program's collector's share of its CPU profile.
func (b *batch) gcPct() *float64 {
	if b.cpu == nil || b.run.Batch.Cores.GOMAXPROCS == 0 {
		return nil
	}
	share, ok := analysis.GCShare(b.cpu)
	if !ok {
		return nil
	}
	pct := 100 * share
	return &pct
}

// cores are the cores the program could use: the host's, its affinity's,
// and a Go program's GOMAXPROCS; and its CPU budget.
func (b *batch) cores() runfmt.BatchCores {
	c := runfmt.BatchCores{Host: hostCores(), CPUSet: b.cpusetSize, BudgetCores: b.limitCores}
	if c.CPUSet == 0 {
		c.CPUSet = c.Host
	}
	if b.goVersion != "" {
		c.GOMAXPROCS, c.GOMAXPROCSSource = goMaxProcs(envValue(b.cfg.Env, "GOMAXPROCS"), c.CPUSet, c.BudgetCores, b.goVersion)
	}
	c.Usable, c.UsableBy = c.Host, "host"
	if c.CPUSet < c.Usable {
		c.Usable, c.UsableBy = c.CPUSet, "cpuset"
	}
	if c.GOMAXPROCS > 0 && c.GOMAXPROCS < c.Usable {
		c.Usable, c.UsableBy = c.GOMAXPROCS, "GOMAXPROCS"
	}
	return c
}

// goMaxProcs is the GOMAXPROCS a Go program starts with: $GOMAXPROCS when
// set, else the runtime's default: the CPUs of its affinity, and since Go
// 1.25 no more than its CPU quota rounded up (at least 2).
func goMaxProcs(env string, cpuset int, quota float64, goVersion string) (int, string) {
	if n, err := strconv.Atoi(env); err == nil && n > 0 {
		return n, "env"
	}
	n := cpuset
	if quota > 0 && goVersion != "" && goVersionAtLeast(goVersion, 1, 25) {
		n = min(n, max(2, int(math.Ceil(quota))))
	}
	return n, "default"
}

// threadTimes puts the kernel's figures of the program's threads in the
// batch record: the time by state, the wait for a CPU, and the threads
// busy on average. Without kernel tracing the wait for a CPU is the
// sampler's (schedstat, runqueue).
func (b *batch) threadTimes(bt *runfmt.Batch, sampledWaitS float64) {
	note := b.ktNote
	if note == "" && b.threads.Procs == nil {
		note = "kernel tracing gave no figures"
	}
	if why, off := b.threads.Unmeasured[ktrace.OnCPU]; off && note == "" {
		note = why
	}
	if note == "" {
		bt.Threads = batchThreads(b.threads, bt.CPUS)
		if _, off := b.threads.Unmeasured[ktrace.Runnable]; !off {
			bt.RunnableS, bt.RunnableSource = stateSeconds(bt.Threads, runfmt.ThreadRunnable), "ebpf"
		}
	} else {
		bt.ThreadsNote = "not measured: " + note
	}
	if bt.RunnableSource == "" && sampledWaitS > 0 {
		bt.RunnableS, bt.RunnableSource = sampledWaitS, "schedstat"
	}
	if bt.RunnableSource != "" && bt.WallS > 0 {
		busy := (bt.CPUS + bt.RunnableS) / bt.WallS
		bt.Busy = &busy
	}
}

// batchThreads sums the processes' thread times by state, and keeps each
// process's when there were several.
func batchThreads(t ktrace.Totals, cpuS float64) *runfmt.BatchThreads {
	total := map[runfmt.ThreadState]ktrace.Stat{}
	th := &runfmt.BatchThreads{Processes: len(t.Procs), Dropped: t.Dropped.Total()}
	pids := slices.Sorted(maps.Keys(t.Procs))
	for _, pid := range pids {
		own := procStates(t.Procs[pid])
		for st, s := range own {
			total[st] = addStat(total[st], s)
		}
		if len(pids) > 1 {
			th.PerProcess = append(th.PerProcess, runfmt.BatchProcessThreads{PID: pid, States: stateRows(own)})
		}
	}
	th.States = stateRows(total)
	th.NotSeenCPUS = max(0, cpuS-total[runfmt.ThreadOnCPU].Time.Seconds())
	return th
}

// procStates is one process's thread time by state.
func procStates(p ktrace.Proc) map[runfmt.ThreadState]ktrace.Stat {
	out := map[runfmt.ThreadState]ktrace.Stat{runfmt.ThreadOnCPU: p.OnCPU, runfmt.ThreadRunnable: p.Runnable}
	for st, s := range p.OffCPU {
		out[st] = addStat(out[st], s)
	}
	return out
}

// stateRows lists the states in report order.
func stateRows(m map[runfmt.ThreadState]ktrace.Stat) []runfmt.BatchThreadState {
	var out []runfmt.BatchThreadState
	for _, st := range runfmt.ThreadStates.List() {
		s := m[st]
		out = append(out, runfmt.BatchThreadState{State: st, Seconds: s.Time.Seconds(), Count: s.Count})
	}
	return out
}

func addStat(a, b ktrace.Stat) ktrace.Stat {
	return ktrace.Stat{Count: a.Count + b.Count, Time: a.Time + b.Time}
}

func stateSeconds(th *runfmt.BatchThreads, st runfmt.ThreadState) float64 {
	for _, s := range th.States {
		if s.State == st {
			return s.Seconds
		}
	}
	return 0
}

// cost is what measuring the program took, in percent of its CPU.
func (b *batch) cost(bt *runfmt.Batch) *runfmt.BatchCost {
	kernel, _, share := b.threads.ProgramEstimate()
	c := &runfmt.BatchCost{PerflabCPUS: b.perflabCPU.Seconds(), KernelCPUS: kernel.Seconds()}
	switch {
	case b.ktNote != "" && b.threads.Procs == nil:
		c.KernelNote = "not run: " + b.ktNote
	case share == 0:
		c.KernelNote = "not counted: the kernel kept no run time of its programs"
	}
	switch {
	case b.perf != nil:
		c.ProfilerCPUS = b.perf.cpu.Seconds()
	case b.cfg.Profiler == session.ProfilerNone:
		c.ProfilerNote = "not run (--profiler none)"
	default:
		c.ProfilerNote = fmt.Sprintf("not run (--profiler %s does not profile a batch program)", b.cfg.Profiler)
	}
	if bt.CPUS > 0 {
		c.Pct = 100 * (c.ProfilerCPUS + c.KernelCPUS + c.PerflabCPUS) / bt.CPUS
	}
	return c
}

// saveCPU writes the CPU profile to profiles/cpu.pb.gz and lists it.
func (b *batch) saveCPU(wallS float64) {
	b.cpu.DurationNanos = int64(wallS * 1e9)
	rel := filepath.Join("profiles", string(runfmt.ProfileCPU)+".pb.gz")
	if err := files.WriteAtomic(filepath.Join(b.dir, rel), b.cpu.Write); err != nil {
		b.warn(fmt.Sprintf("saving the %s profile: %v", runfmt.ProfileCPU, err))
		return
	}
	b.run.Profiles = append(b.run.Profiles, runfmt.ProfileRef{
		Type: runfmt.ProfileCPU, Source: runfmt.SourceProfilers(runfmt.ProfilerPerf), File: rel,
		Seconds: wallS, Samples: int64(len(b.cpu.Sample)),
	})
}

// finish sets the run's status from how the program ended and writes the
// run directory: run.json, then report.html.
func (b *batch) finish(ctx context.Context, err error) (*session.Result, error) {
	bt := b.run.Batch
	if err == nil && b.proc != nil && !b.start.IsZero() {
		switch {
		case b.timedOut:
			err = &ExitError{Status: bt.ExitStatus, Timeout: b.cfg.Timeout, LastLines: bt.LastLines}
		case bt.ExitCode == nil || *bt.ExitCode != 0:
			err = &ExitError{Status: bt.ExitStatus, AtOnce: report.ExitedAtOnce(bt), LastLines: bt.LastLines}
		}
	}
	if err != nil && ctx.Err() != nil && !errors.Is(err, session.ErrInterrupted) {
		err = fmt.Errorf("%w: %v", session.ErrInterrupted, err)
	}
	bt.Interrupted = errors.Is(err, session.ErrInterrupted)
	switch {
	case err != nil:
		b.run.Status, b.run.PartialKind, b.run.PartialReason = runfmt.StatusPartial, session.PartialKind(err, b.run.Target), session.OneLine(err.Error())
	case len(b.run.Degradations) > 0:
		b.run.Status = runfmt.StatusDegraded
	}
	res := &session.Result{Run: b.run, Dir: b.dir}
	if werr := runfmt.WriteFile(b.dir, b.run); werr != nil {
		b.run.Status, b.run.PartialKind, b.run.PartialReason = runfmt.StatusPartial, runfmt.PartialNotSaved, session.OneLine("not saved: "+werr.Error())
		return res, &session.SaveError{Path: filepath.Join(b.dir, runfmt.FileName), Err: werr}
	}
	if rerr := b.writeReport(); rerr != nil {
		b.warn(rerr.Error())
		_ = runfmt.WriteFile(b.dir, b.run) // best effort: the first record stands
	}
	return res, err
}

// writeReport writes report.html: the run's figures, findings and its CPU
// flame graph (for the whole run).
func (b *batch) writeReport() error {
	var flames report.Flames
	if b.cpu != nil {
		var buf bytes.Buffer
		if err := analysis.WriteFlameHTML(&buf, b.cpu, analysis.FlameOptions{Title: b.run.ID + ": CPU", UserCode: b.userCode()}); err != nil {
			return fmt.Errorf("flame graph for %s: %w", session.ReportFile, err)
		}
		flames.CPU = buf.Bytes()
	}
	return writeFile(filepath.Join(b.dir, session.ReportFile), func(w io.Writer) error { return report.WriteHTMLFlames(w, b.run, flames) })
}

// writeFile writes a file of the run directory atomically, naming it in
// the error.
func writeFile(path string, write func(io.Writer) error) error {
	if err := files.WriteAtomic(path, write); err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Base(path), err)
	}
	return nil
}

// hostCores is how many CPUs the host has online.
func hostCores() int {
	if b, err := files.ReadFile("/sys/devices/system/cpu/online", 4096); err == nil {
		if cpus, err := service.ParseCPUList(strings.TrimSpace(string(b))); err == nil && len(cpus) > 0 {
			return len(cpus)
		}
	}
	return runtime.NumCPU()
}
