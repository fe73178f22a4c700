package capture

import (
	"io"

	"github.com/google/pprof/profile"
)

// ParsePerfScript parses perf script output with no perf map (see
// parsePerfScript).
func ParsePerfScript(r io.Reader) (*profile.Profile, error) {
	return parsePerfScript(r, nil, nil)
}

// ParseV8Profile is ParseV8ProfileOptions without the scripts' sources.
func ParseV8Profile(data []byte, pid, periodNanos int64) (*profile.Profile, error) {
	return ParseV8ProfileOptions(data, V8Options{PID: pid, PeriodNanos: periodNanos})
}
