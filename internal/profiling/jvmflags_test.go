package profiling

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"perflab/internal/labtest"
)

func TestWithJVMFramePointers(t *testing.T) {
	for in, want := range map[string]string{
		"":                            jvmFramePointerFlag,
		"-Xmx512m":                    "-Xmx512m " + jvmFramePointerFlag,
		"-XX:-PreserveFramePointer":   "-XX:-PreserveFramePointer", // the user said no
		"-XX:+PreserveFramePointer  ": "-XX:+PreserveFramePointer  ",
	} {
		if got := WithJVMFramePointers(in); got != want {
			t.Errorf("WithJVMFramePointers(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestJVMKeepsFramePointers reads real processes' environment and command
// line: the last of JAVA_TOOL_OPTIONS and the command line's flags counts.
func TestJVMKeepsFramePointers(t *testing.T) {
	for _, tc := range []struct {
		env  string
		args []string
		want bool
	}{
		{"", []string{"Server"}, false},
		{JavaToolOptions + "=-Xmx64m " + jvmFramePointerFlag, []string{"Server"}, true},
		{JavaToolOptions + "=" + jvmFramePointerFlag, []string{"-XX:-PreserveFramePointer"}, false},
		{"", []string{jvmFramePointerFlag}, true},
	} {
		// sh -c ignores its extra arguments: they stand for a JVM's. The
		// exit after sleep keeps sh from exec'ing sleep in its place
		// (whose command line has no such arguments).
		cmd := exec.Command("sh", append([]string{"-c", "sleep 60; exit 0", "java"}, tc.args...)...)
		cmd.Env = append(os.Environ(), tc.env)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		execDone(t, cmd.Process.Pid)
		got := jvmKeepsFramePointers(cmd.Process.Pid)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if got != tc.want {
			t.Errorf("env %q args %q: %v, want %v", tc.env, tc.args, got, tc.want)
		}
	}
}

// execDone waits (at most 5 s) until process pid's command line is sh's:
// exec lets the parent go on before the new program's arguments and
// environment are in place, and reading them then gives nothing.
func execDone(t *testing.T, pid int) {
	t.Helper()
	labtest.Eventually(t, 5*time.Second, fmt.Sprintf("process %d to show sh's command line", pid), func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		return err == nil && bytes.HasPrefix(b, []byte("sh\x00"))
	})
}
