package labtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A test that cannot run because the machine lacks something skips
// through the helpers below, and only through them: each skip's message
// starts with one machine-readable word, which .ci/test counts to print
// its table of skipped tests and, on CI, to fail the run that skipped a
// suite for want of a tool:
//
//	perflab-skip: tool=py-spy: py-spy not installed (.ci/setup installs it)
//	perflab-skip: host=root: needs root: cgroups, perf
//
// A tool is anything .ci/setup installs (a command, a Python module, the
// express package, async-profiler's library); a host need is what the
// machine is (root). Other skips (-short, a helper process's own test)
// carry no such word.
const (
	// SkipPrefix starts the message of every skip for a missing part.
	SkipPrefix = "perflab-skip:"
	// SkipTool and SkipHost name the two kinds of missing part.
	SkipTool = "tool"
	SkipHost = "host"
)

// SkipMissing skips the test because tool is not installed; why says
// what is missing and how to install it.
func SkipMissing(t testing.TB, tool, why string) {
	t.Helper()
	t.Skip(SkipMessage(SkipTool, tool, why))
}

// SkipMessage is the message of a skip for want of name, of kind SkipTool
// or SkipHost.
func SkipMessage(kind, name, why string) string {
	return fmt.Sprintf("%s %s=%s: %s", SkipPrefix, kind, name, why)
}

// NeedTool returns the path of the command name in PATH, and skips the
// test when there is none; install says how to get it ("apt-get install
// linux-perf"), or is empty for a command .ci/setup installs.
func NeedTool(t testing.TB, name, install string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		SkipMissing(t, name, name+" not installed ("+installHint(install)+")")
	}
	return path
}

// NeedFile returns path when it exists, and skips the test naming tool
// when it does not: a tool installed as a file rather than a command in
// PATH (async-profiler's library, the express package of a test service).
func NeedFile(t testing.TB, tool, path, install string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		SkipMissing(t, tool, fmt.Sprintf("%s not installed: no %s (%s)", tool, path, installHint(install)))
	}
	return path
}

// NeedPython returns the path of python3 in PATH once it imports every
// module; it skips the test naming the first one missing.
func NeedPython(t testing.TB, modules ...string) string {
	t.Helper()
	python := NeedTool(t, "python3", "")
	for _, m := range modules {
		if err := exec.Command(python, "-c", "import "+m).Run(); err != nil {
			SkipMissing(t, m, fmt.Sprintf("python module %s not installed for %s (%s)", m, python, installHint("")))
		}
	}
	return python
}

// NeedCargo returns the path of cargo, in PATH or ~/.cargo/bin (where
// rustup puts it), and skips the test when there is neither.
func NeedCargo(t testing.TB) string {
	t.Helper()
	if cargo, err := exec.LookPath("cargo"); err == nil {
		return cargo
	}
	home, _ := os.UserHomeDir()
	if cargo := filepath.Join(home, ".cargo", "bin", "cargo"); executable(cargo) {
		return cargo
	}
	SkipMissing(t, "cargo", "cargo not installed: not in PATH nor ~/.cargo/bin ("+installHint("")+")")
	return ""
}

func installHint(install string) string {
	if install == "" {
		return ".ci/setup installs it"
	}
	return install
}
