package profiling

import (
	"context"
	"os"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// perf is Linux perf (perf record -e cpu-clock): any process,
// native or JIT-compiled, several in one recording. It serves every
// runtime (an interpreter's C functions, where its runtime's own profiler
// is missing), and acknowledges enabling its events (see
// capture.PerfConfig.OnAttached). Its off-CPU recording (perf sched,
// perfsched.go) is a native service's waits; the lines of native code
// come from its DWARF.
var perf = Profiler{
	Name:     runfmt.ProfilerPerf,
	Install:  "install linux-perf (Debian)",
	Gives:    Gives{Waits: true, Lines: true},
	Sampling: Sampling{Groups: true, SignalsReady: true},
	Hz:       capture.DefaultPerfHz,
	Recorder: perfRecorder{},
}

// perfRecorder is what perf does.
type perfRecorder struct{}

var (
	_ Recorder     = perfRecorder{}
	_ waitRecorder = perfRecorder{}
	_ processNoter = perfRecorder{}
)

// Record samples the processes for job.Window; JVMs among them write
// their perf maps before perf script reads the recording. A native
// executable built without frame pointers is unwound with DWARF (see
// perfUnwinding), and the run's notes say so.
func (perfRecorder) Record(ctx context.Context, job Job) (*profile.Profile, time.Duration, error) {
	var used time.Duration
	var maps []string
	u := perfUnwinding(job.Processes)
	if job.Unwound != nil {
		job.Unwound(u)
	}
	if n := u.note(); n != "" && job.Note != nil {
		job.Note("perf dwarf", n)
	}
	prof, err := capture.PerfRecord(ctx, capture.PerfConfig{PIDs: job.pids(), Seconds: job.Window.Seconds(), Hz: job.Hz, CPUUsed: &used,
		OnAttached: job.Ready, OnStart: job.Started, Stop: job.Stop, DWARFStackBytes: u.stackBytes,
		BeforeScript: func() { maps = jvmPerfMaps(job) }})
	for _, m := range maps {
		_ = os.Remove(m)
	}
	return prof, used, err
}

// noteProcess says what a JIT runtime needs for perf to name its code.
func (perfRecorder) noteProcess(info service.ProcessInfo) (key, msg string) {
	if info.Runtime == runfmt.RuntimeJVM {
		return noteJVM(info)
	}
	if info.PerfMap || info.Runtime != runfmt.RuntimeNode {
		return "", ""
	}
	return "node perf map", "node process without a perf map (/tmp/perf-PID.map): JavaScript frames show as addresses; " +
		"start it with node --perf-basic-prof-only-functions (or NODE_OPTIONS=--perf-basic-prof-only-functions) to see function names"
}
