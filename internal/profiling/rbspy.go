package profiling

import (
	"context"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/runfmt"
)

// rbSpy is rbspy, for Ruby processes: one recorder per process tree, that
// follows the process's descendants itself (--subprocesses, looking for
// new ones once a second).
type rbSpy struct{}

var (
	_ Profiler    = rbSpy{}
	_ follower    = rbSpy{}
	_ tickSampler = rbSpy{}
)

func (rbSpy) Name() runfmt.Profiler { return runfmt.ProfilerRbSpy }

func (rbSpy) Runtimes() []runfmt.Runtime { return []runfmt.Runtime{runfmt.RuntimeRuby} }

func (rbSpy) Install() string { return "cargo install rbspy" }

func (rbSpy) Rate(w time.Duration) int { return tickRate(w) }

func (rbSpy) Record(ctx context.Context, job Job) (*profile.Profile, time.Duration, error) {
	return recordSpy(ctx, capture.RbSpy, job, true)
}

func (rbSpy) followsChildren() {}
func (rbSpy) readsEveryTick()  {}
