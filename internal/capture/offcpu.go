package capture

import (
	"context"
	"strconv"

	"github.com/google/pprof/profile"
)

// PySpyIdleRecord samples a Python process with py-spy like PySpyRecord,
// idle threads included (--idle): every thread's stack at every sample,
// whether it runs or waits (on a socket, a lock, a sleep). Its "cpu" values
// are wall time. Files are named in full (--full-filenames), so the
// standard library is told from the service's code by its path.
func PySpyIdleRecord(ctx context.Context, pid int, seconds float64, rate int) (*profile.Profile, error) {
	return spyRecord(ctx, spyTool{
		name: "py-spy", install: "pip install py-spy", lang: "Python",
		args: func(pid, secs, rate int, out string) []string {
			return []string{"record", "--pid", strconv.Itoa(pid), "--duration", strconv.Itoa(secs),
				"--rate", strconv.Itoa(rate), "--format", "raw", "--output", out, "--nonblocking",
				"--idle", "--full-filenames"}
		},
	}, pid, seconds, rate)
}
