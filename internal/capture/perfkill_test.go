package capture

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"perflab/internal/files"
)

// perfHelperEnv turns the test binary into a perflab that records the
// process PERFLAB_PERF_HELPER names with PerfRecord for a minute, printing
// "perf PID" once perf runs; PERFLAB_PERF_NAMED makes it write a named
// perf.data. (No OnAttached: perf stops by itself when its control
// descriptors close, and the test is of a perf that would not.)
const perfHelperEnv = "PERFLAB_PERF_HELPER"

func init() {
	pid, err := strconv.Atoi(os.Getenv(perfHelperEnv))
	if err != nil {
		return
	}
	namedPerfData = os.Getenv("PERFLAB_PERF_NAMED") != ""
	_, err = PerfRecord(context.Background(), PerfConfig{PIDs: []int{pid}, Seconds: 60,
		OnStart: func(pid int) { fmt.Printf("perf %d\n", pid) }})
	fmt.Println("done", err)
	os.Exit(0)
}

// A perflab killed with SIGKILL while perf records takes perf with it
// (perf gets SIGKILL), and leaves no perf data: the unnamed file dies with
// the processes that held it, and a named one's directory is removed by
// the next perflab (files.RemoveStale), though never while its owner runs.
func TestKilledPerflabLeavesNoPerfData(t *testing.T) {
	needPerf(t)
	for _, named := range []bool{false, true} {
		t.Run(fmt.Sprintf("named %v", named), func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			target := exec.Command("sleep", "120")
			startBusy(t, target)
			helper := exec.Command(os.Args[0], "-test.run=^$")
			helper.Env = append(os.Environ(), perfHelperEnv+"="+strconv.Itoa(target.Process.Pid))
			if named {
				helper.Env = append(helper.Env, "PERFLAB_PERF_NAMED=1")
			}
			out, err := helper.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			helper.Stderr = os.Stderr
			startBusy(t, helper)
			perf := waitStarted(t, out)

			left := leftovers(t, tmp)
			if named != (len(left) == 1) {
				t.Fatalf("while perf records, %s holds %v; want a perflab-perf- directory only when named", tmp, left)
			}
			if removed := files.RemoveStale(); len(removed) != 0 {
				t.Errorf("RemoveStale removed %v, the directory of a perflab that runs", removed)
			}

			if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			helper.Wait()
			waitGone(t, perf, 30*time.Second)
			if named {
				files.RemoveStale() // what the next perflab does first
			}
			if left := leftovers(t, tmp); len(left) != 0 {
				t.Errorf("after the kill, %s holds %v; want nothing", tmp, left)
			}
		})
	}
}

// waitStarted reads the helper's lines until perf runs, within a minute,
// and returns perf's pid.
func waitStarted(t *testing.T, out interface{ Read([]byte) (int, error) }) int {
	t.Helper()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case line, ok := <-lines:
		perf, err := strconv.Atoi(strings.TrimPrefix(line, "perf "))
		if !ok || err != nil {
			t.Fatalf("helper: %q, want perf's pid", line)
		}
		return perf
	case <-time.After(time.Minute):
		t.Fatal("perf did not start within a minute")
	}
	return 0
}

// waitGone waits until process pid has exited, within timeout: its pidfd
// turns readable when it does.
func waitGone(t *testing.T, pid int, timeout time.Duration) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ESRCH {
		return // gone already
	}
	if err != nil {
		t.Fatalf("pidfd of perf (pid %d): %v", pid, err)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for deadline := time.Now().Add(timeout); ; {
		n, err := unix.Poll(fds, int(max(0, time.Until(deadline).Milliseconds())))
		switch {
		case n > 0:
			return
		case err == unix.EINTR:
			continue
		case err != nil:
			t.Fatalf("waiting for perf (pid %d) to exit: %v", pid, err)
		}
		t.Fatalf("perf (pid %d) still runs %s after perflab was killed", pid, timeout)
	}
}

// leftovers lists what perflab left in the temporary directory tmp.
func leftovers(t *testing.T, tmp string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(tmp, "perflab-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
