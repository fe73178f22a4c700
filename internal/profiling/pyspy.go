package profiling

import (
	"context"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/runfmt"
)

// pySpy is py-spy, for Python processes: one recorder per process (its
// --subprocesses looks for new children by reading every process's
// /proc/PID/stat ten times a second, 1.5–2% of a core on a host of a
// hundred processes, more than sampling a process at its default rate,
// while the tree sampler finds the service's new processes in its
// cgroup). Its idle recording (--idle) is the service's waits.
type pySpy struct{}

var (
	_ Profiler       = pySpy{}
	_ readySignaller = pySpy{}
	_ tickSampler    = pySpy{}
	_ waitRecorder   = pySpy{}
)

func (pySpy) Name() runfmt.Profiler { return runfmt.ProfilerPySpy }

func (pySpy) Runtimes() []runfmt.Runtime { return []runfmt.Runtime{runfmt.RuntimePython} }

func (pySpy) Install() string { return "pip install py-spy" }

func (pySpy) Rate(w time.Duration) int { return tickRate(w) }

func (pySpy) Record(ctx context.Context, job Job) (*profile.Profile, time.Duration, error) {
	return recordSpy(ctx, capture.PySpy, job, false)
}

func (pySpy) signalsReady()   {}
func (pySpy) readsEveryTick() {}
