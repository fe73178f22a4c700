package revision

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
)

// TestBuildDiesWithPerflab kills a perflab (this test's binary, as a
// helper) with SIGKILL while its build runs: the build's process group
// dies with it, and what the build started outside its group (a daemon
// in a session of its own) is killed by the next workspace.
func TestBuildDiesWithPerflab(t *testing.T) {
	labtest.NeedTool(t, "setsid", "")
	dir := testRepo(t)
	pids := filepath.Join(t.TempDir(), "pids")
	helper := exec.Command(os.Args[0], "-test.run=^TestBuildHelper$")
	helper.Env = append(os.Environ(), "PERFLAB_BUILD_REPO="+dir, "PERFLAB_BUILD_PIDS="+pids)
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	defer helper.Process.Kill()
	var build, daemon int
	labtest.Eventually(t, 60*time.Second, "the build to start", func() bool {
		b, err := os.ReadFile(pids)
		f := strings.Fields(string(b))
		if err != nil || len(f) != 2 {
			return false
		}
		build, _ = strconv.Atoi(f[0])
		daemon, _ = strconv.Atoi(f[1])
		// The shell wrote the daemon's pid as soon as it forked it: on a
		// busy machine setsid may not have run yet, and the daemon would
		// still be in the build's group.
		return sessionOf(daemon) == daemon
	})
	helper.Process.Kill()
	helper.Wait()
	labtest.Eventually(t, 10*time.Second, "the build to die with perflab", func() bool { return !running(build) })
	if !running(daemon) {
		t.Fatalf("the daemon %d died with the build's group; the test needs it to outlive it", daemon)
	}
	repo, _ := Open(context.Background(), dir)
	ws, err := repo.NewWorkspace(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	labtest.Eventually(t, 10*time.Second, "the next workspace to kill the daemon the build left", func() bool { return !running(daemon) })
}

// TestBuildHelper is the perflab TestBuildDiesWithPerflab kills: it
// checks a revision out and builds it with a build that never ends.
func TestBuildHelper(t *testing.T) {
	dir, pids := os.Getenv("PERFLAB_BUILD_REPO"), os.Getenv("PERFLAB_BUILD_PIDS")
	if dir == "" {
		t.Skip("run by TestBuildDiesWithPerflab")
	}
	res, err := resolve(t, dir, "HEAD~1..HEAD", ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := Open(context.Background(), dir)
	ws, err := repo.NewWorkspace(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tree, err := ws.Checkout(context.Background(), res.Base)
	if err != nil {
		t.Fatal(err)
	}
	cmd := `sleep 300 & b=$!; setsid sleep 301 & d=$!; echo "$b $d" > ` + shellQuote(pids+".tmp") + ` && mv ` + shellQuote(pids+".tmp") + ` ` + shellQuote(pids) + `; wait`
	t.Log(ws.Build(context.Background(), res.Base, tree, cmd, ws.Output(res.Base), time.Hour))
}

// running says whether pid is a process that has not exited (a zombie
// no one reaped has).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

// sessionOf is the session of process pid (0 when it cannot be read).
func sessionOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	f := strings.Fields(s[i+1:]) // state, ppid, pgrp, session, ...
	if i < 0 || len(f) < 4 {
		return 0
	}
	sid, _ := strconv.Atoi(f[3])
	return sid
}
