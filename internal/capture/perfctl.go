package capture

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// perfControl drives perf record's --control descriptors: perflab writes
// commands ("enable") on ctl, perf answers "ack" on ack.
type perfControl struct {
	ctlR, ctlW *os.File // perf reads ctlR
	ackR, ackW *os.File // perf writes ackW
}

func newPerfControl() (*perfControl, error) {
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	ackR, ackW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return nil, err
	}
	return &perfControl{ctlR: ctlR, ctlW: ctlW, ackR: ackR, ackW: ackW}, nil
}

// childFiles are perf's ends, as its descriptors 3 and 4 (none for a nil
// perfControl).
func (c *perfControl) childFiles() []*os.File {
	if c == nil {
		return nil
	}
	return []*os.File{c.ctlR, c.ackW}
}

// started closes perf's ends in perflab, so a perf that exits ends the
// ack read.
func (c *perfControl) started() {
	c.ctlR.Close()
	c.ackW.Close()
}

// enable asks perf to enable its events and calls attached once perf
// acknowledges; not at all if perf exits first.
func (c *perfControl) enable(attached func()) {
	if _, err := c.ctlW.WriteString("enable\n"); err != nil {
		return
	}
	line, err := bufio.NewReader(c.ackR).ReadString('\n')
	if err == nil && strings.TrimSpace(line) == "ack" {
		attached()
	}
}

func (c *perfControl) close() {
	for _, f := range []*os.File{c.ctlR, c.ctlW, c.ackR, c.ackW} {
		f.Close()
	}
}

// perfRun is how one perf record process runs: onStart gets its process
// ID once it runs; with ctl, its events are enabled as soon as it takes
// the command and attached is called then; stop, when closed, ends it with
// SIGINT (perf then writes what it recorded).
type perfRun struct {
	onStart  func(pid int)
	ctl      *perfControl
	attached func()
	stop     <-chan struct{}
}

// run starts cmd and waits for it. It returns whether stop ended it, its
// CPU time (user + system), and Wait's error (or Start's).
func (r perfRun) run(cmd *exec.Cmd) (stopped bool, cpu time.Duration, err error) {
	// The control descriptors come first, as 3 and 4; the output's
	// follows them (perfOutput.arg).
	cmd.ExtraFiles = append(r.ctl.childFiles(), cmd.ExtraFiles...)
	copyStderr, err := stderrToFile(cmd)
	if err != nil {
		return false, 0, err
	}
	defer copyStderr()
	diesWithPerflab(cmd, syscall.SIGTERM)
	runtime.LockOSThread() // until perf ends: see diesWithPerflab
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		return false, 0, err
	}
	if r.onStart != nil {
		r.onStart(cmd.Process.Pid)
	}
	if r.ctl != nil {
		r.ctl.started()
		go r.ctl.enable(r.attached)
	}
	var byStop atomic.Bool
	waited := make(chan struct{})
	if r.stop != nil {
		go func() {
			select {
			case <-r.stop:
				byStop.Store(true)
				_ = cmd.Process.Signal(syscall.SIGINT)
			case <-waited:
			}
		}()
	}
	err = cmd.Wait()
	close(waited)
	if st := cmd.ProcessState; st != nil {
		cpu = st.UserTime() + st.SystemTime()
	}
	return byStop.Load(), cpu, err
}

// maxPerfStderr is how much of the end of perf's messages is kept.
const maxPerfStderr = 1 << 20

// stderrToFile points cmd's stderr at an unlinked temporary file, and
// returns what copies the file's end into the writer it replaced once cmd
// has exited. perf must not write its messages into a pipe: the pipe's
// reader is perflab, and should perflab be killed, perf's next message
// kills perf with SIGPIPE before it stops its workload (sleep SECONDS),
// which then runs on. Writing to a file, perf outlives perflab only until
// its processes exit (a launched service dies with perflab) or its sleep
// ends, and stops its sleep itself. Nothing is left on disk: the file is
// unlinked while open.
func stderrToFile(cmd *exec.Cmd) (copyBack func(), err error) {
	w := cmd.Stderr
	if _, isFile := w.(*os.File); w == nil || isFile {
		return func() {}, nil
	}
	f, err := os.CreateTemp("", "perflab-perf-stderr-")
	if err != nil {
		return nil, fmt.Errorf("a file for perf's messages: %w", err)
	}
	_ = os.Remove(f.Name())
	cmd.Stderr = f
	return func() {
		defer f.Close()
		if end, err := f.Seek(0, io.SeekEnd); err == nil {
			if _, err := f.Seek(max(0, end-maxPerfStderr), io.SeekStart); err == nil {
				_, _ = io.Copy(w, f)
			}
		}
	}, nil
}
