package service

import (
	"bufio"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

func TestAttachMissing(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid // reaped: no such process now (barring pid reuse)
	_, err := Attach(pid)
	if err == nil || !strings.Contains(err.Error(), "no such process") {
		t.Errorf("Attach(%d) = %v; want no such process", pid, err)
	}
	if _, err := Attach(-3); err == nil || !strings.Contains(err.Error(), "want a pid > 0") {
		t.Errorf("Attach(-3) = %v", err)
	}
}

// TestAttachExits attaches to a shell with a child, samples it through
// /proc, and sees it exit once the test ends it (its input closes).
func TestAttachExits(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & read _; kill $!")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	defer stdin.Close()
	p, err := Attach(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if p.Source() != "proc" {
		t.Errorf("Source = %s; a child of the test shares its cgroup, want proc", p.Source())
	}
	var pids []int
	// The shell forks its child.
	if !labtest.Until(10*time.Second, func() bool { pids = p.PIDs(); return len(pids) >= 2 }) {
		t.Errorf("PIDs = %v; want the shell and its children", pids)
	}
	s := NewSampler(p, 50*time.Millisecond)
	done := make(chan struct{})
	go func() { s.Run(t.Context()); close(done) }()
	labtest.Until(10*time.Second, func() bool { return len(s.Samples()) >= 5 })
	stdin.Close() // the shell reads EOF, kills its child and exits
	select {
	case <-p.Exited():
	case <-time.After(5 * time.Second):
		t.Fatal("Exited not closed after the attached process ended")
	}
	<-done
	if n := len(s.Samples()); n < 5 {
		t.Errorf("%d samples; want 5 or more", n)
	}
	if err := p.ExitErr(); err == nil || !strings.Contains(err.Error(), "exited") {
		t.Errorf("ExitErr = %v", err)
	}
	if len(p.LogTail(5)) != 0 {
		t.Error("LogTail of an attached process: want nothing")
	}
}

// TestAttachStopDoesNotKill checks Stop leaves an attached process alone:
// cat still echoes a line written after Stop returned. A signal sent by
// Stop would end cat before it reads that line.
func TestAttachStopDoesNotKill(t *testing.T) {
	cmd := exec.Command("cat")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	p, err := Attach(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(0); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(stdin, "alive\n"); err != nil {
		t.Fatalf("writing to cat after Stop: %v", err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); line != "alive\n" {
		t.Errorf("cat after Stop answered %q, %v: Stop ended an attached process", line, err)
	}
}

// TestAttachOwnCgroup attaches to a service perflab launched in its own
// cgroup: the attachment reads the cgroup, not /proc.
func TestAttachOwnCgroup(t *testing.T) {
	cmd, env := niceCmd(t, "burn", "1")
	l := launchT(t, LaunchConfig{Command: cmd, Env: env, Budget: Budget{CPUs: 0.5}, Name: "attach"})
	needCgroup(t, l)
	p, err := Attach(l.PID())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(0)
	if p.Source() != l.Source() || p.CPULimitCores() != 0.5 {
		t.Errorf("attached: Source %s, limit %v; want %s and 0.5", p.Source(), p.CPULimitCores(), l.Source())
	}
	throttled := func(w runfmt.TargetSummary) bool {
		return w.CPUCoresMean >= 0.4 && w.CPUCoresMean <= 0.6 && w.ThrottledPct >= 50
	}
	if w := cleanWindow(t, p, 2500*time.Millisecond, throttled); !throttled(w) {
		t.Errorf("attached window = %+v; want about 0.5 cores, throttled", w)
	}
}
