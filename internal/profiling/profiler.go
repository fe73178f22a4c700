package profiling

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/capture"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// Profiler describes a profiler perflab runs to sample a service: what it
// is and what it can give, as fields the strategy reads (it never asks
// for a profiler by name), and what it does, its Recorder. Each profiler
// is a value in a file of its own (pyspy.go: pySpy), a row of a
// Registry (registry.go) and a reader of its format in package capture.
type Profiler struct {
	// Name is its word in run.json and --profiler; also the name of its
	// binary, unless it has none (Sampling.InService or .Endpoint) or
	// says itself where it is (Locate).
	Name runfmt.Profiler
	// Install says how to get it when it is missing.
	Install string
	// Runtimes are the runtimes it serves; nil for every runtime (perf).
	Runtimes []runfmt.Runtime
	// Gives is what it can give besides the CPU profile every profiler
	// records.
	Gives Gives
	// Sampling is how it samples.
	Sampling Sampling
	// Hz is its sampling rate, in Hz, when --perf-hz sets none; Rate, if
	// set, gives it instead for the window to sample.
	Hz   int
	Rate func(window time.Duration) int
	// Locate, if set, says whether it is installed, for a profiler that
	// is not a binary on PATH (a JVM agent's library).
	Locate func() error
	// Lost says what the profile loses when the profiler of every
	// runtime samples a process in its place because this one is not
	// installed: how the runtime's code shows then.
	Lost string
	// Recorder is what it does: it records the CPU profile, and what
	// Gives and Sampling promise besides (Registry checks).
	Recorder Recorder
}

// Gives is what a profiler can give besides the CPU profile.
type Gives struct {
	// Waits: it records where the service's threads wait off a CPU,
	// beside the CPU profile (py-spy --idle, perf sched, the Go execution
	// trace). Its Recorder is a waitRecorder; only this package's
	// profilers give waits, as the recording is kept in the run's Set.
	Waits bool
	// Snapshot: it reads every thread's stack of a stuck process once
	// (py-spy dump, rbspy snapshot, a JVM's thread dump, a Go service's
	// goroutines). Its Recorder is a Snapshotter.
	Snapshot bool
	// Lines: its samples name the source line they fell on, so a
	// culprit is named with its hot line (the auto choice prefers it).
	Lines bool
}

// Sampling is how a profiler samples: what the tree sampler, the
// profilers' CPU meter and the reading of its profile depend on.
type Sampling struct {
	// Endpoint: through the service's own endpoint (net/http/pprof)
	// rather than its processes: perflab probes for it, proves it is the
	// service's, and takes its snapshots before and after the window. Its
	// Recorder is an endpoint.
	Endpoint bool
	// InService: from inside the service's process (V8's profiler,
	// through node's inspector): there is no binary to look for, and its
	// cost is the service's own CPU.
	InService bool
	// EveryTick: it reads the stacks at every tick of wall time (py-spy,
	// rbspy), or interrupts the process (V8's), whatever the process
	// does. Its cost does not follow the service's CPU, so a process idle
	// through the warm-up is watched rather than sampled (unless Follows),
	// and a thread runnable but waiting for a CPU counts as running: on a
	// busy machine its profile stands for more CPU than was used.
	EveryTick bool
	// Follows: it records one process with its descendants, those forked
	// during the recording included (rbspy --subprocesses): the tree
	// sampler starts none for a process whose ancestor it records.
	Follows bool
	// Groups: it records several processes with one recorder (perf -p
	// PID,PID,...): the tree sampler gives it every new process of its
	// runtimes at once.
	Groups bool
	// SignalsReady: it calls Job.Ready once it samples (py-spy says so,
	// perf acknowledges enabling its events). The window waits for that;
	// a profiler that says nothing is taken to sample once its recorder
	// has used startupCPU of CPU.
	SignalsReady bool
}

// Recorder is what a profiler does: it records a CPU profile. The other
// behaviours are small interfaces of their own, which the Recorder of a
// profiler that gives them also implements.
type Recorder interface {
	// Record samples job's processes (or its endpoint) on the CPU for
	// job.Window at most, until job.Stop closes or ctx ends, keeping what
	// it sampled; it returns their profile and the CPU its recorder used
	// (0 when it runs inside the service or inside perflab).
	Record(ctx context.Context, job Job) (*profile.Profile, time.Duration, error)
}

// A Snapshotter reads every thread's stack of a process once: the stuck
// stacks of a profiler that Gives Snapshot.
type Snapshotter interface {
	// Snapshot reads the stacks of job's process (or of the service
	// behind job's endpoint, for an endpoint profiler).
	Snapshot(ctx context.Context, job SnapshotJob) (*capture.Snapshot, error)
}

// SnapshotJob is one reading of a process's stacks.
type SnapshotJob struct {
	PID int
	// Endpoint is the pprof endpoint's base URL (an endpoint profiler).
	Endpoint string
	// Timeout bounds the reading where the tool itself takes a bound
	// (ctx bounds it in any case).
	Timeout time.Duration
}

