package gobench

import (
	"context"
	"debug/buildinfo"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"perflab/internal/files"
	"perflab/internal/runfmt"
)

// environment describes the machine, the Go toolchain that built the
// benchmarks (read from the test binary bin) and, when dir is in a git
// repository, its commit.
func environment(ctx context.Context, version, dir, bin string) runfmt.Environment {
	e := runfmt.Environment{PerflabVersion: version, HostCores: runtime.NumCPU()}
	e.Hostname, _ = os.Hostname()
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		e.Kernel = unix.ByteSliceToString(u.Release[:])
	}
	if info, err := buildinfo.ReadFile(bin); err == nil {
		e.GoVersion = info.GoVersion
	}
	if out, err := command(ctx, dir, "git", "rev-parse", "HEAD"); err == nil {
		e.GitCommit = out
		st, err := command(ctx, dir, "git", "status", "--porcelain", "--untracked-files=no")
		e.GitDirty = err == nil && st != ""
	}
	return e
}

// command runs a short command in dir for its trimmed output.
func command(ctx context.Context, dir, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out := files.NewTail(4096)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stdout = out
	if err := cmd.Run(); err != nil {
		return "", err
	}
	return strings.TrimSpace(out.String()), nil
}
