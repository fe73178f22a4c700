package profiling

import (
	"context"
	"os"
	"strconv"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/runfmt"
)

// rbSpy is rbspy, for Ruby processes: one recorder per process
// tree, as it follows the process's descendants itself (--subprocesses,
// looking for new ones once a second). It reads stacks at every tick, and
// says nothing once it samples; rbspy snapshot is its stuck stacks.
var rbSpy = Profiler{
	Name:     runfmt.ProfilerRbSpy,
	Install:  rbSpyTool.Install,
	Runtimes: []runfmt.Runtime{runfmt.RuntimeRuby},
	Gives:    Gives{Snapshot: true, Lines: true},
	Sampling: Sampling{EveryTick: true, Follows: true},
	Rate:     tickRate,
	Lost:     lostInterpreter(runfmt.RuntimeRuby),
	Recorder: rbSpyRecorder{},
}

// rbSpyRecorder is what rbspy does.
type rbSpyRecorder struct{}

var (
	_ Recorder    = rbSpyRecorder{}
	_ Snapshotter = rbSpyRecorder{}
)

// rbSpyTool records without pausing the process, the Ruby stacks on CPU
// only (--on-cpu: a worker waiting for a request is not working), read
// from rbspy's raw recording so that samples keep their pid.
var rbSpyTool = capture.SpyTool{
	Name: runfmt.ProfilerRbSpy, Install: "cargo install rbspy", Lang: "Ruby",
	Args: func(cfg capture.SpyConfig, secs, rate int, out string) []string {
		args := []string{"record", "--pid", strconv.Itoa(cfg.PID), "--duration", strconv.Itoa(secs),
			"--rate", strconv.Itoa(rate), "--format", "collapsed", "--file", out, "--nonblocking", "--silent",
			"--on-cpu",
			// beside out, in the temporary directory: by default rbspy
			// keeps a copy of every recording in ~/.cache/rbspy.
			"--raw-file", out + ".raw.gz"}
		if cfg.Subprocesses {
			args = append(args, "--subprocesses")
		}
		return args
	},
	Parse: func(out string, period int64) (*profile.Profile, error) {
		f, err := os.Open(out + ".raw.gz")
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return capture.ParseRbspyRaw(f, period)
	},
}

func (rbSpyRecorder) Record(ctx context.Context, job Job) (*profile.Profile, time.Duration, error) {
	return recordSpy(ctx, rbSpyTool, job, true)
}

// Snapshot is rbspy snapshot of the Ruby stack.
func (rbSpyRecorder) Snapshot(ctx context.Context, job SnapshotJob) (*capture.Snapshot, error) {
	return capture.RbSpySnapshot(ctx, job.PID)
}
