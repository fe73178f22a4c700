package profiling

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/runfmt"
	"perflab/internal/target"
)

// Profiler is a profiler perflab runs to sample a service's CPU. Each one
// is a type of its own, in a file of its own, and a row of the table
// (table.go); what only some of them do is one of the small interfaces
// below.
type Profiler interface {
	// Name is the profiler's word in run.json and --profiler; also the
	// name of its binary.
	Name() runfmt.Profiler
	// Runtimes are the runtimes it serves; nil for every runtime (perf).
	Runtimes() []runfmt.Runtime
	// Install says how to get it when it is missing.
	Install() string
	// Rate is its sampling rate, in Hz, over a window of w when
	// --perf-hz does not set one.
	Rate(w time.Duration) int
	// Record samples job's processes (or its endpoint) on the CPU for
	// job.Window at most, until job.Stop closes or ctx ends, keeping what
	// it sampled; it returns their profile and the CPU its recorder used
	// (0 when it runs inside the service).
	Record(ctx context.Context, job Job) (*profile.Profile, time.Duration, error)
}

// Job is one recording: what a profiler samples, for how long, and whom
// it tells as it goes. The callbacks may be nil.
type Job struct {
	// Processes are the processes to sample: one, with its descendants,
	// for a follower; several at once for a groupRecorder.
	Processes []target.ProcessInfo
	// Endpoint is the pprof endpoint's base URL (an endpoint profiler).
	Endpoint string
	// Window is the longest the recording lasts.
	Window time.Duration
	// Hz is the sampling rate.
	Hz int
	// Stop, when closed, ends the recording: the window is over.
	Stop <-chan struct{}
	// Started is called with the recorder's process ID once it runs.
	Started func(pid int)
	// StartedThread is called instead by a profiler inside the service
	// (inService) with the service's thread it samples from.
	StartedThread func(pid, tid int)
	// Ready is called once the recorder samples (a readySignaller).
	Ready func()
	// Note says something about the profile once per key (a runtime that
	// hides its function names from the profiler, and how to fix it).
	Note func(key, msg string)
	// Unwound is told how perf walks the stacks (frame pointers or
	// DWARF, and why).
	Unwound func(unwinding)
	// HandedTo is told, before it starts, the profiler a recording was
	// handed to (v8's to perf when node's inspector cannot be opened), so
	// that the run names the profiler that really sampled.
	HandedTo func(runfmt.Profiler)
	// Log receives one-line status messages for the user (nil: none),
	// such as each chunk of a long recording kept.
	Log func(string)
}

// sampleWindow is what an in-process profiler does once it samples: it
// tells Ready, then waits for the window's end, for Stop or for ctx's end.
func (j Job) sampleWindow(ctx context.Context) {
	if j.Ready != nil {
		j.Ready()
	}
	timer := time.NewTimer(j.Window)
	defer timer.Stop()
	select {
	case <-j.Stop:
	case <-ctx.Done():
	case <-timer.C:
	}
}

// pids are the job's process IDs.
func (j Job) pids() []int {
	out := make([]int, len(j.Processes))
	for i, p := range j.Processes {
		out[i] = p.PID
	}
	return out
}

// A follower records one process with its descendants, those forked
// during the recording included (rbspy --subprocesses): the tree sampler
// starts none for a process whose ancestor it records.
type follower interface {
	Profiler
	followsChildren()
}

// A readySignaller calls Job.Ready once it samples (py-spy says so, perf
// acknowledges enabling its events). The window waits for that; a
// profiler that says nothing is taken to sample once its recorder has
// used startupCPU of CPU.
type readySignaller interface {
	Profiler
	signalsReady()
}

// A groupRecorder records several processes with one recorder (perf -p
// PID,PID,...): the tree sampler gives it every new process of its
// runtimes at once.
type groupRecorder interface {
	Profiler
	recordsGroups()
}

// A tickSampler reads a process's stacks out of its memory (py-spy,
// rbspy), or interrupts it (V8's), at every tick of wall time, whatever
// the process does: its cost does
// not follow the service's CPU, so a process idle through the warm-up is
// watched rather than sampled (unless the profiler follows it from its
// parent), and a thread runnable but waiting for a CPU counts as working,
// so on a busy machine its profile stands for more CPU than was used.
type tickSampler interface {
	Profiler
	readsEveryTick()
}

// An inService profiler samples from inside the service's process (V8's
// profiler, through node's inspector): there is no binary to look for,
// and its cost is the service's own CPU.
type inService interface {
	Profiler
	runsInService()
}

// A processNoter has something to say about a process it samples: what
// the process needs for the profiler to name its code.
type processNoter interface {
	Profiler
	noteProcess(info target.ProcessInfo) (key, msg string)
}

// A waitRecorder also records where the service's threads wait off a CPU,
// beside the CPU profile: py-spy --idle, perf sched, a Go execution
// trace. startWaits starts the recording ahead of the window (or prepares
// it), nil when there is none to take.
type waitRecorder interface {
	Profiler
	startWaits(ctx context.Context, p *Set, wg *sync.WaitGroup, window time.Duration) waitRecording
}

// waitRecording is a wait recorder's recording under way.
type waitRecording interface {
	// waitAttached returns once it records (or failed), or at deadline.
	waitAttached(ctx context.Context, deadline time.Time)
	// begin says the window starts now and lasts window.
	begin(ctx context.Context, wg *sync.WaitGroup, window time.Duration)
	// end says the window is over; it is called before the CPU
	// recorders are told to stop.
	end()
}

// An endpoint profiler samples through the service's own endpoint rather
// than its processes (net/http/pprof): perflab probes for it, proves it
// is the service's, and takes its snapshots before and after the window.
type endpoint interface {
	Profiler
	before(ctx context.Context, p *Set)
	after(ctx context.Context, p *Set)
}

// serves says whether pr samples processes of runtime rt.
func serves(pr Profiler, rt runfmt.Runtime) bool {
	rts := pr.Runtimes()
	return rts == nil || slices.Contains(rts, rt)
}
