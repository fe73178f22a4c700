package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/google/pprof/profile"

	"perflab/internal/files"
	"perflab/internal/runfmt"
)

var errEmptyCollapsed = errors.New("the profiler wrote no stacks (is the process busy, and is it the right language?)")

// DefaultSpyHz is the sampling rate of py-spy and rbspy when none is set,
// lower than perf's: perf's cpu-clock fires only while a thread runs, so
// its cost follows the service's CPU, but py-spy and rbspy read a
// process's stacks out of its memory at every tick (process_vm_readv, a
// /proc read per thread), whatever the process does, about half a
// millisecond of CPU per process and tick on a 2-core VM: 4–5% of a core
// per process at 99 Hz, 1% at 19 Hz. A pre-fork server's master and two
// workers sampled at 19 Hz cost about 3% of a core; the rate is odd, out
// of step with periodic work at round frequencies (as perf's 99 Hz). See
// docs/performance.md.
const DefaultSpyHz = 19

// SpyConfig says what py-spy or rbspy samples.
type SpyConfig struct {
	// PID is the process to sample.
	PID int
	// Seconds is how long (rounded up to whole seconds); cancelling the
	// context stops the recording earlier, keeping what it sampled.
	Seconds float64
	// Rate is samples per second; 0 means DefaultSpyHz.
	Rate int
	// Subprocesses also samples every descendant of PID, those running
	// and those forked during the recording (a pre-fork server's workers,
	// replaced ones included). Samples carry pid and comm labels.
	Subprocesses bool
	// CPUUsed, when set, receives the profiler's own CPU time (user +
	// system) over the recording: what sampling cost the machine.
	CPUUsed *time.Duration
	// OnStart, when set, is called with the profiler's process ID once it
	// runs.
	OnStart func(pid int)
	// OnSampling, when set, is called once the profiler says it samples
	// (py-spy does, once it has read the interpreter: a tenth of a second
	// of CPU; rbspy, silent, never does).
	OnSampling func()
}

// SpyTool is a sampling profiler that reads a process's stacks out of its
// memory (py-spy, rbspy) and writes them to a file: its command line, and
// how that file is read.
type SpyTool struct {
	// Name is the profiler's name, also its binary's.
	Name runfmt.Profiler
	// Install says how to install it; Lang is the language whose frames
	// it shows.
	Install, Lang string
	// Sampling is what it prints once it samples, "" for nothing.
	Sampling string
	// Args is its command line (without the binary) to record cfg for
	// seconds at rate Hz into the file out.
	Args func(cfg SpyConfig, seconds, rate int, out string) []string
	// Parse reads the recording written to out, with samples of period
	// nanoseconds; nil reads out as collapsed stacks.
	Parse func(out string, periodNanos int64) (*profile.Profile, error)
}

// PySpySampling is what py-spy prints once it samples.
const PySpySampling = "Sampling process"

// RecordSpy samples the process cfg.PID (and with cfg.Subprocesses its
// descendants) with tool for cfg.Seconds, rounded up to whole seconds:
// cancelling ctx stops it sooner, and what it sampled is kept. The
// profile is stamped with the recording's start and length.
func RecordSpy(ctx context.Context, tool SpyTool, cfg SpyConfig) (*profile.Profile, error) {
	pid, seconds, rate := cfg.PID, cfg.Seconds, cfg.Rate
	if pid <= 0 || seconds <= 0 || rate < 0 {
		return nil, fmt.Errorf("%s record: pid %d, %gs, %d Hz: want a positive pid and duration, and a rate ≥ 0 (0 for %d)", tool.Name, pid, seconds, rate, DefaultSpyHz)
	}
	if rate == 0 {
		rate = DefaultSpyHz
	}
	bin, err := exec.LookPath(string(tool.Name))
	if err != nil {
		return nil, &missingTool{fmt.Sprintf("%s is not installed: %s to get %s frames", tool.Name, tool.Install, tool.Lang)}
	}
	dir, err := files.TempDir("perflab-" + string(tool.Name) + "-")
	if err != nil {
		return nil, fmt.Errorf("%s record: %w", tool.Name, err)
	}
	defer os.RemoveAll(dir)
	r := spyRun{tool: tool, cfg: cfg, out: filepath.Join(dir, "stacks.txt"), secs: int(math.Ceil(seconds)), rate: rate}
	return r.run(ctx, bin)
}

