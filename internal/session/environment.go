package session

import (
	"context"
	"runtime"

	"perflab/internal/revision"
	"perflab/internal/runfmt"
	"perflab/internal/service"
)

// environment describes the machine and, when the current directory is in a
// git repository, the commit being measured.
func environment(version string) runfmt.Environment {
	e := runfmt.NewEnvironment(version)
	e.GoVersion, e.CgroupVersion = runtime.Version(), service.CgroupVersion()
	e.GitCommit, e.GitDirty = revision.Head(context.Background(), "")
	return e
}
