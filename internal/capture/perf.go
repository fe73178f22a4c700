package capture

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/files"
	"perflab/internal/runfmt"
)

// PerfConfig says what PerfRecord samples and for how long.
type PerfConfig struct {
	// PIDs are the processes to sample (all their threads); at least one.
	PIDs []int
	// Seconds is how long to sample; more than 0.
	Seconds float64
	// Hz is the sampling frequency per CPU; 0 means DefaultPerfHz (99).
	Hz int
	// PerfPath is the perf binary; "" means "perf" from PATH.
	PerfPath string
	// CPUUsed, when set, receives perf record's own CPU time (user +
	// system) over the recording.
	CPUUsed *time.Duration
	// OnStart, when set, is called with perf record's process ID once it
	// runs.
	OnStart func(pid int)
	// BeforeScript, when set, runs after the recording and before perf
	// script reads it: the moment to have a JIT write its perf map.
	BeforeScript func()
	// OnAttached, when set, makes perf start with its events disabled,
	// enables them as soon as perf can take the command, and is called
	// then: from that moment perf samples (attaching to a process with
	// many threads and mappings, a JVM, takes perf a while).
	OnAttached func()
	// Stop, when closed, ends the recording before Seconds: perf record
	// gets SIGINT and what it recorded is read as usual.
	Stop <-chan struct{}
	// DWARFStackBytes, when more than 0, unwinds stacks with DWARF
	// (perf record --call-graph dwarf,N): each sample copies the top N
	// bytes of the thread's stack, which perf script unwinds with the
	// binaries' unwind tables (.eh_frame), so code built without frame
	// pointers gets whole stacks. A multiple of 8 up to
	// MaxDWARFStackBytes; 0 walks frame pointers (-g).
	DWARFStackBytes int
	// Times, when set, receives the time of each sample, on
	// CLOCK_MONOTONIC (perf record -k monotonic): the code that ran in a
	// span of the recording.
	Times *[]SampleTime
}

// MaxDWARFStackBytes is the most stack perf copies per sample.
const MaxDWARFStackBytes = 65528

// PerfRecord samples the processes' on-CPU stacks with
// `perf record -e cpu-clock -c 1e9/Hz -g -p PIDS -- sleep Seconds`
// (--call-graph dwarf,N rather than -g with DWARFStackBytes; the software
// clock event: hardware counters are often unavailable in VMs and
// containers), then reads them back with `perf script` into a profile (see
// ParsePerfScript) stamped with the recording's start and length.
// perf script runs at once so that perf map files (/tmp/perf-PID.map,
// written by JITs such as python3.12 -X perf or node --perf-basic-prof) are
// still there to name JIT frames.
func PerfRecord(ctx context.Context, cfg PerfConfig) (*profile.Profile, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	perf, data, err := perfData(cfg.PerfPath, "perf record", "perf")
	if err != nil {
		return nil, err
	}
	defer data.close()
	start := time.Now()
	if err := cfg.record(ctx, perf, data); err != nil {
		return nil, err
	}
	elapsed := time.Since(start)
	if cfg.BeforeScript != nil {
		cfg.BeforeScript()
	}
	// perf script runs even when ctx ended the recording: the samples up
	// to the interruption are kept. It has a time limit of its own.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), perfScriptTimeout)
	defer cancel()
	p, err := perfScript(sctx, perf, data, cfg.Times)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil && len(p.Sample) == 0 {
		return nil, fmt.Errorf("perf record: %w before the first sample", ctx.Err())
	}
	p.TimeNanos = start.UnixNano()
	p.DurationNanos = min(int64(cfg.Seconds*1e9), elapsed.Nanoseconds())
	p.Period = int64(1e9) / int64(cfg.hz())
	return p, nil
}

// Time limits of perf: the recording may take its duration plus
// perfStartTimeout (perf has to start, attach to every thread and, once
// the duration is over, write its data), and perf script perfScriptTimeout.
const (
	perfStartTimeout  = 30 * time.Second
	perfScriptTimeout = 60 * time.Second
)

