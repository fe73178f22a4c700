package service

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// Stop ends a launched service: SIGTERM to its process group and to every
// process of the service, SIGKILL to whatever is left after grace, then it
// removes the cgroup (killing stragglers first) and closes the log. It runs
// once; later calls return the first result. For an attached process Stop
// only stops watching it, and moves it back out of its budget group
// (AttachBudget): perflab never kills a process it did not start.
func (p *Process) Stop(grace time.Duration) error {
	if !p.launched {
		p.stopOnce.Do(func() {
			close(p.unwatch)
			if p.moved != nil {
				p.stopErr = p.moved.restore()
			}
		})
		return p.stopErr
	}
	p.stopOnce.Do(func() { p.stopErr = p.stop(grace) })
	return p.stopErr
}

func (p *Process) stop(grace time.Duration) error {
	var errs []error
	p.closeGate()
	pids := p.PIDs()
	p.signal(unix.SIGTERM, pids)
	if !p.waitGone(pids, grace, p.hurry) {
		pids = append(pids, p.PIDs()...)
		p.signal(unix.SIGKILL, pids)
		if !p.waitGone(pids, 5*time.Second, nil) {
			errs = append(errs, fmt.Errorf("stopping the service: pid %d survives SIGKILL", p.pid))
		}
	}
	if err := p.grp.remove(); err != nil {
		errs = append(errs, fmt.Errorf("stopping the service: %w", err))
	}
	if err := p.closeLog(); err != nil {
		errs = append(errs, fmt.Errorf("stopping the service: %w", err))
	}
	return errors.Join(errs...)
}

// signal sends sig to the process group (whose id is the main pid) and to
// each of pids, which may have left the group.
func (p *Process) signal(sig unix.Signal, pids []int) {
	select {
	case <-p.exited:
	default:
		_ = unix.Kill(-p.pid, sig)
	}
	for _, pid := range pids {
		if pid != p.pid {
			_ = unix.Kill(pid, sig)
		}
	}
	_ = p.grp.signal(sig)
}

// waitGone waits up to d for the main process to exit and every other
// process of the service to be gone; closing hurry ends the wait.
func (p *Process) waitGone(pids []int, d time.Duration, hurry <-chan struct{}) bool {
	deadline := time.Now().Add(d)
	for {
		if p.gone(pids) {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		select {
		case <-hurry:
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (p *Process) gone(pids []int) bool {
	select {
	case <-p.exited:
	default:
		return false
	}
	if p.grp != nil {
		var r fileReader
		left, err := p.grp.pids(&r, nil)
		return err != nil || len(left) == 0
	}
	var r fileReader
	var path []byte
	for _, pid := range pids {
		if pid != p.pid && !exitedPID(&r, &path, pid) {
			return false
		}
	}
	return true
}

// exitedPID says whether pid is gone or a zombie (dead, waiting for a
// parent outside perflab to reap it).
func exitedPID(r *fileReader, path *[]byte, pid int) bool {
	*path = statPath(*path, pid)
	b, err := r.read(string(*path))
	if err != nil {
		return true
	}
	s, err := parseProcStat(b)
	return err == nil && (s.State == 'Z' || s.State == 'X')
}

// closeLog waits for the output pipe to drain, then closes the log. A
// process that escaped the group may hold the pipe open forever: after a
// second the pipe is closed, but not while it still holds output the
// copier has yet to read (a perflab starved of CPU reads late), for up to
// logDrainMax.
func (p *Process) closeLog() error {
	select {
	case <-p.logDone:
	case <-p.hurry:
	case <-time.After(time.Second):
		for deadline := time.Now().Add(logDrainMax); !pipeEmpty(p.logPipe) && time.Now().Before(deadline); {
			select {
			case <-p.hurry:
				deadline = time.Now()
			case <-p.logDone:
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	p.logPipe.Close()
	<-p.logDone
	return p.log.close()
}

// logDrainMax bounds the wait for the copier to read what the output pipe
// still holds once the service is stopped.
const logDrainMax = 10 * time.Second