// spyRun is one recording of RecordSpy.
type spyRun struct {
	tool       SpyTool
	cfg        SpyConfig
	out        string // the recording's file
	secs, rate int
}

// run runs the profiler bin and reads what it recorded.
func (r spyRun) run(ctx context.Context, bin string) (*profile.Profile, error) {
	tool, start := r.tool, time.Now()
	// The recording may take its duration plus perfStartTimeout, whatever
	// the profiler does.
	limit := time.Duration(r.secs)*time.Second + perfStartTimeout
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(rctx, bin, tool.Args(r.cfg, r.secs, r.rate, r.out)...)
	// Cancelled, the profiler gets SIGINT, as from Ctrl-C: it stops and
	// writes what it sampled, which is kept.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = 5 * time.Second
	stderr := files.NewTail(8 << 10)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if r.cfg.OnSampling != nil && tool.Sampling != "" {
		cmd.Stdout = &watchWriter{w: stderr, needle: []byte(tool.Sampling), found: r.cfg.OnSampling}
	}
	runErr := cmd.Start()
	if runErr == nil {
		if r.cfg.OnStart != nil {
			r.cfg.OnStart(cmd.Process.Pid)
		}
		runErr = cmd.Wait()
	}
	if r.cfg.CPUUsed != nil && cmd.ProcessState != nil {
		*r.cfg.CPUUsed = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	p, perr := tool.read(r.out, int64(1e9)/int64(r.rate))
	if perr == nil {
		DropWaits(p, newSourceLines().line) // waiting threads sampled as working (spywaits.go)
	}
	switch {
	case perr == nil && (runErr == nil || ctx.Err() != nil || len(p.Sample) > 0):
		// A recording stopped early, or whose process exited during it,
		// keeps what it sampled.
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%s record: %w", tool.Name, ctx.Err())
	case rctx.Err() != nil:
		return nil, fmt.Errorf("%s record: did not finish within %s: %w", tool.Name, limit, ErrTimeout)
	case runErr != nil:
		return nil, spyError(tool.Name, r.cfg.PID, runErr, stderr.String())
	case errors.Is(perr, os.ErrNotExist):
		return nil, fmt.Errorf("%s record: %w: %s", tool.Name, errEmptyCollapsed, lastLines(stderr.String(), 3))
	default:
		return nil, fmt.Errorf("%s record: %w", tool.Name, perr)
	}
	p.TimeNanos = start.UnixNano()
	p.DurationNanos = min(int64(r.secs)*1e9, time.Since(start).Nanoseconds())
	return p, nil
}

// read parses the recording written to out.
func (tool SpyTool) read(out string, period int64) (*profile.Profile, error) {
	if tool.Parse != nil {
		return tool.Parse(out, period)
	}
	f, err := files.Open(out, runfmt.MaxProfileDecodedBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseCollapsed(f, period)
}

// spyError explains why py-spy or rbspy failed from what it printed.
func spyError(name runfmt.Profiler, pid int, err error, out string) error {
	low := strings.ToLower(out)
	switch {
	case strings.Contains(low, "no such process") || strings.Contains(low, "no such file"):
		return fmt.Errorf("%s record: process %d not found (did it exit?): %w", name, pid, ErrProcessGone)
	case strings.Contains(low, "permission"):
		return fmt.Errorf("%s record: not permitted to read process %d: run as root or with CAP_SYS_PTRACE (%s): %w",
			name, pid, lastLines(out, 2), ErrNotPermitted)
	}
	return fmt.Errorf("%s record: %w: %s", name, err, lastLines(out, 4))
}

// watchWriter passes what is written to w and calls found, once, when
// needle has been written.
type watchWriter struct {
	w      io.Writer
	needle []byte
	found  func()
	seen   bool
	last   []byte // the end of what came before, for a needle cut in two
}

func (ww *watchWriter) Write(p []byte) (int, error) {
	if !ww.seen {
		buf := append(ww.last, p...)
		if bytes.Contains(buf, ww.needle) {
			ww.seen = true
			ww.found()
		}
		ww.last = append(ww.last[:0], buf[max(0, len(buf)-len(ww.needle)):]...)
	}
	return ww.w.Write(p)
}
