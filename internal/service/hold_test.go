package service

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestHoldUntilRelease: a process launched with Hold has its pid (and its
// group) but runs nothing until Release; then it runs, and its CPU is
// there once it exits.
func TestHoldUntilRelease(t *testing.T) {
	p := launchT(t, LaunchConfig{Command: []string{"sh", "-c", "echo started; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"},
		Hold: true, Name: "held", LogPath: filepath.Join(t.TempDir(), "log")})
	if !slices.Contains(p.PIDs(), p.PID()) {
		t.Errorf("held process %d not among the service's %v", p.PID(), p.PIDs())
	}
	// Still the gate, not the command: it has not exec'd.
	if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.PID())); err != nil || !strings.Contains(string(cmdline), "perflab-gate") {
		t.Fatalf("held process's command line %q (%v); want the gate's", cmdline, err)
	}
	if n := p.LogWritten(); n != 0 {
		t.Fatalf("held process wrote %d bytes before its release", n)
	}
	if _, ok := p.Usage(); ok {
		t.Error("usage of a process that runs")
	}
	if err := p.Release(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
	case <-time.After(30 * time.Second):
		t.Fatal("released process did not exit within 30 s")
	}
	if code := p.ExitCode(); code == nil || *code != 0 || !slices.Contains(p.LogTail(5), "started") {
		t.Errorf("exit %v, output %q; want 0 and its output", code, p.LogTail(5))
	}
	if u, ok := p.Usage(); !ok || u.User+u.System <= 0 {
		t.Errorf("usage %+v, %v; want the CPU of its loop", u, ok)
	}
	if err := p.Release(); err != nil {
		t.Errorf("a second Release: %v; want nothing done", err)
	}
}

// TestHoldNeverReleased: a held process stopped before its release ends
// without running its command.
func TestHoldNeverReleased(t *testing.T) {
	p := launchT(t, LaunchConfig{Command: []string{"sh", "-c", "echo ran"}, Hold: true, Name: "never", LogPath: filepath.Join(t.TempDir(), "log")})
	if err := p.Stop(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if n := p.LogWritten(); n != 0 {
		t.Errorf("the command wrote %d bytes; want it never run", n)
	}
}
