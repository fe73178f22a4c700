package service

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A service the kernel's OOM killer kills at its --memory budget is said
// to be that, not "killed by signal 9".
func TestOOMKillIsSaid(t *testing.T) {
	cmd, env := helperCmd(t, "hog")
	p := launchT(t, LaunchConfig{Command: cmd, Env: env, Budget: Budget{MemoryBytes: 32 << 20}, Name: "oom"})
	needCgroup(t, p)
	select {
	case <-p.Exited():
	case <-time.After(time.Minute):
		t.Fatal("the service that allocates without end still runs after a minute under --memory 32M")
	}
	err := p.ExitErr()
	var oom *OOMError
	const want = "killed by the kernel's OOM killer at the 32 MiB memory budget (--memory)"
	if !errors.As(err, &oom) || err.Error() != want {
		t.Errorf("exit: %v; want %q", err, want)
	}
	if c := p.ExitCode(); c == nil || *c != 128+9 {
		t.Errorf("exit code %v; want 137", c)
	}
}

// A SIGKILL that is not the OOM killer's stays "killed by signal 9".
func TestSIGKILLIsNotAnOOMKill(t *testing.T) {
	cmd, env := helperCmd(t, "spinfor", "1m")
	p := launchT(t, LaunchConfig{Command: cmd, Env: env, Budget: Budget{MemoryBytes: 64 << 20}, Name: "kill"})
	needCgroup(t, p)
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Exited():
	case <-time.After(time.Minute):
		t.Fatal("the killed service did not exit within a minute")
	}
	if err := p.ExitErr(); err == nil || err.Error() != "killed by signal 9 (killed)" {
		t.Errorf("exit: %v; want killed by signal 9 (killed)", err)
	}
}

// The OOM kill count is read from each version's file: v2's
// memory.events, v1's memory.oom_control, and v1's memory.failcnt where
// the kernel counts no kills.
func TestOOMKillsReadsEachVersion(t *testing.T) {
	for _, tc := range []struct {
		version int
		files   map[string]string
		n       int64
		exact   bool
	}{
		{2, map[string]string{"memory.events": "low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 0\n"}, 1, true},
		{1, map[string]string{"memory.oom_control": "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n"}, 2, true},
		{1, map[string]string{"memory.oom_control": "oom_kill_disable 0\nunder_oom 0\n", "memory.failcnt": "7\n"}, 7, false},
	} {
		dir := t.TempDir()
		for name, content := range tc.files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var r fileReader
		n, exact, err := (&group{version: tc.version, memDir: dir}).oomKills(&r)
		if err != nil || n != tc.n || exact != tc.exact {
			t.Errorf("v%d %v: %d kills, exact %v, %v; want %d, %v", tc.version, tc.files, n, exact, err, tc.n, tc.exact)
		}
	}
}
