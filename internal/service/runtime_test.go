package service

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"perflab/internal/labtest"
	"perflab/internal/runfmt"
)

func TestDetectRuntimeGoBinary(t *testing.T) {
	info, err := DetectRuntime(os.Getpid()) // the test binary: a Go program
	if err != nil {
		t.Fatal(err)
	}
	if info.Runtime != runfmt.RuntimeGo || info.Exe == "" || info.PPID != os.Getppid() {
		t.Errorf("DetectRuntime(self) = %+v; want runtime go, its executable and parent", info)
	}
}

// startIdle starts a command that sleeps and returns its pid.
func startIdle(t *testing.T, name string, args ...string) int {
	t.Helper()
	path := labtest.NeedTool(t, name, "")
	cmd := exec.Command(path, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid // waitRuntime waits for the interpreter to map its libraries
}

// waitRuntime detects pid's runtime until it is want or 10 s pass: the
// command may be a launcher (a pyenv shim is bash, then pyenv, then the
// interpreter) that execs several times before the interpreter runs.
func waitRuntime(t *testing.T, pid int, want runfmt.Runtime) ProcessInfo {
	t.Helper()
	var info ProcessInfo
	labtest.Until(10*time.Second, func() bool {
		var err error
		if info, err = DetectRuntime(pid); err != nil {
			t.Fatal(err)
		}
		return info.Runtime == want
	})
	return info
}

func TestDetectRuntimeInterpreters(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		args []string
		want runfmt.Runtime
	}{
		{"python3", []string{"-c", "import time; time.sleep(30)"}, runfmt.RuntimePython},
		{"ruby", []string{"-e", "sleep 30"}, runfmt.RuntimeRuby},
		{"node", []string{"-e", "setTimeout(() => {}, 30000)"}, runfmt.RuntimeNode},
		{"sleep", []string{"30"}, runfmt.RuntimeNative},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			info := waitRuntime(t, startIdle(t, tc.cmd, tc.args...), tc.want)
			if info.Runtime != tc.want {
				t.Errorf("%s: runtime %q (exe %s), want %q", tc.cmd, info.Runtime, info.Exe, tc.want)
			}
		})
	}
}

// TestDetectRuntimeThroughLauncher: a shell that execs the interpreter (a
// pyenv shim, a console script) is the interpreter, whatever its name.
func TestDetectRuntimeThroughLauncher(t *testing.T) {
	labtest.NeedTool(t, "python3", "")
	info := waitRuntime(t, startIdle(t, "sh", "-c", "exec python3 -c 'import time; time.sleep(30)'"), runfmt.RuntimePython)
	if info.Runtime != runfmt.RuntimePython {
		t.Errorf("sh -c 'exec python3': runtime %q (exe %s), want python", info.Runtime, info.Exe)
	}
}

func TestDetectRuntimeBadPIDs(t *testing.T) {
	if _, err := DetectRuntime(2); !errors.Is(err, ErrKernelThread) { // kthreadd
		t.Errorf("pid 2: %v, want a kernel thread error", err)
	}
	if _, err := DetectRuntime(1 << 30); !errors.Is(err, ErrNoProcess) {
		t.Errorf("pid 2^30: %v, want no such process", err)
	}
}

// TestDetectRuntimeNotPermitted reads a root process as another user.
func TestDetectRuntimeNotPermitted(t *testing.T) {
	labtest.RequireRoot(t, "runs a helper as another user")
	setpriv := labtest.NeedTool(t, "setpriv", "")
	pid := startIdle(t, "sleep", "30")
	exe, _ := os.Executable()
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", exe, "-test.run=^TestDetectRuntimeAsOtherUser$", "-test.v")
	cmd.Env = append(os.Environ(), "PERFLAB_OTHER_PID="+strconv.Itoa(pid))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "not permitted") {
		t.Errorf("as nobody: %v\n%s", err, out)
	}
}

// TestDetectRuntimeAsOtherUser runs under TestDetectRuntimeNotPermitted.
func TestDetectRuntimeAsOtherUser(t *testing.T) {
	pid, err := strconv.Atoi(os.Getenv("PERFLAB_OTHER_PID"))
	if err != nil {
		t.Skip("run by TestDetectRuntimeNotPermitted")
	}
	_, err = DetectRuntime(pid)
	if !errors.Is(err, ErrNoPermission) {
		t.Fatalf("DetectRuntime(%d) as uid %d: %v, want not permitted", pid, os.Getuid(), err)
	}
	t.Log(err)
}
