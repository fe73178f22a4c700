package lab

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"perflab/internal/runfmt"
	"perflab/internal/target"
)

// environment describes the machine and, when the current directory is in a
// git repository, the commit being measured.
func environment(version string) runfmt.Environment {
	e := runfmt.Environment{
		PerflabVersion: version,
		GoVersion:      runtime.Version(),
		HostCores:      runtime.NumCPU(),
		CgroupVersion:  target.CgroupVersion(),
	}
	e.Hostname, _ = os.Hostname()
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		e.Kernel = unix.ByteSliceToString(u.Release[:])
	}
	if out, err := git("rev-parse", "HEAD"); err == nil {
		e.GitCommit = out
		st, err := git("status", "--porcelain", "--untracked-files=no")
		e.GitDirty = err == nil && st != ""
	}
	return e
}

func git(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return "", err
	}
	return strings.TrimSpace(out.String()), nil
}