// Job is one recording: what a profiler samples, for how long, and whom
// it tells as it goes. The callbacks may be nil.
type Job struct {
	// Processes are the processes to sample: one, with its descendants,
	// for a profiler that Follows; several at once for one that records
	// Groups.
	Processes []service.ProcessInfo
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
	// (Sampling.InService) with the service's thread it samples from.
	StartedThread func(pid, tid int)
	// Ready is called once the recorder samples (Sampling.SignalsReady).
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

// WaitWindow is what a profiler that samples in perflab's or the
// service's process does once it samples: it tells Ready, then waits for
// the window's end, for Stop or for ctx's end.
func (j Job) WaitWindow(ctx context.Context) {
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

// A processNoter has something to say about a process it samples: what
// the process needs for the profiler to name its code.
type processNoter interface {
	noteProcess(info service.ProcessInfo) (key, msg string)
}

// A waitRecorder records where the service's threads wait off a CPU,
// beside the CPU profile (Gives.Waits). startWaits starts the recording
// ahead of the window (or prepares it), nil when there is none to take.
type waitRecorder interface {
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

// An endpoint samples through the service's own endpoint
// (Sampling.Endpoint): it takes its snapshots before and after the window.
type endpoint interface {
	before(ctx context.Context, p *Set)
	after(ctx context.Context, p *Set)
}

// check says what is missing from pr for it to be registered, nil when
// nothing is: a name, an install hint, a rate, its Recorder, and the
// behaviours its fields promise.
func (pr *Profiler) check() error {
	name, err := runfmt.Profilers.Parse(string(pr.Name))
	switch {
	case err != nil:
		return fmt.Errorf("profiler %q: %w", pr.Name, err)
	case Choice(name) == Auto || Choice(name) == None:
		return fmt.Errorf("profiler %q: the name is --profiler's choice of its own", name)
	case pr.Install == "":
		return fmt.Errorf("profiler %s: no install hint", name)
	case pr.Hz <= 0 && pr.Rate == nil:
		return fmt.Errorf("profiler %s: no sampling rate (Hz or Rate)", name)
	case pr.Recorder == nil:
		return fmt.Errorf("profiler %s: no Recorder", name)
	}
	for _, b := range []struct {
		promised, has bool
		what          string
	}{
		{pr.Gives.Waits, pr.waits() != nil, "gives waits, but its Recorder records none (a waitRecorder of this package)"},
		{pr.Gives.Snapshot, pr.snapshotter() != nil, "gives snapshots, but its Recorder is no Snapshotter"},
		{pr.Sampling.Endpoint, pr.endpoint() != nil, "samples through an endpoint, but its Recorder takes no snapshots around the window"},
	} {
		if b.promised && !b.has {
			return fmt.Errorf("profiler %s %s", name, b.what)
		}
	}
	if pr.Sampling.Endpoint && len(pr.Runtimes) == 0 {
		return fmt.Errorf("profiler %s samples through an endpoint: it must name the runtime that serves it", name)
	}
	return nil
}

// serves says whether pr samples processes of runtime rt.
func (pr *Profiler) serves(rt runfmt.Runtime) bool {
	return pr.Runtimes == nil || slices.Contains(pr.Runtimes, rt)
}

// servesAny says whether pr serves one of the runtimes rts.
func (pr *Profiler) servesAny(rts map[runfmt.Runtime]bool) bool {
	for rt := range rts {
		if pr.serves(rt) {
			return true
		}
	}
	return false
}

// rate is the rate pr samples a window of w at: perfHz when set (it sets
// every profiler's, --perf-hz), else pr's own default.
func (pr *Profiler) rate(perfHz int, w time.Duration) int {
	switch {
	case perfHz > 0:
		return perfHz
	case pr.Rate != nil:
		return pr.Rate(w)
	}
	return pr.Hz
}

// installed says whether pr can run: one inside the service or behind
// its endpoint has nothing to install, one that locates itself says so,
// any other is its binary on PATH.
func (pr *Profiler) installed() error {
	switch {
	case pr.Sampling.InService || pr.Sampling.Endpoint:
		return nil
	case pr.Locate != nil:
		return pr.Locate()
	}
	_, err := exec.LookPath(string(pr.Name))
	return err
}

// waits is pr's recording of the service's waits, nil unless it gives
// them (or pr is nil, as the choice of no profiler is).
func (pr *Profiler) waits() waitRecorder {
	if pr == nil {
		return nil
	}
	if w, ok := pr.Recorder.(waitRecorder); ok && pr.Gives.Waits {
		return w
	}
	return nil
}

// snapshotter is pr's reading of stuck stacks, nil unless it gives them
// (or pr is nil).
func (pr *Profiler) snapshotter() Snapshotter {
	if pr == nil {
		return nil
	}
	if s, ok := pr.Recorder.(Snapshotter); ok && pr.Gives.Snapshot {
		return s
	}
	return nil
}

// endpoint is pr's snapshots around the window, nil unless it samples
// through the service's endpoint (or pr is nil).
func (pr *Profiler) endpoint() endpoint {
	if pr == nil {
		return nil
	}
	if e, ok := pr.Recorder.(endpoint); ok && pr.Sampling.Endpoint {
		return e
	}
	return nil
}

// noteProcess is what pr has to say about a process it samples.
func (pr *Profiler) noteProcess(info service.ProcessInfo) (key, msg string) {
	if n, ok := pr.Recorder.(processNoter); ok {
		return n.noteProcess(info)
	}
	return "", ""
}

// missing is the note that pr is not installed, so all, the profiler of
// every runtime, samples rt's processes in its place.
func (pr *Profiler) missing(rt runfmt.Runtime, all *Profiler) string {
	msg := fmt.Sprintf("%s sampled with %s: %s is not installed (%s)", serviceOf(rt), all.Name, pr.Name, pr.Install)
	if pr.Lost != "" {
		msg += ", so " + pr.Lost
	}
	return msg
}

// serviceOf names a service of runtime rt in a note: "Python service",
// "JVM".
func serviceOf(rt runfmt.Runtime) string {
	if rt == runfmt.RuntimeJVM {
		return "JVM"
	}
	return language(rt) + " service"
}
