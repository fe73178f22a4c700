package target

import (
	"os/exec"
	"strings"
	"testing"
	"time"

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
	pids := p.PIDs()
	for deadline := time.Now().Add(10 * time.Second); len(pids) < 2 && time.Now().Before(deadline); pids = p.PIDs() {
		time.Sleep(10 * time.Millisecond) // the shell forks its child
	}
	if len(pids) < 2 {
		t.Errorf("PIDs = %v; want the shell and its children", pids)
	}
	s := NewSampler(p, 50*time.Millisecond)
	done := make(chan struct{})
	go func() { s.Run(t.Context()); close(done) }()
	for deadline := time.Now().Add(10 * time.Second); len(s.Samples()) < 5 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
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

// TestAttachStopDoesNotKill checks Stop leaves an attached process alone.
func TestAttachStopDoesNotKill(t *testing.T) {
	cmd := exec.Command("sleep", "30")
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
	time.Sleep(50 * time.Millisecond)
	if !pidAlive(cmd.Process.Pid) {
		t.Error("Stop killed an attached process")
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
