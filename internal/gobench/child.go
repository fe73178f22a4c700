package gobench

import (
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// childOf makes cmd a child that never outlives perflab. It runs in a
// process group of its own, killed whole when cmd's context ends, so what
// a benchmark or the compiler started goes with it. Should perflab die
// first (kill -9 included, which no handler of perflab's sees), the
// kernel kills the child: Pdeathsig SIGKILL.
//
// Pdeathsig fires when the thread that forked the child exits, not the
// process. The Go runtime ends a thread only when a goroutine locked to it
// exits, but any code in perflab could do that; so run, which starts cmd
// and waits for it, is held on one OS thread until the child has been
// waited for. What the child itself started (a server a benchmark
// launched) is in its group but has no Pdeathsig: it is killed with the
// group while perflab lives, and is the benchmark's to stop otherwise.
func childOf(cmd *exec.Cmd, run func() error) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if cmd.Cancel == nil {
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	}
	cmd.WaitDelay = waitDelay
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return run()
}

// waitDelay is how long Wait waits, after the child was told to stop,
// for it to exit and for its output pipes to close, before it kills the
// child and closes them itself.
const waitDelay = 5 * time.Second

// killGroup kills what is left of cmd's process group once cmd was
// waited for (a process the child started and left behind).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
