package profiling

import (
	"context"
	"strconv"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/runfmt"
)

// pySpy is py-spy, for Python processes: one recorder per process
// (its --subprocesses looks for new children by reading every process's
// /proc/PID/stat ten times a second, 1.5–2% of a core on a host of a
// hundred processes, more than sampling a process at its default rate,
// while the tree sampler finds the service's new processes in its
// cgroup). It reads stacks at every tick, and says once it samples. Its
// idle recording (--idle, pyspyidle.go) is the service's waits, and py-spy
// dump its stuck stacks.
var pySpy = Profiler{
	Name:     runfmt.ProfilerPySpy,
	Install:  pySpyTool.Install,
	Runtimes: []runfmt.Runtime{runfmt.RuntimePython},
	Gives:    Gives{Waits: true, Snapshot: true, Lines: true},
	Sampling: Sampling{EveryTick: true, SignalsReady: true},
	Rate:     tickRate,
	Lost:     lostInterpreter(runfmt.RuntimePython),
	Recorder: pySpyRecorder{},
}

// pySpyRecorder is what py-spy does.
type pySpyRecorder struct{}

var (
	_ Recorder     = pySpyRecorder{}
	_ waitRecorder = pySpyRecorder{}
	_ Snapshotter  = pySpyRecorder{}
)

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

func (pySpyRecorder) Record(ctx context.Context, job Job) (*profile.Profile, time.Duration, error) {
	return recordSpy(ctx, pySpyTool, job, false)
}

// Snapshot is py-spy dump of every Python thread's stack.
func (pySpyRecorder) Snapshot(ctx context.Context, job SnapshotJob) (*capture.Snapshot, error) {
	return capture.PySpyDump(ctx, job.PID)
}