// sleepCommand is the command perf record runs for as long as it records
// (perf record -p PIDS -- sleep SECONDS).
const sleepCommand = "sleep"

func (cfg PerfConfig) hz() int {
	if cfg.Hz == 0 {
		return DefaultPerfHz
	}
	return cfg.Hz
}

// callGraph is perf record's call-graph option: frame pointers (-g), or
// DWARF unwinding with DWARFStackBytes of stack per sample.
func (cfg PerfConfig) callGraph() []string {
	if cfg.DWARFStackBytes > 0 {
		return []string{"--call-graph", "dwarf," + strconv.Itoa(cfg.DWARFStackBytes)}
	}
	return []string{"-g"}
}

func (cfg PerfConfig) check() error {
	if len(cfg.PIDs) == 0 {
		return errors.New("perf record: no process IDs given")
	}
	for _, pid := range cfg.PIDs {
		if pid <= 0 {
			return fmt.Errorf("perf record: process ID %d: must be positive", pid)
		}
	}
	if cfg.Seconds <= 0 {
		return fmt.Errorf("perf record: duration %gs: must be more than 0", cfg.Seconds)
	}
	if cfg.Hz < 0 || cfg.Hz > 100000 {
		return fmt.Errorf("perf record: frequency %d Hz: want 1 to 100000, or 0 for %d", cfg.Hz, DefaultPerfHz)
	}
	if n := cfg.DWARFStackBytes; n < 0 || n > MaxDWARFStackBytes || n%8 != 0 {
		return fmt.Errorf("perf record: DWARF stack size %d bytes: want a multiple of 8 up to %d, or 0 for frame pointers", n, MaxDWARFStackBytes)
	}
	return nil
}

func lookPerf(path string) (string, error) {
	if path == "" {
		path = string(runfmt.ProfilerPerf) // the profiler's binary
	}
	p, err := exec.LookPath(path)
	if err != nil {
		name := "perf is not installed"
		if path != string(runfmt.ProfilerPerf) {
			name = "perf is not installed at " + path
		}
		return "", &missingTool{name + ": apt-get install linux-perf (Debian; linux-tools-$(uname -r) on Ubuntu) to profile non-Go services"}
	}
	return p, nil
}

// perfData finds perf at path (as lookPerf does) and makes the file its
// data goes to (see perfOutput), which the caller closes; what names the
// command in an error.
func perfData(path, what, kind string) (perf string, data *perfOutput, err error) {
	if perf, err = lookPerf(path); err != nil {
		return "", nil, err
	}
	if data, err = newPerfOutput(kind); err != nil {
		return "", nil, fmt.Errorf("%s: %w", what, err)
	}
	return perf, data, nil
}

