package capture

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
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

// SpyRecording is a py-spy recording of a Python process that runs until
// Stop, idle threads included: every thread's stack at every tick,
// whether it runs or waits (on a socket, a lock, a sleep). Its profile's
// "cpu" values are wall time.
type SpyRecording struct {
	cmd    *exec.Cmd
	dir    string
	out    string
	rate   int
	pid    int
	start  time.Time
	stderr *files.Tail
	done   chan error
}

// spyStartTimeout bounds how long py-spy may take to attach.
const spyStartTimeout = 10 * time.Second

// StartPySpyIdle starts py-spy on cfg.PID at cfg.Rate samples per second
// (0 means DefaultSpyHz) with --idle until Stop (cfg.Seconds is not
// used), and returns once it samples (it prints so), so a recording
// started before a load covers all of it. Files are named in full
// (--full-filenames): the standard library is told from the service's code
// by its path. With cfg.Subprocesses, the process's children are sampled
// too. cfg.OnStart, when set, is called with py-spy's process ID as soon
// as it runs, before it samples.
func StartPySpyIdle(ctx context.Context, cfg SpyConfig) (*SpyRecording, error) {
	pid, rate, children := cfg.PID, cfg.Rate, cfg.Subprocesses
	if pid <= 0 || rate < 0 {
		return nil, fmt.Errorf("py-spy record: pid %d, %d Hz: want a positive pid and a rate ≥ 0 (0 for %d)", pid, rate, DefaultSpyHz)
	}
	if rate == 0 {
		rate = DefaultSpyHz
	}
	bin, err := exec.LookPath(string(runfmt.ProfilerPySpy))
	if err != nil {
		return nil, fmt.Errorf("py-spy not found: pip install py-spy to get Python frames: %w", ErrToolMissing)
	}
	dir, err := files.TempDir("perflab-py-spy-idle-")
	if err != nil {
		return nil, fmt.Errorf("py-spy record: %w", err)
	}
	r := &SpyRecording{dir: dir, out: filepath.Join(dir, "stacks.txt"), rate: rate, pid: pid,
		stderr: files.NewTail(8 << 10), done: make(chan error, 1)}
	args := []string{"record", "--pid", strconv.Itoa(pid), "--rate", strconv.Itoa(rate),
		"--format", "raw", "--output", r.out, "--nonblocking", "--idle", "--full-filenames"}
	if children {
		args = append(args, "--subprocesses") // a pre-fork server's workers serve the requests
	}
	r.cmd = exec.Command(bin, args...)
	stdout, err := r.cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("py-spy record: %w", err)
	}
	r.cmd.Stderr = r.stderr
	if err := r.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("py-spy record: %w", err)
	}
	if cfg.OnStart != nil {
		cfg.OnStart(r.cmd.Process.Pid)
	}
	sampling := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(r.stderr, line)
			if strings.Contains(line, PySpySampling) {
				close(sampling)
				break
			}
		}
		_, _ = io.Copy(r.stderr, stdout) // py-spy's own messages, kept for errors
		r.done <- r.cmd.Wait()
	}()
	timer := time.NewTimer(spyStartTimeout)
	defer timer.Stop()
	select {
	case <-sampling:
		r.start = time.Now()
		return r, nil
	case err := <-r.done:
		os.RemoveAll(dir)
		if err == nil {
			err = errors.New("exited before sampling")
		}
		if out := r.stderr.String(); strings.Contains(out, "No python processes found") {
			return nil, fmt.Errorf("py-spy record: no Python process it may read in process %d or its children (not permitted: run as root or with CAP_SYS_PTRACE; or not Python): %w", pid, ErrNotPermitted)
		}
		return nil, spyError(runfmt.ProfilerPySpy, pid, err, r.stderr.String())
	case <-ctx.Done():
	case <-timer.C:
	}
	_ = r.cmd.Process.Kill() // gives up on a py-spy that did not start
	ended := <-r.done
	os.RemoveAll(dir)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("py-spy record: %w", ctx.Err())
	}
	return nil, fmt.Errorf("py-spy record: did not start sampling process %d within %s (then %v): %s", pid, spyStartTimeout, ended, lastLines(r.stderr.String(), 3))
}

// PID is the py-spy process's ID.
func (r *SpyRecording) PID() int { return r.cmd.Process.Pid }

// CPUUsed is what py-spy used of the CPU (user + system) over its life,
// known once Stop has returned; 0 before.
func (r *SpyRecording) CPUUsed() time.Duration {
	if st := r.cmd.ProcessState; st != nil {
		return st.UserTime() + st.SystemTime()
	}
	return 0
}

// Stop ends the recording (py-spy writes its stacks on SIGINT) and returns
// them as a profile of wall time, each sample worth 1/rate seconds.
func (r *SpyRecording) Stop() (*profile.Profile, error) {
	defer os.RemoveAll(r.dir)
	end := time.Now()
	_ = r.cmd.Process.Signal(syscall.SIGINT) // an exited py-spy has written what it has
	var err error
	select {
	case err = <-r.done:
	case <-time.After(30 * time.Second):
		_ = r.cmd.Process.Kill() // the wait below reports how it ended
		err = <-r.done
	}
	f, oerr := os.Open(r.out)
	if oerr != nil {
		if err == nil {
			err = oerr
		}
		return nil, spyError(runfmt.ProfilerPySpy, r.pid, err, r.stderr.String())
	}
	defer f.Close()
	p, perr := ParseCollapsed(f, int64(1e9)/int64(r.rate))
	if perr != nil {
		return nil, fmt.Errorf("py-spy record: %w", perr)
	}
	p.TimeNanos, p.DurationNanos = r.start.UnixNano(), end.Sub(r.start).Nanoseconds()
	return p, nil
}
