package service

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// LaunchConfig describes the service to launch.
type LaunchConfig struct {
	// Command is the program and its arguments; the program is looked up
	// in $PATH unless it holds a slash (then relative to Dir).
	Command []string
	// Env holds extra KEY=VALUE settings appended to perflab's environment.
	Env []string
	// Dir is the working directory; empty means perflab's.
	Dir string
	// Budget is the CPU and memory the service may use.
	Budget Budget
	// LogPath receives the service's stdout and stderr, bounded by
	// LogLimit (DefaultLogLimit when 0); empty keeps the output in memory
	// only (see LogTail).
	LogPath  string
	LogLimit int64
	// OnLine, if set, is called with each line the service writes to
	// stdout or stderr (without the newline; lines beyond 4KiB cut), in
	// order, from one goroutine. It must return quickly: the service blocks
	// on a full pipe while it runs.
	OnLine func(line string)
	// LineMatch, when set, limits OnLine to the lines containing it; the
	// drain then does no per-line work for the others (a service may write
	// hundreds of megabytes a second).
	LineMatch string
	// HideLine, if set, leaves the lines it accepts out of LogTail: output
	// perflab asked for (the GC trace) is not the service's own words.
	HideLine func(line string) bool
	// Name suffixes the cgroup's name (perflab-NAME-PID-RAND); it defaults
	// to the program's base name.
	Name string
	// Hold starts the process without running the command: it waits,
	// in its group, with its pid, until Process.Release.
	Hold bool
	// Hurry, when closed, tells Stop not to wait: the service gets
	// SIGKILL at once instead of after the grace period (a second Ctrl-C).
	Hurry <-chan struct{}
}

// gateScript holds the service until perflab has moved the shell into the
// cgroup (v1 has no way to fork straight into a group): it waits for a line
// on fd 3, then execs the service in place, so the pid and the process group
// are the service's and everything it forks is in the group. EOF on fd 3
// (perflab gave up) ends it without running the service.
const gateScript = `read _ <&3 && exec "$@" 3<&-`

// Launch starts the service in its own process group and, where the host
// allows, its own cgroup with the budget. Problems that leave the service
// running unconfined are reported by Warnings; Launch fails only when the
// service cannot be started. ctx bounds the start only: the service runs
// until Stop.
func Launch(ctx context.Context, cfg LaunchConfig) (*Process, error) {
	return launch(ctx, cfg, detectLayout())
}

func launch(ctx context.Context, cfg LaunchConfig, l layout) (*Process, error) {
	if len(cfg.Command) == 0 || cfg.Command[0] == "" {
		return nil, errors.New("launching the service: no command given (put it after --)")
	}
	if err := cfg.Budget.Validate(); err != nil {
		return nil, err
	}
	path, err := resolve(cfg.Command[0], cfg.Dir)
	if err != nil {
		return nil, err
	}
	log, err := newLogSink(cfg.LogPath, cfg.LogLimit)
	if err != nil {
		return nil, err
	}
	log.onLine, log.hide = cfg.OnLine, cfg.HideLine
	if cfg.LineMatch != "" {
		log.match = []byte(cfg.LineMatch)
	}
	p := &Process{launched: true, log: log, exited: make(chan struct{}), logDone: make(chan struct{}), hurry: cfg.Hurry}
	p.grp, p.warnings = makeGroup(l, cfg)
	if err := p.start(ctx, cfg, path); err != nil {
		_ = p.grp.remove()
		_ = log.close()
		return nil, err
	}
	return p, nil
}

// resolve finds the program like a shell would, naming it in the error.
func resolve(prog, dir string) (string, error) {
	abs, err := FindProgram(prog, dir)
	if err != nil {
		return "", fmt.Errorf("launching %w", err)
	}
	return abs, nil
}

// FindProgram finds a command's program like a shell would (a path,
// relative to dir when given, or a name in $PATH) and returns its absolute
// path. Its error quotes the program and says what to do: build it, give
// its path, make it executable.
func FindProgram(prog, dir string) (string, error) {
	if !strings.Contains(prog, "/") {
		abs, err := exec.LookPath(prog)
		if err == nil {
			return abs, nil
		}
		if st, serr := os.Stat(filepath.Join(dir, prog)); serr == nil && st.Mode().IsRegular() {
			return "", fmt.Errorf("%q: command not found in $PATH; the file here is ./%s: give that", prog, prog)
		}
		return "", fmt.Errorf("%q: command not found in $PATH: give its path (./%s) or install it", prog, prog)
	}
	path := prog
	if !filepath.IsAbs(path) && dir != "" {
		path = filepath.Join(dir, path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("%q: %w", prog, err)
	}
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%q: %w: build it first, or give the program's path", prog, unwrapPathErr(err))
	case err != nil:
		return "", fmt.Errorf("%q: %w", prog, unwrapPathErr(err))
	case st.IsDir():
		return "", fmt.Errorf("%q: a directory, not a program", prog)
	}
	if _, err := exec.LookPath(abs); err != nil {
		return "", fmt.Errorf("%q: not executable: chmod +x it, or give its interpreter first (sh %s, python3 %s)", prog, prog, prog)
	}
	return abs, nil
}

