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

// rbSpy is rbspy, for Ruby processes: one recorder per process tree. It
// reads stacks at every tick (tickSampled).
type rbSpy struct{ tickSampled }

var _ Profiler = rbSpy{}

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

func (rbSpy) Name() runfmt.Profiler { return rbSpyTool.Name }

func (rbSpy) Runtimes() []runfmt.Runtime { return []runfmt.Runtime{runfmt.RuntimeRuby} }

func (rbSpy) Install() string { return rbSpyTool.Install }

func (rbSpy) Record(ctx context.Context, job Job) (*profile.Profile, time.Duration, error) {
	return recordSpy(ctx, rbSpyTool, job, true)
}

// rbspy follows the process's descendants itself (--subprocesses,
// looking for new ones once a second).
var _ follower = rbSpy{}

func (rbSpy) followsChildren() {}

// rbspy reads the process's stacks at every tick of wall time.
var _ tickSampler = rbSpy{}

func (rbSpy) readsEveryTick() {}