// record runs perf record into data, within the duration plus
// perfStartTimeout. On cancellation perf gets SIGINT, so it stops and
// writes what it sampled, which is kept: record then succeeds when perf
// wrote data, and fails with ctx's error otherwise.
func (cfg PerfConfig) record(ctx context.Context, perf string, data *perfOutput) error {
	pids := make([]string, len(cfg.PIDs))
	for i, pid := range cfg.PIDs {
		pids[i] = strconv.Itoa(pid)
	}
	// A fixed period (-c, in nanoseconds for cpu-clock) rather than a
	// frequency (-F): in frequency mode every thread's event starts with a
	// tiny period the kernel then raises.
	// No build-ids (-B, -N): perf script reads the samples at once, from
	// the binaries they name; collecting the build-ids after the
	// recording costs perf a pass over its data (0.1 s of CPU here).
	args := []string{"record", "-e", "cpu-clock", "-c", strconv.Itoa(1e9 / cfg.hz()), "-B", "-N"}
	args = append(args, cfg.callGraph()...)
	if cfg.Times != nil {
		args = append(args, "-k", "monotonic")
	}
	var ctl *perfControl
	if cfg.OnAttached != nil {
		var err error
		if ctl, err = newPerfControl(); err != nil {
			return fmt.Errorf("perf record: %w", err)
		}
		defer ctl.close()
		// Events start disabled and are enabled through the control
		// descriptors (fds 3 and 4 in perf): its ack says perf is sampling.
		args = append(args, "-D", "-1", "--control", "fd:3,4")
	}
	args = append(args, "-p", strings.Join(pids, ","), "-o", data.arg(len(ctl.childFiles())))
	args = append(args, "--", sleepCommand, strconv.FormatFloat(cfg.Seconds, 'f', -1, 64))
	limit := time.Duration(cfg.Seconds*float64(time.Second)) + perfStartTimeout
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	name, args := perfCommand(perf, args)
	cmd, stderr := data.command(rctx, name, args)
	stopped, cpu, err := perfRun{onStart: cfg.OnStart, ctl: ctl, attached: cfg.OnAttached, stop: cfg.Stop}.run(cmd)
	if err != nil && (stopped || allExited(cfg.PIDs)) && data.wrote() {
		// Stopped early on purpose, or every process it sampled exited
		// (perf then ends its sleep with SIGTERM, and exits as it did):
		// perf wrote what it recorded.
		err = nil
	}
	if cfg.CPUUsed != nil {
		*cfg.CPUUsed = cpu
	}
	switch {
	case ctx.Err() != nil:
		if data.wrote() {
			return nil // interrupted: perf wrote the samples so far
		}
		return fmt.Errorf("perf record: %w", ctx.Err())
	case rctx.Err() != nil:
		return fmt.Errorf("perf record: did not finish within %s (the %gs recording and %s to start and stop): %w",
			limit, cfg.Seconds, perfStartTimeout, ErrTimeout)
	case err != nil:
		return perfRecordError(cfg.PIDs, err, stderr.String())
	}
	return nil
}

// perfRecordError explains why perf record failed from what it printed.
func perfRecordError(pids []int, err error, stderr string) error {
	switch {
	case strings.Contains(stderr, "No such process"):
		return fmt.Errorf("perf record: process %v not found (did it exit?): %w", pids, ErrProcessGone)
	case strings.Contains(stderr, "perf_event_paranoid") || strings.Contains(stderr, "Permission denied") ||
		strings.Contains(stderr, "No permission"):
		return fmt.Errorf("perf record: not permitted to sample %v: run perflab as root (or with CAP_PERFMON), "+
			"or set sysctl kernel.perf_event_paranoid=1 (=-1 to see kernel frames) to sample your own processes: %w",
			pids, ErrNotPermitted)
	}
	return fmt.Errorf("perf record: %w: %s", err, lastLines(stderr, 5))
}

// perfScript reads data back with perf script and parses its output,
// appending each sample's time to times when it is not nil.
func perfScript(ctx context.Context, perf string, data *perfOutput, times *[]SampleTime) (*profile.Profile, error) {
	cmd := exec.CommandContext(ctx, perf, "script", "-i", data.arg(0), "-F", perfScriptFields)
	cmd.ExtraFiles = data.extraFiles()
	diesWithPerflab(cmd, syscall.SIGKILL)
	runtime.LockOSThread() // see diesWithPerflab
	defer runtime.UnlockOSThread()
	stderr := files.NewTail(8 << 10)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("perf script: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("perf script: %w", err)
	}
	p, perr := parsePerfScript(out, &jitMaps{}, times)
	if perr != nil {
		_ = cmd.Process.Kill()
	}
	werr := cmd.Wait()
	switch {
	case perr != nil:
		return nil, fmt.Errorf("perf script: %w", perr)
	case werr != nil:
		return nil, fmt.Errorf("perf script: %w: %s", werr, lastLines(stderr.String(), 5))
	}
	return p, nil
}

// allExited says whether every process of pids has exited (gone, or a
// zombie waiting to be reaped).
func allExited(pids []int) bool {
	for _, pid := range pids {
		b, err := files.ReadFile("/proc/"+strconv.Itoa(pid)+"/stat", 4096)
		if err != nil {
			continue // gone
		}
		// "pid (comm) S ...": the state follows the last ')'.
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X') {
			return false
		}
	}
	return true
}
