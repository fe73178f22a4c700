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
// cgroup). It reads stacks at every tick (tickSampled); its idle
// recording (--idle, pyspyidle.go) is the service's waits.
type pySpy struct{ tickSampled }

var _ Profiler = pySpy{}

func (pySpy) Name() runfmt.Profiler { return runfmt.ProfilerPySpy }

func (pySpy) Runtimes() []runfmt.Runtime { return []runfmt.Runtime{runfmt.RuntimePython} }

func (pySpy) Install() string { return "pip install py-spy" }

func (pySpy) Record(ctx context.Context, job Job) (*profile.Profile, time.Duration, error) {
	return recordSpy(ctx, capture.PySpy, job, false)
}

// py-spy prints that it samples once it has read the interpreter.
var _ readySignaller = pySpy{}

func (pySpy) signalsReady() {}

// py-spy reads the process's stacks at every tick of wall time.
var _ tickSampler = pySpy{}

func (pySpy) readsEveryTick() {}
