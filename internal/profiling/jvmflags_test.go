package profiling

import (
	"os"
	"os/exec"
	"testing"
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
		// sh -c ignores its extra arguments: they stand for a JVM's.
		cmd := exec.Command("sh", append([]string{"-c", "sleep 60", "java"}, tc.args...)...)
		cmd.Env = append(os.Environ(), tc.env)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		got := jvmKeepsFramePointers(cmd.Process.Pid)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if got != tc.want {
			t.Errorf("env %q args %q: %v, want %v", tc.env, tc.args, got, tc.want)
		}
	}
}