// makeGroup creates the cgroup or explains, once, why there is none.
func makeGroup(l layout, cfg LaunchConfig) (*group, []string) {
	unenforced := "measuring through /proc"
	if quota := (Budget{CPUs: cfg.Budget.CPUs, MemoryBytes: cfg.Budget.MemoryBytes}); !quota.none() {
		unenforced += "; the budget (" + quota.String() + ") is not enforced"
	}
	if len(cfg.Budget.CPUSet) > 0 {
		unenforced += "; --service-cpus " + cfg.Budget.CPUSet.String() + " is applied as the service's CPU affinity only"
	}
	if l.none() {
		return nil, []string{"no cgroup hierarchy is mounted: " + unenforced}
	}
	g, warns, err := createGroup(l, groupName(cfg), cfg.Budget)
	switch {
	case err != nil && isPermission(err):
		return nil, []string{"no permission to create cgroups (" + err.Error() + "): " + unenforced}
	case err != nil:
		return nil, []string{"cannot create a cgroup (" + err.Error() + "): " + unenforced}
	}
	return g, warns
}

// groupName is perflab-NAME-PID-RAND, NAME restricted to [A-Za-z0-9_.-].
func groupName(cfg LaunchConfig) string {
	name := cfg.Name
	if name == "" {
		name = filepath.Base(cfg.Command[0])
	}
	clean := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-' {
			return r
		}
		return '_'
	}, name)
	if len(clean) > 40 {
		clean = clean[:40]
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("perflab-%s-%d-%s", clean, os.Getpid(), hex.EncodeToString(b[:]))
}

// start runs the command inside the group: CLONE_INTO_CGROUP on v2, the
// shell gate on v1 (and on v2 kernels without clone3).
func (p *Process) start(ctx context.Context, cfg LaunchConfig, path string) error {
	pr, pw, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("launching %q: %w", cfg.Command[0], err)
	}
	pipeSize := growPipe(pw)
	p.logPipe = pr
	defer pw.Close()
	cmd := p.command(cfg, path, pw)
	cpus := cfg.Budget.CPUSet
	switch {
	case cfg.Hold:
		err = startPinned(cpus, func() error { return p.startHeld(cmd) })
	case p.grp != nil && p.grp.version == 2:
		err = startPinned(cpus, func() error { return p.startInto(cmd) })
		if err != nil && !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.EACCES) {
			cmd = p.command(cfg, path, pw)
			err = startPinned(cpus, func() error { return p.startGated(cmd) })
		}
	case p.grp != nil:
		err = startPinned(cpus, func() error { return p.startGated(cmd) })
	default:
		err = startPinned(cpus, cmd.Start)
	}
	if err != nil {
		pr.Close()
		return fmt.Errorf("launching %q: %w", cfg.Command[0], err)
	}
	p.cmd, p.pid = cmd, cmd.Process.Pid
	go p.copyLog(pipeSize)
	go func() { p.setExit(cmd.Process.Wait()) }()
	if ctx.Err() != nil {
		_ = p.Stop(0)
		return fmt.Errorf("launching %q: %w", cfg.Command[0], ctx.Err())
	}
	return nil
}

// command builds the process: own process group (Stop signals all of it),
// output to the log pipe, and SIGKILL should perflab die without stopping
// it. Pdeathsig fires when the forking OS thread exits; Go keeps its threads
// unless a goroutine exits while locked to one, which perflab never does.
func (p *Process) command(cfg LaunchConfig, path string, out *os.File) *exec.Cmd {
	cmd := exec.Command(path, cfg.Command[1:]...)
	cmd.Args[0] = cfg.Command[0]
	cmd.Env = append(os.Environ(), cfg.Env...)
	cmd.Dir = cfg.Dir
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return cmd
}

// startInto forks straight into the v2 group.
func (p *Process) startInto(cmd *exec.Cmd) error {
	fd, err := unix.Open(p.grp.dirs[0], unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, fd
	return cmd.Start()
}

// startGated starts the gate shell, moves it into the group, then lets it
// exec the service (whose argv[0] is then its path: sh's exec cannot set it).
func (p *Process) startGated(cmd *exec.Cmd) error {
	gw, err := p.startGate(cmd)
	if err != nil {
		return err
	}
	defer gw.Close()
	_, err = io.WriteString(gw, "go\n")
	return err
}

// logReadSize is the drain's read size and the pipe size it asks for.
const logReadSize = 1 << 20

// drainPause is how long the drain waits after a read that found less than
// half the pipe: a service writing many small pieces would otherwise wake it
// for each (a wake-up costs more CPU than copying 100 KB on a small VM).
// A 1 MiB pipe holds what a service writes meanwhile up to 500 MB/s, so the
// service does not wait for the drain.
const drainPause = 2 * time.Millisecond

// growPipe asks for a logReadSize pipe buffer (the default is 64 KiB;
// 1 MiB is /proc/sys/fs/pipe-max-size's default) and returns the size it
// has, so a service writing in bursts does not wait for perflab's drain
// to be scheduled. Failing that, the default pipe still works.
func growPipe(f *os.File) int {
	size := 64 << 10
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) {
			if n, err := unix.FcntlInt(fd, unix.F_SETPIPE_SZ, logReadSize); err == nil {
				size = n
			}
		})
	}
	return size
}

// copyLog moves the service's output into the log until every writer
// (the service and its children) has closed it. After a read that found
// less than half the pipe it pauses (when the pipe is large
// enough to hold what arrives meanwhile), so the service's small writes
// are drained in batches.
func (p *Process) copyLog(pipeSize int) {
	defer close(p.logDone)
	buf := make([]byte, logReadSize)
	for {
		n, err := p.logPipe.Read(buf)
		if n > 0 {
			_, _ = p.log.Write(buf[:n])
		}
		if err != nil {
			return
		}
		if pipeSize >= logReadSize && n < pipeSize/2 {
			time.Sleep(drainPause)
		}
	}
}
