package capture

import (
	"context"
	"io"

	"github.com/google/pprof/profile"
)

// PySpyRecord samples a Python process with py-spy for seconds (rounded up
// to whole seconds, as py-spy takes them) at rate samples per second (0
// means 100), without pausing it (--nonblocking), and returns a CPU profile
// of its Python stacks (see ParseCollapsed).
func PySpyRecord(ctx context.Context, pid int, seconds float64, rate int) (*profile.Profile, error) {
	return PySpy(ctx, SpyConfig{PID: pid, Seconds: seconds, Rate: rate})
}

// RbSpyRecord samples a Ruby process with rbspy for seconds (rounded up)
// at rate samples per second (0 means 100), without pausing it, and
// returns a CPU profile of its Ruby stacks (see ParseRbspyRaw).
func RbSpyRecord(ctx context.Context, pid int, seconds float64, rate int) (*profile.Profile, error) {
	return RbSpy(ctx, SpyConfig{PID: pid, Seconds: seconds, Rate: rate})
}

// ParsePerfScript parses perf script output with no perf map (see
// parsePerfScript).
func ParsePerfScript(r io.Reader) (*profile.Profile, error) {
	return parsePerfScript(r, nil)
}
