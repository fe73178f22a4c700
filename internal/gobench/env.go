package gobench

import (
	"context"
	"debug/buildinfo"

	"perflab/internal/revision"
	"perflab/internal/runfmt"
)

// environment describes the machine, the Go toolchain that built the
// benchmarks (read from the test binary bin) and, when dir is in a git
// repository, its commit.
func environment(ctx context.Context, version, dir, bin string) runfmt.Environment {
	e := runfmt.NewEnvironment(version)
	if info, err := buildinfo.ReadFile(bin); err == nil {
		e.GoVersion = info.GoVersion
	}
	e.GitCommit, e.GitDirty = revision.Head(ctx, dir)
	return e
}
