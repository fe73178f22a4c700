package findings

import "perflab/internal/runfmt"

// schedTime is the time a request waited for a CPU: runnable in Go's run
// queue (not after a wait: that belongs to the wait) and, from a Go trace,
// running for Go while the kernel held its thread off a CPU (the trace's
// running time beyond the CPU measured per request).
type schedTime struct {
	runnableMs, kernelMs float64
}

func (s schedTime) total() float64 { return s.runnableMs + s.kernelMs }

func newSchedTime(in FindingInput, tw *timeWaits) (schedTime, bool) {
	if tw.v == nil || in.Time == nil || in.Time.Source != runfmt.TimeSourceGoTrace {
		return schedTime{}, false
	}
	var st schedTime
	if c := tw.v.Classes[runfmt.WaitRunnable]; c != nil {
		st.runnableMs = tw.v.Ms(c.Costs.Total())
	}
	if c := tw.v.Classes[runfmt.WaitCPU]; c != nil && in.Target != nil && in.Target.CPUMsPerRequest > 0 {
		st.kernelMs = max(0, tw.v.Ms(c.Costs.Total())-in.Target.CPUMsPerRequest)
	}
	return st, true
}

// schedulerLatency reports scheduler latency that neither running at the
// budget, GOMAXPROCS above it nor the machine's other processes explain.
func schedulerLatency(c *context) []ranked {
	in := c.in
	st, traced := newSchedTime(in, c.tw)
	if !traced || in.Target == nil || in.Target.CPUBound || foundKind(c.found, runfmt.FindingGOMAXPROCS) {
		return nil // at the budget, waiting for a CPU is the CPU findings' consequence
	}
	ms := st.total()
	if ms < waitMinMs || ms < waitMinShare*in.Time.TotalMs {
		return nil
	}
	if lt := ledgerTime(in); lt != nil { // it claims the ledger's runnable row and no more
		row, ok := rowsMs(lt, runfmt.PartRunnable)
		if ok && !claimable(lt, min(ms, row)) {
			return nil
		}
		if ok && row < ms {
			st.runnableMs, st.kernelMs = st.runnableMs*row/ms, st.kernelMs*row/ms
			ms = row
		}
	}
	rq := runqueueOf(in)
	if rq.serviceMs >= 0.5*ms || rq.starved {
		return nil // the machine's other processes hold the cores: cpu-contention says so
	}
	if in.Load != nil && c.cpu.UsPerRequest > 0 && contends(in, rq, in.Load.Latency.Mean, c.cpu.UsPerRequest/1000) {
		return nil // the same: it names who held the cores
	}
	f := runfmt.Finding{Kind: runfmt.FindingSchedulerLatency, Advice: runfmt.AdviceMoreCPU, Figures: runfmt.Figures{
		runfmt.FigWaitPerRequest: 1000 * ms, runfmt.FigShare: ms / in.Time.TotalMs, runfmt.FigRunnable: 1000 * st.runnableMs}}
	if st.kernelMs > 0 {
		f.Figures[runfmt.FigKernelWait] = 1000 * st.kernelMs
	}
	if s := in.Time.Scheduler; s != nil {
		f.Figures[runfmt.FigGOMAXPROCS], f.Figures[runfmt.FigPBusy] = float64(s.GOMAXPROCS), s.PBusyPct/100
	}
	if t := in.Target; t.RunqueueWaitSeconds > 0 && in.Requests > 0 {
		f.Figures[runfmt.FigRunqueueTime] = t.RunqueueWaitSeconds
	}
	return []ranked{{f: f, rank: f.Figures[runfmt.FigWaitPerRequest]}}
}

// foundKind says a finding of kind k was found.
func foundKind(found []ranked, k runfmt.FindingKind) bool {
	for _, r := range found {
		if r.f.Kind == k {
			return true
		}
	}
	return false
}
