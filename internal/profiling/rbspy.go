package profiling

import (
	"context"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/runfmt"
)

// rbSpy is rbspy, for Ruby processes: one recorder per process tree. It
// reads stacks at every tick (tickSampled).
type rbSpy struct{ tickSampled }

var _ Profiler = rbSpy{}

func (rbSpy) Name() runfmt.Profiler { return runfmt.ProfilerRbSpy }

func (rbSpy) Runtimes() []runfmt.Runtime { return []runfmt.Runtime{runfmt.RuntimeRuby} }

func (rbSpy) Install() string { return "cargo install rbspy" }

func (rbSpy) Record(ctx context.Context, job Job) (*profile.Profile, time.Duration, error) {
	return recordSpy(ctx, capture.RbSpy, job, true)
}

// rbspy follows the process's descendants itself (--subprocesses,
// looking for new ones once a second).
var _ follower = rbSpy{}

func (rbSpy) followsChildren() {}

// rbspy reads the process's stacks at every tick of wall time.
var _ tickSampler = rbSpy{}

func (rbSpy) readsEveryTick() {}
