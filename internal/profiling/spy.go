package profiling

import (
	"context"
	"fmt"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/runfmt"
)

// What the profilers that read a process's stacks out of its memory at
// every tick (py-spy, rbspy) share: their default rate, what is lost
// without them, and how they are run.

// tickRates are the default rates of the profilers that read stacks at
// every tick, slowest first: odd, out of step with periodic work at round
// frequencies.
var tickRates = []int{capture.DefaultSpyHz, 29, 49, 99}

// minTicks is how many ticks such a profiler takes at least over a window
// at its default rate: capture.DefaultSpyHz over perflab's default 10 s
// window. A shorter window is sampled faster, up to 99 Hz,
// so its profile still has enough samples to speak: the same ticks, and
// so about the same profiler CPU, per window.
const minTicks = 190

// tickRate is the default rate of a profiler that reads stacks at every
// tick over a window of w: the slowest of tickRates that takes minTicks
// ticks, as its cost does not follow the service's CPU (see
// capture.DefaultSpyHz).
func tickRate(w time.Duration) int {
	for _, hz := range tickRates {
		if float64(hz)*w.Seconds() >= minTicks {
			return hz
		}
	}
	return tickRates[len(tickRates)-1]
}

// lostInterpreter is what a profile of an interpreter of runtime rt
// loses when perf samples it: the interpreter's C functions stand for the
// user's.
func lostInterpreter(rt runfmt.Runtime) string {
	lang := language(rt)
	return fmt.Sprintf("the profile shows the %s interpreter's C functions, not your %s functions", lang, lang)
}

// recordSpy records job's first process with tool, and with children its
// descendants. The profiler takes whole seconds: it is stopped, and keeps
// what it sampled, when the window ends.
func recordSpy(ctx context.Context, tool capture.SpyTool, job Job, children bool) (*profile.Profile, time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if job.Stop != nil {
		go func() {
			select {
			case <-job.Stop:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	var used time.Duration
	prof, err := capture.RecordSpy(ctx, tool, capture.SpyConfig{PID: job.Processes[0].PID, Seconds: job.Window.Seconds(), Rate: job.Hz,
		Subprocesses: children, CPUUsed: &used, OnStart: job.Started, OnSampling: job.Ready})
	return prof, used, err
}
