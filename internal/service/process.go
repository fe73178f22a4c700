package service

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Process is the service under test: launched by perflab (and then owned,
// budgeted and stopped by it) or attached to (and then only watched).
type Process struct {
	pid      int
	launched bool
	cmd      *exec.Cmd
	grp      *group
	warnings []string
	log      *logSink
	logDone  chan struct{}
	logPipe  *os.File
	hurry    <-chan struct{} // LaunchConfig.Hurry

	exited chan struct{}
	mu     sync.Mutex
	exit   error
	code   *int
	// gate holds a LaunchConfig.Hold process until Release; usage is
	// what the process used, once it exited.
	gate    *os.File
	usage   Usage
	usageOK bool

	stopOnce sync.Once
	stopErr  error
	// unwatch stops the watcher of an attached process.
	unwatch chan struct{}
	// moved is the budget group an attached process was moved into
	// (AttachBudget), which Stop moves it back out of.
	moved  *movedGroup
	walker procWalker
}

// PID is the main process's pid.
func (p *Process) PID() int { return p.pid }

// PIDs lists every process of the service now: the cgroup's processes, or
// the main process and its descendants.
func (p *Process) PIDs() []int {
	if p.grp != nil {
		var r fileReader
		if pids, err := p.grp.pids(&r, nil); err == nil {
			return pids
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.walker.tree(p.pid, nil)
}

// Exited is closed when the main process exits (launched) or disappears
// (attached).
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitErr says how the main process exited once Exited is closed: nil for
// exit status 0, "exit status 2", "killed by signal 9 (killed)", or an
// *OOMError when the kernel's OOM killer killed it at its memory budget.
// It is nil while the process runs.
func (p *Process) ExitErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit
}

// ExitCode is the exit status of a launched process that exited (128+N when
// killed by signal N), nil while it runs and for attached processes.
func (p *Process) ExitCode() *int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.code
}

// LogTail returns the last n lines (at most 200) the launched service wrote
// to stdout and stderr, without the lines LaunchConfig.HideLine leaves out.
// Once the service has exited it first waits, up to a second, until what
// the service wrote before it exited has been drained from the pipe, so a
// crash is quoted in the service's own last words.
func (p *Process) LogTail(n int) []string {
	if p.log == nil {
		return nil
	}
	p.syncLog()
	return p.log.tail(n)
}

// syncLog waits until the pipe's content is in the log, if the service has
// exited: until every writer closed the pipe, or, when a process that
// escaped the group holds it open, until it stays empty.
func (p *Process) syncLog() {
	select {
	case <-p.exited:
	default:
		return
	}
	select {
	case <-p.logDone:
		return
	case <-time.After(100 * time.Millisecond):
	}
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
		before := p.log.written()
		time.Sleep(20 * time.Millisecond)
		if pipeEmpty(p.logPipe) && p.log.written() == before {
			return
		}
	}
}

// pipeEmpty says whether the pipe holds no unread byte (or is closed):
// TIOCINQ is FIONREAD, which pipes answer too.
func pipeEmpty(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return true
	}
	n := 0
	if err := rc.Control(func(fd uintptr) { n, err = unix.IoctlGetInt(int(fd), unix.TIOCINQ) }); err != nil {
		return true
	}
	return err != nil || n == 0
}

// LogWritten is how many bytes the launched service has written to stdout
// and stderr.
func (p *Process) LogWritten() int64 {
	if p.log == nil {
		return 0
	}
	return p.log.written()
}

// Source says where CPU is read: "cgroup-v1", "cgroup-v2" or "proc".
func (p *Process) Source() string {
	if p.grp != nil && p.grp.hasCPU() {
		return p.grp.source()
	}
	return "proc"
}

// Warnings are problems that did not stop the launch, such as a budget that
// is not enforced, in the words shown to the user.
func (p *Process) Warnings() []string { return append([]string(nil), p.warnings...) }

// CPULimitCores is the CPU quota of the service's cgroup in cores (0: none).
func (p *Process) CPULimitCores() float64 {
	if p.grp == nil {
		return 0
	}
	return p.grp.cpuLimit()
}

// MemoryLimitBytes is the memory limit of the service's cgroup (0: none).
func (p *Process) MemoryLimitBytes() int64 {
	if p.grp == nil {
		return 0
	}
	return p.grp.memLimit()
}

// setExit records how the launched process ended and closes Exited.
func (p *Process) setExit(ps *os.ProcessState, err error) {
	p.mu.Lock()
	if ps != nil {
		ws, _ := ps.Sys().(syscall.WaitStatus)
		code := ws.ExitStatus()
		switch {
		case ws.Signaled():
			code = 128 + int(ws.Signal())
			p.exit = fmt.Errorf("killed by signal %d (%v)", int(ws.Signal()), ws.Signal())
			if ws.Signal() == syscall.SIGKILL {
				if oom := p.oomError(); oom != nil {
					p.exit = oom
				}
			}
		case code != 0:
			p.exit = fmt.Errorf("exit status %d", code)
		}
		p.code = &code
		p.usage, p.usageOK = usageOf(ps), true
	} else if err != nil {
		p.exit = fmt.Errorf("waiting for the service: %w", err)
	}
	p.mu.Unlock()
	close(p.exited)
}
