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
	"strconv"
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
// the README's performance section.
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

// PySpy samples a Python process (and with Subprocesses its descendants)
// with py-spy, without pausing it (--nonblocking), and returns a CPU
// profile of its Python stacks with full file names, so the standard
// library and installed packages can be told from the application.
func PySpy(ctx context.Context, cfg SpyConfig) (*profile.Profile, error) {
	return spyRecord(ctx, spyTool{
		name: runfmt.ProfilerPySpy, install: "pip install py-spy", lang: "Python", sampling: pySpySampling,
		args: func(pid, secs, rate int, out string) []string {
			args := []string{"record", "--pid", strconv.Itoa(pid), "--duration", strconv.Itoa(secs),
				"--rate", strconv.Itoa(rate), "--format", "raw", "--output", out, "--nonblocking", "--full-filenames"}
			if cfg.Subprocesses {
				args = append(args, "--subprocesses")
			}
			return args
		},
	}, cfg)
}

// RbSpy samples a Ruby process (and with Subprocesses its descendants)
// with rbspy, without pausing it, and returns a CPU profile of its Ruby
// stacks on CPU (--on-cpu: a worker waiting for a request is not working),
// read from rbspy's raw recording so that samples keep their pid.
func RbSpy(ctx context.Context, cfg SpyConfig) (*profile.Profile, error) {
	return spyRecord(ctx, spyTool{
		name: runfmt.ProfilerRbSpy, install: "cargo install rbspy", lang: "Ruby",
		args: func(pid, secs, rate int, out string) []string {
			args := []string{"record", "--pid", strconv.Itoa(pid), "--duration", strconv.Itoa(secs),
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
		parse: func(out string, period int64) (*profile.Profile, error) {
			f, err := os.Open(out + ".raw.gz")
			if err != nil {
				return nil, err
			}
			defer f.Close()
			return ParseRbspyRaw(f, period)
		},
	}, cfg)
}

// spyTool describes a sampling profiler that writes collapsed stacks.
type spyTool struct {
	name          runfmt.Profiler // also its binary's name
	install, lang string
	sampling      string // what it prints once it samples, if anything
	args          func(pid, seconds, rate int, out string) []string
	// parse reads the recording; nil reads out as collapsed stacks.
	parse func(out string, periodNanos int64) (*profile.Profile, error)
}

func spyRecord(ctx context.Context, tool spyTool, cfg SpyConfig) (*profile.Profile, error) {
	pid, seconds, rate := cfg.PID, cfg.Seconds, cfg.Rate
	if pid <= 0 || seconds <= 0 || rate < 0 {
		return nil, fmt.Errorf("%s record: pid %d, %gs, %d Hz: want a positive pid and duration, and a rate ≥ 0 (0 for %d)", tool.name, pid, seconds, rate, DefaultSpyHz)
	}
	if rate == 0 {
		rate = DefaultSpyHz
	}
	bin, err := exec.LookPath(string(tool.name))
	if err != nil {
		return nil, fmt.Errorf("%s not found: %s to get %s frames: %w", tool.name, tool.install, tool.lang, ErrToolMissing)
	}
	dir, err := os.MkdirTemp("", "perflab-"+string(tool.name)+"-")
	if err != nil {
		return nil, fmt.Errorf("%s record: %w", tool.name, err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "stacks.txt")
	secs := int(math.Ceil(seconds))
	start := time.Now()
	// The recording may take its duration plus perfStartTimeout, whatever
	// the profiler does.
	limit := time.Duration(secs)*time.Second + perfStartTimeout
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(rctx, bin, tool.args(pid, secs, rate, out)...)
	// Cancelled, the profiler gets SIGINT, as from Ctrl-C: it stops and
	// writes what it sampled, which is kept.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = 5 * time.Second
	stderr := &tailBuffer{max: 8 << 10}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if cfg.OnSampling != nil && tool.sampling != "" {
		cmd.Stdout = &watchWriter{w: stderr, needle: []byte(tool.sampling), found: cfg.OnSampling}
	}
	runErr := cmd.Start()
	if runErr == nil {
		if cfg.OnStart != nil {
			cfg.OnStart(cmd.Process.Pid)
		}
		runErr = cmd.Wait()
	}
	if cfg.CPUUsed != nil && cmd.ProcessState != nil {
		*cfg.CPUUsed = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	p, perr := tool.read(out, int64(1e9)/int64(rate))
	if perr == nil {
		DropWaits(p, newSourceLines().line) // waiting threads sampled as working (spywaits.go)
	}
	switch {
	case perr == nil && (runErr == nil || ctx.Err() != nil || len(p.Sample) > 0):
		// A recording stopped early, or whose process exited during it,
		// keeps what it sampled.
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%s record: %w", tool.name, ctx.Err())
	case rctx.Err() != nil:
		return nil, fmt.Errorf("%s record: did not finish within %s: %w", tool.name, limit, ErrTimeout)
	case runErr != nil:
		return nil, spyError(tool.name, pid, runErr, stderr.String())
	case errors.Is(perr, os.ErrNotExist):
		return nil, fmt.Errorf("%s record: %w: %s", tool.name, errEmptyCollapsed, lastLines(stderr.String(), 3))
	default:
		return nil, fmt.Errorf("%s record: %w", tool.name, perr)
	}
	p.TimeNanos = start.UnixNano()
	p.DurationNanos = min(int64(secs)*1e9, time.Since(start).Nanoseconds())
	return p, nil
}

// read parses the recording written to out.
func (tool spyTool) read(out string, period int64) (*profile.Profile, error) {
	if tool.parse != nil {
		return tool.parse(out, period)
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

// pySpySampling is what py-spy prints once it samples.
const pySpySampling = "Sampling process"

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
