package answer

import (
	"testing"

	"perflab/internal/runfmt"
)

// TestSingleThreadedRuntimeWaitingForCPU: a node process on a machine
// whose other processes take the CPUs runs 0.3 of a core and waits for a
// CPU 0.65 of the window while the requests queue for it: its one thread
// is busy (the limit, not the queue), and its CPU culprit ranks before
// the requests' wait for a CPU, a consequence. With the run-queue wait
// short, the same CPU is no thread's limit.
func TestSingleThreadedRuntimeWaitingForCPU(t *testing.T) {
	run := func(runq float64) *runfmt.Run {
		r := serviceRun(0.3, 0, 35, 2.7, map[runfmt.LedgerPart]float64{runfmt.PartCPU: 2.7, runfmt.PartRunnable: 5, runfmt.PartQueue: 27},
			waitFinding(runfmt.FindingSchedulerLatency, 5000), cpuFinding(runfmt.FindingHotUserFunction, "issueToken", 2200))
		r.Target.RunqueueWaitSeconds = runq * 10 // the window is 10 s
		r.Quality.OtherCores = 1.67
		r.Profiling = &runfmt.Profiling{Processes: []runfmt.ProcessProfile{{PID: 7, Runtime: runfmt.RuntimeNode, CPUSeconds: 9}}}
		return r
	}
	r := run(0.65)
	Decide(r)
	if got := r.Answer.First(); got.Kind != runfmt.LimitCPUThread || got.Figures[runfmt.FigCount] != 1 {
		t.Errorf("limit %+v; want the one thread of a node process", got)
	}
	if c, _ := r.Findings[0].Culprit(); c.Function != "issueToken" || r.Findings[1].ConsequenceOf != runfmt.LimitCPUThread {
		t.Errorf("ranked %v, the wait for a CPU a consequence of %q; want issueToken first, the wait a consequence of the thread", kindsOf(r.Findings), r.Findings[1].ConsequenceOf)
	}
	r = run(0.1)
	Decide(r)
	if got := r.Answer.First(); got.Kind == runfmt.LimitCPUThread {
		t.Errorf("limit %+v for a thread busy 0.4 of the window; want no thread's limit", got)
	}
}
