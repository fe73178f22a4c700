package capture

import (
	"context"
	"errors"
	"fmt"
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

// PySpyRecord samples a Python process with py-spy for seconds (rounded up
// to whole seconds, as py-spy takes them) at rate samples per second (0
// means 100), without pausing it (--nonblocking), and returns a CPU profile
// of its Python stacks (see ParseCollapsed).
func PySpyRecord(ctx context.Context, pid int, seconds float64, rate int) (*profile.Profile, error) {
	return spyRecord(ctx, spyTool{
		name: "py-spy", install: "pip install py-spy", lang: "Python",
		args: func(pid, secs, rate int, out string) []string {
			return []string{"record", "--pid", strconv.Itoa(pid), "--duration", strconv.Itoa(secs),
				"--rate", strconv.Itoa(rate), "--format", "raw", "--output", out, "--nonblocking"}
		},
	}, pid, seconds, rate)
}

// RbSpyRecord samples a Ruby process with rbspy for seconds (rounded up)
// at rate samples per second (0 means 100), without pausing it, and
// returns a CPU profile of its Ruby stacks (see ParseCollapsed).
func RbSpyRecord(ctx context.Context, pid int, seconds float64, rate int) (*profile.Profile, error) {
	return spyRecord(ctx, spyTool{
		name: "rbspy", install: "cargo install rbspy", lang: "Ruby",
		args: func(pid, secs, rate int, out string) []string {
			return []string{"record", "--pid", strconv.Itoa(pid), "--duration", strconv.Itoa(secs),
				"--rate", strconv.Itoa(rate), "--format", "collapsed", "--file", out, "--nonblocking", "--silent",
				// beside out, in the temporary directory: by default rbspy
				// keeps a copy of every recording in ~/.cache/rbspy.
				"--raw-file", out + ".raw.gz"}
		},
	}, pid, seconds, rate)
}

// spyTool describes a sampling profiler that writes collapsed stacks.
type spyTool struct {
	name, install, lang string
	args                func(pid, seconds, rate int, out string) []string
}

func spyRecord(ctx context.Context, tool spyTool, pid int, seconds float64, rate int) (*profile.Profile, error) {
	if pid <= 0 || seconds <= 0 || rate < 0 {
		return nil, fmt.Errorf("%s record: pid %d, %gs, %d Hz: want a positive pid and duration, and a rate ≥ 0 (0 for 100)", tool.name, pid, seconds, rate)
	}
	if rate == 0 {
		rate = 100
	}
	bin, err := exec.LookPath(tool.name)
	if err != nil {
		return nil, fmt.Errorf("%s not found: %s to get %s frames: %w", tool.name, tool.install, tool.lang, ErrToolMissing)
	}
	dir, err := os.MkdirTemp("", "perflab-"+tool.name+"-")
	if err != nil {
		return nil, fmt.Errorf("%s record: %w", tool.name, err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "stacks.txt")
	secs := int(math.Ceil(seconds))
	start := time.Now()
	limit := time.Duration(secs)*time.Second + perfStartTimeout
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(rctx, bin, tool.args(pid, secs, rate, out)...)
	// Like Ctrl-C: both tools stop sampling and write what they have.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = 5 * time.Second
	stderr := &tailBuffer{max: 8 << 10}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		if st, serr := os.Stat(out); serr != nil || st.Size() == 0 {
			return nil, fmt.Errorf("%s record: %w", tool.name, ctx.Err())
		}
		// interrupted: parse the stacks written so far
	case rctx.Err() != nil:
		return nil, fmt.Errorf("%s record: did not finish within %s: %w", tool.name, limit, ErrTimeout)
	case err != nil:
		return nil, spyError(tool.name, pid, err, stderr.String())
	}
	f, err := files.Open(out, runfmt.MaxProfileDecodedBytes)
	if err != nil {
		return nil, fmt.Errorf("%s record: %w: %s", tool.name, errEmptyCollapsed, lastLines(stderr.String(), 3))
	}
	defer f.Close()
	p, err := ParseCollapsed(f, int64(1e9)/int64(rate))
	if err != nil {
		return nil, fmt.Errorf("%s record: %w", tool.name, err)
	}
	p.TimeNanos = start.UnixNano()
	p.DurationNanos = min(int64(secs)*1e9, time.Since(start).Nanoseconds())
	return p, nil
}

// spyError explains why py-spy or rbspy failed from what it printed.
func spyError(name string, pid int, err error, out string) error {
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
