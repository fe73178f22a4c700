package profiling

import (
	"context"
	"strconv"
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

// pySpyTool records without pausing the process (--nonblocking), with
// full file names, so the standard library and installed packages can be
// told from the application.
var pySpyTool = capture.SpyTool{
	Name: runfmt.ProfilerPySpy, Install: "pip install py-spy", Lang: "Python", Sampling: capture.PySpySampling,
	Args: func(cfg capture.SpyConfig, secs, rate int, out string) []string {
		args := []string{"record", "--pid", strconv.Itoa(cfg.PID), "--duration", strconv.Itoa(secs),
			"--rate", strconv.Itoa(rate), "--format", "raw", "--output", out, "--nonblocking", "--full-filenames"}
		if cfg.Subprocesses {
			args = append(args, "--subprocesses")
		}
		return args
	},
}

func (pySpy) Name() runfmt.Profiler { return pySpyTool.Name }

func (pySpy) Runtimes() []runfmt.Runtime { return []runfmt.Runtime{runfmt.RuntimePython} }

func (pySpy) Install() string { return pySpyTool.Install }

func (pySpy) Record(ctx context.Context, job Job) (*profile.Profile, time.Duration, error) {
	return recordSpy(ctx, pySpyTool, job, false)
}

// py-spy prints that it samples once it has read the interpreter.
var _ readySignaller = pySpy{}

func (pySpy) signalsReady() {}

// py-spy reads the process's stacks at every tick of wall time.
var _ tickSampler = pySpy{}

func (pySpy) readsEveryTick() {}
