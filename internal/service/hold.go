package service

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// startHeld starts the gate shell (see gateScript), moves it into the group
// when there is one, and keeps the gate closed until Release: the process
// exists, with its final pid, group and budget, before the command runs, so
// that whoever measures it from the kernel (perf, eBPF) can attach first.
func (p *Process) startHeld(cmd *exec.Cmd) error {
	gw, err := p.startGate(cmd)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.gate = gw
	p.mu.Unlock()
	return nil
}

// startGate starts cmd as the gate shell (see gateScript) and moves it into
// the group when there is one; the command runs once "go" is written to
// the gate it returns, and never if the gate is closed first.
func (p *Process) startGate(cmd *exec.Cmd) (*os.File, error) {
	gr, gw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Args = append([]string{"sh", "-c", gateScript, "perflab-gate", cmd.Path}, cmd.Args[1:]...)
	cmd.Path = "/bin/sh"
	cmd.ExtraFiles = []*os.File{gr}
	err = cmd.Start()
	gr.Close()
	if err != nil {
		gw.Close()
		return nil, err
	}
	if p.grp != nil {
		if err := p.grp.addPID(cmd.Process.Pid); err != nil {
			gw.Close()
			_ = cmd.Process.Kill()
			_, _ = cmd.Process.Wait()
			return nil, fmt.Errorf("moving the service into its cgroup: %w", err)
		}
	}
	return gw, nil
}

// Release runs the command of a process launched with LaunchConfig.Hold;
// it does nothing for other processes, or after the first call.
func (p *Process) Release() error {
	gw := p.takeGate()
	if gw == nil {
		return nil
	}
	defer gw.Close()
	if _, err := io.WriteString(gw, "go\n"); err != nil {
		return errors.New("starting the command: its gate closed before it ran (did it exit?)")
	}
	return nil
}

// closeGate ends a gate never released: the shell exits without running
// the command.
func (p *Process) closeGate() {
	if gw := p.takeGate(); gw != nil {
		gw.Close()
	}
}

func (p *Process) takeGate() *os.File {
	p.mu.Lock()
	defer p.mu.Unlock()
	gw := p.gate
	p.gate = nil
	return gw
}

// Usage is the CPU a launched process used over its life, as the kernel
// counted it when it exited (getrusage of wait4: the process and the
// children it waited for). Its ru_maxrss is left out: Go starts a child
// with perflab's own memory until the exec, and the kernel keeps that
// peak (see PeakRSS).
type Usage struct {
	User, System time.Duration
}

// Usage returns what the launched process used, once it has exited; false
// while it runs and for an attached process.
func (p *Process) Usage() (Usage, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.usage, p.usageOK
}

func usageOf(ps *os.ProcessState) Usage {
	return Usage{User: ps.UserTime(), System: ps.SystemTime()}
}
